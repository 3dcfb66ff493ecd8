"""Quickstart: constrain the default model (SmolLM2-135M-Instruct) with four kinds of grammar.

typedgen's decoding loop (`typedgen.generate`) is the next milestone; until it lands, this example
drives the public engine API with a plain greedy loop: compile a grammar for the model's
vocabulary, then at every step fill the token bitmask, mask the logits, pick, and accept.

Run: bash scripts/example.sh   (or: python examples/quickstart.py)
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass

import numpy as np

import typedgen
from typedgen.ir import Grammar


@dataclass
class Decoded:
    text: str
    finished: bool
    tokens: int
    mask_us: float


def constrained_greedy(
    model: typedgen.LoadedModel,
    compiled: typedgen.CompiledGrammar,
    prompt: str,
    max_tokens: int = 64,
) -> Decoded:
    """Greedy decoding under the grammar: the mask is applied to the logits before the argmax."""
    import torch

    messages = [{"role": "user", "content": prompt}]
    ids = model.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_tensors="pt"
    )
    if not isinstance(ids, torch.Tensor):
        ids = ids["input_ids"]
    vocab = compiled.vocabulary
    bitmask = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    matcher = compiled.matcher()
    # transformers 5 renamed the KV-cache argument (past_key_values -> cache).
    params = inspect.signature(model.model.forward).parameters
    cache_arg = "cache" if "cache" in params else "past_key_values"
    cache, step, out, mask_ns = None, ids.to(model.device), [], 0
    with torch.no_grad():
        for _ in range(max_tokens):
            result = model.model(step, use_cache=True, **{cache_arg: cache})
            cache = getattr(result, cache_arg)
            logits = result.logits[0, -1].float()
            t0 = time.perf_counter_ns()
            matcher.fill_next_token_bitmask(bitmask)
            mask_ns += time.perf_counter_ns() - t0
            allowed = np.unpackbits(bitmask.view(np.uint8), bitorder="little")[: logits.shape[0]]
            if not allowed.any():
                raise RuntimeError(f"dead end after {vocab.decode(out)!r}")
            logits[torch.from_numpy(allowed == 0)] = float("-inf")
            token = int(torch.argmax(logits))
            if not matcher.accept_token(token):
                raise RuntimeError("the mask allowed a token the matcher refuses")
            if token in vocab.eos_ids:
                break
            out.append(token)
            step = torch.tensor([[token]], device=model.device)
    text = vocab.decode(out).decode("utf-8", errors="replace")
    steps = len(out) + int(matcher.is_terminated())
    return Decoded(text, matcher.is_terminated(), len(out), mask_ns / 1e3 / max(steps, 1))


EXAMPLES: list[tuple[str, Grammar, str]] = [
    (
        "GBNF (JSON object)",
        Grammar.from_gbnf(
            'root ::= "{\\"name\\": \\"" [A-Za-z ]{1,24} "\\", \\"age\\": " [0-9]{1,3} "}"'
        ),
        "Describe a cat as JSON with its name and age.",
    ),
    (
        "Lark (robot commands)",
        Grammar.from_lark(
            """
            start: command (", " command)~0..3
            command: "move " DIRECTION " " STEPS | "turn " SIDE | "stop"
            DIRECTION: "north" | "south" | "east" | "west"
            SIDE: "left" | "right"
            STEPS: /[1-9][0-9]?/
            """
        ),
        "Give a robot two commands to go to the kitchen.",
    ),
    ("Regex (ISO date)", Grammar.from_regex(r"\d{4}-\d{2}-\d{2}"), "When did Apollo 11 land?"),
    (
        "Choice (sentiment)",
        Grammar.from_choice(["positive", "negative", "neutral"]),
        "Sentiment of 'The food was cold and late.'? Answer positive, negative or neutral.",
    ),
]


def main() -> None:
    t0 = time.perf_counter()
    model = typedgen.load_model()
    print(f"loaded {model.name} on {model.device} in {time.perf_counter() - t0:.1f}s")
    for title, grammar, prompt in EXAMPLES:
        t1 = time.perf_counter()
        compiled = typedgen.compile(grammar, model.vocabulary)
        compile_ms = (time.perf_counter() - t1) * 1e3
        result = constrained_greedy(model, compiled, prompt)
        status = "complete" if result.finished else "cut at max_tokens"
        print(f"\n{title}\n  prompt: {prompt}\n  output: {result.text!r} ({status})")
        print(
            f"  {result.tokens} tokens; compile {compile_ms:.0f} ms;"
            f" mean mask {result.mask_us:.0f} us/token"
        )


if __name__ == "__main__":
    main()

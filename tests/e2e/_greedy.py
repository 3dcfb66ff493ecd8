"""A minimal constrained greedy decoder for end-to-end tests of the engine on a real model.

Test harness only: the product decoding loop (sampling, batching, jump-forward, overlap of mask
and forward pass) belongs to typedgen's decoding package. The mask is applied to the logits
before the argmax, and a token outside the mask is never produced.
"""

from __future__ import annotations

import inspect

import numpy as np

import typedgen
from typedgen.models import LoadedModel


def constrained_greedy(
    loaded: LoadedModel, compiled: typedgen.CompiledGrammar, prompt: str, max_tokens: int = 64
) -> tuple[str, bool]:
    """Greedy decode under the grammar; returns (text, finished with EOS)."""
    import torch

    tok = loaded.tokenizer
    messages = [{"role": "user", "content": prompt}]
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")
    if not isinstance(ids, torch.Tensor):
        ids = ids["input_ids"]
    ids = ids.to(loaded.device)
    vocab = compiled.vocabulary
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    matcher = compiled.matcher()
    out: list[int] = []
    # transformers 5 renamed the KV-cache argument (past_key_values -> cache).
    params = inspect.signature(loaded.model.forward).parameters
    cache_arg = "cache" if "cache" in params else "past_key_values"
    past = None
    step_input = ids
    with torch.no_grad():
        for _ in range(max_tokens):
            result = loaded.model(step_input, use_cache=True, **{cache_arg: past})
            past = getattr(result, cache_arg)
            logits = result.logits[0, -1].float()
            matcher.fill_next_token_bitmask(words)
            allowed = np.unpackbits(words.view(np.uint8), bitorder="little")[: logits.shape[0]]
            if not allowed.any():
                raise AssertionError(f"empty mask after {vocab.decode(out)!r}")
            logits[torch.from_numpy(allowed == 0)] = float("-inf")
            token = int(torch.argmax(logits))
            if token in vocab.eos_ids:
                assert matcher.accept_token(token)
                return vocab.decode(out).decode("utf-8"), True
            assert matcher.accept_token(token), "the mask allowed a token the matcher refuses"
            out.append(token)
            step_input = torch.tensor([[token]], device=loaded.device)
    return vocab.decode(out).decode("utf-8", errors="replace"), False

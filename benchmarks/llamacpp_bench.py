"""llama-cpp-python: per-token cost of typedgen's logits processor beside unconstrained decoding.

Run where scripts/test-llamacpp.sh puts llama_cpp on the path (PYTHONPATH=<its target folder>):

    python benchmarks/llamacpp_bench.py [--repeat 5]

The bundled SmolLM2 GGUF file, greedy, ``max_tokens=96``, on JSON prompts for three Pydantic
schemas. Reported: tokens/s unconstrained and constrained (interleaved runs, median), and the
processor's own time per token measured inside the call, as a share of an unconstrained token's
time: that share does not depend on the other load of the machine, which the tokens/s do.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import typedgen_llamacpp
from pydantic import BaseModel, Field

import typedgen
from typedgen._bundled import smollm2_gguf_path


class City(BaseModel):
    name: str = Field(max_length=30)
    country: str = Field(max_length=30)
    population_millions: int = Field(ge=0, le=50)


class Person(BaseModel):
    name: str = Field(max_length=40)
    age: int = Field(ge=0, le=120)
    email: str = Field(max_length=60)


class Book(BaseModel):
    title: str = Field(max_length=60)
    author: str = Field(max_length=40)
    year: int = Field(ge=1000, le=2030)


REQUESTS: list[tuple[type[BaseModel], str]] = [
    (City, "Describe Paris as JSON."),
    (Person, "Invent a person and describe them as JSON."),
    (Book, "Describe the novel Dune as JSON."),
]


class Timed(typedgen_llamacpp.LogitsProcessor):
    """The processor, with the time spent in its calls accumulated."""

    seconds = 0.0
    calls = 0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        started = time.perf_counter()
        out = super().__call__(input_ids, scores)
        Timed.seconds += time.perf_counter() - started
        Timed.calls += 1
        return out


def load() -> Any:
    import llama_cpp

    defaults = llama_cpp.llama_model_default_params

    def no_repack() -> Any:  # see integrations/llamacpp/tests: repacking crashes on this CPU
        params = defaults()
        params.use_extra_bufts = False
        return params

    llama_cpp.llama.llama_cpp.llama_model_default_params = no_repack
    try:
        return llama_cpp.Llama(str(smollm2_gguf_path()), n_ctx=2048, seed=0, verbose=False)
    finally:
        llama_cpp.llama.llama_cpp.llama_model_default_params = defaults


def main() -> None:
    import llama_cpp

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    llama = load()
    vocab = typedgen_llamacpp.vocabulary(llama)
    compiled = {m: typedgen.compile(m, vocab) for m, _ in REQUESTS}

    def run(constrained: bool) -> tuple[int, float, int]:
        tokens, seconds, valid = 0, 0.0, 0
        for model, prompt in REQUESTS:
            extra: dict[str, Any] = {}
            if constrained:
                processor = Timed(compiled[model])
                extra["logits_processor"] = llama_cpp.LogitsProcessorList([processor])
            started = time.perf_counter()
            out = llama.create_chat_completion(
                [{"role": "user", "content": prompt}], max_tokens=96, temperature=0, **extra
            )
            seconds += time.perf_counter() - started
            tokens += int(out["usage"]["completion_tokens"])
            if constrained:
                try:
                    model.model_validate_json(out["choices"][0]["message"]["content"])
                    valid += out["choices"][0]["finish_reason"] == "stop"
                except ValueError:
                    pass
        return tokens, seconds, valid

    run(True)  # warm-up: every state the constrained runs meet is memoised
    run(False)
    plain, typed = [], []
    Timed.seconds, Timed.calls = 0.0, 0
    valid = 0
    for _ in range(args.repeat):
        t, s, _ = run(False)
        plain.append((t, s))
        t, s, v = run(True)
        typed.append((t, s))
        valid += v
    plain_rate = statistics.median(t / s for t, s in plain)
    typed_rate = statistics.median(t / s for t, s in typed)
    per_token = Timed.seconds / max(1, Timed.calls)
    share = per_token * plain_rate
    print(f"unconstrained: {plain_rate:.1f} tok/s   typedgen: {typed_rate:.1f} tok/s")
    print(
        f"processor: {per_token * 1e6:.0f} us per token = {100 * share:.2f}% of an unconstrained"
        f" token; valid {valid}/{args.repeat * len(REQUESTS)}"
    )


if __name__ == "__main__":
    main()

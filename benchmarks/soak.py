"""Soak: a few hundred generations on the tiny random model, with the process's RSS sampled.

Run: python benchmarks/soak.py [--generations 400] [--every 25] [--max-tokens 64]
[--on-max-tokens alternate|raise|finish] [--types pydantic,sql,...] [--tracemalloc]
[--json out.json]

The model is a randomly initialised two-layer Llama with SmolLM2's real tokenizer (as the fast
tests build it), so each generation is cheap and sampled outputs wander over the grammars: new
strings, new nesting depths, new matcher states. Output types rotate (a Pydantic model, a
recursive JSON Schema, a regex, a choice, a recursive Lark grammar, schema-aware SQL, a Pydantic
model with a reasoning scratchpad), and so do the call styles (a reused ``Generator``'s call,
``stream`` and ``batch``, and ``typedgen.generate``, which builds a new ``Generator`` each time)
and ``on_max_tokens`` (every other call closes the output with the grammar's shortest completion
when the budget ends; the others raise ``IncompleteOutputError``, counted as an outcome).
Every ``--every`` generations the script reads ``VmRSS`` from ``/proc/self/status`` and prints a
row, with each grammar's interned engine states (``CompiledGrammar.stats()``) beside it. The
verdict compares the last quarter of the run with the second: memory is bounded when RSS stops
growing once the grammars are warm. ``--tracemalloc`` also prints where Python allocations grew
between the first sample after warm-up and the end (it slows the run down).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

# Run from a checkout: the repository root goes first, so the working tree's typedgen is measured.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel, Field

import typedgen

Json = dict[str, Any]
ROOT = Path(__file__).resolve().parent

CALC = r"""
start: expr
?expr: term | expr OP term
?term: NUMBER | "(" expr ")" | NAME "(" [expr ("," expr)*] ")"
OP: "+" | "-" | "*" | "/"
NUMBER: /[1-9][0-9]{0,3}/
NAME: /[a-z]{1,6}/
"""
DDL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL, placed TEXT);
"""


class Person(BaseModel):
    name: str = Field(max_length=24)
    role: Literal["admin", "user", "guest"]
    age: int = Field(ge=0, le=120)
    active: bool
    tags: list[str] = Field(max_length=3)


class Verdict(BaseModel):
    reasoning: typedgen.Reasoning[80]
    answer: Literal["yes", "no", "unsure"]


def rss_mib() -> float:
    """The resident set size of this process, from /proc (no psutil, no resource module)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (not Linux?)")


def tiny_model() -> typedgen.LoadedModel:
    """A random two-layer Llama over SmolLM2's tokenizer (the fast tests' model)."""
    import torch
    import transformers

    from typedgen._bundled import smollm2_tokenizer

    tokenizer = smollm2_tokenizer()
    vocab = typedgen.Vocabulary.from_tokenizer(tokenizer)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab.size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
    )
    model = transformers.LlamaForCausalLM(config).to(torch.float64).eval()
    return typedgen.LoadedModel(model, tokenizer, vocab, "cpu", "tiny-llama")


def output_types() -> dict[str, tuple[object, bool]]:
    """name -> (output type, reasoning scratchpad)."""
    tree = json.loads((ROOT / "schemas" / "schema_3_tree.json").read_text())
    return {
        "pydantic": (Person, False),
        "tree-schema": (tree, False),
        "regex": (typedgen.Regex(r"[A-Z][a-z]{1,10}( [a-z]{1,10}){0,5}\."), False),
        "choice": (typedgen.Choice("north", "south", "east", "west", "up", "down"), False),
        "calc-lark": (typedgen.Lark(CALC), False),
        "sql": (typedgen.Sql("sqlite", schema=DDL), False),
        "scratchpad": (Verdict, True),
    }


def engine_sizes(generators: dict[str, typedgen.Generator]) -> dict[str, int]:
    """Interned states and cached masks of each grammar's engine, from
    ``CompiledGrammar.stats()`` (whichever engine runs; keys it does not report are left out)."""
    sizes: dict[str, int] = {}
    for name, gen in generators.items():
        stats = gen.compiled().stats()
        for key in ("states", "masks_cached", "mask_evictions"):
            if key in stats:
                sizes[f"{name}.{key}"] = int(stats[key])
    return sizes


def engine_mib(generators: dict[str, typedgen.Generator]) -> float | None:
    """MiB the runtime holds for these grammars' engines (interned structure and bounded
    caches), as the compiler's memory cache counts it; ``None`` where the runtime does not say.
    RSS minus this is everything else: model, tokenizer, Python objects, allocator slack."""
    try:
        from typedgen.compiler.compiled import runtime
    except ImportError:
        return None
    nbytes = getattr(runtime(), "nbytes", None)
    if not callable(nbytes):
        return None
    return sum(int(nbytes(gen.compiled())) for gen in generators.values()) / (1 << 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=400)
    parser.add_argument("--every", type=int, default=25, help="sample RSS every N generations")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument(
        "--on-max-tokens",
        choices=["alternate", "raise", "finish"],
        default="alternate",
        help="what a call does when its budget ends (alternate: every other call finishes)",
    )
    parser.add_argument("--types", help="only these output types (comma-separated names)")
    parser.add_argument("--json", type=Path, help="also write the samples here")
    args = parser.parse_args()
    closing = ["raise", "finish"] if args.on_max_tokens == "alternate" else [args.on_max_tokens]

    t0 = time.perf_counter()
    model = tiny_model()
    kinds = output_types()
    if args.types:
        kinds = {name: kinds[name] for name in args.types.split(",")}
    generators = {
        name: typedgen.Generator(t, model, reasoning=r, max_tokens=args.max_tokens)
        for name, (t, r) in kinds.items()
    }
    for gen in generators.values():
        gen.compiled()
    print(
        f"set-up (tokenizer, model, {len(generators)} grammars compiled): "
        f"{time.perf_counter() - t0:.1f}s, RSS {rss_mib():.1f} MiB",
        file=sys.stderr,
    )

    rnd = random.Random(args.seed)
    styles = ["call", "call", "stream", "batch", "generate"]
    outcomes: Counter[str] = Counter()
    samples: list[Json] = []
    names = list(generators)
    snapshot: tracemalloc.Snapshot | None = None
    if args.tracemalloc:
        tracemalloc.start(12)

    def one(n: int) -> int:
        """Generation number ``n``; returns how many generations it made (a batch makes 2)."""
        name = names[n % len(names)]
        gen = generators[name]
        style = styles[(n // len(names)) % len(styles)]
        options: Json = {
            "temperature": 1.0,
            "seed": rnd.randrange(1 << 30),
            "max_retries": 0,
            "on_max_tokens": closing[n % len(closing)],
        }
        prompt = f"request {n}: give me a {name}"
        run: Callable[[], object]
        if style == "call":
            run = lambda: gen(prompt, **options)  # noqa: E731
        elif style == "stream":
            run = lambda: list(gen.stream(prompt, **options))  # noqa: E731
        elif style == "batch":
            run = lambda: gen.batch([prompt, prompt + "!"], **options)  # noqa: E731
        else:
            output_type, reasoning = kinds[name]
            run = lambda: typedgen.generate(  # noqa: E731
                output_type,
                prompt,
                model=model,
                reasoning=reasoning,
                max_tokens=args.max_tokens,
                **options,
            )
        try:
            run()
            outcomes[f"{name}/ok"] += 1
        except typedgen.GenerationError as exc:  # a random model often fails: still a run
            outcomes[f"{name}/{type(exc).__name__}"] += 1
        return 2 if style == "batch" else 1

    started = time.perf_counter()
    done = calls = 0
    header = (
        f"{'generations':>11} {'seconds':>8} {'RSS MiB':>8} {'delta':>7} {'engines':>8}"
        f" {'other':>7}  engine states"
    )
    print(header)
    last = rss_mib()
    while done < args.generations:
        done += one(calls)
        calls += 1
        if calls % args.every == 0 or done >= args.generations:
            gc.collect()
            rss = rss_mib()
            sizes = engine_sizes(generators)
            engines = engine_mib(generators)
            row = {
                "generations": done,
                "seconds": time.perf_counter() - started,
                "rss_mib": rss,
                "engine_mib": engines,
            }
            samples.append({**row, "engine": sizes})
            memo = ", ".join(f"{k}={v}" for k, v in sizes.items() if k.endswith(".states"))
            held = "-" if engines is None else f"{engines:.1f}"
            other = "-" if engines is None else f"{rss - engines:.1f}"
            print(
                f"{done:>11} {row['seconds']:>8.1f} {rss:>8.1f} {rss - last:>+7.1f}"
                f" {held:>8} {other:>7}  {memo}",
                flush=True,
            )
            last = rss
            if args.tracemalloc and snapshot is None and len(samples) >= 2:
                snapshot = tracemalloc.take_snapshot()

    quarter = max(1, len(samples) // 4)
    early = samples[min(len(samples) - 1, quarter)]["rss_mib"]
    late = [s["rss_mib"] for s in samples[-quarter:]]
    first, final = samples[0]["rss_mib"], samples[-1]["rss_mib"]
    span = samples[-1]["generations"] - samples[min(len(samples) - 1, quarter)]["generations"]
    slope = (final - early) / max(1, span) * 100
    print(f"\noutcomes: {dict(sorted(outcomes.items()))}")
    print(
        f"RSS: {first:.1f} MiB after {samples[0]['generations']} generations, {early:.1f} MiB"
        f" after {samples[min(len(samples) - 1, quarter)]['generations']}, {final:.1f} MiB at"
        f" the end ({slope:+.2f} MiB per 100 generations since then; last quarter"
        f" {min(late):.1f}..{max(late):.1f} MiB)"
    )
    at = samples[min(len(samples) - 1, quarter)]
    if at["engine_mib"] is not None and samples[-1]["engine_mib"] is not None:
        held = samples[-1]["engine_mib"] - at["engine_mib"]
        rest = (final - samples[-1]["engine_mib"]) - (at["rss_mib"] - at["engine_mib"])
        print(
            f"of the growth since then: engines {held:+.1f} MiB (bounded by EngineLimits per"
            f" grammar), everything else {rest:+.1f} MiB"
        )
    print(
        "verdict: "
        + (
            "plateau (bounded)"
            if abs(slope) < 1.0
            else "still growing: look at the engine states and --tracemalloc"
        )
    )
    if args.tracemalloc and snapshot is not None:
        grown = tracemalloc.take_snapshot().compare_to(snapshot, "traceback")
        print("\nlargest Python allocation growth since the second sample:")
        for stat in grown[:8]:
            print(f"  {stat.size_diff / 1024:+9.1f} KiB  {stat.count_diff:+7d} blocks")
            for line in stat.traceback.format()[-6:]:
                print(f"      {line}")
    if args.json:
        args.json.write_text(json.dumps({"samples": samples, "outcomes": outcomes}, indent=1))


if __name__ == "__main__":
    main()

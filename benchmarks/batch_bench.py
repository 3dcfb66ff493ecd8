"""Batch mask fill: one ``typedgen.fill_batch`` call for many matchers against filling them one
by one, into the same ``(rows, ceil(V/32))`` int32 bitmask (the layout vLLM and SGLang use).

Workloads (64 rows by default): *warm* — every row's state was seen before (the steady state
of a server); *cold* — each repetition compiles the grammars afresh and advances every row to
a state not seen yet, so every mask is computed (rows spread over four grammars, so that the
native core's per-grammar lock does not serialise all of them). Times are the median of the
repetitions.

    python benchmarks/batch_bench.py [--vocab smollm2|gemma3] [--rows 64] [--repeats 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("TYPEDGEN_NO_DISK_CACHE", "1")

import typedgen
from typedgen._bundled import gemma3_tokenizer, smollm2_tokenizer
from typedgen.compiler.vocabulary import Vocabulary

HERE = Path(__file__).resolve().parent
WORKLOADS = [("json.gbnf", "json_2_api.json"), ("arith.gbnf", "arith_1.txt"),
             ("sql.lark", "sql_3_tpch_q5.sql"), ("json.gbnf", "json_4_geo.json")]  # fmt: skip


def _grammar(name: str) -> typedgen.ir.Grammar:
    text = (HERE / "grammars" / name).read_text()
    if name.endswith(".gbnf"):
        return typedgen.ir.Grammar.from_gbnf(text)
    return typedgen.ir.Grammar.from_lark(text)


def _rows(vocab: Vocabulary, hf: object, n: int) -> list[typedgen.Matcher]:
    """``n`` matchers over four grammars, each advanced to a different point of a document."""
    compiler = typedgen.Compiler(disk_cache=False, cache_bytes=0)
    compiled = [compiler.compile(_grammar(g), vocab, cache=False) for g, _ in WORKLOADS]
    docs = [
        hf((HERE / "documents" / d).read_text().strip(), add_special_tokens=False)["input_ids"]  # type: ignore[operator]
        for _, d in WORKLOADS
    ]
    out = []
    for i in range(n):
        k = i % len(WORKLOADS)
        m = compiled[k].matcher()
        ids = docs[k]
        for t in ids[: (i * 7) % max(1, len(ids) - 1)]:
            assert m.accept_token(t)
        out.append(m)
    return out


def _one_by_one(matchers: list[typedgen.Matcher], words: np.ndarray) -> None:
    for r, m in enumerate(matchers):
        m.fill_next_token_bitmask(words, r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default="smollm2", choices=["smollm2", "gemma3"])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    hf = {"smollm2": smollm2_tokenizer, "gemma3": gemma3_tokenizer}[args.vocab]()
    vocab = Vocabulary.from_tokenizer(hf)
    width = (vocab.size + 31) // 32
    words = np.zeros((args.rows, width), dtype=np.int32)
    check = np.zeros_like(words)

    def timed(fn: object) -> float:
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        return time.perf_counter() - t0

    # Warm: the same states every time.
    rows = _rows(vocab, hf, args.rows)
    _one_by_one(rows, check)
    typedgen.fill_batch(rows, words, threads=args.threads)
    assert np.array_equal(words, check), "batch and one-by-one masks differ"
    warm_single = [timed(lambda: _one_by_one(rows, words)) for _ in range(args.repeats)]
    warm_batch = [
        timed(lambda: typedgen.fill_batch(rows, words, threads=args.threads))
        for _ in range(args.repeats)
    ]
    # Cold: fresh grammars each time, so every mask is computed.
    cold_single, cold_batch = [], []
    for rep in range(max(3, args.repeats // 5)):
        a = _rows(vocab, hf, args.rows)
        cold_single.append(timed(lambda a=a: _one_by_one(a, check)))
        b = _rows(vocab, hf, args.rows)
        cold_batch.append(timed(lambda b=b: typedgen.fill_batch(b, words, threads=args.threads)))
        assert np.array_equal(words, check), f"cold masks differ (repetition {rep})"
    print(
        f"# batch fill, {args.rows} rows, {args.vocab} ({vocab.size} tokens), cpus {os.cpu_count()}"
    )
    for name, single, batch in (
        ("warm", warm_single, warm_batch),
        ("cold", cold_single, cold_batch),
    ):
        s, b = statistics.median(single), statistics.median(batch)
        print(
            f"{name}: one by one {1e3 * s:8.3f} ms, fill_batch {1e3 * b:8.3f} ms,"
            f" speed-up {s / b:5.2f}x"
        )


if __name__ == "__main__":
    main()

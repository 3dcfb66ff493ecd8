"""Compile time and time to first mask: large enums, formats, patterns and the four schemas,
typedgen beside llguidance and xgrammar in one run.

For each workload and engine: **compile** = the engine's own JSON Schema or grammar front end
plus its compile for the vocabulary (typedgen: ``Grammar.from_json_schema`` with the spellings
generation uses, ``--spellings canonical``, + a fresh
``Compiler(disk_cache=False, cache_bytes=0)``; llguidance: ``LLMatcher``; xgrammar:
``compile_json_schema`` with its compiler cache off), **first mask** = filling the first
bitmask on a fresh matcher. Each is the median of ``--repeat`` runs, every run from scratch
(typedgen's per-process DFA memo is cleared too). ``--clock cpu`` (default) times with
``time.process_time`` (CPU seconds of this process, all its threads): on a machine shared with
other work it stays what an idle machine's wall clock would show for these single-threaded
compiles; ``--clock wall`` uses ``time.perf_counter``.

    python benchmarks/compile_bench.py [--vocab smollm2|gemma3] [--repeat 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
os.environ.setdefault("TYPEDGEN_NO_DISK_CACHE", "1")

from _peers import LLGuidanceAdapter, XGrammarAdapter  # noqa: E402

HERE = Path(__file__).resolve().parent


def _words(n: int, seed: int) -> list[str]:
    """Distinct, realistic-looking enum values (product codes and names)."""
    rng = np.random.default_rng(seed)
    syll = [
        "ka",
        "to",
        "ri",
        "mo",
        "sun",
        "lex",
        "dra",
        "vi",
        "on",
        "el",
        "qua",
        "zen",
        "pe",
        "tur",
    ]
    out: set[str] = set()
    while len(out) < n:
        k = int(rng.integers(2, 5))
        word = "".join(syll[int(i)] for i in rng.integers(0, len(syll), k))
        out.add(f"{word.capitalize()}-{int(rng.integers(0, 1000)):03d}")
    return sorted(out)


def workloads() -> dict[str, dict[str, Any]]:
    loads: dict[str, dict[str, Any]] = {
        "enum 5,000 strings": {"enum": _words(5000, 1)},
        "enum 500 strings": {"enum": _words(500, 2)},
        "email + uri + date-time": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "site": {"type": "string", "format": "uri"},
                "at": {"type": "string", "format": "date-time"},
            },
            "required": ["email", "site", "at"],
            "additionalProperties": False,
        },
        "pattern + maxLength 200": {
            "type": "string",
            "pattern": "^[A-Z][a-z]+( [A-Z][a-z]+)*$",
            "maxLength": 200,
        },
    }
    for path in sorted((HERE / "schemas").glob("*.json")):
        loads[path.stem] = json.loads(path.read_text())
    return loads


class Typedgen:
    name = "typedgen"

    def __init__(self, vocab: Any, spellings: str) -> None:
        import typedgen

        self.vocab = vocab
        self.typedgen = typedgen
        self.spellings = spellings

    def compile(self, schema: Any) -> Any:
        from typedgen.compiler import automata

        automata._DFA_CACHE.clear()  # every run from scratch
        compiler = self.typedgen.Compiler(disk_cache=False, cache_bytes=0)
        grammar = self.typedgen.ir.Grammar.from_json_schema(schema, spellings=self.spellings)
        return compiler.compile(grammar, self.vocab, cache=False)

    def first_mask(self, handle: Any, words: Any) -> None:
        handle.matcher().fill_next_token_bitmask(words, 0)


class Peer:
    def __init__(self, adapter: Any) -> None:
        self.a = adapter
        self.name = adapter.name

    def compile(self, schema: Any) -> Any:
        return self.a.compile("json_schema", json.dumps(schema))

    def first_mask(self, handle: Any, words: Any) -> None:
        self.a.fill(self.a.matcher(handle, 1), words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", choices=("smollm2", "gemma3"), default="smollm2")
    parser.add_argument("--engines", default="typedgen,llguidance,xgrammar")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--spellings",
        choices=("canonical", "all"),
        default="canonical",
        help="typedgen's number spellings: generation's default (canonical) or every spelling",
    )
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    from typedgen._bundled import gemma3_tokenizer, smollm2_tokenizer
    from typedgen.compiler.vocabulary import Vocabulary

    hf = {"smollm2": smollm2_tokenizer, "gemma3": gemma3_tokenizer}[args.vocab]()
    vocab = Vocabulary.from_tokenizer(hf)
    engines: list[Any] = []
    for name in args.engines.split(","):
        if name == "typedgen":
            engines.append(Typedgen(vocab, args.spellings))
        elif name == "llguidance":
            engines.append(Peer(LLGuidanceAdapter(hf)))
        elif name == "xgrammar":
            engines.append(Peer(XGrammarAdapter(hf, vocab.size)))
    words = np.zeros((1, (vocab.size + 31) // 32), dtype=np.int32)
    for e in engines:  # per-vocabulary preprocessing is not part of any workload
        e.first_mask(e.compile({"type": "string"}), words)

    results: dict[str, dict[str, Any]] = {}
    for label, schema in workloads().items():
        results[label] = {}
        for e in engines:
            compile_ms: list[float] = []
            first_ms: list[float] = []
            error = None
            for _ in range(args.repeat):
                try:
                    t0 = clock()
                    handle = e.compile(schema)
                    t1 = clock()
                    e.first_mask(handle, words)
                    t2 = clock()
                except Exception as exc:  # a refusal is a result, not a crash
                    error = f"{type(exc).__name__}: {str(exc)[:100]}"
                    break
                compile_ms.append((t1 - t0) * 1e3)
                first_ms.append((t2 - t1) * 1e3)
            if error is not None:
                results[label][e.name] = {"error": error}
                print(f"{label:28} {e.name:10} refused: {error}", file=sys.stderr)
                continue
            row = {
                "compile_ms": statistics.median(compile_ms),
                "first_mask_ms": statistics.median(first_ms),
                "runs": len(compile_ms),
            }
            results[label][e.name] = row
            print(
                f"{label:28} {e.name:10} compile {row['compile_ms']:9.1f} ms"
                f"  first mask {row['first_mask_ms']:8.2f} ms",
                file=sys.stderr,
            )

    names = [e.name for e in engines]
    print(f"\nCompile + first mask (median of {args.repeat}, {args.clock} ms), {args.vocab}\n")
    print("| workload | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for label, row in results.items():
        cells = []
        for n in names:
            r = row.get(n, {})
            if "error" in r:
                cells.append("refused")
            else:
                cells.append(f"{r['compile_ms']:.1f} + {r['first_mask_ms']:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(
            json.dumps({"vocab": args.vocab, "clock": args.clock, "results": results}, indent=1)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

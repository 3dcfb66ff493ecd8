"""MaskBench-style run: every schema of the jsonschemabench dev split, teacher-forced with its
valid instances, on typedgen and its peers in one run.

For each schema and engine: **time to first mask** = build the grammar from the schema, compile
it for the vocabulary (no caches: a fresh compile per schema, disk cache off) and fill the first
mask; then each valid instance (compact, keys in schema order, as typedgen's default layout
writes them; the same bytes for every engine) is tokenized and teacher-forced: every mask fill
is timed (**mask** time), the instance's next token must be allowed, and EOS must be allowed at
the end. Schemas an engine refuses, or instances it rejects, are counted, not timed.

    python benchmarks/maskbench.py [--vocab smollm2|gemma3] [--engines typedgen,llguidance,xgrammar]
        [--sample N] [--spellings canonical|all] [--clock cpu|wall] [--json out.json]

``--clock cpu`` (default) times masks with the calling thread's CPU clock and the time to first
mask with the process's CPU clock: every engine here computes a mask in the calling thread and
compiles single-threaded, so on an idle machine these equal wall time, and on a machine shared
with other work they stay what an idle one would show. ``--clock wall`` uses perf_counter.
typedgen builds grammars with ``--spellings`` (default ``canonical``, what ``typedgen.generate``
uses; ``all`` accepts every spelling of every number, the checking default of
``Grammar.from_json_schema``).
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

from tests._support import read_items  # noqa: E402
from tests.conformance.jsonschema_runner import serialise  # noqa: E402


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Typedgen:
    name = "typedgen"

    def __init__(self, vocab: Any, engine: str, spellings: str = "canonical") -> None:
        import typedgen

        self.vocab = vocab
        self.spellings = spellings
        self.compiler = typedgen.Compiler(engine=engine, disk_cache=False, cache_bytes=0)
        self.name = f"typedgen[{engine}]"

    def compile(self, schema: Any) -> Any:
        import typedgen

        grammar = typedgen.ir.Grammar.from_json_schema(schema, spellings=self.spellings)
        return self.compiler.compile(grammar, self.vocab, cache=False)

    def matcher(self, handle: Any) -> Any:
        return handle.matcher()

    def fill(self, m: Any, words: Any) -> None:
        m.fill_next_token_bitmask(words, 0)

    def accept(self, m: Any, t: int) -> bool:
        return bool(m.accept_token(t))


class Peer:
    def __init__(self, adapter: Any) -> None:
        self.a = adapter
        self.name = adapter.name

    def compile(self, schema: Any) -> Any:
        return self.a.compile("json_schema", json.dumps(schema))

    def matcher(self, handle: Any) -> Any:
        return self.a.matcher(handle, 1)

    def fill(self, m: Any, words: Any) -> None:
        self.a.fill(m, words)

    def accept(self, m: Any, t: int) -> bool:
        return bool(self.a.accept(m, t))


def _allowed(words: Any, t: int) -> bool:
    return bool((int(words[0, t >> 5]) >> (t & 31)) & 1)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from typedgen._bundled import gemma3_tokenizer, smollm2_tokenizer
    from typedgen.compiler.vocabulary import Vocabulary

    hf = {"smollm2": smollm2_tokenizer, "gemma3": gemma3_tokenizer}[args.vocab]()
    vocab = Vocabulary.from_tokenizer(hf)
    engines: list[Any] = []
    for name in args.engines.split(","):
        if name.startswith("typedgen"):
            engine = name.partition(":")[2] or "native"
            engines.append(Typedgen(vocab, engine, args.spellings))
        elif name == "llguidance":
            engines.append(Peer(LLGuidanceAdapter(hf)))
        elif name == "xgrammar":
            engines.append(Peer(XGrammarAdapter(hf, vocab.size)))
    items = read_items("jsonschemabench")[:: args.sample]
    cpu = args.clock == "cpu"
    tick = time.process_time if cpu else time.perf_counter
    tick_ns = time.thread_time_ns if cpu else time.perf_counter_ns
    width = (vocab.size + 31) // 32
    words = np.zeros((1, width), dtype=np.int32)
    out: dict[str, Any] = {"vocab": args.vocab, "schemas": len(items), "engines": {}}
    # Warm-up: per-vocabulary preprocessing is not part of any schema's time.
    for e in engines:
        try:
            h = e.compile({"type": "string"})
            e.fill(e.matcher(h), words)
        except Exception as exc:  # pragma: no cover - a peer that cannot start
            print(f"{e.name}: warm-up failed: {exc}", file=sys.stderr)
    for e in engines:
        stats: dict[str, Any] = {
            "compiled": 0,
            "refused": 0,
            "instances": 0,
            "rejected": 0,
            "violations": 0,
            "ttfm_ms": [],
            "mask_us": [],
            "slowest": [],
        }
        t_start = time.perf_counter()
        for item in items:
            schema = item["schema"]
            t0 = tick()
            try:
                handle = e.compile(schema)
                m = e.matcher(handle)
                e.fill(m, words)
            except Exception as exc:
                stats["refused"] += 1
                stats.setdefault("refusals", []).append(f"{item['name']}: {str(exc)[:80]}")
                continue
            ttfm = (tick() - t0) * 1e3
            stats["compiled"] += 1
            stats["ttfm_ms"].append(ttfm)
            stats["slowest"].append((ttfm, item["name"]))
            reuse = True  # the first instance starts from the mask timed as the first mask
            for test in item.get("tests", []):
                if not test.get("valid"):
                    continue
                data = serialise(test["data"], schema, "compact")
                if data is None:
                    continue
                ids = hf(data.decode("utf-8"), add_special_tokens=False)["input_ids"]
                stats["instances"] += 1
                if not reuse:
                    m = e.matcher(handle)
                need_fill, reuse = not reuse, False
                ok = True
                for t in ids:
                    if need_fill:
                        a = tick_ns()
                        e.fill(m, words)
                        stats["mask_us"].append((tick_ns() - a) / 1e3)
                    need_fill = True
                    if not _allowed(words, t):
                        stats["violations"] += 1
                        ok = False
                        break
                    if not e.accept(m, t):
                        ok = False
                        break
                if ok:
                    a = tick_ns()
                    e.fill(m, words)
                    stats["mask_us"].append((tick_ns() - a) / 1e3)
                    eos = [t for t in vocab.eos_ids if t < vocab.size]
                    if not any(_allowed(words, t) for t in eos):
                        ok = False
                if not ok:
                    stats["rejected"] += 1
        stats["seconds"] = time.perf_counter() - t_start
        stats["slowest"] = sorted(stats["slowest"], reverse=True)[:8]
        out["engines"][e.name] = stats
        print(_line(e.name, stats), file=sys.stderr)
    return out


def _line(name: str, s: dict[str, Any]) -> str:
    mask, ttfm = s["mask_us"], s["ttfm_ms"]
    return (
        f"{name:20} compiled {s['compiled']:5} refused {s['refused']:4} instances"
        f" {s['instances']:5} rejected {s['rejected']:4} | mask us mean"
        f" {statistics.fmean(mask) if mask else float('nan'):8.1f} p50 {_pct(mask, 0.5):7.1f}"
        f" p99 {_pct(mask, 0.99):8.1f} | first mask ms p50 {_pct(ttfm, 0.5):7.2f} p99"
        f" {_pct(ttfm, 0.99):8.1f} max {max(ttfm) if ttfm else float('nan'):8.1f}"
        f" | {s['seconds']:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default="smollm2", choices=["smollm2", "gemma3"])
    parser.add_argument("--engines", default="typedgen,llguidance,xgrammar")
    parser.add_argument("--sample", type=int, default=1, help="take every Nth schema")
    parser.add_argument("--spellings", default="canonical", choices=["canonical", "all"])
    parser.add_argument("--clock", default="cpu", choices=["cpu", "wall"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = run(args)
    print(
        f"# maskbench: {out['schemas']} jsonschemabench dev schemas, {args.vocab},"
        f" {args.clock} clock, typedgen spellings={args.spellings}"
    )
    for name, s in out["engines"].items():
        print(_line(name, s))
        print(f"    slowest first masks: {[(round(t, 1), n) for t, n in s['slowest'][:5]]}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()

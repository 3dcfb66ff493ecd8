"""Token-mask speed of typedgen against llguidance, xgrammar and lm-format-enforcer.

Run: python benchmarks/mask_bench.py [--vocab smollm2|gemma3|both] [--engines typedgen,llguidance,
xgrammar,lmfe] [--workloads json,arith,sql] [--passes 2] [--json out.json]

Each document in benchmarks/documents/ is tokenized with the model's Hugging Face tokenizer
(``add_special_tokens=False``) and teacher-forced through every engine: at each position the
mask is computed (timed), the document's next token is checked against it (a violation if it
is not allowed), then the token is accepted (timed separately); after the last token the mask
must allow EOS. Every (engine, grammar, document) gets a freshly compiled grammar and two passes
over the document: typedgen's pass 1 is "cold" (its lazily built tables start empty), pass 2
"warm"; for peers pass 2 is reported as well (pass 1 is in the JSON). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# Run from a checkout: benchmarks/ for _peers, the repository root for typedgen itself.
sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from _peers import Adapter, LLGuidanceAdapter, LMFEAdapter, XGrammarAdapter  # noqa: E402

Json = dict[str, Any]
HERE = Path(__file__).resolve().parent
GRAMMARS = HERE / "grammars"
SCHEMAS = HERE / "schemas"
DOCUMENTS = HERE / "documents"
ENGINES = ("typedgen", "llguidance", "xgrammar", "lmfe")


@dataclass(frozen=True)
class Row:
    """One engine on one grammar of a workload."""

    engine: str
    fmt: str  # "gbnf", "lark", "builtin-json", "json-schema"
    grammar: str | None  # file under grammars/ (None for builtins)
    lexer: str = "contextual"  # typedgen's Lark lexer mode
    shared: bool = False  # one compiled grammar for all documents, one pass each (--shared)
    per_doc_schema: bool = False  # the grammar is benchmarks/schemas/<document name>

    def __post_init__(self) -> None:
        if self.fmt == "json_schema":
            object.__setattr__(self, "per_doc_schema", True)

    @property
    def label(self) -> str:
        what = (
            self.grammar
            or ("per-document schema" if self.per_doc_schema else None)
            or {"builtin-json": "builtin JSON", "json-schema": "schema {}"}[self.fmt]
        )
        if self.engine == "typedgen" and self.fmt == "lark" and self.lexer != "contextual":
            what += f"/{self.lexer}"
        return f"{self.engine}[{what}]" + ("+shared" if self.shared else "")


WORKLOADS: dict[str, tuple[str, list[Row]]] = {
    "json": (
        "json_*.json",
        [
            Row("typedgen", "gbnf", "json.gbnf"),
            Row("llguidance", "gbnf", "json.gbnf"),
            Row("xgrammar", "gbnf", "json.gbnf"),
            Row("llguidance", "builtin-json", None),
            Row("xgrammar", "builtin-json", None),
            Row("lmfe", "json-schema", None),
        ],
    ),
    "schema": (
        "schema_*.json",
        [
            Row("typedgen", "json_schema", None),
            Row("llguidance", "json_schema", None),
            Row("xgrammar", "json_schema", None),
            Row("lmfe", "json-schema", None, per_doc_schema=True),
        ],
    ),
    "arith": (
        "arith_*.txt",
        [
            Row("typedgen", "gbnf", "arith.gbnf"),
            Row("llguidance", "gbnf", "arith.gbnf"),
            Row("xgrammar", "gbnf", "arith.gbnf"),
        ],
    ),
    "sql": (
        "sql_*.sql",
        [
            Row("typedgen", "lark", "sql.lark"),
            Row("llguidance", "lark", "sql.lark"),
            Row("xgrammar", "gbnf", "sql.gbnf"),
            Row("typedgen", "gbnf", "sql.gbnf"),
            Row("llguidance", "gbnf", "sql.gbnf"),
            # Extra: lark's basic lexer (longest match among all terminals, context ignored).
            Row("typedgen", "lark", "sql.lark", lexer="basic"),
        ],
    ),
}


# -- typedgen -------------------------------------------------------------------------------------
class TypedgenAdapter(Adapter):
    """typedgen: ``Grammar.from_<fmt>`` + ``typedgen.compile(..., cache=False)`` per document
    (the per-vocabulary trie comes from the in-memory trie cache, timed separately); a fresh
    ``cg.matcher()`` per pass, so pass 2 reuses the states memoised by pass 1."""

    name = "typedgen"

    def __init__(self, vocab: Any) -> None:
        import typedgen
        from typedgen.ir import Grammar

        self._typedgen = typedgen
        self._grammar = Grammar
        self.vocab = vocab
        self.last_stats: dict[str, Any] = {}

    def compile(self, fmt: str, text: str | None, **options: Any) -> Any:
        if fmt == "gbnf":
            grammar = self._grammar.from_gbnf(text or "")
        elif fmt == "lark":
            grammar = self._grammar.from_lark(text or "", lexer=options.get("lexer", "contextual"))
        elif fmt == "json_schema":
            grammar = self._grammar.from_json_schema(json.loads(text or "{}"))
        else:
            raise ValueError(f"typedgen: unsupported format {fmt}")
        cg = self._typedgen.compile(grammar, self.vocab, cache=False)
        return cg

    def matcher(self, handle: Any, pass_no: int) -> Any:
        return handle.matcher()

    def fill(self, m: Any, bitmask: Any) -> None:
        m.fill_next_token_bitmask(bitmask, 0)

    def accept(self, m: Any, token: int) -> bool:
        return bool(m.accept_token(token))

    def is_complete(self, m: Any) -> bool:
        return bool(m.is_complete())

    def settings(self) -> dict[str, Any]:
        return {"version": self._typedgen.__version__, "cache": False}


# -- vocabularies ---------------------------------------------------------------------------------
def _tokenizer_loader(name: str) -> Callable[[], Any]:
    from typedgen._bundled import gemma3_tokenizer, smollm2_tokenizer

    return {"smollm2": smollm2_tokenizer, "gemma3": gemma3_tokenizer}[name]


# The clocks of the measurements (``--clock``): ``cpu`` times a mask or an accept with the calling
# thread's CPU clock and a compile with the process's (every engine here works in the calling
# thread; compiles are single-threaded), which equals wall time on an idle machine and stays so
# on one shared with other work; ``wall`` uses perf_counter. Row budgets are always wall time.
CLOCKS: dict[str, tuple[Callable[[], int], Callable[[], int]]] = {
    "cpu": (time.thread_time_ns, time.process_time_ns),
    "wall": (time.perf_counter_ns, time.perf_counter_ns),
}
_CLOCK = ["cpu"]


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    clock = CLOCKS[_CLOCK[0]][1]
    t0 = clock()
    out = fn()
    return (clock() - t0) / 1e6, out


def preprocess(vocab_name: str, engines: set[str], need_lmfe: bool) -> tuple[dict[str, Any], Json]:
    """Load the tokenizer and build every engine's per-vocabulary data, timing each step."""
    import typedgen
    import typedgen.compiler.trie as trie_mod
    from typedgen._bundled import cache_dir

    pre: dict[str, Any] = {}
    ms, hf = _timed(_tokenizer_loader(vocab_name))
    pre["hf_tokenizer_load_ms"] = ms
    vocab_size = len(hf)
    pre["vocab_size"] = vocab_size
    adapters: dict[str, Adapter] = {}
    ctx: dict[str, Any] = {"hf": hf, "vocab_size": vocab_size}

    # typedgen always builds its Vocabulary (used for byte round-trip checks and EOS ids).
    ms, vocab = _timed(lambda: typedgen.Vocabulary.from_tokenizer(hf))
    pre["typedgen_vocabulary_ms"] = ms
    ctx["vocab"] = vocab
    if "typedgen" in engines:
        old = os.environ.get("TYPEDGEN_CACHE_DIR")
        with tempfile.TemporaryDirectory(prefix="typedgen-bench-") as tmp:
            os.environ["TYPEDGEN_CACHE_DIR"] = tmp
            trie_mod._MEMORY.clear()
            ms, trie = _timed(lambda: trie_mod.load_or_build_trie(vocab, cache_dir()))
            pre["typedgen_trie_build_ms"] = ms
            pre["typedgen_trie_nodes"] = trie.n_nodes
            trie_mod._MEMORY.clear()
            ms, _ = _timed(lambda: trie_mod.load_or_build_trie(vocab, cache_dir()))
            pre["typedgen_trie_from_disk_cache_ms"] = ms
        if old is None:
            os.environ.pop("TYPEDGEN_CACHE_DIR", None)
        else:
            os.environ["TYPEDGEN_CACHE_DIR"] = old
        # The in-memory trie stays cached: compile_s below excludes the trie.
        adapters["typedgen"] = TypedgenAdapter(vocab)
    peers: list[tuple[str, str, Callable[[], Adapter]]] = [
        ("llguidance", "llguidance_tokenizer_ms", lambda: LLGuidanceAdapter(hf)),
        ("xgrammar", "xgrammar_tokenizer_info_ms", lambda: XGrammarAdapter(hf, vocab_size)),
        ("lmfe", "lmfe_tokenizer_data_ms", lambda: LMFEAdapter(hf, vocab_size)),
    ]
    for name, key, build in peers:
        if name not in engines or (name == "lmfe" and not need_lmfe):
            continue
        try:
            ms, adapters[name] = _timed(build)
        except Exception as exc:
            print(f"{name} disabled: {type(exc).__name__}: {exc}", file=sys.stderr)
            pre[f"{name}_error"] = f"{type(exc).__name__}: {exc}"
            continue
        pre[key] = ms
    ctx["adapters"] = adapters
    return ctx, pre


# -- teacher forcing ------------------------------------------------------------------------------
def _bit(words: np.ndarray, token: int) -> bool:
    return bool((int(words[token >> 5]) >> (token & 31)) & 1)


def run_pass(
    adapter: Adapter,
    handle: Any,
    tokens: list[int],
    pass_no: int,
    width: int,
    eos_ids: list[int],
    strip_words: np.ndarray,
    deadline_ns: int,
) -> dict[str, Any]:
    """One teacher-forced pass; returns raw per-position timings and mask fingerprints.

    Stops early (``truncated_at``) once ``deadline_ns`` (perf_counter_ns) has passed."""
    bitmask = np.zeros((1, width), dtype=np.int32)
    row = bitmask[0]
    keep = ~strip_words  # EOS/special bits removed before fingerprinting masks
    to_bits = getattr(adapter, "to_bitmask", None)
    clock = CLOCKS[_CLOCK[0]][0]
    m = adapter.matcher(handle, pass_no)
    mask_ns: list[int] = []
    accept_ns: list[int] = []
    popcount: list[int] = []
    crc: list[int] = []
    violations: list[int] = []
    rejected_at: int | None = None
    truncated_at: int | None = None

    def fill_mask() -> None:
        """The timed mask computation (only ``adapter.fill`` is inside the clock)."""
        bitmask.fill(0)
        t0 = clock()
        adapter.fill(m, bitmask)
        mask_ns.append(clock() - t0)
        if to_bits is not None:
            to_bits(m, bitmask)

    for i, tok in enumerate(tokens):
        if time.perf_counter_ns() > deadline_ns:
            truncated_at = i
            break
        fill_mask()
        plain = row & keep
        popcount.append(int(np.bitwise_count(plain.view(np.uint32)).sum()))
        crc.append(zlib.crc32(plain.tobytes()))
        if not _bit(row, tok):
            violations.append(i)
        t0 = clock()
        ok = adapter.accept(m, tok)
        t1 = clock()
        accept_ns.append(t1 - t0)
        if not ok:
            rejected_at = i
            break
    eos_allowed = False
    complete = False
    if rejected_at is None and truncated_at is None:
        fill_mask()
        eos_allowed = any(_bit(row, e) for e in eos_ids)
        complete = adapter.is_complete(m)
    error = getattr(adapter, "error", lambda _m: None)(m)
    return {
        "pass": pass_no,
        "mask_ns": mask_ns,
        "accept_ns": accept_ns,
        "popcount": popcount,
        "mask_crc": crc,
        "violations": violations,
        "rejected_at": rejected_at,
        "truncated_at": truncated_at,
        "eos_allowed": eos_allowed,
        "is_complete": complete,
        "error": error,
    }


def tokenize(hf: Any, vocab: Any, text: str) -> list[int]:
    ids = list(hf.encode(text, add_special_tokens=False))
    rebuilt = b"".join(vocab.tokens[i] for i in ids)
    if rebuilt != text.encode():
        raise SystemExit(f"tokenization does not round-trip: {text[:40]!r}...")
    return ids


def summarize(samples_ns: list[int]) -> dict[str, float]:
    if not samples_ns:
        return {"n": 0}
    a = np.asarray(samples_ns, dtype=np.float64) / 1e3  # microseconds
    return {
        "n": int(a.size),
        "mean_us": float(a.mean()),
        "p50_us": float(np.percentile(a, 50)),
        "p99_us": float(np.percentile(a, 99)),
        "max_us": float(a.max()),
        "total_ms": float(a.sum() / 1e3),
    }


def run_row(
    row: Row,
    adapter: Adapter,
    docs: list[tuple[str, list[int]]],
    ctx: Json,
    passes: int,
    budget_s: float,
) -> dict[str, Any]:
    """Every document: a fresh compile, then ``passes`` teacher-forced passes.

    Each pass number has a wall-time budget of ``budget_s`` over the row's documents (compiles
    count towards pass 1's): once it is used up the running pass stops and that pass is skipped
    for the remaining documents (recorded, and reported as problems)."""
    budget_ns = int(budget_s * 1e9)
    used_ns = [0] * passes
    text = None
    if row.grammar is not None:
        text = (GRAMMARS / row.grammar).read_text()
    elif row.fmt == "json-schema":
        text = "{}"
    width = (ctx["vocab_size"] + 31) // 32
    eos_ids = sorted(ctx["eos_ids"])
    out: dict[str, Any] = {
        "label": row.label,
        "engine": row.engine,
        "fmt": row.fmt,
        "grammar": row.grammar,
        "shared": row.shared,
        "docs": [],
    }
    extra = {"lexer": row.lexer} if row.engine == "typedgen" and row.fmt == "lark" else {}
    compile_error = None
    shared_handle = None
    if row.shared:  # one compile, then each document once, in order, on the same grammar
        passes = 1
    for name, tokens in docs:
        gc.collect()
        doc: dict[str, Any] = {"doc": name, "n_tokens": len(tokens)}
        if used_ns[0] >= budget_ns:
            doc["skipped"] = f"row time budget ({budget_s:g} s per pass) used up"
            out["docs"].append(doc)
            continue
        if row.per_doc_schema:
            text = (SCHEMAS / name).read_text()
            compile_error = None
        if compile_error is not None:  # same grammar, same error: don't pay for it again
            doc["compile_error"] = "(not retried) " + compile_error
            out["docs"].append(doc)
            continue
        t_compile = time.perf_counter_ns()
        try:
            if shared_handle is not None:
                ms, handle = 0.0, shared_handle
            else:
                ms, handle = _timed(lambda t=text: adapter.compile(row.fmt, t, **extra))
                if row.shared:
                    shared_handle = handle
        except Exception as exc:  # an engine refusing a grammar is a result
            compile_error = f"{type(exc).__name__}: {exc}"[:500]
            doc["compile_error"] = compile_error
            doc["compile_error_after_ms"] = (time.perf_counter_ns() - t_compile) / 1e6
            out["docs"].append(doc)
            continue
        if handle is not shared_handle or len(out["docs"]) == 0:
            doc["compile_ms"] = ms
        used_ns[0] += time.perf_counter_ns() - t_compile
        if row.engine == "typedgen":
            doc["typedgen_stats"] = {
                k: v for k, v in handle.stats().items() if isinstance(v, (int, float))
            }
        doc["passes"] = []
        for p in range(passes):
            start = time.perf_counter_ns()
            # A pass after a budget-stopped one would not be warm past the stopping point.
            stopped = bool(doc["passes"]) and doc["passes"][-1]["truncated_at"] is not None
            if used_ns[p] >= budget_ns or stopped:
                doc["skipped_passes"] = list(range(p, passes))
                break
            deadline = start + budget_ns - used_ns[p]
            try:
                result = run_pass(
                    adapter, handle, tokens, p, width, eos_ids, ctx["strip_words"], deadline
                )
            except Exception as exc:  # a peer failing mid-document is a result, not a crash
                doc["skipped"] = f"pass {p + 1} raised {type(exc).__name__}: {exc}"[:300]
                break
            doc["passes"].append(result)
            used_ns[p] += time.perf_counter_ns() - start
        out["docs"].append(doc)
        del handle
    return out


def _pooled(row_result: Json, pass_no: int, key: str) -> list[int]:
    """Every sample of one pass (a rejected or truncated document counts up to where it stopped)."""
    pooled: list[int] = []
    for d in row_result["docs"]:
        for p in d.get("passes", []):
            if p["pass"] == pass_no:
                pooled.extend(p[key])
    return pooled


def row_summaries(row_result: Json, passes: int) -> list[dict[str, Any]]:
    """Table lines for a row: typedgen gets pass 1 (cold) and pass 2 (warm); peers the last pass."""
    compile_ms = [d["compile_ms"] for d in row_result["docs"] if "compile_ms" in d]
    errors = [
        f"{d['doc']}: {d['compile_error']}" for d in row_result["docs"] if "compile_error" in d
    ]
    if row_result.get("shared"):
        which = [(0, "shared")]
    elif row_result["engine"] == "typedgen":
        which = [(0, "cold")] + ([(passes - 1, "warm")] if passes > 1 else [])
    else:
        # The last pass that ran (a budget-stopped pass 1 leaves no pass 2).
        ran = [p for p in range(passes) if _pooled(row_result, p, "mask_ns")] or [passes - 1]
        which = [(ran[-1], f"pass {ran[-1] + 1}")]
    lines = []
    for pass_no, tag in which:
        problems: list[str] = []
        n_docs = 0
        for d in row_result["docs"]:
            if "skipped" in d:
                problems.append(f"{d['doc']}: skipped, {d['skipped']}")
            if pass_no in d.get("skipped_passes", []):
                problems.append(f"{d['doc']}: pass {pass_no + 1} skipped (row time budget)")
            for p in d.get("passes", []):
                if p["pass"] != pass_no:
                    continue
                if p["truncated_at"] is not None:
                    problems.append(
                        f"{d['doc']}: stopped at token {p['truncated_at']}/"
                        f"{d['n_tokens']} (row time budget)"
                    )
                elif p["rejected_at"] is None and not p["violations"] and p["eos_allowed"]:
                    n_docs += 1
                if p["violations"]:
                    problems.append(
                        f"{d['doc']}: {len(p['violations'])} violations at {p['violations'][:5]}"
                    )
                if p["rejected_at"] is not None:
                    problems.append(f"{d['doc']}: token {p['rejected_at']} rejected ({p['error']})")
                elif p["truncated_at"] is None and not p["eos_allowed"]:
                    problems.append(
                        f"{d['doc']}: EOS not allowed at end (is_complete={p['is_complete']})"
                    )
        lines.append(
            {
                "label": row_result["label"],
                "engine": row_result["engine"],
                "grammar": row_result["grammar"] or row_result["fmt"],
                "pass": tag,
                "compile_ms_median": statistics.median(compile_ms) if compile_ms else None,
                "compile_ms_first": compile_ms[0] if compile_ms else None,
                "n_tokens": len(_pooled(row_result, pass_no, "accept_ns")),
                "docs": f"{n_docs}/{len(row_result['docs'])}",
                "mask": summarize(_pooled(row_result, pass_no, "mask_ns")),
                "accept": summarize(_pooled(row_result, pass_no, "accept_ns")),
                "problems": problems + errors,
            }
        )
    return lines


def mask_agreement(a: Json, b: Json) -> dict[str, Any]:
    """Positions where two rows' masks (EOS/special bits removed) differ, last pass of each."""
    diffs: list[tuple[str, int, int, int]] = []
    compared = 0
    da = {d["doc"]: d for d in a["docs"] if d.get("passes")}
    for d in b["docs"]:
        if not d.get("passes") or d["doc"] not in da:
            continue
        pa, pb = da[d["doc"]]["passes"][-1], d["passes"][-1]
        for i, (ca, cb) in enumerate(zip(pa["mask_crc"], pb["mask_crc"], strict=False)):
            compared += 1
            if ca != cb:
                diffs.append((d["doc"], i, pa["popcount"][i], pb["popcount"][i]))
    return {"compared": compared, "differ": len(diffs), "examples": diffs[:8]}


# -- printing -------------------------------------------------------------------------------------
def _f(x: float | None, nd: int = 1) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def print_vocab_report(
    vocab_name: str, pre: Json, lines: list[Json], ratios: list[Json], agreements: list[Json]
) -> None:
    print(f"\n=== {vocab_name} (V = {pre['vocab_size']}) ===")
    print(
        "per-vocabulary preprocessing (ms): "
        + ", ".join(f"{k.removesuffix('_ms')} {v:.0f}" for k, v in pre.items() if k.endswith("_ms"))
    )
    hdr = (
        f"{'workload':8} {'engine[grammar]':28} {'pass':6} {'compile ms':>10} {'tokens':>6} "
        f"{'mask mean':>9} {'p50':>7} {'p99':>8} {'max':>8} {'accept':>7} {'docs':>5} ok"
    )
    print(hdr + "\n" + "-" * len(hdr) + "   (mask/accept times in microseconds per token)")
    for ln in lines:
        m, a = ln["mask"], ln["accept"]
        ok = "yes" if not ln["problems"] else "NO"
        acc = _f(a.get("mean_us")) if ln["engine"] != "lmfe" else "n/a"
        print(
            f"{ln['workload']:8} {ln['label']:28} {ln['pass']:6} {_f(ln['compile_ms_median']):>10} "
            f"{ln['n_tokens']:>6} {_f(m.get('mean_us')):>9} {_f(m.get('p50_us')):>7} "
            f"{_f(m.get('p99_us')):>8} {_f(m.get('max_us')):>8} {acc:>7} {ln['docs']:>5} {ok}"
        )
        for p in ln["problems"]:
            print(f"{'':18}! {p}")
    if ratios:
        print(
            "\nratios typedgen / peer (>1: typedgen slower): mean mask time, mean mask+accept "
            "time, median compile time"
        )
        print(
            f"{'workload':8} {'typedgen row':30} {'peer row':28} {'mask cold':>9} {'mask warm':>9} "
            f"{'m+a cold':>9} {'m+a warm':>9} {'compile':>8}"
        )
        for r in ratios:
            print(
                f"{r['workload']:8} {r['typedgen']:30} {r['peer']:28} {_f(r['mask_cold'], 2):>9} "
                f"{_f(r['mask_warm'], 2):>9} {_f(r['total_cold'], 2):>9} "
                f"{_f(r['total_warm'], 2):>9} {_f(r['compile'], 2):>8}"
            )
    if agreements:
        print("\nmask agreement on the same grammar file (EOS bits removed): positions differing")
        for ag in agreements:
            print(
                f"  {ag['workload']:8} {ag['a']:30} vs {ag['b']:30} "
                f"{ag['differ']}/{ag['compared']}"
                + (
                    f"  e.g. (doc, pos, popcount a, popcount b) {ag['examples'][:3]}"
                    if ag["differ"]
                    else ""
                )
            )


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vocab", choices=("smollm2", "gemma3", "both"), default="both")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--docs", default="", help="only documents whose name contains this")
    parser.add_argument(
        "--rows",
        default="",
        help="only rows with these labels (e.g. 'typedgen[sql.lark]'), comma-separated",
    )
    parser.add_argument("--passes", type=int, default=2, help="passes per document (1 = cold only)")
    parser.add_argument("--json", type=Path, help="write all raw numbers here")
    parser.add_argument(
        "--shared",
        action="store_true",
        help="add a typedgen '+shared' row per grammar: compiled once, documents run in order",
    )
    parser.add_argument(
        "--row-budget-s",
        type=float,
        default=40.0,
        help="wall-time cap per pass number per (engine, grammar) row (reported when hit)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="cpu",
        help="cpu: thread CPU time per mask, process CPU time per compile; wall: perf_counter",
    )
    args = parser.parse_args()
    _CLOCK[0] = args.clock
    engines = {e.strip() for e in args.engines.split(",") if e.strip()}
    unknown = engines - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines {sorted(unknown)}")
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    only_rows = {r.strip() for r in args.rows.split(",") if r.strip()}
    vocabs = ["smollm2", "gemma3"] if args.vocab == "both" else [args.vocab]

    report: dict[str, Any] = {
        "meta": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "passes": args.passes,
            "clock": args.clock,
            "engines": sorted(engines),
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "loadavg_start": os.getloadavg(),
        },
        "vocabs": {},
    }
    t_start = time.perf_counter()
    for vocab_name in vocabs:
        need_lmfe = "json" in workloads
        ctx, pre = preprocess(vocab_name, engines, need_lmfe)
        hf, vocab = ctx["hf"], ctx["vocab"]
        eos = set(vocab.eos_ids)
        if hf.eos_token_id is not None:
            eos.add(int(hf.eos_token_id))
        ctx["eos_ids"] = eos
        width = (ctx["vocab_size"] + 31) // 32
        strip = np.zeros(width * 32, dtype=bool)
        strip[sorted(set(vocab.special_ids) | eos)] = True
        ctx["strip_words"] = np.packbits(strip, bitorder="little").view(np.int32)
        settings = {name: a.settings() for name, a in ctx["adapters"].items()}
        vocab_out: dict[str, Any] = {"preprocessing": pre, "settings": settings, "workloads": {}}
        lines: list[Json] = []
        ratios: list[Json] = []
        agreements: list[Json] = []
        for wl in workloads:
            pattern, rows = WORKLOADS[wl]
            if args.shared:
                rows = [
                    r2
                    for r in rows
                    for r2 in (
                        [r, dataclasses.replace(r, shared=True)] if r.engine == "typedgen" else [r]
                    )
                ]
            docs = []
            for path in sorted(DOCUMENTS.glob(pattern)):
                if args.docs and args.docs not in path.name:
                    continue
                docs.append((path.name, tokenize(hf, vocab, path.read_text().rstrip("\n"))))
            wl_out: dict[str, Any] = {"documents": {n: len(t) for n, t in docs}, "rows": []}
            by_label: dict[str, Json] = {}
            summaries: dict[str, list[Json]] = {}
            for row in rows:
                adapter = ctx["adapters"].get(row.engine)
                if adapter is None or (only_rows and row.label not in only_rows):
                    continue
                t0 = time.perf_counter()
                res = run_row(row, adapter, docs, ctx, args.passes, args.row_budget_s)
                res["wall_s"] = time.perf_counter() - t0
                print(f"[{vocab_name}/{wl}] {row.label}: {res['wall_s']:.1f} s", file=sys.stderr)
                summ = row_summaries(res, args.passes)
                for s in summ:
                    s["workload"] = wl
                res["summary"] = summ
                wl_out["rows"].append(res)
                by_label[row.label] = res
                summaries[row.label] = summ
                lines.extend(summ)
            # Ratios: every typedgen row against every peer row of the workload.
            for tl, tsum in summaries.items():
                if not tl.startswith("typedgen["):
                    continue
                cold = tsum[0]  # the "shared" line for +shared rows
                warm = tsum[-1] if tsum[-1]["pass"] == "warm" else None
                for pl, psum in summaries.items():
                    if pl.startswith("typedgen["):
                        continue
                    peer = psum[-1]

                    def tot(s: Json) -> float | None:
                        if "mean_us" not in s["mask"]:
                            return None
                        return float(s["mask"]["mean_us"] + s["accept"].get("mean_us", 0.0))

                    ratios.append(
                        {
                            "workload": wl,
                            "typedgen": tl,
                            "peer": pl,
                            "mask_cold": _ratio(
                                cold["mask"].get("mean_us"), peer["mask"].get("mean_us")
                            ),
                            "mask_warm": _ratio(
                                warm["mask"].get("mean_us") if warm else None,
                                peer["mask"].get("mean_us"),
                            ),
                            "total_cold": _ratio(tot(cold), tot(peer)),
                            "total_warm": _ratio(tot(warm) if warm else None, tot(peer)),
                            "compile": _ratio(cold["compile_ms_median"], peer["compile_ms_median"]),
                        }
                    )
            # Mask agreement between rows compiled from the same grammar file.
            labels = list(by_label)
            for i, la in enumerate(labels):
                for lb in labels[i + 1 :]:
                    ra, rb = by_label[la], by_label[lb]
                    if ra["grammar"] is not None and ra["grammar"] == rb["grammar"]:
                        ag = mask_agreement(ra, rb)
                        ag.update(workload=wl, a=la, b=lb)
                        agreements.append(ag)
            wl_out["agreement"] = [a for a in agreements if a["workload"] == wl]
            vocab_out["workloads"][wl] = wl_out
        vocab_out["ratios"] = ratios
        report["vocabs"][vocab_name] = vocab_out
        print_vocab_report(vocab_name, pre, lines, ratios, agreements)
        del ctx
        gc.collect()
    report["meta"]["wall_s"] = time.perf_counter() - t_start
    report["meta"]["loadavg_end"] = os.getloadavg()
    print(
        f"load average at start {report['meta']['loadavg_start'][0]:.2f}, at end "
        f"{report['meta']['loadavg_end'][0]:.2f} (1 min; this machine has {os.cpu_count()} cores)"
    )
    print(f"\ntotal wall time {report['meta']['wall_s']:.0f} s", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(report))
        print(f"raw numbers written to {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()

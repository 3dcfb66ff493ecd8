"""SQL grammar compile times per dialect and per-token mask times on Spider gold queries.

Run: python benchmarks/sql_masks.py [--dialects sqlite,postgres,...] [--queries 100]
     [--json benchmarks/results/sql_masks.json]

* Compile, per dialect, with and without a 20-table schema: reading sqlglot's tables (probes;
  cold, i.e. with the on-disk table cache bypassed), building the IR, and compiling it for the
  SmolLM2 vocabulary (no disk cache).
* Masks: the first ``--queries`` Spider dev gold queries, schema-aware SQLite, tokenised with the
  SmolLM2 tokenizer; per step the time to fill the bitmask and accept the token. typedgen runs two
  passes (pass 1 visits parser states for the first time, pass 2 finds them memoised); llguidance
  runs the same tokens on the same grammar exported from the IR with
  ``Grammar.to_lark(dialect="llguidance")`` (one ``LLMatcher`` per schema, a ``deep_copy`` per
  query), in the same process. Tokens the exported grammar refuses are counted, not hidden.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

EVALDATA = Path(
    os.environ.get("TYPEDGEN_EVALDATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "evaldata"
).resolve()
DEFAULT_DIALECTS = "sqlite,postgres,mysql,bigquery,snowflake,duckdb,tsql,oracle"


def _spider_schemas() -> tuple[dict[str, dict[str, dict[str, str]]], list[dict[str, Any]]]:
    tables = json.loads((EVALDATA / "spider_dev" / "tables.json").read_text(encoding="utf-8"))
    schemas = {}
    for t in tables:
        cols: dict[str, dict[str, str]] = {n: {} for n in t["table_names_original"]}
        for (i, name), kind in zip(t["column_names_original"], t["column_types"], strict=True):
            if i >= 0:
                cols[t["table_names_original"][i]][name] = kind
        schemas[t["db_id"]] = {k: v for k, v in cols.items() if v}
    items = [
        json.loads(line)
        for line in (EVALDATA / "spider_dev" / "items.jsonl").read_text().splitlines()
        if line.strip()
    ]
    return schemas, items


def _twenty_tables(schemas: dict[str, dict[str, dict[str, str]]]) -> dict[str, dict[str, str]]:
    """20 tables gathered across Spider dev databases (prefixed to keep names distinct)."""
    out: dict[str, dict[str, str]] = {}
    for db, tables in sorted(schemas.items()):
        for name, cols in tables.items():
            if len(out) < 20:
                out[f"{db}_{name}"] = cols
    return out


def compile_times(
    dialects: list[str], schema: dict[str, dict[str, str]], vocab: Any
) -> list[dict[str, Any]]:
    import typedgen
    from typedgen.frontends.sql import tables as tables_mod

    rows = []
    for d in dialects:
        tables_mod.dialect_tables.cache_clear()
        os.environ["TYPEDGEN_NO_DISK_CACHE"] = "1"
        t0 = time.perf_counter()
        tables_mod.dialect_tables(typedgen.Sql(d).dialect)
        probe_s = time.perf_counter() - t0
        row: dict[str, Any] = {"dialect": d, "tables_s": round(probe_s, 2)}
        for label, sch in (("plain", None), ("schema20", schema)):
            sql = typedgen.Sql(d, schema=sch)
            t0 = time.perf_counter()
            grammar = typedgen.grammar_of(sql)
            build_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            typedgen.compile(grammar, vocab, cache=False)
            compile_s = time.perf_counter() - t0
            row[f"{label}_build_s"] = round(build_s, 3)
            row[f"{label}_compile_s"] = round(compile_s, 3)
            row[f"{label}_rules"] = len(grammar)
        os.environ.pop("TYPEDGEN_NO_DISK_CACHE", None)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _tokens(hf: Any, text: str) -> list[int]:
    return list(hf.encode(text, add_special_tokens=False))


def mask_times(n_queries: int, hf: Any, vocab: Any) -> dict[str, Any]:
    from _peers import LLGuidanceAdapter

    import typedgen

    schemas, items = _spider_schemas()
    items = items[:n_queries]
    by_db: dict[str, list[str]] = collections.defaultdict(list)
    for it in items:
        by_db[it["db_id"]].append(it["query"].strip().rstrip(";").strip())
    words = (vocab.size + 31) // 32 if hasattr(vocab, "size") else (len(vocab) + 31) // 32
    bitmask = np.zeros((1, words), dtype=np.int32)
    typed: dict[str, list[float]] = {"pass1": [], "pass2": []}
    llg_times: list[float] = []
    llg = LLGuidanceAdapter(hf)
    refused = {"typedgen": 0, "llguidance": 0}
    export_s = []
    llg_compile_s = []
    for db, queries in sorted(by_db.items()):
        sql = typedgen.Sql("sqlite", schema=schemas[db])
        grammar = typedgen.grammar_of(sql)
        cg = typedgen.compile(grammar, vocab, cache=False)
        t0 = time.perf_counter()
        text = grammar.to_lark(dialect="llguidance")
        export_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        handle = llg.compile("lark", text)
        llg_compile_s.append(time.perf_counter() - t0)
        for q in queries:
            toks = _tokens(hf, q)
            for key in ("pass1", "pass2"):
                m = cg.matcher()
                for tok in toks:
                    t0 = time.perf_counter_ns()
                    m.fill_next_token_bitmask(bitmask, 0)
                    ok = m.accept_token(tok)
                    typed[key].append((time.perf_counter_ns() - t0) / 1e3)
                    if not ok:
                        refused["typedgen"] += key == "pass1"
                        break
            lm = llg.matcher(handle, 0)
            for tok in toks:
                t0 = time.perf_counter_ns()
                llg.fill(lm, bitmask)
                ok = llg.accept(lm, tok)
                llg_times.append((time.perf_counter_ns() - t0) / 1e3)
                if not ok:
                    refused["llguidance"] += 1
                    break

    def summary(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {
            "steps": len(xs),
            "mean_us": round(statistics.fmean(xs), 1),
            "p50_us": round(xs[len(xs) // 2], 1),
            "p99_us": round(xs[min(len(xs) - 1, int(len(xs) * 0.99))], 1),
        }

    return {
        "queries": len(items),
        "databases": len(by_db),
        "typedgen_pass1": summary(typed["pass1"]),
        "typedgen_pass2": summary(typed["pass2"]),
        "llguidance": summary(llg_times),
        "refused_queries": refused,
        "export_to_lark_s_mean": round(statistics.fmean(export_s), 2),
        "llguidance_compile_s_mean": round(statistics.fmean(llg_compile_s), 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialects", default=DEFAULT_DIALECTS)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--part", choices=("compile", "masks", "both"), default="both")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    import typedgen
    from typedgen._bundled import smollm2_tokenizer

    hf = smollm2_tokenizer()
    vocab = typedgen.Vocabulary.from_tokenizer(hf)
    out: dict[str, Any] = {}
    if args.part in ("compile", "both"):
        schemas, _ = _spider_schemas()
        out["compile"] = compile_times(args.dialects.split(","), _twenty_tables(schemas), vocab)
    if args.part in ("masks", "both"):
        out["masks"] = mask_times(args.queries, hf, vocab)
        print(json.dumps(out["masks"], indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""SQL benchmarks on Spider dev: text-to-SQL generation on the default model (more parts to come).

Run: python benchmarks/sql_bench.py --part generation [--questions 100] [--order spread|first]
[--names spider-dev/0004,...] [--max-tokens 96] [--max-retries 2] [--rows 6] [--threads N]
[--json out.json]

Generation: N Spider dev questions, each over its database built by ``spider_db.build_database``
(schema from ``tables.json``, a few invented rows). The same chat prompt (schema as CREATE TABLE
lines, then the question) goes to the default model twice: unconstrained greedy decoding (SQL
extracted from the reply) and ``typedgen.generate(typedgen.Sql("sqlite", schema=conn, ...))``.
Each side is scored: valid (sqlglot parses a query), executes (SQLite runs it), and matches the
gold query's rows. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run from a checkout: the repository root goes first, so the working tree's typedgen is measured.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import typedgen
from benchmarks.spider_db import (
    SQLITE_FUNCTIONS,
    Question,
    build_database,
    load_questions,
    load_schemas,
    messages,
    spider_dir,
)
from typedgen.decoding.forward import Forward
from typedgen.prompts import encode_messages

Json = dict[str, Any]
FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.S)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- shared by the parts ------------------------------------------------------------------------


def pick_questions(args: argparse.Namespace) -> list[Question]:
    """``--names``, else the first ``--questions`` in file order or round-robin over databases."""
    if not (spider_dir() / "items.jsonl").exists():
        sys.exit(f"spider_dev not found at {spider_dir()} (set TYPEDGEN_EVALDATA)")
    questions = load_questions()
    if args.names:
        wanted = [n.strip() for n in args.names.split(",") if n.strip()]
        by_name = {q.name: q for q in questions}
        missing = [n for n in wanted if n not in by_name]
        if missing:
            sys.exit(f"unknown question names: {missing}")
        return [by_name[n] for n in wanted]
    if args.order == "first":
        return questions[: args.questions]
    # spread: the first question of every database (db_ids sorted), then the second, ...
    queues: dict[str, list[Question]] = {}
    for q in questions:
        queues.setdefault(q.db_id, []).append(q)
    lists = [queues[k] for k in sorted(queues)]
    order = [qs[i] for i in range(max(map(len, lists))) for qs in lists if i < len(qs)]
    return order[: args.questions]


def load_model(args: argparse.Namespace) -> tuple[typedgen.LoadedModel, Json]:
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    model = typedgen.load_model()
    meta: Json = {
        "model": model.name, "device": str(model.device), "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__, "transformers": transformers.__version__,
        "load_s": time.perf_counter() - t0,
    }  # fmt: skip
    return model, meta


# -- part "generation": constrained vs unconstrained text-to-SQL --------------------------------


def greedy(model: typedgen.LoadedModel, ids: list[int], n: int) -> list[int]:
    """Plain greedy tokens on typedgen's ``Forward`` harness (no mask): up to ``n`` or EOS."""
    import torch

    stop = frozenset(model.vocabulary.eos_ids) | {model.tokenizer.eos_token_id}
    pad = getattr(model.tokenizer, "pad_token_id", None)
    fw = Forward(model.model, 1, model.device, int(pad if pad is not None else 0))
    logits, _, offset = fw([ids], [len(ids) - 1])
    fw.advance(0, len(ids))
    last, out = len(ids) - 1, []
    while len(out) < n:
        token = int(torch.argmax(logits[0, last - offset]))
        if token in stop:
            break
        out.append(token)
        logits, _, offset = fw([[token]], [0])
        fw.advance(0, 1)
        last = 0
    return out


def extract_sql(text: str) -> str:
    """The SQL in a free reply: a ``` fence's content if any, up to the first ';' or blank line."""
    m = FENCE.search(text)
    body = (m.group(1) if m else text).strip()
    return re.split(r";|\n\s*\n", body, maxsplit=1)[0].strip()


def _normal(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [tuple(round(v, 6) if isinstance(v, float) else v for v in row) for row in rows]


def run_sql(conn: sqlite3.Connection, sql: str) -> tuple[list[tuple[Any, ...]] | None, str]:
    try:
        return _normal(conn.execute(sql).fetchmany(10_000)), ""
    except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError) as exc:
        return None, _plain(f"{type(exc).__name__}: {exc}")


def _plain(message: str, limit: int = 200) -> str:
    """One line, no terminal colours (sqlglot underlines the offending token)."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", message).split())[:limit]


def same_result(gold: list[tuple[Any, ...]], rows: list[tuple[Any, ...]], ordered: bool) -> bool:
    return gold == rows if ordered else Counter(gold) == Counter(rows)


def score(
    conn: sqlite3.Connection, sql: str | None, gold: list[tuple[Any, ...]] | None, ordered: bool
) -> Json:
    """valid: sqlglot parses a query; executes: SQLite runs it; match: the gold query's rows."""
    import sqlglot
    from sqlglot import exp

    out: Json = {"sql": sql, "valid": False, "executes": False, "match": False}
    if not sql:
        return out
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError as exc:
        out["detail"] = _plain(f"sqlglot: {exc}")
        return out
    out["parsed_as"] = type(tree).__name__
    if not isinstance(tree, exp.Query):  # "We have" parses (as an alias), CREATE TABLE too
        out["detail"] = f"not a query: sqlglot parses it as {type(tree).__name__}"
        return out
    out["valid"] = True
    rows, error = run_sql(conn, sql)
    if rows is None:
        out["detail"] = error
        return out
    out["executes"] = True
    out["rows"] = len(rows)
    out["match"] = gold is not None and same_result(gold, rows, ordered)
    return out


def generation(args: argparse.Namespace) -> Json:
    import sqlglot

    model, meta = load_model(args)
    log(f"loaded {model.name} on {model.device} in {meta['load_s']:.1f}s")
    questions = pick_questions(args)
    schemas = load_schemas()
    dbs: dict[str, Json] = {}
    results = []
    for k, q in enumerate(questions, 1):
        if q.db_id not in dbs:
            conn = build_database(schemas[q.db_id], rows=args.rows)
            sql = typedgen.Sql("sqlite", schema=conn, functions=SQLITE_FUNCTIONS)
            t0 = time.perf_counter()
            # The prompt carries the DDL for both sides, so the constrained side adds no
            # instructions of its own: the two decode from the same tokens.
            gen = typedgen.Generator(sql, model, max_retries=args.max_retries, instructions=False)
            gen.compiled()  # grammar + compile (or the compile cache), not decoding
            compile_s = time.perf_counter() - t0
            dbs[q.db_id] = {"conn": conn, "gen": gen, "ddl": sql.schema.describe("sqlite"),
                            "compile_s": compile_s}  # fmt: skip
            log(f"{q.db_id}: grammar built and compiled in {compile_s:.1f}s")
        db = dbs[q.db_id]
        conn, prompt = db["conn"], messages(q.question, db["ddl"])
        gold, gold_error = run_sql(conn, q.query)
        try:  # a top-level ORDER BY makes the row order part of the answer
            ordered = sqlglot.parse_one(q.query, read="sqlite").args.get("order") is not None
        except sqlglot.errors.SqlglotError:
            ordered = False
        row: Json = {"name": q.name, "db_id": q.db_id, "question": q.question, "gold": q.query,
                     "gold_rows": None if gold is None else len(gold), "gold_error": gold_error,
                     "gold_trivial": gold is None or gold in ([], [(0,)], [(None,)])}  # fmt: skip

        t0 = time.perf_counter()
        ids = encode_messages(model.tokenizer, prompt)
        tokens = greedy(model, ids, args.max_tokens)
        text = model.tokenizer.decode(tokens, skip_special_tokens=True)
        unc = score(conn, extract_sql(text), gold, ordered)
        unc.update(text=text, tokens=len(tokens), seconds=time.perf_counter() - t0,
                   truncated=len(tokens) >= args.max_tokens, prompt_tokens=len(ids))  # fmt: skip

        t0 = time.perf_counter()
        con: Json
        try:
            d = db["gen"](prompt, max_tokens=args.max_tokens, on_max_tokens="finish",
                          return_details=True)  # fmt: skip
            con = score(conn, d.value.meta["text"], gold, ordered)
            con.update(outcome="sql", closed_early=d.closed_early, attempts=len(d.attempts),
                       tokens=d.sampled_tokens + d.forced_tokens)  # fmt: skip
            con["is_expression"] = isinstance(d.value, sqlglot.exp.Expression)
        except typedgen.ValidationFailed as exc:  # every attempt failed the schema check
            con = score(conn, None, gold, ordered)
            con.update(outcome="validation-failed", attempts=len(exc.attempts),
                       detail=_plain(str(exc.attempts[-1].error), 300),
                       texts=[a.text for a in exc.attempts])  # fmt: skip
        except typedgen.GenerationError as exc:
            con = score(conn, None, gold, ordered)
            con.update(outcome=type(exc).__name__, detail=_plain(str(exc), 300))
        except Exception as exc:  # a typedgen bug: record it, keep going
            con = score(conn, None, gold, ordered)
            con.update(outcome=f"crash {type(exc).__name__}", detail=_plain(str(exc), 300))
        con["seconds"] = time.perf_counter() - t0
        row["unconstrained"], row["constrained"] = unc, con
        results.append(row)
        log(f"[{k}/{len(questions)}] {q.name} ({q.db_id}): unconstrained"
            f" {_verdict(unc)} {unc['seconds']:.1f}s, constrained {_verdict(con)}"
            f" ({con['outcome']}, {con.get('attempts', 0)} attempts) {con['seconds']:.1f}s,"
            f" load {os.getloadavg()[0]:.1f}")  # fmt: skip
    compile_s = {k: v["compile_s"] for k, v in dbs.items()}
    order = "names" if args.names else args.order
    return {"meta": meta, "questions": len(results), "order": order,
            "max_tokens": args.max_tokens, "max_retries": args.max_retries,
            "compile_s": compile_s, "results": results}  # fmt: skip


def _verdict(side: Json) -> str:
    return "match" if side["match"] else "executes" if side["executes"] else (
        "valid" if side["valid"] else "no SQL")  # fmt: skip


def print_generation(res: Json) -> None:
    results, n = res["results"], res["questions"]
    meta = res["meta"]
    print(f"## Text-to-SQL: {n} Spider dev questions ({res['order']}), {meta['model']} on"
          f" {meta['device']}, greedy, max_tokens={res['max_tokens']}\n")  # fmt: skip
    hard = [r for r in results if not r["gold_trivial"]]
    print("| side | valid SQL | executes | matches gold | matches gold (non-trivial)"
          " | s / question | tokens / question |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for side in ("unconstrained", "constrained"):
        valid = sum(r[side]["valid"] for r in results)
        runs = sum(r[side]["executes"] for r in results)
        match = sum(r[side]["match"] for r in results)
        match_hard = sum(r[side]["match"] for r in hard)
        secs = sum(r[side]["seconds"] for r in results) / max(n, 1)
        toks = sum(r[side].get("tokens", 0) for r in results) / max(n, 1)
        print(f"| {side} | {_pct(valid, n)} | {_pct(runs, n)} | {_pct(match, n)}"
              f" | {_pct(match_hard, len(hard))} | {secs:.1f} | {toks:.0f} |")  # fmt: skip
    con = [r["constrained"] for r in results]
    outcomes = Counter(c["outcome"] for c in con)
    attempts = Counter(c.get("attempts", 0) for c in con)
    tries = dict(sorted(attempts.items()))
    print(f"\nConstrained outcomes: {dict(outcomes)}; attempts used: {tries}"
          f" (max_retries={res['max_retries']}); closed early by the token budget:"
          f" {sum(bool(c.get('closed_early')) for c in con)}. Unconstrained replies cut by the"
          f" budget: {sum(r['unconstrained']['truncated'] for r in results)}. Non-trivial gold"
          f" (rows other than none, 0 or NULL on the invented data): {len(hard)}.")  # fmt: skip
    compile_s = res["compile_s"]
    if compile_s:
        print(
            f"Grammar build + compile per database: {len(compile_s)} databases,"
            f" mean {sum(compile_s.values()) / len(compile_s):.1f}s (not in s / question)."
        )
    print("\nFailures (not executing):")
    for r in results:
        for side in ("constrained", "unconstrained"):
            s = r[side]
            if not s["executes"]:
                what = s.get("detail") or s.get("outcome") or "no SQL"
                sql = " ".join((s.get("sql") or "").split())[:100]
                print(f"* {side}: {r['name']} ({r['db_id']}): {what[:160]!s}; SQL: {sql!r}")
    print()


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "0/0"


# -- the parts ----------------------------------------------------------------------------------
# Each part: (run(args) -> JSON-able dict, print(result)). "compile" and "masks" (the SQL
# grammar's build/compile times and mask speed per dialect) are to be added here.
PARTS: dict[str, tuple[Callable[[argparse.Namespace], Json], Callable[[Json], None]]] = {
    "generation": (generation, print_generation),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all")
    parser.add_argument("--questions", type=int, default=100, help="generation: questions")
    parser.add_argument("--order", choices=("spread", "first"), default="spread",
                        help="spread: round-robin over databases; first: file order")  # fmt: skip
    parser.add_argument("--names", help="generation: these question names instead")
    parser.add_argument("--max-tokens", type=int, default=96, help="generation token budget")
    parser.add_argument("--max-retries", type=int, default=2, help="constrained retries")
    parser.add_argument("--rows", type=int, default=6, help="invented rows per table")
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (default: untouched)")
    parser.add_argument("--json", help="also write every raw number and text here")
    args = parser.parse_args()
    t0 = time.perf_counter()
    report: Json = {"meta": {"python": platform.python_version(), "cpus": os.cpu_count(),
                             "argv": sys.argv[1:]}}  # fmt: skip
    for name, (run, show) in PARTS.items():
        if args.part in (name, "all"):
            report[name] = run(args)
            show(report[name])
    report["meta"]["wall_s"] = time.perf_counter() - t0
    report["meta"]["loadavg"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"wall time {report['meta']['wall_s']:.0f} s, load average {report['meta']['loadavg']}")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
        log(f"raw numbers written to {path}")


if __name__ == "__main__":
    main()

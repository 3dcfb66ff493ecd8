"""sqlglot's dialect fixtures through the SQL grammars: rates, and rejections by construct.

Run: python benchmarks/sql_conformance.py [--dialects sqlite,postgres,...] [--show 3]
     [--json out.json]

The fixtures are the statements of ``../shared/evaldata/sqlglot_dialects`` that sqlglot parses
as queries in their dialect (the set ``tests/frontends/sql/test_conformance.py`` measures), and
``sqlglot_identity`` in the generic dialect, measured in the checking language
(``comments=True, whitespace="check"``) with every statement kind whose statement is a query
(``select``, and ``select_into`` where the dialect has it: T-SQL's ``SELECT ... INTO t``); the
figure of the default statements (``("select",)``) is printed beside. ``--spider-train``
measures Spider's train gold queries on the schema-aware SQLite grammar in generation mode
instead. Each is fed byte by byte through a fresh matcher on the byte vocabulary; a rejection
is grouped by the *construct* at the refused byte: the word or symbol that starts there
(``LATERAL``, ``[``, ``:``, ``$1``...), so that the groups say which construct would unlock
most fixtures.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlglot

import typedgen
from tests._support import EVALDATA, byte_vocabulary, read_items
from tests.frontends.sql._sql import QUERY, QUERY_STATEMENTS, checking, dialect_queries

logging.getLogger("sqlglot").setLevel(logging.CRITICAL)

TARGETS = {
    "sqlite": 0.9,
    "postgres": 0.9,
    "mysql": 0.9,
    "bigquery": 0.9,
    "snowflake": 0.9,
    "duckdb": 0.9,
    "tsql": 0.9,
    "spark": 0.8,
    "oracle": 0.8,
    "clickhouse": 0.8,
    "trino": 0.8,
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\$\d+|\$\w*\$|\d+|\S")


def select_items(dialect: str) -> list[str]:
    """The distinct fixtures of ``dialect`` that sqlglot parses as a query."""
    return dialect_queries(read_items("sqlglot_dialects"), dialect)


def identity_items() -> list[str]:
    out = []
    for item in read_items("sqlglot_identity"):
        try:
            tree = sqlglot.parse_one(item["sql"])
        except sqlglot.errors.SqlglotError:
            continue
        if isinstance(tree, QUERY):
            out.append(item["sql"])
    return out


def refused_at(comp: Any, text: str) -> int | None:
    """The offset of the first refused byte (``len`` when incomplete at the end), or None."""
    m = comp.matcher()
    data = text.encode("utf-8")
    for i, b in enumerate(data):
        if not m.accept_bytes(bytes((b,))):
            return i
    return None if m.is_complete() else len(data)


def construct(text: str, offset: int) -> str:
    """The word or symbol at (or just before) the refused byte: the construct's name."""
    data = text.encode("utf-8")
    head = data[:offset].decode("utf-8", "replace")
    # The refused byte may sit inside a word: start from the word's beginning.
    start = len(head)
    while start > 0 and (head[start - 1].isalnum() or head[start - 1] in "_$"):
        start -= 1
    rest = text[start:] if start < len(text) else ""
    found = _WORD.search(rest)
    if not found:
        return "<end: incomplete>"
    word = found.group(0)
    return word.upper() if word[0].isalpha() or word[0] == "_" else word


def measure(
    name: str, dialect: str, queries: list[str], vocab: Any, statements: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The checking language (comments, wider whitespace, parameters, UDFs) with every
    statement kind whose statement is a query (SELECT ... INTO beside SELECT, where the dialect
    has it) and ``statements`` (--statements); ``default_accepted`` is the figure of the
    default statements (``("select",)``), printed beside so that neither is hidden."""
    kinds = tuple(dict.fromkeys((*QUERY_STATEMENTS, *statements)))
    comp = typedgen.compile(checking(dialect, kinds), vocab)
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for q in queries:
        at = refused_at(comp, q)
        if at is not None:
            groups[construct(q, at)].append(q)
    rejected = sum(len(v) for v in groups.values())
    default = typedgen.compile(checking(dialect, ("select",)), vocab)
    refused = sum(refused_at(default, q) is not None for q in queries)
    return {
        "set": name,
        "dialect": dialect,
        "statements": list(kinds),
        "total": len(queries),
        "accepted": len(queries) - rejected,
        "default_accepted": len(queries) - refused,
        "groups": dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))),
    }


def spider_train(vocab: Any) -> tuple[int, int, list[str]]:
    """Spider train gold, schema-aware SQLite in generation mode (the default grammar)."""
    from tests.frontends.sql._sql import spider_schema

    text = (EVALDATA / "spider_train_gold" / "tables.json").read_text(encoding="utf-8")
    tables = {t["db_id"]: t for t in json.loads(text)}
    by_db: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for item in read_items("spider_train_gold"):
        by_db[item["db_id"]].append(item)
    failed: list[str] = []
    total = 0
    for db, items in sorted(by_db.items()):
        comp = typedgen.compile(typedgen.Sql("sqlite", schema=spider_schema(tables[db])), vocab)
        for item in items:
            total += 1
            query = item["query"].strip().rstrip(";").strip()
            if refused_at(comp, query) is not None:
                failed.append(f"{item['name']}: {query}")
    return total - len(failed), total, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialects", default=",".join(TARGETS))
    parser.add_argument("--identity", action="store_true", help="also sqlglot_identity")
    parser.add_argument("--show", type=int, default=2, help="examples printed per group")
    parser.add_argument("--groups", type=int, default=15, help="groups printed per dialect")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--spider-train", action="store_true", help="only Spider train gold")
    parser.add_argument(
        "--statements",
        default="",
        help="statement kinds opted into beside the query ones (select, select_into)",
    )
    args = parser.parse_args()
    vocab = byte_vocabulary()
    if args.spider_train:
        ok, total, failed = spider_train(vocab)
        print(f"spider_train gold, schema-aware SQLite: {ok}/{total} = {ok / total:.2%}")
        for line in failed:
            print("  rejected", line)
        return
    results = []
    runs = [("sqlglot_dialects", d, select_items(d)) for d in args.dialects.split(",") if d]
    if args.identity:
        runs.append(("sqlglot_identity", "generic", identity_items()))
    for name, dialect, queries in runs:
        extra = tuple(s for s in args.statements.split(",") if s and s != "select")
        res = measure(name, dialect, queries, vocab, extra)
        results.append(res)
        rate = res["accepted"] / res["total"] if res["total"] else 0.0
        target = TARGETS.get(dialect, 0.9)
        default = res["default_accepted"] / res["total"] if res["total"] else 0.0
        print(
            f"{name} {dialect}: {res['accepted']}/{res['total']} = {rate:.1%} (target {target:.0%};"
            f" default statements: {res['default_accepted']}/{res['total']} = {default:.1%})"
        )
        for construct_name, items in list(res["groups"].items())[: args.groups]:
            print(f"  {len(items):4d}  {construct_name}")
            for q in items[: args.show]:
                print(f"          {q[:150]!r}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

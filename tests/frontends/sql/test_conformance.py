"""Completeness against public SQL: Spider gold (schema-aware SQLite), sqlglot's fixtures.

Rates are printed (run with ``-s``) and held to floors just below what was measured, so a
regression fails; benchmarks/RESULTS.md has the figures and the failures named.
"""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest
import sqlglot

import typedgen
from tests._support import EVALDATA, evaldata_items

from ._sql import QUERY, checking, compiled, dialect_queries, spider_schema, sql_accepts


def _tables(name: str) -> dict[str, Any]:
    path = EVALDATA / name / "tables.json"
    if not path.exists():
        pytest.skip(f"{path} not found (../shared/evaldata is absent)")
    return {t["db_id"]: t for t in json.loads(path.read_text(encoding="utf-8"))}


def _gold(query: str) -> str:
    # Spider's gold queries end with ";"; the grammar refuses statement separators.
    return query.strip().rstrip(";").strip()


def test_spider_dev_gold_schema_aware() -> None:
    tables = _tables("spider_dev")
    by_db: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for item in evaldata_items("spider_dev"):
        by_db[item["db_id"]].append(item)
    failed = []
    total = 0
    for db, items in sorted(by_db.items()):
        sql = typedgen.Sql("sqlite", schema=spider_schema(tables[db]))
        comp = compiled(sql)
        for item in items:
            total += 1
            query = _gold(item["query"])
            if not _accepts(comp, query):
                failed.append((item["name"], query))
            else:
                sql.parse(query)  # and binding (with the schema check) takes it
    rate = 1 - len(failed) / total
    print(f"spider_dev gold, schema-aware SQLite: {total - len(failed)}/{total} = {rate:.1%}")
    for name, query in failed:
        print("  rejected", name, query)
    assert rate >= 0.98, failed[:10]


def _accepts(comp: Any, text: str) -> bool:
    from tests._support import accepts

    return accepts(comp, text.encode("utf-8"))


# Measured acceptance of sqlglot's own dialect tests (its SELECT statements) in the checking
# language; these fixtures exercise every corner of each dialect, beyond what the grammar
# offers (benchmarks/RESULTS.md lists the rejections by construct). The floors sit just below
# the measured rates (2026-12-03, after the fifth round of issue 15 for spark, postgres,
# mysql, tsql and oracle) so that a regression
# fails; issue 15's targets (90%, 80%) are met for sqlite, spark and the generic identity set.
DIALECT_FLOORS = {
    "sqlite": 0.93,
    # 0.66 before: a keyword that is read as something else before a bare alias is no longer
    # a column name (SELECT interval x is INTERVAL 'x' for sqlglot: a random walk found it),
    # which loses one fixture with ORDER BY interval.
    "postgres": 0.90,
    # Round 7: 93/108 (GROUP_CONCAT, interval terms, CHARSET, CONVERT ... USING). Round 8:
    # 95/108 (JSON_TABLE's column types, digit-led names); the 13 left are refused on purpose.
    "mysql": 0.87,
    # Round 7: 270/289 (dashed table names, triple quotes, date arithmetic, typed ARRAY<>/STRUCT<>).
    "bigquery": 0.93,
    "snowflake": 0.90,
    # Round 7: 227/247 (DATE_DIFF units, regexp flags, IGNORE NULLS inside, RANK( ORDER BY a)).
    # Soundness round 9: 221/247 (JSON_EXTRACT(c, '$.k') as a whole item only). Round 10:
    # 226/247, the call first in another operator, which the writer parenthesises
    # ((c -> '$.k') = 'v', read back the same by trees.same_tree).
    "duckdb": 0.91,
    # Round 7: 102/113 with SELECT ... INTO measured (99/113 with the default statements).
    "tsql": 0.90,
    "spark": 0.87,
    # 74/81 with SELECT ... INTO measured (70/81 with the default statements).
    "oracle": 0.91,
    # 0.44 before round 2: three accepted fixtures (a IS NOT NULL, a NOT IN (...)) come back
    # from sqlglot's ClickHouse writer as NOT (...), another tree, and are now refused.
    # Round 8: 126/153 (digit-led names: SELECT 1_b; grouped digits: SELECT 1_2_3_4_5; an
    # operand's own LIMIT: SELECT * FROM x LIMIT 1 UNION ALL SELECT * FROM y).
    "clickhouse": 0.82,
    "trino": 0.94,
}


@pytest.mark.parametrize("dialect", sorted(DIALECT_FLOORS))
def test_sqlglot_dialect_selects(dialect: str) -> None:
    queries = dialect_queries(evaldata_items("sqlglot_dialects"), dialect)
    # Measured with every statement kind whose statement is a query (SELECT ... INTO beside
    # SELECT, where the dialect has it); the default statements' figure is printed beside.
    sql = checking(dialect)
    rejected = [q for q in queries if not sql_accepts(sql, q)]
    default = checking(dialect, ("select",))
    refused = sum(not sql_accepts(default, q) for q in queries)
    rate = 1 - len(rejected) / len(queries)
    n = len(queries)
    print(
        f"sqlglot_dialects {dialect}: {n - len(rejected)}/{n} = {rate:.1%}"
        f" (default statements: {n - refused}/{n} = {1 - refused / n:.1%})"
    )
    assert rate >= DIALECT_FLOORS[dialect], rejected[:20]


@pytest.mark.parametrize("name", ["sqlglot_identity", "sqlglot_tpc"])
def test_default_dialect_fixtures(name: str) -> None:
    queries = []
    for item in evaldata_items(name):
        try:
            tree = sqlglot.parse_one(item["sql"])
        except sqlglot.errors.SqlglotError:
            continue
        if isinstance(tree, QUERY):
            queries.append(item["sql"])
    sql = checking("generic")
    rejected = [q for q in queries if not sql_accepts(sql, q)]
    rate = 1 - len(rejected) / len(queries)
    print(f"{name} (generic dialect): {len(queries) - len(rejected)}/{len(queries)} = {rate:.1%}")
    assert rate >= {"sqlglot_identity": 0.90, "sqlglot_tpc": 0.96}[name], rejected[:20]

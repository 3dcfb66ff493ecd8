"""Function calls: a name sqlglot knows is callable only with the arities the probes found.

Issue 17, item 7: the SQLite grammar accepted ``SELECT DATEDIFF(SOME_NAME())`` (the anonymous
call rule took DATEDIFF as a free name) and sqlglot refuses it. Every name sqlglot's parser
treats as its own function must keep out of the anonymous call.
"""

from __future__ import annotations

import random

import pytest

import typedgen
from typedgen.frontends.sql import dialect_class

from ._sql import round_trips, sql_accepts

DIALECTS = ("sqlite", "postgres", "mysql", "bigquery", "snowflake", "duckdb", "tsql", "oracle")
_ARGS = ("a", "1", "'x'", "NULL", "a + 1", "(SELECT 1)", "*", "DISTINCT a")


def test_a_known_function_is_no_anonymous_call() -> None:
    sql = typedgen.Sql("sqlite", functions="any")  # anonymous calls on
    assert not sql_accepts(sql, "SELECT DATEDIFF(SOME_NAME())")
    assert not sql_accepts(sql, "SELECT datediff(a)")
    assert sql_accepts(sql, "SELECT SOME_NAME()")
    assert sql_accepts(sql, "SELECT DATEDIFF(SOME_NAME") is False
    # The name is still a name where sqlglot reads it as one.
    assert sql_accepts(sql, "SELECT datediff FROM t")
    assert sql_accepts(sql, "SELECT a AS datediff FROM t")


def _call(rng: random.Random, names: list[str], depth: int = 0) -> str:
    name = rng.choice(names)
    args = []
    for _ in range(rng.randint(0, 6)):
        if depth < 1 and rng.random() < 0.2:
            args.append(_call(rng, names, depth + 1))
        else:
            args.append(rng.choice(_ARGS))
    return f"{name}({', '.join(args)})"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_known_names_with_random_arities(dialect: str) -> None:
    """Calls of known function names with random argument counts: whatever the grammar
    accepts, sqlglot parses and round-trips."""
    sql = typedgen.Sql(dialect)
    tables = dialect_class(dialect).tables()
    rng = random.Random(f"arity-{dialect}")
    names = sorted(tables.known_functions)
    accepted = refused = 0
    for _ in range(400):
        text = f"SELECT {_call(rng, names)}"
        if not sql_accepts(sql, text):
            refused += 1
            continue
        accepted += 1
        ok, detail = round_trips(text, sql.dialect)
        assert ok, f"{dialect}: accepted {text!r}, sqlglot: {detail}"
    # Both outcomes occur, so the check above is not vacuous.
    assert accepted >= 10 and refused >= 10, (accepted, refused)

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


@pytest.mark.parametrize(
    ("dialect", "call", "one"),
    [
        ("bigquery", "ARRAY_AGG(a, b)", "ARRAY_AGG(a)"),  # sqlglot reads it as ARRAY_AGG(a)
        ("sqlite", "LOG10(a, b)", "LOG10(a)"),
        ("tsql", "LEN(a, b, c)", "LEN(a)"),
        ("mysql", "DATEDIFF(a, b, c)", "DATEDIFF(a, b)"),
    ],
)
def test_a_dropped_argument_is_refused(dialect: str, call: str, one: str) -> None:
    """A call sqlglot reads with an argument dropped is refused: with one value repeated
    (``ARRAY_AGG(x, x)``) the round trip holds, so the arity probe uses distinct columns."""
    import re

    import sqlglot

    text = f"SELECT {call} FROM t"
    try:
        written = sqlglot.parse_one(text, read=dialect).sql(dialect=dialect)
    except (TypeError, sqlglot.errors.SqlglotError):
        pass  # refused outright where sqlglot checks its builders' arguments (under pytest)
    else:
        assert not all(re.search(rf"\b{c}\b", written) for c in "abc" if f"{c}" in call)
    sql = typedgen.Sql(dialect)
    assert not sql_accepts(sql, text)
    assert sql_accepts(sql, f"SELECT {one} FROM t")


def test_tables_are_the_same_outside_pytest() -> None:
    """sqlglot checks its builders' arguments only where ``pytest`` or ``unittest`` is imported;
    the tables are probed with the check on, so an application gets the grammar the tests
    check (T-SQL's LEN took 1 to 3 arguments outside pytest, 1 inside)."""
    import os
    import subprocess
    import sys

    code = (
        "import sys; from typedgen.frontends.sql.tables import dialect_tables;"
        "t = dialect_tables('tsql'); assert 'pytest' not in sys.modules;"
        "print([f.arity.counts for f in t.functions if f.name == 'LEN'])"
    )
    env = {**os.environ, "TYPEDGEN_NO_DISK_CACHE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    inside = [f.arity.counts for f in dialect_class("tsql").tables().functions if f.name == "LEN"]
    assert out.stdout.strip() == str(inside) == "[(1,)]"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_accepted_calls_keep_every_argument(dialect: str) -> None:
    """Calls of the dialect's functions with 2 to 6 distinct columns: whatever the grammar
    accepts, sqlglot writes back with every column in it."""
    import re

    import sqlglot

    sql = typedgen.Sql(dialect)
    tables = dialect_class(dialect).tables()
    rng = random.Random(f"kept-{dialect}")
    names = sorted(f.name for f in tables.functions)
    accepted = 0
    for _ in range(300):
        k = rng.randint(2, 6)
        columns = [f"c{i}" for i in range(1, k + 1)]
        text = f"SELECT {rng.choice(names)}({', '.join(columns)}) FROM t"
        if not sql_accepts(sql, text):
            continue
        accepted += 1
        written = sqlglot.parse_one(text, read=sql.dialect).sql(dialect=sql.dialect)
        lost = [c for c in columns if not re.search(rf"\b{c}\b", written, re.IGNORECASE)]
        assert not lost, f"{dialect}: accepted {text!r}, sqlglot writes {written!r}"
    assert accepted >= 20, accepted


@pytest.mark.parametrize("dialect", ["sqlite", "generic"])
def test_a_call_written_as_an_operator_keeps_its_operands(dialect: str) -> None:
    """sqlglot writes SQLite's ``GLOB(a, b)`` as ``b GLOB a`` without parentheses, so an
    argument of lower precedence, or an operator around the call, comes back as another tree
    (a random walk found ``GLOB(a IS b IN (0), 0)``, written ``0 GLOB a IS b IN (0)``): such a
    call (where an ``x OR y`` argument does not round-trip) takes plain operands only, as a
    whole select item; the operator itself stays."""
    name = typedgen.Sql(dialect).dialect
    refused = (
        "SELECT GLOB(a IS b IN (0), 0)",
        "SELECT GLOB(a OR b, 0)",
        "SELECT 1 + LIKE(a, b)",
        "SELECT LIKE(a, b) || 'x'",
    )
    for text in refused:
        assert not round_trips(text, name)[0], text
        assert not sql_accepts(typedgen.Sql(dialect, functions="any"), text), text
    for text in ("SELECT GLOB(a, 'x')", "SELECT LIKE(a, b) AS c, 1", "SELECT GLOB(f(a), 'x') c"):
        assert sql_accepts(typedgen.Sql(dialect, functions="any"), text), text
        assert round_trips(text, name)[0], text
    if dialect == "sqlite":
        assert sql_accepts(typedgen.Sql(dialect), "SELECT a GLOB 'x' FROM t")
    # A call written as a call keeps its arguments inside its parentheses.
    text = "SELECT COALESCE(a OR b, c IS NULL) FROM t"
    assert sql_accepts(typedgen.Sql(dialect), text) and round_trips(text, name)[0]


def test_operator_counts_probed() -> None:
    # DuckDB writes JSON_EXTRACT(a, 'p') as a -> 'p': plain operands, a whole item, or first in
    # an operator, which the writer parenthesises ((a -> 'p') = 'v', read back the same).
    duckdb = {f.name: f for f in dialect_class("duckdb").tables().functions}
    assert duckdb["JSON_EXTRACT"].operator_counts == (2,)
    assert duckdb["JSON_EXTRACT"].operator_heads == (2,)
    assert duckdb["COALESCE"].operator_counts == ()
    sql = typedgen.Sql("duckdb")
    assert sql_accepts(sql, "SELECT JSON_EXTRACT(c, '$.k') AS v FROM t")
    for text in (
        "SELECT JSON_EXTRACT(c, '$.k') = 'v' FROM t",
        "SELECT a FROM t WHERE JSON_EXTRACT_STRING(c, '$.id') NOT IN ('b')",
        "SELECT JSON_EXTRACT(c, '$[*].id')[0:2] FROM t",
        "SELECT JSON_EXTRACT(c, '$.k') * 2 + 1 FROM t",
        "SELECT a FROM t WHERE JSON_EXTRACT(c, '$.k') IS NOT NULL AND b = 1",
    ):
        assert sql_accepts(sql, text), text
        assert round_trips(text, "duckdb")[0], text
    # Bare as an operand it is misread: under a sign (-a -> 'p' is (-a) -> 'p'), as an
    # argument (DuckDB reads COALESCE(a -> 'p', 1) as a lambda), before BETWEEN or an arrow.
    for text in (
        "SELECT -JSON_EXTRACT(c, '$.k') FROM t",
        "SELECT COALESCE(JSON_EXTRACT(c, '$.k'), 1) FROM t",
        "SELECT COALESCE(JSON_EXTRACT(c, '$.k') BETWEEN 1 AND 2, 1) FROM t",
        "SELECT COALESCE(JSON_EXTRACT(c, '$.k') -> '$.j', 1) FROM t",
    ):
        assert not sql_accepts(sql, text), text
        assert not round_trips(text, "duckdb")[0], text
    # SQLite writes GLOB(a, b) * 2 as b GLOB a * 2, another tree: a whole item only.
    sqlite = {f.name: f for f in dialect_class("sqlite").tables().functions}
    assert sqlite["GLOB"].operator_counts == (2,) and sqlite["GLOB"].operator_heads == ()
    assert not sql_accepts(typedgen.Sql("sqlite"), "SELECT GLOB(a, b) * 2 FROM t")
    assert not round_trips("SELECT GLOB(a, b) * 2 FROM t", "sqlite")[0]

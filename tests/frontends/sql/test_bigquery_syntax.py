"""BigQuery's calls, types and clauses (typedgen/frontends/sql/bigquery_syntax.py), each on where
its probe (bigquery_probes.py) round-trips and the dialect class includes it.

sqlglot is the oracle: every accepted text parses in BigQuery and its output parses back to the
same tree; each refused near miss is one sqlglot does not read, reads as another tree, or reads
as another construct (named below).
"""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

import typedgen
from typedgen.frontends.sql import dialect_class
from typedgen.frontends.sql.bigquery_probes import (
    BIGQUERY_SYNTAX,
    bracket_offsets,
    interval_calls,
    named_parser_calls,
    prefixed_functions,
    week_days,
)

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (text BigQuery accepts, a dialect that refuses it, or None)
CONSTRUCTS = [
    # Interval arithmetic calls (a number or a column as the amount).
    (
        "SELECT DATE_SUB(CURRENT_DATE(), INTERVAL 2 DAY), DATETIME_ADD(a, INTERVAL '1' SECOND)",
        "postgres",
    ),
    ("SELECT TIMESTAMP_SUB(a, INTERVAL col MINUTE), TIME_ADD(b, INTERVAL 2 HOUR) FROM t", "duckdb"),
    # Subscripts by offset or ordinal, and fields of a subscript's struct.
    ("SELECT a[OFFSET(1)], c[ORDINAL(i + 1)], d[SAFE_OFFSET(1)], e[SAFE_ORDINAL(1)]", "duckdb"),
    ("SELECT a[0].b, a[SAFE_OFFSET(0)].c.d FROM t", "postgres"),
    # AI. functions and dataset-qualified user functions.
    ("SELECT AI.EMBED('hello'), AI.SIMILARITY('a', 'b'), AI.GENERATE('x')", "snowflake"),
    ("SELECT AI.GENERATE_BOOL(MODEL `d.m`, 'Is it?', STRUCT(0.5 AS temperature))", "snowflake"),
    ("SELECT ML.RESIZE_IMAGE(ML.DECODE_IMAGE(data), 480, 480, FALSE), p.d.f(x) FROM t", "tsql"),
    # Tuples, named arguments after positional ones, typed constructors and types of types.
    ("SELECT (1, 'a'), [('signal', 'locf')], (a, b) = (c, d) FROM t", "tsql"),
    ("SELECT ts + MAKE_INTERVAL(1, 2, minute => 5, day => 3) FROM t", "postgres"),
    ("SELECT * FROM UNNEST(ARRAY<STRUCT<x INT64, y STRING>>[STRUCT(1, 'a')])", "postgres"),
    ("SELECT STRUCT<a INT64, b STRUCT<c STRING>>(1, STRUCT('c')), ARRAY<INT64>[]", "duckdb"),
    ("SELECT CAST(x AS ARRAY<STRUCT<a INT64, b ARRAY<STRING> >>), CAST(y AS RANGE<DATE>)", None),
    # Casts with a format: in parentheses, and at a time zone.
    (
        "SELECT CAST(d AS STRING FORMAT ('YYYY')), CAST(e AS STRING FORMAT 'H' AT TIME ZONE 'UTC')",
        None,
    ),
    ("SELECT EXTRACT(WEEK(THURSDAY) FROM d), EXTRACT(WEEK(MONDAY) FROM e) FROM t", "snowflake"),
    # Clauses and table suffixes.
    ("(SELECT 1 AS a) UNION ALL (SELECT 2) UNION ALL SELECT 3", "sqlite"),
    ("SELECT a FROM t QUALIFY a IS DISTINCT FROM b WINDOW c AS (PARTITION BY d)", "snowflake"),
    ("SELECT * FROM tbl FOR SYSTEM TIME AS OF z", "tsql"),
    ("SELECT * FROM (SELECT * FROM t) AS a UNPIVOT((c) FOR c_name IN (v1, v2))", "snowflake"),
    ("SELECT * FROM (SELECT a, b, c FROM t) PIVOT(SUM(b) d, COUNT(*) e FOR c IN ('x'))", None),
    ("SELECT * FROM UNNEST([1]) WITH OFFSET y", "postgres"),
    # RESPECT/IGNORE NULLS on an aggregate's last argument.
    (
        "SELECT PERCENTILE_CONT(x, 0.5 RESPECT NULLS) OVER (), NTH_VALUE(x, 2 IGNORE NULLS) OVER w",
        "postgres",
    ),
]


@pytest.mark.parametrize(("text", "without"), CONSTRUCTS)
def test_bigquery_construct(text: str, without: str | None) -> None:
    assert_construct("bigquery", text, without, **CHECKING)


# A near miss, and why sqlglot says it is one: "error" (sqlglot does not read it or its own
# output), "tree" (it comes back as another tree), or a check of the tree it reads.
def _class_name(text: str) -> str:
    value = sqlglot.parse_one(text, read="bigquery").expressions[0]
    if isinstance(value, exp.Dot):
        value = value.expression
    return type(value).__name__


REFUSED = [
    ("SELECT DATE_SUB(a, INTERVAL 2)", "no_unit"),  # sqlglot makes up a unit (DAY)
    ("SELECT DATE_TRUNC(a, INTERVAL 2 DAY)", "not_interval_op"),  # a truncation, not a sum
    ("SELECT AI.ABS(1)", "not_ai"),  # ABS is no AI function (Dot of AI and Abs)
    ("SELECT a[OFFSET 1]", "error"),
    ("SELECT EXTRACT(WEEK(SUNDAY) FROM d)", "tree"),  # written WEEK: another tree
    ("SELECT CAST(x AS ARRAY<STRING(10)>)", "tree"),  # the length is dropped
    ("SELECT CAST(x AS ARRAY<INT64>>)", "error"),
    ("SELECT STRUCT<a INT64>()", "error"),  # a typed struct of no value
    (
        "SELECT * FROM t WINDOW c AS (PARTITION BY d) QUALIFY a WINDOW e AS (PARTITION BY d)",
        "error",
    ),
    ("SELECT a FROM t UNION (SELECT a FROM u)", "error"),  # UNION needs ALL or DISTINCT
    ("SELECT CAST(a AS STRING FORMAT ('x' AT TIME ZONE 'UTC'))", "error"),
    ("SELECT * FROM t FOR SYSTEM TIME AS z", "error"),
    ("SELECT CAST('1' AS STRING(10))", "tree"),  # the length is dropped
    ("SELECT CAST(1 AS NUMERIC(10, 2))", "tree"),  # precision and scale dropped
    ("SELECT CAST(1 AS BYTEINT)", "tree"),  # comes back as INT64 (BIGINT), not INT
    ("SELECT CAST('20201225' AS TIMESTAMP FORMAT 'YYYYMMDD')", "tree"),  # PARSE_TIMESTAMP
    ("WITH cte(c) AS (SELECT * FROM t) SELECT * FROM cte", "tree"),  # columns dropped
    ("SELECT * FROM t AS t(c1, c2)", "tree"),  # columns dropped
]


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_bigquery_refuses(text: str, why: str) -> None:
    sql = typedgen.Sql("bigquery", **CHECKING)
    assert not sql_accepts(sql, text)
    if why in ("error", "tree"):
        ok, detail = round_trips(text, "bigquery")
        assert not ok, detail
        assert detail.startswith(("ParseError", "TokenError")) == (why == "error"), detail
    elif why == "no_unit":
        written = sqlglot.parse_one(text, read="bigquery").sql("bigquery")
        assert "DAY" in written and "DAY" not in text, written
    elif why == "not_interval_op":
        assert not _class_name(text).endswith(("Add", "Sub"))
    else:
        assert not _class_name(text).startswith("AI")


def test_bigquery_refuses_other_near_misses() -> None:
    """Spellings sqlglot reads but that name no BigQuery construct of the tables."""
    sql = typedgen.Sql("bigquery", **CHECKING)
    # MAKE_INTERVAL's first argument by position and by name: set twice.
    assert sql_accepts(sql, "SELECT MAKE_INTERVAL(1, 2, minute => 5)")
    assert not sql_accepts(sql, "SELECT MAKE_INTERVAL(1, 2, year => 5)")
    # A typed array takes brackets, a typed struct parentheses.
    assert sql_accepts(sql, "SELECT ARRAY<INT64>[1], STRUCT<a INT64>(1)")
    assert not sql_accepts(sql, "SELECT STRUCT<a INT64>[1]")
    assert not sql_accepts(sql, "SELECT ARRAY<INT64>(1)")
    # A prompt function takes a model first.
    assert not sql_accepts(sql, "SELECT AI.GENERATE_BOOL('x')")
    # RESPECT NULLS on an aggregate's last argument only: CONCAT is no aggregate (sqlglot
    # reads it, as RespectNulls around the call), nor a first argument of two.
    assert not sql_accepts(sql, "SELECT CONCAT(x, 'a' RESPECT NULLS)")
    assert not sql_accepts(sql, "SELECT PERCENTILE_CONT(x RESPECT NULLS, 0.5) OVER ()")


def test_bigquery_syntax_tables() -> None:
    """The entries come from sqlglot's tables, as probed."""
    names = [name for name, _, _ in interval_calls("bigquery")]
    assert {"DATE_SUB", "DATETIME_ADD", "TIMESTAMP_SUB", "TIME_ADD"} <= set(names)
    assert "DATE_TRUNC" not in names and "DATE_BIN" not in names
    assert bracket_offsets("bigquery") == ("OFFSET", "ORDINAL", "SAFE_OFFSET", "SAFE_ORDINAL")
    plain = {name for name, kind in prefixed_functions("bigquery", "AI") if kind == "plain"}
    assert plain == {"EMBED", "GENERATE", "SIMILARITY"}
    assert "THURSDAY" in week_days("bigquery") and "SUNDAY" not in week_days("bigquery")
    ((name, named, _),) = named_parser_calls("bigquery")
    assert name == "MAKE_INTERVAL" and "minute" in named and "year" not in named


def test_bigquery_syntax_is_dialect_specific() -> None:
    """sqlglot's base parser reads these everywhere: on in BigQuery only."""
    assert BIGQUERY_SYNTAX <= dialect_class("bigquery").tables().features
    assert not BIGQUERY_SYNTAX & dialect_class("postgres").tables().features
    assert not BIGQUERY_SYNTAX & dialect_class("duckdb").tables().features

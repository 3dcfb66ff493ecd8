"""Snowflake's and BigQuery's constructs of round 6: semi-structured paths, object literals,
date parts, named arguments a builder unwraps (``ROUND(EXPR => x)``), and BigQuery's tables.

sqlglot is the oracle: every accepted text parses in the dialect and its output parses back to
the same tree, the marks of a spelling aside (``trees.same_tree``); each refused spelling is
one the other dialect does not read as the same tree.
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.frontends.sql.trees import same_tree

from ._sql import assert_construct, sql_accepts

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # Semi-structured paths: a key (any word, keywords too, or a quoted name), then .key,
    # [expr] and :key steps, after a column, a call or a parenthesised expression.
    ("snowflake", "SELECT v:a.b[0]:c::INT FROM t", "postgres"),
    ("snowflake", "SELECT t.v:c[s.x]:r:d::VARCHAR FROM t, s", "postgres"),
    ("snowflake", "SELECT a:from, a:select, a : b . c FROM t", "duckdb"),
    ("snowflake", 'SELECT PARSE_JSON(x):a:"b c", (v):k FROM t', "postgres"),
    # Object literals, written back as OBJECT_CONSTRUCT.
    ("snowflake", "SELECT { 'Manitoba': 'Winnipeg', 'foo': v:b } AS o", "postgres"),
    # Every date part sqlglot reads for Snowflake, and DATE_PART(part FROM x).
    ("snowflake", "SELECT EXTRACT(DAYOFMONTH FROM a), EXTRACT(YEAROFWEEKISO FROM a)", "postgres"),
    ("snowflake", "SELECT EXTRACT(dd FROM a), DATE_PART(year FROM a)", "postgres"),
    # Named arguments a builder unwraps, in the orders that round-trip.
    ("snowflake", "SELECT ROUND(EXPR => 2.25, SCALE => 1) AS value", "postgres"),
    ("snowflake", "SELECT ROUND(ROUNDING_MODE => 'HALF_TO_EVEN', EXPR => 2.25, SCALE => 1)", None),
    # Pairs of arguments: OBJECT_CONSTRUCT takes 2, 4, 6, 8.
    ("snowflake", "SELECT OBJECT_CONSTRUCT('a', 1, 'b', 2, 'c', 3)", None),
    # Changes of a table, OBJECT types, LIMIT NULL.
    (
        "snowflake",
        "SELECT c FROM t CHANGES (INFORMATION => APPEND_ONLY) AT (STREAM => 's') END"
        " (TIMESTAMP => x) AS y",
        "postgres",
    ),
    ("snowflake", "SELECT CAST(x AS OBJECT(a CHAR NOT NULL, b OBJECT(c INT)))", "postgres"),
    ("snowflake", "SELECT CAST(x AS OBJECT(a CHAR) ADD FIELDS)", "postgres"),
    ("snowflake", "SELECT 1 ORDER BY 1 LIMIT NULL OFFSET 0", "postgres"),
    # BigQuery's ML/AI table functions, in the argument shapes that round-trip for each.
    ("bigquery", "SELECT * FROM ML.PREDICT(MODEL d.m, TABLE d.t, STRUCT(0.5 AS x)) AS p", "duckdb"),
    ("bigquery", "SELECT * FROM ML.FORECAST(MODEL `d.m`, STRUCT())", "duckdb"),
    ("bigquery", "SELECT * FROM AI.GENERATE_TEXT(MODEL m, (SELECT 'q' AS prompt))", "duckdb"),
    # Table functions of a table and named arguments.
    (
        "bigquery",
        "SELECT * FROM GAP_FILL(TABLE t, ts_column => 'b', partitioning_columns => ['a'],"
        " bucket_width => INTERVAL '1' DAY)",
        "duckdb",
    ),
    (
        "bigquery",
        "SELECT * FROM VECTOR_SEARCH((SELECT * FROM b), 'c', TABLE d.q, 'qc', top_k => 2)",
        "duckdb",
    ),
    ("bigquery", "SELECT * FROM ML.FEATURES_AT_TIME(TABLE d.f, num_rows => 1)", "duckdb"),
    ("bigquery", "SELECT * FROM AI.FORECAST(TABLE t, data_col => 'n', horizon => 30)", "duckdb"),
    # UNPIVOT of column groups.
    (
        "bigquery",
        "SELECT * FROM p UNPIVOT((a, b) FOR s IN ((q1, q2) AS 'h1', (q3, q4) AS 'h2'))",
        "duckdb",
    ),
]

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

CHECKED = [
    # A staged file's columns, a model's methods (names of the user's: functions="any").
    ("snowflake", "SELECT t.$1, $1.elem, t.$17:a[0].b FROM t", "postgres"),
    ("snowflake", "SELECT m!PREDICT(INPUT_DATA => {*}) AS p, model!mladmin FROM t", "duckdb"),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CHECKED)
def test_checked_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without, **CHECKING)


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT a:not FROM t",  # NOT is no key (sqlglot's reserved token)
        "SELECT ROUND(SCALE => 1)",  # no EXPR: sqlglot refuses it
        "SELECT ROUND(2.25, SCALE => 1)",  # Snowflake mixes no plain and named arguments
        "SELECT EXTRACT(MONTHNAME FROM a)",  # no date part
        "SELECT m!PREDICT(1) FROM t",  # a model's method: only with functions="any"
        "SELECT t.$1 FROM t",  # a staged file's column: only with placeholders=True
    ],
)
def test_refused(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("snowflake"), text)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * FROM ML.TRANSLATE(MODEL m, TABLE t)",  # sqlglot requires its parameters
        "SELECT * FROM GAP_FILL(TABLE t, ts_column => 'b')",  # bucket_width is required
    ],
)
def test_refused_bigquery(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("bigquery"), text)


def test_same_tree_sets_only_spelling_aside() -> None:
    """A path reads back as the same extraction; another key is another tree."""
    path = sqlglot.parse_one("SELECT v:a.b", read="snowflake")
    written = sqlglot.parse_one(path.sql("snowflake"), read="snowflake")
    assert path != written and same_tree(path, written)
    other = sqlglot.parse_one("SELECT v:a.c", read="snowflake")
    assert not same_tree(path, other)
    day = sqlglot.parse_one("SELECT EXTRACT(DAYOFMONTH FROM a)", read="snowflake")
    assert same_tree(day, sqlglot.parse_one(day.sql("snowflake"), read="snowflake"), "snowflake")
    month = sqlglot.parse_one("SELECT EXTRACT(MONTH FROM a)", read="snowflake")
    assert not same_tree(day, month, "snowflake")

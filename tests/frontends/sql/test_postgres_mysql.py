"""Constructs of issue 15's sixth round for PostgreSQL and MySQL (and the dollar-quoted strings
of every dialect whose tokenizer reads them), each on where its probe round-trips (or its
dialect class includes it) and off elsewhere.

sqlglot is the oracle: every accepted text parses in the dialect and reads back to the same
tree (a ``$$...$$`` string as the plain string of its text); spellings sqlglot writes back as
another tree are refused.
"""

from __future__ import annotations

import pytest

import typedgen

from ._sql import assert_construct, round_trips, sql_accepts

CHECK = {"comments": True, "whitespace": "check", "functions": "any"}

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # Dollar-quoted strings.
    ("postgres", "SELECT $$a$$", "mysql"),
    ("postgres", "SELECT $$The price is $9.95$$ AS msg", "mysql"),
    ("postgres", "SELECT a FROM t WHERE b = $$it's \\n$$", "sqlite"),
    ("duckdb", "SELECT $$a b$$ || 'c'", "bigquery"),
    ("snowflake", "SELECT $$a$$b", "tsql"),
    ("clickhouse", "SELECT $$x$$", "mysql"),
    # TRIM(LEADING|TRAILING x) without FROM (written LTRIM(x), RTRIM(x)).
    ("postgres", "SELECT TRIM(LEADING ' XXX ' COLLATE \"de_DE\")", "mysql"),
    ("postgres", "SELECT TRIM(TRAILING a) FROM t", "mysql"),
    # Distance and adjacency operators.
    ("postgres", "SELECT a <-> b * c, a <<->> b FROM t WHERE (v1 <-> v2) < 10", "mysql"),
    ("postgres", "SELECT a FROM t WHERE a -|- b AND c -|- d + 1", "mysql"),
    # MySQL's bit numbers.
    ("mysql", "SELECT 0b1011, 0b0 + 1", "postgres"),
    # MySQL's a SOUNDS LIKE b IS [NOT] NULL (not IN: another tree).
    ("mysql", "SELECT a SOUNDS LIKE b IS NULL, c SOUNDS LIKE d IS NOT NULL IS NULL", "postgres"),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without)


# With user-defined functions (functions="any"): named and typed columns of table functions.
UDF_CONSTRUCTS = [
    ("postgres", "SELECT * FROM r CROSS JOIN LATERAL UNNEST(ARRAY[1]) AS s(location)", "sqlite"),
    ("postgres", "SELECT * FROM r, LATERAL JSON_TO_RECORDSET(r.j) AS s(x INT, y TEXT)", "mysql"),
    ("postgres", 'SELECT * FROM JSON_TO_RECORDSET(z) AS y("rank" INT)', "mysql"),
    (
        "postgres",
        'SELECT * FROM t, ROWS FROM (F(c) AS a("c" TEXT), G(d)) WITH ORDINALITY AS b(x INT)',
        "mysql",
    ),
]


@pytest.mark.parametrize(("dialect", "text", "without"), UDF_CONSTRUCTS)
def test_construct_with_udfs(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without, functions="any")


def test_pct_placeholders() -> None:
    """psycopg's %(name)s, with placeholders=True only, and not with a name sqlglot refuses."""
    text = "SELECT * FROM foo WHERE id = %(id_param)s AND b = %(x_1)s"
    assert_construct("postgres", text, "mysql", placeholders=True)
    assert not sql_accepts(typedgen.Sql("postgres"), text)
    for refused in ("SELECT %(select)s", "SELECT %(NOT)s", "SELECT %(a)sb", "SELECT a %(b)s"):
        assert not sql_accepts(typedgen.Sql("postgres", placeholders=True), refused), refused


@pytest.mark.parametrize(
    "text",
    [
        "SELECT TRIM(BOTH ' XXX ')",  # written TRIM(' XXX '): another tree
        "SELECT $tag$a$tag$",  # tagged bodies
        "SELECT$$a$$",  # one word for sqlglot
        "SELECT a$$b$$",
        "SELECT $$a$$$$b$$",
        "SELECT 0b1011",  # PostgreSQL's tokenizer has no 0b numbers
    ],
)
def test_refused_postgres(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("postgres", **CHECK, placeholders=True), text)


# (0b102 and 0b are no bit numbers: sqlglot reads them as the names `0b102`, `0b`, which the
# checking language now takes too: test_digit_names.)
@pytest.mark.parametrize("text", ["SELECT $$a$$", "SELECT a SOUNDS LIKE b IN (1)"])
def test_refused_mysql(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("mysql", **CHECK), text)


def test_dollar_round_trip_is_the_plain_string() -> None:
    """sqlglot writes $$a$$ as 'a' (RawString read back as a Literal of the same text)."""
    assert round_trips("SELECT $$a 'b' \\c$$", "postgres")[0]

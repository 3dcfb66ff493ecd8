"""Constructs of issue 15's fifth round (spark, postgres, mysql, tsql, oracle), each on where its
probe round-trips (or its dialect class includes it) and off elsewhere.

sqlglot is the oracle: every accepted text parses in the dialect and reads back to the same
tree; each construct is refused in a dialect that does not offer it, and spellings sqlglot
writes back as another tree are refused.
"""

from __future__ import annotations

import pytest

import typedgen

from ._sql import assert_construct, round_trips, sql_accepts

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # Spark.
    ("spark", "SELECT TRANSFORM(a, b) USING 'cat' AS (x INT, y) FROM t", "postgres"),
    ("spark", "SELECT TRANSFORM(a) USING 'cat' FROM t WHERE a > 1", "postgres"),
    ("spark", "SELECT TRANSFORM(ARRAY(1, 2, 3), x -> x + 1)", "tsql"),
    ("spark", "SELECT AGGREGATE(a, 0, (acc, x) -> acc + x), FILTER(a, x -> x > 1)", "tsql"),
    ("spark", "SELECT POSEXPLODE(x) AS (a, b)", "postgres"),
    ("spark", "SELECT CAST('a' AS CHAR(10) COLLATE UTF8_BINARY)", "postgres"),
    ("spark", "SELECT MODE() WITHIN GROUP (ORDER BY status) FROM orders", None),
    ("spark", "SELECT * FROM VALUES (1, 2), (3, 4) AS t(a, b)", "postgres"),
    ("spark", "SELECT * FROM VALUES (1)", "postgres"),
    ("spark", "SELECT * FROM (SELECT * FROM p) PIVOT(SUM(s) FOR q IN ('Q1' AS `'Q1'`))", None),
    ("spark", "SELECT * FROM t PIVOT(SUM(a) AS a, 'dummy' AS b FOR q IN ('x'))", "snowflake"),
    ("spark", "SELECT * FROM db.t1 MINUS SELECT * FROM db.t2", "postgres"),
    ("spark", "SELECT MAKE_INTERVAL(100, 11, 12, 13, 14, 14, 15)", None),
    ("oracle", "SELECT a FROM t MINUS SELECT a FROM u", "sqlite"),
    # MySQL.
    ("mysql", "SELECT * FROM foo WHERE 3 MEMBER OF(JSON_EXTRACT(info, '$.v')) = b", "postgres"),
    ("mysql", "SELECT 'foo' SOUNDS LIKE 'bar', a SOUNDS LIKE b | c AND d", "postgres"),
    ("mysql", "SELECT 1 XOR 0 AND 1 OR 2", "postgres"),
    ("mysql", "SELECT CHAR(65 USING utf8), CHAR(65, 66 USING latin1)", "postgres"),
    ("mysql", "SELECT d + INTERVAL num_days DAY, d - INTERVAL 1 MONTH FROM t", "postgres"),
    ("mysql", "SELECT DATE_ADD(col, INTERVAL num_days DAY), DATE_SUB(a, INTERVAL '1' DAY)", None),
    ("mysql", "SELECT e.* FROM e STRAIGHT_JOIN p ON e.x = p.y", "postgres"),
    ("mysql", "SELECT DISTINCTROW HIGH_PRIORITY SQL_CALC_FOUND_ROWS a FROM t", "postgres"),
    ("mysql", "SELECT a FROM t WHERE a && b || c", "sqlite"),
    # PostgreSQL.
    ("postgres", "SELECT d - INTERVAL '1' HOUR AS one_hour_later", None),
    ("postgres", "SELECT a ?| ARRAY['b'], a ?& b, doc @? '$.a[*] ? (@ > 2)' FROM t", "mysql"),
    ("postgres", "SELECT JSON_EXTRACT_PATH(a, VARIADIC '{}'), MLEAST(VARIADIC ARRAY[1])", "mysql"),
    ("postgres", "SELECT * FROM ROWS FROM (f(a), g(b)) WITH ORDINALITY AS x(a, b)", "mysql"),
    (
        "postgres",
        "WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (SELECT 2) SELECT 1",
        "tsql",
    ),
    ("postgres", "SELECT * FROM ONLY t1 AS x", "mysql"),
    ("postgres", "SELECT * FROM t TABLESAMPLE SYSTEM (50) REPEATABLE (55)", "duckdb"),
    ("postgres", "SELECT (a, b) OVERLAPS (c, d) AND e", "mysql"),
    ("postgres", "SELECT CURRENT_SCHEMA, SUBSTRING('afafa' FOR 1)", "mysql"),
    ("postgres", "SELECT 1 <= ANY(col) AND 2 = ANY(col) FROM t", "mysql"),
    ("postgres", "SELECT * FROM t, LATERAL f(a) WITH ORDINALITY AS e(v, o)", "sqlite"),
    ("postgres", "SELECT * FROM m LEFT JOIN LATERAL f(m.id) p ON TRUE", "mysql"),
    ("postgres", "SELECT U&'d!0061t!+000061' UESCAPE '!' AS label", "mysql"),
    ("postgres", "SELECT (U&'\\FE01' || 'x') AS label, U&'\\' || 'y'", "mysql"),
    ("postgres", "SELECT a AT TIME ZONE 'UTC' AT TIME ZONE b FROM t", "mysql"),
    # T-SQL.
    ("tsql", "SELECT TOP 10 PERCENT WITH TIES a FROM t ORDER BY a", "postgres"),
    ("tsql", "SELECT TOP (2 + 1) 1, (SELECT TOP (SELECT 1) a FROM t) AS b", "postgres"),
    ("tsql", "SELECT x FROM a INNER HASH JOIN b ON b.id = a.id LEFT LOOP JOIN c ON 1 = 1", None),
    ("tsql", "SELECT NEXT VALUE FOR db.schema.seq OVER (ORDER BY foo), col", "postgres"),
    ("tsql", "SELECT IIF(cond <> 0, 'True', 'False')", "postgres"),
    ("tsql", "SELECT DATEPART(YEAR, CAST('2017-01-01' AS DATE)), DATEPART(day, a)", None),
    # Oracle.
    ("oracle", "SELECT * FROM sales UNPIVOT(q FOR p IN (q1 AS 1, q2 AS 'b'))", "postgres"),
    ("oracle", "SELECT SYSTIMESTAMP AT TIME ZONE 'UTC'", "mysql"),
    ("oracle", "SELECT * FROM t SAMPLE (25) s, u SAMPLE (10) SEED (1)", "postgres"),
    ("oracle", "SELECT e1.x FROM e e1, e e2 WHERE e1.y (+) = e2.y AND e1.z = e2.z (+)", "tsql"),
    ("oracle", "SELECT NTH_VALUE(x, 2) FROM LAST OVER (ORDER BY y) AS c FROM t", "postgres"),
    ("oracle", "SELECT CHR(187 USING NCHAR_CS)", "mysql"),
    ("oracle", "SELECT UNIQUE a FROM t WHERE b ^= 1", "postgres"),
    (
        "oracle",
        "SELECT MIN(s) KEEP (DENSE_RANK FIRST ORDER BY c) OVER (PARTITION BY d) FROM t",
        "postgres",
    ),
    ("oracle", "SELECT NTH_VALUE(x, 2) FROM FIRST RESPECT NULLS OVER (ORDER BY y) FROM t", None),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without, functions="any")  # f(x): a user-defined function


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        # sqlglot writes these back as another tree.
        ("spark", "SELECT * FROM ((VALUES 1))"),  # comes back as (VALUES (1))
        ("spark", "SELECT * FROM VALUES 1"),
        ("spark", "SELECT TO_TIMESTAMP('2016-12-31 00:12:00')"),  # comes back as a CAST
        # A lambda only as a last argument, and only of a call.
        ("spark", "SELECT x -> x + 1"),
        ("spark", "SELECT TRANSFORM(x -> x, a)"),
        # Native to Spark only, although sqlglot reads them everywhere.
        ("tsql", "SELECT FILTER(a, x -> x + 1)"),
        ("hive", "SELECT CAST(a AS STRING COLLATE x)"),
        # TRANSFORM ... USING is a select item, not an operand.
        ("spark", "SELECT 1 + TRANSFORM(a) USING 'cat' FROM t"),
        # SOUNDS LIKE comes back as SOUNDEX(a) = SOUNDEX(b): as an operand of = it groups
        # otherwise.
        ("mysql", "SELECT c = a SOUNDS LIKE b"),
        ("mysql", "SELECT @a := 1"),  # a variable is a parameter: placeholders only
        ("postgres", "SELECT f(VARIADIC a, b)"),  # VARIADIC is the last argument
        ("mysql", "SELECT DATE_ADD(a, 1)"),  # only with an interval
        ("redshift", "SELECT U&'\\' || 'x'"),  # Redshift's backslash escapes the quote
        ("postgres", "SELECT SUBSTRING(a FOR 1 FROM 2)"),
        ("oracle", "SELECT a FROM t WHERE a ( +) = b"),  # (+) is one token for sqlglot
        ("oracle", "SELECT NTH_VALUE(x, 2) FROM FIRST FROM t"),  # a window function only
    ],
)
def test_refused(dialect: str, text: str) -> None:
    placeholders = not text.startswith("SELECT @")
    assert not sql_accepts(typedgen.Sql(dialect, placeholders=placeholders), text)


def test_variable_assignment_with_placeholders() -> None:
    """MySQL's ``SELECT @a := COUNT(*)``: user variables are parameters, so only with them."""
    text = "SELECT @var1 := COUNT(*), @var2 FROM t1"
    assert sql_accepts(typedgen.Sql("mysql", placeholders=True), text)
    assert round_trips(text, "mysql")[0]
    assert not sql_accepts(typedgen.Sql("postgres", placeholders=True), text)


def test_table_variable_with_placeholders() -> None:
    """T-SQL's ``FROM @v``: a table variable is a parameter, so only with placeholders."""
    text = "SELECT Employee_ID FROM @MyTableVar AS v"
    assert sql_accepts(typedgen.Sql("tsql", placeholders=True), text)
    assert round_trips(text, "tsql")[0]
    assert not sql_accepts(typedgen.Sql("tsql"), text)


def test_a_raw_string_is_the_plain_string_of_its_text() -> None:
    # sqlglot writes Spark's r'...' as '...' with its backslashes escaped: the same string
    # (trees.same_tree reads a raw string as the plain string of its text, as for $$...$$).
    assert_construct("spark", "SELECT REGEXP_REPLACE('100-200', r'([^0-9])', '')", None)


@pytest.mark.parametrize("dialect", ["generic", "tsql"])
def test_a_table_hint_is_a_bare_word(dialect: str) -> None:
    # sqlglot writes a quoted hint unquoted: WITH ("< b") comes back as WITH (< b), which does
    # not parse (a random walk found it).
    assert not sql_accepts(typedgen.Sql(dialect), 'SELECT * FROM a WITH ("< b")')
    assert_construct(dialect, "SELECT * FROM a WITH (NOLOCK)", None)

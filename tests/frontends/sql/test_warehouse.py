"""One warehouse's constructs (typedgen/frontends/sql/warehouse.py), each on where its probe
round-trips and the dialect class includes it, and off elsewhere.

sqlglot is the oracle: every accepted text parses in the dialect and its output parses back to
the same tree; each refused spelling below is one sqlglot reads as another tree (or not at all).
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.frontends.sql import dialect_class
from typedgen.frontends.sql.tables import dialect_tables

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # ClickHouse: parametric aggregates, from sqlglot's AGG_FUNC_MAPPING, in the spelling
    # sqlglot reads as one (and quantile/groupConcat, which it models).
    ("clickhouse", "SELECT quantiles(0.5, 0.9)(a), quantileIf(0.5)(a, a > 1) FROM t", "duckdb"),
    ("clickhouse", "SELECT quantile(0.5)(a) OVER (PARTITION BY b) FROM t", "postgres"),
    ("clickhouse", "SELECT groupConcat(', ', 2)(x), quantiles FROM t", "postgres"),
    ("clickhouse", "SELECT * FROM a GLOBAL ANY JOIN b GLOBAL LEFT JOIN c ON a.x = c.x", "postgres"),
    ("clickhouse", "SELECT * FROM a ANY LEFT JOIN b ON a.x = b.x ASOF JOIN c USING x, y", None),
    ("clickhouse", "SELECT a FROM t WHERE x GLOBAL IN (SELECT 1) OR y GLOBAL NOT IN (1)", None),
    ("clickhouse", "SELECT * FROM t AS y FINAL SAMPLE 1 / 10 OFFSET 1 / 2 PREWHERE a = 1", None),
    ("clickhouse", "SELECT * APPLY(sum) APPLY(toString) FROM t", "snowflake"),
    (
        "clickhouse",
        "SELECT a FROM t ORDER BY a DESC WITH FILL FROM 1 TO 10 STEP 2 INTERPOLATE (b AS b + 1)",
        "sqlite",
    ),
    ("clickhouse", "SELECT a FROM s.v(x = 1, y = 'z') AS w FINAL", "sqlite"),
    ("clickhouse", "WITH 1 AS x, (SELECT 2) AS y, z AS (SELECT 3) SELECT x", "postgres"),
    ("clickhouse", "SELECT * FROM VALUES ((1, 'a'), (2, 'b'))", "duckdb"),
    ("clickhouse", "SELECT INTERVAL t.days DAY, INTERVAL (x + 1) HOUR, INTERVAL 1 DAY", "sqlite"),
    ("clickhouse", "SELECT a FROM t WHERE x IN ['a', 'b'] AND POSITION(a IN b) > 0", None),
    ("clickhouse", "SELECT {'a': 1, 'b': x} FROM t", "postgres"),
    (
        "clickhouse",
        "SELECT CAST(a AS Nullable(DateTime)), CAST(b AS Tuple(String, Array(Nullable(Int32))))",
        "sqlite",
    ),
    ("clickhouse", "SELECT CAST(a AS Map(String, LowCardinality(String)))", "sqlite"),
    ("snowflake", "SELECT CAST(a AS MAP(VARCHAR, INT)), b::MAP(INT, ARRAY(VARCHAR))", "sqlite"),
    ("duckdb", "SELECT CAST({'a': 1} AS MAP(TEXT, DECIMAL(38, 0)))", "sqlite"),
    # Typed literals (sqlglot writes them as CASTs: the same tree).
    (
        "bigquery",
        "SELECT DATETIME '2017-10-15 00:00:00', JSON '\"foo\"', NUMERIC '2.25', TIME '23:59'",
        "sqlite",
    ),
    ("trino", "SELECT TIMESTAMP '2012-10-31 01:00 -2', TIME '01:02:03.456 -08:00'", None),
    ("snowflake", "SELECT TIME_SLICE(TIMESTAMP_NTZ '2024-03-15 14:37:42', 1, 'HOUR')", "mysql"),
    # BigQuery.
    ("bigquery", "SELECT ARRAY(SELECT DISTINCT AS STRUCT 1 AS a, b FROM t)", "duckdb"),
    ("bigquery", "SELECT AS VALUE STRUCT(1 AS a, 2 AS b)", "snowflake"),
    ("bigquery", "SELECT * FROM a WHERE b NOT IN UNNEST([1, 2]) OR c IN UNNEST(d)", "snowflake"),
    (
        "bigquery",
        "SELECT ANY_VALUE(a HAVING MAX b), ARRAY_AGG(DISTINCT x IGNORE NULLS ORDER BY x LIMIT"
        " 10), COUNT(x RESPECT NULLS), ARRAY_CONCAT_AGG(c LIMIT 2) FROM t",
        "postgres",
    ),
    ("snowflake", "SELECT ARRAY_AGG(a ORDER BY b LIMIT 10), ANY_VALUE(a HAVING MIN b)", "postgres"),
    # DuckDB.
    ("duckdb", 'SELECT foo: 1, "bar": a + 2 FROM t', "postgres"),
    ("duckdb", "SELECT MAP {'x': 1, 'y': a}, MAP {}, [], [[]] FROM t", "postgres"),
    ("duckdb", "SELECT * FROM t LIMIT 10% OFFSET 1", "postgres"),
    ("duckdb", "SELECT * FROM t LIMIT 2.5 PERCENT", "postgres"),
    ("duckdb", "SELECT LIST_TRANSFORM(a, LAMBDA x, y : x + y), INTERVAL (d) DAY", "postgres"),
    ("duckdb", "SELECT CAST(x AS DATE) + INTERVAL 1 DAY, ARRAY[1, 2]", "sqlite"),
    ("duckdb", "SELECT 1 AS x UNION ALL BY NAME SELECT 2 UNION BY NAME ON (x) SELECT 3", "sqlite"),
    (
        "bigquery",
        "SELECT 1 AS x FULL OUTER UNION ALL BY NAME SELECT 2 AS x UNION DISTINCT STRICT"
        " CORRESPONDING BY (x) SELECT 3 AS x",
        "duckdb",
    ),
    ("bigquery", "SELECT 1 AS x INNER UNION ALL SELECT 2 AS x", "duckdb"),
    # Snowflake.
    ("snowflake", "SELECT * FROM x ASOF JOIN y MATCH_CONDITION (x.a > y.a) ON x.i = y.i", "duckdb"),
    ("snowflake", "SELECT * FROM a INNER DIRECTED JOIN b USING (i) CROSS DIRECTED JOIN c", None),
    (
        "snowflake",
        'SELECT * FROM @"my_DB"."schEMA1".mystage/file.gz, @~/a/b.csv, @ns.%t/p (FILE_FORMAT =>'
        " ds.test.fmt, PATTERN => 'x') AS t(c1)",
        "postgres",
    ),
    ("snowflake", "SELECT * FROM '@external/location' (FILE_FORMAT => 'path.to.csv')", "mysql"),
    (
        "snowflake",
        "SELECT * FROM t PIVOT(SUM(a) FOR b IN (SELECT DISTINCT q FROM u ORDER BY q)),"
        " s PIVOT(MAX(c) FOR d IN (ANY ORDER BY d)) AS p",
        "postgres",
    ),
    ("snowflake", "SELECT {*}, {t.*}, {* EXCLUDE (a, b)} FROM t", "duckdb"),
    ("snowflake", "SELECT * EXCLUDE a, b FROM t", "duckdb"),
    ("snowflake", "SELECT * EXCLUDE (a) RENAME (b AS c, d AS e) FROM t", "duckdb"),
    (
        "snowflake",
        "SELECT * FROM t AS x TABLESAMPLE BERNOULLI (5) SEED (1) JOIN u AS y SAMPLE (10 ROWS)"
        " ON x.a = y.a, (SELECT 1) SAMPLE BLOCK (0.5) REPEATABLE (2)",
        "postgres",
    ),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, None)  # generation
    assert_construct(dialect, text, without, **CHECKING)  # and checking, off in `without`


PLACEHOLDERS = [
    ("clickhouse", "SELECT a FROM t WHERE x = {p: String} AND y = {q: Array(UInt8)}"),
    ("snowflake", "SELECT * FROM t AT (STATEMENT => $query_id) WHERE a = $x OR b = :1"),
    ("duckdb", "SELECT * FROM foo WHERE bar > $baz AND bla = $bob"),
]


@pytest.mark.parametrize(("dialect", "text"), PLACEHOLDERS)
def test_query_parameters_only_when_asked(dialect: str, text: str) -> None:
    assert sql_accepts(typedgen.Sql(dialect, placeholders=True), text), text
    ok, detail = round_trips(text, typedgen.Sql(dialect).dialect)
    assert ok, detail
    assert not sql_accepts(typedgen.Sql(dialect), text), text


REFUSED = [
    # A parametric aggregate in another case, or a function sqlglot models that takes no
    # parameters: sqlglot reads "(a)" as an alias list (QUANTILES(0.5) AS (a)).
    ("clickhouse", "SELECT Quantiles(0.5)(a) FROM t"),
    ("clickhouse", "SELECT sum(a)(b) FROM t"),
    # ALL INNER JOIN comes back as INNER ALL JOIN, which sqlglot reads as another join.
    ("clickhouse", "SELECT * FROM a ALL INNER JOIN b ON a.x = b.x"),
    # An outer join of ClickHouse's takes a condition, as the grammar's other outer joins.
    ("clickhouse", "SELECT * FROM a LEFT ANY JOIN b"),
    # DECIMAL(INT) is a DECIMAL with a parameter named INT for sqlglot, not a type of types.
    ("snowflake", "SELECT CAST(a AS DECIMAL(INT))"),
    # DuckDB writes these as ARG_MIN_NULL(a, b) and {'a': 1}: another tree.
    ("duckdb", "SELECT ANY_VALUE(a HAVING MIN b) FROM t"),
    ("duckdb", "SELECT AS STRUCT 1 AS a"),
    # DuckDB's writer parenthesises a shift under a binary operator: another tree.
    ("duckdb", "SELECT a = b >> c"),
    ("duckdb", "SELECT [a NOT SIMILAR TO b >> c GLOB d]"),
    # A lambda is only a call's argument for sqlglot; $1a is one word.
    ("duckdb", "SELECT LAMBDA x : x + 1"),
    ("duckdb", "SELECT $1a"),
    # DuckDB reads (SELECT ...) FULL UNION as a subquery aliased FULL: another tree.
    ("duckdb", "(SELECT 1 AS foo) FULL UNION ALL BY NAME (SELECT 2 AS foo)"),
    # Snowflake writes COUNT(a RESPECT NULLS) as COUNT(a) RESPECT NULLS: offered there only.
    ("snowflake", "SELECT COUNT(a RESPECT NULLS) FROM t"),
]


@pytest.mark.parametrize(("dialect", "text"), REFUSED)
def test_refused(dialect: str, text: str) -> None:
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text), (dialect, text)


def test_parametric_aggregates_are_sqlglots() -> None:
    """Every parametric name offered is one sqlglot reads as a parametric aggregate (the
    oracle), in its own spelling only."""
    from sqlglot import exp

    names = dialect_tables("clickhouse").warehouse.parametric
    assert len(names) > 1000 and "quantiles" in names and "quantile" not in names
    for name in names[::97]:
        tree = sqlglot.parse_one(f"SELECT {name}(0.5)(a)", read="clickhouse")
        node = tree.expressions[0]
        assert isinstance(node, (exp.ParameterizedAgg, exp.CombinedParameterizedAgg)), name


def test_type_constructors_are_read_from_probes() -> None:
    warehouse = dialect_tables("clickhouse").warehouse
    made = set(warehouse.type_constructors)
    assert {"NULLABLE", "TUPLE", "MAP", "ARRAY", "LOWCARDINALITY"} <= made
    assert warehouse.type_constructors["NULLABLE"] == (1,)
    assert "STRUCT" not in warehouse.type_constructors  # written as Tuple: not ClickHouse's name
    # sqlglot's base parser reads MAP(INT, INT) in SQLite too: dialect-specific.
    assert "type_constructors" not in dialect_class("sqlite").tables().features


def test_star_apply_takes_bare_names() -> None:
    """ClickHouse's ``* APPLY(f)`` names a function by a bare word: sqlglot writes a quoted
    name unquoted (``APPLY("{ a")`` as ``APPLY({ a)``, which fails; a random walk found it)."""
    refused = 'SELECT * APPLY("{ a") FROM t'
    with pytest.raises(sqlglot.errors.ParseError):
        sqlglot.parse_one(
            sqlglot.parse_one(refused, read="clickhouse").sql("clickhouse"), read="clickhouse"
        )
    accepted = "SELECT * APPLY(sum) APPLY(toString) FROM t"
    for options in ({}, {"comments": True, "whitespace": "check", "functions": "any"}):
        sql = typedgen.Sql("clickhouse", **options)  # type: ignore[arg-type]
        assert not sql_accepts(sql, refused)
        assert not sql_accepts(sql, 'SELECT * APPLY("sum") FROM t')
        assert sql_accepts(sql, accepted)
    assert round_trips(accepted, "clickhouse")[0]

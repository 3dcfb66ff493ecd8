"""DuckDB's own syntax (typedgen/frontends/sql/duckdb.py), each construct on where its probe
(duckdb_probes.py) reads back to the same tree and the dialect class includes it.

sqlglot is the oracle: every accepted text parses in DuckDB and its output parses back to the
same tree; each refused spelling below is one sqlglot reads as another tree (or not at all).
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.frontends.sql import dialect_class
from typedgen.frontends.sql.tables import dialect_tables

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (text DuckDB accepts, a dialect that refuses it, or None)
CONSTRUCTS = [
    # FROM-first queries, alone, with SELECT after, nested, in set operations and CTEs.
    ("FROM t AS x SELECT DISTINCT a WHERE b GROUP BY a HAVING COUNT(*) > 1", "postgres"),
    ("FROM (FROM t) WHERE b UNION ALL FROM u ORDER BY 1 LIMIT 2", "postgres"),
    ("WITH t1 AS (FROM (FROM t2 SELECT foo1, foo2)) FROM t1", "snowflake"),
    ("SELECT * FROM t1 WHERE NOT EXISTS(FROM t2 WHERE t2.id = t1.id)", "postgres"),
    ("(FROM (SELECT 1) t1(c) EXCEPT FROM (SELECT 2) t2(c)) UNION ALL (FROM t3)", "postgres"),
    # Columns by position; slices with a step; list comprehensions; ROW(...).
    ("SELECT #2, #1 + 1 FROM (VALUES (1, 'foo'))", "postgres"),
    ("SELECT ([1, 2, 3])[:-:-1], a[1:2:x], a[x:-:2]", "postgres"),
    ("SELECT [x + 1 FOR x IN l], [x FOR x, i IN l IF i > 1 AND x < 3]", "postgres"),
    ("SELECT ROW(x, x + 1, y), ROW() FROM t", "tsql"),
    # Star expressions.
    ("SELECT MIN(COLUMNS(* REPLACE (n + 1 AS n))), COLUMNS(*) + COLUMNS(*) FROM t", "postgres"),
    ("SELECT *COLUMNS('m.*') + 1, COALESCE(*COLUMNS(['a', 'b'])), [*COLUMNS(*)] FROM t", None),
    ("SELECT COUNT(t.*) FILTER (WHERE b > 0), f(t.*), SUM(DISTINCT t.*) FROM t", "tsql"),
    # Tables: a file name, a prefix alias, GLOB(...), rows without an alias, (DESCRIBE t).
    ("SELECT * FROM 'x.csv' AS t, r: range(10), v: (VALUES (42)), s: (FROM u)", "postgres"),
    ("SELECT * FROM foo /* bla */: /* baz */ bar /* boo */", "postgres"),
    ("SELECT file[:256] FROM GLOB('*') AS g(file), (DESCRIBE u) AS d", "sqlite"),
    ("SELECT df1.*, df2.* FROM df1 POSITIONAL JOIN df2 ASOF LEFT JOIN c ON df1.t >= c.t", None),
    ("SELECT * FROM a TABLESAMPLE RESERVOIR (20%), b AS x TABLESAMPLE (1 ROWS)", "postgres"),
    ("SELECT * FROM (SELECT 1) AS s TABLESAMPLE SYSTEM (10 PERCENT) REPEATABLE (1)", "postgres"),
    # The PIVOT statement as a table; PIVOT(...) with a comma before FOR, GROUP BY, enums.
    ("SELECT * FROM (PIVOT c ON y IN ('a'), z USING SUM(q) AS s GROUP BY x) AS p", "snowflake"),
    ("WITH 'x' AS (SELECT 1), p AS (PIVOT c ON y) SELECT * FROM p, x", "postgres"),
    ("SELECT * FROM t PIVOT(SUM(a) AS s, FOR b IN c GROUP BY d)", "snowflake"),
    ("WITH RECURSIVE t(a) USING KEY (a) AS (SELECT 1) SELECT * FROM t", "postgres"),
    # Expressions.
    ("SELECT @a + 1, @(-1), 20_000 AS n, INTERVAL '1 quarter', a AT TIME ZONE 'UTC'", "sqlite"),
    (
        "SELECT SUM(x) FILTER (x = 1) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND"
        " CURRENT ROW) FROM t",
        "mysql",
    ),
    ("SELECT BIT_OR(a), BIT_AND(t.b) FILTER (WHERE c), BIT_XOR(1) OVER () FROM t", None),
]


@pytest.mark.parametrize(("text", "without"), CONSTRUCTS)
def test_duckdb_construct(text: str, without: str | None) -> None:
    assert_construct("duckdb", text, without, **CHECKING)


# (a spelling DuckDB accepts, a close one it refuses: sqlglot reads it as another tree)
REFUSED = [
    # A FROM-first table with joins: sqlglot keeps the joins inside the table (another tree
    # than the same query SELECT-first).
    ("FROM a SELECT *", "FROM a, b SELECT *"),
    ("FROM (a JOIN b ON a.x = b.x)", "FROM a JOIN b ON a.x = b.x"),
    # a[1::2] lexes as a cast; a[:b] reads :b as a parameter; *COLUMNS(...) takes no postfix.
    ("SELECT a[1:2:2]", "SELECT a[1::2]"),
    ("SELECT a[:-:1]", "SELECT a[:b:1]"),
    ("SELECT a[:2], a[:-1], a[:(b)], a[b:], a[:]", "SELECT a[:b]"),
    ("SELECT *COLUMNS(x)", "SELECT *COLUMNS(x)::INT"),
    # BIT_OR('a') comes back as BIT_OR(CAST('a' AS INT)); SYSTEM with ROWS as RESERVOIR.
    ("SELECT BIT_OR(a)", "SELECT BIT_OR('a')"),
    ("SELECT * FROM t TABLESAMPLE (1 ROWS)", "SELECT * FROM t TABLESAMPLE SYSTEM (1 ROWS)"),
    # DuckDB writes an inner join without a condition as a comma join: another tree.
    ("SELECT * FROM a INNER JOIN b ON a.x = b.x", "SELECT * FROM a INNER JOIN b"),
    # A table after a prefix alias takes no alias of its own.
    ("SELECT * FROM x: t", "SELECT * FROM x: t AS y"),
]


@pytest.mark.parametrize(("accepted", "refused"), REFUSED)
def test_duckdb_refuses(accepted: str, refused: str) -> None:
    sql = typedgen.Sql("duckdb", **CHECKING)
    assert sql_accepts(sql, accepted)
    assert not sql_accepts(sql, refused)


def test_duckdb_features_are_dialect_specific() -> None:
    """sqlglot's base parser reads FROM-first queries everywhere: on in DuckDB only."""
    assert "from_first" in dialect_tables("").features
    assert "from_first" not in dialect_class("postgres").tables().features
    assert "from_first" in dialect_class("duckdb").tables().features
    assert dialect_tables("duckdb").warehouse.column_aggregates


@pytest.mark.parametrize("dialect", ["duckdb", "clickhouse"])
def test_grouped_digits_where_the_tokenizer_groups(dialect: str) -> None:
    """``1_000`` is the number 1000 where sqlglot's tokenizer groups digits (DuckDB,
    ClickHouse: ``NUMBERS_CAN_BE_UNDERSCORE_SEPARATED``); a group glued to more (``1_000e5``,
    ``1_000.5``, more groups than the terminal takes) is refused, not cut; elsewhere ``1_000``
    is ``1 AS _000`` (SQLite) or a name (Hive) and no number of the grammar."""
    for text in ("SELECT 1_2_3_4_5", "SELECT 20_000 + 1 AS n"):
        assert sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
        value = sqlglot.parse_one(text, read=dialect)
        assert value.find(sqlglot.exp.Literal) is not None and round_trips(text, dialect)[0]
        assert not value.find(sqlglot.exp.Column), text
    for text in ("SELECT 1_000e5", "SELECT 1_000.5", "SELECT 1_2_3_4_5_6"):
        assert not sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
    for other in ("sqlite", "hive"):
        assert not sql_accepts(typedgen.Sql(other), "SELECT 1_000 + 1"), other


def test_positional_join_only_where_sqlglot_reads_one() -> None:
    """``POSITIONAL JOIN`` is on where sqlglot reads a positional join (a ``Join`` whose
    method is ``POSITIONAL``), not where its probe merely reads back: the base parser reads
    ``FROM a POSITIONAL JOIN b`` as the alias ``POSITIONAL`` and a comma join, and fails on
    ``FROM t AS x POSITIONAL JOIN u``, which the generic grammar accepted."""
    text = "SELECT a FROM t AS x POSITIONAL JOIN u"
    join = sqlglot.parse_one(text, read="duckdb").find(sqlglot.exp.Join)
    assert join is not None and join.method == "POSITIONAL"
    assert sql_accepts(typedgen.Sql("duckdb"), text) and round_trips(text, "duckdb")[0]
    assert sql_accepts(typedgen.Sql("duckdb"), "SELECT a FROM t POSITIONAL JOIN u")
    with pytest.raises(sqlglot.errors.ParseError):
        sqlglot.parse_one(text, read="")
    misread = sqlglot.parse_one("SELECT a FROM t POSITIONAL JOIN u", read="")
    assert misread.find(sqlglot.exp.Join).method == ""  # a plain join after the alias
    assert "positional_join" not in dialect_class("generic").tables().features
    for generic in (typedgen.Sql("generic"), typedgen.Sql("generic", **CHECKING)):
        assert not sql_accepts(generic, text)
        # The nearest good text: POSITIONAL as a table alias before a plain join.
        assert sql_accepts(generic, "SELECT a FROM t positional JOIN u ON a = b")

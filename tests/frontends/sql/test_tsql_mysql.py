"""Round 7's T-SQL and MySQL constructs (:mod:`typedgen.frontends.sql.tsql_mysql`): each
accepted where its probe round-trips in the dialect, refused elsewhere or beside a spelling
that sqlglot reads as another tree. sqlglot is the oracle: every accepted text parses in the
dialect and its output parses back to the same tree (``trees.same_tree``).
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.frontends.sql.tables import dialect_tables
from typedgen.frontends.sql.trees import same_tree
from typedgen.frontends.sql.tsql_mysql_probes import JSON_COLUMN_PROBE

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # T-SQL: a derived table's or CTE's column named by itself (written c AS c).
    ("tsql", 'SELECT * FROM (SELECT "c") AS subq', None),
    ("tsql", 'WITH t AS (SELECT "c", d, e AS f FROM u) SELECT * FROM t', None),
    ("tsql", "SELECT * FROM (SELECT DISTINCT TOP 2 a, [b] FROM t WHERE a > 1) AS s", None),
    # MySQL: an interval's amount as a term (written in parentheses).
    ("mysql", "SELECT DATE_ADD(d, INTERVAL 2 * 2 MONTH) FROM t", "postgres"),
    ("mysql", "SELECT DATE_SUB(d, INTERVAL DAYOFMONTH(d) - 1 DAY) FROM t", "postgres"),
    ("mysql", "SELECT d + INTERVAL (a - 1) DAY, d - INTERVAL a % 7 + 1 HOUR FROM t", "postgres"),
    # GROUP_CONCAT (its default SEPARATOR ',' written out), CHARSET, CONVERT ... USING.
    ("mysql", "SELECT GROUP_CONCAT(a) FROM t GROUP BY b", None),
    ("mysql", "SELECT GROUP_CONCAT(DISTINCT a ORDER BY b DESC, c SEPARATOR '; ') FROM t", "sqlite"),
    ("mysql", "SELECT CHARSET(CHAR(100 USING utf8)), CHARSET(a) FROM t", "postgres"),
    ("mysql", "SELECT CONVERT(a USING utf8mb4), CONVERT(b USING `my charset`) FROM t", "tsql"),
    ("mysql", "SELECT CONVERT(a USING binary) FROM t", "tsql"),
    # JSON_TABLE with MySQL's columns (the alias required).
    (
        "mysql",
        "SELECT * FROM t, JSON_TABLE(t.a, '$[*]' COLUMNS(i FOR ORDINALITY, c CHAR(10) PATH '$.c',"
        " NESTED PATH '$.d' COLUMNS(e JSON PATH '$.e'))) AS j",
        "postgres",
    ),
    # JSON_TABLE's columns take MySQL's column types, not CAST's few (VARCHAR(255), INT).
    (
        "mysql",
        "SELECT * FROM source, JSON_TABLE(source.links, '$.org[*]' COLUMNS(row_id FOR ORDINALITY,"
        " link VARCHAR(255) PATH '$.link')) AS links",
        "postgres",
    ),
    (
        "mysql",
        "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c DECIMAL(10, 2) PATH '$.c', d INT PATH '$.d',"
        " e TEXT PATH '$.e', f DOUBLE PRECISION PATH '$.f', g INTEGER PATH '$.g')) AS j",
        "postgres",
    ),
]

# Spellings sqlglot reads as another tree: refused.
REFUSED = [
    # A value other than a bare column is named after its text (1 AS [1]): another tree, and
    # no T-SQL (a derived table's column needs a name).
    ("tsql", "SELECT * FROM (SELECT 1) AS subq"),
    ("tsql", "WITH t AS (SELECT 1) SELECT * FROM t"),
    ("tsql", "WITH t AS (SELECT a + 1 FROM u) SELECT * FROM t"),
    # A qualified column comes back t.c AS c (another tree).
    ("tsql", "SELECT * FROM (SELECT t.c FROM t) AS s"),
    ("tsql", "WITH q AS (SELECT t.c FROM t) SELECT * FROM q"),
    # MySQL: after a string sqlglot reads the unit at once; a term in LIMIT is folded.
    ("mysql", "SELECT d + INTERVAL '1' + 1 DAY FROM t"),
    ("mysql", "SELECT * FROM test LIMIT 0 + 1, 0 + 1"),
    # Not MySQL's functions (sqlglot's names, written DAYOFMONTH..., CAST, DATEDIFF).
    ("mysql", "SELECT DAY_OF_MONTH('2023-01-01')"),
    ("mysql", "SELECT TIME_STR_TO_TIME('2023-01-01 13:14:15')"),
    ("mysql", "SELECT TO_DAYS(x)"),
    # A reserved word for sqlglot's writer: written `row` (a quoted name, another tree).
    ("mysql", "SELECT 1 AS row"),
    # JSON_TABLE: NESTED without PATH, EXISTS PATH (sqlglot refuses or drops them).
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(NESTED '$.d' COLUMNS(e JSON PATH '$'))) j"),
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(b JSON EXISTS PATH '$.b')) AS j"),
    # JSON_TABLE: a column type sqlglot writes as another (VARCHAR as TEXT, NVARCHAR(9) as
    # VARCHAR(9), TIMESTAMP_NTZ as DATETIME) or does not read (a character set, ON EMPTY).
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c VARCHAR PATH '$.c')) AS j"),
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c NVARCHAR(10) PATH '$.c')) AS j"),
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c TIMESTAMP_NTZ PATH '$.c')) AS j"),
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c CHAR(9) CHARACTER SET utf8 PATH '$')) j"),
    ("mysql", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c INT PATH '$' DEFAULT '1' ON EMPTY)) j"),
    # CAST takes only MySQL's cast types: VARCHAR(9) is written CHAR(9), another tree.
    ("mysql", "SELECT CAST(a AS VARCHAR(10))"),
]

# Near misses that sqlglot reads back as the same tree but MySQL does not take: refused.
NOT_MYSQL = [
    "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(b JSON PATH '$.b'))",  # no alias
    "SELECT GROUP_CONCAT(a SEPARATOR b) FROM t",  # the separator is a string
    "SELECT CONVERT(a USING 'utf8') FROM t",  # a charset is a name
    "SELECT STRING_AGG(a) FROM t",  # read as GROUP_CONCAT(a); MySQL has no STRING_AGG
    "SELECT CHARSET(a, b) FROM t",  # one argument
    "SELECT d + INTERVAL 1 | 2 DAY FROM t",  # read as INTERVAL '1' | 2 AS DAY
    "SELECT d + INTERVAL 1 + 2 FROM t",  # no unit
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without, **CHECKING)
    assert parses_to_value(dialect, text)


def parses_to_value(dialect: str, text: str) -> bool:
    """The grammar's parse of ``text`` is sqlglot's tree of it."""
    value = typedgen.Sql(dialect, **CHECKING).parse(text)
    return bool(value == sqlglot.parse_one(text, read=dialect))


@pytest.mark.parametrize(("dialect", "text"), REFUSED)
def test_refused(dialect: str, text: str) -> None:
    assert not round_trips(text, dialect)[0]
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text)


@pytest.mark.parametrize("text", NOT_MYSQL)
def test_not_mysql(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("mysql", **CHECKING), text)


def test_json_column_types_probed() -> None:
    """The column types are probed apart from CAST's: VARCHAR is one (with a length only), a
    type sqlglot writes as another is none, and each listed one round-trips in a column."""
    tables = dialect_tables("mysql")
    types = tables.json_column_types
    assert types["VARCHAR"] == (1, 2) and "VARCHAR" not in tables.types
    assert 0 in types["INT"] and 2 in types["DECIMAL"]
    assert "NVARCHAR" not in types and "TIMESTAMP_NTZ" not in types
    for word, params in types.items():
        suffix = ("", "(10)", "(10, 2)")[params[0]]
        assert round_trips(JSON_COLUMN_PROBE.format(type=word + suffix), "mysql")[0], word
    assert not dialect_tables("tsql").json_column_types  # (no MySQL JSON_TABLE there)


def test_same_tree_mysql_spellings() -> None:
    """An interval's parenthesised amount, GROUP_CONCAT's default separator (MySQL only) and
    a quoted charset are spellings; another amount, separator or charset is another tree."""

    def tree(text: str, dialect: str = "mysql") -> sqlglot.exp.Expr:
        return sqlglot.parse_one(text, read=dialect)

    assert same_tree(
        tree("SELECT DATE_ADD(d, INTERVAL (2 * 2) DAY)"),
        tree("SELECT DATE_ADD(d, INTERVAL 2 * 2 DAY)"),
    )
    assert same_tree(tree("SELECT d + INTERVAL (a - 1) DAY"), tree("SELECT d + INTERVAL a - 1 DAY"))
    assert not same_tree(
        tree("SELECT d + INTERVAL (a - 2) DAY"), tree("SELECT d + INTERVAL a - 1 DAY")
    )
    assert not same_tree(tree("SELECT d + (a - 1)"), tree("SELECT d + a - 1"))
    separator = tree("SELECT GROUP_CONCAT(a SEPARATOR ',')")
    assert same_tree(separator, tree("SELECT GROUP_CONCAT(a)"), "mysql")
    assert not same_tree(separator, tree("SELECT GROUP_CONCAT(a)"), "doris")
    assert not same_tree(
        tree("SELECT GROUP_CONCAT(a SEPARATOR '-')"), tree("SELECT GROUP_CONCAT(a)"), "mysql"
    )
    charset = tree("SELECT CAST(a AS CHAR CHARACTER SET `x y`)")
    assert same_tree(charset, tree("SELECT CONVERT(a USING `x y`)"))
    assert not same_tree(charset, tree("SELECT CONVERT(a USING `x z`)"))


def test_same_tree_self_named_column() -> None:
    """``c AS c`` is ``c`` (quoted alike); another name, quoting or a qualified column is
    another tree."""

    def tree(text: str) -> sqlglot.exp.Expr:
        return sqlglot.parse_one(text, read="tsql")

    assert same_tree(tree("SELECT c AS c FROM t"), tree("SELECT c FROM t"))
    assert same_tree(tree("SELECT [c] AS [c] FROM t"), tree('SELECT "c" FROM t'))
    assert not same_tree(tree("SELECT c AS d FROM t"), tree("SELECT c FROM t"))
    assert not same_tree(tree("SELECT c AS [c] FROM t"), tree("SELECT c FROM t"))
    assert not same_tree(tree("SELECT t.c AS c FROM t"), tree("SELECT t.c FROM t"))
    assert not same_tree(tree("SELECT 1 AS [1]"), tree("SELECT 1"))

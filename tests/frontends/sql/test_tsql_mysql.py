"""Round 7's T-SQL and MySQL constructs (:mod:`typedgen.frontends.sql.tsql_mysql`): each
accepted where its probe round-trips in the dialect, refused elsewhere or beside a spelling
that sqlglot reads as another tree. sqlglot is the oracle: every accepted text parses in the
dialect and its output parses back to the same tree (``trees.same_tree``).
"""

from __future__ import annotations

import pytest
import sqlglot

import typedgen
from typedgen.frontends.sql.trees import same_tree

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # T-SQL: a derived table's or CTE's column named by itself (written c AS c).
    ("tsql", 'SELECT * FROM (SELECT "c") AS subq', None),
    ("tsql", 'WITH t AS (SELECT "c", d, e AS f FROM u) SELECT * FROM t', None),
    ("tsql", "SELECT * FROM (SELECT DISTINCT TOP 2 a, [b] FROM t WHERE a > 1) AS s", None),
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

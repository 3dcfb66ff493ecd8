"""Schemas from DDL text: whatever sqlglot cannot read is a GrammarError naming the DDL."""

from __future__ import annotations

import sqlite3

import pytest

import typedgen
from typedgen.errors import GrammarError
from typedgen.frontends.sql import SqlSchema, schema_from

from ._sql import sql_accepts


@pytest.mark.parametrize(
    "ddl",
    [
        '"',  # found by the SQL fuzzer: sqlglot's TokenError escaped (not a ParseError)
        "CREATE TABLE t (a TEXT DEFAULT 'open",
        "CREATE TABLE `x1` (a REAL GENERATED ALWAYS AS (1) STORED",
        "CREATE TABLE [t (a INT)",
    ],
)
def test_unreadable_ddl_is_a_grammar_error(ddl: str) -> None:
    with pytest.raises(GrammarError) as info:
        typedgen.Sql("sqlite", schema=ddl)
    err = info.value
    assert err.code == "sql-schema"
    assert err.origin is not None and err.hint


def test_ddl_without_tables_is_refused() -> None:
    with pytest.raises(GrammarError, match="no CREATE TABLE"):
        typedgen.Sql("postgres", schema="SELECT 1; DROP TABLE t")


def test_a_column_without_a_type_is_a_column() -> None:
    # SQLite allows `CREATE TABLE t (a, b INT)`; sqlglot reads `a` as a bare identifier, which
    # the schema reader dropped, so `SELECT a FROM t` was refused by the schema-aware grammar.
    sql = typedgen.Sql("sqlite", schema="CREATE TABLE t (a, b INT)")
    assert sql.schema is not None
    assert sql.schema.tables == {"t": {"a": "", "b": "INTEGER"}}
    assert sql_accepts(sql, "SELECT a, b FROM t")


@pytest.mark.parametrize(
    "ddl", ["CREATE TABLE t (PRIMARY KEY (a))", 'CREATE TABLE "order"."x" (PRIMARY KEY (a))']
)
def test_a_table_without_columns_is_refused_by_name(ddl: str) -> None:
    # Found by the SQL fuzzer: such a table gave the IR error "rule 'column_ref' matches no
    # string" instead of naming the table.
    with pytest.raises(GrammarError, match="has no columns") as info:
        typedgen.Sql("hive", schema=ddl)
    assert info.value.code == "sql-schema"


def test_a_schema_table_named_by_a_keyword() -> None:
    """Spider's `list` table: `list` is no column name (sqlglot reads `list < x` as a nested
    type), but sqlglot reads it as a table in FROM, so the schema-aware grammar takes it there
    (it was refused, and Spider's train gold fell to 99.19%). `range` as a column stays refused."""
    import sqlglot

    sql = typedgen.Sql("sqlite", schema="CREATE TABLE list (classroom INT, grade INT)")
    for text in ("SELECT COUNT(*) FROM list", "SELECT grade FROM list AS T1 WHERE T1.grade = 4"):
        assert sql_accepts(sql, text)
        tree = sqlglot.parse_one(text, read="sqlite")
        assert sqlglot.parse_one(tree.sql("sqlite"), read="sqlite") == tree
    assert not sql_accepts(sql, "SELECT list FROM list")
    ranged = typedgen.Sql("sqlite", schema="CREATE TABLE m (range TEXT, h INT)")
    assert not sql_accepts(ranged, "SELECT range FROM m")


KEYED_DDL = """
CREATE TABLE pair (x INT, y INT, PRIMARY KEY (x, y));
CREATE TABLE item (id INT PRIMARY KEY, px INT, py INT, owner INT REFERENCES person,
                   FOREIGN KEY (px, py) REFERENCES pair(x, y));
CREATE TABLE person (pid INT PRIMARY KEY, boss INT REFERENCES person(pid));
"""
KEYS = {
    "pair": (("x", "y"), ()),
    "item": (("id",), ((("owner",), "person", ()), (("px", "py"), "pair", ("x", "y")))),
    "person": (("pid",), ((("boss",), "person", ("pid",)),)),
}


def _keys(schema: SqlSchema) -> dict[str, object]:
    return {
        t: (schema.primary_keys.get(t, ()), tuple(sorted(schema.foreign_keys.get(t, ()))))
        for t in schema.tables
    }


def test_keys_from_ddl_are_shown_and_read_back() -> None:
    # The prompt's DDL (SqlSchema.describe) shows primary and foreign keys, which tell a model
    # how tables join; sqlglot reads the description back to the same keys.
    sql = typedgen.Sql("sqlite", schema=KEYED_DDL)
    assert sql.schema is not None
    assert _keys(sql.schema) == KEYS
    text = sql.schema.describe("sqlite")
    assert "owner INTEGER REFERENCES person," in text
    assert "FOREIGN KEY (px, py) REFERENCES pair(x, y)" in text
    assert _keys(schema_from(text, "sqlite")) == KEYS


def test_keys_from_a_sqlite_database() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(KEYED_DDL)
    schema = schema_from(conn, "sqlite")
    assert _keys(schema) == KEYS
    assert _keys(schema_from(schema.describe("sqlite"), "sqlite")) == KEYS
    # The grammar depends on the names only: the same tables without keys share its cache key.
    plain = {t: dict(c) for t, c in schema.tables.items()}
    assert schema.key() == schema_from(plain, "sqlite").key()

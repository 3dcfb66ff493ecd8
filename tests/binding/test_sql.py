"""Binding SQL text: a sqlglot Expression, statement kinds, and the schema check."""

from __future__ import annotations

import pytest
from sqlglot import exp

import typedgen
from typedgen.binding import BindingError
from typedgen.outputs import binder_for

SCHEMA = {
    "singer": {"singer_id": "int", "name": "text", "age": "int"},
    "concert": {"concert_id": "int", "singer_id": "int", "year": "int"},
}


def test_value_is_a_sqlglot_expression_with_its_text() -> None:
    sql = typedgen.Sql("postgres")
    tree = binder_for(sql)("SELECT a::INT FROM t WHERE b ILIKE 'x%'")
    assert isinstance(tree, exp.Select)
    assert tree.meta["text"] == "SELECT a::INT FROM t WHERE b ILIKE 'x%'"
    assert tree.sql(dialect="duckdb") == "SELECT CAST(a AS INT) FROM t WHERE b ILIKE 'x%'"


def test_statement_kinds_are_refused_with_the_way_to_opt_in() -> None:
    with pytest.raises(BindingError) as info:
        typedgen.Sql("sqlite").parse("DELETE FROM t")
    assert info.value.code == "sql-statement-refused"
    assert "statements=('select', 'delete')" in (info.value.hint or "")
    assert "not an authorisation layer" in (info.value.hint or "")
    with pytest.raises(BindingError, match="exactly one SQL statement"):
        typedgen.Sql("sqlite").parse("SELECT 1; SELECT 2")
    tree = typedgen.Sql("sqlite", statements=("select", "delete")).parse("DELETE FROM t")
    assert isinstance(tree, exp.Delete)


def test_columns_must_resolve_through_tables_in_scope() -> None:
    sql = typedgen.Sql("sqlite", schema=SCHEMA)
    good = (
        "SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2"
        " ON T1.singer_id = T2.singer_id GROUP BY T1.name"
    )
    assert isinstance(sql.parse(good), exp.Select)
    for bad in [
        "SELECT year FROM singer",  # a column of another table
        "SELECT T2.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
    ]:
        with pytest.raises(BindingError) as info:
            sql.parse(bad)
        assert info.value.code == "sql-schema-check"
    unchecked = typedgen.Sql("sqlite", schema=SCHEMA, check_columns=False)
    assert unchecked.parse("SELECT year FROM singer") is not None


def test_sqlite_double_quoted_strings_become_strings() -> None:
    tree = typedgen.Sql("sqlite", schema=SCHEMA).parse('SELECT name FROM singer WHERE name = "Joe"')
    assert tree.sql(dialect="postgres") == "SELECT name FROM singer WHERE name = 'Joe'"
    kept = typedgen.Sql("sqlite", schema=SCHEMA).parse('SELECT "name" FROM singer')
    assert kept.sql(dialect="postgres") == 'SELECT "name" FROM singer'


def test_sql_is_usable_as_a_cache_key() -> None:
    assert typedgen.Sql("sqlite", schema=SCHEMA) == typedgen.Sql("sqlite", schema=dict(SCHEMA))
    assert hash(typedgen.Sql("sqlite")) == hash(typedgen.Sql("sqlite"))
    assert typedgen.Sql("sqlite") != typedgen.Sql("postgres")
    assert typedgen.grammar_of(typedgen.Sql("sqlite")) is typedgen.grammar_of(
        typedgen.Sql("sqlite")
    )

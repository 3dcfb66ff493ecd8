"""Helpers for the SQL frontend tests: compiled grammars over bytes, sqlglot checks."""

from __future__ import annotations

import functools
import logging
from typing import Any

import sqlglot
from sqlglot import exp

import typedgen
from tests._support import accepts, byte_vocabulary
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.frontends.sql.trees import same_tree

logging.getLogger("sqlglot").setLevel(logging.CRITICAL)

# What sqlglot parses as a query (a SELECT INTO too: sqlglot reads it as a Select with ``into``).
QUERY = (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)
# The statement kinds whose statement is a query: the conformance figures are measured with
# them (``select_into`` only changes the grammar where the dialect offers it: T-SQL, Oracle),
# and with the default statements (``("select",)``) beside, so that neither figure is hidden.
QUERY_STATEMENTS = ("select", "select_into")


def checking(dialect: str, statements: tuple[str, ...] = QUERY_STATEMENTS) -> typedgen.Sql:
    """The language for checking SQL from elsewhere: comments, wider whitespace, parameters,
    UDFs, and the query ``statements``."""
    return typedgen.Sql(
        dialect,
        comments=True,
        whitespace="check",
        placeholders=True,
        functions="any",
        statements=statements,
    )


def dialect_queries(items: list[dict[str, Any]], dialect: str) -> list[str]:
    """The distinct fixtures of ``dialect`` among ``items`` (sqlglot_dialects) that sqlglot
    parses as a query in that dialect."""
    seen: dict[str, None] = {}
    for item in items:
        if item["dialect"] != dialect or item["sql"] in seen:
            continue
        try:
            tree = sqlglot.parse_one(item["sql"], read=dialect)
        except sqlglot.errors.SqlglotError:
            continue
        if isinstance(tree, QUERY):
            seen[item["sql"]] = None
    return list(seen)


@functools.cache
def _bytes_vocab() -> typedgen.Vocabulary:
    return byte_vocabulary()


def compiled(sql: typedgen.Sql) -> CompiledGrammar:
    """``sql`` compiled for the 256-byte vocabulary (cached on disk by the compiler)."""
    return typedgen.compile(sql, _bytes_vocab())


def sql_accepts(sql: typedgen.Sql, text: str) -> bool:
    return accepts(compiled(sql), text.encode("utf-8"))


def round_trips(text: str, dialect: str) -> tuple[bool, str]:
    """Whether sqlglot parses ``text`` and its own output parses back to the same tree (the
    marks of a spelling aside: ``trees.same_tree``)."""
    try:
        tree = sqlglot.parse_one(text, read=dialect)
        again = tree.sql(dialect=dialect)
        return same_tree(sqlglot.parse_one(again, read=dialect), tree, dialect), again
    except Exception as err:  # sqlglot raises several error types
        return False, f"{type(err).__name__}: {err}"


def assert_construct(dialect: str, text: str, without: str | None, **options: Any) -> None:
    """``text`` is accepted in ``dialect`` (with ``options``), sqlglot reads it back as the same
    tree, and, where ``without`` names a dialect, it is refused there (same options)."""
    sql = typedgen.Sql(dialect, **options)
    assert sql_accepts(sql, text), (dialect, text)
    ok, detail = round_trips(text, sql.dialect)
    assert ok, detail
    if without is not None:
        assert not sql_accepts(typedgen.Sql(without, **options), text), (without, text)


def spider_schema(table: dict[str, Any]) -> dict[str, dict[str, str]]:
    """A Spider ``tables.json`` entry as {table: {column: type}} (original spellings)."""
    columns: dict[str, dict[str, str]] = {name: {} for name in table["table_names_original"]}
    for (index, name), kind in zip(
        table["column_names_original"], table["column_types"], strict=True
    ):
        if index >= 0:
            columns[table["table_names_original"][index]][name] = kind
    return {name: cols for name, cols in columns.items() if cols}

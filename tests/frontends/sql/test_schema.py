"""Schemas from DDL text: whatever sqlglot cannot read is a GrammarError naming the DDL."""

from __future__ import annotations

import pytest

import typedgen
from typedgen.errors import GrammarError


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

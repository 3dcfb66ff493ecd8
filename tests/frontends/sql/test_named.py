"""Named arguments (typedgen/frontends/sql/named.py): offered where sqlglot keeps the name.

The oracle is sqlglot: every accepted text round-trips, and a name the function's builder
drops (``GENERATOR(foo => 5)`` comes back as ``GENERATOR()``) is refused even though the
shorter tree round-trips.
"""

from __future__ import annotations

import pytest

import typedgen

from ._sql import round_trips, sql_accepts


def _checking(dialect: str) -> typedgen.Sql:
    return typedgen.Sql(dialect, comments=True, whitespace="check", functions="any")


ACCEPTED = [
    # Table-only: any name (sqlglot's Explode keeps every Kwarg).
    "SELECT * FROM TABLE(FLATTEN(INPUT => x))",
    "SELECT * FROM TABLE(FLATTEN(INPUT => x, PATH => 'a', MODE => 'OBJECT')) AS f",
    "SELECT * FROM t, LATERAL FLATTEN(input => t.x, path => 'a')",
    # Listed names, each at most once, in any order.
    "SELECT * FROM TABLE(GENERATOR(ROWCOUNT => 5))",
    "SELECT * FROM TABLE(GENERATOR(TIMELIMIT => 1, ROWCOUNT => 5))",
    "SELECT SEARCH(line, 'king', ANALYZER => 'UNICODE_ANALYZER')",
    "SELECT SEARCH(line, 'king', SEARCH_MODE => 'AND', ANALYZER => 'x')",
]

REFUSED = [
    "SELECT FLATTEN(INPUT => x)",  # rewritten into a join in SELECT
    "SELECT * FROM TABLE(GENERATOR(foo => 5))",  # dropped: comes back as GENERATOR()
    "SELECT * FROM TABLE(GENERATOR(ROWCOUNT => 5, ROWCOUNT => 1))",  # the first is lost
    "SELECT SEARCH(line, 'king', foo => 'x')",  # dropped
    "SELECT SEARCH(line, foo => 'x')",
    "SELECT TRIM(x, foo => 1)",  # kept only as TRIM's second argument
    "SELECT LAG(x, DEFAULT => 1) OVER (ORDER BY y)",  # lands in LAG's offset
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_named_arguments_sqlglot_keeps(text: str) -> None:
    ok, detail = round_trips(text, "snowflake")
    assert ok, detail
    assert sql_accepts(typedgen.Sql("snowflake"), text), text
    assert sql_accepts(_checking("snowflake"), text), text


@pytest.mark.parametrize("text", REFUSED)
def test_named_arguments_sqlglot_drops_or_moves(text: str) -> None:
    assert not sql_accepts(_checking("snowflake"), text), text


def test_keywords_as_names_in_the_checking_language_only() -> None:
    text = "SELECT * FROM t, LATERAL FLATTEN(INPUT => t.x, OUTER => TRUE)"
    ok, detail = round_trips(text, "snowflake")
    assert ok, detail
    assert sql_accepts(_checking("snowflake"), text)
    assert not sql_accepts(typedgen.Sql("snowflake"), text)


def test_named_arguments_only_where_the_dialect_has_them() -> None:
    # SQLite has no "=>" (sqlglot's named_argument probe fails there).
    assert not sql_accepts(_checking("sqlite"), "SELECT * FROM GENERATOR(ROWCOUNT => 5) AS g")


def test_probed_names_are_what_sqlglot_keeps() -> None:
    from typedgen.frontends.sql.tables import dialect_tables

    calls = {c.name: c for c in dialect_tables("snowflake").named_calls}
    assert calls["FLATTEN"].names is None and not calls["FLATTEN"].scalar
    assert calls["GENERATOR"].names == ("ROWCOUNT", "TIMELIMIT")
    assert {"ANALYZER", "SEARCH_MODE"} <= set(calls["SEARCH"].names or ())
    # Functions whose "named" arguments only fill a plain slot have none.
    assert "TRIM" not in calls and "LAG" not in calls
    # ROUND's builder unwraps the names it knows (EXPR, SCALE, ROUNDING_MODE), all named.
    assert calls["ROUND"].names == ("EXPR", "SCALE", "ROUNDING_MODE")
    assert calls["ROUND"].positional == (0,) and ("EXPR",) in (calls["ROUND"].orders or ())

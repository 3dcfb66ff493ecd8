"""DuckDB's calls (typedgen/frontends/sql/duckdb_calls.py) from the tables duckdb_probes.py
reads, and the string classes they use (string_classes.py).

sqlglot is the oracle: every accepted text parses in DuckDB and its output parses back to the
same tree; each refused spelling below is one sqlglot reads as another tree, or a string
sqlglot reads as a date part that is none (DuckDB would refuse the query).
"""

from __future__ import annotations

import pytest

import typedgen
from typedgen.frontends.sql import dialect_class
from typedgen.frontends.sql.tables import dialect_tables

from ._sql import assert_construct, round_trips, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (text DuckDB accepts, a dialect that refuses it, or None)
CONSTRUCTS = [
    # A date part as a string, in either case, beside columns, calls, casts, typed literals.
    (
        "SELECT DATE_DIFF('day', a, b), DATEDIFF('HOUR', CAST(x AS DATE), DATE '2020-01-01'),"
        " DATE_DIFF('week', f(a), (b)) FROM t",
        "postgres",
    ),
    # Regexp flags last.
    (
        "SELECT REGEXP_EXTRACT(a, 'p', 0, 'i'), REGEXP_EXTRACT_ALL(s, 'p', 1, 'ims'),"
        " REGEXP_REPLACE(a, 'p', 'r', 'gi')",
        "snowflake",
    ),
    # A text that is both a date part (minutes) and flags lexes one way and goes in both.
    ("SELECT DATE_DIFF('mi', a, b), REGEXP_EXTRACT(a, 'p', 0, 'mi'), 'mi'", "snowflake"),
    # The null treatment of a window function inside its parentheses.
    (
        "SELECT NTH_VALUE(a, 2 IGNORE NULLS) OVER (ORDER BY b), LAG(a, 1, 0 RESPECT NULLS)"
        " OVER (ORDER BY b), LAST_VALUE(a ORDER BY b IGNORE NULLS) OVER (ORDER BY b)",
        "postgres",
    ),
    ("SELECT FIRST_VALUE(c RESPECT NULLS) OVER (PARTITION BY g ORDER BY o) FROM t", "postgres"),
    # An ORDER BY alone.
    ("SELECT RANK( ORDER BY a) OVER (ORDER BY b), CUME_DIST( ORDER BY a DESC) FROM t", "postgres"),
    # A named argument of a function sqlglot does not model (a keyword name too).
    ("SELECT my_udf(a := 1, b := x + 1), STAR(t, exclude := [foo]), f(2, c := 'x')", "postgres"),
    # The texts of a class are still strings wherever a string goes.
    ("SELECT 'day', 'im', {'day': 1} FROM 'i' WHERE a LIKE 's' AND b = 'DAY'", None),
]


@pytest.mark.parametrize(("text", "without"), CONSTRUCTS)
def test_duckdb_call(text: str, without: str | None) -> None:
    assert_construct("duckdb", text, without, **CHECKING)


# (a spelling DuckDB accepts, a close one it refuses, whether sqlglot reads it back the same)
REFUSED = [
    # A bare string beside a date part comes back cast to a date.
    ("SELECT DATE_DIFF('day', a, b)", "SELECT DATE_DIFF('day', 'a', b)", False),
    # An abbreviation comes back as its part ('d' as 'DAY'): another tree.
    ("SELECT DATE_DIFF('DAY', a, b)", "SELECT DATE_DIFF('d', a, b)", False),
    # sqlglot reads any word as a part; DuckDB knows no fortnight.
    ("SELECT DATE_DIFF('hour', a, b)", "SELECT DATE_DIFF('fortnight', a, b)", True),
    # Flags DuckDB lacks are dropped ('x', the 'e' of 'ie'); a column of flags is unsupported.
    ("SELECT REGEXP_EXTRACT(a, 'p', 0, 'i')", "SELECT REGEXP_EXTRACT(a, 'p', 0, 'x')", False),
    ("SELECT REGEXP_EXTRACT(a, 'p', 0, 'ci')", "SELECT REGEXP_EXTRACT(a, 'p', 0, 'ie')", False),
    ("SELECT REGEXP_EXTRACT(a, 'p', 0, 'm')", "SELECT REGEXP_EXTRACT(a, 'p', 0, b)", False),
    # IGNORE NULLS inside an aggregate that is no window function: another tree.
    ("SELECT FIRST_VALUE(a IGNORE NULLS)", "SELECT SUM(a IGNORE NULLS)", False),
    ("SELECT NTH_VALUE(a, 2 IGNORE NULLS)", "SELECT NTH_VALUE(a IGNORE NULLS)", False),
    # IGNORE NULLS on an argument of a scalar: sqlglot drops the argument.
    ("SELECT LEAD(a, 1, c IGNORE NULLS)", "SELECT ARRAY_APPEND(a, b, c IGNORE NULLS)", True),
    # A reserved word as a name comes back quoted; a function sqlglot models takes no names.
    ('SELECT f("select" := 1)', "SELECT f(select := 1)", False),
    ("SELECT my_udf(a := 1)", "SELECT ABS(a := 1)", True),
    # ORDER BY alone in a function of one argument (sqlglot reads the order as it).
    ("SELECT RANK( ORDER BY a) OVER ()", "SELECT ABS( ORDER BY a)", True),
]


@pytest.mark.parametrize(("accepted", "refused", "reads_back"), REFUSED)
def test_duckdb_call_refuses(accepted: str, refused: str, reads_back: bool) -> None:
    sql = typedgen.Sql("duckdb", **CHECKING)
    assert sql_accepts(sql, accepted)
    assert round_trips(accepted, "duckdb")[0]
    assert not sql_accepts(sql, refused)
    assert round_trips(refused, "duckdb")[0] is reads_back


def test_duckdb_call_tables() -> None:
    """The tables are probed: parts sqlglot reads back the same, flags DuckDB keeps."""
    tables = dialect_tables("duckdb").duckdb
    units = {name: parts for name, _, parts in tables.unit_calls}
    assert {"DAY", "HOUR", "MI"} <= set(units["DATE_DIFF"])
    assert not {"D", "NS", "FORTNIGHT"} & set(units["DATE_DIFF"])
    flags = {name: texts for name, _, texts in tables.flag_calls}
    assert set("".join(flags["REGEXP_EXTRACT"])) == set("cims")
    nulls = {name for name, _, _ in tables.nulls_calls}
    assert {"NTH_VALUE", "LAG", "FIRST_VALUE"} <= nulls
    assert "SUM" not in nulls
    assert "RANK" in tables.ordered_bare and "ABS" not in tables.ordered_bare


def test_duckdb_calls_are_dialect_specific() -> None:
    features = ("unit_string_calls", "flag_string_calls", "nulls_inside_calls", "walrus_argument")
    for feature in features:
        assert feature in dialect_class("duckdb").tables().features
        assert feature not in dialect_class("postgres").tables().features


def test_functions_option_narrows_the_calls() -> None:
    sql = typedgen.Sql("duckdb", functions=["DATE_DIFF", "ABS"])
    assert sql_accepts(sql, "SELECT DATE_DIFF('day', ABS(a), b) FROM t")
    assert not sql_accepts(sql, "SELECT DATEDIFF('day', a, b) FROM t")
    assert not sql_accepts(sql, "SELECT REGEXP_EXTRACT(a, 'p', 0, 'i') FROM t")
    other = typedgen.Sql("duckdb", functions=["ABS"])
    assert sql_accepts(other, "SELECT ABS(a), 'day', 'i' FROM t")
    assert not sql_accepts(other, "SELECT DATE_DIFF('day', a, b) FROM t")

"""Row pattern recognition (typedgen/frontends/sql/match_recognize.py): ``MATCH_RECOGNIZE``.

On where the probes round-trip (Trino, Oracle, Snowflake, and the dialects built on Trino);
off elsewhere. sqlglot is the oracle: every accepted text parses in the dialect and its output
parses back to the same tree.
"""

from __future__ import annotations

import pytest

import typedgen

from ._sql import assert_construct, sql_accepts

M = "SELECT * FROM t MATCH_RECOGNIZE ("

CONSTRUCTS = [
    ("trino", M + "PATTERN (a) DEFINE a AS b > 1)", "postgres"),
    (
        "trino",
        "SELECT * FROM tbl MATCH_RECOGNIZE (PARTITION BY id ORDER BY col MEASURES FIRST(col, 2)"
        " AS col1, LAST(col, 2) AS col2 PATTERN (B* A) DEFINE A AS col = 1)",
        "presto",
    ),
    (
        "trino",
        M + "MEASURES FINAL LAST(c) AS x, RUNNING FIRST(c) + 1 AS y, CLASSIFIER() AS k,"
        " MATCH_NUMBER() AS n ALL ROWS PER MATCH WITH UNMATCHED ROWS AFTER MATCH SKIP TO LAST a"
        " PATTERN (^ a*? (b+ | c?) d{2} e{1,} f{,3}? g{1,3} PERMUTE(a, b) $) DEFINE a AS a.c >"
        " PREV(a.c, 2) AND c = 1, b AS PREV(c) + 1 < NEXT(c)) AS m WHERE x = 1",
        "sqlite",
    ),
    (
        "trino",
        M + "ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW " + "PATTERN (a | b)"
        " DEFINE a AS TRUE) m",
        "duckdb",
    ),
    (
        "oracle",
        "SELECT * FROM sales_history MATCH_RECOGNIZE (PARTITION BY product ORDER BY tstamp"
        " MEASURES STRT.tstamp AS start_tstamp, LAST(UP.tstamp) AS peak_tstamp,"
        " MATCH_NUMBER() AS mno ONE ROW PER MATCH AFTER MATCH SKIP TO LAST DOWN PATTERN (STRT"
        " UP+ FLAT* DOWN+) DEFINE UP AS UP.units_sold > PREV(UP.units_sold), FLAT AS"
        " FLAT.units_sold = PREV(FLAT.units_sold)) MR",
        "postgres",
    ),
    (
        "snowflake",
        M + "PARTITION BY a ORDER BY b MEASURES MATCH_NUMBER() AS n ALL ROWS PER MATCH"
        " AFTER MATCH SKIP TO NEXT ROW PATTERN (a+ b*) DEFINE a AS c > PREV(c), b AS TRUE)",
        "bigquery",
    ),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_match_recognize(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without)


@pytest.mark.parametrize(
    "text",
    [
        # sqlglot reads FINAL/RUNNING before a measure by its text: never a column there.
        M + "MEASURES final AS x PATTERN (a) DEFINE a AS TRUE)",
        "SELECT running FROM t",
        # A measure is named; SUBSET is not read; PATTERN and DEFINE are required.
        M + "MEASURES c PATTERN (a) DEFINE a AS TRUE)",
        M + "PATTERN (a b) SUBSET u = (a, b) DEFINE a AS TRUE)",
        M + "PATTERN (a))",
        # A negated predicate is no operand of a comparison (sqlglot regroups it).
        M + "PATTERN (a) DEFINE a AS b NOT IN (1) = PREV(b))",
        # The skip target keeps its text: no quoted name.
        M + 'AFTER MATCH SKIP TO LAST "a" PATTERN (a) DEFINE a AS TRUE)',
    ],
)
def test_refused_forms(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("trino"), text)


def test_navigation_only_inside() -> None:
    """PREV(...) is a navigation function inside MATCH_RECOGNIZE only."""
    assert not sql_accepts(typedgen.Sql("trino"), "SELECT PREV(a) FROM t")
    assert not sql_accepts(typedgen.Sql("oracle"), M + "PATTERN (a) DEFINE a AS b = NEXT(b))")

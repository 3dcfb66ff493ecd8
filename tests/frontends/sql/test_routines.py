"""Inline SQL routines (typedgen/frontends/sql/routines.py): Trino's ``WITH FUNCTION ...``.

On where the probes round-trip (Trino, Athena, Dune) and calls to user-defined names are offered
(``functions="any"``); off elsewhere. sqlglot is the oracle: every accepted text parses in the
dialect and its output parses back to the same tree.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import typedgen
from typedgen.frontends.sql.tables import dialect_tables

from ._sql import assert_construct, round_trips, sql_accepts
from .test_soundness import walk_texts

ANY = {"functions": "any"}

ROUTINES = [
    "WITH FUNCTION f(a INTEGER) RETURNS INTEGER RETURN a + 1 SELECT f(1)",
    "WITH FUNCTION f() RETURNS VARCHAR RETURN 'x', FUNCTION g(b BIGINT) RETURNS BIGINT"
    " RETURN b * 2 SELECT f() || CAST(g(3) AS VARCHAR)",
    "WITH FUNCTION f(x INTEGER) RETURNS INTEGER RETURN x WITH t AS (SELECT 3 AS v) SELECT f(v)"
    " FROM t",
    "WITH FUNCTION f() RETURNS INTEGER COMMENT 'hi' RETURNS NULL ON NULL INPUT NOT DETERMINISTIC"
    " LANGUAGE SQL SECURITY DEFINER WITH (weight = 42, cost = 'low') RETURN 1 SELECT f()",
    "WITH FUNCTION f() RETURNS INTEGER CALLED ON NULL INPUT DETERMINISTIC SECURITY INVOKER"
    " RETURN 1 SELECT f()",
    "WITH FUNCTION f(a INTEGER) RETURNS INTEGER BEGIN DECLARE x, y INTEGER DEFAULT 0;"
    " DECLARE s VARCHAR(25); SET x = a + 1; RETURN x; END SELECT f(1)",
    "WITH FUNCTION f(a INTEGER) RETURNS VARCHAR BEGIN IF a = 0 THEN RETURN 'zero'; ELSEIF a = 1"
    " THEN RETURN 'one'; ELSE RETURN 'other'; END IF; END SELECT f(1)",
    "WITH FUNCTION f(a INTEGER) RETURNS VARCHAR BEGIN CASE a WHEN 0 THEN RETURN 'zero'; ELSE"
    " RETURN 'other'; END CASE; CASE WHEN a > 1 THEN RETURN 'big'; END CASE; RETURN NULL; END"
    " SELECT f(1)",
    "WITH FUNCTION f(n BIGINT) RETURNS BIGINT BEGIN DECLARE i BIGINT DEFAULT 0; top: LOOP IF"
    " i >= n THEN LEAVE top; END IF; SET i = i + 1; END LOOP; outer_loop: WHILE i < n DO SET"
    " i = i + 1; ITERATE outer_loop; END WHILE; r: REPEAT SET i = i - 1; UNTIL i <= 0 END"
    " REPEAT; BEGIN RETURN i; END; END SELECT f(5)",
]


@pytest.mark.parametrize("text", ROUTINES)
def test_routines_in_trino(text: str) -> None:
    assert_construct("trino", text, "presto", **ANY)


@pytest.mark.parametrize("dialect", ["athena", "dune"])
def test_routines_where_trino_is_built_on(dialect: str) -> None:
    assert_construct(dialect, ROUTINES[0], "duckdb", **ANY)


def test_probes_hold_only_in_trino_family() -> None:
    for dialect in ("trino", "athena", "dune"):
        assert "routine" in dialect_tables(dialect).features
    for dialect in ("", "presto", "postgres", "snowflake", "spark"):
        assert "routine" not in dialect_tables(dialect).features


def test_routines_only_where_user_functions_are_called() -> None:
    """A routine is called as a user-defined function: with the known functions only (or a
    schema, which its parameters are not in), no routine is offered."""
    text = ROUTINES[0]
    assert not sql_accepts(typedgen.Sql("trino"), text)
    assert not sql_accepts(typedgen.Sql("trino", functions=["ABS"]), text)
    schema = {"t": {"a": "int"}}
    assert not sql_accepts(typedgen.Sql("trino", schema=schema, functions="any"), text)


@pytest.mark.parametrize(
    "text",
    [
        # Not Trino's routine language, or sqlglot reads another tree / writes another form.
        "WITH FUNCTION f() RETURNS INTEGER BEGIN IF 1 = 1 THEN END IF; END SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER WITH (a = 1) LANGUAGE SQL RETURN 1 SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER RETURN 1, t AS (SELECT 1) SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER SET x = 1 SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER BEGIN RETURN 1 END SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER BEGIN x: RETURN 1; END SELECT f()",
        "WITH FUNCTION f() RETURNS INTEGER BEGIN RETURN 1; DECLARE x INTEGER; END SELECT f()",
        "SELECT * FROM (WITH FUNCTION f() RETURNS INTEGER RETURN 1 SELECT f())",
    ],
)
def test_refused_forms(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("trino", **ANY), text)


@pytest.mark.slow  # compiling Trino with functions="any" for SmolLM2's vocabulary
def test_random_walks_through_routines(smollm2_vocab: Any) -> None:
    """Random walks from ``WITH FUNCTION`` (the plain soundness walks seldom reach it) parse
    with sqlglot and round-trip."""
    sql = typedgen.Sql("trino", **ANY)
    head = b"WITH FUNCTION f(a INTEGER) RETURNS INTEGER "
    ended = 0
    for text in walk_texts(
        sql, smollm2_vocab, random.Random("routines"), 8, (head, head + b"BEGIN ")
    ):
        ended += 1
        ok, detail = round_trips(text, "trino")
        assert ok, f"{text!r} -> {detail}"
    assert ended >= 8

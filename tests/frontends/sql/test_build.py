"""The SQL grammar builder: ``functions=`` that leaves no callable function drops calls."""

from __future__ import annotations

import pytest

import typedgen

from ._sql import sql_accepts


@pytest.mark.parametrize("functions", [[], ["NOSUCH"], [""]])
def test_no_callable_function_means_no_calls(functions: list[str]) -> None:
    # Found by the SQL fuzzer: functions=[] left the rule `call` without alternatives, and the
    # grammar was refused as "rule 'call' matches no string" (an IR error about a rule the
    # caller never wrote).
    sql = typedgen.Sql("sqlite", functions=functions)
    assert "call ::=" not in str(typedgen.grammar_of(sql))
    assert sql_accepts(sql, "SELECT a FROM t WHERE b > 1")
    assert not sql_accepts(sql, "SELECT ABS(a) FROM t")


def test_a_listed_function_is_still_callable() -> None:
    sql = typedgen.Sql("sqlite", functions=["ABS"])
    assert sql_accepts(sql, "SELECT ABS(a) FROM t")

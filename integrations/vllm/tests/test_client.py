"""The client side, without an engine: constraints round-trip, exports compile in vLLM's own
backends (xgrammar, llguidance), and malformed payloads are refused."""

from __future__ import annotations

import pytest
import typedgen
from outputs import SQL, City, Robot
from typedgen.ir import serial

import typedgen_vllm
from typedgen_vllm.constraint import GrammarCache, payload_of

TYPES = {"pydantic": City, "sql": SQL, "dsl": Robot, "choice": typedgen.Choice("yes", "no")}


@pytest.mark.parametrize("name", sorted(TYPES))
def test_constraint_round_trips(name: str) -> None:
    output_type = TYPES[name]
    extra = typedgen_vllm.constraint(output_type)
    assert set(extra) == {"typedgen"} and isinstance(extra["typedgen"], str)
    assert serial.loads(extra["typedgen"]) == typedgen.grammar_of(output_type)


def test_reasoning_constraint_has_the_scratchpad() -> None:
    grammar = serial.loads(typedgen_vllm.constraint(City, reasoning=200)["typedgen"])
    assert grammar != typedgen.grammar_of(City)
    assert "typedgen_scratch_start" in grammar.rules


def test_payload_must_be_a_string() -> None:
    assert payload_of(None) is None and payload_of({"other": 1}) is None
    with pytest.raises(typedgen.OptionError, match="must be a string"):
        payload_of({"typedgen": {"grammar": "x"}})


def test_cache_parses_once() -> None:
    cache = GrammarCache(max_grammars=2)
    payload = typedgen_vllm.constraint(City)["typedgen"]
    assert cache.grammar(payload) is cache.grammar(payload)
    with pytest.raises(typedgen.GrammarError):
        cache.grammar("tg1:AAAA")


@pytest.mark.parametrize("name", sorted(TYPES))
def test_gbnf_export_compiles_in_xgrammar(name: str) -> None:
    xgrammar = pytest.importorskip("xgrammar")
    export = typedgen_vllm.structured_outputs(TYPES[name], backend="xgrammar")
    xgrammar.Grammar.from_ebnf(export.params["grammar"])
    assert export.exact == (name in ("pydantic", "choice")), export.notes


def test_sql_exports_to_gbnf() -> None:
    """SQL's generation whitespace (a bounded run with at most one line break; a blank line
    ends the statement) is a plain expression, which GBNF can write."""
    export = typedgen_vllm.structured_outputs(SQL, backend="xgrammar")
    lines = export.params["grammar"].splitlines()
    ignored = [line for line in lines if line.startswith("ignored ::=")]
    assert ignored and '"\\n"' in ignored[0], ignored
    assert not export.exact  # GBNF is scannerless: longest-match lexing cannot be written


@pytest.mark.parametrize("name", sorted(TYPES))
def test_lark_export_compiles_in_llguidance(name: str) -> None:
    llguidance = pytest.importorskip("llguidance")
    export = typedgen_vllm.structured_outputs(TYPES[name], backend="guidance")
    grammar = llguidance.grammar_from("lark", export.params["grammar"])
    assert llguidance.LLMatcher.validate_grammar(grammar) == ""


def test_native_export() -> None:
    assert typedgen_vllm.structured_outputs(City, native=True).params["json"]["type"] == "object"
    choice = typedgen_vllm.structured_outputs(typedgen.Choice("a", "b"), native=True)
    assert choice.params == {"choice": ["a", "b"]} and choice.exact
    with pytest.raises(typedgen.OptionError):
        typedgen_vllm.structured_outputs(City, backend="outlines")  # type: ignore[arg-type]


def test_bind_uses_typedgen_binders() -> None:
    city = typedgen_vllm.bind(City, '{"name":"Lima","country":"Peru","population_millions":10}')
    assert isinstance(city, City)
    assert typedgen_vllm.bind(Robot, "move 3\nturn left") == [("move", 3), ("turn", "left")]
    with pytest.raises(typedgen.BindingError):
        typedgen_vllm.bind(SQL, "SELECT nope FROM missing")


def test_repeat_ranges_are_braced_for_older_llguidance() -> None:
    from typedgen_vllm.export import _braced_repeats

    text = '// a "~1..2" comment\nstart: A~0..3 B~2 "x~1..4" /a~1..2/ ~C\n'
    assert _braced_repeats(text) == (
        '// a "~1..2" comment\nstart: A{0,3} B{2} "x~1..4" /a~1..2/ ~C\n'
    )

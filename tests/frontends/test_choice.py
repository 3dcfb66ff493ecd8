"""The choice frontend: the language is exactly the given strings."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typedgen.errors import GrammarError
from typedgen.frontends.choice import choice_grammar
from typedgen.ir import Alt, Grammar, Lexing, Lit, Origin

from ._ir_match import matches_grammar


def test_language_is_exactly_the_options() -> None:
    grammar = choice_grammar(["yes", "no", "maybe so", "日本"])
    for text in ["yes", "no", "maybe so", "日本"]:
        assert matches_grammar(grammar, text)
    for text in ["", "ye", "yess", "No", "maybe", "日"]:
        assert not matches_grammar(grammar, text)


def test_one_free_terminal() -> None:
    grammar = choice_grammar(["a", "b"], name="ANSWER")
    assert grammar.start == "ANSWER"
    assert list(grammar.rules) == ["ANSWER"]
    rule = grammar["ANSWER"]
    assert rule.lexical and rule.lexing is Lexing.FREE
    assert rule.body == Alt((Lit(b"a"), Lit(b"b")))
    assert rule.origin == Origin("<choice>")
    assert str(grammar) == '%start ANSWER\n@token ANSWER ::= "a" | "b"\n'


def test_single_option_and_duplicates() -> None:
    assert choice_grammar(["only"])["start"].body == Lit(b"only")
    assert choice_grammar(["a", "b", "a"])["start"].body == Alt((Lit(b"a"), Lit(b"b")))


def test_empty_string_option() -> None:
    grammar = choice_grammar(["", "x"])
    assert matches_grammar(grammar, "") and matches_grammar(grammar, "x")


def test_tuples_and_other_sequences() -> None:
    assert choice_grammar(("a", "b")) == choice_grammar(["a", "b"])


def test_registered_as_choice() -> None:
    assert Grammar.from_choice(["x", "y"]) == choice_grammar(["x", "y"])


def test_empty_choice_is_an_error() -> None:
    with pytest.raises(GrammarError) as info:
        choice_grammar([])
    assert info.value.code == "empty-choice"
    assert info.value.hint


@pytest.mark.parametrize(
    ("options", "path"), [("abc", None), (["a", 3], "[1]"), (["ok", "\ud800"], "[1]")]
)
def test_bad_options(options: Any, path: str | None) -> None:
    with pytest.raises(GrammarError) as info:
        choice_grammar(options)
    assert info.value.code == "bad-choice"
    assert info.value.origin == Origin("<choice>", path=path)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=5), min_size=1, max_size=6), st.text(max_size=5))
def test_membership_matches_the_list(options: list[str], probe: str) -> None:
    options = [o for o in options if not any(0xD800 <= ord(c) <= 0xDFFF for c in o)] or ["x"]
    probe = "".join(c for c in probe if not 0xD800 <= ord(c) <= 0xDFFF)
    grammar = choice_grammar(options)
    assert matches_grammar(grammar, probe) == (probe in options)
    assert all(matches_grammar(grammar, option) for option in options)

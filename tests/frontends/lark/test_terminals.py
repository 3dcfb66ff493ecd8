"""Terminal sequences read as lark reads them: its joined regexp, not the parts in sequence."""

from __future__ import annotations

import re

import lark
import pytest

from typedgen.errors import GrammarError
from typedgen.frontends.lark.terminals import joins_apart
from typedgen.ir import Grammar

from .._lark_ir_match import IRMatcher

SAMPLES = ["a", "b", "c", "ab", "ac", "bc", "aa", "abc", "cc", "Ab", "AB", "aB", "a{2}", "a1", ""]


def lark_verdicts(text: str, samples: list[str]) -> list[bool]:
    parser = lark.Lark(text, parser="earley", lexer="dynamic_complete")
    out = []
    for sample in samples:
        try:
            parser.parse(sample)
            out.append(True)
        except lark.exceptions.LarkError:
            out.append(False)
    return out


@pytest.mark.parametrize(
    ("terminals", "accepted"),
    [
        ('T: "a" /b|c/', ["ab", "c"]),  # issue 17: ab|c, not a(b|c)
        ('T: "a" A\nA: /b|c/', ["ab", "c"]),  # through a reference
        ('T: /a|b/ "c"', ["a", "bc"]),
        ('T: /(?i)a/ "b"', ["ab", "Ab", "AB", "aB"]),  # global flags cover the whole
        ('T: "a" /{2}/', ["aa"]),  # the second part quantifies the first
        ('T: ("a" /b|c/)+', ["ab", "c", "cc", "abc"]),
        ('T: "a" (/b|c/)', ["ab", "c"]),  # a group of one part is the part itself
        ('T: "a" /(?:b|c)/', ["ab", "ac"]),
        ('T: "a" /b|c/i', ["ab", "ac", "aB"]),  # flags wrap the part in a group
    ],
)
def test_terminal_sequences_are_larks_joined_regexp(terminals: str, accepted: list[str]) -> None:
    text = f"start: T\n{terminals}\n"
    expected = lark_verdicts(text, SAMPLES)
    assert [s for s, ok in zip(SAMPLES, expected, strict=True) if ok] == sorted(
        accepted, key=SAMPLES.index
    )
    matcher = IRMatcher(Grammar.from_lark(text, lexer="dynamic_complete"))
    assert [matcher.matches(s) for s in SAMPLES] == expected


def test_joined_regexp_that_python_refuses_is_refused() -> None:
    text = 'start: T\nT: "a" /(?i)b/\n'  # a(?i)b: global flags not at the start
    with pytest.raises(re.error):  # lark lets Python's error through
        lark.Lark(text, parser="earley", lexer="dynamic_complete").parse("ab")
    with pytest.raises(GrammarError) as info:
        Grammar.from_lark(text)
    assert info.value.code == "regex-syntax"


@pytest.mark.parametrize(
    ("parts", "apart"),
    [
        (["a", "b|c"], True),
        (["a|b", "c"], True),
        (["a", "(?:b|c)"], False),
        (["a", "[|]"], False),
        (["a", r"\|"], False),
        (["(?i)a", "b"], True),
        (["a", "{2}"], True),
        (["a", "{x}"], False),
        ([r"\1", "2"], True),
        ([r"\\1", "2"], False),
        (["a|b"], False),
    ],
)
def test_joins_apart(parts: list[str], apart: bool) -> None:
    assert joins_apart(parts) is apart

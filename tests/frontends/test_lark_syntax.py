"""Every refusal of Lark grammar text names its line and column and says what to do.

The Lark fuzzer (``tests/fuzz``) found these errors raised without a hint.
"""

from __future__ import annotations

import pytest

from typedgen.errors import GrammarError
from typedgen.frontends.lark import lark_grammar

BAD = [
    ('start: "a" ^ "b"\n', "lark-syntax"),  # unexpected input
    ('start: "a"\n  : "b"\n', "lark-syntax"),  # expected ..., got ':'
    ('start: "a\nb"\n', "lark-syntax"),  # a newline in a string
    ("start: /a\nb/\n", "lark-syntax"),  # a newline in a regexp without x
    ('start: "a"~5..2\n', "bad-repeat"),
    ('start: "a"i.."z"\n', "lark-bad-range"),
    ('start: x{"a", "b"}\nx{p}: p\n', "lark-template"),
    ('start: x{"a"}\nx{p, p}: p\n', "lark-template"),
    ('start: x{"a"}\nx{start}: start\n', "lark-template"),
    ('start: _h\n_h: "a" -> alias\n', "lark-alias-on-inlined-rule"),
    ('start: _h\n?_h: "a"\n', "lark-modifier"),
    ('start: "a"\n%extend b: "c"\n', "lark-extend-undefined"),
    ('start: a\na: "a"\n%extend a{p}: p\n', "lark-extend-mismatch"),
    ('start: "a" "b"\nstart: "c"\n', "duplicate-rule"),
    ('start: "a"\n%ignore b\nb: "b"\n', "terminal-uses-rule"),
]


@pytest.mark.parametrize(("text", "code"), BAD, ids=[code for _, code in BAD])
def test_refusals_name_the_place_and_give_a_hint(text: str, code: str) -> None:
    with pytest.raises(GrammarError) as info:
        lark_grammar(text)
    err = info.value
    assert err.code == code, err
    assert err.origin is not None and err.origin.line is not None, err
    assert err.hint, err


def test_template_arguments_say_what_they_take() -> None:
    # The message used to read "expected a name, a literal or '(', got '('".
    with pytest.raises(GrammarError, match="a template argument is one value") as info:
        lark_grammar('start: x{("a" "b")}\nx{p}: p\n')
    assert info.value.origin is not None and info.value.origin.column == 10

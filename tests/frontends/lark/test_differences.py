"""Every known difference from lark, as listed in docs/grammar-formats.md, one test each.

Each case states lark's verdict and typedgen's on the same grammar and text; when either side
changes (a difference is fixed, or a new one appears) the test fails and the list is updated.
"""

from __future__ import annotations

import re
from typing import Any

import lark
import pytest

import typedgen
from tests._support import accepts, byte_vocabulary
from typedgen.ir import Grammar

VOCAB = byte_vocabulary()
LALR = {"parser": "lalr"}  # lark's contextual lexer, as typedgen's default lexer="contextual"


def lark_accepts(text: str, sample: str, options: dict[str, Any]) -> bool:
    try:
        lark.Lark(text, **options).parse(sample)
    except (lark.exceptions.LarkError, re.error):
        return False
    return True


def typedgen_accepts(text: str, sample: str, lexer: str = "contextual") -> bool:
    grammar = Grammar.from_lark(text, lexer=lexer)
    return accepts(typedgen.compile(grammar, VOCAB), sample.encode())


# (name in the docs, grammar, text, lark's options, typedgen's lexer, lark's verdict)
DIFFERENCES = [
    (
        "longest match never backtracks",
        'start: (SP | C) R\nSP: " "\nC: " //"\nR: "/a"\n',
        " /a",
        LALR,
        "contextual",
        True,
    ),
    (
        "priority before length",
        'start: A | B\nA.2: "a"\nB: "ab"\n',
        "ab",
        LALR,
        "contextual",
        False,
    ),
    (
        "ordered alternatives in one regexp",
        "start: A\nA: /a|ab/\n",
        "ab",
        LALR,
        "contextual",
        False,
    ),
    (
        "look-ahead at the end of a terminal",
        'start: A B?\nA: /a(?!b)/\nB: "b"\n',
        "ab",
        LALR,
        "contextual",
        False,
    ),
    (
        "look-behind at the start of a terminal",
        'start: "x" A\nA: /(?<!x)a/\n',
        "xa",
        LALR,
        "contextual",
        False,
    ),
    ("anchors in a terminal", 'start: "x" A\nA: /^a/\n', "xa", LALR, "contextual", False),
    ("anchors in a terminal", 'start: A "b"\nA: /a$/\n', "ab", LALR, "contextual", False),
    ("global inline flags", "start: A\nA: /(?i)a/\n", "A", LALR, "contextual", False),
    (
        '`lexer="dynamic"`',
        'start: A "ab"\nA: /a+/\n',
        "aab",
        {"parser": "earley", "lexer": "dynamic"},
        "dynamic",
        False,
    ),
    (
        "grammars that are not LALR(1)",
        'start: a | b\na: "x"\nb: "x"\n',
        "x",
        LALR,
        "contextual",
        False,
    ),
]


@pytest.mark.parametrize(
    ("name", "grammar", "text", "options", "lexer", "lark_verdict"),
    DIFFERENCES,
    ids=[f"{d[0]}: {d[2]!r}" for d in DIFFERENCES],
)
def test_known_difference_from_lark(
    name: str, grammar: str, text: str, options: dict[str, Any], lexer: str, lark_verdict: bool
) -> None:
    assert lark_accepts(grammar, text, options) is lark_verdict, name
    assert typedgen_accepts(grammar, text, lexer) is not lark_verdict, name


def test_differences_are_listed_in_the_docs() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "grammar-formats.md").read_text()
    section = doc.split("**Known differences from lark.**", 1)[1].split("\n\n", 1)[0]
    for name, *_ in DIFFERENCES:
        assert f"*{name}*" in section, name

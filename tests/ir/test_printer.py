"""The canonical printer: deep IR prints without recursion, in the same text as shallow IR."""

from __future__ import annotations

import sys

import typedgen
from typedgen.ir import Alt, Lit, Repeat, Seq, print_expr


def _nest(depth: int) -> Seq:
    expr: Seq = Seq((Lit(b"a"),))
    for i in range(depth):
        expr = Seq((Lit(b"b"), Alt((expr, Repeat(Lit(bytes([97 + i % 26])), 0, 2)))))
    return expr


def test_deep_expression_prints_past_the_recursion_limit() -> None:
    # Found by the JSON Schema fuzzer: a 165-digit "minimum" nests the number grammar hundreds
    # of levels deep, and the recursive printer (and with it Grammar.fingerprint) failed.
    depth = sys.getrecursionlimit() * 2
    text = print_expr(_nest(depth))
    assert text.count("(") == text.count(")") == depth
    assert text.startswith('"b" ("b" (') and text.endswith(")")


def test_shallow_text_is_unchanged() -> None:
    assert print_expr(_nest(2)) == '"b" ("b" ("a" | "a"{0,2}) | "b"{0,2})'


def test_huge_number_bound_prints() -> None:
    grammar = typedgen.grammar_of({"type": "number", "minimum": 4.671043e164})
    assert "%start" in str(grammar)
    assert len(grammar.fingerprint) == 64

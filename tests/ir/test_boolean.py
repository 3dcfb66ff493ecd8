"""``&`` and ``~`` rewritten into plain regular expressions: same language, checked by an oracle.

The oracle (tests/frontends/_ir_match.py) decides membership directly on the IR, intersections and
complements included; it shares nothing with the derivative construction under test.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.frontends._ir_match import matches
from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
    print_expr,
    walk,
)
from typedgen.ir.passes import boolean
from typedgen.ir.passes.boolean import plain_regular

WORDS = [
    "".join(w) for n in range(5) for w in itertools.product("abé", repeat=n)
]  # 121 strings, one non-ASCII letter among them

_LEAVES = st.sampled_from(
    [
        Lit.text("a"),
        Lit.text("b"),
        Lit.text("ab"),
        Lit.text(""),
        Lit.text("é"),
        CharClass.of("ab"),
        CharClass.of("a", negated=True),
        Ref("FRAG"),
    ]
)


def _extend(inner: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    pairs = st.lists(inner, min_size=2, max_size=3).map(tuple)
    return st.one_of(
        pairs.map(Seq),
        pairs.map(Alt),
        pairs.map(Intersect),
        inner.map(Complement),
        st.tuples(inner, st.integers(0, 2), st.sampled_from([None, 0, 1, 2])).map(
            lambda t: Repeat(t[0], t[1], None if t[2] is None else t[1] + t[2])
        ),
    )


EXPRS = st.recursive(_LEAVES, _extend, max_leaves=8)
FRAG = Alt((Lit.text("b"), Seq((Lit.text("a"), Repeat(Lit.text("b"))))))


def _resolve(name: str) -> Expr:
    assert name == "FRAG"
    return FRAG


@settings(max_examples=120, deadline=None, derandomize=True)
@given(EXPRS)
def test_same_language_as_the_oracle_says(expr: Expr) -> None:
    plain = plain_regular(expr, _resolve, rule="T")
    assert not any(isinstance(n, Intersect | Complement | Ref) for n in walk(plain))
    rules = {"FRAG": FRAG}
    for word in WORDS:
        assert matches(plain, word) == matches(expr, word, rules), (
            f"{word!r}: {print_expr(expr)} became {print_expr(plain)}"
        )


def test_readable_results() -> None:
    # lark's ESCAPED_STRING after its look-behind became & and ~ (see the lark frontend).
    body = Seq(
        (
            Intersect(
                (
                    Seq((Lit.text('"'), Repeat(CharClass.of("\n", negated=True)))),
                    Complement(Seq((Repeat(CharClass((), negated=True)), Lit.text("\\")))),
                )
            ),
            Repeat(Lit.text("\\\\")),
            Lit.text('"'),
        )
    )
    lazy = Intersect((body, Complement(Seq((body, Repeat(CharClass((), negated=True), 1))))))
    assert print_expr(plain_regular(lazy, _resolve, rule="S")) == (
        '"\\"" ([^\\n"\\\\] | "\\\\" [^\\n])* "\\""'
    )
    assert (
        print_expr(plain_regular(Intersect((Lit.text("a"), Lit.text("b"))), _resolve, rule="E"))
        == "%void"
    )


def test_budgets_refuse_naming_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boolean, "MAX_STATES", 10)
    wide = Repeat(CharClass.of("ab"), 0, 30)
    with pytest.raises(UnsupportedFeatureError) as err:
        plain_regular(Intersect((wide, Complement(Lit.text("a")))), _resolve, rule="WIDE")
    assert err.value.code == "export-intersection" and "WIDE" in str(err.value)


def test_bytes_that_are_not_text_are_refused() -> None:
    with pytest.raises(GrammarError) as err:
        plain_regular(Complement(Lit(b"\xff")), _resolve, rule="RAW")
    assert err.value.code == "export-bytes" and "RAW" in str(err.value)

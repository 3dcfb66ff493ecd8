"""The IR: canonical text, validation errors with places, identity and passes."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests._support import check_golden
from typedgen.errors import GrammarError
from typedgen.ir import (
    Alt,
    CharClass,
    Complement,
    Grammar,
    Intersect,
    Lexing,
    Lit,
    Origin,
    Ref,
    Repeat,
    Rule,
    Seq,
    TreeShape,
)
from typedgen.ir.passes import prune_unreachable, simplify

GOLDEN = Path(__file__).parent / "golden"


def _all_nodes_grammar() -> Grammar:
    here = Origin("sample.lark", 3, 7)
    return Grammar(
        [
            Rule(
                "start",
                Seq(
                    (
                        Ref("item", origin=here),
                        Repeat(Seq((Lit.text(","), Ref("item"))), 0, None),
                        Repeat(Lit.text(";"), 0, 1),
                    )
                ),
                origin=here,
            ),
            Rule(
                "item",
                Alt((Ref("NAME"), Ref("NUMBER"), Ref("STRING"), Repeat(Ref("item"), 2, 3))),
                shape=TreeShape(expand_single=True),
            ),
            Rule(
                "NAME",
                Intersect(
                    (
                        Seq((CharClass(((97, 122),)), Repeat(CharClass(((97, 122), (48, 57)))))),
                        Complement(Lit.text("if")),
                    )
                ),
                lexical=True,
                lexing=Lexing.CONTEXTUAL,
            ),
            Rule("NUMBER", Repeat(CharClass(((48, 57),)), 1, None), lexical=True, priority=2),
            Rule(
                "STRING",
                Seq(
                    (
                        Lit.text('"'),
                        Repeat(CharClass.of('"\\\n', negated=True)),
                        Lit(b"\xff\x00\t"),
                        Lit.text("é😀\u200b"),
                        Lit.text('"'),
                    )
                ),
                lexical=True,
            ),
            Rule("WS", Repeat(CharClass.of(" \t\n"), 1, None), lexical=True),
        ],
        "start",
        ignore=("WS",),
    )


def test_canonical_text_golden() -> None:
    check_golden(GOLDEN / "all_nodes.txt", str(_all_nodes_grammar()))


def test_canonical_text_is_stable_and_origin_free() -> None:
    a = _all_nodes_grammar()
    b = _all_nodes_grammar()
    assert str(a) == str(b)
    assert a == b and hash(a) == hash(b) and a.fingerprint == b.fingerprint
    moved = Grammar([Rule("start", Lit.text("x"), origin=Origin("elsewhere", 9, 9))], "start")
    same = Grammar([Rule("start", Lit.text("x"))], "start")
    assert moved == same


def test_pickle_round_trip_keeps_text_and_origins() -> None:
    g = _all_nodes_grammar()
    back = pickle.loads(pickle.dumps(g))
    assert str(back) == str(g)
    assert back["start"].origin == Origin("sample.lark", 3, 7)


def test_origin_formats() -> None:
    assert str(Origin("config.lark", 12, 5)) == "config.lark:12:5"
    assert str(Origin("Invoice", path="items[].sku")) == "Invoice.items[].sku"
    assert str(Origin("postgres", path="select")) == "postgres.select"
    assert str(Origin("Invoice").at("items[]").at("sku")) == "Invoice.items[].sku"


def test_undefined_rule_names_place_and_suggests() -> None:
    ref = Ref("itme", origin=Origin("g.lark", 4, 11))
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("start", ref), Rule("item", Lit.text("x"))], "start")
    err = info.value
    assert err.code == "undefined-rule"
    assert "g.lark:4:11" in str(err)
    assert "did you mean 'item'" in str(err)


def test_undefined_start() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("root", Lit.text("x"))], "start")
    assert info.value.code == "undefined-start"


def test_unreachable_rule() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar(
            [Rule("start", Lit.text("x")), Rule("orphan", Lit.text("y"), origin=Origin("g", 2))],
            "start",
        )
    assert info.value.code == "unreachable-rule"
    assert "orphan" in str(info.value) and "g:2" in str(info.value)


def test_prune_unreachable_keeps_order() -> None:
    rules = [Rule("a", Ref("c")), Rule("b", Lit.text("y")), Rule("c", Lit.text("z"))]
    assert [r.name for r in prune_unreachable(rules, ["a"])] == ["a", "c"]


@pytest.mark.parametrize(
    "body",
    [
        Seq((Lit.text("("), Ref("start"), Lit.text(")"))),  # recursion without a way out
        CharClass((), negated=False),  # empty class
        Alt(()),
    ],
)
def test_empty_language_is_refused(body: object) -> None:
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("start", body, origin=Origin("g", 1, 1))], "start")  # type: ignore[arg-type]
    assert info.value.code == "empty-language"


def test_recursive_terminal_is_refused() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar(
            [
                Rule("start", Ref("A")),
                Rule(
                    "A", Seq((Lit.text("("), Repeat(Ref("A"), 0, 1), Lit.text(")"))), lexical=True
                ),
            ],
            "start",
        )
    assert info.value.code == "recursive-terminal"


def test_terminal_cannot_use_rule() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar(
            [Rule("start", Ref("A")), Rule("A", Ref("b"), lexical=True), Rule("b", Lit.text("x"))],
            "start",
        )
    assert info.value.code == "terminal-uses-rule"


def test_regular_operators_only_in_terminals() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("start", Complement(Lit.text("x")))], "start")
    assert info.value.code == "regular-operator-in-rule"


def test_duplicate_rule() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("start", Lit.text("x")), Rule("start", Lit.text("y"))], "start")
    assert info.value.code == "duplicate-rule"


def test_bad_ignore() -> None:
    with pytest.raises(GrammarError) as info:
        Grammar([Rule("start", Lit.text("x"))], "start", ignore=("WS",))
    assert info.value.code == "bad-ignore"


def test_repeat_range_checked() -> None:
    with pytest.raises(GrammarError):
        Repeat(Lit.text("a"), 3, 2)
    with pytest.raises(GrammarError):
        Repeat(Lit.text("a"), -1, 2)


def test_charclass_normalises_and_drops_surrogates() -> None:
    c = CharClass(((0x61, 0x63), (0x62, 0x66), (0x30, 0x30)))
    assert c.ranges == ((0x30, 0x30), (0x61, 0x66))
    full = CharClass(((0xD000, 0xE000),))
    assert full.codepoints() == ((0xD000, 0xD7FF), (0xE000, 0xE000))
    assert CharClass(((0, 0x10FFFF),), negated=True).is_empty()


def test_simplify_flattens_and_merges() -> None:
    expr = Seq(
        (
            Lit.text("a"),
            Seq((Lit.text("b"), Lit(b""))),
            Alt((Alt((Lit.text("x"), Lit.text("y"))), Lit.text("x"))),
            Repeat(Lit.text("z"), 1, 1),
        )
    )
    out = simplify(expr)
    assert out == Seq((Lit.text("ab"), Alt((Lit.text("x"), Lit.text("y"))), Lit.text("z")))


def test_charclass_canonical_form_is_unique() -> None:
    everything = CharClass(((0, 0x10FFFF),))
    assert everything == CharClass((), negated=True)
    assert str(Grammar([Rule("s", everything)], "s")) == str(
        Grammar([Rule("s", CharClass((), negated=True))], "s")
    )
    assert CharClass.of("a", negated=True).negated
    assert not CharClass(((97, 122),)).negated
    # Surrogates never count: these denote the same characters.
    assert CharClass(((0xD7FF, 0xE000),)) == CharClass(((0xD7FF, 0xD7FF), (0xE000, 0xE000)))


def test_simplify_empty_class_and_repeat_of_nothing() -> None:
    empty = CharClass(())
    assert simplify(empty) == Alt(())
    assert simplify(Repeat(empty, 0, 3)) == Lit(b"")
    assert simplify(Seq((Lit.text("a"), Repeat(empty, 1, 2)))) == Alt(())

"""``lark_grammar(..., embeds=...)``: holes in a Lark grammar filled by whole grammars (one IR)."""

from __future__ import annotations

import textwrap

import pytest

from tests._support import accepts, byte_vocabulary
from typedgen.api import compile as compile_grammar
from typedgen.errors import GrammarError
from typedgen.frontends.lark import lark_grammar
from typedgen.ir import DeferredCheck, Grammar, Lexing, Lit, Ref, Repeat, Rule, Seq

VOCAB = byte_vocabulary()
HOST = """
start: "cfg " NAME " = " value ";"
NAME: /[a-z]+/
"""
NUMBERS = Grammar.from_gbnf('root ::= "[" [0-9]+ ("," [0-9]+)* "]"')


def ok(grammar: Grammar, *texts: str) -> list[bool]:
    compiled = compile_grammar(grammar, VOCAB)
    return [accepts(compiled, t.encode()) for t in texts]


@pytest.mark.parametrize(
    "placeholder",
    ["", "%declare value", 'value: "placeholder" other\nother: "x"', "?value: NAME"],
    ids=["undefined", "declared", "defined", "defined-expand"],
)
def test_a_hole_is_filled_whatever_the_text_says(placeholder: str) -> None:
    g = lark_grammar(HOST + placeholder, embeds={"value": NUMBERS})
    assert g["value"].body == Ref("value__root")
    assert "value__root" in g and "other" not in g and "placeholder" not in str(g)
    assert ok(g, "cfg a = [1,22];", "cfg a = [];", "cfg a = placeholder;", "cfg a = x;") == [
        True,
        False,
        False,
        False,
    ]


def test_embedded_rules_keep_their_lexing_and_the_host_keeps_its_own() -> None:
    sub = lark_grammar('start: WORD ("-" WORD)*\nWORD: /[a-z]+/', lexer="basic")
    g = lark_grammar(HOST, embeds={"value": sub})
    assert g["NAME"].lexing is Lexing.CONTEXTUAL
    assert g["value__WORD"].lexing is Lexing.BASIC
    assert ok(g, "cfg a = b-c;", "cfg a = b;", "cfg a = b-;") == [True, True, False]


def test_terminal_hole_takes_a_regular_grammar() -> None:
    text = 'start: "grab " OBJECT\n%declare OBJECT'
    g = lark_grammar(text, embeds={"OBJECT": Grammar.from_choice(["cup", "ball"])})
    assert g["OBJECT"].lexical and g["OBJECT"].lexing is Lexing.CONTEXTUAL
    assert g["OBJECT__start"].lexical
    assert ok(g, "grab cup", "grab ball", "grab bal") == [True, True, False]


def test_terminal_hole_refuses_a_recursive_grammar() -> None:
    nested = Grammar.from_lark('start: "(" start? ")"')
    with pytest.raises(GrammarError) as err:
        lark_grammar('start: "x" OBJ\n%declare OBJ', embeds={"OBJ": nested})
    assert err.value.code == "embed-not-regular"
    assert "obj" in (err.value.hint or "")


def test_unused_embed_is_an_error_with_a_suggestion() -> None:
    with pytest.raises(GrammarError) as err:
        lark_grammar(HOST + "value: NAME", embeds={"valeu": NUMBERS})
    assert err.value.code == "unused-embed"
    assert "'value'" in (err.value.hint or "")


def test_declared_but_unfilled_is_still_refused() -> None:
    with pytest.raises(GrammarError) as err:
        lark_grammar(HOST + "%declare value")
    assert err.value.code == "lark-declare"


def test_bad_embed_names() -> None:
    for name in ("__x", "a-b", ""):
        with pytest.raises(GrammarError) as err:
            lark_grammar(HOST + "value: NAME", embeds={name: NUMBERS})
        assert err.value.code == "embed-name"
    with pytest.raises(GrammarError) as tmpl:
        lark_grammar('start: t{"a"}\nt{x}: x', embeds={"t": NUMBERS})
    assert tmpl.value.code == "embed-name"


def test_name_clash_is_reported() -> None:
    text = HOST + "value: value__root\nvalue__root: NAME"
    with pytest.raises(GrammarError) as err:
        lark_grammar(text, embeds={"value": NUMBERS})
    assert err.value.code == "embed-name-clash"


def test_the_same_embedded_grammar_twice_gets_two_prefixes() -> None:
    text = 'start: a "/" b\n%declare a b'
    g = lark_grammar(text, embeds={"a": NUMBERS, "b": NUMBERS})
    assert "a__root" in g and "b__root" in g
    assert ok(g, "[1]/[2,3]") == [True]


def _ws_grammar(ws: str) -> Grammar:
    word = Rule("WORD", Repeat(Ref("LETTER"), 1, None), lexical=True, lexing=Lexing.CONTEXTUAL)
    letter = Rule("LETTER", Lit(b"a"), lexical=True)
    blank = Rule("WS", Repeat(Lit(ws.encode()), 1, None), lexical=True, lexing=Lexing.CONTEXTUAL)
    start = Rule("start", Seq((Ref("WORD"), Ref("WORD"))))
    return Grammar([start, word, letter, blank], "start", ignore=("WS",))


def test_embedded_ignores_stay_inside_the_embedded_part() -> None:
    g = lark_grammar('start: "<" x ">"\n%declare x', embeds={"x": _ws_grammar(" ")})
    assert g.ignore == ()
    assert ok(g, "<a a>", "<a   aa >", "< a a>", "<aa>") == [True, True, False, False]


def test_embedded_ignores_the_host_shares_are_the_hosts() -> None:
    host = 'start: "<" x ">"\n%declare x\n%ignore / +/'
    sub = lark_grammar("start: WORD WORD\nWORD: /a+/\n%ignore / +/")
    g = lark_grammar(host, embeds={"x": sub})
    assert g.ignore == ("__IGNORE_0",)
    assert not any(name.endswith("__skip") for name in g.rules)
    assert ok(g, "<a a>", "< a a >") == [True, True]


def test_deferred_checks_and_reserved_terminals_travel() -> None:
    base = _ws_grammar(" ")
    reserved = Rule("NO", Lit(b"--"), lexical=True, lexing=Lexing.BASIC)
    sub = Grammar(
        [*base, reserved],
        "start",
        ignore=base.ignore,
        reserved=("NO",),
        deferred=(DeferredCheck("#/x", "uniqueItems", "not regular"),),
    )
    g = lark_grammar('start: "<" x ">"\n%declare x', embeds={"x": sub})
    assert g.reserved == ("x__NO",)
    assert g.deferred == (DeferredCheck("x:#/x", "uniqueItems", "not regular"),)


def test_errors_in_the_host_keep_their_places() -> None:
    text = textwrap.dedent(
        """
        start: "a" value other
        value: "b" undefined_in_placeholder
        other: "c" undefined_rule
        """
    )
    with pytest.raises(GrammarError) as err:
        lark_grammar(text, embeds={"value": NUMBERS}, source="host.lark")
    assert err.value.code == "undefined-rule"
    assert "undefined_rule" in err.value.message  # the replaced placeholder is not checked
    assert str(err.value.origin).startswith("host.lark:4")

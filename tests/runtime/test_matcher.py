"""The matcher contract (docs/internals/architecture.md section 2) on grammars built in the IR."""

from __future__ import annotations

import random

import numpy as np
import pytest

import typedgen
from tests._support import accepts, byte_vocabulary, prefix_ok
from typedgen import compile as tg_compile
from typedgen.errors import CompileBudgetError
from typedgen.ir import Alt, CharClass, Grammar, Lexing, Lit, Ref, Repeat, Rule, Seq
from typedgen.runtime import engine_of
from typedgen.runtime.engine import DEAD

EXTRA = (b"ab", b"ba", b"(a", b"a)", b"+a", b"a+a", b"))", b"((", b" ", b"  ", b"1+", b"12")
VOCAB = byte_vocabulary(EXTRA)


def tok(data: bytes) -> int:
    return VOCAB.tokens.index(data)


def _expr_grammar() -> Grammar:
    # Left-recursive, nullable rule, parentheses: e -> e "+" t | t; t -> "a" | "(" e ")" | n
    return Grammar(
        [
            Rule("e", Alt((Seq((Ref("e"), Lit.text("+"), Ref("t"))), Ref("t")))),
            Rule(
                "t", Alt((Lit.text("a"), Seq((Lit.text("("), Ref("e"), Lit.text(")"))), Ref("n")))
            ),
            Rule("n", Seq((Ref("sign"), Repeat(CharClass(((48, 57),)), 1, None)))),
            Rule("sign", Alt((Lit(b""), Lit.text("-")))),
        ],
        "e",
    )


@pytest.fixture(scope="module")
def expr():  # type: ignore[no-untyped-def]
    return tg_compile(_expr_grammar(), VOCAB, cache=False)


def brute_mask(compiled, state: int) -> set[int]:  # type: ignore[no-untyped-def]
    engine = engine_of(compiled)
    out = {
        t
        for t, data in enumerate(compiled.vocabulary.tokens)
        if data
        and t not in compiled.vocabulary.special_ids
        and engine.advance_bytes(state, data) != DEAD
    }
    if engine.is_complete(state):
        out |= set(compiled.vocabulary.eos_ids)
    return out


def test_language(expr) -> None:  # type: ignore[no-untyped-def]
    for text in [b"a", b"a+a", b"(a+(a))+a", b"12+-3", b"((((a))))", b"-0"]:
        assert accepts(expr, text), text
    for text in [b"", b"+a", b"a+", b"(a", b"a)", b"--1", b"a a"]:
        assert not accepts(expr, text), text
    assert prefix_ok(expr, b"(a+") and not prefix_ok(expr, b"a)")


def test_rejected_token_leaves_state_unchanged(expr) -> None:  # type: ignore[no-untyped-def]
    m = expr.matcher()
    assert m.accept_token(tok(b"(a"))
    before = m.allowed_token_ids().tolist()
    assert not m.accept_token(tok(b"))"))
    assert not m.accept_token(0)  # EOS: not complete
    assert m.allowed_token_ids().tolist() == before
    assert m.accept_token(tok(b")"))
    assert m.is_complete()


def test_eos_exactly_when_complete_and_terminates(expr) -> None:  # type: ignore[no-untyped-def]
    m = expr.matcher()
    assert 0 not in m.allowed_token_ids()
    m.accept_token(tok(b"a"))
    assert m.is_complete() and 0 in m.allowed_token_ids()
    assert m.accept_token(0) and m.is_terminated() and m.is_complete()
    assert not m.accept_token(tok(b"+"))
    assert m.allowed_token_ids().size == 0
    m.rollback(1)
    assert not m.is_terminated() and m.accept_token(tok(b"+a"))


def test_bitmask_layout(expr) -> None:  # type: ignore[no-untyped-def]
    m = expr.matcher()
    m.accept_token(tok(b"a"))
    words = np.zeros((VOCAB.size + 31) // 32, dtype=np.int32)
    m.fill_next_token_bitmask(words)
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")[: VOCAB.size]
    assert set(np.flatnonzero(bits).tolist()) == set(m.allowed_token_ids().tolist())
    batch = np.zeros((3, words.size), dtype=np.int32)
    m.fill_next_token_bitmask(batch, 2)
    assert (batch[2] == words).all() and not batch[:2].any()


def test_rollback_fork_reset(expr) -> None:  # type: ignore[no-untyped-def]
    m = expr.matcher()
    for t in (b"(", b"a", b"+"):
        assert m.accept_token(tok(t))
    f = m.fork()
    assert f.accept_token(tok(b"a)")) and f.is_complete()
    assert not m.is_complete() and m.num_accepted == 3
    m.rollback(2)
    assert m.num_accepted == 1 and m.accept_token(tok(b"a)"))
    with pytest.raises(ValueError):
        m.rollback(5)
    m.reset()
    assert m.num_accepted == 0 and not m.is_complete()


def test_forced_bytes() -> None:
    g = Grammar(
        [
            Rule("start", Seq((Lit.text('{"name": "'), Ref("v"), Lit.text('"}')))),
            Rule("v", Repeat(CharClass(((97, 122),)), 1, None)),
        ],
        "start",
    )
    c = tg_compile(g, VOCAB, cache=False)
    m = c.matcher()
    assert m.forced_bytes() == b'{"name": "'
    assert m.accept_bytes(b'{"name": "bob')
    assert m.forced_bytes() == b""
    assert m.accept_bytes(b'"')
    assert m.forced_bytes() == b"}"


@pytest.mark.parametrize("seed", range(6))
def test_mask_equals_brute_force_on_random_walks(expr, seed: int) -> None:  # type: ignore[no-untyped-def]
    rnd = random.Random(seed)
    m = expr.matcher()
    for _ in range(25):
        state = m._history[-1]
        allowed = set(m.allowed_token_ids().tolist())
        assert allowed == brute_mask(expr, state)
        choices = sorted(allowed - {0})
        if not choices:
            break
        assert m.accept_token(rnd.choice(choices))


def test_ambiguous_grammar() -> None:
    # s -> s s | "a" | "aa" : highly ambiguous, still exact
    g = Grammar([Rule("s", Alt((Seq((Ref("s"), Ref("s"))), Lit.text("a"), Lit.text("aa"))))], "s")
    c = tg_compile(g, VOCAB, cache=False)
    assert accepts(c, b"a" * 17)
    assert not accepts(c, b"")
    assert not prefix_ok(c, b"ab")


def test_nullable_start_and_empty_string() -> None:
    g = Grammar(
        [
            Rule("s", Repeat(Seq((Lit.text("x"), Ref("t"))), 0, None)),
            Rule("t", Alt((Lit(b""), Lit.text("y")))),
        ],
        "s",
    )
    c = tg_compile(g, VOCAB, cache=False)
    m = c.matcher()
    assert m.is_complete() and 0 in m.allowed_token_ids()
    for text in [b"", b"x", b"xyx", b"xx"]:
        assert accepts(c, text)
    assert not accepts(c, b"y")


def _kw_grammar(mode: Lexing) -> Grammar:
    def term(name: str, body):  # type: ignore[no-untyped-def]
        return Rule(name, body, lexical=True, lexing=mode)

    return Grammar(
        [
            Rule("start", Alt((Seq((Ref("IF"), Ref("NAME"))), Seq((Ref("NAME"), Ref("NAME")))))),
            term("IF", Lit.text("if")),
            term("NAME", Repeat(CharClass(((97, 122),)), 1, None)),
            term("WS", Repeat(Lit.text(" "), 1, None)),
        ],
        "start",
        ignore=("WS",),
    )


def test_lexing_free_is_the_plain_cfg_language() -> None:
    c = tg_compile(_kw_grammar(Lexing.FREE), VOCAB, cache=False)
    assert accepts(c, b"ifx")  # "if" "x"
    assert accepts(c, b"ab")  # "a" "b": scannerless
    assert accepts(c, b"if x")


def test_lexing_contextual_is_longest_match_among_expected() -> None:
    c = tg_compile(_kw_grammar(Lexing.CONTEXTUAL), VOCAB, cache=False)
    assert not accepts(c, b"ab")  # one NAME, then nothing
    assert accepts(c, b"a b")
    assert accepts(c, b"if x")
    assert not accepts(c, b"ifx")  # NAME "ifx" is longer
    assert accepts(c, b"ifx y")


def test_lexing_basic_keywords_win_ties() -> None:
    c = tg_compile(_kw_grammar(Lexing.BASIC), VOCAB, cache=False)
    assert accepts(c, b"if x")
    assert not accepts(c, b"x if")  # "if" lexes as IF, never as NAME
    assert accepts(c, b"x iff")


def test_dfa_budget_is_a_typed_error() -> None:
    g = Grammar([Rule("s", Repeat(CharClass(((97, 122),)), 0, 50_000), lexical=True)], "s")
    with pytest.raises(CompileBudgetError) as info:
        tg_compile(g, VOCAB, cache=False)
    assert info.value.code in {"dfa-budget", "nfa-budget"}


def test_ignore_with_free_terminals_and_inline_literals() -> None:
    g = Grammar(
        [
            Rule(
                "start",
                Seq(
                    (
                        Lit.text("let"),
                        Ref("NAME"),
                        Lit.text("="),
                        Repeat(CharClass(((48, 57),)), 1, None),
                    )
                ),
            ),
            Rule("NAME", Repeat(CharClass(((97, 122),)), 1, None), lexical=True),
            Rule("WS", Repeat(Lit.text(" "), 1, None), lexical=True),
        ],
        "start",
        ignore=("WS",),
    )
    c = tg_compile(g, VOCAB, cache=False)
    for text in [b"let x=1", b" let  x = 1 2 ", b"letx=12"]:
        assert accepts(c, text), text
    assert not accepts(c, b"le t x=1")


def test_is_dead_when_no_token_can_continue() -> None:
    # A vocabulary without the byte "b": after "a" nothing can follow and the text is incomplete
    # (compiling says so: tests/compiler/test_checks.py).
    vocab = typedgen.Vocabulary(
        [b"", *(bytes([b]) for b in range(256) if b != ord("b"))], eos_ids=[0]
    )
    grammar = Grammar([Rule("s", Alt((Lit.text("ab"), Lit.text("c"))))], "s")
    with pytest.warns(typedgen.CompileWarning, match="after 'a'"):
        c = tg_compile(grammar, vocab, cache=False)
    m = c.matcher()
    assert not m.is_dead()
    assert m.accept_bytes(b"a")
    assert m.is_dead() and not m.is_complete()
    assert m.allowed_token_ids().size == 0


def test_wider_bitmask_is_zero_filled(expr) -> None:  # type: ignore[no-untyped-def]
    m = expr.matcher()
    words = np.full((VOCAB.size + 31) // 32 + 4, -1, dtype=np.int32)
    m.fill_next_token_bitmask(words)
    assert not words[-4:].any() and words[:-4].any()


@pytest.mark.parametrize("engine", ["native", "python"])
def test_only_whitespace_follows(smollm2_vocab: typedgen.Vocabulary, engine: str) -> None:
    """After SQL's closing ';' only (ignored) whitespace may follow: decoding ends there. Where
    a clause, a statement or a line could still follow, it does not."""
    from typedgen.compiler.grammar_compiler import Compiler

    def ends(output_type: object, text: bytes) -> bool:
        compiler = Compiler(engine=engine, disk_cache=False)
        compiled = tg_compile(output_type, smollm2_vocab, compiler=compiler)
        matcher = compiled.matcher()
        assert matcher.accept_bytes(text)
        return matcher.only_whitespace_follows()

    sql = typedgen.Sql("sqlite")
    assert ends(sql, b"SELECT a FROM t;")
    assert ends(sql, b"SELECT a FROM t; \n")
    assert not ends(sql, b"SELECT a FROM t")  # WHERE, ORDER BY, ';' may follow
    assert not ends(sql, b"SELECT a FROM t ")
    lines = typedgen.Lark('start: LINE ("\\n" LINE)*\nLINE: /[a-z]+/\n')
    assert not ends(lines, b"ab")  # a newline, then another line
    assert not ends(typedgen.Regex(r"a\s*b?"), b"a ")  # 'b' may follow the spaces
    assert not ends(typedgen.Regex(r"a"), b"")  # incomplete
    assert ends(typedgen.Regex(r"a"), b"a")  # nothing may follow
    compiled = tg_compile(typedgen.Regex(r"a\s*"), smollm2_vocab)
    terminated = compiled.matcher()
    eos = next(iter(smollm2_vocab.eos_ids))
    assert terminated.accept_bytes(b"a") and terminated.accept_token(eos)
    assert terminated.only_whitespace_follows()  # as the loop's end check had it

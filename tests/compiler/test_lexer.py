"""The combined lexer's ranks at the end of a lexeme, in both engines (issue 17, item 3).

A basic-lexing terminal that accepts a lexeme with no way on, while a higher-ranked basic
terminal accepts the same text, can never end there: keeping it alive made the token that
closes the lexeme allowed whenever the parser expected the lower-ranked terminal, and the
matcher was dead right after it.
"""

from __future__ import annotations

from collections import deque

import pytest

import typedgen
from tests._support import accepts, byte_vocabulary
from typedgen.compiler.backend import _import_native
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir import Alt, CharClass, Grammar, Lexing, Lit, Ref, Repeat, Rule, Seq
from typedgen.runtime import engine_of
from typedgen.runtime.engine import DEAD

ENGINES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(_import_native() is None, reason="the native core is not built"),
    ),
]
VOCAB = byte_vocabulary((b"ab", b"ac", b"ab ", b"abx", b"x ab", b"if", b"if "))


def _compile(grammar: Grammar, engine: str, vocab: Vocabulary = VOCAB) -> CompiledGrammar:
    return typedgen.Compiler(engine=engine, disk_cache=False).compile(grammar, vocab, cache=False)


def _term(name: str, body: object, mode: Lexing, *, priority: int = 0) -> Rule:
    return Rule(name, body, lexical=True, lexing=mode, priority=priority)  # type: ignore[arg-type]


def _outranked_grammar() -> Grammar:
    # KW = "ab" outranks WORD = /a[bc]/ (a literal beats a pattern of the same priority); the
    # parser only ever expects WORD, so "ab" can never be a lexeme here, only "ac".
    return Grammar(
        [
            Rule("start", Seq((Ref("WORD"), Repeat(Seq((Ref("SEP"), Ref("WORD"))), 0, None)))),
            _term("WORD", Seq((Lit.text("a"), CharClass(((98, 99),)))), Lexing.BASIC),
            _term("SEP", Lit.text(" "), Lexing.BASIC),
            _term("KW", Lit.text("ab"), Lexing.BASIC),
        ],
        "start",
        reserved=("KW",),
    )


def brute_mask(compiled: CompiledGrammar, state: int) -> set[int]:
    """The tokens whose bytes the byte-level stepping accepts (EOS when complete)."""
    engine = engine_of(compiled)
    vocab = compiled.vocabulary
    out = {
        t
        for t, data in enumerate(vocab.tokens)
        if data and t not in vocab.special_ids and engine.advance_bytes(state, data) != DEAD
    }
    if engine.is_complete(state):
        out |= set(vocab.eos_ids)
    return out


def dead_ends(compiled: CompiledGrammar, max_states: int = 400) -> list[bytes]:
    """Texts reached by allowed tokens after which nothing is allowed (not even EOS).

    Breadth-first over the states the mask leads to; checks on the way that the mask is
    exactly the brute-force set of tokens the byte-level stepping accepts.
    """
    engine = engine_of(compiled)
    vocab = compiled.vocabulary
    seen = {engine.initial: b""}
    queue = deque([engine.initial])
    found: list[bytes] = []
    while queue and len(seen) < max_states:
        state = queue.popleft()
        m = compiled.matcher()
        m._history = [state]  # a matcher placed in a given state
        allowed = set(m.allowed_token_ids().tolist())
        assert allowed == brute_mask(compiled, state), seen[state]
        if not allowed:
            found.append(seen[state])
            continue
        for t in sorted(allowed - set(vocab.eos_ids)):
            nxt = engine.advance_token(state, t)
            if nxt not in seen:
                seen[nxt] = seen[state] + vocab.tokens[t]
                queue.append(nxt)
    return found


@pytest.mark.parametrize("engine", ENGINES)
def test_outranked_final_lexeme_is_not_allowed(engine: str) -> None:
    c = _compile(_outranked_grammar(), engine)
    m = c.matcher()
    allowed = set(m.allowed_token_ids().tolist())
    assert VOCAB.tokens.index(b"ac") in allowed
    assert VOCAB.tokens.index(b"ab") not in allowed  # was allowed, then the matcher was dead
    assert m.accept_bytes(b"a")
    assert not m.accept_bytes(b"b")
    assert accepts(c, b"ac ac")
    assert not accepts(c, b"ab")
    assert dead_ends(c) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_outranked_lexeme_that_goes_on_stays_alive(engine: str) -> None:
    # WORD = /a[bc]+/ may go on after "ab" (as "abc"), so "ab" stays a live prefix, but it can
    # never end there: KW wins the tie.
    g = Grammar(
        [
            Rule("start", Ref("WORD")),
            _term(
                "WORD", Seq((Lit.text("a"), Repeat(CharClass(((98, 99),)), 1, None))), Lexing.BASIC
            ),
            _term("KW", Lit.text("ab"), Lexing.BASIC),
        ],
        "start",
        reserved=("KW",),
    )
    c = _compile(g, engine)
    m = c.matcher()
    assert m.accept_bytes(b"ab")
    assert not m.is_complete()
    assert m.accept_bytes(b"c") and m.is_complete()
    assert dead_ends(c) == []


@pytest.mark.parametrize("engine", ENGINES)
def test_keywords_still_win_and_names_still_go_on(engine: str) -> None:
    g = Grammar(
        [
            Rule("start", Alt((Seq((Ref("IF"), Ref("NAME"))), Seq((Ref("NAME"), Ref("NAME")))))),
            _term("IF", Lit.text("if"), Lexing.BASIC),
            _term("NAME", Repeat(CharClass(((97, 122),)), 1, None), Lexing.BASIC),
            _term("WS", Repeat(Lit.text(" "), 1, None), Lexing.BASIC),
        ],
        "start",
        ignore=("WS",),
    )
    c = _compile(g, engine)
    assert accepts(c, b"if x")
    assert accepts(c, b"x iff")
    assert not accepts(c, b"x if")
    assert dead_ends(c) == []

"""Static checks at compile time (issue 17, item 4): bytes the vocabulary cannot write, and
terminals that longest-match lexing can never end where they stand. Warnings where some path is
affected, errors where every path is; each finding names its place."""

from __future__ import annotations

import warnings

import pytest

import typedgen
from tests._support import accepts, byte_vocabulary
from typedgen import grammars
from typedgen.compiler.checks import find_problems, writable_bytes
from typedgen.compiler.lowering import lower
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import CompileError, CompileWarning
from typedgen.ir import Grammar

NO_B = Vocabulary([b"", *(bytes([b]) for b in range(256) if b != ord("b"))], eos_ids=[0])


def _compile(grammar: Grammar, vocab: Vocabulary) -> typedgen.CompiledGrammar:
    return typedgen.Compiler(disk_cache=False).compile(grammar, vocab, cache=False)


def test_smollm2_lacks_21_byte_values(smollm2_vocab: Vocabulary) -> None:
    missing = [b for b in range(256) if not writable_bytes(smollm2_vocab)[b]]
    assert missing == [4, 6, 19, 20, 22, 29, 192, 193, 241, 242, *range(245, 256)]


def test_a_terminal_the_vocabulary_cannot_write_is_an_error_when_every_path_needs_it() -> None:
    g = Grammar.from_lark('start: "a" WORD\nWORD: "bc" | "bd"')
    with pytest.raises(CompileError) as info:
        _compile(g, NO_B)
    assert info.value.code == "vocabulary-bytes"
    assert "'b'" in info.value.message and "WORD" in info.value.message
    assert info.value.origin is not None and "2:" in str(info.value.origin)  # WORD's line


def test_a_prefix_the_vocabulary_cannot_finish_is_a_warning_with_the_place() -> None:
    g = Grammar.from_lark('start: WORD\nWORD: "ab" | "c"')
    with pytest.warns(CompileWarning) as record:
        c = _compile(g, NO_B)
    (w,) = [r.message for r in record if isinstance(r.message, CompileWarning)]
    assert w.code == "vocabulary-bytes" and w.origin is not None
    assert "after 'a'" in w.message and w.hint
    # The dead end it announces: the mask allows "a", after which nothing is allowed.
    m = c.matcher()
    assert m.accept_bytes(b"a") and m.is_dead()
    assert accepts(c, b"c")


def test_control_bytes_with_the_smollm2_vocabulary(smollm2_vocab: Vocabulary) -> None:
    g = Grammar.from_lark('start: "x" CTRL | "y"\nCTRL: /\\x04+/')
    findings, _ = find_problems(lower(g), smollm2_vocab)
    assert [f.code for f in findings] == ["vocabulary-bytes"]
    assert "CTRL" in findings[0].message and "0x04" in findings[0].message


def test_a_terminal_that_can_never_end_anywhere_is_an_error() -> None:
    # NAME eats the "x" that must follow it: no text of the grammar lexes.
    g = Grammar.from_lark('start: NAME "x"\nNAME: /[a-z]+/')
    with pytest.raises(CompileError) as info:
        _compile(g, byte_vocabulary())
    assert info.value.code == "lexing-never-ends"
    assert "NAME" in info.value.message and "start" in info.value.message


def test_a_terminal_that_can_never_end_in_one_rule_is_a_warning() -> None:
    g = Grammar.from_lark('start: "#" NAME "x" | NAME "1"\nNAME: /[a-z]+/')
    with pytest.warns(CompileWarning) as record:
        c = _compile(g, byte_vocabulary())
    (w,) = [r.message for r in record if isinstance(r.message, CompileWarning)]
    assert w.code == "lexing-never-ends" and "NAME" in w.message
    assert w.origin is not None
    assert accepts(c, b"ab1")
    # The continuation it announces: after "#a" the model may write letters forever, and no
    # text completes it.
    m = c.matcher()
    assert m.accept_bytes(b"#a") and not m.is_dead() and not m.is_complete()
    assert m.shortest_completion() is None


def test_separators_and_free_terminals_are_fine() -> None:
    quiet = [
        'start: NAME "x"\nNAME: /[a-z]+/\n%ignore " "',  # a space ends NAME
        'start: NAME ";"\nNAME: /[a-z]+/',  # ";" cannot continue NAME
        'start: NAME "x"?\nNAME: /[a-z]+/',  # the text may end after NAME
    ]
    for text in quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileWarning)
            _compile(Grammar.from_lark(text), byte_vocabulary())


@pytest.mark.parametrize("dialect", ["postgres", "tsql"])
def test_sql_and_the_library_have_no_findings(dialect: str, smollm2_vocab: Vocabulary) -> None:
    pg = lower(typedgen.grammar_of(typedgen.Sql(dialect)))
    assert find_problems(pg, smollm2_vocab) == ([], set())
    for name in ("json", "ini", "toml", "csv"):
        pg = lower(grammars.load(name))
        assert find_problems(pg, smollm2_vocab) == ([], set()), name


def test_the_cost_is_recorded() -> None:
    c = _compile(Grammar.from_lark('start: NAME ";"\nNAME: /[a-z]+/'), byte_vocabulary())
    assert c.timings["checks_s"] >= 0

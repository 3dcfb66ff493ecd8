"""The reasoning scratchpad: its exact character bound and how its text is split off."""

from __future__ import annotations

from typing import Any

import pytest

import typedgen
from typedgen.ir import Grammar
from typedgen.reasoning import Scratchpad, scratchpad_from, split, with_scratchpad


@pytest.mark.parametrize("bound", [1, 5, 14, 15, 16, 17, 31, 32, 33, 40, 70])
def test_scratchpad_length_is_bounded_exactly(smollm2_vocab: Any, bound: int) -> None:
    grammar = with_scratchpad(Grammar.from_choice(["yes", "no"]), bound)
    compiled = typedgen.compile(grammar, smollm2_vocab)
    for length in sorted({0, 1, bound - 1, bound, bound + 1, 15, 16, 17, 2 * 16}):
        text = "Reasoning: " + "é" * length + "\nAnswer: no"  # é: counted as one character
        matcher = compiled.matcher()
        accepted = matcher.accept_bytes(text.encode()) and matcher.is_complete()
        assert accepted == (length <= bound), (bound, length)


def test_scratchpad_is_one_line(smollm2_vocab: Any) -> None:
    compiled = typedgen.compile(with_scratchpad(Grammar.from_choice(["a"]), 50), smollm2_vocab)
    matcher = compiled.matcher()
    assert matcher.accept_bytes(b"Reasoning: one\n")
    assert matcher.forced_bytes() == b"Answer: a"


def test_split() -> None:
    assert split("Reasoning: because\nAnswer: 42") == ("because", "42")
    assert split("Reasoning: unfinished") == ("unfinished", "")


def test_bad_bound_and_name_clash() -> None:
    with pytest.raises(typedgen.OptionError, match="positive") as bound:
        with_scratchpad(Grammar.from_choice(["a"]), 0)
    assert bound.value.code == "reasoning-bound" and isinstance(bound.value, ValueError)
    clash = Grammar.from_lark('start: typedgen_scratch_text\ntypedgen_scratch_text: "a"')
    with pytest.raises(typedgen.GrammarError, match="rename") as named:
        with_scratchpad(clash, 10)
    assert named.value.code == "reasoning-rule-clash"
    assert str(named.value.origin).startswith("<lark>:2")  # the clashing rule's own line


def test_scratchpad_keeps_reserved_terminals(smollm2_vocab: Any) -> None:
    """SQL grammars reserve keyword terminals; the scratchpad keeps them (it dropped them, and
    ``reasoning=True`` with any ``Sql`` type failed to build)."""
    sql = typedgen.Sql("sqlite")
    from typedgen.outputs import adapter_for

    grammar = adapter_for(sql).grammar(sql)
    assert grammar.reserved
    padded = with_scratchpad(grammar, 40)
    assert padded.reserved == grammar.reserved
    matcher = typedgen.compile(padded, smollm2_vocab).matcher()
    assert matcher.accept_bytes(b"Reasoning: count them\nAnswer: SELECT 1")
    assert matcher.is_complete()
    bare = typedgen.compile(grammar, smollm2_vocab)
    for answer in (b"SELECT select ", b"SELECT a FROM from ", b"SELECT a AS b FROM t "):
        want = bare.matcher().accept_bytes(answer)
        got = (
            typedgen.compile(padded, smollm2_vocab)
            .matcher()
            .accept_bytes(b"Reasoning: x\nAnswer: " + answer)
        )
        assert got == want, answer
    assert not bare.matcher().accept_bytes(b"SELECT select ")


@pytest.mark.parametrize("bound", [1, 15, 16, 17, 40])
def test_fenced_scratchpad_bound_and_fence(smollm2_vocab: Any, bound: int) -> None:
    """The fenced text counts characters other than backticks; three backticks open the answer."""
    grammar = Scratchpad("fenced", bound, tag="sql").grammar(Grammar.from_choice(["yes", "no"]))
    compiled = typedgen.compile(grammar, smollm2_vocab)
    units = ["a", "`b", "``c", "\n"]  # each counts as one character
    for length in sorted({0, 1, bound - 1, bound, bound + 1} - {-1}):
        text = "".join(units[i % 4] for i in range(length)) + "```sql\nno\n```"
        matcher = compiled.matcher()
        accepted = matcher.accept_bytes(text.encode()) and matcher.is_complete()
        assert accepted == (length <= bound), (bound, text)
    if bound < 30:
        return
    matcher = compiled.matcher()
    assert matcher.accept_bytes(b"Think.\nThen `x` and ``y``.\n```")
    assert matcher.forced_bytes() == b"sql\n"
    assert not compiled.matcher().accept_bytes(b"```json")
    assert not compiled.matcher().accept_bytes(b"```sql\nmaybe")


def test_fenced_split_and_options() -> None:
    pad = Scratchpad("fenced", tag="sql")
    text = "Count them.\n```sql\nSELECT 1\n```"
    reasoning, answer, at = pad.split(text)
    assert (reasoning, answer) == ("Count them.\n", "SELECT 1")
    assert text[at:].startswith(answer)
    assert pad.split("still thinking")[1] == ""
    assert (
        pad.instruction() == "You may explain first; then write the answer in a ```sql code block."
    )
    assert Scratchpad().instruction() is None
    assert scratchpad_from(True) == Scratchpad() and scratchpad_from(False) is None
    assert scratchpad_from(300) == Scratchpad(max_chars=300)
    assert scratchpad_from("fenced") == Scratchpad("fenced")
    for bad in ("free", 0, 2.5):
        with pytest.raises(typedgen.OptionError) as err:
            scratchpad_from(bad)
        assert err.value.code == "reasoning-bound"
    with pytest.raises(typedgen.OptionError, match="tag"):
        Scratchpad("fenced", tag="s q")

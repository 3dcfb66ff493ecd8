"""Token tables against brute force on the real SmolLM2 vocabulary.

The shortcuts of the table builder (shared sub-walks, delegation to fresh states, quiet loops and
bounded chains) must give exactly the mask that stepping every token's bytes gives.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import typedgen
from typedgen.compiler.compiled import EngineLimits
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir import Grammar
from typedgen.runtime import engine_of
from typedgen.runtime.engine import DEAD

GRAMMARS = {
    "bounded-chain": (
        "gbnf",
        'root ::= "{\\"name\\": \\"" [A-Za-z ]{1,24} "\\", \\"n\\": " [0-9]{1,3} "}"',
    ),
    "json-string-loop": ("gbnf", 'root ::= "[" ("\\"" [^"\\\\]* "\\"" ("," " "?)?)* "]"'),
    "contextual-identifiers": (
        "lark",
        'start: (NAME "=" NAME ";")+\nNAME: /[a-z_][a-z0-9_]*/\n%ignore " "',
    ),
    "free-adjacency": ("gbnf", 'root ::= ([a-z]+ " "?)+ "."'),
    "calc": ("lark", (Path(__file__).resolve().parents[1] / "grammars" / "calc.lark").read_text()),
}


def _grammar(kind: str, text: str) -> Grammar:
    return Grammar.from_gbnf(text) if kind == "gbnf" else Grammar.from_lark(text)


def _brute(compiled: typedgen.CompiledGrammar, state: int) -> set[int]:
    engine = engine_of(compiled)
    vocab = compiled.vocabulary
    allowed = {
        t
        for t, data in enumerate(vocab.tokens)
        if data and t not in vocab.special_ids and engine.advance_bytes(state, data) != DEAD
    }
    if engine.is_complete(state):
        allowed |= set(vocab.eos_ids)
    return allowed


@pytest.mark.parametrize("name", list(GRAMMARS))
def test_masks_equal_brute_force(name: str, smollm2_vocab: Vocabulary) -> None:
    kind, text = GRAMMARS[name]
    compiled = typedgen.compile(_grammar(kind, text), smollm2_vocab, cache=False)
    rnd = random.Random(name)
    m = compiled.matcher()
    for _ in range(6):
        state = m._history[-1]
        allowed = set(m.allowed_token_ids().tolist())
        assert allowed == _brute(compiled, state), f"{name}: mask differs after {m.num_accepted}"
        # Prefer short tokens so the walk visits several lexemes.
        choices = sorted(t for t in allowed if t not in smollm2_vocab.eos_ids)
        if not choices:
            break
        short = [t for t in choices if len(smollm2_vocab.tokens[t]) <= 3] or choices
        assert m.accept_token(rnd.choice(short))


def test_walk_budget_is_a_compile_error(smollm2_vocab: Vocabulary) -> None:
    from typedgen.errors import CompileBudgetError

    compiler = typedgen.Compiler(disk_cache=False, limits=EngineLimits(walk_budget=50))
    with pytest.raises(CompileBudgetError) as info:
        compiler.compile(_grammar(*GRAMMARS["free-adjacency"]), smollm2_vocab, cache=False)
    assert info.value.code == "token-table-budget" and info.value.hint


def test_budget_at_run_time_falls_back_to_exact_stepping(smollm2_vocab: Vocabulary) -> None:
    compiled = typedgen.compile(_grammar(*GRAMMARS["calc"]), smollm2_vocab, cache=False)
    m = compiled.matcher()
    assert m.accept_bytes(b"x = 1 + ab")  # mid-identifier: a lexer state with no table yet
    engine_of(compiled).set_walk_budget(5)
    with pytest.warns(RuntimeWarning, match="exceeded its budget"):
        allowed = set(m.allowed_token_ids().tolist())
    assert allowed == _brute(compiled, m._history[-1])

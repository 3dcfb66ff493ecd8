"""Terminal automata: the native builder and the Python reference give equal DFAs, array for
array (docs/internals/engine.md, "Two engines, one behaviour"), and equal refusals."""

from __future__ import annotations

import random

import numpy as np
import pytest

import typedgen
from typedgen import grammars
from typedgen.compiler import automata
from typedgen.compiler.automata import DFA, expr_to_dfa
from typedgen.errors import CompileBudgetError
from typedgen.ir.nodes import Alt, Expr, Lit, Ref


def _no_refs(ref: Ref) -> DFA:
    raise AssertionError(f"unexpected reference {ref.name}")


def _both(expr: Expr, budget: int) -> tuple[DFA | str, DFA | str]:
    out: list[DFA | str] = []
    for native in (False, True):
        automata._DFA_CACHE.clear()
        try:
            out.append(expr_to_dfa(expr, _no_refs, budget=budget, native=native))
        except CompileBudgetError as exc:
            out.append(exc.code)
    return out[0], out[1]


def _assert_equal(py: DFA | str, nat: DFA | str) -> None:
    if isinstance(py, str) or isinstance(nat, str):
        assert py == nat
        return
    assert np.array_equal(py.trans, nat.trans)
    assert np.array_equal(py.accept, nat.accept)


def _words(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out: set[bytes] = set()
    while len(out) < n:
        stem = "".join(rng.choice("aeiklmnorstu") for _ in range(rng.randint(2, 7)))
        out.add(f'"{stem}-{rng.randint(0, 99)}"'.encode())
    return sorted(out)


@pytest.mark.parametrize("n", [1, 7, 60])
def test_enum_tries_are_equal(n: int) -> None:
    expr = Alt(tuple(Lit(w) for w in _words(n, n)))
    py, nat = _both(expr, 20_000)
    _assert_equal(py, nat)
    assert isinstance(py, DFA)
    for w in _words(n, n):
        assert py.matches(w)
    assert not py.matches(b'"zz-1000"')


def test_enum_budget_applies_to_the_minimal_automaton() -> None:
    """A trie of 400 words has more nodes than the state budget; its minimal DFA (shared
    endings) fewer. It compiles (it was refused while the trie counted), in both engines."""
    words = _words(400, 3)
    expr = Alt(tuple(Lit(w) for w in words))
    trie_nodes = 1 + len({w[:i] for w in words for i in range(1, len(w) + 1)})
    full, _ = _both(expr, 20_000)
    assert isinstance(full, DFA) and 2 * full.n_states < trie_nodes
    budget = (full.n_states + trie_nodes) // 2
    py, nat = _both(expr, budget)
    _assert_equal(py, nat)
    _assert_equal(py, full)
    # Past 8x the budget the trie itself is refused, like an NFA; below the minimal size the
    # state budget refuses: the same codes in both engines.
    assert _both(expr, trie_nodes // 9) == ("nfa-budget", "nfa-budget")
    assert 8 * (full.n_states - 1) >= trie_nodes
    assert _both(expr, full.n_states - 1) == ("dfa-budget", "dfa-budget")


@pytest.mark.parametrize("name", grammars.names())
def test_library_terminals_are_equal(name: str) -> None:
    grammar = grammars.load(name)
    for rule in grammar.rules.values():
        if rule.lexical and not any(isinstance(n, Ref) for n in _walk(rule.body)):
            _assert_equal(*_both(rule.body, 20_000))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "format": "email"},
        {"type": "string", "format": "date-time"},
        {"type": "string", "pattern": "^[A-Z]{2,4}-[0-9]{3,5}$", "maxLength": 9},
        {"type": "integer", "minimum": -1500, "maximum": 99999},
    ],
    ids=["email", "date-time", "pattern", "range"],
)
def test_schema_terminals_are_equal(schema: dict[str, object]) -> None:
    grammar = typedgen.ir.Grammar.from_json_schema(schema, spellings="canonical")
    bodies = [r.body for r in grammar.rules.values() if r.lexical]
    bodies.append(grammar.rules[grammar.start].body)
    for body in bodies:
        if not any(isinstance(n, Ref) for n in _walk(body)):
            _assert_equal(*_both(body, 20_000))


def _walk(expr: Expr) -> list[Expr]:
    from typedgen.ir.nodes import walk

    return list(walk(expr))

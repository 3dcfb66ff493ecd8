"""Soundness: random walks through the masks produce SQL that sqlglot parses and round-trips.

Every supported dialect, with and without a schema, on the real SmolLM2 vocabulary. A uniform
walk mostly spells long identifiers, so the walk prefers tokens that are whole SQL words or
single punctuation characters, and stops (with some probability) wherever the text may end.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import typedgen
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.frontends.sql import DIALECTS

from ._sql import round_trips

SCHEMA = {
    "singer": {"singer_id": "int", "name": "text", "age": "int", "country": "text"},
    "concert": {"concert_id": "int", "singer_id": "int", "year": "int", "stadium": "text"},
}
FAVOURED = {"A", "B", "T", "X", "T1", "T2", "1", "2", "0", "NAME", "AGE", "YEAR", "SINGER"}
MAIN = ("sqlite", "postgres", "mysql", "bigquery", "snowflake", "duckdb", "tsql", "oracle")


def _favoured_tokens(comp: CompiledGrammar, grammar: typedgen.ir.Grammar) -> set[int]:
    vocab = comp.vocabulary
    words = {name[3:] for name in grammar.rules if name.startswith("KW_")} | FAVOURED
    closers = {b"'", b'"', b"`", b"]", b")", b";"}  # so that walks leave strings and quotes
    return {
        i
        for i in range(len(vocab))
        if vocab.token_bytes(i).strip().upper().decode("utf-8", "replace") in words
        or vocab.token_bytes(i) in closers
    }


def _walk(comp: CompiledGrammar, rng: random.Random, favoured: set[int]) -> bytes | None:
    m = comp.matcher()
    vocab = comp.vocabulary
    out = b""
    for step in range(150):
        allowed = m.allowed_token_ids().tolist()
        assert allowed, f"empty mask after {out!r}"
        texts = [t for t in allowed if t not in vocab.eos_ids]
        if m.is_complete() and (not texts or (step > 4 and rng.random() < 0.3)):
            return out
        r = rng.random()
        pool: list[int] = []
        if r < 0.55:
            pool = [t for t in texts if t in favoured]
        elif r < 0.85:
            pool = [t for t in texts if len(vocab.token_bytes(t)) == 1]
        token = rng.choice(pool or texts)
        assert m.accept_token(token)
        out += vocab.token_bytes(token)
    return None


def _check(dialect: str, smollm2_vocab: Any, walks: int, schema: Any = None) -> None:
    sql = typedgen.Sql(dialect, schema=schema)
    grammar = typedgen.grammar_of(sql)
    comp = typedgen.compile(grammar, smollm2_vocab)
    favoured = _favoured_tokens(comp, grammar)
    rng = random.Random(dialect)
    ended = 0
    for _ in range(walks):
        out = _walk(comp, rng, favoured)
        if out is None:
            continue
        ended += 1
        text = out.decode("utf-8")
        ok, detail = round_trips(text, sql.dialect)
        assert ok, f"{dialect}: {text!r} -> {detail}"
    assert ended >= walks // 5, f"{dialect}: only {ended} of {walks} walks ended"


@pytest.mark.parametrize("dialect", MAIN)
def test_main_dialects(dialect: str, smollm2_vocab: Any) -> None:
    _check(dialect, smollm2_vocab, 40)


@pytest.mark.parametrize("dialect", MAIN[:4])
def test_main_dialects_with_schema(dialect: str, smollm2_vocab: Any) -> None:
    _check(dialect, smollm2_vocab, 30, SCHEMA)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", sorted(set(DIALECTS) - set(MAIN)))
def test_other_dialects(dialect: str, smollm2_vocab: Any) -> None:
    _check(dialect, smollm2_vocab, 12)

"""Closing a text on a budget: the completion search over lexemes (issue 17, item 5).

The byte-level search found no completion after SQL's ``WITH x`` in any dialect; the search
over lexemes and parse sets does, in both engines, and sqlglot (the independent oracle) parses
every closed text. Both engines return the same bytes.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import typedgen
from tests._support import byte_vocabulary
from typedgen.compiler.backend import _import_native
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir import Grammar
from typedgen.runtime.completion import byte_preference

sqlglot = pytest.importorskip("sqlglot")

NATIVE = _import_native() is not None
ENGINES = [
    "python",
    pytest.param("native", marks=pytest.mark.skipif(not NATIVE, reason="native core not built")),
]
DIALECTS = ("postgres", "sqlite", "mysql", "tsql")
DEEP_PREFIXES = (
    "WITH",  # a keyword that needs whitespace next ("WITHA" is one word): 2,048 states ran out
    "WITH x",
    "WITH x AS (SELECT",
    "WITH x AS (SELECT a AS a FROM t), y",  # T-SQL's CTE items are aliased (sqlglot adds AS)
    "SELECT a FROM t WHERE b IN (SELECT c FROM d WHERE (e",
    "SELECT CASE WHEN a = 1 THEN",
    "SELECT a FROM t JOIN u ON",
    "SELECT COUNT(",
)
_COMPILERS = {e: typedgen.Compiler(engine=e, disk_cache=False) for e in ("python", "native")}
_SQL: dict[tuple[str, str], CompiledGrammar] = {}


def _sql(engine: str, dialect: str, vocab: Vocabulary) -> CompiledGrammar:
    key = (engine, dialect)
    if key not in _SQL:
        grammar = typedgen.grammar_of(typedgen.Sql(dialect))
        _SQL[key] = _COMPILERS[engine].compile(grammar, vocab)
    return _SQL[key]


def _closed(compiled: CompiledGrammar, prefix: bytes) -> bytes | None:
    m = compiled.matcher()
    assert m.accept_bytes(prefix), prefix
    tail = m.shortest_completion()
    if tail is not None:
        assert m.accept_bytes(tail) and m.is_complete(), (prefix, tail)
    return tail


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_deep_sql_states_close(engine: str, dialect: str, smollm2_vocab: Vocabulary) -> None:
    compiled = _sql(engine, dialect, smollm2_vocab)
    for prefix in DEEP_PREFIXES:
        tail = _closed(compiled, prefix.encode())
        assert tail is not None, f"{dialect}: no completion after {prefix!r}"
        text = prefix + tail.decode()
        sqlglot.parse_one(text, read=dialect)  # raises if sqlglot refuses it


@pytest.mark.skipif(not NATIVE, reason="native core not built")
@pytest.mark.parametrize("dialect", DIALECTS)
def test_both_engines_close_alike(dialect: str, smollm2_vocab: Vocabulary) -> None:
    py, nat = _sql("python", dialect, smollm2_vocab), _sql("native", dialect, smollm2_vocab)
    for prefix in ("", *DEEP_PREFIXES):
        assert _closed(py, prefix.encode()) == _closed(nat, prefix.encode()), prefix


def _random_prefix(compiled: CompiledGrammar, rng: random.Random, steps: int) -> bytes:
    """A prefix reached by allowed tokens (the walk the decoding loop would take)."""
    m = compiled.matcher()
    vocab = compiled.vocabulary
    eos = np.array(sorted(vocab.eos_ids))
    out = b""
    for _ in range(steps):
        allowed = m.allowed_token_ids()
        texts = allowed[~np.isin(allowed, eos)]
        if not len(texts):
            break
        token = int(texts[rng.randrange(len(texts))])
        assert m.accept_token(token)
        out += vocab.tokens[token]
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dialect", ("postgres", "sqlite"))
def test_random_sql_walks_close_and_parse(
    engine: str, dialect: str, smollm2_vocab: Vocabulary
) -> None:
    compiled = _sql(engine, dialect, smollm2_vocab)
    rng = random.Random(17)
    closed = 0
    for _ in range(12):
        prefix = _random_prefix(compiled, rng, rng.randrange(4, 40))
        tail = _closed(compiled, prefix)
        if tail is None:
            continue
        closed += 1
        sqlglot.parse_one((prefix + tail).decode("utf-8"), read=dialect)
    assert closed >= 10  # the odd prefix may end inside a multi-byte character's token


def _json_grammar() -> Grammar:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "child": {"$ref": "#"},
        },
        "required": ["name", "tags"],
    }
    return typedgen.grammar_of(schema)


@pytest.mark.parametrize("engine", ENGINES)
def test_json_closes_with_the_shortest_tail(engine: str) -> None:
    compiled = _COMPILERS[engine].compile(_json_grammar(), byte_vocabulary(), cache=False)
    assert _closed(compiled, b'{"name":"a') == b'","tags":[""]}'
    assert _closed(compiled, b'{"name":"","tags":["x"],"child":{"name":"') == (b'","tags":[""]}}')
    assert _closed(compiled, b'{"name":"","tags":[""]}') == b""


def test_byte_preference_is_a_permutation() -> None:
    rank = byte_preference()
    assert sorted(rank) == list(range(256))
    assert rank[ord("A")] < rank[ord("a")] < rank[ord("0")] < rank[ord("_")] < rank[ord(" ")]
    assert rank[ord(" ")] < rank[0] and rank[ord("\n")] < rank[0x80]

"""Compiled grammars: memory and disk caches, pickling, and the trie cache."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import typedgen
from tests._support import byte_vocabulary
from typedgen.compiler import compiled as compiled_mod
from typedgen.compiler import trie as trie_mod
from typedgen.ir import Grammar

GRAMMAR = Grammar.from_gbnf('root ::= "{" [a-z]+ ":" [0-9]{1,3} "}"')


def _walk_masks(c: typedgen.CompiledGrammar, text: bytes) -> list[list[int]]:
    m = c.matcher()
    out = [m.allowed_token_ids().tolist()]
    for b in text:
        assert m.accept_bytes(bytes((b,)))
        out.append(m.allowed_token_ids().tolist())
    return out


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TYPEDGEN_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TYPEDGEN_NO_DISK_CACHE", raising=False)
    compiled_mod._MEMORY.clear()
    trie_mod._MEMORY.clear()
    return tmp_path


def test_memory_cache_returns_the_same_object(fresh_cache: Path) -> None:
    vocab = byte_vocabulary()
    assert typedgen.compile(GRAMMAR, vocab) is typedgen.compile(GRAMMAR, vocab)
    assert typedgen.compile(GRAMMAR, vocab, cache=False) is not typedgen.compile(GRAMMAR, vocab)


def test_disk_cache_round_trip(fresh_cache: Path) -> None:
    vocab = byte_vocabulary((b"ab", b"{a", b"1}"))
    first = typedgen.compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in first.timings
    assert list((fresh_cache / "compiled").glob("*.pkl"))
    assert len(list((fresh_cache / "tries").glob("*.npz"))) == 2  # trie and token features
    compiled_mod._MEMORY.clear()
    trie_mod._MEMORY.clear()
    second = typedgen.compile(GRAMMAR, vocab)
    assert second is not first and second.timings.get("loaded_from_disk") == 1.0
    assert _walk_masks(first, b"{ab:12}") == _walk_masks(second, b"{ab:12}")


def test_cache_key_separates_grammars_and_vocabularies(fresh_cache: Path) -> None:
    a = typedgen.compile(GRAMMAR, byte_vocabulary())
    b = typedgen.compile(GRAMMAR, byte_vocabulary((b"xy",)))
    c = typedgen.compile(Grammar.from_gbnf('root ::= "x"'), byte_vocabulary())
    assert len({a.key, b.key, c.key}) == 3


def test_pickle_round_trip_gives_the_same_masks() -> None:
    c = typedgen.compile(GRAMMAR, byte_vocabulary((b"{a", b"b:", b"9}")), cache=False)
    before = _walk_masks(c, b"{zz:9}")
    back = pickle.loads(pickle.dumps(c))
    assert back.key == c.key and back.vocabulary.fingerprint == c.vocabulary.fingerprint
    assert _walk_masks(back, b"{zz:9}") == before


def test_corrupt_disk_entry_is_recompiled(fresh_cache: Path) -> None:
    vocab = byte_vocabulary()
    typedgen.compile(GRAMMAR, vocab)
    for path in (fresh_cache / "compiled").glob("*.pkl"):
        path.write_bytes(b"not a pickle")
    compiled_mod._MEMORY.clear()
    again = typedgen.compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in again.timings
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    again.matcher().fill_next_token_bitmask(words)
    assert words.any()


def test_engine_changes_invalidate_the_disk_cache(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocab = byte_vocabulary()
    typedgen.compile(GRAMMAR, vocab)
    compiled_mod._MEMORY.clear()
    monkeypatch.setattr(compiled_mod, "ENGINE_VERSION", "typedgen-engine-other")
    again = typedgen.compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in again.timings
    assert compiled_mod.ENGINE_VERSION.startswith("typedgen-engine-")

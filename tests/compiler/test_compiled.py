"""Compiled grammars and the Compiler: memory and disk caches, pickling, the trie cache."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import typedgen
from tests._support import byte_vocabulary
from typedgen.compiler import compiled as compiled_mod
from typedgen.compiler import trie as trie_mod
from typedgen.compiler.backend import _import_native
from typedgen.ir import Grammar
from typedgen.runtime import engine_of

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
    trie_mod._MEMORY.clear()
    return tmp_path


def test_memory_cache_returns_the_same_object(fresh_cache: Path) -> None:
    vocab = byte_vocabulary()
    compiler = typedgen.Compiler()
    assert compiler.compile(GRAMMAR, vocab) is compiler.compile(GRAMMAR, vocab)
    assert compiler.compile(GRAMMAR, vocab, cache=False) is not compiler.compile(GRAMMAR, vocab)
    info = compiler.cache_info()
    assert info["entries"] == 1 and info["hits"] == 2 and info["bytes"] > 0


def test_memory_cache_is_bounded_in_bytes(fresh_cache: Path) -> None:
    vocab = byte_vocabulary()
    grammars = [Grammar.from_gbnf(f'root ::= "{"x" * n}" [a-z]+') for n in range(1, 9)]
    one = typedgen.Compiler().compile(grammars[0], vocab)
    footprint = one.nbytes + compiled_mod.runtime().nbytes(one)
    compiler = typedgen.Compiler(cache_bytes=3 * footprint)
    for g in grammars:
        compiler.compile(g, vocab).matcher().allowed_token_ids()
    info = compiler.cache_info()
    assert 1 <= info["entries"] < len(grammars) and info["evictions"] > 0
    assert info["bytes"] <= 3 * footprint * 2  # engines grow as they are used; bounded anyway
    # The most recent grammar is still cached; the oldest was dropped.
    assert compiler.compile(grammars[-1], vocab) is compiler.compile(grammars[-1], vocab)


def test_disk_cache_round_trip(fresh_cache: Path) -> None:
    vocab = byte_vocabulary((b"ab", b"{a", b"1}"))
    first = typedgen.Compiler().compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in first.timings
    assert list((fresh_cache / "compiled").glob("*.npz"))
    assert len(list((fresh_cache / "tries").glob("*.npz"))) == 2  # trie and token features
    trie_mod._MEMORY.clear()
    second = typedgen.Compiler().compile(GRAMMAR, vocab)
    assert second is not first and second.timings.get("loaded_from_disk") == 1.0
    assert _walk_masks(first, b"{ab:12}") == _walk_masks(second, b"{ab:12}")


def test_disk_cache_is_bounded_in_bytes(fresh_cache: Path) -> None:
    import os
    import time

    vocab = byte_vocabulary()
    grammars = [Grammar.from_gbnf(f'root ::= "{c}" [a-z]+') for c in "abcdef"]  # one size
    folder = fresh_cache / "compiled"
    typedgen.Compiler().compile(grammars[0], vocab)
    size = sum(f.stat().st_size for f in folder.glob("*.npz"))
    compiler = typedgen.Compiler(disk_cache_bytes=int(2.5 * size))
    stamp = time.time() - 100
    for k, g in enumerate(grammars[1:], 1):
        compiler.compile(g, vocab)
        for f in folder.glob("*.npz"):  # mtimes a second apart: the order is unambiguous
            if f.stat().st_mtime > stamp + k:
                os.utime(f, (stamp + k, stamp + k))
    kept = sorted(folder.glob("*.npz"), key=lambda f: f.stat().st_mtime)
    assert len(kept) == 2  # within 2.5 files' bytes
    assert sum(f.stat().st_size for f in kept) <= 2.5 * size * 1.2
    # The newest is kept, and loads from disk in a fresh compiler.
    trie_mod._MEMORY.clear()
    again = typedgen.Compiler().compile(grammars[-1], vocab)
    assert again.timings.get("loaded_from_disk") == 1.0
    with pytest.raises(typedgen.OptionError):
        typedgen.Compiler(disk_cache_bytes=-1)


def test_disk_format_is_data_not_pickle(fresh_cache: Path) -> None:
    typedgen.Compiler().compile(GRAMMAR, byte_vocabulary())
    (path,) = (fresh_cache / "compiled").glob("*.npz")
    with np.load(path, allow_pickle=False) as data:  # would raise on any pickled object
        assert {"meta", "dfa_trans", "prod_lhs"} <= set(data.files)


def test_cache_key_separates_grammars_and_vocabularies(fresh_cache: Path) -> None:
    compiler = typedgen.Compiler()
    a = compiler.compile(GRAMMAR, byte_vocabulary())
    b = compiler.compile(GRAMMAR, byte_vocabulary((b"xy",)))
    c = compiler.compile(Grammar.from_gbnf('root ::= "x"'), byte_vocabulary())
    assert len({a.key, b.key, c.key}) == 3


@pytest.mark.skipif(_import_native() is None, reason="the native core is not built")
def test_engines_are_cached_apart(fresh_cache: Path) -> None:
    from typedgen.runtime.engine import Engine
    from typedgen.runtime.native import NativeEngine

    a = typedgen.Compiler(engine="native").compile(GRAMMAR, byte_vocabulary())
    b = typedgen.Compiler(engine="python").compile(GRAMMAR, byte_vocabulary())
    assert (a.engine, b.engine) == ("native", "python")
    assert isinstance(engine_of(a), NativeEngine) and isinstance(engine_of(b), Engine)
    assert _walk_masks(a, b"{ab:12}") == _walk_masks(b, b"{ab:12}")


def test_pickle_round_trip_gives_the_same_masks() -> None:
    c = typedgen.compile(GRAMMAR, byte_vocabulary((b"{a", b"b:", b"9}")), cache=False)
    before = _walk_masks(c, b"{zz:9}")
    back = pickle.loads(pickle.dumps(c))
    assert back.key == c.key and back.vocabulary.fingerprint == c.vocabulary.fingerprint
    assert _walk_masks(back, b"{zz:9}") == before


def test_corrupt_disk_entry_is_recompiled(fresh_cache: Path) -> None:
    vocab = byte_vocabulary()
    typedgen.Compiler().compile(GRAMMAR, vocab)
    for path in (fresh_cache / "compiled").glob("*.npz"):
        path.write_bytes(b"not an archive")
    again = typedgen.Compiler().compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in again.timings
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    again.matcher().fill_next_token_bitmask(words)
    assert words.any()


def test_engine_changes_invalidate_the_disk_cache(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocab = byte_vocabulary()
    typedgen.Compiler().compile(GRAMMAR, vocab)
    monkeypatch.setattr(compiled_mod, "ENGINE_VERSION", "typedgen-engine-other")
    again = typedgen.Compiler().compile(GRAMMAR, vocab)
    assert "loaded_from_disk" not in again.timings
    assert compiled_mod.ENGINE_VERSION.startswith("typedgen-engine-")


def test_compiled_grammar_is_immutable() -> None:
    c = typedgen.compile(GRAMMAR, byte_vocabulary(), cache=False)
    with pytest.raises(AttributeError):
        c.key = "other"  # type: ignore[misc]


def test_a_full_engine_is_replaced_for_new_matchers() -> None:
    limits = typedgen.EngineLimits(structure_bytes=1)
    c = typedgen.Compiler(disk_cache=False, limits=limits).compile(GRAMMAR, byte_vocabulary())
    m1 = c.matcher()
    assert m1.accept_bytes(b"{ab")
    first = engine_of(c)
    m2 = c.matcher()  # the first engine is over its (tiny) limit: a fresh one serves m2
    assert engine_of(c) is not first
    assert m1.accept_bytes(b":1}") and m1.is_complete()  # m1 keeps its engine
    assert m2.accept_bytes(b"{x:9}") and m2.is_complete()

"""Which engine serves a compiled grammar's matchers, and when to start a fresh one.

The runtime keeps one engine per compiled grammar beside it (a weak map: the compiled grammar
stays plain data and owns nothing mutable). Interned states only grow, so when an engine's
structure passes its limit, new matchers get a fresh engine; matchers already running keep
theirs, which is freed with the last of them. Registered with the compiler on import (see
:func:`typedgen.compiler.compiled.register_runtime`).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from typedgen.compiler.compiled import CompiledGrammar, register_runtime
from typedgen.compiler.lowering import ParserGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.runtime.engine import Engine
from typedgen.runtime.matcher import Matcher
from typedgen.runtime.native import NativeEngine

__all__ = ["EngineLike", "engine_of"]


class EngineLike(Protocol):
    """What a matcher needs of an engine (both engines implement it)."""

    parser_grammar: ParserGrammar
    vocab: Vocabulary
    initial: int
    n_words: int

    def prepare(self) -> None: ...
    def advance_token(self, state: int, token: int) -> int: ...
    def advance_bytes(self, state: int, data: bytes) -> int: ...
    def is_complete(self, state: int) -> bool: ...
    def mask(self, state: int) -> npt.NDArray[np.uint32]: ...
    def fill(self, state: int, row: npt.NDArray[np.int32]) -> None: ...
    def mask_any(self, state: int) -> bool: ...
    def allowed_bytes(self, state: int) -> Any: ...
    def forced_bytes(self, state: int, limit: int = 256) -> bytes: ...
    def shortest_completion(self, state: int, limit: int = 2048) -> bytes | None: ...
    def text_kind(self, state: int, min_width: int) -> int: ...
    def set_walk_budget(self, budget: int) -> None: ...
    def structure_bytes(self) -> int: ...
    def cache_bytes(self) -> int: ...
    def stats(self) -> dict[str, float]: ...

    @property
    def eos_ids(self) -> frozenset[int]: ...


_ENGINES: weakref.WeakKeyDictionary[CompiledGrammar, EngineLike] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _new_engine(compiled: CompiledGrammar) -> EngineLike:
    return NativeEngine(compiled) if compiled.engine == "native" else Engine(compiled)


def engine_of(compiled: CompiledGrammar) -> EngineLike:
    """The engine serving new matchers of ``compiled`` (built on first use)."""
    engine = _ENGINES.get(compiled)
    if engine is None:
        with _LOCK:
            engine = _ENGINES.get(compiled)
            if engine is None:
                engine = _ENGINES[compiled] = _new_engine(compiled)
    return engine


class _Runtime:
    def matcher(self, compiled: CompiledGrammar) -> Matcher:
        engine = engine_of(compiled)
        if engine.structure_bytes() > compiled.limits.structure_bytes:
            with _LOCK:
                if _ENGINES.get(compiled) is engine:
                    engine = _ENGINES[compiled] = _new_engine(compiled)
                    engine.prepare()
                else:
                    engine = _ENGINES[compiled]
        return Matcher(engine, compiled)

    def prepare(self, compiled: CompiledGrammar) -> None:
        engine_of(compiled).prepare()

    def stats(self, compiled: CompiledGrammar) -> dict[str, Any]:
        engine = _ENGINES.get(compiled)
        return dict(engine.stats()) if engine is not None else {}

    def nbytes(self, compiled: CompiledGrammar) -> int:
        engine = _ENGINES.get(compiled)
        return 0 if engine is None else engine.structure_bytes() + engine.cache_bytes()


register_runtime(_Runtime())

"""``CompiledGrammar``: a grammar compiled for one vocabulary, as plain immutable data.

A compiled grammar holds what depends only on the grammar and the vocabulary: the lowered
parser grammar (terminal DFAs, BNF productions, FOLLOW sets), the vocabulary and its token
trie, which engine runs it and that engine's cache limits. It holds no matching state: the
runtime (:mod:`typedgen.runtime`) builds the engine behind its matchers and keeps it beside
the compiled grammar, so the compiler never imports the runtime. Compiled grammars are made
by a :class:`~typedgen.compiler.grammar_compiler.Compiler`, which owns the caches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from typedgen.compiler.backend import EngineKind
from typedgen.compiler.lowering import ParserGrammar
from typedgen.compiler.trie import TokenTrie
from typedgen.ir.grammar import DeferredCheck, Grammar

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary
    from typedgen.runtime.matcher import Matcher

__all__ = [
    "ENGINE_VERSION",
    "CompiledGrammar",
    "EngineLimits",
    "RuntimeHook",
    "register_runtime",
    "runtime",
]


def _engine_version() -> str:
    """A key for everything that shapes compiled artefacts: the package version and the source
    of the IR and the compiler. Any change to them invalidates disk caches by itself."""
    from typedgen._version import __version__

    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    for part in ("ir", "compiler"):
        for path in sorted((package / part).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    return f"typedgen-engine-{digest.hexdigest()[:16]}"


ENGINE_VERSION = _engine_version()


@dataclass(frozen=True)
class EngineLimits:
    """Memory bounds of the engine behind one compiled grammar's matchers.

    Masks, pair masks and token tables are caches: least recently used entries are dropped
    past their byte limits and rebuilt on demand. Interned states are not (matchers refer to
    them): past ``structure_bytes`` the runtime starts a fresh engine for new matchers, and
    the old one is freed when its last matcher is.
    """

    mask_bytes: int = 32 << 20
    pair_bytes: int = 32 << 20
    table_bytes: int = 64 << 20
    structure_bytes: int = 256 << 20
    transition_entries: int = 1 << 21
    lexer_states: int = 200_000
    walk_budget: int = 8_000_000


@dataclass(frozen=True, eq=False)
class CompiledGrammar:
    """A grammar compiled for one vocabulary. Create matchers with :meth:`matcher`."""

    key: str
    grammar: Grammar
    parser_grammar: ParserGrammar
    vocabulary: Vocabulary
    trie: TokenTrie
    engine: EngineKind = "native"
    limits: EngineLimits = field(default_factory=EngineLimits)
    timings: Mapping[str, float] = field(default_factory=dict)

    def matcher(self) -> Matcher:
        """A fresh matcher at the start of the grammar."""
        return runtime().matcher(self)

    @property
    def vocab_size(self) -> int:
        """Width of the token masks."""
        return int(self.vocabulary.size)

    @property
    def deferred(self) -> tuple[DeferredCheck, ...]:
        """Constraints the grammar leaves to a validator after decoding (``strict=False``)."""
        return self.grammar.deferred

    @property
    def nbytes(self) -> int:
        """Bytes held by the compiled artefact itself (terminal automata and productions)."""
        pg = self.parser_grammar
        dfa = sum(t.dfa.trans.nbytes + t.dfa.accept.nbytes for t in pg.terminals)
        return dfa + 16 * sum(1 + len(rhs) for _, rhs in pg.productions) + 64 * len(pg.terminals)

    def stats(self) -> dict[str, Any]:
        """Sizes and timings, for benchmarks and ``typedgen explain``."""
        return {
            "engine": self.engine,
            "terminals": self.parser_grammar.n_terminals,
            "nonterminals": len(self.parser_grammar.nonterminals),
            "productions": len(self.parser_grammar.productions),
            **runtime().stats(self),
            **self.timings,
        }


class RuntimeHook(Protocol):
    """What the runtime provides for compiled grammars (registered by typedgen.runtime)."""

    def matcher(self, compiled: CompiledGrammar) -> Matcher: ...

    def prepare(self, compiled: CompiledGrammar) -> None: ...

    def stats(self, compiled: CompiledGrammar) -> dict[str, Any]: ...

    def nbytes(self, compiled: CompiledGrammar) -> int: ...


_RUNTIME: list[RuntimeHook] = []


def register_runtime(hook: RuntimeHook) -> None:
    """Called once by :mod:`typedgen.runtime` when it is imported."""
    _RUNTIME[:] = [hook]


def runtime() -> RuntimeHook:
    """The registered runtime (imported on first use: the compiler never imports it itself)."""
    if not _RUNTIME:
        import importlib

        importlib.import_module("typedgen.runtime")
    return _RUNTIME[0]

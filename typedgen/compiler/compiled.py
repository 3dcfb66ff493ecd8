"""``compile(grammar, vocabulary) -> CompiledGrammar``, with memory and disk caches.

A compiled grammar is immutable and picklable: the lowered parser grammar, the combined lexer,
the token table of the fresh-lexeme state, and the vocabulary with its trie. It is keyed by the
IR fingerprint, the vocabulary fingerprint and the engine version; the per-vocabulary trie is
cached separately, so a new grammar on a known vocabulary never re-reads the whole vocabulary.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typedgen.compiler.lexer import Lexer
from typedgen.compiler.lowering import ParserGrammar, lower
from typedgen.compiler.tokentables import LexTable, TableBuilder
from typedgen.compiler.trie import TokenTrie, load_or_build_trie, token_features
from typedgen.ir.grammar import DeferredCheck, Grammar

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary
    from typedgen.runtime.engine import Engine
    from typedgen.runtime.matcher import Matcher

__all__ = ["ENGINE_VERSION", "CompiledGrammar", "compile_grammar"]


def _engine_version() -> str:
    """A key for everything that shapes compiled artefacts: the package version and the source
    of the IR, compiler and runtime. Any change to them invalidates disk caches by itself."""
    from typedgen._version import __version__

    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    for part in ("ir", "compiler", "runtime"):
        for path in sorted((package / part).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    return f"typedgen-engine-{digest.hexdigest()[:16]}"


ENGINE_VERSION = _engine_version()


@dataclass(eq=False)
class CompiledGrammar:
    """A grammar compiled for one vocabulary. Create matchers with :meth:`matcher`."""

    key: str
    grammar: Grammar
    parser_grammar: ParserGrammar
    lexer: Lexer
    start_table: LexTable
    vocabulary: Vocabulary
    trie: TokenTrie
    timings: dict[str, float] = field(default_factory=dict)
    _engine: Engine | None = field(default=None, repr=False)
    _engine_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def matcher(self) -> Matcher:
        """A fresh matcher at the start of the grammar."""
        from typedgen.runtime.matcher import Matcher

        return Matcher(self.engine)

    @property
    def engine(self) -> Engine:
        """The shared memo of states and masks (built on first use)."""
        engine = self._engine
        if engine is None:
            with self._engine_lock:
                if self._engine is None:
                    from typedgen.runtime.engine import Engine

                    self._engine = Engine(self)
                engine = self._engine
        return engine

    @property
    def vocab_size(self) -> int:
        """Width of the token masks."""
        return int(self.vocabulary.size)

    @property
    def deferred(self) -> tuple[DeferredCheck, ...]:
        """Constraints the grammar leaves to a validator after decoding (``strict=False``)."""
        return self.grammar.deferred

    def stats(self) -> dict[str, Any]:
        """Sizes and timings, for benchmarks and ``typedgen explain``."""
        return {
            "terminals": self.parser_grammar.n_terminals,
            "nonterminals": len(self.parser_grammar.nonterminals),
            "productions": len(self.parser_grammar.productions),
            "lexer_states": self.lexer.n_states,
            "start_table_groups": self.start_table.n_groups,
            **self.timings,
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_engine"] = None
        del state["_engine_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._engine_lock = threading.Lock()


_MEMORY: OrderedDict[str, CompiledGrammar] = OrderedDict()
_MEMORY_LIMIT = 64
_MEMORY_LOCK = threading.Lock()


def _cache_root() -> Path | None:
    if os.environ.get("TYPEDGEN_NO_DISK_CACHE"):
        return None
    from typedgen._bundled import cache_dir

    try:
        return cache_dir()
    except OSError:
        return None


def _key(grammar: Grammar, vocab: Vocabulary) -> str:
    text = f"{ENGINE_VERSION}\n{grammar.fingerprint}\n{vocab.fingerprint}"
    return hashlib.sha256(text.encode()).hexdigest()


def _load(
    path: Path, grammar: Grammar, vocab: Vocabulary, trie: TokenTrie
) -> CompiledGrammar | None:
    try:
        with open(path, "rb") as fh:
            payload = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return None
    if not isinstance(payload, dict) or payload.get("version") != ENGINE_VERSION:
        return None
    return CompiledGrammar(
        key=payload["key"],
        grammar=grammar,
        parser_grammar=payload["parser_grammar"],
        lexer=payload["lexer"],
        start_table=payload["start_table"],
        vocabulary=vocab,
        trie=trie,
        timings={"loaded_from_disk": 1.0},
    )


def _save(path: Path, compiled: CompiledGrammar) -> None:
    payload = {
        "version": ENGINE_VERSION,
        "key": compiled.key,
        "parser_grammar": compiled.parser_grammar,
        "lexer": compiled.lexer,
        "start_table": compiled.start_table,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass


def compile_grammar(
    grammar: Grammar, vocabulary: Vocabulary, *, cache: bool = True
) -> CompiledGrammar:
    """Compile ``grammar`` for ``vocabulary`` (cached in memory and on disk)."""
    key = _key(grammar, vocabulary)
    if cache:
        with _MEMORY_LOCK:
            found = _MEMORY.get(key)
            if found is not None:
                _MEMORY.move_to_end(key)
                return found
    root = _cache_root() if cache else None
    t0 = time.perf_counter()
    trie = load_or_build_trie(vocabulary, root)
    token_features(vocabulary, root)
    t_trie = time.perf_counter() - t0
    compiled = None
    path = root / "compiled" / f"{key[:40]}.pkl" if root is not None else None
    if path is not None and path.exists():
        compiled = _load(path, grammar, vocabulary, trie)
    if compiled is None:
        t1 = time.perf_counter()
        parser_grammar = lower(grammar)
        t2 = time.perf_counter()
        lexer = Lexer(parser_grammar)
        t3 = time.perf_counter()
        start_table = TableBuilder(lexer, trie, token_features(vocabulary)).table(lexer.initial)
        t4 = time.perf_counter()
        compiled = CompiledGrammar(
            key=key,
            grammar=grammar,
            parser_grammar=parser_grammar,
            lexer=lexer,
            start_table=start_table,
            vocabulary=vocabulary,
            trie=trie,
            timings={
                "trie_s": t_trie,
                "lower_s": t2 - t1,
                "lexer_s": t3 - t2,
                "token_table_s": t4 - t3,
                "compile_s": t4 - t1,
            },
        )
        if path is not None:
            _save(path, compiled)
    if cache:
        with _MEMORY_LOCK:
            _MEMORY[key] = compiled
            while len(_MEMORY) > _MEMORY_LIMIT:
                _MEMORY.popitem(last=False)
    return compiled

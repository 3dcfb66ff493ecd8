"""The :class:`Compiler`: compiles grammars for vocabularies and owns every cache.

One object holds the policy (which engine, how many bytes of compiled grammars to keep in
memory, where the disk cache lives, the engine's own cache limits), as xgrammar's
``GrammarCompiler`` does. ``typedgen.compile`` uses a process-wide default compiler; make
your own for other limits or an isolated cache.

The disk cache stores lowered grammars in a versioned array format (see
:mod:`typedgen.compiler.artifact`) keyed by (engine version, IR fingerprint, vocabulary
fingerprint); per-vocabulary tries are cached beside them. ``$TYPEDGEN_CACHE_DIR`` (else
``$XDG_CACHE_HOME/typedgen``, else ``~/.cache/typedgen``) is the default location and
``TYPEDGEN_NO_DISK_CACHE=1`` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from typedgen.compiler import compiled as _compiled
from typedgen.compiler.artifact import load_parser_grammar, save_parser_grammar
from typedgen.compiler.backend import resolve_engine
from typedgen.compiler.checks import check_compiled
from typedgen.compiler.compiled import CompiledGrammar, EngineLimits, runtime
from typedgen.compiler.lowering import lower
from typedgen.compiler.trie import load_or_build_trie, token_features
from typedgen.errors import OptionError
from typedgen.ir.grammar import Grammar

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary

__all__ = ["Compiler", "compile_grammar", "default_compiler"]


def _default_dir() -> Path | None:
    if os.environ.get("TYPEDGEN_NO_DISK_CACHE"):
        return None
    from typedgen._bundled import cache_dir

    try:
        return cache_dir()
    except OSError:
        return None


class Compiler:
    """Compiles grammars for vocabularies, with byte-bounded memory and versioned disk caches.

    ``cache_bytes`` bounds the compiled grammars kept in memory, counting each one's engine
    (its masks, tables and states) as well as the artefact; least recently used ones are
    dropped first. ``disk_cache`` is ``True`` (the default location), ``False``, or a folder;
    ``disk_cache_bytes`` bounds its compiled grammars (least recently used files go first: a
    service compiling one schema per request would otherwise fill the disk).
    ``engine`` is ``"native"``, ``"python"`` or ``None`` (``TYPEDGEN_ENGINE``, else native
    when built). ``limits`` bounds each engine's caches. Thread-safe.
    """

    def __init__(
        self,
        *,
        cache_bytes: int = 512 << 20,
        disk_cache: bool | str | os.PathLike[str] = True,
        engine: str | None = None,
        limits: EngineLimits | None = None,
        disk_cache_bytes: int = 2 << 30,
    ) -> None:
        if cache_bytes < 0 or disk_cache_bytes < 0:
            raise OptionError(
                f"cache_bytes and disk_cache_bytes must be >= 0, not {cache_bytes}"
                f" and {disk_cache_bytes}",
                code="option-value",
                hint="0 keeps nothing in memory (on disk: the newest file only)",
            )
        self.cache_bytes = int(cache_bytes)
        self.disk_cache_bytes = int(disk_cache_bytes)
        self.disk_cache = disk_cache
        self.engine = engine
        self.limits = limits or EngineLimits()
        self._memory: OrderedDict[tuple[str, str], CompiledGrammar] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = self._disk_hits = self._evictions = 0

    # -- cache policy ----------------------------------------------------------------------
    def cache_dir(self) -> Path | None:
        """Where compiled grammars and tries are stored on disk (``None``: no disk cache)."""
        if self.disk_cache is False:
            return None
        if self.disk_cache is True:
            return _default_dir()
        return Path(self.disk_cache)

    def cache_info(self) -> dict[str, int]:
        """Entries, bytes (artefacts and their engines), hits, misses, disk hits, evictions."""
        with self._lock:
            entries = list(self._memory.values())
        return {
            "entries": len(entries),
            "bytes": sum(_footprint(c) for c in entries),
            "hits": self._hits,
            "misses": self._misses,
            "disk_hits": self._disk_hits,
            "evictions": self._evictions,
        }

    def clear(self) -> None:
        """Drop every compiled grammar this compiler keeps in memory."""
        with self._lock:
            self._memory.clear()

    # -- compiling -------------------------------------------------------------------------
    def compile(
        self, grammar: Grammar, vocabulary: Vocabulary, *, cache: bool = True
    ) -> CompiledGrammar:
        """Compile ``grammar`` for ``vocabulary`` (from the caches when possible).

        Raises :class:`~typedgen.errors.GrammarError` for bad grammars,
        :class:`~typedgen.errors.CompileBudgetError` when a compile budget runs out, and
        :class:`~typedgen.errors.CompileError` when no sentence can be written with the
        vocabulary (:mod:`typedgen.compiler.checks`, which also warns with
        :class:`~typedgen.errors.CompileWarning` about places that cannot be finished).
        """
        kind = resolve_engine(self.engine)
        version = _compiled.ENGINE_VERSION
        key = hashlib.sha256(
            f"{version}\n{grammar.fingerprint}\n{vocabulary.fingerprint}".encode()
        ).hexdigest()
        mem_key = (key, kind)
        if cache:
            with self._lock:
                found = self._memory.get(mem_key)
                if found is not None:
                    self._memory.move_to_end(mem_key)
                    self._hits += 1
                    return found
                self._misses += 1
        root = self.cache_dir() if cache else None
        t0 = time.perf_counter()
        trie = load_or_build_trie(vocabulary, root)
        token_features(vocabulary, root)
        t1 = time.perf_counter()
        path = root / "compiled" / f"{key[:40]}.npz" if root is not None else None
        pg = load_parser_grammar(path, version=version, key=key) if path is not None else None
        timings: dict[str, float] = {"trie_s": t1 - t0}
        if pg is not None and path is not None:
            timings["loaded_from_disk"] = 1.0
            self._disk_hits += 1
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used: the disk bound drops it last
        else:
            pg = lower(grammar)
        t_checks = time.perf_counter()
        check_compiled(pg, vocabulary)  # warnings, or CompileError where every path is hit
        timings["checks_s"] = time.perf_counter() - t_checks
        t2 = time.perf_counter()
        compiled = CompiledGrammar(
            key=key,
            grammar=grammar,
            parser_grammar=pg,
            vocabulary=vocabulary,
            trie=trie,
            engine=kind,
            limits=self.limits,
            timings=timings,
        )
        runtime().prepare(compiled)  # the first token table: budget errors surface here
        t3 = time.perf_counter()
        timings.update(lower_s=t2 - t1, engine_s=t3 - t2, compile_s=t3 - t1)
        if path is not None and "loaded_from_disk" not in timings:
            try:
                save_parser_grammar(path, pg, version=version, key=key)
                self._bound_disk(path.parent)
            except OSError:
                pass
        if cache:
            with self._lock:
                self._memory[mem_key] = compiled
                self._evict()
        return compiled

    def _bound_disk(self, folder: Path) -> None:
        """Delete the least recently used compiled grammars in ``folder`` until the rest fit
        in ``disk_cache_bytes`` (the newest file always stays)."""
        files = []
        for entry in os.scandir(folder):
            if entry.name.endswith(".npz"):
                with contextlib.suppress(OSError):
                    stat = entry.stat()
                    files.append((stat.st_mtime, stat.st_size, entry.path))
        total = sum(size for _, size, _ in files)
        files.sort()
        for _, size, name in files[:-1]:
            if total <= self.disk_cache_bytes:
                break
            with contextlib.suppress(OSError):  # another process may have removed it
                os.unlink(name)
                total -= size

    def _evict(self) -> None:
        total = sum(_footprint(c) for c in self._memory.values())
        while total > self.cache_bytes and len(self._memory) > 1:
            _, old = self._memory.popitem(last=False)
            total -= _footprint(old)
            self._evictions += 1


def _footprint(compiled: CompiledGrammar) -> int:
    return compiled.nbytes + runtime().nbytes(compiled)


_DEFAULT: list[Compiler] = []
_DEFAULT_LOCK = threading.Lock()


def default_compiler() -> Compiler:
    """The process-wide compiler behind ``typedgen.compile``."""
    if not _DEFAULT:
        with _DEFAULT_LOCK:
            if not _DEFAULT:
                _DEFAULT.append(Compiler())
    return _DEFAULT[0]


def compile_grammar(
    grammar: Grammar,
    vocabulary: Vocabulary,
    *,
    cache: bool = True,
    compiler: Compiler | None = None,
) -> CompiledGrammar:
    """Compile with ``compiler`` (default: :func:`default_compiler`)."""
    return (compiler or default_compiler()).compile(grammar, vocabulary, cache=cache)

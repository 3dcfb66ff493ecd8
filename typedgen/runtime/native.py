"""The native core behind the engine interface the matcher uses.

:class:`NativeEngine` hands the lowered grammar and the vocabulary's trie to
``typedgen._native.Engine`` once, then forwards every call as plain ints: the native engine
keeps its own states, tables and masks, releases the GIL while it works, and gives exactly
the masks of the reference engine (:mod:`typedgen.runtime.engine`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from typedgen.compiler.automata import NATIVE_BUDGET_CODES
from typedgen.compiler.backend import native_module
from typedgen.compiler.trie import token_features
from typedgen.errors import CompileBudgetError
from typedgen.ir.grammar import Lexing

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.compiler.trie import TokenTrie
    from typedgen.compiler.vocabulary import Vocabulary

__all__ = ["NativeEngine", "native_vocabulary"]

DEAD = -1
_LEXING = {Lexing.FREE: 0, Lexing.BASIC: 1, Lexing.CONTEXTUAL: 2}
_VOCABS: OrderedDict[str, Any] = OrderedDict()
_VOCABS_LOCK = threading.Lock()
_VOCABS_KEPT = 4


def native_vocabulary(vocab: Vocabulary, trie: TokenTrie) -> Any:
    """The native copy of a vocabulary and its trie (built once per fingerprint, shared)."""
    with _VOCABS_LOCK:
        found = _VOCABS.get(vocab.fingerprint)
        if found is not None:
            _VOCABS.move_to_end(vocab.fingerprint)
            return found
    f = token_features(vocab)
    native = native_module().Vocab(
        int(vocab.size),
        np.ascontiguousarray(f.offsets, dtype=np.int64),
        np.ascontiguousarray(f.flat, dtype=np.uint8),
        np.ascontiguousarray(f.text, dtype=bool),
        np.array(sorted(t for t in vocab.eos_ids if t < vocab.size), dtype=np.int32),
        np.ascontiguousarray(trie.child_start, dtype=np.int32),
        np.ascontiguousarray(trie.child_node, dtype=np.int32),
        np.ascontiguousarray(trie.child_byte, dtype=np.uint8),
        np.ascontiguousarray(trie.tok_start, dtype=np.int32),
        np.ascontiguousarray(trie.tok_ids, dtype=np.int32),
        np.ascontiguousarray(trie.subtree, dtype=np.int32),
    )
    with _VOCABS_LOCK:
        _VOCABS[vocab.fingerprint] = native
        while len(_VOCABS) > _VOCABS_KEPT:
            _VOCABS.popitem(last=False)
    return native


def _bit_words(bits: int, width: int) -> npt.NDArray[np.uint64]:
    mask = (1 << 64) - 1
    return np.array([(bits >> (64 * i)) & mask for i in range(width)], dtype=np.uint64)


class NativeEngine:
    """One compiled grammar's native engine (the interface of :class:`runtime.engine.Engine`)."""

    def __init__(self, compiled: CompiledGrammar) -> None:
        mod = native_module()
        self._mod = mod
        self.parser_grammar = compiled.parser_grammar  # not ``compiled``: see engine.py
        self.vocab = compiled.vocabulary
        pg = compiled.parser_grammar
        n_terms = pg.n_terminals
        width = max(1, (n_terms + 63) // 64)
        # Priorities are unbounded Python ints; only their order matters (with literals
        # ranking above patterns of the same priority), so the core gets dense ranks.
        ranks = sorted({(t.priority, int(t.literal)) for t in pg.terminals})
        rank_of = {key: i for i, key in enumerate(ranks)}
        terminals = [
            (
                np.ascontiguousarray(t.dfa.trans, dtype=np.int32),
                np.ascontiguousarray(t.dfa.accept, dtype=bool),
                _LEXING[t.lexing],
                rank_of[(t.priority, int(t.literal))],
                False,
            )
            for t in pg.terminals
        ]
        lhs = np.array([p[0] for p in pg.productions], dtype=np.int32)
        lengths = [len(p[1]) for p in pg.productions]
        rhs_start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        rhs = np.array([s for p in pg.productions for s in p[1]], dtype=np.int32)
        follow = (
            np.stack([_bit_words(f, width) for f in pg.follow])
            if n_terms
            else np.zeros((0, width), dtype=np.uint64)
        )
        limits = compiled.limits
        self._e = mod.make_engine(
            native_vocabulary(compiled.vocabulary, compiled.trie),
            terminals,
            len(pg.nonterminals),
            lhs,
            rhs_start,
            rhs,
            int(pg.start),
            np.array(pg.ignore, dtype=np.int32),
            follow,
            _bit_words(pg.first, width),
            {
                "lexer_states": limits.lexer_states,
                "walk_budget": limits.walk_budget,
                "mask_bytes": limits.mask_bytes,
                "pair_bytes": limits.pair_bytes,
                "table_bytes": limits.table_bytes,
                "transition_entries": limits.transition_entries,
            },
        )
        self.initial: int = self._e.initial
        self.n_words: int = self._e.n_words
        self._size = int(self.vocab.size)
        self._eos_ids = frozenset(self.vocab.eos_ids)

    def _budget_error(self, exc: BaseException) -> CompileBudgetError:
        code, message, _node, detail = exc.args
        pg = self.parser_grammar
        if code == "token-table-budget":
            alive = self._e.lexer_alive_terms(detail)
            names = [pg.terminals[t].name for t in alive]
            shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
            return CompileBudgetError(
                f"the token table walk from a lexeme of {shown or 'a fresh start'} exceeds"
                " its budget",
                code="token-table-budget",
                origin=pg.place(alive),
                hint="overlapping scannerless terminals that may follow each other make tokens"
                " lex in exponentially many ways; give them a longest-match lexing mode (e.g."
                " Lark's lexer='contextual')",
            )
        if code == "lexer-budget":
            return CompileBudgetError(
                message,
                code="lexer-budget",
                origin=pg.place(),
                hint="terminals that share long prefixes with different structure multiply"
                " lexer states; merge or simplify them",
            )
        return CompileBudgetError(message, code=NATIVE_BUDGET_CODES[code], origin=pg.place())

    def prepare(self) -> None:
        """Build the first token table (compile-time budgets raise here)."""
        try:
            self._e.prepare()
        except self._mod.BudgetError as exc:
            raise self._budget_error(exc) from None

    # -- transitions ------------------------------------------------------------------------
    def advance_token(self, state: int, token: int) -> int:
        if not 0 <= token < self._size:
            return DEAD
        try:
            result: int = self._e.advance_token(state, token)
        except self._mod.BudgetError as exc:  # a lexer budget met while decoding
            raise self._budget_error(exc) from None
        return result

    def advance_bytes(self, state: int, data: bytes) -> int:
        try:
            result: int = self._e.advance_bytes(state, bytes(data))
        except self._mod.BudgetError as exc:
            raise self._budget_error(exc) from None
        return result

    def is_complete(self, state: int) -> bool:
        return bool(self._e.is_complete(state))

    # -- masks ------------------------------------------------------------------------------
    def mask(self, state: int) -> npt.NDArray[np.uint32]:
        words: npt.NDArray[np.uint32] = self._e.mask_words(state)
        words.setflags(write=False)
        return words

    def fill(self, state: int, row: npt.NDArray[np.int32]) -> None:
        if row.dtype == np.int32 and row.flags.c_contiguous and row.flags.writeable:
            self._e.fill(state, row)
            return
        words = self.mask(state).view(np.int32)
        n = min(row.shape[0], words.shape[0])
        row[:n] = words[:n]
        row[n:] = 0

    def mask_any(self, state: int) -> bool:
        return bool(self._e.mask_any(state))

    # -- bytes ------------------------------------------------------------------------------
    def allowed_bytes(self, state: int) -> bytes:
        out: bytes = self._e.allowed_bytes(state)
        return out

    def forced_bytes(self, state: int, limit: int = 256) -> bytes:
        out: bytes = self._e.forced_bytes(state, limit)
        return out

    def shortest_completion(self, state: int, limit: int = 2048) -> bytes | None:
        out: bytes | None = self._e.shortest_completion(state, limit)
        return out

    def text_kind(self, state: int, min_width: int) -> int:
        return int(self._e.text_kind(state, min_width))

    @property
    def eos_ids(self) -> frozenset[int]:
        return self._eos_ids

    @property
    def handle(self) -> Any:
        """The extension's engine object (for batch fills)."""
        return self._e

    # -- accounting ---------------------------------------------------------------------------
    def set_walk_budget(self, budget: int) -> None:
        self._e.set_walk_budget(budget)

    def structure_bytes(self) -> int:
        return int(self._e.structure_bytes())

    def cache_bytes(self) -> int:
        return int(self._e.cache_bytes())

    def stats(self) -> dict[str, float]:
        return dict(self._e.stats())

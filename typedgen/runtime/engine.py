"""The shared, lazily built state machine behind every matcher of one compiled grammar.

A matcher state is a set of *pairs* ``(lexer state, Earley set)``: each is a lexeme in progress
(the combined lexer state since it began) with the parse set where it began. Pairs with the same
lexer state are merged. Matcher states are interned, so everything about a state — its token
transitions, its mask, whether it is complete — is computed once and then looked up: after a
warm-up, accepting a token and filling a mask are dictionary lookups and one array copy.

This object is a memo of pure functions of the compiled grammar, owned by the runtime (see
:mod:`typedgen.runtime.engines`), never by the compiled artefact. Masks, pair masks and token
tables are byte-bounded LRU caches (:class:`~typedgen.compiler.compiled.EngineLimits`); the
token-transition memo is bounded by entries. Every public method takes the engine's lock.
This is the reference engine: :mod:`typedgen.runtime.native` runs the same algorithms in C++.
"""

from __future__ import annotations

import threading
import warnings
from collections import deque
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from typedgen.compiler.lexer import Lexer
from typedgen.compiler.tokentables import LexTable, TableBuilder
from typedgen.compiler.trie import token_features
from typedgen.errors import CompileBudgetError
from typedgen.runtime.completion import CompletionSearch
from typedgen.runtime.earley import ParseTable
from typedgen.runtime.lru import ByteLru

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar

__all__ = ["DEAD", "Engine"]

DEAD = -1
_SMALL_MEMO = 65_536
"""Entry bound of the small per-engine memos (first-byte masks, expected-terminal rows)."""


def _table_bytes(tab: LexTable) -> int:
    arrays = (tab.path_parent, tab.path_event, tab.group_path, tab.group_alive, tab.tokens)
    return 256 + sum(a.nbytes for a in arrays) + tab.token_group.nbytes + 32 * len(tab.levels)


Pairs = tuple[tuple[int, int], ...]
U32 = npt.NDArray[np.uint32]
_EVENT_STRIDE = 1 << 24
_SMALL_LEVEL = 24
_CLOSING = frozenset(b'"}])0,:')
LEXEME_SEARCH_FACTOR = 8
"""The lexeme search's share of a completion limit (native/src/engine.cpp: the same)."""


def _nbytes(words: U32) -> int:
    return int(words.nbytes) + 112


def _words(bits: int, width: int) -> npt.NDArray[np.uint64]:
    """A Python-int bitset as ``width`` little-endian 64-bit words."""
    mask = (1 << 64) - 1
    return np.array([(bits >> (64 * i)) & mask for i in range(width)], dtype=np.uint64)


class Engine:
    """Interned matcher states, their transitions, masks and completeness."""

    def __init__(self, compiled: CompiledGrammar) -> None:
        limits = compiled.limits
        lexer = Lexer(compiled.parser_grammar, budget=limits.lexer_states)
        # Not the compiled grammar itself: the runtime's weak map holds engines, and an engine
        # that held its key would keep every compiled grammar alive (architecture.md, section 2).
        self.parser_grammar = compiled.parser_grammar
        self.limits = limits
        self.lexer = lexer
        self.vocab = compiled.vocabulary
        self.trie = compiled.trie
        self.table = ParseTable(compiled.parser_grammar, lexer.events_list)
        self.n_words = (self.vocab.size + 31) // 32
        self._accept = lexer.accept
        self._alive = lexer.alive
        self._fresh = lexer.fresh
        self._lex_tables: ByteLru[int, LexTable] = ByteLru(limits.table_bytes, _table_bytes)
        self._features = token_features(self.vocab)
        self._builder = TableBuilder(
            lexer, self.trie, self._features, walk_budget=limits.walk_budget
        )
        self._first_bytes: dict[int, U32] = {}
        self._warned_slow = False
        self._slow_lex: set[int] = set()
        self._term_words = max(1, (compiled.parser_grammar.n_terminals + 63) // 64)
        self._exp_rows: dict[int, npt.NDArray[np.uint64]] = {}
        self._alive_rows = np.zeros((0, self._term_words), dtype=np.uint64)
        self._states: list[Pairs] = []
        self._index: dict[Pairs, int] = {}
        self._tok: dict[tuple[int, int], int] = {}
        self._mask: ByteLru[int, U32] = ByteLru(limits.mask_bytes, _nbytes)
        self._pair_mask: ByteLru[tuple[int, int], U32] = ByteLru(limits.pair_bytes, _nbytes)
        self._complete: dict[int, bool] = {}
        self._bytes: dict[int, tuple[int, ...]] = {}
        self._completion: dict[int, tuple[bytes | None, int]] = {}
        self._closer: CompletionSearch | None = None
        self._lock = threading.RLock()
        eos = np.zeros(self.n_words, dtype=np.uint32)
        for t in self.vocab.eos_ids:
            if t < self.vocab.size:
                eos[t >> 5] |= np.uint32(1 << (t & 31))
        self._eos_words = eos
        self._eos_ids = frozenset(self.vocab.eos_ids)
        self.initial = self._intern(((lexer.initial, self.table.initial),))

    # -- states ---------------------------------------------------------------------------------
    def _intern(self, pairs: Pairs) -> int:
        found = self._index.get(pairs)
        if found is not None:
            return found
        with self._lock:
            found = self._index.get(pairs)
            if found is None:
                found = len(self._states)
                self._states.append(pairs)
                self._index[pairs] = found
            return found

    def pairs(self, state: int) -> Pairs:
        return self._states[state]

    def n_states(self) -> int:
        return len(self._states)

    # -- byte and token transitions ---------------------------------------------------------------
    def _advance(self, pairs: Pairs, data: bytes) -> Pairs:
        lexer = self.lexer
        row, restart, events = lexer.row, lexer.restart, lexer.events
        accept, alive = self._accept, self._alive
        table = self.table
        sets = table.sets
        for b in data:
            nxt_pairs: dict[int, list[int]] = {}
            for lex, sid in pairs:
                nxt = row(lex)[b]
                if nxt >= 0 and alive[nxt] & sets[sid].exp:
                    nxt_pairs.setdefault(nxt, []).append(sid)
                if accept[lex]:
                    for ev in events(lex, nxt):
                        fresh = row(restart(ev))[b]
                        if fresh < 0:
                            continue
                        after = table.step(sid, ev)
                        if after >= 0 and alive[fresh] & sets[after].exp:
                            nxt_pairs.setdefault(fresh, []).append(after)
            if not nxt_pairs:
                return ()
            pairs = tuple(
                sorted(
                    (lex, sids[0] if len(sids) == 1 else table.merge(sids))
                    for lex, sids in nxt_pairs.items()
                )
            )
        return pairs

    def prepare(self) -> None:
        """Build the first token table, so compile-time budgets raise at compile time."""
        with self._lock:
            self.lex_table(self.lexer.initial)

    def advance_bytes(self, state: int, data: bytes) -> int:
        """The state after ``data``, or ``DEAD`` if the grammar cannot continue with it."""
        with self._lock:
            pairs = self._advance(self._states[state], data)
            return self._intern(pairs) if pairs else DEAD

    def advance_token(self, state: int, token: int) -> int:
        """The state after text token ``token`` (memoised), or ``DEAD``."""
        key = (state, token)
        found = self._tok.get(key)
        if found is not None:
            return found
        vocab = self.vocab
        if token < 0 or token >= len(vocab.tokens) or token in vocab.special_ids:
            result = DEAD
        else:
            data = vocab.tokens[token]
            result = self.advance_bytes(state, data) if data else DEAD
        with self._lock:
            if len(self._tok) >= self.limits.transition_entries:
                self._tok.clear()
            self._tok[key] = result
        return result

    # -- completeness ---------------------------------------------------------------------------
    def is_complete(self, state: int) -> bool:
        """Whether the text so far is a sentence (the end of text is allowed here)."""
        found = self._complete.get(state)
        if found is not None:
            return found
        with self._lock:
            return self._is_complete(state)

    def _is_complete(self, state: int) -> bool:
        table = self.table
        result = False
        for lex, sid in self._states[state]:
            if self._fresh[lex]:
                if table.accepting(sid):
                    result = True
                    break
                continue
            if not self._accept[lex]:
                continue
            for ev in self.lexer.events(lex, -1):
                after = table.step(sid, ev)
                if after >= 0 and table.accepting(after):
                    result = True
                    break
            if result:
                break
        self._complete[state] = result
        return result

    # -- masks ----------------------------------------------------------------------------------
    def lex_table(self, lex: int) -> LexTable:
        found = self._lex_tables.get(lex)
        if found is None:
            found = self._builder.table(lex)
            self._lex_tables.put(lex, found)
        return found

    def _pair_words(self, lex: int, sid: int) -> U32:
        key = (lex, sid)
        found = self._pair_mask.get(key)
        if found is not None:
            return found
        try:
            if lex in self._slow_lex:
                raise CompileBudgetError("known to exceed its budget", code="token-table-budget")
            tab = self.lex_table(lex)
        except CompileBudgetError:
            # The token table of this lexer state is too large to build. The hot path never
            # raises: step every token's bytes instead (exact, slow), and say so once.
            self._slow_lex.add(lex)
            words = self._stepped_words(lex, sid)
            self._pair_mask.put(key, words)
            return words
        step = self.table.step
        # Parse set at the end of every path, level by level: one step per distinct
        # (parent set, event) pair, however many paths share it.
        at = np.full(tab.n_paths, DEAD, dtype=np.int64)
        at[0] = sid
        for level in tab.levels[1:]:
            before = at[tab.path_parent[level]]
            live = before >= 0
            if not live.any():
                break
            level = level[live]
            if level.size <= _SMALL_LEVEL:  # cheaper in plain Python than through np.unique
                events = tab.path_event[level].tolist()
                at[level] = [step(b, e) for b, e in zip(before[live].tolist(), events, strict=True)]
                continue
            keys = before[live] * _EVENT_STRIDE + tab.path_event[level]
            uniq, inverse = np.unique(keys, return_inverse=True)
            after = np.array(
                [step(k // _EVENT_STRIDE, k % _EVENT_STRIDE) for k in uniq.tolist()],
                dtype=np.int64,
            )
            at[level] = after[inverse]
        # A group is in the mask when its path survives and its alive terminals are expected.
        group_at = at[tab.group_path]
        live_groups = group_at >= 0
        if live_groups.any():
            exp = self._exp_words(group_at[live_groups])
            alive = self._alive_words()[tab.group_alive[live_groups]]
            live_groups[live_groups] = (exp & alive).any(axis=1)
        chosen = [tab.tokens[live_groups[tab.token_group]]]
        words = self._pack(chosen)
        for event, fresh, first_bytes in tab.delegates:
            resumed = step(sid, event)
            if resumed >= 0:
                part = self._pair_words(fresh, resumed)
                words |= part & self._first_byte_words(first_bytes)
        words.setflags(write=False)
        self._pair_mask.put(key, words)
        return words

    def _stepped_words(self, lex: int, sid: int) -> U32:
        """The pair's mask by stepping the bytes of every text token (the slow exact path)."""
        if not self._warned_slow:
            self._warned_slow = True
            warnings.warn(
                "typedgen: a token table exceeded its budget; masks for that lexer state are"
                " computed token by token (slow but exact). Prefer longest-match lexing for"
                " overlapping terminals.",
                RuntimeWarning,
                stacklevel=4,
            )
        pairs = ((lex, sid),)
        vocab = self.vocab
        chosen = [t for t in vocab.text_ids().tolist() if self._advance(pairs, vocab.tokens[t])]
        words = self._pack([np.asarray(chosen, dtype=np.int32)])
        words.setflags(write=False)
        return words

    def _exp_words(self, sids: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
        """Expected-terminal bitsets of parse sets, as rows of 64-bit words."""
        cache, sets, width = self._exp_rows, self.table.sets, self._term_words
        if len(cache) > _SMALL_MEMO:
            cache.clear()
        for sid in np.unique(sids).tolist():
            if sid not in cache:
                cache[sid] = _words(sets[sid].exp, width)
        return np.stack([cache[sid] for sid in sids.tolist()])

    def _alive_words(self) -> npt.NDArray[np.uint64]:
        """Alive-terminal bitsets of the lexer's alive sets, as rows of 64-bit words."""
        alive_sets = self.lexer.alive_sets
        if self._alive_rows.shape[0] != len(alive_sets):
            self._alive_rows = np.stack([_words(a, self._term_words) for a in alive_sets])
        return self._alive_rows

    def _first_byte_words(self, first_bytes: int) -> U32:
        """Packed mask of the text tokens whose first byte is in the 256-bit set."""
        found = self._first_bytes.get(first_bytes)
        if found is None:
            wanted = np.array([(first_bytes >> b) & 1 for b in range(256)] + [0], dtype=bool)
            flags = np.zeros(self.n_words * 32, dtype=bool)
            flags[: self.vocab.size] = wanted[self._features.first_byte]
            found = np.packbits(flags, bitorder="little").view(np.uint32)
            found.setflags(write=False)
            if len(self._first_bytes) > _SMALL_MEMO:
                self._first_bytes.clear()
            self._first_bytes[first_bytes] = found
        return found

    def _pack(self, chunks: list[npt.NDArray[np.int32]]) -> U32:
        flags = np.zeros(self.n_words * 32, dtype=bool)
        if chunks:
            flags[np.concatenate(chunks)] = True
        return np.packbits(flags, bitorder="little").view(np.uint32)

    def mask(self, state: int) -> U32:
        """Packed allowed-token bitmask of ``state`` (EOS bits set when complete). Read-only."""
        with self._lock:
            return self._mask_locked(state)

    def fill(self, state: int, row: npt.NDArray[np.int32]) -> None:
        """Write the mask of ``state`` into the int32 ``row`` (zero past the vocabulary)."""
        words = self.mask(state).view(np.int32)
        n = min(row.shape[0], words.shape[0])
        row[:n] = words[:n]
        row[n:] = 0

    def mask_any(self, state: int) -> bool:
        """Whether any token (or EOS) is allowed in ``state``."""
        return bool(self.mask(state).any())

    def _mask_locked(self, state: int) -> U32:
        found = self._mask.get(state)
        if found is not None:
            return found
        pairs = self._states[state]
        words: U32 | None = None
        for lex, sid in pairs:
            part = self._pair_words(lex, sid)
            words = part.copy() if words is None else np.bitwise_or(words, part, out=words)
        if words is None:
            words = np.zeros(self.n_words, dtype=np.uint32)
        if self.is_complete(state):
            words = words | self._eos_words
        words.setflags(write=False)
        self._mask.put(state, words)
        return words

    def text_kind(self, state: int, min_width: int) -> int:
        """Where ``state`` stands in its lexeme: 2 (free text) when every pair is a lexeme in
        progress (not fresh) that at least ``min_width`` distinct bytes continue (a string,
        identifier or comment body); 1 when every pair is in progress and none can end here
        (inside an escape); 0 otherwise (a lexeme may end or begin here)."""
        with self._lock:
            pairs = self._states[state]
            if not pairs:
                return 0
            wide = closed = True
            for lex, _ in pairs:
                if self._fresh[lex]:
                    return 0
                wide = wide and sum(1 for nxt in self.lexer.row(lex) if nxt >= 0) >= min_width
                closed = closed and not self._accept[lex]
            return 2 if wide else 1 if closed else 0

    # -- bytes ----------------------------------------------------------------------------------
    def allowed_bytes(self, state: int) -> tuple[int, ...]:
        """Every byte that can come next (the grammar's byte-level view)."""
        found = self._bytes.get(state)
        if found is not None:
            return found
        with self._lock:
            pairs = self._states[state]
            result = tuple(b for b in range(256) if self._advance(pairs, bytes((b,))))
            self._bytes[state] = result
            return result

    def forced_bytes(self, state: int, limit: int = 256) -> bytes:
        """The bytes the grammar forces next: while exactly one byte is possible and the text is
        not complete, that byte is forced."""
        with self._lock:
            return self._forced(state, limit)

    def _forced(self, state: int, limit: int) -> bytes:
        out = bytearray()
        while len(out) < limit and not self.is_complete(state):
            allowed = self.allowed_bytes(state)
            if len(allowed) != 1:
                break
            out.append(allowed[0])
            state = self.advance_bytes(state, bytes(allowed))
            if state == DEAD:  # pragma: no cover - allowed_bytes guarantees progress
                break
        return bytes(out)

    def shortest_completion(self, state: int, limit: int = 2048) -> bytes | None:
        """A short byte string that makes the text complete, or ``None`` if none was found.

        First an A* search over lexemes and parse sets (:mod:`typedgen.runtime.completion`),
        which reaches deep states (SQL after ``WITH x``) that a byte-level search cannot; if
        it visits ``limit`` states without success, the byte-level breadth-first search
        follows: one that prefers *closing* bytes (quotes, brackets, separators, ``0``) where
        a state allows any, then an unrestricted one. Memoised per state (a failure only for
        limits up to the one that failed).
        """
        with self._lock:
            return self._shortest_completion(state, limit)

    def _shortest_completion(self, state: int, limit: int) -> bytes | None:
        memo = self._completion.get(state)
        # A failure is only final for searches no larger than the one that failed.
        if memo is not None and (memo[0] is not None or memo[1] >= limit):
            return memo[0]
        result = None
        if self.is_complete(state):
            result = b""
        else:
            if self._closer is None:
                self._closer = CompletionSearch(self)
            # The lexeme search counts the states it generates, a few hundred per expansion
            # where many keywords are expected (after SQL's WITH: 2,048 ran out, 4,096 found
            # it), so it gets LEXEME_SEARCH_FACTOR times the byte searches' limit.
            result = self._closer.search(state, limit * LEXEME_SEARCH_FACTOR)
            if result is None:
                result = self._search_completion(state, limit, _CLOSING)
            if result is None:
                result = self._search_completion(state, limit, None)
        self._completion[state] = (result, limit)
        return result

    def _search_completion(
        self, state: int, limit: int, prefer: frozenset[int] | None
    ) -> bytes | None:
        parent: dict[int, tuple[int, int] | None] = {state: None}
        queue = deque([state])
        while queue:
            current = queue.popleft()
            allowed = self.allowed_bytes(current)
            if prefer is not None:
                allowed = tuple(b for b in allowed if b in prefer) or allowed
            for b in allowed:
                nxt = self.advance_bytes(current, bytes((b,)))
                if nxt == DEAD or nxt in parent:
                    continue
                parent[nxt] = (current, b)
                if self.is_complete(nxt):
                    out = bytearray()
                    step = parent[nxt]
                    while step is not None:
                        out.append(step[1])
                        step = parent[step[0]]
                    return bytes(reversed(out))
                queue.append(nxt)
            if len(parent) > limit:
                return None
        return None

    @property
    def eos_ids(self) -> frozenset[int]:
        return self._eos_ids

    def set_walk_budget(self, budget: int) -> None:
        """Bound later token-table walks (a state over it falls back to exact stepping)."""
        with self._lock:
            self._builder.walk_budget = budget

    # -- accounting -----------------------------------------------------------------------------
    def structure_bytes(self) -> int:
        """An estimate of what never shrinks: interned states, parse sets and their memos,
        lexer states and their rows and events (per-entry sizes measured with tracemalloc on
        the soak benchmark's grammars)."""
        table, lexer = self.table, self.lexer
        return (
            350 * len(self._states)
            + 1500 * len(table.sets)
            + 250 * (len(table._goto) + len(table._step) + len(table._merge))
            + 6000 * lexer.n_states
            + 300 * len(lexer._events_memo)
            + 200 * (len(self._complete) + len(self._bytes) + len(self._completion))
            + (self._closer.nbytes() if self._closer is not None else 0)
        )

    def cache_bytes(self) -> int:
        """Bytes held by the bounded caches (masks, pair masks, tables, transitions)."""
        return (
            self._mask.bytes
            + self._pair_mask.bytes
            + self._lex_tables.bytes
            + 100 * len(self._tok)
            + self.n_words * 4 * len(self._first_bytes)
        )

    def stats(self) -> dict[str, float]:
        """Counters for benchmarks and ``typedgen explain``."""
        return {
            "states": float(len(self._states)),
            "lexer_states": float(self.lexer.n_states),
            "parse_sets": float(len(self.table.sets)),
            "tables_cached": float(len(self._lex_tables)),
            "masks_cached": float(len(self._mask)),
            "mask_evictions": float(self._mask.evictions + self._pair_mask.evictions),
            "table_evictions": float(self._lex_tables.evictions),
            "slow_lexer_states": float(len(self._slow_lex)),
        }

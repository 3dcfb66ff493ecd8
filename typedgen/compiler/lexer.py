"""The combined lexer: one lazily determinised DFA that runs many terminals at once.

A combined state is the set of (terminal, terminal-DFA state) pairs still alive since the current
lexeme began. A lexeme begins in a *start state* for the set of terminals that may come there:
the terminals that can follow the one just ended (FOLLOW sets, plus ignored terminals, plus every
basic-lexing terminal, which always competes). Which terminals the parser actually expects is not
known here; the matcher filters by it at run time, so the lexer and every table built from it are
context-free and cacheable.

Where a lexeme may end is decided by the *events* of a state and the next byte: an event is
``(ends, blockers)``: one of the terminals in ``ends`` may end here, provided the parser expects
none of ``blockers``. Free terminals end wherever they match; basic ones only when no non-free
terminal can go on (and only the highest-ranked of the matches); contextual ones only when no
*expected* non-free terminal can go on, nor an expected one of higher rank matches the same text.

States are expanded on demand (``ensure``), so a large terminal set only costs what inputs and
tokens actually visit.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from typedgen.compiler.lowering import ParserGrammar, Terminal
from typedgen.errors import CompileBudgetError
from typedgen.ir.grammar import Lexing

__all__ = ["DEFAULT_LEXER_BUDGET", "Lexer"]

DEFAULT_LEXER_BUDGET = 200_000
Event = tuple[int, int]
Key = tuple[tuple[int, int], ...]


def bits_of(x: int) -> list[int]:
    """Indices of the set bits of ``x``."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


class Lexer:
    """Combined DFA over terminals, determinised lazily. ``-1`` in rows is the dead state."""

    def __init__(self, grammar: ParserGrammar, *, budget: int = DEFAULT_LEXER_BUDGET) -> None:
        self.grammar = grammar
        self.terminals: tuple[Terminal, ...] = grammar.terminals
        self.budget = budget
        self._tables = [t.dfa.trans for t in self.terminals]
        self._accepts = [t.dfa.accept for t in self.terminals]
        free = basic = contextual = 0
        for t, term in enumerate(self.terminals):
            if term.lexing is Lexing.FREE:
                free |= 1 << t
            elif term.lexing is Lexing.BASIC:
                basic |= 1 << t
            else:
                contextual |= 1 << t
        self.free, self.basic, self.contextual = free, basic, contextual
        self.nonfree = basic | contextual
        self.rank = [(t.priority, int(t.literal)) for t in self.terminals]
        self.follow = grammar.follow
        self.ignore = sum(1 << t for t in grammar.ignore)
        self.n_terms = n_terms = len(self.terminals)
        # Per basic terminal: its accepting states with no way on (the lexeme must end there).
        self._final_only: list[frozenset[int]] = [
            frozenset()
            if term.lexing is not Lexing.BASIC
            else frozenset(
                np.flatnonzero(term.dfa.accept & (term.dfa.trans < 0).all(axis=1)).tolist()
            )
            for term in self.terminals
        ]
        in_rules = {sym for _, rhs in grammar.productions for sym in rhs if sym < n_terms}
        # Ignored terminals that rules never use restart where they began (see start_state).
        self._transparent = frozenset(t for t in grammar.ignore if t not in in_rules)
        self._tags: dict[int, int] = {}
        self._tag_sets: list[int] = [0]
        # Lazily grown state tables.
        self._keys: list[Key] = []
        self._index: dict[Key, int] = {}
        self._trans = np.full((64, 256), -1, dtype=np.int32)
        self._acc_flag = np.zeros(64, dtype=bool)
        self._alive_arr = np.zeros(64, dtype=np.int32)
        self.alive_id: list[int] = []
        self._expanded: list[bool] = []
        self._rows: list[list[int] | None] = []
        self.accept: list[int] = []
        self.alive: list[int] = []
        self.fresh: list[bool] = []
        self.resume: list[int] = []
        self._alive_index: dict[int, int] = {}
        self.alive_sets: list[int] = []
        self.events_list: list[Event] = []
        self._event_index: dict[tuple[int, int, int], int] = {}
        self._event_restart: list[int] = []
        self._events_memo: dict[tuple[int, int], tuple[int, ...]] = {}
        self._start_memo: dict[int, int] = {}
        self._lock = threading.RLock()
        self.initial = self.start_state(grammar.first)

    # -- states -------------------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return len(self._keys)

    def _new_state(self, key: Key) -> int:
        sid = len(self._keys)
        if sid >= self.budget:
            raise CompileBudgetError(
                f"the combined lexer exceeds {self.budget} states",
                code="lexer-budget",
                origin=self.grammar.place(),
                hint="terminals that share long prefixes with different structure multiply"
                " lexer states; merge or simplify them",
            )
        self._keys.append(key)
        self._index[key] = sid
        if sid >= self._trans.shape[0]:
            cap = self._trans.shape[0]
            grown = np.full((cap * 2, 256), -1, dtype=np.int32)
            grown[:cap] = self._trans
            self._trans = grown
            self._acc_flag = np.concatenate([self._acc_flag, np.zeros(cap, dtype=bool)])
            self._alive_arr = np.concatenate([self._alive_arr, np.zeros(cap, dtype=np.int32)])
        self._expanded.append(False)
        self._rows.append(None)
        accepts = self._accepts
        n = self.n_terms
        self.accept.append(sum(1 << (t % n) for t, q in key if t >= 0 and accepts[t % n][q]))
        alive = sum(1 << (t % n) for t, _ in key if t >= 0)
        # Where an accepting ignored terminal began: its lexeme's start set (see start_state).
        resume = 0
        for t, q in key:
            if t >= n and accepts[t % n][q]:
                resume |= self._tag_sets[t // n]
        self.resume.append(resume)
        self.alive.append(alive)
        self.fresh.append(bool(key) and key[0][0] < 0)
        aid = self._alive_index.get(alive)
        if aid is None:
            aid = self._alive_index[alive] = len(self.alive_sets)
            self.alive_sets.append(alive)
        self._acc_flag[sid] = self.accept[-1] != 0
        self._alive_arr[sid] = aid
        self.alive_id.append(aid)
        return sid

    def start_state(self, allowed: int) -> int:
        """The fresh-lexeme state over the terminals in bitset ``allowed`` (plus basic ones).

        Ignored terminals (that no rule uses) are tagged with ``allowed``: when such a lexeme
        ends, the next one may be anything that could have come instead of it, not anything at
        all, so the restart after whitespace stays as narrow as before it.
        """
        allowed |= self.basic
        found = self._start_memo.get(allowed)
        if found is not None:
            return found
        with self._lock:
            tag = self._tags.get(allowed)
            if tag is None:
                tag = self._tags[allowed] = len(self._tag_sets)
                self._tag_sets.append(allowed)
            n = self.n_terms
            key: Key = (
                (-1, allowed),
                *((t + n * tag if t in self._transparent else t, 0) for t in bits_of(allowed)),
            )
            sid = self._index.get(key)
            if sid is None:
                sid = self._new_state(key)
            self._start_memo[allowed] = sid
            return sid

    def _expand(self, sid: int) -> None:
        key = self._keys[sid]
        members = [(t, q) for t, q in key if t >= 0]
        row = np.full(256, -1, dtype=np.int32)
        if members:
            tables, n = self._tables, self.n_terms
            mat = np.stack([tables[t % n][q] for t, q in members])
            rows_i, bytes_i = np.nonzero(mat >= 0)
            order = np.argsort(bytes_i, kind="stable")
            rows_i, bytes_i = rows_i[order], bytes_i[order]
            targets = mat[rows_i, bytes_i]
            bounds = np.flatnonzero(np.diff(bytes_i)) + 1
            starts = [0, *bounds.tolist()]
            ends = [*bounds.tolist(), len(bytes_i)]
            by_target: dict[Key, list[int]] = {}
            r_list, t_list, b_list = rows_i.tolist(), targets.tolist(), bytes_i.tolist()
            for s, e in zip(starts, ends, strict=True):
                if s == e:
                    continue
                nxt_key = self._prune(
                    tuple((members[r][0], q) for r, q in zip(r_list[s:e], t_list[s:e], strict=True))
                )
                by_target.setdefault(nxt_key, []).append(b_list[s])
            for nxt_key, byte_list in by_target.items():
                target = self._index.get(nxt_key)
                if target is None:
                    target = self._new_state(nxt_key)
                row[byte_list] = target
        self._trans[sid] = row
        self._expanded[sid] = True

    def _prune(self, key: Key) -> Key:
        """Drop basic members that can neither go on nor end: accepting with no way on, while
        a higher-ranked basic terminal accepts the same text (it always wins the tie). Kept,
        such a member makes the lexeme look alive to a parser that expects it, and the token
        closing the lexeme leads to a dead end (docs/internals/engine.md, "Lexing ranks")."""
        final_only, n = self._final_only, self.n_terms
        if not any(q in final_only[t % n] for t, q in key):
            return key
        accepts, rank, basic = self._accepts, self.rank, self.basic
        tops = [rank[t % n] for t, q in key if (basic >> (t % n)) & 1 and accepts[t % n][q]]
        if not tops:
            return key
        top = max(tops)
        return tuple((t, q) for t, q in key if q not in final_only[t % n] or rank[t % n] >= top)

    def ensure(self, states: npt.NDArray[np.int64] | list[int]) -> None:
        """Make sure the transition rows of ``states`` exist (expanding them if needed)."""
        expanded = self._expanded
        todo = [
            s
            for s in (states.tolist() if isinstance(states, np.ndarray) else states)
            if not expanded[s]
        ]
        if todo:
            with self._lock:
                for s in todo:
                    if not self._expanded[s]:
                        self._expand(s)

    @property
    def trans(self) -> npt.NDArray[np.int32]:
        """The transition table (rows valid for expanded states only; see :meth:`ensure`)."""
        return self._trans

    @property
    def accepting_flags(self) -> npt.NDArray[np.bool_]:
        """Per state: whether some terminal accepts (rows beyond ``n_states`` are padding)."""
        return self._acc_flag

    @property
    def alive_ids(self) -> npt.NDArray[np.int32]:
        """Per state: the id of its alive-terminal set in :attr:`alive_sets`."""
        return self._alive_arr

    def row(self, sid: int) -> list[int]:
        """Transition row of ``sid`` as a Python list (for byte-at-a-time stepping)."""
        row = self._rows[sid]
        if row is None:
            if not self._expanded[sid]:
                self.ensure([sid])
            row = self._trans[sid].tolist()
            self._rows[sid] = row
        return row

    # -- events -------------------------------------------------------------------------------
    def event_id(self, event: Event, resume: int = 0) -> int:
        """Intern an event; ``resume`` is the start set of an ending ignored lexeme."""
        key = (*event, resume)
        idx = self._event_index.get(key)
        if idx is None:
            with self._lock:
                idx = self._event_index.get(key)
                if idx is None:
                    ends = event[0]
                    follow = 0
                    for t in bits_of(ends):
                        follow |= resume if t in self._transparent else self.follow[t]
                    restart = self.start_state(follow)
                    idx = len(self.events_list)
                    self.events_list.append(event)
                    self._event_restart.append(restart)
                    self._event_index[key] = idx
        return idx

    def restart(self, event: int) -> int:
        """The fresh-lexeme state that follows ``event``."""
        return self._event_restart[event]

    def events(self, state: int, nxt: int) -> tuple[int, ...]:
        """Event ids for ending the lexeme in ``state`` when the next byte leads to ``nxt``.

        ``nxt == -1`` covers both a byte no terminal can take and the end of the text.
        """
        key = (state, nxt)
        memo = self._events_memo.get(key)
        if memo is not None:
            return memo
        acc = self.accept[state]
        resume = self.resume[state]
        out: list[int] = []
        if acc:
            going_on = self.alive[nxt] & self.nonfree if nxt >= 0 else 0
            free = acc & self.free
            if free:
                out.append(self.event_id((free, 0), resume))
            basic = acc & self.basic
            if basic and not going_on:
                best = max(self.rank[t] for t in bits_of(basic))
                top = sum(1 << t for t in bits_of(basic) if self.rank[t] == best)
                out.append(self.event_id((top, 0), resume))
            ctx = acc & self.contextual
            if ctx:
                nonfree_acc = bits_of(acc & self.nonfree)
                alive = self.alive[state]
                for r in sorted({self.rank[t] for t in bits_of(ctx)}, reverse=True):
                    ends = sum(1 << t for t in bits_of(ctx) if self.rank[t] == r)
                    blockers = going_on | sum(1 << t for t in nonfree_acc if self.rank[t] > r)
                    # Statically impossible: a blocker is always expected (ignored terminals),
                    # or every terminal keeping this lexeme alive is a blocker, or every
                    # terminal that could end here is a blocker (ending needs one of them
                    # expected, which blocks it: ParseTable.step could only return -1).
                    if blockers & self.ignore or alive & ~blockers == 0 or ends & ~blockers == 0:
                        continue
                    out.append(self.event_id((ends, blockers), resume))
        result = tuple(out)
        self._events_memo[key] = result
        return result

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        state["_rows"] = [None] * len(self._rows)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

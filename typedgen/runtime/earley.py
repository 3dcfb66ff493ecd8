"""Earley recognition over lexemes with hash-consed item sets.

An Earley set is a set of items ``(dotted production, origin set)``. Origins point at other
*interned* sets rather than at input positions, so a set is identified by its items alone and two
equal sets have the same future. That turns the recogniser into a lazily built deterministic
automaton: ``goto(set, terminal)`` is computed once and then looked up, whatever the input
position. Sets reached by several lexings at one position are merged (union of items), which
preserves the set of viable continuations exactly.

This table is a memo shared by every matcher of a compiled grammar; it is never part of the
compiled artefact's identity.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from typedgen.compiler.lowering import ParserGrammar

__all__ = ["SELF", "ParseTable"]

SELF = -1
"""Origin marker of items predicted in the set that holds them."""

Item = tuple[int, int]


class _Set:
    __slots__ = ("accepting", "exp", "items", "waiting")

    def __init__(
        self,
        items: frozenset[Item],
        waiting: dict[int, tuple[Item, ...]],
        exp: int,
        accepting: bool,
    ) -> None:
        self.items = items
        self.waiting = waiting
        self.exp = exp
        self.accepting = accepting


class ParseTable:
    """Interned Earley sets with memoised ``goto``, ``merge`` and lexer-event ``step``."""

    def __init__(self, grammar: ParserGrammar, events: list[tuple[int, int]]) -> None:
        self.grammar = grammar
        self.n_terms = grammar.n_terminals
        self.events = events  # shared, append-only list owned by the lexer
        item_next: list[int] = []
        item_lhs: list[int] = []
        first: dict[int, list[int]] = defaultdict(list)
        final = -1
        for lhs, rhs in grammar.productions:
            first[lhs].append(len(item_next))
            for dot in range(len(rhs) + 1):
                item_next.append(rhs[dot] if dot < len(rhs) else -1)
                item_lhs.append(lhs)
            if lhs == grammar.start:
                final = len(item_next) - 1
        self.item_next = item_next
        self.item_lhs = item_lhs
        self.first = {k: tuple(v) for k, v in first.items()}
        self.final_item = final
        self.start_item = self.first[grammar.start][0]
        self.ignore_bits = sum(1 << t for t in grammar.ignore)
        self._ignore = frozenset(grammar.ignore)
        self.sets: list[_Set] = []
        self._index: dict[frozenset[Item], int] = {}
        self._goto: dict[tuple[int, int], int] = {}
        self._merge: dict[frozenset[int], int] = {}
        self._step: dict[tuple[int, int], int] = {}
        self._lock = threading.RLock()
        self.initial = self._intern(self._closure([(self.start_item, SELF)]))

    # -- construction ------------------------------------------------------------------------
    def _closure(self, seeds: list[Item]) -> frozenset[Item]:
        item_next, item_lhs, first = self.item_next, self.item_lhs, self.first
        n_terms = self.n_terms
        sets = self.sets
        items: set[Item] = set()
        stack: list[Item] = []
        waiting_local: dict[int, list[Item]] = defaultdict(list)
        done_local: set[int] = set()
        for seed in seeds:
            if seed not in items:
                items.add(seed)
                stack.append(seed)
        while stack:
            it, org = stack.pop()
            sym = item_next[it]
            if sym < 0:
                lhs = item_lhs[it]
                if org == SELF:
                    if lhs in done_local:
                        continue
                    done_local.add(lhs)
                    advanced = [(w + 1, o) for w, o in waiting_local[lhs]]
                else:
                    advanced = [(w + 1, o) for w, o in sets[org].waiting.get(lhs, ())]
                for new in advanced:
                    if new not in items:
                        items.add(new)
                        stack.append(new)
            elif sym >= n_terms:
                waiting_local[sym].append((it, org))
                for fi in first.get(sym, ()):
                    new = (fi, SELF)
                    if new not in items:
                        items.add(new)
                        stack.append(new)
                if sym in done_local:
                    new = (it + 1, org)
                    if new not in items:
                        items.add(new)
                        stack.append(new)
        return frozenset(items)

    def _intern(self, items: frozenset[Item]) -> int:
        with self._lock:
            found = self._index.get(items)
            if found is not None:
                return found
            sid = len(self.sets)
            waiting: dict[int, list[Item]] = defaultdict(list)
            exp = self.ignore_bits
            accepting = False
            for it, org in items:
                origin = sid if org == SELF else org
                sym = self.item_next[it]
                if sym >= 0:
                    waiting[sym].append((it, origin))
                    if sym < self.n_terms:
                        exp |= 1 << sym
                elif it == self.final_item and origin == self.initial_id():
                    accepting = True
            self.sets.append(_Set(items, {k: tuple(v) for k, v in waiting.items()}, exp, accepting))
            self._index[items] = sid
            return sid

    def initial_id(self) -> int:
        return 0

    # -- transitions ---------------------------------------------------------------------------
    def exp(self, sid: int) -> int:
        """Bitset of the terminals the parser accepts next in set ``sid`` (ignores included)."""
        return self.sets[sid].exp

    def accepting(self, sid: int) -> bool:
        """Whether the input so far is a complete sentence in set ``sid``."""
        return self.sets[sid].accepting

    def goto(self, sid: int, term: int) -> int:
        """The set after scanning ``term`` in ``sid``; ``-1`` if the parser cannot take it."""
        key = (sid, term)
        found = self._goto.get(key)
        if found is not None:
            return found
        seeds = [(it + 1, org) for it, org in self.sets[sid].waiting.get(term, ())]
        result = self._intern(self._closure(seeds)) if seeds else -1
        if term in self._ignore:
            result = sid if result < 0 else self.merge((sid, result))
        self._goto[key] = result
        return result

    def merge(self, ids: tuple[int, ...] | list[int]) -> int:
        """The union of several sets reached at the same point (one set, exact futures)."""
        key = frozenset(ids)
        if len(key) == 1:
            return next(iter(key))
        found = self._merge.get(key)
        if found is not None:
            return found
        seeds: list[Item] = []
        for sid in key:
            seeds.extend((it, sid if org == SELF else org) for it, org in self.sets[sid].items)
        result = self._intern(self._closure(seeds))
        self._merge[key] = result
        return result

    def step(self, sid: int, event: int) -> int:
        """Apply a lexer event (end the lexeme as one of ``ends`` unless a blocker is expected)."""
        key = (sid, event)
        found = self._step.get(key)
        if found is not None:
            return found
        ends, blockers = self.events[event]
        exp = self.sets[sid].exp
        result = -1
        if not blockers & exp:
            cands = ends & exp
            targets = []
            while cands:
                low = cands & -cands
                cands ^= low
                nxt = self.goto(sid, low.bit_length() - 1)
                if nxt >= 0:
                    targets.append(nxt)
            if targets:
                result = self.merge(targets)
        self._step[key] = result
        return result

    def __len__(self) -> int:
        return len(self.sets)

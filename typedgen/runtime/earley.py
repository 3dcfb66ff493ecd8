"""Earley recognition over lexemes with hash-consed item sets.

An Earley set is a set of items ``(dotted production, origin set)``. Origins point at other
*interned* sets rather than at input positions, so a set is identified by its items alone and two
equal sets have the same future. That turns the recogniser into a lazily built deterministic
automaton: ``goto(set, terminal)`` is computed once and then looked up, whatever the input
position. Sets reached by several lexings at one position are merged (union of items), which
preserves the set of viable continuations exactly.

A set is stored as its *kernel* (items whose origin is another set) and the nonterminals it
*predicts*. The predicted items depend on the grammar alone, so each nonterminal's prediction
closure is computed once (with nullable nonterminals skipped, after Aycock and Horspool), and
building a set costs the size of its kernel, not of its closure. Closure distributes over union,
so merging sets is the union of kernels and predictions.

This table is a memo shared by every matcher of a compiled grammar; it is never part of the
compiled artefact's identity.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from typedgen.compiler.lowering import ParserGrammar
from typedgen.ir.analysis import bnf_nullable

__all__ = ["ParseTable"]

Item = tuple[int, int]
_Key = tuple[frozenset[Item], frozenset[int]]


class _Local:
    """The predicted part shared by every set that predicts the same nonterminals."""

    __slots__ = ("exp", "final", "waiting")

    def __init__(self, waiting: dict[int, tuple[int, ...]], exp: int, final: bool) -> None:
        self.waiting = waiting
        self.exp = exp
        self.final = final


class _Set:
    __slots__ = ("accepting", "exp", "kernel", "kernel_waiting", "local", "predicted")

    def __init__(
        self,
        kernel: frozenset[Item],
        predicted: frozenset[int],
        local: _Local,
        kernel_waiting: dict[int, tuple[Item, ...]],
        exp: int,
        accepting: bool,
    ) -> None:
        self.kernel = kernel
        self.predicted = predicted
        self.local = local
        self.kernel_waiting = kernel_waiting
        self.exp = exp
        self.accepting = accepting


class ParseTable:
    """Interned Earley sets with memoised ``goto``, ``merge`` and lexer-event ``step``."""

    def __init__(self, grammar: ParserGrammar, events: list[tuple[int, int]]) -> None:
        self.grammar = grammar
        n_terms = self.n_terms = grammar.n_terminals
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
        self.nullable = bnf_nullable(grammar.productions, n_terms + len(grammar.nonterminals))
        self.ignore_bits = sum(1 << t for t in grammar.ignore)
        self._ignore = frozenset(grammar.ignore)
        self._pred: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
        self._locals: dict[frozenset[int], _Local] = {}
        self.sets: list[_Set] = []
        self._index: dict[_Key, int] = {}
        self._goto: dict[tuple[int, int], int] = {}
        self._merge: dict[frozenset[int], int] = {}
        self._step: dict[tuple[int, int], int] = {}
        self._lock = threading.RLock()
        self.initial = self._intern(frozenset(), self._predicts(grammar.start))

    # -- predictions ------------------------------------------------------------------------
    def _prediction(self, nt: int) -> tuple[frozenset[int], frozenset[int]]:
        """(items, nonterminals) predicted by ``nt``, nullable nonterminals skipped."""
        found = self._pred.get(nt)
        if found is not None:
            return found
        item_next, nullable, n_terms = self.item_next, self.nullable, self.n_terms
        items: set[int] = set()
        nts = {nt}
        stack = [nt]
        while stack:
            for it in self.first.get(stack.pop(), ()):
                while it not in items:
                    items.add(it)
                    sym = item_next[it]
                    if sym < n_terms:
                        break
                    if sym not in nts:
                        nts.add(sym)
                        stack.append(sym)
                    if not nullable[sym]:
                        break
                    it += 1
        found = (frozenset(items), frozenset(nts))
        self._pred[nt] = found
        return found

    def _predicts(self, nt: int) -> frozenset[int]:
        return self._prediction(nt)[1]

    def _local(self, predicted: frozenset[int]) -> _Local:
        found = self._locals.get(predicted)
        if found is None:
            items: set[int] = set()
            for nt in predicted:
                items |= self._prediction(nt)[0]
            waiting: dict[int, list[int]] = defaultdict(list)
            exp = 0
            final = False
            for it in items:
                sym = self.item_next[it]
                if sym >= 0:
                    waiting[sym].append(it)
                    if sym < self.n_terms:
                        exp |= 1 << sym
                elif it == self.final_item:
                    final = True
            found = _Local({k: tuple(v) for k, v in waiting.items()}, exp, final)
            self._locals[predicted] = found
        return found

    # -- construction ------------------------------------------------------------------------
    def waiting(self, sid: int, sym: int) -> list[Item]:
        """Items of set ``sid`` whose dot is before ``sym``, origins resolved."""
        s = self.sets[sid]
        out = [(it, sid) for it in s.local.waiting.get(sym, ())]
        out.extend(s.kernel_waiting.get(sym, ()))
        return out

    def _closure(self, seeds: list[Item]) -> tuple[frozenset[Item], frozenset[int]]:
        item_next, item_lhs, nullable = self.item_next, self.item_lhs, self.nullable
        n_terms = self.n_terms
        kernel: set[Item] = set()
        predicted: set[int] = set()
        stack = list(seeds)
        while stack:
            item = stack.pop()
            if item in kernel:
                continue
            kernel.add(item)
            it, org = item
            sym = item_next[it]
            if sym < 0:
                stack.extend((w + 1, o) for w, o in self.waiting(org, item_lhs[it]))
            elif sym >= n_terms:
                if sym not in predicted:
                    predicted |= self._predicts(sym)
                if nullable[sym]:
                    stack.append((it + 1, org))
        return frozenset(kernel), frozenset(predicted)

    def _intern(self, kernel: frozenset[Item], predicted: frozenset[int]) -> int:
        key = (kernel, predicted)
        found = self._index.get(key)
        if found is not None:
            return found
        with self._lock:
            found = self._index.get(key)
            if found is not None:
                return found
            sid = len(self.sets)
            local = self._local(predicted)
            waiting: dict[int, list[Item]] = defaultdict(list)
            exp = self.ignore_bits | local.exp
            accepting = sid == 0 and local.final
            for it, org in kernel:
                sym = self.item_next[it]
                if sym >= 0:
                    waiting[sym].append((it, org))
                    if sym < self.n_terms:
                        exp |= 1 << sym
                elif it == self.final_item and org == 0:
                    accepting = True
            kernel_waiting = {k: tuple(v) for k, v in waiting.items()}
            self.sets.append(_Set(kernel, predicted, local, kernel_waiting, exp, accepting))
            self._index[key] = sid
            return sid

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
        seeds = [(it + 1, org) for it, org in self.waiting(sid, term)]
        result = self._intern(*self._closure(seeds)) if seeds else -1
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
        kernel: set[Item] = set()
        predicted: set[int] = set()
        for sid in key:
            s = self.sets[sid]
            kernel |= s.kernel
            predicted |= s.predicted
        result = self._intern(frozenset(kernel), frozenset(predicted))
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

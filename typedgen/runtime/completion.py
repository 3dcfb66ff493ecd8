"""Closing a text on a budget: a short completion searched over lexemes and parse sets.

A breadth-first search over bytes finds nothing in deep states: after SQL's ``WITH x`` the
completion is ``x AS (SELECT a) SELECT a``, and every identifier, number and keyword on the
way spreads the byte-level frontier over thousands of states. This search is A* over the
engine's interned states whose edges are whole lexemes: the shortest way to finish the lexeme
in progress, or the shortest string of a terminal the parser expects next (ignored ones such as
whitespace included). Every edge is taken by the engine's exact byte-level stepping, so what it
returns is in the language whatever the lexing modes do with the concatenation (a lexeme that
runs into the next one simply leads to another state).

The estimate of what is left is counted over the grammar: the fewest bytes the Earley items of
a parse set still need (each terminal at its shortest, separators between lexemes not counted),
through the sets their origins point to. Shortest strings prefer capitals, small letters and
digits, then other printable bytes, so completions read naturally (``SELECT``, ``A``, ``""``).

This is the reference; ``native/src/completion.cpp`` runs the same search, edge for edge, so
both engines close a text with the same bytes (tests/runtime/test_completion.py).
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from typing import TYPE_CHECKING

import numpy as np

from typedgen.compiler.lexer import bits_of

if TYPE_CHECKING:
    from typedgen.compiler.lowering import Terminal
    from typedgen.runtime.engine import Engine

__all__ = ["CompletionSearch", "byte_preference"]

INF = 1 << 60
_MEMO_SETS = 200_000
"""Past this many memoised parse sets, the estimates are dropped and recomputed on demand."""


def byte_preference() -> list[int]:
    """Rank of every byte when several spell a shortest string (lower is preferred)."""
    order = [*b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"]
    order += [b for b in range(33, 127) if b not in order]
    order += [32, 10, 9, 13]
    order += [b for b in range(256) if b not in order]
    rank = [0] * 256
    for i, b in enumerate(order):
        rank[b] = i
    return rank


_PREFERENCE = np.array(byte_preference(), dtype=np.int64)


class _Paths:
    """Per terminal DFA state: the fewest bytes to acceptance and the preferred next byte."""

    __slots__ = ("dist", "succ")

    def __init__(self, term: Terminal) -> None:
        trans, accept = term.dfa.trans, term.dfa.accept
        n = trans.shape[0]
        dist = np.where(accept, 0, INF).astype(np.int64)
        src, byte = np.nonzero(trans >= 0)
        dst = trans[src, byte]
        keys = np.unique(src.astype(np.int64) * n + dst)
        e_src, e_dst = (keys // n).tolist(), (keys % n).tolist()
        preds: dict[int, list[int]] = defaultdict(list)
        for s, d in zip(e_src, e_dst, strict=True):
            preds[d].append(s)
        queue = deque(np.flatnonzero(accept).tolist())
        while queue:
            q = queue.popleft()
            for p in preds.get(q, ()):
                if dist[p] == INF:
                    dist[p] = dist[q] + 1
                    queue.append(p)
        # The preferred byte of each state: among those one step closer, the best ranked.
        nxt = np.where(trans >= 0, dist[np.maximum(trans, 0)], INF)
        closer = nxt == (dist - 1)[:, None]
        score = np.where(closer, _PREFERENCE[None, :], 1 << 20)
        self.dist = dist.tolist()
        self.succ = np.argmin(score, axis=1).tolist()


class CompletionSearch:
    """A* over lexemes for one engine (memos of terminal paths and parse-set estimates)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        pg = engine.parser_grammar
        self.terminals = pg.terminals
        self.n_terms = len(pg.terminals)
        self.ignore = pg.ignore
        table = engine.table
        self._paths: dict[int, _Paths] = {}
        self._spelled: dict[tuple[int, int], bytes] = {}
        # Fewest bytes per symbol (a fixpoint over productions), then per dotted item.
        n_sym = self.n_terms + len(pg.nonterminals)
        least = [INF] * n_sym
        for t in range(self.n_terms):
            least[t] = self.paths(t).dist[0]
        changed = True
        while changed:
            changed = False
            for lhs, rhs in pg.productions:
                total = sum(least[s] for s in rhs)
                if total < least[lhs]:
                    least[lhs] = total
                    changed = True
        item_next = table.item_next
        rest = [0] * (len(item_next) + 1)
        for it in range(len(item_next) - 1, -1, -1):
            sym = item_next[it]
            rest[it] = 0 if sym < 0 else min(INF, least[sym] + rest[it + 1])
        self.least = least
        self.rest = rest
        self._need: dict[int, dict[int, int]] = {}
        self._estimate: dict[int, int] = {}
        self._local_edges: dict[int, tuple[dict[int, list[tuple[int, int]]], dict[int, int]]] = {}

    # -- terminals ----------------------------------------------------------------------------
    def paths(self, term: int) -> _Paths:
        found = self._paths.get(term)
        if found is None:
            found = self._paths[term] = _Paths(self.terminals[term])
        return found

    def spell(self, term: int, q: int) -> bytes:
        """The preferred shortest bytes taking terminal ``term`` from DFA state ``q`` to
        acceptance (empty when ``q`` accepts)."""
        key = (term, q)
        found = self._spelled.get(key)
        if found is None:
            paths = self.paths(term)
            trans = self.terminals[term].dfa.trans
            out = bytearray()
            while paths.dist[q] > 0 and paths.dist[q] < INF:
                b = paths.succ[q]
                out.append(b)
                q = int(trans[q, b])
            found = self._spelled[key] = bytes(out)
        return found

    # -- parse sets -----------------------------------------------------------------------------
    def _local(self, sid: int) -> tuple[dict[int, list[tuple[int, int]]], dict[int, int]]:
        """For the predicted part of a set: edges lhs -> awaited nonterminal (weighted by what
        the item needs after it), and per lhs the fewest bytes of its items from here."""
        table = self.engine.table
        local = table.sets[sid].local
        found = self._local_edges.get(id(local))
        if found is None:
            item_lhs, rest, n_terms = table.item_lhs, self.rest, self.n_terms
            edges: dict[int, list[tuple[int, int]]] = defaultdict(list)
            best: dict[int, int] = {}
            for sym, items in local.waiting.items():
                for it in items:
                    lhs = item_lhs[it]
                    if sym >= n_terms:
                        edges[lhs].append((sym, rest[it + 1]))
                    if rest[it] < best.get(lhs, INF):
                        best[lhs] = rest[it]
            found = (dict(edges), best)
            # Keyed by the shared _Local object's identity; it lives as long as the table.
            self._local_edges[id(local)] = found
        return found

    def need(self, sid: int) -> dict[int, int]:
        """Per nonterminal begun at set ``sid``: the fewest bytes that complete the text once
        it is complete (computed for older sets first: origins are older than their sets)."""
        stack = [sid]
        while stack:
            s = stack[-1]
            if s in self._need:
                stack.pop()
                continue
            missing = {o for _, o in self.engine.table.sets[s].kernel if o not in self._need}
            if missing:
                stack.extend(missing)
                continue
            self._need[s] = self._compute_need(s)
            stack.pop()
        return self._need[sid]

    def _compute_need(self, sid: int) -> dict[int, int]:
        table = self.engine.table
        item_next, item_lhs, rest, n_terms = (
            table.item_next,
            table.item_lhs,
            self.rest,
            self.n_terms,
        )
        heap: list[tuple[int, int]] = []
        if sid == table.initial:
            heap.append((0, table.grammar.start))
        for it, org in table.sets[sid].kernel:
            sym = item_next[it]
            if sym >= n_terms:
                base = self._need[org].get(item_lhs[it], INF)
                if base < INF:
                    heap.append((rest[it + 1] + base, sym))
        heapq.heapify(heap)
        edges, _ = self._local(sid)
        dist: dict[int, int] = {}
        while heap:
            d, nt = heapq.heappop(heap)
            if nt in dist:
                continue
            dist[nt] = d
            for nxt, w in edges.get(nt, ()):
                if nxt not in dist:
                    heapq.heappush(heap, (d + w, nxt))
        return dist

    def estimate(self, sid: int) -> int:
        """The fewest bytes parse set ``sid`` needs to accept (``INF``: none found)."""
        found = self._estimate.get(sid)
        if found is not None:
            return found
        if len(self._estimate) > _MEMO_SETS:
            self._estimate.clear()
            self._need.clear()
        table = self.engine.table
        s = table.sets[sid]
        if s.accepting:
            self._estimate[sid] = 0
            return 0
        need = self.need(sid)
        item_next, item_lhs, rest = table.item_next, table.item_lhs, self.rest
        best = INF
        for it, org in s.kernel:
            if item_next[it] >= 0:
                best = min(best, rest[it] + self._need[org].get(item_lhs[it], INF))
        for lhs, cost in self._local(sid)[1].items():
            best = min(best, cost + need.get(lhs, INF))
        self._estimate[sid] = best
        return best

    # -- engine states ----------------------------------------------------------------------------
    def state_estimate(self, state: int) -> int:
        """The fewest bytes a matcher state needs (over its pairs and the lexeme in progress)."""
        engine = self.engine
        lexer, table, n = engine.lexer, engine.table, self.n_terms
        best = INF
        for lex, sid in engine.pairs(state):
            if lexer.fresh[lex]:
                best = min(best, self.estimate(sid))
                continue
            exp = table.sets[sid].exp
            for t, q in lexer._keys[lex]:
                term = t % n
                if t < 0 or not (exp >> term) & 1:
                    continue
                after = table.goto(sid, term)
                if after >= 0:
                    best = min(best, self.paths(term).dist[q] + self.estimate(after))
        return best

    def edges(self, state: int) -> list[bytes]:
        """Candidate lexemes from ``state``: finish the lexeme in progress, or begin the
        shortest of a terminal the parser may expect next."""
        engine = self.engine
        lexer, table, n = engine.lexer, engine.table, self.n_terms
        out: dict[bytes, None] = {}
        for lex, sid in engine.pairs(state):
            exp = table.sets[sid].exp
            key = lexer._keys[lex]
            if lexer.fresh[lex]:
                for t, _ in key[1:]:
                    term = t % n
                    if (exp >> term) & 1:
                        out[self.spell(term, 0)] = None
                continue
            for t, q in key:
                term = t % n
                if (exp >> term) & 1 and not self.terminals[term].dfa.accept[q]:
                    out[self.spell(term, q)] = None
            for term in bits_of(lexer.accept[lex] & exp):
                after = table.goto(sid, term)
                if after < 0:
                    continue
                for nxt in bits_of(table.sets[after].exp):
                    out[self.spell(nxt, 0)] = None
                # An ignored lexeme (whitespace) may follow too: after SQL's keyword WITH the
                # identifier must be set apart ("WITHA" is one word), so " " is the way on.
                for nxt in self.ignore:
                    out[self.spell(nxt, 0)] = None
        return [piece for piece in out if piece]

    def search(self, state: int, limit: int) -> bytes | None:
        """A short completion of ``state``, or ``None`` when ``limit`` states were visited."""
        engine = self.engine
        if engine.is_complete(state):
            return b""
        h0 = self.state_estimate(state)
        if h0 >= INF:
            return None
        cost = {state: 0}
        parent: dict[int, tuple[int, bytes] | None] = {state: None}
        heap = [(h0, 0, 0, state)]
        counter = 0
        while heap:
            _, neg_g, _, current = heapq.heappop(heap)
            g = -neg_g
            if g > cost[current]:
                continue
            if engine.is_complete(current):
                pieces = []
                step = parent[current]
                while step is not None:
                    pieces.append(step[1])
                    step = parent[step[0]]
                return b"".join(reversed(pieces))
            if len(parent) > limit:
                return None
            for piece in self.edges(current):
                nxt = engine.advance_bytes(current, piece)
                if nxt < 0:
                    continue
                ng = g + len(piece)
                if ng >= cost.get(nxt, INF):
                    continue
                h = self.state_estimate(nxt)
                if h >= INF:
                    continue
                cost[nxt] = ng
                parent[nxt] = (current, piece)
                counter += 1
                heapq.heappush(heap, (ng + h, -ng, counter, nxt))
        return None

    def nbytes(self) -> int:
        """An estimate of the memos' size (for the engine's structure accounting)."""
        return (
            200 * (len(self._estimate) + len(self._spelled))
            + 64 * sum(len(d) for d in self._need.values())
            + 16 * len(self.rest)
        )

"""Byte-level automata for terminals: IR expression -> NFA -> minimal DFA.

Terminals are regular; each is compiled to a trimmed, minimal DFA over bytes whose every live
state can still reach acceptance. Intersection and complement are done on DFAs (complement is
taken within valid UTF-8 text). A state budget stops pathological expressions with a clear error.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from typedgen.compiler.backend import native_module, selected_engine
from typedgen.compiler.utf8 import utf8_sequences
from typedgen.errors import CompileBudgetError, ErrorCode, GrammarError
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
    walk,
)
from typedgen.ir.origin import Origin

__all__ = ["DEFAULT_STATE_BUDGET", "DFA", "expr_to_dfa"]

DEFAULT_STATE_BUDGET = 20_000
IntArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class DFA:
    """A deterministic automaton over bytes; state 0 is the start, ``-1`` in ``trans`` is dead."""

    trans: IntArray
    accept: BoolArray
    trim: bool = False
    """Known trimmed (every state reachable and able to accept), as every DFA this module
    builds is: emptiness is then just "no accepting state"."""

    @property
    def n_states(self) -> int:
        return int(self.trans.shape[0])

    def matches(self, data: bytes) -> bool:
        """Whether the whole of ``data`` is in the language."""
        q = 0
        for b in data:
            q = int(self.trans[q, b])
            if q < 0:
                return False
        return bool(self.accept[q])

    def is_empty(self) -> bool:
        """Whether the language is empty."""
        if self.trim or not self.accept.any():
            return not bool(self.accept.any())
        return not bool(self.trimmed().accept.any())

    def accepts_empty(self) -> bool:
        """Whether the empty string is in the language."""
        return bool(self.accept[0])

    def trimmed(self) -> DFA:
        """Drop unreachable states and make states that cannot reach acceptance dead."""
        trans, accept = self.trans, self.accept
        n = trans.shape[0]
        src, byte = np.nonzero(trans >= 0)
        keys = np.unique(src.astype(np.int64) * n + trans[src, byte])
        e_src, e_dst = keys // n, keys % n  # distinct edges, sorted by source
        reach = _visit(e_src, e_dst, n, [0])
        order = np.argsort(e_dst, kind="stable")
        live_seed = np.nonzero(accept & reach)[0].tolist()
        live = _visit(e_dst[order], e_src[order], n, live_seed) & reach
        if not live[0]:
            return DFA(np.full((1, 256), -1, dtype=np.int32), np.zeros(1, dtype=bool), True)
        keep = np.nonzero(live)[0]
        remap = np.full(n + 1, -1, dtype=np.int32)
        remap[keep] = np.arange(len(keep), dtype=np.int32)
        new_trans = remap[trans[keep]]  # -1 maps to remap[-1] == -1
        return DFA(new_trans.astype(np.int32), accept[keep].copy(), True)

    def minimized(self) -> DFA:
        """The minimal equivalent DFA (Hopcroft over byte equivalence classes)."""
        d = self.trimmed()
        n = d.n_states
        if n <= 1:
            return d
        dead = n
        table = np.where(d.trans < 0, dead, d.trans)
        table = np.vstack([table, np.full((1, 256), dead, dtype=np.int32)])
        accept = np.append(d.accept, False)
        columns = np.unique(table.T, axis=0)  # one column per byte class
        # Predecessor lists per byte class.
        preds: list[list[list[int]]] = []
        for col in columns:
            lists: list[list[int]] = [[] for _ in range(n + 1)]
            for p, q in enumerate(col.tolist()):
                lists[q].append(p)
            preds.append(lists)
        initial: list[set[int]] = [set(), set()]
        for q, flag in enumerate(accept.tolist()):
            initial[int(flag)].add(q)
        blocks = [b for b in initial if b]
        block_of = [0] * (n + 1)
        for i, block in enumerate(blocks):
            for q in block:
                block_of[q] = i
        work = {min(range(len(blocks)), key=lambda i: len(blocks[i]))} if len(blocks) > 1 else set()
        while work:
            a = work.pop()
            splitter = list(blocks[a])
            for lists in preds:
                x: set[int] = set()
                for q in splitter:
                    x.update(lists[q])
                if not x:
                    continue
                touched: dict[int, list[int]] = {}
                for p in x:
                    touched.setdefault(block_of[p], []).append(p)
                for b, members in touched.items():
                    if len(members) == len(blocks[b]):
                        continue
                    inside = set(members)
                    blocks[b] -= inside
                    new_index = len(blocks)
                    blocks.append(inside)
                    for p in inside:
                        block_of[p] = new_index
                    if b in work:
                        work.add(new_index)
                    else:
                        work.add(new_index if len(inside) <= len(blocks[b]) else b)
        # Renumber blocks: start block first, dead block removed.
        dead_block = block_of[dead]
        order = [block_of[0]]
        seen = {block_of[0], dead_block}
        for q in range(n):
            b = block_of[q]
            if b not in seen:
                seen.add(b)
                order.append(b)
        new_id = {b: i for i, b in enumerate(order)}
        new_id[dead_block] = -1
        reps = [next(iter(blocks[b])) for b in order]
        mapping = np.array([new_id[block_of[q]] for q in range(n + 1)], dtype=np.int32)
        new_trans = mapping[table[reps]]
        new_accept = accept[reps]
        return DFA(new_trans.astype(np.int32), new_accept.astype(bool), True)

    def without_empty(self) -> DFA:
        """The same language minus the empty string."""
        if not self.accept[0]:
            return self
        trans = np.vstack([self.trans[0:1], self.trans])
        trans = np.where(trans >= 0, trans + 1, -1).astype(np.int32)
        accept = np.concatenate([[False], self.accept])
        return DFA(trans, accept).trimmed()

    def product(self, other: DFA, *, both: bool, budget: int) -> DFA:
        """Intersection (``both=True``) or union of two languages by product construction."""
        a_t, b_t = self.trans, other.trans
        index: dict[tuple[int, int], int] = {(0, 0): 0}
        pairs = [(0, 0)]
        rows: list[IntArray] = []
        i = 0
        while i < len(pairs):
            qa, qb = pairs[i]
            i += 1
            ra = a_t[qa] if qa >= 0 else np.full(256, -1, dtype=np.int32)
            rb = b_t[qb] if qb >= 0 else np.full(256, -1, dtype=np.int32)
            row = np.full(256, -1, dtype=np.int32)
            valid = (ra >= 0) & (rb >= 0) if both else (ra >= 0) | (rb >= 0)
            na, nb = self.n_states, other.n_states
            keys = np.where(ra < 0, na, ra).astype(np.int64) * (nb + 1) + np.where(rb < 0, nb, rb)
            for key in np.unique(keys[valid]).tolist():
                pa, pb = divmod(int(key), nb + 1)
                pair = (-1 if pa == na else pa, -1 if pb == nb else pb)
                target = index.get(pair)
                if target is None:
                    target = index[pair] = len(pairs)
                    pairs.append(pair)
                    if len(pairs) > budget:
                        raise CompileBudgetError(
                            f"automaton exceeds {budget} states", code="dfa-budget"
                        )
                row[valid & (keys == key)] = target
            rows.append(row)
        acc = np.array(
            [
                (self.accept[qa] if qa >= 0 else False) and (other.accept[qb] if qb >= 0 else False)
                if both
                else (qa >= 0 and bool(self.accept[qa])) or (qb >= 0 and bool(other.accept[qb]))
                for qa, qb in pairs
            ],
            dtype=bool,
        )
        return DFA(np.array(rows, dtype=np.int32), acc)


class _NFA:
    """Thompson NFA over bytes with epsilon edges."""

    def __init__(self, budget: int) -> None:
        self.eps: list[list[int]] = []
        self.edges: list[list[tuple[int, int, int]]] = []
        self.budget = budget

    def state(self) -> int:
        self.eps.append([])
        self.edges.append([])
        if len(self.eps) > self.budget * 8:
            raise CompileBudgetError(
                f"terminal automaton exceeds {self.budget * 8} NFA states", code="nfa-budget"
            )
        return len(self.eps) - 1

    def embed(self, dfa: DFA) -> tuple[int, int]:
        base = [self.state() for _ in range(dfa.n_states)]
        end = self.state()
        for q in range(dfa.n_states):
            row = dfa.trans[q]
            b = 0
            while b < 256:
                t = int(row[b])
                e = b
                while e + 1 < 256 and int(row[e + 1]) == t:
                    e += 1
                if t >= 0:
                    self.edges[base[q]].append((b, e, base[t]))
                b = e + 1
            if dfa.accept[q]:
                self.eps[base[q]].append(end)
        return base[0], end


class _Builder:
    def __init__(self, resolve: Callable[[Ref], DFA], budget: int, origin: Origin | None) -> None:
        self.resolve = resolve
        self.budget = budget
        self.origin = origin

    def build(self, expr: Expr) -> DFA:
        direct = self._direct(expr)
        if direct is not None:
            return direct
        if isinstance(expr, Alt) and expr.items and all(isinstance(i, Lit) for i in expr.items):
            return _literal_trie(
                [i.data for i in expr.items if isinstance(i, Lit)],
                self.budget,
                expr.origin or self.origin,
            )
        nfa = _NFA(self.budget)
        start, end = self._frag(nfa, expr)
        return _determinize(nfa, start, end, self.budget, expr.origin or self.origin)

    def _direct(self, expr: Expr) -> DFA | None:
        """Counted repetitions and their sequences built as DFAs directly, without an NFA.

        ``"x"{0,255}`` through the subset construction costs time per state in Python; chaining
        copies of a prefix-free item's minimal DFA (one whose accepting states have no way on)
        is a few numpy operations and gives the minimal DFA. Sequences concatenate DFAs where
        the accepting states of the left part and the start of the right part use disjoint
        bytes (so the result stays deterministic). Anything else returns ``None``.
        """
        if isinstance(expr, Ref):
            return self.resolve(expr)
        if isinstance(expr, Repeat):
            if expr.max is None or expr.max < 8:
                return None
            item = self.build(expr.item)
            if item.accepts_empty() or not _prefix_free(item):
                return None
            return _chain(item, expr.min, expr.max, self.budget, expr.origin or self.origin)
        if isinstance(expr, Seq) and any(
            isinstance(i, Ref) or (isinstance(i, Repeat) and i.max is not None and i.max >= 8)
            for i in expr.items
        ):
            parts = [self.build(item) for item in expr.items]
            acc = parts[0]
            for part in parts[1:]:
                joined = _concat(acc, part)
                if joined is None:
                    return None
                acc = joined
            if acc.n_states > self.budget:
                raise CompileBudgetError(
                    f"terminal automaton exceeds the budget of {self.budget} states",
                    code="dfa-budget",
                    origin=expr.origin or self.origin,
                    hint="lower the counted repetition (e.g. a maxLength)",
                )
            return acc.trimmed()
        return None

    def _frag(self, nfa: _NFA, expr: Expr) -> tuple[int, int]:
        if isinstance(expr, Lit):
            start = cur = nfa.state()
            for b in expr.data:
                nxt = nfa.state()
                nfa.edges[cur].append((b, b, nxt))
                cur = nxt
            return start, cur
        if isinstance(expr, CharClass):
            start, end = nfa.state(), nfa.state()
            for lo, hi in expr.codepoints():
                for seq in utf8_sequences(lo, hi):
                    cur = start
                    for i, (blo, bhi) in enumerate(seq):
                        nxt = end if i == len(seq) - 1 else nfa.state()
                        nfa.edges[cur].append((blo, bhi, nxt))
                        cur = nxt
            return start, end
        if isinstance(expr, Seq):
            start = cur = nfa.state()
            for item in expr.items:
                s, e = self._frag(nfa, item)
                nfa.eps[cur].append(s)
                cur = e
            return start, cur
        if isinstance(expr, Alt):
            start, end = nfa.state(), nfa.state()
            for item in expr.items:
                s, e = self._frag(nfa, item)
                nfa.eps[start].append(s)
                nfa.eps[e].append(end)
            return start, end
        if isinstance(expr, Repeat):
            start = cur = nfa.state()
            for _ in range(expr.min):
                s, e = self._frag(nfa, expr.item)
                nfa.eps[cur].append(s)
                cur = e
            if expr.max is None:
                s, e = self._frag(nfa, expr.item)
                end = nfa.state()
                nfa.eps[cur].extend((s, end))
                nfa.eps[e].extend((s, end))
                return start, end
            end = nfa.state()
            nfa.eps[cur].append(end)
            for _ in range(expr.max - expr.min):
                s, e = self._frag(nfa, expr.item)
                nfa.eps[cur].append(s)
                nfa.eps[e].append(end)
                cur = e
            return start, end
        if isinstance(expr, Ref):
            return nfa.embed(self.resolve(expr))
        if isinstance(expr, Intersect):
            dfas = [self.build(item) for item in expr.items]
            acc = dfas[0]
            for other in dfas[1:]:
                acc = acc.product(other, both=True, budget=self.budget).minimized()
            return nfa.embed(acc)
        if isinstance(expr, Complement):
            inner = self.build(expr.item)
            return nfa.embed(_complement_utf8(inner, self.budget))
        raise GrammarError(f"unsupported node {type(expr).__name__} in a terminal", code="ir")


def _literal_trie(literals: list[bytes], budget: int, origin: Origin | None) -> DFA:
    """An alternation of literals (an enum), as the minimal DFA of their trie.

    The trie is numbered breadth-first with children by ascending byte: exactly the subset
    construction's states and order, built without the NFA. Its size is bounded like an NFA
    (``8 * budget`` nodes, ``nfa-budget``), and the state budget applies to the minimal DFA:
    5,000 product codes make a trie of ~50,000 nodes but a minimal DFA of a few thousand, since
    their endings are shared.
    """
    rows: list[IntArray] = []
    accept: list[bool] = []
    level: list[list[int]] = [list(range(len(literals)))]
    depth = [0]
    q = 0
    while q < len(level):
        members, pos = level[q], depth[q]
        row = np.full(256, -1, dtype=np.int32)
        acc = False
        children: dict[int, list[int]] = {}
        for li in members:
            lit = literals[li]
            if pos == len(lit):
                acc = True
            else:
                children.setdefault(lit[pos], []).append(li)
        for byte in sorted(children):
            if len(level) + 1 > budget * 8:
                raise CompileBudgetError(
                    f"terminal automaton exceeds {budget * 8} NFA states",
                    code="nfa-budget",
                    origin=origin,
                    hint=_HINTS[0],
                )
            row[byte] = len(level)
            level.append(children[byte])
            depth.append(pos + 1)
        level[q] = []
        rows.append(row)
        accept.append(acc)
        q += 1
    dfa = DFA(np.array(rows, dtype=np.int32), np.array(accept, dtype=bool)).minimized()
    if dfa.n_states > budget:
        raise CompileBudgetError(
            f"terminal automaton exceeds the budget of {budget} states",
            code="dfa-budget",
            origin=origin,
            hint=_HINTS[0],
        )
    return dfa


def _visit(
    heads: npt.NDArray[np.int64], tails: npt.NDArray[np.int64], n: int, seeds: list[int]
) -> BoolArray:
    """States reachable from ``seeds`` along edges ``heads[i] -> tails[i]`` (sorted by head)."""
    starts = np.searchsorted(heads, np.arange(n + 1)).tolist()
    targets = tails.tolist()
    seen = np.zeros(n, dtype=bool)
    seen_list = [False] * n
    stack = list(seeds)
    for q in stack:
        seen_list[q] = True
    while stack:
        q = stack.pop()
        for t in targets[starts[q] : starts[q + 1]]:
            if not seen_list[t]:
                seen_list[t] = True
                stack.append(t)
    seen[:] = seen_list
    return seen


def _prefix_free(dfa: DFA) -> bool:
    """Whether no accepting state has a transition (no word of the language extends another)."""
    return not bool((dfa.trans[dfa.accept] >= 0).any())


def _chain(item: DFA, lo: int, hi: int, budget: int, origin: Origin | None) -> DFA:
    """``item{lo,hi}`` for a prefix-free, non-nullable minimal ``item``: ``hi`` linked copies."""
    core = np.nonzero(~item.accept)[0]  # state 0 is first: the start does not accept
    k = len(core)
    total = hi * k + 1
    if total > budget:
        raise CompileBudgetError(
            f"terminal automaton exceeds the budget of {budget} states ({hi} repetitions of"
            f" {k} states)",
            code="dfa-budget",
            origin=origin,
            hint="lower the counted repetition (e.g. a maxLength)",
        )
    remap = np.full(item.n_states + 1, -1, dtype=np.int64)
    remap[core] = np.arange(k)
    remap[np.nonzero(item.accept)[0]] = k  # finishing an item: the start of the next copy
    local = remap[item.trans[core]]  # k x 256, -1 dead (remap[-1] is -1)
    offsets = (np.arange(hi, dtype=np.int64) * k)[:, None, None]
    trans = np.where(local[None] >= 0, local[None] + offsets, -1).reshape(hi * k, 256)
    trans = np.vstack([trans, np.full((1, 256), -1, dtype=np.int64)]).astype(np.int32)
    accept = np.zeros(total, dtype=bool)
    accept[np.arange(lo, hi + 1) * k] = True
    return DFA(trans, accept, True)  # every copy reachable and able to finish


def _concat(left: DFA, right: DFA) -> DFA | None:
    """``left`` then ``right`` as one DFA, or ``None`` where that would need a choice."""
    n = left.n_states
    start_row = np.where(right.trans[0] >= 0, right.trans[0] + n, -1)
    trans = np.vstack([left.trans, np.where(right.trans >= 0, right.trans + n, -1)])
    accept = np.concatenate([np.zeros(n, dtype=bool), right.accept])
    finals = np.nonzero(left.accept)[0]
    rows = trans[finals]
    if ((rows >= 0) & (start_row[None] >= 0)).any():
        return None
    trans[finals] = np.where(rows >= 0, rows, start_row[None])
    accept[finals] = bool(right.accept[0])
    return DFA(trans.astype(np.int32), accept)


def _closure(nfa: _NFA, states: set[int]) -> frozenset[int]:
    stack = list(states)
    seen = set(states)
    while stack:
        q = stack.pop()
        for t in nfa.eps[q]:
            if t not in seen:
                seen.add(t)
                stack.append(t)
    return frozenset(seen)


def _determinize(nfa: _NFA, start: int, end: int, budget: int, origin: Origin | None) -> DFA:
    first = _closure(nfa, {start})
    index = {first: 0}
    sets = [first]
    rows: list[IntArray] = []
    i = 0
    while i < len(sets):
        current = sets[i]
        i += 1
        row = np.full(256, -1, dtype=np.int32)
        edges = [edge for q in current for edge in nfa.edges[q]]
        if edges:
            points = sorted({lo for lo, _, _ in edges} | {hi + 1 for _, hi, _ in edges})
            for a, b in itertools.pairwise(points):
                targets = {t for lo, hi, t in edges if lo <= a and hi >= b - 1}
                if not targets:
                    continue
                key = _closure(nfa, targets)
                target = index.get(key)
                if target is None:
                    target = index[key] = len(sets)
                    sets.append(key)
                    if len(sets) > budget:
                        raise CompileBudgetError(
                            f"terminal automaton exceeds the budget of {budget} states",
                            code="dfa-budget",
                            origin=origin,
                            hint="simplify the pattern (large counted repetitions multiply states)"
                            " or raise the budget",
                        )
                row[a:b] = target
        rows.append(row)
    accept = np.array([end in s for s in sets], dtype=bool)
    return DFA(np.array(rows, dtype=np.int32).reshape(len(rows), 256), accept).minimized()


_UTF8_CACHE: list[DFA] = []


def utf8_text_dfa() -> DFA:
    """The DFA of all valid UTF-8 strings (any number of Unicode scalar values)."""
    if not _UTF8_CACHE:
        builder = _Builder(lambda ref: _unresolved(ref), DEFAULT_STATE_BUDGET, None)
        _UTF8_CACHE.append(builder.build(Repeat(CharClass(((0, MAX_CODEPOINT),)))))
    return _UTF8_CACHE[0]


def _unresolved(ref: Ref) -> DFA:
    raise GrammarError(
        f"unresolved reference {ref.name!r}", code="undefined-rule", origin=ref.origin
    )


def _complement_utf8(dfa: DFA, budget: int) -> DFA:
    n = dfa.n_states
    trans = np.where(dfa.trans < 0, n, dfa.trans)
    trans = np.vstack([trans, np.full((1, 256), n, dtype=np.int32)]).astype(np.int32)
    accept = ~np.append(dfa.accept, False)
    flipped = DFA(trans, accept)
    return flipped.product(utf8_text_dfa(), both=True, budget=budget).minimized()


def expr_to_dfa(
    expr: Expr,
    resolve: Callable[[Ref], DFA] = _unresolved,
    *,
    budget: int = DEFAULT_STATE_BUDGET,
    origin: Origin | None = None,
    native: bool | None = None,
) -> DFA:
    """The minimal DFA of a regular IR expression; ``resolve`` supplies referenced terminals.

    ``native`` picks the builder: the native core's port of this module (``None``: whichever
    engine is selected, see :mod:`typedgen.compiler.backend`) gives the same arrays, faster.
    DFAs of expressions without references are memoised per process (they depend on nothing
    else): the lowering asks for the same terminal more than once, and formats and patterns
    recur across grammars.
    """
    if native is None:
        native = selected_engine() == "native"
    build = _native_build if native else _python_build
    nodes = list(walk(expr))
    for node in nodes:
        if isinstance(node, Repeat) and max(node.min, node.max or 0) > budget:
            # Never cheaper than one state per count: refused before any work (and before a
            # count outgrows the native core's 32-bit integers).
            raise CompileBudgetError(
                f"terminal automaton exceeds the budget of {budget} states (a repetition of"
                f" {max(node.min, node.max or 0)})",
                code="dfa-budget",
                origin=node.origin or origin,
                hint=_HINTS[1],
            )
    if not any(isinstance(node, Ref) for node in nodes):
        key = (expr, budget, native)
        try:
            hit = _DFA_CACHE.get(key)
        except RecursionError:  # hashing a very deep expression: build it uncached
            return build(expr, resolve, budget, origin)
        if hit is not None:
            _DFA_CACHE.move_to_end(key)
            return hit
        dfa = build(expr, resolve, budget, origin)
        if dfa.n_states <= _DFA_CACHE_MAX_STATES:  # at most 1 MiB of table per entry
            _DFA_CACHE[key] = dfa
            if len(_DFA_CACHE) > _DFA_CACHE_SIZE:
                _DFA_CACHE.popitem(last=False)
        return dfa
    return build(expr, resolve, budget, origin)


def _python_build(
    expr: Expr, resolve: Callable[[Ref], DFA], budget: int, origin: Origin | None
) -> DFA:
    try:
        return _Builder(resolve, budget, origin).build(expr)
    except CompileBudgetError as exc:
        if exc.origin is not None:
            raise
        # The NFA and product budgets know no place: name the terminal's.
        raise CompileBudgetError(
            exc.message, code=exc.code, origin=expr.origin or origin, hint=exc.hint or _HINTS[0]
        ) from None
    except RecursionError:
        raise CompileBudgetError(
            "terminal expression nested too deeply for the Python builder",
            code="dfa-budget",
            origin=expr.origin or origin,
            hint=_HINTS[0],
        ) from None


_OP_LIT, _OP_CLASS, _OP_SEQ, _OP_ALT, _OP_REPEAT, _OP_REF, _OP_INTERSECT, _OP_COMPLEMENT = range(8)
NATIVE_BUDGET_CODES: dict[str, ErrorCode] = {
    "dfa-budget": "dfa-budget",
    "nfa-budget": "nfa-budget",
    "lexer-budget": "lexer-budget",
    "token-table-budget": "token-table-budget",
}
"""The budget codes the native core raises, typed (an unknown one is a KeyError: a bug)."""
_HINTS = {
    0: "simplify the pattern (large counted repetitions multiply states) or raise the budget",
    1: "lower the counted repetition (e.g. a maxLength)",
}


def encode_expr(
    expr: Expr, resolve: Callable[[Ref], DFA]
) -> tuple[npt.NDArray[np.int32], list[DFA], list[Expr]]:
    """``expr`` as the native core's prefix program, the referenced DFAs, and the nodes in
    pre-order (the native core names a node by its pre-order index in budget errors)."""
    prog: list[int] = []
    refs: list[DFA] = []
    ref_index: dict[str, int] = {}
    nodes: list[Expr] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, Lit):
            prog += (_OP_LIT, len(node.data), *node.data)
        elif isinstance(node, CharClass):
            cps = node.codepoints()
            prog += (_OP_CLASS, len(cps))
            for lo, hi in cps:
                prog += (lo, hi)
        elif isinstance(node, Seq | Alt | Intersect):
            op = (
                _OP_SEQ
                if isinstance(node, Seq)
                else _OP_ALT
                if isinstance(node, Alt)
                else _OP_INTERSECT
            )
            prog += (op, len(node.items))
            stack.extend(reversed(node.items))
        elif isinstance(node, Repeat):
            prog += (_OP_REPEAT, node.min, -1 if node.max is None else node.max)
            stack.append(node.item)
        elif isinstance(node, Ref):
            idx = ref_index.get(node.name)
            if idx is None:
                idx = ref_index[node.name] = len(refs)
                refs.append(resolve(node))
            prog += (_OP_REF, idx)
        elif isinstance(node, Complement):
            prog.append(_OP_COMPLEMENT)
            stack.append(node.item)
        else:
            raise GrammarError(f"unsupported node {type(node).__name__} in a terminal", code="ir")
    return np.asarray(prog, dtype=np.int32), refs, nodes


def _native_build(
    expr: Expr, resolve: Callable[[Ref], DFA], budget: int, origin: Origin | None
) -> DFA:
    native = native_module()
    if isinstance(expr, Ref):  # as the Python builder: a reference is its terminal's DFA
        return resolve(expr)
    prog, refs, nodes = encode_expr(expr, resolve)
    try:
        trans, accept = native.expr_to_dfa(
            prog, [(r.trans, r.accept) for r in refs], min(budget, 2**31 - 1)
        )
    except native.BudgetError as exc:
        raw_code, message, node, detail = exc.args
        code = NATIVE_BUDGET_CODES[raw_code]
        where = (nodes[node].origin if node >= 0 else None) or origin
        raise CompileBudgetError(
            message, code=code, origin=where, hint=_HINTS.get(detail, _HINTS[0])
        ) from None
    return DFA(trans, accept, True)


_DFA_CACHE: OrderedDict[tuple[Expr, int, bool], DFA] = OrderedDict()
_DFA_CACHE_SIZE = 256
_DFA_CACHE_MAX_STATES = 1024

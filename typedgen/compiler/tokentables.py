"""Token tables: what every token does when read from one lexer state.

Reading a token's bytes from a combined lexer state either stays inside the current lexeme, or
crosses lexeme boundaries (a token may span several terminals). Which boundaries the parser will
allow is context: unknown here. So a table records, per token, each *path*: the sequence of lexer
events (boundaries) the bytes cross, and the set of terminals still alive at the end. Tokens with
the same (path, alive set) form a group. At run time the matcher asks the parser, once per path,
whether it can take those events, and keeps the groups whose end set it expects: the mask is the
union of a few precomputed id arrays, never a scan of the vocabulary.

Building a table walks the token trie from the state: breadth-first with numpy while the work is
large, depth-first in plain Python once it is small. Walks are shared: the walk below a trie node
entered in a given lexer state (the first byte of a token, or the first byte of a lexeme that
begins inside a token) is a :class:`SubTable`, computed once per grammar and spliced into every
table that reaches it, so the identifiers after each of a hundred operators are walked once.
Boundaries *before* a token's first byte are not walked at all: they are ``delegates`` that the
matcher resolves with the fresh state's own table. A quiet free-text state (a JSON string, a
comment, an identifier) classifies most tokens at once with byte-set tests instead of walking
them (a bounded run such as ``[a-z]{1,24}`` with a length test too), and inside any walk, a trie
subtree that such a state reads without anything to decide is recorded as one range of tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from typedgen.compiler.automata import utf8_text_dfa
from typedgen.compiler.lexer import Lexer, bits_of
from typedgen.compiler.trie import TokenFeatures, TokenTrie, chain_forest
from typedgen.errors import CompileBudgetError

__all__ = ["LexTable", "SubTable", "TableBuilder"]

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
FRONTIER_BUDGET = 4_000_000
"""Most (trie node, lexer state, path) entries a walk may hold before it stops with an error."""
SMALL_WORK = 600
"""When fewer trie nodes than this lie below the frontier, the walk goes on depth-first in plain
Python: cheaper than numpy's per-call overhead for small remainders."""
SHARE_MIN = 400
"""A walk below a node with at least this many nodes is shared as a :class:`SubTable`."""
QUIET_MIN_BYTES = 48
"""A state looping on at least this many ASCII bytes uses the quiet-loop shortcut."""
_ALIVE_STRIDE = 1 << 32
_EVENT_BITS = 24


@dataclass(frozen=True, eq=False)
class LexTable:
    """Token groups for one lexer state, laid out for vectorised evaluation.

    Path ``p`` (path 0: no boundary crossed) extends ``path_parent[p]`` by lexer event
    ``path_event[p]``; ``levels[d]`` lists the paths with ``d`` events, so a path's parent is
    always on the level above. Group ``g`` is the tokens whose bytes follow path
    ``group_path[g]`` and end with alive-set id ``group_alive[g]``; ``tokens[i]`` belongs to
    group ``token_group[i]``.
    """

    state: int
    path_parent: I32
    path_event: I32
    levels: tuple[I32, ...]
    group_path: I32
    group_alive: I32
    tokens: I32
    token_group: I32
    delegates: tuple[tuple[int, int, int], ...] = ()
    """``(event, fresh state, first bytes)``: where the lexeme may end *before* the token's
    first byte, the token is read from the fresh state instead. Those tokens are not in this
    table: the matcher takes them from the fresh state's table (for the parse set after the
    event), restricted to tokens beginning with one of ``first bytes`` (a 256-bit set)."""

    @property
    def n_groups(self) -> int:
        return int(self.group_path.size)

    @property
    def n_paths(self) -> int:
        return int(self.path_parent.size)


@dataclass(frozen=True, eq=False)
class SubTable:
    """The walk below one trie node entered in one lexer state (paths relative to the entry).

    ``keys[i]`` is ``path * 2**32 + alive id`` for token ``tokens[i]``; ``shared`` lists the
    walks below deeper nodes spliced in on a path: ``(path, node, state)``.
    """

    path_parent: tuple[int, ...]
    path_event: tuple[int, ...]
    tokens: I64
    keys: I64
    shared: tuple[tuple[int, int, int], ...]


WALK_BUDGET = 4_000_000
"""Most entries the depth-first part of a walk may visit before it stops with an error."""


def _over_budget(lexer: Lexer, state: int) -> CompileBudgetError:
    alive = bits_of(lexer.alive[state])
    names = [lexer.terminals[t].name for t in alive]
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return CompileBudgetError(
        f"the token table walk from a lexeme of {shown or 'a fresh start'} exceeds its budget",
        code="token-table-budget",
        origin=lexer.grammar.place(alive),
        hint="overlapping scannerless terminals that may follow each other make tokens lex in"
        " exponentially many ways; give them a longest-match lexing mode (e.g. Lark's"
        " lexer='contextual')",
    )


class _Paths:
    """Interned paths: ``(parent path, event) -> id``; path 0 is the empty path."""

    def __init__(self) -> None:
        self.parent = [-1]
        self.event = [-1]
        self.index: dict[tuple[int, int], int] = {}

    def child(self, parent: int, event: int) -> int:
        pair = (parent, event)
        pid = self.index.get(pair)
        if pid is None:
            pid = self.index[pair] = len(self.parent)
            self.parent.append(parent)
            self.event.append(event)
        return pid


class _Walk:
    """One walk of a trie from a (node, lexer state) entry, collecting tokens and shares."""

    def __init__(
        self,
        lexer: Lexer,
        trie: TokenTrie,
        *,
        share: bool,
        quiet: _QuietSkip | None = None,
        budget: int = WALK_BUDGET,
    ) -> None:
        self.budget = budget
        self.lexer = lexer
        self.trie = trie
        self.share = share
        self.quiet = quiet
        self.paths = _Paths()
        self.out_tok: list[I64] = []
        self.out_key: list[I64] = []
        self.small_tok: list[int] = []
        self.small_key: list[int] = []
        self.shared: set[tuple[int, int, int]] = set()
        self.entry = 0

    # -- output ----------------------------------------------------------------------------------
    def record(self, node: I64, lex: I64, path: I64) -> None:
        """Record the tokens that end at these entries' nodes."""
        trie = self.trie
        t_counts = (trie.tok_start[node + 1] - trie.tok_start[node]).astype(np.int64)
        has = t_counts > 0
        if not has.any():
            return
        h_node, h_cnt = node[has], t_counts[has]
        h_key = path[has] * _ALIVE_STRIDE + self.lexer.alive_ids[lex[has]]
        rep = np.repeat(np.arange(h_node.size), h_cnt)
        inner = np.arange(rep.size) - np.repeat(np.cumsum(h_cnt) - h_cnt, h_cnt)
        self.out_tok.append(trie.tok_ids[trie.tok_start[h_node][rep] + inner].astype(np.int64))
        self.out_key.append(h_key[rep])

    def record_subtrees(self, node: I64, lex: I64, path: I64) -> None:
        """Record every token below these nodes (inclusive): they stay in the lexeme."""
        if not node.size:
            return
        trie = self.trie
        lo = trie.tok_start[node].astype(np.int64)
        hi = trie.tok_start[node + trie.subtree[node]].astype(np.int64)
        counts = hi - lo
        keys = path * _ALIVE_STRIDE + self.lexer.alive_ids[lex]
        rep = np.repeat(np.arange(node.size), counts)
        inner = np.arange(rep.size) - np.repeat(np.cumsum(counts) - counts, counts)
        self.out_tok.append(trie.tok_ids[lo[rep] + inner].astype(np.int64))
        self.out_key.append(keys[rep])

    def split_shared(
        self, node: I64, lex: I64, path: I64, eligible: npt.NDArray[np.bool_]
    ) -> tuple[I64, I64, I64]:
        """Hand entries below big nodes over to shared sub-tables; return the others."""
        if not self.share:
            return node, lex, path
        big = eligible & (self.trie.subtree[node] >= SHARE_MIN)
        if big.any():
            for item in zip(path[big].tolist(), node[big].tolist(), lex[big].tolist(), strict=True):
                self.shared.add(item)
            keep = ~big
            return node[keep], lex[keep], path[keep]
        return node, lex, path

    # -- walking ---------------------------------------------------------------------------------
    def run(self, start_node: int, start_state: int) -> None:
        lexer, trie = self.lexer, self.trie
        self.entry = start_state
        child_start, child_node, child_byte = trie.child_start, trie.child_node, trie.child_byte
        node = np.array([start_node], dtype=np.int64)
        lex = np.array([start_state], dtype=np.int64)
        path = np.zeros(1, dtype=np.int64)
        if start_node != 0:
            self.record(node, lex, path)
        first = True
        while node.size:
            if int(trie.subtree[node].sum()) < SMALL_WORK:
                self.run_small(
                    list(zip(node.tolist(), lex.tolist(), path.tolist(), strict=True)), first
                )
                return
            starts = child_start[node]
            counts = (child_start[node + 1] - starts).astype(np.int64)
            total = int(counts.sum())
            if total == 0:
                return
            rep = np.repeat(np.arange(node.size), counts)
            offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            pos = offsets + np.repeat(starts.astype(np.int64), counts)
            c_node = child_node[pos].astype(np.int64)
            c_byte = child_byte[pos]
            c_lex = lex[rep]
            c_path = path[rep]
            lexer.ensure(np.unique(lex))
            nxt = lexer.trans[c_lex, c_byte].astype(np.int64)
            if self.quiet is not None:
                quiet = self.quiet.skippable(c_lex, c_byte, c_node)
                if quiet is not None:
                    self.record_subtrees(c_node[quiet], c_lex[quiet], c_path[quiet])
                    rest = ~quiet
                    c_node, c_byte, c_lex, c_path = (
                        c_node[rest],
                        c_byte[rest],
                        c_lex[rest],
                        c_path[rest],
                    )
                    nxt, rep = nxt[rest], rep[rest]

            keep = nxt >= 0
            cont = self.split_shared(
                c_node[keep],
                nxt[keep],
                c_path[keep],
                np.full(int(keep.sum()), first and start_node == 0, dtype=bool),
            )
            new_node, new_lex, new_path = [cont[0]], [cont[1]], [cont[2]]

            # Boundaries: the lexeme ends before this byte (never before a token's first byte
            # in a top-level walk: those are the table's delegates).
            acc = lexer.accepting_flags[c_lex] & (node[rep] != 0)
            if acc.any():
                restart = self._restart(np.flatnonzero(acc), c_lex, nxt, c_byte, c_path, c_node)
                if restart is not None:
                    r_node, r_lex, r_path = self.split_shared(
                        *restart, np.ones(restart[0].size, dtype=bool)
                    )
                    new_node.append(r_node)
                    new_lex.append(r_lex)
                    new_path.append(r_path)

            node = np.concatenate(new_node)
            lex = np.concatenate(new_lex)
            path = np.concatenate(new_path)
            if node.size > min(FRONTIER_BUDGET, self.budget):
                raise _over_budget(self.lexer, self.entry)
            self.record(node, lex, path)
            first = False

    def _restart(
        self,
        b_idx: I64,
        c_lex: I64,
        nxt: I64,
        c_byte: npt.NDArray[np.uint8],
        c_path: I64,
        c_node: I64,
    ) -> tuple[I64, I64, I64] | None:
        lexer = self.lexer
        width = lexer.n_states + 1
        key = c_lex[b_idx] * width + (nxt[b_idx] + 1)
        uniq, inv = np.unique(key, return_inverse=True)
        ev_lists = [lexer.events(int(k // width), int(k % width) - 1) for k in uniq.tolist()]
        ev_count = np.array([len(e) for e in ev_lists], dtype=np.int64)
        per = ev_count[inv]
        if not per.sum():
            return None
        ev_flat = np.array([e for lst in ev_lists for e in lst], dtype=np.int64)
        ev_off = np.concatenate([[0], np.cumsum(ev_count)])
        rep2 = np.repeat(np.arange(b_idx.size), per)
        inner = np.arange(rep2.size) - np.repeat(np.cumsum(per) - per, per)
        events = ev_flat[ev_off[inv][rep2] + inner]
        entry = b_idx[rep2]
        restarts = np.array(
            [lexer.restart(e) for e in range(int(events.max()) + 1)], dtype=np.int64
        )[events]
        lexer.ensure(np.unique(restarts))
        fresh = lexer.trans[restarts, c_byte[entry]].astype(np.int64)
        ok = fresh >= 0
        entry, events, fresh = entry[ok], events[ok], fresh[ok]
        if not entry.size:
            return None
        pair_key = c_path[entry] * (1 << _EVENT_BITS) + events
        pk_uniq, pk_inv = np.unique(pair_key, return_inverse=True)
        mask = (1 << _EVENT_BITS) - 1
        ids = np.array(
            [self.paths.child(pk >> _EVENT_BITS, pk & mask) for pk in pk_uniq.tolist()],
            dtype=np.int64,
        )
        return c_node[entry], fresh, ids[pk_inv]

    def run_small(self, entries: list[tuple[int, int, int]], first: bool) -> None:
        """Depth-first continuation of the walk for a small frontier, in plain Python."""
        lexer, trie = self.lexer, self.trie
        child_start = trie.child_start.data
        child_node = trie.child_node.data
        child_byte = trie.child_byte.data
        tok_start = trie.tok_start.data
        tok_ids = trie.tok_ids.data
        subtree = trie.subtree.data
        row, accept, events, restart = lexer.row, lexer.accept, lexer.events, lexer.restart
        alive_id = lexer.alive_id
        share = self.share
        paths = self.paths
        out_tok, out_key, shared = self.small_tok, self.small_key, self.shared
        stack = [(node, lex, path, first and node == 0) for node, lex, path in entries]
        budget = min(self.budget, WALK_BUDGET)
        quiet_of = self.quiet.of if self.quiet is not None else None
        while stack:
            budget -= 1
            if budget < 0:
                raise _over_budget(self.lexer, self.entry)
            node, lex, path, top = stack.pop()
            lrow = row(lex)
            acc = accept[lex] and node != 0
            quiet = quiet_of(lex) if quiet_of is not None else None
            for k in range(child_start[node], child_start[node + 1]):
                child = child_node[k]
                b = child_byte[k]
                if quiet is not None and quiet[0][b] and quiet[1][child]:
                    # The whole subtree stays in this lexeme with nothing to decide.
                    key = path * _ALIVE_STRIDE + alive_id[lex]
                    for j in range(tok_start[child], tok_start[child + subtree[child]]):
                        out_tok.append(tok_ids[j])
                        out_key.append(key)
                    continue
                nxt = lrow[b]
                targets = []
                if nxt >= 0:
                    targets.append((nxt, path, top))
                if acc:
                    for ev in events(lex, nxt):
                        fresh = row(restart(ev))[b]
                        if fresh >= 0:
                            targets.append((fresh, paths.child(path, ev), True))
                for tgt, pth, sharable in targets:
                    if share and sharable and subtree[child] >= SHARE_MIN:
                        shared.add((pth, child, tgt))
                        continue
                    t0, t1 = tok_start[child], tok_start[child + 1]
                    if t1 > t0:
                        key = pth * _ALIVE_STRIDE + alive_id[tgt]
                        for j in range(t0, t1):
                            out_tok.append(tok_ids[j])
                            out_key.append(key)
                    stack.append((child, tgt, pth, False))

    def result(self) -> SubTable:
        toks = [*self.out_tok]
        keys = [*self.out_key]
        if self.small_tok:
            toks.append(np.array(self.small_tok, dtype=np.int64))
            keys.append(np.array(self.small_key, dtype=np.int64))
        return SubTable(
            path_parent=tuple(self.paths.parent),
            path_event=tuple(self.paths.event),
            tokens=np.concatenate(toks) if toks else np.zeros(0, np.int64),
            keys=np.concatenate(keys) if keys else np.zeros(0, np.int64),
            shared=tuple(sorted(self.shared)),
        )


def _no_boundary(lexer: Lexer, state: int, byte: int) -> bool:
    """Whether no lexeme can end in ``state`` before ``byte`` in any context where the lexeme
    is alive: every ending event either cannot restart on ``byte`` or is blocked by a terminal
    that is alive in ``state`` (so expected whenever this lexeme is)."""
    if not lexer.accept[state]:
        return True
    row = lexer.row
    nxt = row(state)[byte]
    alive = lexer.alive[state]
    for ev in lexer.events(state, nxt):
        _, blockers = lexer.events_list[ev]
        if row(lexer.restart(ev))[byte] >= 0 and (blockers & alive) != alive:
            return False
    return True


@dataclass(frozen=True)
class Quiet:
    """Where a state can read many tokens without anything to decide (see :func:`quiet_run`)."""

    lo: int
    """Quiet ASCII bytes 0-63 (bitset)."""
    hi: int
    """Quiet ASCII bytes 64-127 (bitset)."""
    utf8: bool
    """Every well-formed non-ASCII character is quiet too."""
    max_len: int | None
    """How many quiet bytes the state can still take (``None``: unbounded)."""


def quiet_run(lexer: Lexer, state: int) -> Quiet | None:
    """The quiet ASCII bytes of a free-text state, or ``None``.

    A state is quiet on a byte that leads, with every other quiet byte, to one and the same next
    state keeping the same alive terminals, where no lexeme can end (see :func:`_no_boundary`):
    the inside of a JSON string, a comment, an identifier. Such runs are either a loop (the state
    leads back to itself: any number of quiet bytes) or a chain (a bounded repetition such as
    ``[a-z]{1,24}``: the chain's length bounds the run). A token made only of quiet bytes, no
    longer than the run, stays in the lexeme with nothing to decide: such tokens (most of a
    vocabulary) form one group without being walked. For loops, well-formed non-ASCII characters
    that lead back to the state through quiet states count too.
    """
    alive, row = lexer.alive, lexer.row
    target = alive[state]
    srow = row(state)
    counts: dict[int, int] = {}
    for b in range(128):
        if srow[b] >= 0:
            counts[srow[b]] = counts.get(srow[b], 0) + 1
    if not counts:
        return None
    nxt = max(counts, key=counts.__getitem__)
    quiet = [b for b in range(128) if srow[b] == nxt and _no_boundary(lexer, state, b)]
    if len(quiet) < QUIET_MIN_BYTES or alive[nxt] != target:
        return None
    lo = sum(1 << b for b in quiet if b < 64)
    hi = sum(1 << (b - 64) for b in quiet if b >= 64)
    if nxt != state:
        # A chain: follow it while every quiet byte keeps it in lock step.
        length, cur, seen = 1, nxt, {state, nxt}
        while True:
            crow = row(cur)
            step = {crow[b] for b in quiet}
            if len(step) != 1 or not all(_no_boundary(lexer, cur, b) for b in quiet):
                break
            (after,) = step
            if after < 0 or alive[after] != target or after in seen:
                break
            seen.add(after)
            cur, length = after, length + 1
        return Quiet(lo, hi, False, length)
    return Quiet(lo, hi, _utf8_loops(lexer, state), None)


def _utf8_loops(lexer: Lexer, state: int) -> bool:
    """Whether every well-formed non-ASCII character read from ``state`` leads back to it
    through quiet states with the same alive terminals."""
    alive, row = lexer.alive, lexer.row
    utf8 = utf8_text_dfa()
    u_trans, u_accept = utf8.trans, utf8.accept
    target = alive[state]
    seen = {(0, state)}
    stack = [(0, state)]
    while stack:
        u, s = stack.pop()
        s_row = row(s)
        for b in range(0x80, 0x100):
            u2 = int(u_trans[u, b])
            if u2 < 0:
                continue
            s2 = s_row[b]
            if s2 < 0 or not _no_boundary(lexer, s, b):
                return False
            if u_accept[u2]:
                if s2 != state:
                    return False
                continue
            if alive[s2] != target:
                return False
            if (u2, s2) not in seen:
                seen.add((u2, s2))
                stack.append((u2, s2))
    return True


class _QuietSkip:
    """Finds trie subtrees that a quiet self-looping state reads without anything to decide.

    For a state looping on a set of ASCII bytes with no possible boundary (see
    :func:`quiet_run`), a child reached by a loop byte whose whole subtree only uses loop bytes
    holds tokens that all stay in the lexeme: the walk records them as one range of the trie's
    token array (node ids are in pre-order) instead of visiting them.
    """

    def __init__(self, lexer: Lexer, trie: TokenTrie) -> None:
        self.lexer = lexer
        self.trie = trie
        self._by_state: dict[int, tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None] = {}
        self._pure: dict[int, npt.NDArray[np.bool_]] = {}
        byte_into = np.zeros(trie.n_nodes, dtype=np.int64)
        byte_into[trie.child_node.astype(np.int64)] = trie.child_byte
        byte_into[0] = -1
        self._byte_into = byte_into

    def of(self, state: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        """(loop bytes as a 256-entry mask, per-node "subtree uses loop bytes only") or None."""
        if state in self._by_state:
            return self._by_state[state]
        quiet = quiet_run(self.lexer, state)
        found = None
        if quiet is not None and quiet.max_len is None:
            bits = quiet.lo | (quiet.hi << 64)
            loop = np.array([(bits >> b) & 1 for b in range(256)], dtype=bool)
            pure = self._pure.get(bits)
            if pure is None:
                trie = self.trie
                impure = np.ones(trie.n_nodes, dtype=np.int64)
                inner = self._byte_into >= 0
                impure[inner] = ~loop[self._byte_into[inner]]
                impure[0] = 0
                cum = np.cumsum(impure)
                last = np.arange(trie.n_nodes) + trie.subtree.astype(np.int64) - 1
                pure = (cum[last] - cum) == 0
                self._pure[bits] = pure
            found = (loop, pure)
        self._by_state[state] = found
        return found

    def skippable(
        self, lex: I64, byte: npt.NDArray[np.uint8], node: I64
    ) -> npt.NDArray[np.bool_] | None:
        """Which (child node, state, byte) entries lead into a quiet subtree, or None."""
        out: npt.NDArray[np.bool_] | None = None
        for state in np.unique(lex).tolist():
            found = self.of(state)
            if found is None:
                continue
            loop, pure = found
            here = (lex == state) & loop[byte] & pure[node]
            out = here if out is None else out | here
        return out


def _delegates(lexer: Lexer, state: int) -> tuple[tuple[int, int, int], ...]:
    """Boundaries before the first byte of a token, as delegations to fresh states."""
    if not lexer.accept[state]:
        return ()
    row = lexer.row
    srow = row(state)
    found: dict[tuple[int, int], int] = {}
    for b in range(256):
        for ev in lexer.events(state, srow[b]):
            fresh = lexer.restart(ev)
            if row(fresh)[b] >= 0:
                found[(ev, fresh)] = found.get((ev, fresh), 0) | (1 << b)
    return tuple((ev, fresh, bits) for (ev, fresh), bits in sorted(found.items()))


class TableBuilder:
    """Builds :class:`LexTable` objects for a lexer and trie, sharing sub-walks between them."""

    def __init__(
        self,
        lexer: Lexer,
        trie: TokenTrie,
        features: TokenFeatures | None = None,
        *,
        walk_budget: int = WALK_BUDGET,
    ) -> None:
        self.lexer = lexer
        self.trie = trie
        self.features = features
        self.walk_budget = walk_budget
        self._subtables: dict[tuple[int, int], SubTable] = {}
        self._quiet = _QuietSkip(lexer, trie)

    def subtable(self, node: int, state: int) -> SubTable:
        """The shared walk below ``node`` entered in lexer ``state``."""
        key = (node, state)
        found = self._subtables.get(key)
        if found is None:
            walk = _Walk(
                self.lexer, self.trie, share=True, quiet=self._quiet, budget=self.walk_budget
            )
            walk.run(node, state)
            found = self._subtables[key] = walk.result()
        return found

    def table(self, state: int) -> LexTable:
        """The token table of lexer ``state``."""
        quiet = quiet_run(self.lexer, state) if self.features is not None else None
        if quiet is None or self.features is None:
            return self._flatten(state, self.subtable(0, state), None)
        f = self.features
        inside = (
            f.text
            & (f.utf8_ok if quiet.utf8 else f.ascii_only)
            & ((f.ascii_lo & np.uint64(~quiet.lo & (2**64 - 1))) == 0)
            & ((f.ascii_hi & np.uint64(~quiet.hi & (2**64 - 1))) == 0)
        )
        if quiet.max_len is not None:
            inside &= (f.offsets[1:] - f.offsets[:-1]) <= quiet.max_len
        rest = np.flatnonzero(f.text & ~inside)
        walk = _Walk(
            self.lexer,
            chain_forest(f, rest, self.trie.fingerprint),
            share=False,
            budget=self.walk_budget,
        )
        walk.run(0, state)
        fast = np.flatnonzero(inside).astype(np.int64)
        key = np.full(fast.size, self.lexer.alive_id[state], dtype=np.int64)
        return self._flatten(state, walk.result(), (fast, key))

    def _flatten(self, state: int, top: SubTable, extra: tuple[I64, I64] | None) -> LexTable:
        paths = _Paths()
        toks: list[I64] = []
        keys: list[I64] = []
        if extra is not None:
            toks.append(extra[0])
            keys.append(extra[1])
        stack: list[tuple[SubTable, int]] = [(top, 0)]
        while stack:
            sub, base = stack.pop()
            remap = [base] * len(sub.path_parent)
            for q in range(1, len(sub.path_parent)):
                remap[q] = paths.child(remap[sub.path_parent[q]], sub.path_event[q])
            if sub.tokens.size:
                local_path = sub.keys // _ALIVE_STRIDE
                alive = sub.keys % _ALIVE_STRIDE
                toks.append(sub.tokens)
                keys.append(np.asarray(remap, dtype=np.int64)[local_path] * _ALIVE_STRIDE + alive)
            for path, node, lex in sub.shared:
                stack.append((self.subtable(node, lex), remap[path]))
        return _group(state, paths, toks, keys, _delegates(self.lexer, state))


def _group(
    state: int,
    paths: _Paths,
    toks: list[I64],
    keys: list[I64],
    delegates: tuple[tuple[int, int, int], ...],
) -> LexTable:
    if toks:
        all_tok = np.concatenate(toks)
        all_key = np.concatenate(keys)
        # A token may reach a group twice (two walks, same fate): harmless for the mask.
        uniq_key, token_group = np.unique(all_key, return_inverse=True)
        group_path = (uniq_key // _ALIVE_STRIDE).astype(np.int32)
        group_alive = (uniq_key % _ALIVE_STRIDE).astype(np.int32)
        tokens = all_tok.astype(np.int32)
    else:
        group_path = group_alive = tokens = np.zeros(0, dtype=np.int32)
        token_group = np.zeros(0, dtype=np.int64)
    parent = np.asarray(paths.parent, dtype=np.int32)
    depth = np.zeros(parent.size, dtype=np.int32)
    for p in range(1, parent.size):  # parents are always created before their children
        depth[p] = depth[parent[p]] + 1
    order_by_depth = np.argsort(depth, kind="stable").astype(np.int32)
    bounds = np.searchsorted(depth[order_by_depth], np.arange(int(depth.max()) + 2))
    levels = tuple(order_by_depth[bounds[d] : bounds[d + 1]] for d in range(bounds.size - 1))
    return LexTable(
        state=state,
        path_parent=parent,
        path_event=np.asarray(paths.event, dtype=np.int32),
        levels=levels,
        group_path=group_path,
        group_alive=group_alive,
        tokens=tokens,
        token_group=token_group.astype(np.int32),
        delegates=delegates,
    )

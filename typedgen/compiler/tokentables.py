"""Token tables: what every token does when read from one lexer state.

Reading a token's bytes from a combined lexer state either stays inside the current lexeme, or
crosses lexeme boundaries (a token may span several terminals). Which boundaries the parser will
allow is context: unknown here. So a table records, per token, each *path*: the sequence of lexer
events (boundaries) the bytes cross, and the set of terminals still alive at the end. Tokens with
the same (path, alive set) form a group. At run time the matcher asks the parser, once per path,
whether it can take those events, and keeps the groups whose end set it expects: the mask is the
union of a few precomputed id arrays, never a scan of the vocabulary.

The walk is a breadth-first sweep of the token trie, vectorised with numpy per byte of depth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from typedgen.compiler.automata import utf8_text_dfa
from typedgen.compiler.lexer import Lexer
from typedgen.compiler.trie import TokenFeatures, TokenTrie, chain_forest
from typedgen.errors import CompileBudgetError

__all__ = ["LexTable", "build_lex_table"]

I32 = npt.NDArray[np.int32]
FRONTIER_BUDGET = 4_000_000
"""Most (trie node, lexer state, path) entries a sweep may hold before it stops with an error."""


@dataclass(frozen=True, eq=False)
class LexTable:
    """Token groups for one lexer state.

    ``path_parent[p]``/``path_event[p]`` describe path ``p`` (path 0: no boundary crossed);
    group ``g`` holds ``tokens[group_start[g]:group_start[g + 1]]``, whose bytes follow path
    ``group_path[g]`` and end with alive-set id ``group_alive[g]``.
    """

    state: int
    path_parent: tuple[int, ...]
    path_event: tuple[int, ...]
    group_path: tuple[int, ...]
    group_alive: tuple[int, ...]
    group_start: I32
    tokens: I32

    @property
    def n_groups(self) -> int:
        return len(self.group_path)


SMALL_FRONTIER = 96
"""Below this many entries the sweep continues depth-first in plain Python (no numpy overhead)."""


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


def _sweep_small(
    lexer: Lexer,
    trie: TokenTrie,
    entries: list[tuple[int, int, int]],
    paths: _Paths,
    out_tok: list[int],
    out_key: list[int],
) -> None:
    """Depth-first continuation of the sweep for a small frontier, in plain Python."""
    child_start = trie.child_start.data
    child_node = trie.child_node.data
    child_byte = trie.child_byte.data
    tok_start = trie.tok_start.data
    tok_ids = trie.tok_ids.data
    row, accept, events, restart = lexer.row, lexer.accept, lexer.events, lexer.restart
    alive_id = lexer.alive_id
    stack = list(entries)
    while stack:
        node, lex, path = stack.pop()
        lrow = row(lex)
        acc = accept[lex]
        for k in range(child_start[node], child_start[node + 1]):
            child = child_node[k]
            b = child_byte[k]
            nxt = lrow[b]
            targets = []
            if nxt >= 0:
                targets.append((nxt, path))
            if acc:
                for ev in events(lex, nxt):
                    fresh = row(restart(ev))[b]
                    if fresh >= 0:
                        targets.append((fresh, paths.child(path, ev)))
            if not targets:
                continue
            t0, t1 = tok_start[child], tok_start[child + 1]
            for tgt, pth in targets:
                if t1 > t0:
                    key = pth * _ALIVE_STRIDE + alive_id[tgt]
                    for j in range(t0, t1):
                        out_tok.append(tok_ids[j])
                        out_key.append(key)
                stack.append((child, tgt, pth))


QUIET_MIN_BYTES = 48
"""A state looping on at least this many ASCII bytes is swept with the quiet-loop shortcut."""


def quiet_loop(lexer: Lexer, state: int) -> tuple[int, int] | None:
    """The ASCII loop bytes of a *quiet* free-text state, as two 64-bit masks, or ``None``.

    A state is quiet when it accepts nothing, and every well-formed UTF-8 character read from it
    leads back to it through states with the same alive terminals that accept nothing either
    (the inside of a JSON string, a comment, free text). A token made only of its loop bytes and
    well-formed UTF-8 then stays in the lexeme with nothing to decide: such tokens (most of a
    vocabulary) form one group without being walked.
    """
    accept, alive, row = lexer.accept, lexer.alive, lexer.row
    if accept[state]:
        return None
    loop = [b for b in range(128) if row(state)[b] == state]
    if len(loop) < QUIET_MIN_BYTES:
        return None
    utf8 = utf8_text_dfa()
    u_trans = utf8.trans
    u_accept = utf8.accept
    target = alive[state]
    seen = {(0, state)}
    stack = [(0, state)]
    while stack:
        u, s = stack.pop()
        srow = row(s)
        for b in range(0x80, 0x100):
            u2 = int(u_trans[u, b])
            if u2 < 0:
                continue
            s2 = srow[b]
            if s2 < 0:
                return None
            if u_accept[u2]:
                if s2 != state:
                    return None
                continue
            if accept[s2] or alive[s2] != target:
                return None
            if (u2, s2) not in seen:
                seen.add((u2, s2))
                stack.append((u2, s2))
    lo = sum(1 << b for b in loop if b < 64)
    hi = sum(1 << (b - 64) for b in loop if b >= 64)
    return lo, hi


def build_lex_table(
    lexer: Lexer, trie: TokenTrie, state: int, features: TokenFeatures | None = None
) -> LexTable:
    """The token table of lexer ``state``; see the module docstring."""
    quiet = quiet_loop(lexer, state) if features is not None else None
    if quiet is None or features is None:
        return _sweep(lexer, trie, state)
    lo, hi = quiet
    f = features
    inside = (
        f.text
        & f.utf8_ok
        & ((f.ascii_lo & np.uint64(~lo & (2**64 - 1))) == 0)
        & ((f.ascii_hi & np.uint64(~hi & (2**64 - 1))) == 0)
    )
    rest = np.flatnonzero(f.text & ~inside)
    table = _sweep(lexer, chain_forest(f, rest, trie.fingerprint), state)
    fast_ids = np.flatnonzero(inside).astype(np.int32)
    key = (0, lexer.alive_id[state])
    groups = list(zip(table.group_path, table.group_alive, strict=True))
    chunks = [table.tokens[table.group_start[g] : table.group_start[g + 1]] for g in range(len(groups))]
    if key in groups:
        g = groups.index(key)
        chunks[g] = np.union1d(chunks[g], fast_ids).astype(np.int32)
    else:
        groups.insert(0, key)
        chunks.insert(0, fast_ids)
    order = sorted(range(len(groups)), key=lambda i: groups[i])
    tokens = np.concatenate([chunks[i] for i in order]) if chunks else np.zeros(0, np.int32)
    sizes = np.array([chunks[i].size for i in order], dtype=np.int64)
    return LexTable(
        state=state,
        path_parent=table.path_parent,
        path_event=table.path_event,
        group_path=tuple(groups[i][0] for i in order),
        group_alive=tuple(groups[i][1] for i in order),
        group_start=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32),
        tokens=tokens.astype(np.int32),
    )


def _sweep(lexer: Lexer, trie: TokenTrie, state: int) -> LexTable:
    """Walk every token of ``trie`` from lexer ``state``, breadth-first then depth-first."""
    child_start, child_node, child_byte = trie.child_start, trie.child_node, trie.child_byte
    tok_start, tok_ids = trie.tok_start, trie.tok_ids

    paths = _Paths()
    node = np.zeros(1, dtype=np.int64)
    lex = np.full(1, state, dtype=np.int64)
    path = np.zeros(1, dtype=np.int64)
    out_tok: list[npt.NDArray[np.int64]] = []
    out_key: list[npt.NDArray[np.int64]] = []
    small_tok: list[int] = []
    small_key: list[int] = []

    while node.size:
        if node.size < SMALL_FRONTIER:
            _sweep_small(
                lexer,
                trie,
                list(zip(node.tolist(), lex.tolist(), path.tolist(), strict=True)),
                paths,
                small_tok,
                small_key,
            )
            break
        starts = child_start[node]
        counts = (child_start[node + 1] - starts).astype(np.int64)
        total = int(counts.sum())
        if total == 0:
            break
        rep = np.repeat(np.arange(node.size), counts)
        offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        pos = offsets + np.repeat(starts.astype(np.int64), counts)
        c_node = child_node[pos].astype(np.int64)
        c_byte = child_byte[pos]
        c_lex = lex[rep]
        c_path = path[rep]
        lexer.ensure(np.unique(lex))
        nxt = lexer.trans[c_lex, c_byte].astype(np.int64)

        keep = nxt >= 0
        new_node = [c_node[keep]]
        new_lex = [nxt[keep]]
        new_path = [c_path[keep]]

        acc = lexer.accepting_flags[c_lex]
        if acc.any():
            b_idx = np.flatnonzero(acc)
            width = lexer.n_states + 1
            key = c_lex[b_idx] * width + (nxt[b_idx] + 1)
            uniq, inv = np.unique(key, return_inverse=True)
            ev_lists = [
                lexer.events(int(k // width), int(k % width) - 1) for k in uniq.tolist()
            ]
            ev_count = np.array([len(e) for e in ev_lists], dtype=np.int64)
            per = ev_count[inv]
            if per.sum():
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
                if entry.size:
                    parents = c_path[entry]
                    pair_key = parents * (1 << 24) + events
                    pk_uniq, pk_inv = np.unique(pair_key, return_inverse=True)
                    ids = np.array(
                        [paths.child(pk >> 24, pk & ((1 << 24) - 1)) for pk in pk_uniq.tolist()],
                        dtype=np.int64,
                    )
                    new_node.append(c_node[entry])
                    new_lex.append(fresh)
                    new_path.append(ids[pk_inv])

        node = np.concatenate(new_node)
        lex = np.concatenate(new_lex)
        path = np.concatenate(new_path)
        if node.size > FRONTIER_BUDGET:
            raise CompileBudgetError(
                f"token table for lexer state {state} exceeds {FRONTIER_BUDGET} entries",
                code="token-table-budget",
                hint="overlapping scannerless terminals that may follow each other make tokens"
                " lex in exponentially many ways; give them a longest-match lexing mode",
            )
        # Record the tokens that end at these nodes.
        t_counts = (tok_start[node + 1] - tok_start[node]).astype(np.int64)
        has = t_counts > 0
        if has.any():
            h_node = node[has]
            h_cnt = t_counts[has]
            h_key = path[has] * _ALIVE_STRIDE + lexer.alive_ids[lex[has]]
            rep3 = np.repeat(np.arange(h_node.size), h_cnt)
            inner3 = np.arange(rep3.size) - np.repeat(np.cumsum(h_cnt) - h_cnt, h_cnt)
            out_tok.append(tok_ids[tok_start[h_node][rep3] + inner3].astype(np.int64))
            out_key.append(h_key[rep3])

    if small_tok:
        out_tok.append(np.array(small_tok, dtype=np.int64))
        out_key.append(np.array(small_key, dtype=np.int64))
    if out_tok:
        all_tok = np.concatenate(out_tok)
        all_key = np.concatenate(out_key)
        order = np.lexsort((all_tok, all_key))
        all_tok, all_key = all_tok[order], all_key[order]
        # One entry per (group, token): a token reaching the same group twice counts once.
        distinct = np.ones(all_key.size, dtype=bool)
        distinct[1:] = (all_key[1:] != all_key[:-1]) | (all_tok[1:] != all_tok[:-1])
        all_tok, all_key = all_tok[distinct], all_key[distinct]
        uniq_key, first = np.unique(all_key, return_index=True)
        group_start = np.concatenate([first, [all_key.size]]).astype(np.int32)
        group_path = tuple(int(k) // _ALIVE_STRIDE for k in uniq_key.tolist())
        group_alive = tuple(int(k) % _ALIVE_STRIDE for k in uniq_key.tolist())
        tokens = all_tok.astype(np.int32)
    else:
        group_start = np.zeros(1, dtype=np.int32)
        group_path = ()
        group_alive = ()
        tokens = np.zeros(0, dtype=np.int32)
    return LexTable(
        state=state,
        path_parent=tuple(paths.parent),
        path_event=tuple(paths.event),
        group_path=group_path,
        group_alive=group_alive,
        group_start=group_start,
        tokens=tokens,
    )


_ALIVE_STRIDE = 1 << 32

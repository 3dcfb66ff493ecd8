"""Static checks at compile time: places the engine can see, before decoding, that a model could
enter and never finish.

The mask is exact for the grammar's language under its lexing modes, but two things it cannot
repair are known from the grammar and the vocabulary alone:

* **Bytes no token contains** (``vocabulary-bytes``). SmolLM2 has no token for 21 byte values
  (six control characters, 0xC0, 0xC1, 0xF1, 0xF2, 0xF5-0xFF). A terminal whose every string
  needs one of them can never be written; one with a prefix the vocabulary can write but not
  finish is a dead end the mask allows into.
* **Longest match** (``lexing-never-ends``). A basic or contextual terminal ends only where
  the next byte cannot continue it. If, at some place of a rule, every terminal that may come
  after terminal ``A`` (what the rest of the rule begins with, what follows the rule when the
  rest may be empty, and the ignored terminals) begins only with bytes that continue ``A`` from
  each of its accepting states, and the text cannot end there, then ``A`` can never end there:
  text that enters it has no completion, though the mask lets the model write more of it
  forever. (A pair of terminals that can never be adjacent is not reported where something
  else may follow: that is the grammar's language under longest match, as lark reads it.)

Each finding is a :class:`~typedgen.errors.CompileWarning` naming the place (the terminal, or
the rule where it cannot end). Where every sentence is affected (the start rule derives no
text without those terminals and rule alternatives), :class:`~typedgen.errors.CompileError` is
raised with the same code.

Cost: one pass over the terminal automata's used bytes (a search only in terminals with an
edge on a byte the vocabulary lacks and no twin edge on a byte it has), a boolean product of
(terminals x 256) by (256 x longest-match terminals that can go on after accepting), and
fixpoints for FIRST, FOLLOW and productivity; recorded as ``checks_s`` in the compiled
grammar's timings (docs/internals/engine.md, "Static checks").
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from typedgen.compiler.lexer import bits_of
from typedgen.errors import CompileError, CompileWarning, ErrorCode
from typedgen.ir.grammar import Lexing

if TYPE_CHECKING:
    from typedgen.compiler.lowering import ParserGrammar, Terminal
    from typedgen.compiler.vocabulary import Vocabulary
    from typedgen.ir.origin import Origin

__all__ = ["Finding", "check_compiled", "find_problems", "writable_bytes"]

BoolArray = npt.NDArray[np.bool_]
_WRITABLE: dict[str, BoolArray] = {}


@dataclass(frozen=True)
class Finding:
    """One place the model could enter and never finish (or a sequence it can never write)."""

    code: ErrorCode
    message: str
    origin: Origin | None
    hint: str
    unusable: int = -1
    """The terminal that can never be written or never end (``-1``: the grammar loses a
    sequence, but no terminal is unusable)."""

    def warning(self) -> CompileWarning:
        return CompileWarning(self.message, code=self.code, origin=self.origin, hint=self.hint)


def writable_bytes(vocab: Vocabulary) -> BoolArray:
    """Per byte value: whether some text token of the vocabulary contains it."""
    found = _WRITABLE.get(vocab.fingerprint)
    if found is None:
        special = vocab.special_ids
        data = b"".join(t for i, t in enumerate(vocab.tokens) if i not in special)
        found = np.bincount(np.frombuffer(data, dtype=np.uint8), minlength=256) > 0
        if len(_WRITABLE) > 16:
            _WRITABLE.clear()
        _WRITABLE[vocab.fingerprint] = found
    return found


def _show(b: int) -> str:
    return repr(chr(b)) if 32 <= b < 127 else f"0x{b:02x}"


def _bytes_text(values: list[int]) -> str:
    shown = ", ".join(_show(b) for b in values[:8])
    return shown + (f" and {len(values) - 8} more" if len(values) > 8 else "")


def _vocabulary_finding(t: int, term: Terminal, writable: BoolArray) -> Finding | None:
    trans, accept = term.dfa.trans, term.dfa.accept
    used = (trans >= 0).any(axis=0)
    lacking = np.flatnonzero(used & ~writable)
    if not lacking.size:
        return None
    # Usually each edge on a lacking byte has a twin on a writable byte from the same state to
    # the same state (0xF1 beside 0xF0 in "any character"): then nothing changes.
    rows = np.flatnonzero((trans[:, lacking] >= 0).any(axis=1))
    sub = trans[rows]
    spelled = sub[:, writable]
    if all(((spelled == sub[:, b][:, None]).any(axis=1) | (sub[:, b] < 0)).all() for b in lacking):
        return None
    n = trans.shape[0]
    ok = (trans >= 0) & writable[None, :]
    # States that reach acceptance through writable bytes only (backward), then a
    # breadth-first search from the start over writable bytes for a state that cannot
    # (level by level, vectorised over the distinct edges).
    src, byte = np.nonzero(ok)
    keys, index = np.unique(src.astype(np.int64) * n + trans[src, byte], return_index=True)
    e_src, e_dst, e_byte = keys // n, keys % n, byte[index]
    good = accept.copy()
    frontier = accept.copy()
    while frontier.any():
        cand = e_src[frontier[e_dst]]
        cand = np.unique(cand[~good[cand]])
        good[cand] = True
        frontier = np.zeros(n, dtype=bool)
        frontier[cand] = True
    parent_state = np.full(n, -1, dtype=np.int64)
    parent_byte = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    level = np.array([0], dtype=np.int64)
    stuck = -1
    while level.size:
        bad = level[~good[level]]
        if bad.size:
            stuck = int(bad.min())
            break
        on = np.zeros(n, dtype=bool)
        on[level] = True
        take = on[e_src] & ~seen[e_dst]
        targets, first = np.unique(e_dst[take], return_index=True)
        parent_state[targets] = e_src[take][first]
        parent_byte[targets] = e_byte[take][first]
        seen[targets] = True
        level = targets
    if stuck < 0:
        return None
    missing = sorted(set(np.flatnonzero(used & ~writable).tolist()))
    hint = (
        "the model's tokenizer cannot spell these bytes; allow another spelling in the grammar"
        " (an escape, a wider class) or use a model whose vocabulary has them"
    )
    if stuck == 0:
        return Finding(
            "vocabulary-bytes",
            f"terminal {term.name!r} cannot be written with this vocabulary: every string of it"
            f" needs one of the bytes {_bytes_text(missing)}, which no token contains",
            term.origin,
            hint,
            unusable=t,
        )
    prefix = bytearray()
    q = stuck
    while q != 0:
        prefix.append(int(parent_byte[q]))
        q = int(parent_state[q])
    prefix.reverse()
    shown = bytes(prefix).decode("utf-8", errors="backslashreplace")
    return Finding(
        "vocabulary-bytes",
        f"terminal {term.name!r}: after {shown!r} every way to finish it needs one of the bytes"
        f" {_bytes_text(missing)}, which no token contains (a dead end the mask cannot see)",
        term.origin,
        hint,
    )


class _Sets:
    """Nullable symbols, FIRST and FOLLOW bitsets of nonterminals, and which symbols may end
    the text: the usual fixpoints over the productions."""

    def __init__(self, pg: ParserGrammar) -> None:
        n_terms = pg.n_terminals
        n_sym = n_terms + len(pg.nonterminals)
        nullable = [False] * n_sym
        first = [1 << t if t < n_terms else 0 for t in range(n_sym)]
        changed = True
        while changed:
            changed = False
            for lhs, rhs in pg.productions:
                acc = first[lhs]
                all_null = True
                for sym in rhs:
                    acc |= first[sym]
                    if not nullable[sym]:
                        all_null = False
                        break
                if acc != first[lhs]:
                    first[lhs] = acc
                    changed = True
                if all_null and not nullable[lhs]:
                    nullable[lhs] = changed = True
        follow = [0] * n_sym
        last = [False] * n_sym
        last[pg.start] = True
        changed = True
        while changed:
            changed = False
            for lhs, rhs in pg.productions:
                tail, tail_null, tail_last = 0, True, last[lhs]
                for sym in reversed(rhs):
                    after = tail | (follow[lhs] if tail_null else 0)
                    if follow[sym] | after != follow[sym]:
                        follow[sym] |= after
                        changed = True
                    if tail_last and not last[sym]:
                        last[sym] = changed = True
                    tail = first[sym] | (tail if nullable[sym] else 0)
                    tail_null = tail_null and nullable[sym]
                    tail_last = tail_last and nullable[sym]
        self.nullable, self.first, self.follow, self.last = nullable, first, follow, last


def _lexing_findings(pg: ParserGrammar) -> tuple[list[Finding], set[int]]:
    """Occurrences of a longest-match terminal that can never end where they stand; returns
    the findings and the productions they make unusable."""
    terms = pg.terminals
    nonfree = [t for t, term in enumerate(terms) if term.lexing is not Lexing.FREE]
    if not nonfree:
        return [], set()
    cont: dict[int, BoolArray] = {}
    for t in nonfree:
        dfa = terms[t].dfa
        going_on: BoolArray = np.asarray((dfa.trans[dfa.accept] >= 0).all(axis=0))
        if going_on.any():
            cont[t] = going_on
    if not cont:
        return [], set()
    first_bytes = np.stack([term.dfa.trans[0] >= 0 for term in terms])  # (T, 256)
    # ok[t]: bitset of the terminals that may begin right after t ends (some first byte of
    # theirs does not continue t from some accepting state).
    rows = list(cont)
    able = (first_bytes.astype(np.float32) @ (~np.stack([cont[t] for t in rows])).T) > 0
    ok = {t: sum(1 << int(b) for b in np.flatnonzero(able[:, k])) for k, t in enumerate(rows)}
    sets = _Sets(pg)
    ignore = sum(1 << t for t in pg.ignore)
    findings: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    dead: set[int] = set()
    for p, (lhs, rhs) in enumerate(pg.productions):
        tail, tail_null = 0, True
        for sym in reversed(rhs):
            if sym in ok:
                local = tail | ignore | (sets.follow[lhs] if tail_null else 0)
                ends_text = tail_null and sets.last[lhs]
                if not ends_text and not ok[sym] & local:
                    dead.add(p)
                    if (sym, lhs) not in seen:
                        seen.add((sym, lhs))
                        findings.append(_never_ends(pg, sym, lhs, local, cont[sym]))
            tail = sets.first[sym] | (tail if sets.nullable[sym] else 0)
            tail_null = tail_null and sets.nullable[sym]
    return findings, dead


def _never_ends(pg: ParserGrammar, term: int, lhs: int, local: int, going_on: BoolArray) -> Finding:
    terms = pg.terminals
    name = terms[term].name
    rule = pg.symbol_name(lhs)
    k = lhs - pg.n_terminals
    origin = pg.nt_origins[k] if 0 <= k < len(pg.nt_origins) else None
    nxt = [terms[b].name for b in bits_of(local)][:6]
    shown = _bytes_text(sorted(set(np.flatnonzero(going_on).tolist())))
    return Finding(
        "lexing-never-ends",
        f"terminal {name!r} in rule {rule!r} can never end: whatever may follow it there"
        f" ({', '.join(repr(x) for x in nxt)}) begins with bytes that continue it under"
        f" longest-match lexing ({shown}), so text that enters it has no completion",
        origin or terms[term].origin,
        f"put something {name!r} cannot take after it (a separator, %ignore whitespace), or"
        " make it stop (a bounded repetition, a closing literal)",
    )


def _productive_without(pg: ParserGrammar, unusable: set[int], dead: set[int]) -> bool:
    """Whether the start rule derives some text without the ``unusable`` terminals and the
    ``dead`` productions."""
    n_terms = pg.n_terminals
    productive = np.zeros(n_terms + len(pg.nonterminals), dtype=bool)
    productive[:n_terms] = True
    for t in unusable:
        productive[t] = False
    changed = True
    while changed:
        changed = False
        for p, (lhs, rhs) in enumerate(pg.productions):
            if p not in dead and not productive[lhs] and all(productive[s] for s in rhs):
                productive[lhs] = changed = True
    return bool(productive[pg.start])


def find_problems(pg: ParserGrammar, vocab: Vocabulary) -> tuple[list[Finding], set[int]]:
    """Every finding (vocabulary first, then lexing) and the productions that cannot finish."""
    writable = writable_bytes(vocab)
    findings = [
        f
        for t, term in enumerate(pg.terminals)
        if (f := _vocabulary_finding(t, term, writable)) is not None
    ]
    lexing, dead = _lexing_findings(pg)
    return findings + lexing, dead


def check_compiled(pg: ParserGrammar, vocab: Vocabulary) -> list[Finding]:
    """Warn for each finding; raise :class:`CompileError` when every sentence is affected."""
    findings, dead = find_problems(pg, vocab)
    unusable = {f.unusable for f in findings if f.unusable >= 0}
    if (unusable or dead) and not _productive_without(pg, unusable, dead):
        worst = next(f for f in findings if f.unusable >= 0 or f.code == "lexing-never-ends")
        raise CompileError(
            f"no sentence of the grammar can be written: {worst.message}",
            code=worst.code,
            origin=worst.origin or pg.place(),
            hint=worst.hint,
        )
    for finding in findings:
        warnings.warn(finding.warning(), stacklevel=4)
    return findings

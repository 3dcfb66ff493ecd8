"""Rewriting ``&`` and ``~`` away: an equivalent plain regular expression for a terminal.

Formats without intersection and complement (lark's own regexes, GBNF) still need terminals such
as lark's ``ESCAPED_STRING``, whose look-behind the lark frontend rewrites into ``&``/``~``. The
expression is turned into a DFA over code points by Brzozowski derivatives (terms kept in a
normal form modulo associativity, commutativity and idempotence, so finitely many), minimised,
and read back as a regular expression by state elimination. Both steps have budgets: a terminal
whose automaton or expression would grow past them is refused with a
:class:`~typedgen.errors.UnsupportedFeatureError` naming it, never hangs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, assert_never

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir.analysis import closure
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    SURROGATES,
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
)
from typedgen.ir.origin import Origin
from typedgen.ir.ranges import intersect_ranges, normalize_ranges

__all__ = ["MAX_REGEX_NODES", "MAX_STATES", "plain_regular"]

MAX_STATES = 5_000
"""Most DFA states explored for one expression before it is refused."""
MAX_REGEX_NODES = 100_000
"""Largest expression (in IR nodes) state elimination may produce before it is refused."""

# -- terms ---------------------------------------------------------------------------------------
# ("0",) nothing; ("e",) the empty string; ("c", ranges) one code point; (".", a, b) a then b;
# ("|", frozenset) union; ("&", frozenset) intersection; ("~", a) complement; ("*", a) star.
Term = tuple[Any, ...]
Ranges = tuple[tuple[int, int], ...]
_EMPTY: Term = ("0",)
_EPS: Term = ("e",)
_UNIVERSE: Term = ("~", _EMPTY)
_ALL_CHARS: Ranges = ((0, SURROGATES[0] - 1), (SURROGATES[1] + 1, MAX_CODEPOINT))


def _chars(ranges: Ranges) -> Term:
    return ("c", ranges) if ranges else _EMPTY


def _cat(a: Term, b: Term) -> Term:
    if a == _EMPTY or b == _EMPTY:
        return _EMPTY
    if a == _EPS:
        return b
    if b == _EPS:
        return a
    if a[0] == ".":
        return (".", a[1], _cat(a[2], b))
    return (".", a, b)


def _alt(items: list[Term]) -> Term:
    flat: set[Term] = set()
    chars: list[tuple[int, int]] = []
    for item in items:
        for part in item[1] if item[0] == "|" else (item,):
            if part == _EMPTY:
                continue
            if part == _UNIVERSE:
                return _UNIVERSE
            if part[0] == "c":
                chars.extend(part[1])
            else:
                flat.add(part)
    if chars:
        flat.add(("c", normalize_ranges(chars)))
    if not flat:
        return _EMPTY
    if len(flat) == 1:
        return next(iter(flat))
    return ("|", frozenset(flat))


def _and(items: list[Term]) -> Term:
    flat: set[Term] = set()
    chars: Ranges | None = None
    for item in items:
        for part in item[1] if item[0] == "&" else (item,):
            if part == _EMPTY:
                return _EMPTY
            if part == _UNIVERSE:
                continue
            if part[0] == "c":
                chars = part[1] if chars is None else intersect_ranges(chars, part[1])
                if not chars:
                    return _EMPTY
            else:
                flat.add(part)
    if chars is not None:
        flat.add(("c", chars))
    if not flat:
        return _UNIVERSE
    if len(flat) == 1:
        return next(iter(flat))
    return ("&", frozenset(flat))


def _not(a: Term) -> Term:
    return a[1] if a[0] == "~" else ("~", a)


def _star(a: Term) -> Term:
    if a in (_EMPTY, _EPS):
        return _EPS
    if a[0] == "*":
        return a
    return ("*", a)


class _Deriver:
    """Nullability and derivatives of terms, memoised."""

    def __init__(self) -> None:
        self._nullable: dict[Term, bool] = {}
        self._deriv: dict[tuple[Term, int], Term] = {}

    def nullable(self, t: Term) -> bool:
        known = self._nullable.get(t)
        if known is not None:
            return known
        kind = t[0]
        if kind == "e" or kind == "*":
            value = True
        elif kind == "0" or kind == "c":
            value = False
        elif kind == ".":
            value = self.nullable(t[1]) and self.nullable(t[2])
        elif kind == "|":
            value = any(self.nullable(x) for x in t[1])
        elif kind == "&":
            value = all(self.nullable(x) for x in t[1])
        else:
            value = not self.nullable(t[1])
        self._nullable[t] = value
        return value

    def derive(self, t: Term, cp: int) -> Term:
        key = (t, cp)
        known = self._deriv.get(key)
        if known is not None:
            return known
        kind = t[0]
        if kind in ("0", "e"):
            value = _EMPTY
        elif kind == "c":
            value = _EPS if any(lo <= cp <= hi for lo, hi in t[1]) else _EMPTY
        elif kind == ".":
            value = _cat(self.derive(t[1], cp), t[2])
            if self.nullable(t[1]):
                value = _alt([value, self.derive(t[2], cp)])
        elif kind == "|":
            value = _alt([self.derive(x, cp) for x in t[1]])
        elif kind == "&":
            value = _and([self.derive(x, cp) for x in t[1]])
        elif kind == "~":
            value = _not(self.derive(t[1], cp))
        else:
            value = _cat(self.derive(t[1], cp), t)
        self._deriv[key] = value
        return value

    def boundaries(self, t: Term, out: set[int]) -> None:
        """Code points where the first-character classes of ``t`` start or end."""
        kind = t[0]
        if kind == "c":
            for lo, hi in t[1]:
                out.add(lo)
                out.add(hi + 1)
        elif kind == ".":
            self.boundaries(t[1], out)
            if self.nullable(t[1]):
                self.boundaries(t[2], out)
        elif kind in ("|", "&"):
            for x in t[1]:
                self.boundaries(x, out)
        elif kind in ("~", "*"):
            self.boundaries(t[1], out)


def _intervals(points: set[int]) -> list[Ranges]:
    """The partition of Unicode scalar values cut at ``points``, each part surrogate-free."""
    cuts = sorted(p for p in points | {0, MAX_CODEPOINT + 1} if 0 <= p <= MAX_CODEPOINT + 1)
    parts = []
    for lo, nxt in itertools.pairwise(cuts):
        part = intersect_ranges(((lo, nxt - 1),), _ALL_CHARS)
        if part:
            parts.append(part)
    return parts


# -- IR -> terms ---------------------------------------------------------------------------------
class _Reader:
    def __init__(self, resolve: Callable[[str], Expr], fail: Callable[[str, str], Exception]):
        self.resolve = resolve
        self.fail = fail
        self.refs: dict[str, Term] = {}

    def term(self, e: Expr) -> Term:
        match e:
            case Lit():
                try:
                    text = e.data.decode("utf-8")
                except UnicodeDecodeError:
                    raise self.fail(
                        f"literal {e.data!r} is not valid UTF-8", "export-bytes"
                    ) from None
                out = _EPS
                for ch in reversed(text):
                    out = _cat(("c", ((ord(ch), ord(ch)),)), out)
                return out
            case CharClass():
                return _chars(e.codepoints())
            case Seq():
                out = _EPS
                for item in reversed(e.items):
                    out = _cat(self.term(item), out)
                return out
            case Alt():
                return _alt([self.term(item) for item in e.items])
            case Intersect():
                return _and([self.term(item) for item in e.items])
            case Complement():
                return _not(self.term(e.item))
            case Ref():
                known = self.refs.get(e.name)
                if known is None:
                    known = self.term(self.resolve(e.name))
                    self.refs[e.name] = known
                return known
            case Repeat():
                body = self.term(e.item)
                if max(e.min, e.max or 0) > MAX_STATES:
                    raise self.fail(
                        f"a repetition {{{e.min},{e.max}}} is too large", "export-budget"
                    )
                tail = _star(body) if e.max is None else _EPS
                if e.max is not None:
                    for _ in range(e.max - e.min):
                        tail = _alt([_EPS, _cat(body, tail)])
                out = tail
                for _ in range(e.min):
                    out = _cat(body, out)
                return out
            case _:
                assert_never(e)


# -- the DFA -------------------------------------------------------------------------------------
def _dfa(
    start: Term, fail: Callable[[str, str], Exception]
) -> tuple[list[dict[int, Ranges]], list[bool]]:
    """States reachable from ``start`` (0 is the start), their transitions and acceptance."""
    d = _Deriver()
    index = {start: 0}
    terms = [start]
    trans: list[dict[int, Ranges]] = []
    i = 0
    while i < len(terms):
        t = terms[i]
        i += 1
        points: set[int] = set()
        d.boundaries(t, points)
        row: dict[int, list[tuple[int, int]]] = {}
        for part in _intervals(points):
            nxt = d.derive(t, part[0][0])
            if nxt == _EMPTY:
                continue
            target = index.get(nxt)
            if target is None:
                if len(terms) >= MAX_STATES:
                    raise fail(f"its automaton exceeds {MAX_STATES} states", "export-budget")
                target = index[nxt] = len(terms)
                terms.append(nxt)
            row.setdefault(target, []).extend(part)
        trans.append({k: normalize_ranges(v) for k, v in row.items()})
    accept = [d.nullable(t) for t in terms]
    return trans, accept


def _minimise(
    trans: list[dict[int, Ranges]], accept: list[bool]
) -> tuple[list[dict[int, Ranges]], list[bool]]:
    """Drop dead states and merge equivalent ones (Moore's refinement); 0 stays the start."""
    n = len(trans)
    back: list[set[int]] = [set() for _ in range(n)]
    for s, row in enumerate(trans):
        for t in row:
            back[t].add(s)
    live = closure((s for s in range(n) if accept[s]), back.__getitem__)
    if 0 not in live:
        return [], []
    points: set[int] = set()
    for row in trans:
        for ranges in row.values():
            for lo, hi in ranges:
                points.add(lo)
                points.add(hi + 1)
    reps = [part[0][0] for part in _intervals(points)]
    order = sorted(live)

    def target(s: int, cp: int) -> int:
        for t, ranges in trans[s].items():
            if t in live and any(lo <= cp <= hi for lo, hi in ranges):
                return t
        return -1

    table = {s: [target(s, cp) for cp in reps] for s in order}
    block = {s: int(accept[s]) for s in order}
    while True:
        sigs: dict[tuple[Any, ...], int] = {}
        new = {}
        for s in order:
            sig = (block[s], *(block.get(t, -1) for t in table[s]))
            new[s] = sigs.setdefault(sig, len(sigs))
        if len(sigs) == len(set(block.values())):
            break
        block = new
    # Renumber blocks by their smallest state, so the start block is 0 and the order is stable.
    first: dict[int, int] = {}
    for s in order:
        first.setdefault(block[s], len(first))
    m = len(first)
    out: list[dict[int, list[tuple[int, int]]]] = [{} for _ in range(m)]
    acc = [False] * m
    done: set[int] = set()
    for s in order:
        b = first[block[s]]
        acc[b] = accept[s]
        if b in done:
            continue
        done.add(b)
        for t, ranges in trans[s].items():
            if t in live:
                out[b].setdefault(first[block[t]], []).extend(ranges)
    return [{t: normalize_ranges(r) for t, r in row.items()} for row in out], acc


# -- back to IR: state elimination ---------------------------------------------------------------
_EPS_EXPR = Lit(b"")


def _is_eps(e: Expr) -> bool:
    return isinstance(e, Lit) and not e.data


def _seq(parts: list[Expr]) -> Expr:
    items: list[Expr] = []
    for part in parts:
        for p in part.items if isinstance(part, Seq) else (part,):
            if _is_eps(p):
                continue
            if isinstance(p, Alt) and not p.items:
                return p
            if isinstance(p, Lit) and items and isinstance(items[-1], Lit):
                items[-1] = Lit(items[-1].data + p.data)
                continue
            items.append(p)
    if not items:
        return _EPS_EXPR
    return items[0] if len(items) == 1 else Seq(tuple(items))


def _single_char(e: Expr) -> Ranges | None:
    if isinstance(e, CharClass):
        return e.codepoints()
    if isinstance(e, Lit):
        text = e.data.decode("utf-8")
        if len(text) == 1:
            return ((ord(text), ord(text)),)
    return None


def _char_expr(ranges: Ranges) -> Expr:
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return Lit(chr(ranges[0][0]).encode("utf-8"))
    return CharClass(ranges)


def _alt2(a: Expr, b: Expr) -> Expr:
    items: list[Expr] = []
    chars: list[tuple[int, int]] = []
    first_char = -1
    for part in (a, b):
        for p in part.items if isinstance(part, Alt) else (part,):
            ranges = _single_char(p)
            if ranges is not None:
                if first_char < 0:
                    first_char = len(items)
                    items.append(p)
                chars.extend(ranges)
            elif p not in items:
                items.append(p)
    if first_char >= 0:
        items[first_char] = _char_expr(normalize_ranges(chars))
    if len(items) == 1:
        return items[0]
    return Alt(tuple(items))


def _star_expr(e: Expr) -> Expr:
    if _is_eps(e):
        return e
    if isinstance(e, Repeat) and e.min <= 1 and e.max is None:
        return Repeat(e.item, 0, None)
    return Repeat(e, 0, None)


def _tidy(e: Expr) -> Expr:
    """``ε | x`` as ``x?``, ``x x*`` as ``x+``; children first."""
    if isinstance(e, Alt):
        items = [_tidy(i) for i in e.items]
        rest = [i for i in items if not _is_eps(i)]
        core: Expr = rest[0] if len(rest) == 1 else Alt(tuple(rest))
        if len(rest) < len(items):
            if isinstance(core, Repeat) and core.min <= 1:
                return Repeat(core.item, 0, core.max)
            return Repeat(core, 0, 1)
        return core
    if isinstance(e, Seq):
        items = [_tidy(i) for i in e.items]
        out: list[Expr] = []
        for item in items:
            if (
                isinstance(item, Repeat)
                and item.min == 0
                and item.max is None
                and out
                and out[-1] == item.item
            ):
                out[-1] = Repeat(item.item, 1, None)
            else:
                out.append(item)
        return out[0] if len(out) == 1 else Seq(tuple(out))
    if isinstance(e, Repeat):
        return Repeat(_tidy(e.item), e.min, e.max)
    return e


def _eliminate(
    trans: list[dict[int, Ranges]], accept: list[bool], fail: Callable[[str, str], Exception]
) -> Expr:
    n = len(trans)
    if n == 0:
        return Alt(())
    start, final = n, n + 1
    out: dict[int, dict[int, Expr]] = {s: {} for s in range(n + 2)}
    inn: dict[int, dict[int, Expr]] = {s: {} for s in range(n + 2)}

    # Sizes (IR nodes, roughly) tracked beside the edges: recounting would be quadratic.
    size: dict[tuple[int, int], int] = {}
    budget = MAX_REGEX_NODES

    def add(i: int, j: int, e: Expr, n: int) -> None:
        old = out[i].get(j)
        new = e if old is None else _alt2(old, e)
        out[i][j] = new
        inn[j][i] = new
        total = size[(i, j)] = size.get((i, j), 0) + n
        if total > budget:
            raise fail(f"its regular expression exceeds {budget} nodes", "export-budget")

    add(start, 0, _EPS_EXPR, 1)
    for s, row in enumerate(trans):
        for t, ranges in row.items():
            add(s, t, _char_expr(ranges), 1)
        if accept[s]:
            add(s, final, _EPS_EXPR, 1)
    pending = set(range(n))
    while pending:
        k = min(
            pending,
            key=lambda s: ((len(inn[s]) - (s in inn[s])) * (len(out[s]) - (s in out[s])), s),
        )
        pending.discard(k)
        loop = out[k].pop(k, None)
        inn[k].pop(k, None)
        middle = _star_expr(loop) if loop is not None else _EPS_EXPR
        n_middle = size.pop((k, k), 0) + 1
        preds = sorted(inn[k].items())
        succs = sorted(out[k].items())
        for i, _ in preds:
            del out[i][k]
        for j, _ in succs:
            del inn[j][k]
        for i, e_in in preds:
            n_in = size.pop((i, k))
            for j, e_out in succs:
                add(i, j, _seq([e_in, middle, e_out]), n_in + n_middle + size[(k, j)] + 1)
        for j, _ in succs:
            del size[(k, j)]
        out[k].clear()
        inn[k].clear()
    return _tidy(out[start].get(final, Alt(())))


def plain_regular(
    expr: Expr, resolve: Callable[[str], Expr], *, rule: str, origin: Origin | None = None
) -> Expr:
    """An expression without ``&``/``~`` (nor references) denoting the language of ``expr``.

    ``resolve`` gives the body of a referenced terminal. ``rule`` names the terminal for errors:
    :class:`UnsupportedFeatureError` (code ``export-intersection``) when the automaton or the
    expression outgrows its budget, :class:`GrammarError` (``export-bytes``) for a literal that
    is not UTF-8 (``~`` is defined on text).
    """

    def fail(why: str, code: str) -> Exception:
        if code == "export-bytes":
            return GrammarError(
                f"terminal {rule!r}: {why}; the exported formats describe text",
                code="export-bytes",
                origin=origin,
            )
        return UnsupportedFeatureError(
            f"terminal {rule!r} uses '&' or '~', and no plain regular expression for it fits "
            f"the budget ({why})",
            code="export-intersection",
            origin=origin,
            hint="export with dialect='llguidance', whose terminals have '&' and '~', or "
            "write the terminal without them",
        )

    term = _Reader(resolve, fail).term(expr)
    trans, accept = _minimise(*_dfa(term, fail))
    return _eliminate(trans, accept, fail)

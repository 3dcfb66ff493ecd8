"""Does a lazy quantifier decide where lark's lexer ends a terminal?

Lark lexes with ``re.match``, whose preferred match stops a lazy loop (``X*?``) as soon as the
rest of the pattern can match. That matters only when the loop's body can start with a character
the rest can start with (``".*?"``: ``.`` also matches ``"``), or when the rest can be empty; in
the other cases (``/(\\\\/|[^/])*?/``: the body never starts with ``/``) lazy and greedy loops
stop at the same place, and the terminal is its plain regular language. This is the
"no-useless-lazy" criterion of regex linters, computed on Python's own parse of the pattern.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from typedgen.ir.ranges import (
    MAX_CODEPOINT,
    complement_ranges,
    normalize_ranges,
    overlaps,
    union_ranges,
)

__all__ = ["lazy_decides_end"]

_P: Any = importlib.import_module("re._parser")
_C: Any = importlib.import_module("re._constants")

Ranges = tuple[tuple[int, int], ...]
CategoryRanges = Callable[[str, int], Ranges]
_ALL: Ranges = ((0, MAX_CODEPOINT),)
_NONE: Ranges = ()
_CATEGORY_ESCAPES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def _cased(cp: int) -> Ranges:
    ch = chr(cp)
    points = {cp}
    for other in (ch.lower(), ch.upper(), ch.casefold()):
        if len(other) == 1:
            points.add(ord(other))
    return normalize_ranges((p, p) for p in points)


class _First:
    """First-character sets of ``re._parser`` subtrees (over-approximated where unsure)."""

    def __init__(self, categories: CategoryRanges) -> None:
        self.categories = categories

    def seq(self, items: Any, flags: int) -> tuple[Ranges, bool]:
        acc: Ranges = _NONE
        for op, av in items:
            ranges, nullable = self.item(op, av, flags)
            acc = union_ranges(acc, ranges)
            if not nullable:
                return acc, False
        return acc, True

    def category(self, name: Any, flags: int) -> Ranges:
        escape = _CATEGORY_ESCAPES.get(str(name))
        return self.categories(escape, flags) if escape else _ALL

    def item(self, op: Any, av: Any, flags: int) -> tuple[Ranges, bool]:
        icase = bool(flags & re.I)
        if op is _C.LITERAL:
            return (_cased(av) if icase else ((av, av),)), False
        if op is _C.NOT_LITERAL:
            return (_ALL if icase else complement_ranges(((av, av),))), False
        if op is _C.ANY:
            return (_ALL if flags & re.S else complement_ranges(((10, 10),))), False
        if op is _C.IN:
            return self.charset(av, flags), False
        if op is _C.CATEGORY:
            return self.category(av, flags), False
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            lo, hi, body = av
            if hi == 0:
                return _NONE, True
            ranges, nullable = self.seq(body, flags)
            return ranges, nullable or lo == 0
        if op is _C.SUBPATTERN:
            _, add, remove, body = av
            return self.seq(body, (flags | add) & ~remove)
        if op is _C.ATOMIC_GROUP:
            return self.seq(av, flags)
        if op is _C.BRANCH:
            acc: Ranges = _NONE
            nullable = False
            for branch in av[1]:
                ranges, n = self.seq(branch, flags)
                acc, nullable = union_ranges(acc, ranges), nullable or n
            return acc, nullable
        if op in (_C.ASSERT, _C.ASSERT_NOT, _C.AT):
            return _NONE, True
        return _ALL, True  # back-references, conditionals: anything

    def charset(self, items: Any, flags: int) -> Ranges:
        acc: Ranges = _NONE
        negate = False
        for op, av in items:
            if op is _C.NEGATE:
                negate = True
            elif op is _C.LITERAL:
                acc = union_ranges(acc, _cased(av) if flags & re.I else ((av, av),))
            elif op is _C.RANGE:
                acc = union_ranges(acc, _ALL if flags & re.I else (tuple(av),))
            elif op is _C.CATEGORY:
                acc = union_ranges(acc, self.category(av, flags))
            else:
                acc = _ALL
        if negate:
            return _ALL if flags & re.I else complement_ranges(acc)
        return acc


class _Walk:
    def __init__(self, first: _First) -> None:
        self.first = first

    def seq(self, items: Any, follow: Ranges, can_end: bool, flags: int) -> bool:
        items = list(items)
        for op, av in reversed(items):
            if self.item(op, av, follow, can_end, flags):
                return True
            ranges, nullable = self.first.item(op, av, flags)
            follow = union_ranges(ranges, follow) if nullable else ranges
            can_end = can_end and nullable
        return False

    def item(self, op: Any, av: Any, follow: Ranges, can_end: bool, flags: int) -> bool:
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            lo, hi, body = av
            ranges, _ = self.first.seq(body, flags)
            if op is _C.MIN_REPEAT and hi != lo and (can_end or overlaps(ranges, follow)):
                return True
            return self.seq(body, union_ranges(ranges, follow), can_end, flags)
        if op is _C.SUBPATTERN:
            _, add, remove, body = av
            return self.seq(body, follow, can_end, (flags | add) & ~remove)
        if op is _C.ATOMIC_GROUP:
            return self.seq(av, follow, can_end, flags)
        if op is _C.BRANCH:
            return any(self.seq(branch, follow, can_end, flags) for branch in av[1])
        return False


def lazy_decides_end(pattern: str, flags: int, categories: CategoryRanges) -> bool:
    """Whether some lazy quantifier of ``pattern`` can stop earlier than a greedy one would.

    ``categories(escape, flags)`` gives the code points of ``\\d``-style escapes. A pattern Python
    cannot parse counts as lazy-deciding (the caller's regex conversion reports the error).
    """
    try:
        tree = _P.parse(pattern, flags)
    except (re.error, OverflowError, ValueError, RecursionError):
        return True
    flags = int(tree.state.flags)
    return _Walk(_First(categories)).seq(tree, _NONE, True, flags)

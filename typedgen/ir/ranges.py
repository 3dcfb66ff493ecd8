"""Sets of code points as sorted, merged tuples of inclusive ranges: the one helper for them.

Character classes of the IR (:class:`~typedgen.ir.nodes.CharClass`), the regex frontend, the
``&``/``~`` rewriting and lark's lazy-loop analysis all compute with such sets; the operations
live here once. Every function takes and returns normalised tuples (sorted, non-overlapping,
non-adjacent), except :func:`normalize_ranges`, which makes one.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from typedgen.errors import GrammarError

__all__ = [
    "MAX_CODEPOINT",
    "Ranges",
    "complement_ranges",
    "contains",
    "intersect_ranges",
    "normalize_ranges",
    "overlaps",
    "point_ranges",
    "subtract_ranges",
    "union_ranges",
]

MAX_CODEPOINT = 0x10FFFF
Ranges = tuple[tuple[int, int], ...]


def normalize_ranges(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sort and merge code point ranges; reject inverted or out-of-range ones."""
    items = []
    for lo, hi in ranges:
        if lo > hi:
            raise GrammarError(
                f"character range {lo:#x}-{hi:#x} is inverted",
                code="bad-range",
                hint="write the lower code point first",
            )
        if lo < 0 or hi > MAX_CODEPOINT:
            raise GrammarError(
                f"character range {lo:#x}-{hi:#x} is outside Unicode",
                code="bad-range",
                hint="code points run from 0 to 0x10FFFF",
            )
        items.append((lo, hi))
    items.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in items:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def point_ranges(points: Iterable[int]) -> Ranges:
    """The set of the given code points."""
    return normalize_ranges((p, p) for p in points)


def complement_ranges(ranges: Ranges) -> Ranges:
    """The code points 0..U+10FFFF *not* in ``ranges``."""
    out = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODEPOINT:
        out.append((nxt, MAX_CODEPOINT))
    return tuple(out)


def union_ranges(a: Ranges, b: Ranges) -> Ranges:
    """The code points in ``a`` or ``b``."""
    return normalize_ranges((*a, *b)) if a and b else a or b


def intersect_ranges(a: Ranges, b: Ranges) -> Ranges:
    """The code points in both ``a`` and ``b`` (one merge-like pass)."""
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def subtract_ranges(a: Ranges, b: Ranges) -> Ranges:
    """The code points in ``a`` and not in ``b``."""
    return intersect_ranges(a, complement_ranges(b))


def overlaps(a: Ranges, b: Ranges) -> bool:
    """Whether ``a`` and ``b`` share a code point."""
    i = j = 0
    while i < len(a) and j < len(b):
        if max(a[i][0], b[j][0]) <= min(a[i][1], b[j][1]):
            return True
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return False


def contains(ranges: Ranges, cp: int) -> bool:
    """Whether code point ``cp`` is in ``ranges`` (binary search)."""
    i = bisect.bisect_right(ranges, (cp, MAX_CODEPOINT + 1)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]

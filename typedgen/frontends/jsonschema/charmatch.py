"""Whether a known string belongs to a character-level language (decided while lowering).

Property names and enum values are known when the schema is lowered; deciding on the spot which
``patternProperties`` or ``propertyNames`` apply keeps the grammar free of alternatives that can
never match. The languages here have no rule references, and the strings are short.
"""

from __future__ import annotations

import bisect

from typedgen.ir.nodes import Alt, CharClass, Complement, Expr, Intersect, Lit, Repeat, Seq

__all__ = ["char_matches"]


def _ends(expr: Expr, text: str, pos: int) -> frozenset[int]:
    if isinstance(expr, Lit):
        lit = expr.data.decode("utf-8")
        return frozenset({pos + len(lit)}) if text.startswith(lit, pos) else frozenset()
    if isinstance(expr, CharClass):
        if pos >= len(text):
            return frozenset()
        cp = ord(text[pos])
        ranges = expr.codepoints()
        i = bisect.bisect_right(ranges, (cp, 0x10FFFF + 1)) - 1
        hit = i >= 0 and ranges[i][0] <= cp <= ranges[i][1]
        return frozenset({pos + 1}) if hit else frozenset()
    if isinstance(expr, Seq):
        current = frozenset({pos})
        for item in expr.items:
            current = frozenset(e for p in current for e in _ends(item, text, p))
            if not current:
                break
        return current
    if isinstance(expr, Alt):
        return frozenset(e for item in expr.items for e in _ends(item, text, pos))
    if isinstance(expr, Repeat):
        result: set[int] = {pos} if expr.min == 0 else set()
        frontier = {pos}
        seen: set[tuple[int, int]] = set()
        count = 0
        while frontier and (expr.max is None or count < expr.max):
            count += 1
            nxt = {e for p in frontier for e in _ends(expr.item, text, p)}
            if expr.max is None:  # beyond the minimum only positions matter
                key = min(count, expr.min)
                nxt = {e for e in nxt if (key, e) not in seen}
                seen.update((key, e) for e in nxt)
            if count >= expr.min:
                result |= nxt
            frontier = nxt
        return frozenset(result)
    if isinstance(expr, Intersect):
        sets = [_ends(item, text, pos) for item in expr.items]
        return frozenset.intersection(*sets) if sets else frozenset()
    if isinstance(expr, Complement):
        inner = _ends(expr.item, text, pos)
        return frozenset(range(pos, len(text) + 1)) - inner
    raise TypeError(f"not a character-level expression: {type(expr).__name__}")


def char_matches(expr: Expr, text: str) -> bool:
    """Whether ``text`` (decoded characters) is in the language of ``expr``."""
    return len(text) in _ends(expr, text, 0)

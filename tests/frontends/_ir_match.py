"""A small, independent membership oracle for IR expressions and grammars (test code only).

It decides whether a byte string belongs to the language of an expression by computing, for every
``(node, position)``, the set of positions where a match of the node starting there can end. It
shares nothing with the compiler, so the frontends' tests do not trust the code they test.
Left-recursive rules are reported, not handled: the grammars under test have none.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Mapping

from typedgen.ir import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Grammar,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
)

__all__ = ["LeftRecursionError", "char_set", "matches", "matches_grammar"]


class LeftRecursionError(RuntimeError):
    """The oracle met a rule that calls itself without consuming input."""


def _decode_at(data: bytes, pos: int) -> tuple[int, int] | None:
    """The code point starting at ``pos`` and its end, or None where the bytes are not UTF-8."""
    if pos >= len(data):
        return None
    b = data[pos]
    width = 1 if b < 0x80 else 2 if 0xC0 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4
    if b >= 0xF8 or 0x80 <= b < 0xC0:
        return None
    try:
        text = data[pos : pos + width].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) != 1:
        return None
    return ord(text), pos + width


class _Oracle:
    def __init__(self, data: bytes, rules: Mapping[str, Expr]) -> None:
        self.data = data
        self.rules = rules
        self.memo: dict[tuple[int, int], frozenset[int]] = {}
        self.active: set[tuple[str, int]] = set()
        self.classes: dict[int, tuple[tuple[int, int], ...]] = {}

    def ends(self, node: Expr, pos: int) -> frozenset[int]:
        key = (id(node), pos)
        found = self.memo.get(key)
        if found is None:
            found = self._ends(node, pos)
            self.memo[key] = found
        return found

    def _ends(self, node: Expr, pos: int) -> frozenset[int]:
        data = self.data
        if isinstance(node, Lit):
            return (
                frozenset({pos + len(node.data)})
                if data.startswith(node.data, pos)
                else frozenset()
            )
        if isinstance(node, CharClass):
            decoded = _decode_at(data, pos)
            if decoded is None:
                return frozenset()
            cp, end = decoded
            ranges = self.classes.get(id(node))
            if ranges is None:
                ranges = self.classes[id(node)] = node.codepoints()
            i = bisect.bisect_right(ranges, (cp, sys.maxsize)) - 1
            return (
                frozenset({end}) if i >= 0 and ranges[i][0] <= cp <= ranges[i][1] else frozenset()
            )
        if isinstance(node, Seq):
            current = frozenset({pos})
            for item in node.items:
                if not current:
                    break
                current = frozenset(e for p in current for e in self.ends(item, p))
            return current
        if isinstance(node, Alt):
            return frozenset(e for item in node.items for e in self.ends(item, pos))
        if isinstance(node, Repeat):
            return self._repeat(node, pos)
        if isinstance(node, Ref):
            key = (node.name, pos)
            if key in self.active:
                raise LeftRecursionError(f"rule {node.name!r} is left-recursive at byte {pos}")
            self.active.add(key)
            try:
                return self.ends(self.rules[node.name], pos)
            finally:
                self.active.discard(key)
        if isinstance(node, Intersect):
            sets = [self.ends(item, pos) for item in node.items]
            return frozenset.intersection(*sets) if sets else frozenset()
        if isinstance(node, Complement):
            inner = self.ends(node.item, pos)
            out = set()
            for end in range(pos, len(data) + 1):
                try:
                    data[pos:end].decode("utf-8")
                except UnicodeDecodeError:
                    continue
                if end not in inner:
                    out.add(end)
            return frozenset(out)
        raise TypeError(f"unknown IR node {type(node).__name__}")

    def _step(self, item: Expr, frontier: frozenset[int]) -> frozenset[int]:
        return frozenset(e for p in frontier for e in self.ends(item, p))

    def _repeat(self, node: Repeat, pos: int) -> frozenset[int]:
        frontier = frozenset({pos})
        for _ in range(node.min):  # the mandatory iterations
            following = self._step(node.item, frontier)
            if following == frontier:  # a fixed point: more iterations change nothing
                break
            frontier = following
            if not frontier:
                return frontier
        result = set(frontier)
        if node.max is None:  # closure under further iterations
            todo = list(frontier)
            while todo:
                for end in self.ends(node.item, todo.pop()):
                    if end not in result:
                        result.add(end)
                        todo.append(end)
            return frozenset(result)
        for _ in range(node.max - node.min):
            following = self._step(node.item, frontier)
            if following == frontier or not following:
                break
            frontier = following
            result |= frontier
        return frozenset(result)


def matches(expr: Expr, data: bytes | str, rules: Mapping[str, Expr] | None = None) -> bool:
    """Whether ``data`` (text is UTF-8 encoded) is in the language of ``expr``."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        return len(raw) in _Oracle(raw, rules or {}).ends(expr, 0)
    finally:
        sys.setrecursionlimit(limit)


def matches_grammar(grammar: Grammar, data: bytes | str) -> bool:
    """Whether ``data`` is a sentence of ``grammar`` (its start rule)."""
    rules = {rule.name: rule.body for rule in grammar}
    return matches(Ref(grammar.start), data, rules)


def char_set(expr: Expr) -> set[int]:
    """The code points of a one-character expression (a class or a one-character literal)."""
    if isinstance(expr, Lit):
        text = expr.data.decode("utf-8")
        assert len(text) == 1, f"not a one-character literal: {expr}"
        return {ord(text)}
    if isinstance(expr, Alt) and not expr.items:
        return set()
    assert isinstance(expr, CharClass), f"not a character class: {expr!r}"
    out: set[int] = set()
    for lo, hi in expr.codepoints():
        out.update(range(lo, hi + 1))
    return out

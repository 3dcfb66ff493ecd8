"""Look-around assertions at the top level of a terminal's regex, as IR intersections.

:func:`typedgen.frontends.regex.regex_to_expr` refuses look-arounds, but lark's bundled grammars
rely on them (``common.ESCAPED_STRING`` is ``".*?(?<!\\\\)(\\\\\\\\)*?"``). Under full-match
semantics an assertion between two parts of a sequence is a regular constraint on one side:

* ``L (?<=X) R`` is ``(L & .*X) R`` and ``L (?<!X) R`` is ``(L & ~(.*X)) R``;
* ``L (?=X) R`` is ``L (R & X.*)`` and ``L (?!X) R`` is ``L (R & ~(X.*))``.

* ``\\b`` at the start is ``(?=\\w)``, at the end ``(?<=\\w)``; in the middle,
  ``L \\b R`` is ``(L & .*\\w)(R & ~(\\w.*)) | (L & ~(.*\\w))(R & \\w.*)`` (``\\B`` alike).

An assertion's body is read in context: a look-ahead's body denotes the texts that *start*
with a match of it, and its own look-aheads see on past that match (``(?!(?:if|for)(?!\\w))``
refuses ``if`` but not ``iffy``); a look-behind's body, the texts that *end* with one. A
look-behind or ``\\b`` inside a look-ahead (a look-ahead inside a look-behind) would see across
the outer position and tie its two sides together: refused (``lark-lookaround``).

This is exact while look-behinds come before look-aheads in the sequence (a look-behind after a
look-ahead could see into the part the look-ahead constrains); alternations, and groups that span
the whole pattern or hold the assertion without a quantifier, are descended into, so
``(?i:a(?!b)|c)`` and ``x("(?!")...|'')`` work too. Other placements go to ``regex_to_expr``
unchanged, which refuses them with its own error. Lark evaluates assertions at the ends of a
terminal against the neighbouring text; here they see only the lexeme itself (the IR has no
notion of the text around a lexeme).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NoReturn

from typedgen.errors import UnsupportedFeatureError
from typedgen.ir.analysis import nullable
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Repeat,
    Seq,
)
from typedgen.ir.origin import Origin

__all__ = ["regex_with_lookarounds", "top_level_bars"]

RegexToExpr = Callable[..., Expr]
_ANY_STAR = Repeat(CharClass(((0, MAX_CODEPOINT),)), 0, None)
_ASSERTIONS = ("(?<=", "(?<!", "(?=", "(?!")
_BOUNDARIES = (r"\b", r"\B")
_FLAG_LETTERS = {"i": re.I, "m": re.M, "s": re.S, "x": re.X, "a": re.A, "u": re.U, "L": re.L}
_GLOBAL_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")
_SCOPED = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]+))?:")
_QUANT_AFTER = re.compile(r"[*+?{]")


@dataclass(frozen=True, slots=True)
class _Group:
    start: int
    end: int  # one past the closing parenthesis
    opening: str  # "(", "(?:", "(?<!", "(?i-s:", ...


def _skip_class(pattern: str, i: int) -> int:
    """Index just past the character class starting at ``pattern[i] == '['``."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def _opening(pattern: str, i: int) -> str:
    for head in ("(?<=", "(?<!", "(?=", "(?!", "(?:", "(?>", "(?(", "(?#"):
        if pattern.startswith(head, i):
            return head
    m = _SCOPED.match(pattern, i)
    if m:
        return m.group()
    if pattern.startswith("(?P<", i):
        end = pattern.find(">", i)
        return pattern[i : end + 1] if end > 0 else "(?P<"
    return "("


def _top_level(pattern: str, verbose: bool) -> tuple[list[int], list[_Group]]:
    """Positions of the top-level ``|`` and the top-level groups of ``pattern``."""
    bars: list[int] = []
    groups: list[_Group] = []
    depth = 0
    start = 0
    opening = ""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if depth == 0 and pattern[i + 1 : i + 2] in ("b", "B"):
                groups.append(_Group(i, i + 2, pattern[i : i + 2]))
            i += 2
            continue
        if c == "[":
            i = _skip_class(pattern, i)
            continue
        if verbose and c == "#":
            end = pattern.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if c == "(":
            if pattern.startswith("(?#", i):
                end = pattern.find(")", i)
                i = n if end < 0 else end + 1
                continue
            if depth == 0:
                start, opening = i, _opening(pattern, i)
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                groups.append(_Group(start, i + 1, opening))
        elif c == "|" and depth == 0:
            bars.append(i)
        i += 1
    return bars, groups


Side = Literal["ahead", "behind"] | None
"""Where a pattern is read: the whole lexeme (``None``), or the body of a look-ahead (which may
see the text after its own match) or of a look-behind (the text before it)."""


def top_level_bars(pattern: str) -> bool:
    """Whether ``pattern`` has an alternation outside every group (``b|c``, not ``(?:b|c)``)."""
    return bool(_top_level(pattern, False)[0])


class _Splitter:
    def __init__(self, convert: RegexToExpr, origin: Origin | None) -> None:
        self.convert = convert
        self.origin = origin

    def leaf(self, pattern: str, flags: int) -> Expr:
        if not pattern:
            return Lit(b"")
        return self.convert(pattern, flags=flags, flavor="python", origin=self.origin)

    def expr(self, pattern: str, flags: int, side: Side = None) -> Expr:
        """The language of ``pattern`` read on ``side``.

        On a side, the result is the *context language*: for ``"ahead"`` the texts that start
        with a match of ``pattern`` (``pattern .*``), where the pattern's own trailing
        look-aheads see the rest of the text; for ``"behind"``, the texts that end with one.
        """
        m = _GLOBAL_FLAGS.match(pattern)
        if m:
            for letter in m.group(1):
                flags |= _FLAG_LETTERS[letter]
            pattern = pattern[m.end() :]
        if not any(a in pattern for a in (*_ASSERTIONS, *_BOUNDARIES)):
            return _in_context(self.leaf(pattern, flags), side)
        bars, groups = _top_level(pattern, bool(flags & re.X))
        if bars:
            cuts = [-1, *bars, len(pattern)]
            branches = [pattern[a + 1 : b] for a, b in itertools.pairwise(cuts)]
            return Alt(tuple(self.expr(branch, flags, side) for branch in branches))
        if len(groups) == 1 and groups[0].start == 0 and groups[0].end == len(pattern):
            return self.whole_group(pattern, groups[0], flags, side)
        return self.sequence(pattern, groups, flags, side)

    def whole_group(self, pattern: str, group: _Group, flags: int, side: Side) -> Expr:
        inner = pattern[len(group.opening) : -1]
        head = group.opening
        if head in ("(?:", "(") or head.startswith("(?P<"):
            return self.expr(inner, flags, side)
        m = _SCOPED.fullmatch(head)
        if m:
            for letter in m.group(1):
                flags |= _FLAG_LETTERS[letter]
            for letter in m.group(2) or "":
                flags &= ~_FLAG_LETTERS[letter]
            return self.expr(inner, flags, side)
        return self.leaf(pattern, flags)  # a lone assertion, atomic group, ...: refused there

    def assertion(self, pattern: str, group: _Group, flags: int, side: Side) -> Expr:
        """The context language an assertion of the sequence requires of its side."""
        kind = group.opening
        behind = kind.startswith("(?<")
        if side is not None and (kind in _BOUNDARIES or behind != (side == "behind")):
            # A look-behind (or \b) in a look-ahead's body sees the text before the outer
            # position, a look-ahead in a look-behind's body the text after it: both tie the two
            # sides of that position together, which no product of regular sides expresses.
            self.refuse(pattern, "an assertion inside a look-around that looks back across it")
        inner = pattern[group.start + len(kind) : group.end - 1]
        body = self.expr(inner, flags, "behind" if behind else "ahead")
        return body if kind in ("(?=", "(?<=") else Complement(body)

    def sequence(self, pattern: str, groups: list[_Group], flags: int, side: Side) -> Expr:
        asserts = [g for g in groups if g.opening in _ASSERTIONS or g.opening in _BOUNDARIES]
        if not asserts:
            return self.distribute(pattern, groups, flags, side)
        segments: list[str] = []
        pos = 0
        for group in asserts:
            if _QUANT_AFTER.match(pattern, group.end):
                return self.leaf(pattern, flags)
            segments.append(pattern[pos : group.start])
            pos = group.end
        segments.append(pattern[pos:])
        behind: list[bool] = []
        constraints: list[Expr] = []
        word = self.leaf(r"\w", flags & (re.A | re.U))
        for g in asserts:
            if g.opening in _ASSERTIONS:
                behind.append(g.opening.startswith("(?<"))
                constraints.append(self.assertion(pattern, g, flags, side))
                continue
            if side is not None:
                self.assertion(pattern, g, flags, side)  # refuses
            # \b / \B at an end of the sequence look at one side only; in the middle, both.
            if g.start == 0:
                behind.append(False)
                constraints.append(_ahead(g.opening == r"\b", word))
            elif g.end == len(pattern):
                behind.append(True)
                constraints.append(_behind(g.opening == r"\b", word))
            elif len(asserts) == 1:
                return self.boundary(segments, g.opening == r"\b", word, flags)
            else:
                self.refuse(pattern)
        parts = [self.leaf(segment, flags) for segment in segments]
        # On a side, the text beyond the pattern's own match is part of the last (first) segment:
        # assertions at that end of the pattern look into it.
        if side == "ahead":
            parts[-1] = _in_context(parts[-1], side)
        elif side == "behind":
            parts[0] = _in_context(parts[0], side)
        # Look-aheads at the very start and look-behinds at the very end constrain it all.
        whole: list[Expr] = []
        while behind and _is_eps(parts[0]) and not behind[0]:
            whole.append(constraints.pop(0))
            behind.pop(0)
            parts.pop(0)
        while behind and _is_eps(parts[-1]) and behind[-1]:
            whole.append(constraints.pop())
            behind.pop()
            parts.pop()
        body = self.ordered(parts, behind, constraints, pattern)
        return Intersect((body, *whole)) if whole else body

    def ordered(
        self, parts: list[Expr], behind: list[bool], constraints: list[Expr], pattern: str
    ) -> Expr:
        """``P0 a1 P1 ... an Pn`` with every look-behind before every look-ahead."""
        if any(not b and later for i, b in enumerate(behind) for later in behind[i + 1 :]):
            self.refuse(pattern)
        split = behind.index(False) if False in behind else len(behind)
        left = parts[0]
        for i in range(split):
            left = Seq((_constrain(left, constraints[i]), parts[i + 1]))
        if split == len(behind):
            return left
        right = parts[-1]
        for i in range(len(behind) - 1, split - 1, -1):
            right = _constrain(right, constraints[i])
            if i > split:
                right = Seq((parts[i], right))
        return Seq((left, right))

    def boundary(self, segments: list[str], word_boundary: bool, word: Expr, flags: int) -> Expr:
        """``L \\b R``: exactly one side of the position is a word character (\\B: none or both)."""
        left, right = self.leaf(segments[0], flags), self.leaf(segments[1], flags)
        left_word = Intersect((left, _behind(True, word)))
        left_other = Intersect((left, _behind(False, word)))
        right_word = Intersect((right, _ahead(True, word)))
        right_other = Intersect((right, _ahead(False, word)))
        if word_boundary:
            return Alt((Seq((left_word, right_other)), Seq((left_other, right_word))))
        return Alt((Seq((left_word, right_word)), Seq((left_other, right_other))))

    def refuse(self, pattern: str, why: str | None = None) -> NoReturn:
        why = why or (
            "a look-behind after a look-ahead, or several word boundaries with other assertions"
        )
        raise UnsupportedFeatureError(
            f"these assertions cannot be made exact in one regex ({why}): pattern {pattern!r}",
            code="lark-lookaround",
            origin=self.origin,
            hint="reorder the assertions, or express them with character classes",
        )

    def distribute(self, pattern: str, groups: list[_Group], flags: int, side: Side) -> Expr:
        """``L (A|B) R`` -> ``L A R | L B R`` for a plain group holding assertions."""
        for group in groups:
            plain = group.opening in ("(", "(?:") or group.opening.startswith("(?P<")
            inner = pattern[group.start + len(group.opening) : group.end - 1]
            if (
                not plain
                or _QUANT_AFTER.match(pattern, group.end)
                or not any(a in inner for a in (*_ASSERTIONS, *_BOUNDARIES))
            ):
                continue
            bars, _ = _top_level(inner, bool(flags & re.X))
            cuts = [-1, *bars, len(inner)]
            head, tail = pattern[: group.start], pattern[group.end :]
            branches = [inner[a + 1 : b] for a, b in itertools.pairwise(cuts)]
            alts = tuple(self.expr(head + branch + tail, flags, side) for branch in branches)
            return alts[0] if len(alts) == 1 else Alt(alts)
        return _in_context(self.leaf(pattern, flags), side)


def _is_eps(expr: Expr) -> bool:
    return isinstance(expr, Lit) and not expr.data


def _in_context(expr: Expr, side: Side) -> Expr:
    if side == "ahead":
        return Seq((expr, _ANY_STAR))
    if side == "behind":
        return Seq((_ANY_STAR, expr))
    return expr


def _constrain(part: Expr, constraint: Expr) -> Expr:
    """``part & constraint``, decided outright when ``part`` is the empty string."""
    if not _is_eps(part):
        return Intersect((part, constraint))
    return part if nullable(constraint) else Alt(())


def _behind(positive: bool, body: Expr) -> Expr:
    tail = Seq((_ANY_STAR, body))
    return tail if positive else Complement(tail)


def _ahead(positive: bool, body: Expr) -> Expr:
    head = Seq((body, _ANY_STAR))
    return head if positive else Complement(head)


def regex_with_lookarounds(
    pattern: str, flags: int, convert: RegexToExpr, origin: Origin | None
) -> Expr:
    """``convert(pattern)``, with top-level look-arounds turned into intersections."""
    return _Splitter(convert, origin).expr(pattern, flags)

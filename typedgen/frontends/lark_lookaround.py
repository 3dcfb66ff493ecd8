"""Look-around assertions at the top level of a terminal's regex, as IR intersections.

:func:`typedgen.frontends.regex.regex_to_expr` refuses look-arounds, but lark's bundled grammars
rely on them (``common.ESCAPED_STRING`` is ``".*?(?<!\\\\)(\\\\\\\\)*?"``). Under full-match
semantics an assertion between two parts of a sequence is a regular constraint on one side:

* ``L (?<=X) R`` is ``(L & .*X) R`` and ``L (?<!X) R`` is ``(L & ~(.*X)) R``;
* ``L (?=X) R`` is ``L (R & X.*)`` and ``L (?!X) R`` is ``L (R & ~(X.*))``.

* ``\\b`` at the start is ``(?=\\w)``, at the end ``(?<=\\w)``; in the middle,
  ``L \\b R`` is ``(L & .*\\w)(R & ~(\\w.*)) | (L & ~(.*\\w))(R & \\w.*)`` (``\\B`` alike).

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

from typedgen.errors import UnsupportedFeatureError
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
)
from typedgen.ir.origin import Origin

__all__ = ["nullable", "regex_with_lookarounds"]

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


class _Splitter:
    def __init__(self, convert: RegexToExpr, origin: Origin | None) -> None:
        self.convert = convert
        self.origin = origin

    def leaf(self, pattern: str, flags: int) -> Expr:
        if not pattern:
            return Lit(b"")
        return self.convert(pattern, flags=flags, flavor="python", origin=self.origin)

    def expr(self, pattern: str, flags: int) -> Expr:
        m = _GLOBAL_FLAGS.match(pattern)
        if m:
            for letter in m.group(1):
                flags |= _FLAG_LETTERS[letter]
            pattern = pattern[m.end() :]
        if not any(a in pattern for a in (*_ASSERTIONS, *_BOUNDARIES)):
            return self.leaf(pattern, flags)
        bars, groups = _top_level(pattern, bool(flags & re.X))
        if bars:
            cuts = [-1, *bars, len(pattern)]
            branches = [pattern[a + 1 : b] for a, b in itertools.pairwise(cuts)]
            return Alt(tuple(self.expr(branch, flags) for branch in branches))
        if len(groups) == 1 and groups[0].start == 0 and groups[0].end == len(pattern):
            return self.whole_group(pattern, groups[0], flags)
        return self.sequence(pattern, groups, flags)

    def whole_group(self, pattern: str, group: _Group, flags: int) -> Expr:
        inner = pattern[len(group.opening) : -1]
        head = group.opening
        if head in ("(?:", "(") or head.startswith("(?P<"):
            return self.expr(inner, flags)
        m = _SCOPED.fullmatch(head)
        if m:
            for letter in m.group(1):
                flags |= _FLAG_LETTERS[letter]
            for letter in m.group(2) or "":
                flags &= ~_FLAG_LETTERS[letter]
            return self.expr(inner, flags)
        return self.leaf(pattern, flags)  # a lone assertion, atomic group, ...: refused there

    def sequence(self, pattern: str, groups: list[_Group], flags: int) -> Expr:
        asserts = [g for g in groups if g.opening in _ASSERTIONS or g.opening in _BOUNDARIES]
        if not asserts:
            return self.distribute(pattern, groups, flags)
        segments: list[str] = []
        pos = 0
        for group in asserts:
            if _QUANT_AFTER.match(pattern, group.end):
                return self.leaf(pattern, flags)
            segments.append(pattern[pos : group.start])
            pos = group.end
        segments.append(pattern[pos:])
        kinds: list[str] = []
        bodies: list[Expr] = []
        word = self.leaf(r"\w", flags & (re.A | re.U))
        for g in asserts:
            if g.opening in _ASSERTIONS:
                kinds.append(g.opening)
                bodies.append(self.expr(pattern[g.start + len(g.opening) : g.end - 1], flags))
                continue
            # \b / \B at an end of the sequence look at one side only; in the middle, both.
            if g.start == 0:
                kinds.append("(?=" if g.opening == r"\b" else "(?!")
            elif g.end == len(pattern):
                kinds.append("(?<=" if g.opening == r"\b" else "(?<!")
            elif len(asserts) == 1:
                return self.boundary(segments, g.opening == r"\b", word, flags)
            else:
                self.refuse(pattern)
            bodies.append(word)
        # Look-aheads at the very start and look-behinds at the very end constrain it all.
        whole: list[Expr] = []
        while kinds and not segments[0] and not kinds[0].startswith("(?<"):
            whole.append(_ahead(kinds.pop(0), bodies.pop(0)))
            segments.pop(0)
        while kinds and not segments[-1] and kinds[-1].startswith("(?<"):
            whole.append(_behind(kinds.pop(), bodies.pop()))
            segments.pop()
        body = self.ordered(segments, kinds, bodies, flags, pattern)
        return Intersect((body, *whole)) if whole else body

    def ordered(
        self, segments: list[str], kinds: list[str], bodies: list[Expr], flags: int, pattern: str
    ) -> Expr:
        """``S0 a1 S1 ... an Sn`` with every look-behind before every look-ahead."""
        behind = [k.startswith("(?<") for k in kinds]
        if any(not b and later for i, b in enumerate(behind) for later in behind[i + 1 :]):
            self.refuse(pattern)
        split = behind.index(False) if False in behind else len(kinds)
        left = self.leaf(segments[0], flags)
        for i in range(split):
            constrained = _constrain(left, kinds[i], _behind(kinds[i], bodies[i]), bodies[i])
            left = Seq((constrained, self.leaf(segments[i + 1], flags)))
        if split == len(kinds):
            return left
        right = self.leaf(segments[-1], flags)
        for i in range(len(kinds) - 1, split - 1, -1):
            right = _constrain(right, kinds[i], _ahead(kinds[i], bodies[i]), bodies[i])
            if i > split:
                right = Seq((self.leaf(segments[i], flags), right))
        return Seq((left, right))

    def boundary(self, segments: list[str], word_boundary: bool, word: Expr, flags: int) -> Expr:
        """``L \\b R``: exactly one side of the position is a word character (\\B: none or both)."""
        left, right = self.leaf(segments[0], flags), self.leaf(segments[1], flags)
        left_word = Intersect((left, _behind("(?<=", word)))
        left_other = Intersect((left, _behind("(?<!", word)))
        right_word = Intersect((right, _ahead("(?=", word)))
        right_other = Intersect((right, _ahead("(?!", word)))
        if word_boundary:
            return Alt((Seq((left_word, right_other)), Seq((left_other, right_word))))
        return Alt((Seq((left_word, right_word)), Seq((left_other, right_other))))

    def refuse(self, pattern: str) -> None:
        raise UnsupportedFeatureError(
            "these assertions cannot be made exact in one regex (a look-behind after a "
            f"look-ahead, or several word boundaries with other assertions): pattern {pattern!r}",
            code="lark-lookaround",
            origin=self.origin,
            hint="reorder the assertions, or express them with character classes",
        )

    def distribute(self, pattern: str, groups: list[_Group], flags: int) -> Expr:
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
            alts = tuple(self.expr(head + branch + tail, flags) for branch in branches)
            return alts[0] if len(alts) == 1 else Alt(alts)
        return self.leaf(pattern, flags)


def nullable(expr: Expr, lookup: Callable[[str], Expr] | None = None) -> bool:
    """Whether ``expr`` matches the empty string (``lookup`` resolves references)."""
    if isinstance(expr, Lit):
        return not expr.data
    if isinstance(expr, Ref):
        return lookup is not None and nullable(lookup(expr.name), lookup)
    if isinstance(expr, Seq | Intersect):
        return all(nullable(item, lookup) for item in expr.items)
    if isinstance(expr, Alt):
        return any(nullable(item, lookup) for item in expr.items)
    if isinstance(expr, Repeat):
        return expr.min == 0 or nullable(expr.item, lookup)
    if isinstance(expr, Complement):
        return not nullable(expr.item, lookup)
    return False  # CharClass


def _constrain(part: Expr, kind: str, constraint: Expr, body: Expr) -> Expr:
    """``part & constraint``, decided outright when ``part`` is the empty string."""
    if not (isinstance(part, Lit) and not part.data):
        return Intersect((part, constraint))
    holds = nullable(body) == (kind in ("(?=", "(?<="))
    return part if holds else Alt(())


def _behind(kind: str, body: Expr) -> Expr:
    tail = Seq((_ANY_STAR, body))
    return tail if kind == "(?<=" else Complement(tail)


def _ahead(kind: str, body: Expr) -> Expr:
    head = Seq((body, _ANY_STAR))
    return head if kind == "(?=" else Complement(head)


def regex_with_lookarounds(
    pattern: str, flags: int, convert: RegexToExpr, origin: Origin | None
) -> Expr:
    """``convert(pattern)``, with top-level look-arounds turned into intersections."""
    return _Splitter(convert, origin).expr(pattern, flags)

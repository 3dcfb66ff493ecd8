"""Expression nodes of the CFG IR.

A grammar is a set of named rules whose bodies are expressions over UTF-8 bytes. Nodes are frozen
and hashable; ``origin`` never takes part in equality or hashing, so structurally equal grammars
hash equally wherever they came from.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from typedgen.errors import GrammarError
from typedgen.ir.origin import Origin
from typedgen.ir.ranges import MAX_CODEPOINT, complement_ranges, normalize_ranges

__all__ = [
    "MAX_CODEPOINT",
    "SURROGATES",
    "Alt",
    "CharClass",
    "Complement",
    "Expr",
    "Intersect",
    "Lit",
    "Node",
    "Ref",
    "Repeat",
    "Seq",
    "complement_ranges",
    "normalize_ranges",
]

SURROGATES = (0xD800, 0xDFFF)


@dataclass(frozen=True, slots=True)
class Node:
    """Base class of the IR expression nodes; :data:`Expr` is their closed union."""

    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)

    def children(self) -> tuple[Expr, ...]:
        """Direct sub-expressions, in order."""
        return ()


@dataclass(frozen=True, slots=True)
class Lit(Node):
    """A literal byte string; ``Lit(b"")`` is the empty string (epsilon)."""

    data: bytes

    @classmethod
    def text(cls, text: str, *, origin: Origin | None = None) -> Lit:
        """A literal from text, encoded as UTF-8."""
        return cls(text.encode("utf-8"), origin=origin)


def _remove_surrogates(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    lo_s, hi_s = SURROGATES
    out = []
    for lo, hi in ranges:
        if hi < lo_s or lo > hi_s:
            out.append((lo, hi))
            continue
        if lo < lo_s:
            out.append((lo, lo_s - 1))
        if hi > hi_s:
            out.append((hi_s + 1, hi))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CharClass(Node):
    """One Unicode scalar value from a set of code point ranges, matched as its UTF-8 bytes.

    ``negated`` complements the set within Unicode. Surrogate code points (U+D800..U+DFFF) have
    no UTF-8 encoding and are never matched.
    """

    ranges: tuple[tuple[int, int], ...]
    negated: bool = False

    def __post_init__(self) -> None:
        # Canonical form: surrogate-free ranges, negated exactly when that needs fewer ranges,
        # so equal sets of characters are equal nodes with equal canonical text.
        ranges = normalize_ranges(self.ranges)
        positive = _remove_surrogates(complement_ranges(ranges) if self.negated else ranges)
        negative = _remove_surrogates(complement_ranges(positive))
        if len(negative) < len(positive):
            object.__setattr__(self, "ranges", negative)
            object.__setattr__(self, "negated", True)
        else:
            object.__setattr__(self, "ranges", positive)
            object.__setattr__(self, "negated", False)

    @classmethod
    def of(cls, chars: str, *, negated: bool = False, origin: Origin | None = None) -> CharClass:
        """A class of the given characters."""
        return cls(tuple((ord(c), ord(c)) for c in chars), negated, origin=origin)

    def codepoints(self) -> tuple[tuple[int, int], ...]:
        """The matched code points as sorted, merged, surrogate-free positive ranges."""
        ranges = complement_ranges(self.ranges) if self.negated else self.ranges
        return _remove_surrogates(ranges)

    def is_empty(self) -> bool:
        """Whether the class matches nothing."""
        return not self.codepoints()


@dataclass(frozen=True, slots=True)
class Seq(Node):
    """Concatenation; ``Seq(())`` is the empty string."""

    items: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.items


@dataclass(frozen=True, slots=True)
class Alt(Node):
    """Alternation; ``Alt(())`` is the empty language."""

    items: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.items


@dataclass(frozen=True, slots=True)
class Repeat(Node):
    """``item{min,max}``; ``max=None`` is unbounded (``*`` is ``{0,}``, ``+`` is ``{1,}``)."""

    item: Expr
    min: int = 0
    max: int | None = None

    def __post_init__(self) -> None:
        if self.min < 0:
            raise GrammarError(
                f"repetition minimum {self.min} is negative",
                code="bad-repeat",
                origin=self.origin,
                hint="counts start at 0",
            )
        if self.max is not None and self.max < self.min:
            raise GrammarError(
                f"repetition range {{{self.min},{self.max}}}: the end must be >= the start",
                code="bad-repeat",
                origin=self.origin,
                hint="write the smaller count first",
            )

    def children(self) -> tuple[Expr, ...]:
        return (self.item,)


@dataclass(frozen=True, slots=True)
class Ref(Node):
    """A reference to a named rule."""

    name: str


@dataclass(frozen=True, slots=True)
class Intersect(Node):
    """Strings matched by every item; only inside lexical rules (terminals)."""

    items: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.items


@dataclass(frozen=True, slots=True)
class Complement(Node):
    """Valid UTF-8 strings *not* matched by ``item``; only inside lexical rules (terminals)."""

    item: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.item,)


Expr: TypeAlias = Lit | CharClass | Seq | Alt | Repeat | Ref | Intersect | Complement
"""An IR expression: one of the eight node kinds. A closed union, so that passes can dispatch
with ``match`` and ``assert_never`` and the type checker reports a kind they forget."""


def walk(expr: Expr) -> Iterator[Expr]:
    """Every node of ``expr``, pre-order."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))

"""Where whitespace may go in generated JSON, and how much: never an unbounded run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from typedgen.errors import GrammarError
from typedgen.ir.nodes import Alt, Expr, Lit, Repeat, Seq

__all__ = ["Whitespace", "WhitespaceSpec", "whitespace_of"]


@dataclass(frozen=True, slots=True)
class Whitespace:
    """A bounded JSON layout.

    ``space`` allows one space after ``:`` and ``,`` (``json.dumps`` default separators);
    ``newline`` allows, after ``{ [ ,`` and before ``} ]``, a newline followed by at most
    ``max_indent`` spaces (``json.dumps(indent=2)`` up to depth ``max_indent // 2``). The
    default is compact: no whitespace at all, which is also what most models produce fastest.
    """

    space: bool = False
    newline: bool = False
    max_indent: int = 0

    def __post_init__(self) -> None:
        if self.max_indent < 0 or self.max_indent > 256:
            raise GrammarError(
                f"max_indent={self.max_indent} is outside 0..256",
                code="schema-whitespace",
                hint="a bounded layout keeps models from looping on whitespace; pick <= 256",
            )

    def between(self) -> Expr:
        """After ``{ [ ,`` and before ``} ]``."""
        items: list[Expr] = [Lit(b"")]
        if self.space:
            items.append(Lit(b" "))
        if self.newline:
            items.append(Seq((Lit(b"\n"), Repeat(Lit(b" "), 0, self.max_indent))))
        return items[0] if len(items) == 1 else Alt(tuple(items))

    def after_colon(self) -> Expr:
        """After ``:`` in an object member."""
        return Alt((Lit(b""), Lit(b" "))) if self.space or self.newline else Lit(b"")


WhitespaceSpec = Whitespace | Literal["compact", "pretty"]

_NAMED = {
    "compact": Whitespace(),
    "pretty": Whitespace(space=True, newline=True, max_indent=40),
}


def whitespace_of(spec: WhitespaceSpec) -> Whitespace:
    """``"compact"`` (default), ``"pretty"`` (spaces, newlines, indent <= 40) or a Whitespace."""
    if isinstance(spec, Whitespace):
        return spec
    try:
        return _NAMED[spec]
    except (KeyError, TypeError):
        raise GrammarError(
            f"unknown whitespace layout {spec!r}",
            code="schema-whitespace",
            hint="use 'compact', 'pretty' or typedgen.ir... Whitespace(space=..., newline=...)",
        ) from None

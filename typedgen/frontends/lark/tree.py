"""The syntax tree of a Lark grammar file, as :mod:`typedgen.frontends.lark.syntax` parses it:
rules and terminals with their expansions, ``%ignore``, ``%import`` and ``%declare``
statements, each node with the place it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as TypingLiteral
from typing import TypeAlias

from typedgen.ir.origin import Origin

__all__ = [
    "CharRange",
    "Choice",
    "Declare",
    "Definition",
    "Ignore",
    "Import",
    "Intersection",
    "Literal",
    "Name",
    "Negation",
    "Node",
    "Repetition",
    "Sequence",
    "Statement",
    "TemplateUse",
    "children",
    "is_terminal_name",
]


def is_terminal_name(name: str) -> bool:
    """Lark's convention: upper-case names are terminals, lower-case ones rules."""
    return name.lstrip("_")[:1].isupper()


# -- syntax tree ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Name:
    """A reference to a rule or terminal; ``is_term`` survives lark's renaming on import."""

    name: str
    origin: Origin
    is_term: bool


@dataclass(frozen=True, slots=True)
class Literal:
    """A ``"string"`` (kind ``str``) or ``/regexp/`` (kind ``re``), unescaped as lark does."""

    kind: TypingLiteral["str", "re"]
    value: str
    flags: str
    raw: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class CharRange:
    """``"a".."z"``: ``start``/``end`` are single characters, ``raw_*`` the text between quotes."""

    start: str
    end: str
    raw_start: str
    raw_end: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class TemplateUse:
    """``name{arg, ...}``: an instance of a template rule."""

    name: Name
    args: tuple[Node, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Repetition:
    """``x?``, ``x*``, ``x+``, ``[x]``, ``x ~ n``, ``x ~ m..n`` and llguidance's ``x{m,n}``."""

    item: Node
    min: int
    max: int | None
    op: str
    origin: Origin


@dataclass(frozen=True, slots=True)
class Sequence:
    """Juxtaposition; empty for an empty alternative."""

    items: tuple[Node, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Intersection:
    """llguidance's ``a & b``: strings matched by every item (terminals only)."""

    items: tuple[Node, ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Negation:
    """llguidance's ``~a``: strings not matched by ``a`` (terminals only)."""

    item: Node
    origin: Origin


@dataclass(frozen=True, slots=True)
class Choice:
    """Alternatives (``a | b``), each with its ``-> alias`` or ``None``."""

    alts: tuple[Node, ...]
    aliases: tuple[Name | None, ...]
    origin: Origin


Node: TypeAlias = (
    Name | Literal | CharRange | TemplateUse | Repetition | Sequence | Intersection | Negation
) | Choice


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-expressions of a grammar-syntax node."""
    if isinstance(node, Choice):
        return node.alts
    if isinstance(node, Sequence | Intersection):
        return node.items
    if isinstance(node, Repetition | Negation):
        return (node.item,)
    return ()


@dataclass(frozen=True, slots=True)
class Definition:
    """``rule: ...`` or ``TERM: ...``, possibly under ``%override`` or ``%extend``."""

    name: str
    is_term: bool
    params: tuple[str, ...]
    modifiers: str
    priority: int | None
    body: Choice
    origin: Origin
    directive: str = ""


@dataclass(frozen=True, slots=True)
class Ignore:
    """``%ignore expansions``."""

    body: Choice
    origin: Origin


@dataclass(frozen=True, slots=True)
class Import:
    """``%import path.name [-> alias]`` or ``%import path (a, b)``; ``names`` pairs name, alias."""

    path: tuple[str, ...]
    relative: bool
    names: tuple[tuple[str, str], ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class Declare:
    """``%declare NAME ...``: symbols without a definition (fed by a custom lexer)."""

    names: tuple[Name, ...]
    origin: Origin


Statement: TypeAlias = Definition | Ignore | Import | Declare

"""Rules and their attributes: the leaf of the IR that everything else builds on.

:class:`Rule` (a named expression, a terminal when ``lexical``), :class:`Lexing` (how a
terminal's lexemes are delimited), :class:`TreeShape` (lark's tree conventions) and
:class:`DeferredCheck` (a constraint left to a validator) depend on the expression nodes only,
so the printer, the passes and the exporters can use them without importing
:class:`~typedgen.ir.grammar.Grammar` (which imports those modules in turn).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from typedgen.ir.nodes import Expr
from typedgen.ir.origin import Origin

__all__ = ["DeferredCheck", "Lexing", "Rule", "TreeShape", "rule_with"]


class Lexing(enum.StrEnum):
    """How a terminal's lexemes are delimited.

    ``FREE``: a lexeme may end wherever the terminal's pattern matches (scannerless, as in GBNF
    and lark's ``dynamic_complete`` lexer): the language is exactly the context-free language.
    ``CONTEXTUAL``: longest match among the terminals the parser expects at that point (lark's
    contextual lexer, llguidance); a lexeme cannot end where an expected terminal could go on.
    ``BASIC``: longest match among *all* terminals whatever the parser expects (lark's basic
    lexer, sqlglot's tokenizer); needed where the output is re-lexed by a context-free tokenizer.
    No mode backtracks: a lexeme that can go on must go on.
    """

    FREE = "free"
    CONTEXTUAL = "contextual"
    BASIC = "basic"


@dataclass(frozen=True, slots=True)
class TreeShape:
    """How a rule's node appears in the parse tree (lark conventions); no effect on the language."""

    inline: bool = False
    """``_rule``: splice the children into the parent."""
    expand_single: bool = False
    """``?rule``: replace the node by its child when it has exactly one."""
    keep_tokens: bool = False
    """``!rule``: keep anonymous punctuation tokens in the tree."""
    filtered: bool = False
    """Terminal left out of the tree (lark's ``_TERM`` and anonymous literals)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule. ``lexical=True`` makes it a terminal: regular, matched by the lexer."""

    name: str
    body: Expr
    lexical: bool = False
    priority: int = 0
    lexing: Lexing = Lexing.FREE
    shape: TreeShape = TreeShape()
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DeferredCheck:
    """A constraint the grammar does not enforce, left to a validator after decoding.

    Frontends record these only where the caller asked for a relaxation (for example
    ``from_json_schema(..., strict=False)``); they are part of the canonical text, so two grammars
    that leave different checks to the validator never share a cache entry.
    """

    path: str
    """Where the constraint sits (a JSON pointer such as ``#/properties/tags``)."""
    keyword: str
    """What is left unchecked (``uniqueItems``, ``format: idn-email``)."""
    reason: str
    """Why the grammar cannot enforce it."""


def rule_with(rule: Rule, **changes: Any) -> Rule:
    """A copy of ``rule`` with fields replaced."""
    return replace(rule, **changes)

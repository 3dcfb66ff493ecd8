"""The shared CFG IR: the only structure passed from frontends to the compiler.

A :class:`Grammar` is a set of named :class:`Rule` objects over UTF-8 bytes. Expressions are
:class:`Lit`, :class:`CharClass`, :class:`Seq`, :class:`Alt`, :class:`Repeat`, :class:`Ref`, and,
inside terminals only, :class:`Intersect` and :class:`Complement`. Every node may carry an
:class:`Origin`; ``str(grammar)`` is the canonical text.
"""

from typedgen.ir.grammar import DeferredCheck, Grammar, Lexing, Rule, TreeShape, register_format
from typedgen.ir.nodes import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
    walk,
)
from typedgen.ir.origin import Origin
from typedgen.ir.printer import print_expr, print_grammar, print_rule

__all__ = [
    "Alt",
    "CharClass",
    "Complement",
    "DeferredCheck",
    "Expr",
    "Grammar",
    "Intersect",
    "Lexing",
    "Lit",
    "Origin",
    "Ref",
    "Repeat",
    "Rule",
    "Seq",
    "TreeShape",
    "print_expr",
    "print_grammar",
    "print_rule",
    "register_format",
    "walk",
]

"""Grammar validation: every problem is reported with the rule and the place it came from."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from typedgen.errors import GrammarError
from typedgen.ir.analysis import productive_rules, reachable_rules, referenced_names
from typedgen.ir.nodes import (
    Complement,
    Expr,
    Intersect,
    Ref,
    walk,
)
from typedgen.ir.rules import Lexing, Rule

if TYPE_CHECKING:  # the grammar imports this module to validate itself
    from typedgen.ir.grammar import Grammar

__all__ = ["productive_rules", "reachable_rules", "referenced_names", "validate_grammar"]


def _where(rule: Rule, node: Expr | None = None) -> object:
    if node is not None and node.origin is not None:
        return node.origin
    return rule.origin


def _check_references(grammar: Grammar) -> None:
    names = list(grammar.rules)
    for rule in grammar.rules.values():
        for ref in referenced_names(rule.body):
            if ref.name in grammar.rules:
                continue
            close = difflib.get_close_matches(ref.name, names, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "define the rule or fix the name"
            raise GrammarError(
                f"rule {rule.name!r} refers to undefined rule {ref.name!r}",
                code="undefined-rule",
                origin=ref.origin or rule.origin,
                hint=hint,
            )


def _check_terminals(grammar: Grammar) -> None:
    for rule in grammar.rules.values():
        for node in walk(rule.body):
            if isinstance(node, Intersect | Complement) and not rule.lexical:
                op = "&" if isinstance(node, Intersect) else "~"
                raise GrammarError(
                    f"rule {rule.name!r} uses {op!r}, which only terminals may use",
                    code="regular-operator-in-rule",
                    origin=node.origin or rule.origin,
                    hint="move the expression into a terminal (lexical rule)",
                )
            if isinstance(node, Ref) and rule.lexical and not grammar.rules[node.name].lexical:
                raise GrammarError(
                    f"terminal {rule.name!r} refers to rule {node.name!r}, which is not a terminal",
                    code="terminal-uses-rule",
                    origin=node.origin or rule.origin,
                    hint="terminals may only be built from literals, classes and other terminals",
                )
    # Terminals must be regular: no cycles among terminal references.
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        rule = grammar.rules[name]
        for ref in referenced_names(rule.body):
            if state.get(ref.name) == 1:
                cycle = " -> ".join([*path[path.index(ref.name) :], ref.name])
                raise GrammarError(
                    f"terminal {ref.name!r} is recursive ({cycle}); terminals must be regular",
                    code="recursive-terminal",
                    origin=ref.origin or rule.origin,
                    hint="make it a rule (lower-case in Lark) so the parser handles the recursion",
                )
            if state.get(ref.name) is None:
                visit(ref.name, [*path, ref.name])
        state[name] = 2

    for rule in grammar.rules.values():
        if rule.lexical and rule.name not in state:
            visit(rule.name, [rule.name])


def validate_grammar(grammar: Grammar) -> None:
    """Raise :class:`GrammarError` for the first problem found; return silently otherwise."""
    if grammar.start not in grammar.rules:
        close = difflib.get_close_matches(grammar.start, list(grammar.rules), n=1)
        raise GrammarError(
            f"the start rule {grammar.start!r} is not defined",
            code="undefined-start",
            origin=grammar.origin,
            hint=f"did you mean {close[0]!r}?" if close else "define it or pass start=...",
        )
    _check_references(grammar)
    for name in grammar.ignore:
        if name not in grammar.rules or not grammar.rules[name].lexical:
            raise GrammarError(
                f"%ignore names {name!r}, which is not a terminal of the grammar",
                code="bad-ignore",
                origin=grammar.origin,
                hint="%ignore a terminal (an upper-case name, a string or a regexp)",
            )
    for name in grammar.reserved:
        rule = grammar.rules.get(name)
        if rule is None or not rule.lexical or rule.lexing is not Lexing.BASIC:
            raise GrammarError(
                f"%reserve names {name!r}, which is not a basic-lexed terminal of the grammar",
                code="bad-reserve",
                origin=grammar.origin,
                hint="reserved terminals only take effect where every terminal competes"
                " (lexing=basic)",
            )
    _check_terminals(grammar)
    reachable = reachable_rules(grammar)
    for rule in grammar.rules.values():
        if rule.name not in reachable:
            raise GrammarError(
                f"rule {rule.name!r} cannot be reached from the start rule {grammar.start!r}",
                code="unreachable-rule",
                origin=rule.origin,
                hint="remove it, or reference it from a reachable rule",
            )
    productive = productive_rules(grammar)
    for rule in grammar.rules.values():
        if rule.name not in productive:
            raise GrammarError(
                f"rule {rule.name!r} matches no string: its language is empty",
                code="empty-language",
                origin=rule.origin,
                hint="every recursion needs a way out, and every class at least one character",
            )

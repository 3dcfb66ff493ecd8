"""Bottom-up expression rewriting, and the passes built on it (simplify, rename, prune)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from typedgen.ir.analysis import reachable_rules
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
)
from typedgen.ir.rules import Rule

if TYPE_CHECKING:  # the grammar imports this module (Grammar.renamed)
    from typedgen.ir.grammar import Grammar

__all__ = ["prune_unreachable", "rename_rules", "simplify", "transform"]


def transform(expr: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """Rebuild ``expr`` bottom-up, applying ``fn`` to every node after its children."""
    match expr:
        case Seq(items=items) | Alt(items=items) | Intersect(items=items):
            new = tuple(transform(item, fn) for item in items)
            if any(a is not b for a, b in zip(new, items, strict=True)):
                expr = replace(expr, items=new)
        case Repeat(item=item) | Complement(item=item):
            inner = transform(item, fn)
            if inner is not item:
                expr = replace(expr, item=inner)
        case Lit() | CharClass() | Ref():
            pass
        case _:
            assert_never(expr)
    return fn(expr)


def _simplify_node(node: Expr) -> Expr:
    if isinstance(node, Seq):
        items: list[Expr] = []
        for item in node.items:
            parts = item.items if isinstance(item, Seq) else (item,)
            for part in parts:
                if isinstance(part, Lit) and not part.data:
                    continue
                if isinstance(part, Lit) and items and isinstance(items[-1], Lit):
                    prev = items[-1]
                    items[-1] = Lit(prev.data + part.data, origin=prev.origin)
                    continue
                items.append(part)
        if any(isinstance(item, Alt) and not item.items for item in items):
            return Alt((), origin=node.origin)
        if len(items) == 1:
            return items[0]
        if not items:
            return Lit(b"", origin=node.origin)
        return Seq(tuple(items), origin=node.origin)
    if isinstance(node, Alt):
        alts: dict[Expr, None] = {}
        for item in node.items:
            for part in item.items if isinstance(item, Alt) else (item,):
                alts.setdefault(part, None)
        if len(alts) == 1:
            return next(iter(alts))
        return Alt(tuple(alts), origin=node.origin)
    if isinstance(node, CharClass) and node.is_empty():
        return Alt((), origin=node.origin)
    if isinstance(node, Intersect):
        flat: list[Expr] = []
        for item in node.items:
            flat.extend(item.items if isinstance(item, Intersect) else (item,))
        if len(flat) == 1:
            return flat[0]
        return Intersect(tuple(flat), origin=node.origin)
    if isinstance(node, Repeat):
        if node.min == 1 and node.max == 1:
            return node.item
        if node.max == 0:
            return Lit(b"", origin=node.origin)
        if isinstance(node.item, Lit) and not node.item.data:
            return node.item
        if isinstance(node.item, Alt) and not node.item.items:
            return Lit(b"", origin=node.origin) if node.min == 0 else node.item
        return node
    return node


def simplify(expr: Expr) -> Expr:
    """Flatten nested sequences and alternations, merge adjacent literals, drop unit repeats.

    The language is unchanged; the canonical text gets shorter and stable.
    """
    return transform(expr, _simplify_node)


def rename_rules(grammar: Grammar, mapping: Mapping[str, str]) -> Grammar:
    """A copy of ``grammar`` with rules (and every reference to them) renamed."""

    def fix(node: Expr) -> Expr:
        if isinstance(node, Ref) and node.name in mapping:
            return Ref(mapping[node.name], origin=node.origin)
        return node

    rules = [
        replace(rule, name=mapping.get(rule.name, rule.name), body=transform(rule.body, fix))
        for rule in grammar.rules.values()
    ]
    return grammar.replace(
        rules=rules,
        start=mapping.get(grammar.start, grammar.start),
        ignore=tuple(mapping.get(n, n) for n in grammar.ignore),
        reserved=tuple(mapping.get(n, n) for n in grammar.reserved),
    )


def prune_unreachable(rules: Iterable[Rule], roots: Iterable[str]) -> list[Rule]:
    """The rules reachable from ``roots``, in their original order.

    For formats (Lark, GBNF) whose conventions allow unused definitions; the IR itself refuses
    unreachable rules.
    """
    table = {rule.name: rule for rule in rules}
    seen = reachable_rules(table, roots)
    return [rule for rule in table.values() if rule.name in seen]

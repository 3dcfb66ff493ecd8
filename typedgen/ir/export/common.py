"""What the Lark and GBNF writers share: text checks, ``&``/``~`` removal, cleaning, names."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from typedgen.errors import GrammarError
from typedgen.ir.analysis import productive_rules
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
from typedgen.ir.passes.boolean import plain_regular
from typedgen.ir.passes.rewrite import prune_unreachable
from typedgen.ir.printer import _code_escape, _printable
from typedgen.ir.rules import Lexing, Rule

if TYPE_CHECKING:  # the grammar imports the exporters (Grammar.to_lark, to_gbnf)
    from typedgen.ir.grammar import Grammar

VOID = Alt(())
EPS = Lit(b"")
ALT, AND, SEQ, UNARY = range(4)
"""Precedence levels of the printed operators, loosest first."""
printable = _printable


def check_text(grammar: Grammar) -> None:
    """Refuse literals that are not UTF-8: lark and GBNF describe text, not bytes."""
    for rule in grammar.rules.values():
        for node in walk(rule.body):
            if isinstance(node, Lit):
                try:
                    node.data.decode("utf-8")
                except UnicodeDecodeError:
                    raise GrammarError(
                        f"rule {rule.name!r} has the literal {node.data!r}, which is not valid "
                        "UTF-8; lark and GBNF literals are text",
                        code="export-bytes",
                        origin=node.origin or rule.origin,
                        hint="only grammars over UTF-8 text can be exported",
                    ) from None


def without_boolean(rules: dict[str, Rule]) -> dict[str, Rule]:
    """Terminals with every ``&``/``~`` replaced by an equivalent plain expression."""

    def resolve(name: str) -> Expr:
        return rules[name].body

    out = dict(rules)
    for name, rule in rules.items():
        if not rule.lexical or not any(
            isinstance(n, Intersect | Complement) for n in walk(rule.body)
        ):
            continue

        def rewrite(e: Expr, rule: Rule = rule) -> Expr:
            if isinstance(e, Intersect | Complement):
                return plain_regular(e, resolve, rule=rule.name, origin=e.origin or rule.origin)
            if isinstance(e, Seq | Alt):
                return replace(e, items=tuple(rewrite(i) for i in e.items))
            if isinstance(e, Repeat):
                return replace(e, item=rewrite(e.item))
            return e

        out[name] = replace(rule, body=rewrite(rule.body))
    return out


def token_modes(grammar: Grammar) -> dict[Lexing, str]:
    """The lexing modes of the lexemes the parser sees, each with one terminal (or rule) using it.

    Lexemes are terminals used by rules, ignored, reserved or started from, and literals and
    classes written inside rules (which the compiler lexes freely).
    """
    rules = grammar.rules
    modes: dict[Lexing, str] = {}
    start = rules[grammar.start]
    if start.lexical:
        modes.setdefault(start.lexing, start.name)
    for rule in rules.values():
        if rule.lexical:
            continue
        for node in walk(rule.body):
            if isinstance(node, Ref) and rules[node.name].lexical:
                modes.setdefault(rules[node.name].lexing, node.name)
            elif isinstance(node, CharClass) or (isinstance(node, Lit) and node.data):
                modes.setdefault(Lexing.FREE, f"{rule.name} (a literal or class inside it)")
    for name in (*grammar.ignore, *reserved_of(grammar)):
        modes.setdefault(rules[name].lexing, name)
    return modes


def reserved_of(grammar: Grammar) -> tuple[str, ...]:
    return tuple(getattr(grammar, "reserved", ()))


def clean(e: Expr, void: set[str]) -> Expr:
    """Drop empty languages and empty strings: ``ε | x`` becomes ``x?``, ``%void`` disappears.

    Adjacent literals are *not* merged: inside rules each literal is its own lexeme.
    """
    match e:
        case Lit():
            return e
        case CharClass():
            return VOID if e.is_empty() else e
        case Ref():
            return VOID if e.name in void else e
        case Seq():
            items: list[Expr] = []
            for item in e.items:
                c = clean(item, void)
                if c == VOID:
                    return VOID
                if c == EPS:
                    continue
                items.extend(c.items if isinstance(c, Seq) else (c,))
            if not items:
                return EPS
            return items[0] if len(items) == 1 else Seq(tuple(items), origin=e.origin)
        case Alt():
            alts: list[Expr] = []
            has_eps = False
            for item in e.items:
                c = clean(item, void)
                if c == VOID:
                    continue
                if c == EPS:
                    has_eps = True
                    continue
                for part in c.items if isinstance(c, Alt) else (c,):
                    if part not in alts:
                        alts.append(part)
            if not alts:
                return EPS if has_eps else VOID
            core = alts[0] if len(alts) == 1 else Alt(tuple(alts), origin=e.origin)
            if has_eps:
                if isinstance(core, Repeat) and core.min <= 1:
                    return Repeat(core.item, 0, core.max, origin=e.origin)
                return Repeat(core, 0, 1, origin=e.origin)
            return core
        case Repeat():
            item = clean(e.item, void)
            if e.max == 0 or item == EPS:
                return EPS
            if item == VOID:
                return EPS if e.min == 0 else VOID
            if e.min == 1 and e.max == 1:
                return item
            if isinstance(item, Repeat) and item.min == 0 and item.max == 1 and e.min == 0:
                return Repeat(item.item, 0, e.max, origin=e.origin)
            return Repeat(item, e.min, e.max, origin=e.origin)
        case Intersect():
            parts = [clean(i, void) for i in e.items]
            if VOID in parts:
                return VOID
            return parts[0] if len(parts) == 1 else Intersect(tuple(parts), origin=e.origin)
        case Complement():
            return Complement(clean(e.item, void), origin=e.origin)
        case _:
            assert_never(e)


def cleaned(
    rules: dict[str, Rule], roots: Iterable[str], start: str | None
) -> tuple[dict[str, Rule], set[str]]:
    """Every body cleaned; rules that match nothing dropped with every use of them.

    Returns the kept rules (those reachable from ``start`` and ``roots``) and the dropped names;
    a ``start`` that matches nothing is an error.
    """
    void = set(rules) - productive_rules(rules)
    if start is not None and start in void:
        rule = rules[start]
        raise GrammarError(
            f"the start rule {start!r} matches nothing",
            code="empty-language",
            origin=rule.origin,
        )
    kept = [
        replace(rule, body=clean(rule.body, void))
        for name, rule in rules.items()
        if name not in void
    ]
    wanted = [n for n in (*([start] if start is not None else []), *roots) if n not in void]
    return {r.name: r for r in prune_unreachable(kept, wanted)}, void


class Names:
    """Collision-free names: the first taker of a name keeps it, later ones get a suffix."""

    def __init__(self, sep: str) -> None:
        self.sep = sep
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        name = base
        n = 2
        while name in self.used:
            name = f"{base}{self.sep}{n}"
            n += 1
        self.used.add(name)
        return name


# The canonical printer's escape of a code point (its notion of printable is above).
code = _code_escape


def header(notes: list[str], mark: str) -> str:
    """The notes as a comment block, wrapped at 99 columns."""
    out = []
    for note in notes:
        out.extend(textwrap.wrap(note, 97, break_long_words=False, break_on_hyphens=False))
    return "".join(f"{mark} {line}\n" for line in out)


def origin_text(grammar: Grammar) -> str:
    return f" from {grammar.origin}" if grammar.origin is not None else ""

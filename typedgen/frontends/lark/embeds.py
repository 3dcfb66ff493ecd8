"""Holes in a Lark grammar filled by whole grammars: one IR for a DSL that embeds other types.

``lark_grammar(text, embeds={"env": grammar})`` makes the name ``env`` a *hole*: whether the text
``%declare``s it, defines a placeholder for it, or only refers to it, its definition is replaced
by ``grammar`` (a JSON Schema's, a SQL dialect's, another Lark grammar's). The embedded rules are
renamed under the prefix ``env__`` and keep their own lexing modes, priorities and tree shapes;
the hole becomes a rule ``env ::= env__<start>``.

A lower-case hole is a rule and takes any grammar. An upper-case hole is a terminal: the embedded
grammar must then be regular (a ``Choice``, a ``Regex``): its rules become lexical and the hole
a terminal with the host grammar's lexing.

The IR has one set of ignored terminals. An embedded grammar's ignored terminals that the host
also ignores (the same pattern) are covered by the host's ``%ignore``; the others are written
out after every lexeme of the embedded rules (:func:`with_explicit_ignores`), so that they stay
inside the embedded part and do not change the host's language. The host's ``%ignore`` applies
inside the embedded part too (ignore whitespace only, if embedded JSON or SQL must stay valid).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from typedgen.errors import GrammarError
from typedgen.frontends.lark.loader import Def, iter_names
from typedgen.ir.grammar import DeferredCheck, Grammar, Lexing, Rule, TreeShape
from typedgen.ir.nodes import Alt, CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import prune_unreachable, simplify, transform

__all__ = [
    "Spliced",
    "is_terminal_name",
    "make_holes",
    "splice",
    "unused_embed",
    "with_explicit_ignores",
]

_NAME = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*")


def is_terminal_name(name: str) -> bool:
    """Lark's convention: upper-case names are terminals."""
    return name.lstrip("_")[:1].isupper()


def make_holes(defs: dict[str, Def], embeds: Iterable[str], source: str) -> None:
    """Turn each embedded name into a declared symbol (a hole), replacing any definition."""
    for name in embeds:
        if not _NAME.fullmatch(name) or name.startswith("__"):
            raise GrammarError(
                f"cannot embed into {name!r}: not a Lark rule or terminal name",
                code="embed-name",
                origin=Origin(source),
                hint="use a rule name (env) or a terminal name (ENV)",
            )
        is_term = is_terminal_name(name)
        old = defs.get(name)
        origin = old.origin if old is not None else _first_use(defs, name) or Origin(source)
        if old is not None and old.params:
            raise GrammarError(
                f"cannot embed into template {name!r}",
                code="embed-name",
                origin=old.origin,
                hint="embed into a plain rule and use it as the template's argument",
            )
        defs[name] = Def(name, is_term, None, (), "", old.priority if old else None, origin)


def _first_use(defs: Mapping[str, Def], name: str) -> Origin | None:
    for d in defs.values():
        if d.body is None:
            continue
        for ref in iter_names(d.body):
            if ref.name == name:
                return ref.origin
    return None


@dataclass
class Spliced:
    """The rules, reserved terminals and deferred checks an embedding adds."""

    rules: list[Rule] = field(default_factory=list)
    reserved: list[str] = field(default_factory=list)
    deferred: list[DeferredCheck] = field(default_factory=list)


def splice(
    name: str,
    hole: Def,
    sub: Grammar,
    *,
    lexing: Lexing,
    taken: set[str],
    host_ignore: Iterable[Expr],
) -> Spliced:
    """The rules that fill hole ``name`` with grammar ``sub`` (renamed under ``name__``)."""
    prefix = f"{name}__"
    mapping = {rule.name: prefix + rule.name for rule in sub}
    clash = sorted(set(mapping.values()) & taken)
    if clash:
        raise GrammarError(
            f"embedding into {name!r} needs the rule name {clash[0]!r}, which the grammar uses",
            code="embed-name-clash",
            origin=hole.origin,
            hint="rename that rule",
        )

    def fix(node: Expr) -> Expr:
        if isinstance(node, Ref) and node.name in mapping:
            return Ref(mapping[node.name], origin=node.origin)
        return node

    rules = [replace(r, name=mapping[r.name], body=transform(r.body, fix)) for r in sub]
    out = Spliced()
    own = list(host_ignore)
    explicit: list[str] = []
    for ign in sub.ignore:
        if transform(sub[ign].body, fix) in own:
            continue  # the host ignores the same text everywhere, the embedded part included
        if hole.is_term:
            raise GrammarError(
                f"the grammar embedded into terminal {name} ignores {ign}",
                code="embed-not-regular",
                origin=hole.origin,
                hint=f"embed it into a rule (a lower-case name such as {name.lower()})",
            )
        explicit.append(mapping[ign])
    if explicit:
        rules = with_explicit_ignores(rules, explicit)
    out.reserved = [mapping[n] for n in sub.reserved]
    out.deferred = [replace(check, path=f"{name}:{check.path}") for check in sub.deferred]
    entry = Ref(mapping[sub.start], origin=hole.origin)
    if hole.is_term:
        rules = [replace(r, lexical=True) for r in prune_unreachable(rules, [entry.name])]
        if out.reserved:
            raise GrammarError(
                f"the grammar embedded into terminal {name} reserves terminals; embed it into a"
                " rule instead",
                code="embed-not-regular",
                origin=hole.origin,
                hint=f"use a lower-case name ({name.lower()})",
            )
        hole_rule = Rule(
            name,
            entry,
            lexical=True,
            priority=hole.priority or 0,
            lexing=lexing,
            shape=TreeShape(filtered=name.startswith("_")),
            origin=hole.origin,
        )
        try:
            Grammar([hole_rule, *rules], name)
        except GrammarError as exc:
            raise GrammarError(
                f"terminal {name} must be regular, but the grammar embedded into it is not:"
                f" {exc.message}",
                code="embed-not-regular",
                origin=hole.origin,
                hint=f"embed it into a rule (a lower-case name such as {name.lower()}), or embed"
                " a Choice or a Regex",
            ) from exc
    else:
        hole_rule = Rule(
            name, entry, shape=TreeShape(inline=name.startswith("_")), origin=hole.origin
        )
    out.rules = [hole_rule, *rules]
    return out


def with_explicit_ignores(rules: list[Rule], ignored: list[str]) -> list[Rule]:
    """``rules`` with the ``ignored`` terminals written out after every lexeme.

    The IR's ``%ignore`` is global; an embedded grammar's ignored text (SQL's whitespace) must
    not leak into the host's own text, so it becomes explicit inside the embedded rules: a
    nullable rule ``<first ignored>__skip ::= (ignored)*`` follows every lexeme. (A named rule
    rather than an inline ``x*``: lark expands optional items of a sequence combinatorially.)
    """
    table = {rule.name: rule for rule in rules}
    skip_name = f"{ignored[0]}__skip"
    while skip_name in table:
        skip_name += "_"
    refs = tuple(Ref(name) for name in ignored)
    skip_rule = Rule(
        skip_name,
        Repeat(refs[0] if len(refs) == 1 else Alt(refs), 0, None),
        shape=TreeShape(inline=True),
        origin=table[ignored[0]].origin,
    )
    skip = Ref(skip_name)

    def rewrite(node: Expr) -> Expr:
        # Leaves only (``transform`` never revisits the sequences made here).
        if isinstance(node, Ref) and table[node.name].lexical and node.name not in ignored:
            return Seq((node, skip), origin=node.origin)
        if isinstance(node, Lit | CharClass) and node != Lit(b""):
            return Seq((node, skip), origin=node.origin)
        return node

    out = [
        rule if rule.lexical else replace(rule, body=simplify(transform(rule.body, rewrite)))
        for rule in rules
    ]
    return [*out, skip_rule]


def unused_embed(name: str, names: Iterable[str], origin: Origin) -> GrammarError:
    """The error for an embed whose name the grammar never uses."""
    close = difflib.get_close_matches(name, list(names), n=1)
    return GrammarError(
        f"{name!r} is embedded, but the grammar never uses it",
        code="unused-embed",
        origin=origin,
        hint=f"did you mean {close[0]!r}?" if close else "refer to it from a rule",
    )

"""Strings of a closed set of texts (DuckDB's date parts ``'day'``, regexp flags ``'im'``) as
terminals of their own.

Every terminal is lexed by longest match among all of them (as sqlglot's tokenizer cuts the
text), so a set of strings cannot be a rule over ``STRING``: each text is given a terminal that
outranks ``STRING`` on the same match, one terminal per set of roles its text plays (a text
that is both a part and a flag, ``'s'``, lexes one way), and wherever any string may go, these
terminals may go too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import RuleBuilder, alt
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Expr, Lit, Ref
from typedgen.ir.passes.rewrite import transform

__all__ = ["StringClassRules"]

_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""Texts written between single quotes as they are (no escape needed in any dialect)."""

_ANY_STRING = "string_value"
"""The rule that stands for ``STRING`` once classes exist: it or any class terminal."""


class StringClassRules(RuleBuilder):
    """Closed sets of strings, each a rule ``<role>_string`` over terminals of its own."""

    def _string_roles(self) -> dict[str, set[str]]:
        roles: dict[str, set[str]] = self.__dict__.setdefault("_string_class_texts", {})
        return roles

    def string_class(self, role: str, texts: Iterable[str]) -> Expr | None:
        """A string whose text is one of ``texts`` (without its quotes); ``None`` where none
        can be written so (the dialect quotes strings otherwise, or no text is a plain word)."""
        kept = {t for t in texts if _TEXT.fullmatch(t)}
        if not kept or "'" not in self.tables.string_quotes:
            return None
        self._string_roles().setdefault(role, set()).update(kept)
        return Ref(f"{role}_string")

    def with_string_classes(self, rules: list[Rule]) -> list[Rule]:
        """``rules`` with every ``STRING`` widened to the class terminals, plus the terminals
        and the ``<role>_string`` rules (nothing changes where no class was asked for)."""
        roles = self._string_roles()
        if not roles:
            return rules
        by_text: dict[str, set[str]] = {}
        for role, texts in roles.items():
            for text in texts:
                by_text.setdefault(text, set()).add(role)
        groups: dict[tuple[str, ...], list[str]] = {}
        for text, played in by_text.items():
            groups.setdefault(tuple(sorted(played)), []).append(text)
        terminals: list[Rule] = []
        members: dict[str, list[str]] = {role: [] for role in sorted(roles)}
        for i, (owners, words) in enumerate(sorted(groups.items())):
            name = f"STRING_CLASS_{i}"
            body = alt(*(Lit.text(f"'{t}'") for t in sorted(words)))
            terminals.append(basic_terminal(name, body, self.origin.at(name), priority=2))
            for role in owners:
                members[role].append(name)

        def widen(node: Expr) -> Expr:
            return Ref(_ANY_STRING) if isinstance(node, Ref) and node.name == "STRING" else node

        out = [r if r.lexical else replace(r, body=transform(r.body, widen)) for r in rules]
        for role, names in members.items():
            name = f"{role}_string"
            out.append(Rule(name, alt(*(Ref(n) for n in names)), origin=self.origin.at(name)))
        classes = alt(Ref("STRING"), *(Ref(t.name) for t in terminals))
        out.append(Rule(_ANY_STRING, classes, origin=self.origin.at(_ANY_STRING)))
        return out + terminals

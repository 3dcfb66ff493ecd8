"""Snowflake's semi-structured paths: ``v:a.b[0]:c::INT``, ``v:"b c"``, ``$1:a``, ``t.$1``.

sqlglot reads a path after any column-like operand (a column, a call, a parenthesised
expression) as a ``JSONExtract`` and writes it as ``GET_PATH(v, 'a.b[0].c')``, which reads back
as the same extraction without the marks of its spelling (``variant_extract``, a key's
``quoted``, a bracket's ``json_access``). :func:`same_tree` compares trees with those marks
aside (:func:`.trees.same_tree`), which is how the round-trip probes and the soundness tests
judge these spellings.
"""

from __future__ import annotations

import dataclasses

from typedgen.frontends.sql.lexicon import Role
from typedgen.frontends.sql.rules import RuleBuilder, alt, seq, star
from typedgen.ir.nodes import Expr, Ref

__all__ = ["SemistructuredRules"]


class SemistructuredRules(RuleBuilder):
    """The path after an operand, and the words a path key may be."""

    def variant_paths(self) -> list[Expr]:
        """``:key`` then ``.key``, ``[expr]`` or ``:key`` steps (a postfix of an operand)."""
        if not self.has("variant_path"):
            return []
        ref, punct = self.ref, self.punct
        key = ref("path_key")
        step = alt(
            seq(punct("."), key),
            seq(punct("["), ref("expr"), punct("]")),
            seq(punct(":"), key),
        )
        return [seq(punct(":"), key, star(step))]

    def path_key_rule(self) -> None:
        """``path_key``: any word sqlglot reads as a key (every word but ``NOT``, keywords
        such as ``FROM`` and ``SELECT`` included), or a quoted name."""
        if not self.has("variant_path"):
            return
        terminals: dict[str, bool] = {"IDENT": True}
        for word in sorted(self.lex.words):
            entry = self.lex.words[word]
            single = " " not in word and word.upper() != "NOT"
            if entry.keyword:
                if single:
                    terminals[self.lex.keyword_name(word)] = True
                continue
            role = self.lex.role(word)
            if dataclasses.replace(role, known_function=False) == Role():
                continue  # a reserved word (no terminal a rule may use)
            name = "W_" + role.tag()
            terminals[name] = terminals.get(name, True) and single
        keys: list[Expr] = [Ref(t) for t, ok in terminals.items() if ok]
        if self.tables.identifier_quotes:
            keys.append(Ref("QIDENT"))
        self.rule("path_key", alt(*keys))

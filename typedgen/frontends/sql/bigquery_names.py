"""BigQuery's own names and lexemes (each on where its probe in :mod:`.bigquery_names_probes`
round-trips and the dialect class includes it):

- dashed table names, ``FROM my-project.d.t``, ``FROM my-table`` (sqlglot's
  ``_parse_table_part`` joins the tokens glued to a dash into one name). The name is one
  *contextual* lexeme, alive only after ``FROM`` and ``JOIN`` (where the grammar offers it),
  so ``a-b`` elsewhere stays a subtraction; right after ``FROM`` in an expression
  (``EXTRACT(DAY FROM a-b)``) the subtraction needs a space. A glued ``,`` after the name
  would be read into it by sqlglot, so a dashed name starts a ``FROM`` without a comma list
  (``CROSS JOIN`` another one may follow);
- triple-quoted strings ``\"\"\"a"b\"\"\"`` and ``'''c'd'''`` (``Tokenizer.QUOTES``): the
  body has no run of three quotes and does not end in a quote;
- a number as the last part of a path, ``foo.bar.25``, ``t.144`` (sqlglot reads it as a
  quoted name and writes it back quoted: the same tree).
"""

from __future__ import annotations

from typedgen.frontends.sql.lexicon import WORD_HEAD, WORD_TAIL
from typedgen.frontends.sql.rules import RuleBuilder, alt, seq, star
from typedgen.ir.grammar import Lexing, Rule
from typedgen.ir.nodes import CharClass, Expr, Lit, Ref, Repeat

__all__ = ["BigqueryNameRules"]

_CONTROLS = "".join(chr(c) for c in range(32) if c != 9) + "\x7f"
_MAX_MEMBERS = 2
"""A dashed name heads at most ``project.dataset.table`` (sqlglot quotes a longer path)."""


class BigqueryNameRules(RuleBuilder):
    """Hooks for BigQuery's names and lexemes; each returns nothing where the dialect lacks it."""

    def bigquery_name_terminals(self) -> list[Rule]:
        """``DASHED_NAME``: ``word(-part)+`` (contextual: offered only after ``FROM``)."""
        if not self.has("dashed_table") or self.options.schema is not None:
            return []
        body = seq(WORD_HEAD, star(WORD_TAIL), Repeat(seq(Lit.text("-"), Repeat(WORD_TAIL, 1)), 1))
        origin = self.origin.at("DASHED_NAME")
        return [Rule("DASHED_NAME", body, lexical=True, lexing=Lexing.CONTEXTUAL, origin=origin)]

    def dashed_items(self, table_forms: Expr, join: Expr) -> list[Expr]:
        """``my-project.d.t [AS a] JOIN ...``: a dashed name then plain words (a quoted or
        reserved word after a part ending in digits is read another way), no comma list;
        ``CROSS JOIN`` another such name."""
        if not self.bigquery_name_terminals():
            return []
        member = seq(self.punct("."), Ref("IDENT"))
        dashed = seq(Ref("DASHED_NAME"), Repeat(member, 0, _MAX_MEMBERS), table_forms)
        joins = [join]
        if self.has("cross_join"):  # ... CROSS JOIN foo-bar, in the same comma-less FROM
            joins.append(seq(self.keyword("CROSS"), self.keyword("JOIN"), dashed))
        return [seq(dashed, star(alt(*joins)))]

    def triple_quoted_strings(self, backslash_escapes: bool) -> list[Expr]:
        """``\"\"\"...\"\"\"`` and ``'''...'''`` for each string quote the tokenizer also
        reads tripled."""
        if not self.has("triple_quoted"):
            return []
        forms: list[Expr] = []
        for q in self.tables.string_quotes:
            # Line breaks may go inside (sqlglot writes them back as \n).
            excluded = q + _CONTROLS.replace("\n", "") + ("\\" if backslash_escapes else "")
            unit: Expr = CharClass.of(excluded, negated=True)
            if backslash_escapes:
                unit = alt(unit, seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)))
            body = star(seq(Repeat(Lit.text(q), 0, 2), unit))
            forms.append(seq(Lit.text(q * 3), body, Lit.text(q * 3)))
        return forms

    def numeric_members(self) -> list[Expr]:
        """``.25``: a number as the last part of a table or column path."""
        if not self.has("numeric_path") or self.options.schema is not None:
            return []
        return [seq(self.punct("."), Ref("INTEGER"))]

    def numeric_paths(self, member: Expr, most: int) -> list[Expr]:
        """``ident (.member){0,most-1} .25``: paths ending in a number."""
        return [
            seq(self.ref("ident"), Repeat(member, 0, most - 1), last)
            for last in self.numeric_members()
        ]

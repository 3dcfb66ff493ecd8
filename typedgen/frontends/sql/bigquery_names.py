"""BigQuery's own names and lexemes (each on where its probe in :mod:`.bigquery_names_probes`
round-trips and the dialect class includes it):

- dashed table names, ``FROM my-project.d.t``, ``FROM my-table`` (sqlglot's
  ``_parse_table_part`` joins the tokens glued to a dash into one name). The name is one
  *contextual* lexeme, alive only after ``FROM`` and ``JOIN`` (where the grammar offers it),
  so ``a-b`` elsewhere stays a subtraction; right after ``FROM`` in an expression
  (``EXTRACT(DAY FROM a-b)``) the subtraction needs a space, and so does a ``--`` comment
  after a table's name (``FROM t --x``: the lexer does not back up). A glued ``,`` after the name
  would be read into it by sqlglot, so a dashed name starts a ``FROM`` without a comma list
  (``CROSS JOIN`` another one may follow);
- triple-quoted strings ``\"\"\"a"b\"\"\"`` and ``'''c'd'''`` (``Tokenizer.QUOTES``): the
  body has no run of three quotes and does not end in a quote;
- a number as the last part of a path, ``foo.bar.25``, ``t.144``, ``foo.bar.25x`` (sqlglot
  reads it as a quoted name and writes it back quoted: the same tree);
- a user function called by its quoted path, `` `p.d.f`(a).* ``;
- a quoted name with a dot before a colon (`` `a.com:p.d.t` ``, a domain-scoped project) is
  a table's name only.
"""

from __future__ import annotations

from typedgen.frontends.sql.lexicon import WORD_HEAD, WORD_TAIL, basic_terminal
from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.grammar import Lexing, Rule
from typedgen.ir.nodes import CharClass, Expr, Lit, Ref, Repeat

__all__ = ["BigqueryNameRules"]

_CONTROLS = "".join(chr(c) for c in range(32) if c != 9) + "\x7f"
_DIGIT = CharClass(((ord("0"), ord("9")),))
_MAX_MEMBERS = 2
"""A dashed name heads at most ``project.dataset.table`` (sqlglot quotes a longer path)."""


class BigqueryNameRules(RuleBuilder):
    """Hooks for BigQuery's names and lexemes; each returns nothing where the dialect lacks it."""

    def bigquery_name_terminals(self) -> list[Rule]:
        """``DASHED_NAME``: ``word(-part)+`` (contextual: offered only after ``FROM``)."""
        out: list[Rule] = []
        if self.numeric_members():
            # 25x: digits glued to a word, one name part for sqlglot (it outranks the reserved
            # terminal of the same text, and yields to a decimal's 25e3 or a hex 0x1f).
            body = seq(Repeat(_DIGIT, 1), WORD_HEAD, star(WORD_TAIL))
            out.append(basic_terminal("NUMBER_WORD", body, self.origin.at("NUMBER_WORD")))
        if self.has("domain_project") and self.tables.identifier_quotes:
            # `a.com:p.d.t`: a quoted name with a dot before a colon, which sqlglot reads as
            # a domain-scoped project; it outranks QIDENT, so it is a table's name only (as a
            # column's, sqlglot writes it back as ``.`a.com:p.d.t`, another tree).
            for i, (open_, close) in enumerate(self.tables.identifier_quotes):
                # A doubled quote is one escaped quote for sqlglot (`a.b``c:d` is one name).
                char = CharClass.of(open_ + close + "\\\t" + _CONTROLS, negated=True)
                unit = alt(char, Lit.text(close * 2))
                body = seq(star(unit), Lit.text("."), star(unit), Lit.text(":"), star(unit))
                quoted = seq(Lit.text(open_), body, Lit.text(close))
                out.append(basic_terminal(f"QDOMAIN_{i}", quoted, self.origin.at("QDOMAIN"), 2))
        if self.quoted_calls():
            # `p.d.f`(: a quoted path and the parenthesis, one contextual lexeme (alive only
            # where a value may start, where a quoted name never takes a glued "(" else).
            part = Repeat(CharClass.of("`.:\\\t" + _CONTROLS, negated=True), 1)
            path = seq(part, Repeat(seq(Lit.text("."), part), 1))
            body = seq(Lit.text("`"), path, Lit.text("`("))
            origin = self.origin.at("QCALL_NAME")
            out.append(
                Rule("QCALL_NAME", body, lexical=True, lexing=Lexing.CONTEXTUAL, origin=origin)
            )
        if not self.has("dashed_table") or self.options.schema is not None:
            return out
        body = seq(WORD_HEAD, star(WORD_TAIL), Repeat(seq(Lit.text("-"), Repeat(WORD_TAIL, 1)), 1))
        origin = self.origin.at("DASHED_NAME")
        out.append(Rule("DASHED_NAME", body, lexical=True, lexing=Lexing.CONTEXTUAL, origin=origin))
        return out

    def dashed_items(self, join: Expr) -> list[Expr]:
        """``my-project.d.t [[AS] a] JOIN ...``: a dashed name then plain words (a quoted or
        reserved word after a part ending in digits is read another way), no comma list;
        ``CROSS JOIN`` another such name. A quoted alias needs ``AS`` (sqlglot's tokenizer
        fails on a quoted name glued to the dashed one)."""
        if not self.has("dashed_table") or self.options.schema is not None:
            return []
        member = seq(self.punct("."), Ref("IDENT"))
        alias = opt(alt(seq(self.keyword("AS"), self.ref("ident")), Ref("IDENT")))
        dashed = seq(Ref("DASHED_NAME"), Repeat(member, 0, _MAX_MEMBERS), alias)
        joins = [join]
        if self.has("cross_join"):  # ... CROSS JOIN foo-bar, in the same comma-less FROM
            joins.append(seq(self.keyword("CROSS"), self.keyword("JOIN"), dashed))
        return [seq(dashed, star(alt(*joins)))]

    def quoted_calls(self) -> list[Expr]:
        """`` `p.d.f`(a, 1) ``, `` `p.d.f`(a).* ``: a user function called by its quoted path
        (a name with a dot is never one sqlglot knows, so it stays an anonymous call); only
        with ``functions="any"`` (the names are the user's)."""
        if not (self.options.anonymous_calls and self.has("quoted_call")):
            return []
        args = opt(self.separated(self.ref("expr")))
        star_fields = opt(seq(self.punct("."), self.punct("*")))
        return [seq(Ref("QCALL_NAME"), args, self.punct(")"), star_fields)]

    def triple_quoted_strings(self, backslash_escapes: bool) -> list[Expr]:
        """``\"\"\"...\"\"\"`` and ``'''...'''`` for each string quote."""
        if not self.has("triple_quoted"):
            return []
        return [
            seq(Lit.text(q * 3), _triple_body(q, backslash_escapes), Lit.text(q * 3))
            for q in self.tables.string_quotes
        ]

    def triple_prefixed(self, kind: str, head: Expr, closer: str) -> list[Expr]:
        """``r\"\"\"a\\"b\"\"\"``: a raw string in triple quotes (``head`` is ``r"``);
        a backslash keeps the quote after it from closing the string, and stays in it."""
        if not (
            self.has("triple_quoted") and kind == "raw" and closer in self.tables.string_quotes
        ):
            return []
        return [seq(head, Lit.text(closer * 2), _triple_body(closer, True), Lit.text(closer * 3))]

    def numeric_members(self) -> list[Expr]:
        """``.25``, ``.25x``: a number (glued to a word or not) as the last part of a table
        or column path."""
        if not self.has("numeric_path") or self.options.schema is not None:
            return []
        return [seq(self.punct("."), alt(Ref("INTEGER"), Ref("NUMBER_WORD")))]

    def bigquery_table_names(self, member: Expr) -> list[Expr]:
        """Table names beyond ``a.b.c``: ``a.b.25`` and `` `a.com:p.d.t` ``."""
        out = self.numeric_paths(member, 3)
        if self.has("domain_project") and self.tables.identifier_quotes:
            out += [Ref(f"QDOMAIN_{i}") for i in range(len(self.tables.identifier_quotes))]
        return out

    def numeric_paths(self, member: Expr, most: int) -> list[Expr]:
        """``ident (.member){0,most-1} .25``: paths ending in a number."""
        return [
            seq(self.ref("ident"), Repeat(member, 0, most - 1), last)
            for last in self.numeric_members()
        ]


def _triple_body(q: str, backslash_escapes: bool) -> Expr:
    """No run of three ``q`` inside and no ``q`` last; line breaks may go inside (sqlglot
    writes them back as ``\\n``)."""
    excluded = q + _CONTROLS.replace("\n", "") + ("\\" if backslash_escapes else "")
    unit: Expr = CharClass.of(excluded, negated=True)
    if backslash_escapes:
        unit = alt(unit, seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)))
    return star(seq(Repeat(Lit.text(q), 0, 2), unit))

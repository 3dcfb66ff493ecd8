"""PostgreSQL's and MySQL's own constructs (issue 15, sixth round), each on where its probe in
:mod:`.postgres_mysql_probes` holds: ``TRIM(LEADING x)`` without ``FROM``, the distance
operators ``<->`` and ``<<->>``, the range adjacency ``-|-`` and psycopg's ``%(name)s``
placeholders (with ``placeholders=True`` only)."""

from __future__ import annotations

import functools

from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import RuleBuilder, alt, empty, opt, seq, star
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import CharClass, Complement, Expr, Intersect, Lit, Ref, Repeat

__all__ = ["PgMysqlRules", "placeholder_name_refusals"]

_PCT = "PCT_PARAM"
_HEAD = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_"))))
_TAIL = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_")), (48, 57)))


@functools.cache
def placeholder_name_refusals(dialect: str) -> tuple[str, ...]:
    """The keywords of the dialect's tokenizer that sqlglot does not read back as the name of a
    ``%(name)s`` placeholder (PostgreSQL: ``NOT``, ``SELECT``): one probe per keyword whose
    token the parser does not take as a name (``ID_VAR_TOKENS``; the others all read back)."""
    import logging

    import sqlglot
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.errors import SqlglotError

    found = Dialect.get_or_raise(dialect)
    tok, names = found.tokenizer_class, found.parser_class.ID_VAR_TOKENS
    words = sorted(
        w
        for w, token in tok.KEYWORDS.items()
        if w[:1].isalpha() and w.replace("_", "").isalnum() and token not in names
    )
    refused = []
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        for word in words:
            text = f"SELECT %({word.lower()})s"
            try:
                tree = sqlglot.parse_one(text, read=dialect)
                again = tree.sql(dialect=dialect)
                ok = again == text and sqlglot.parse_one(again, read=dialect) == tree
            except (SqlglotError, ValueError, TypeError, AttributeError, KeyError, IndexError):
                ok = False
            if not ok:
                refused.append(word)
    finally:
        logger.setLevel(level)
    return tuple(refused)


def _caseless(word: str) -> Expr:
    return seq(*(CharClass.of(c.upper() + c.lower()) if c.isalpha() else Lit.text(c) for c in word))


class PgMysqlRules(RuleBuilder):
    """PostgreSQL's and MySQL's forms, hooked into the expression and terminal families."""

    def trim_side_forms(self) -> list[Expr]:
        """``TRIM(LEADING x)`` / ``TRIM(TRAILING x)`` (PostgreSQL; written ``LTRIM(x)`` and
        ``RTRIM(x)``, the same tree). ``TRIM(BOTH x)`` comes back as ``TRIM(x)``, another tree,
        and is refused."""
        if not self.has("trim_side_only"):
            return []
        return [seq(self.keyword(word), self.ref("expr")) for word in ("LEADING", "TRAILING")]

    def distance_operators(self) -> list[Expr]:
        """``a <-> b`` and ``a <<->> b`` at the level of ``*`` (sqlglot's ``FACTOR``)."""
        if not self.has("distance_ops"):
            return []
        return [self.punct("<->"), self.punct("<<->>")]

    def pg_mysql_predicates(self) -> list[tuple[str, Expr]]:
        """Range predicates: PostgreSQL's ``a -|- b`` (ranges adjacent)."""
        if not self.has("adjacent_op"):
            return []
        return [("-|-", seq(self.punct("-|-"), self.ref("bitwise")))]

    def typed_columns(self) -> Expr:
        """``(a INT, b TEXT)``: a column definition list (each column with its type)."""
        column = seq(self.ref("ident"), self.ref("data_type"))
        return self.parens(self.separated(column))

    def function_alias_columns(self, columns: Expr) -> Expr:
        """What may follow a table function's alias: its columns, typed where PostgreSQL's
        column definition lists round-trip (``f(z) AS y(a INT)``)."""
        if self.has("function_column_types") and self.has_types():
            return alt(columns, self.typed_columns())
        return columns

    def rows_from_functions(self) -> Expr:
        """A function inside ``ROWS FROM (...)``, with ``AS x(b TEXT)`` where it round-trips."""
        call = self.ref("function_call")
        if not (self.has("rows_from_column_types") and self.has_types()):
            return call
        return seq(call, opt(seq(self.keyword("AS"), self.ref("ident"), self.typed_columns())))

    def lateral_column_forms(self) -> list[Expr]:
        """``LATERAL f(x) AS s(a, b)``: a lateral function's columns named (where a plain
        table function's may be: not in Oracle, which names no alias's columns)."""
        wanted = ("lateral_function_columns", "lateral_function", "table_function_columns")
        if not all(self.has(feature) for feature in wanted):
            return []
        columns = self.function_alias_columns(self.parens(self.separated(self.ref("ident"))))
        alias = seq(self.keyword("AS"), self.ref("ident"), columns)
        return [seq(self.keyword("LATERAL"), self.ref("table_call"), alias)]

    def sounds_like_tail(self) -> Expr:
        """``IS [NOT] NULL`` tests after MySQL's ``a SOUNDS LIKE b`` (only those: sqlglot
        reads ``a SOUNDS LIKE b IN (1)`` as another tree)."""
        if not self.has("sounds_like_is"):
            return empty()
        kw = self.keyword
        return star(seq(kw("IS"), opt(kw("NOT")), kw("NULL")))

    def has_types(self) -> bool:
        raise NotImplementedError  # pragma: no cover - ExpressionRules

    def pct_placeholders(self) -> list[Expr]:
        """psycopg's ``%(name)s`` (one lexeme here; with ``placeholders=True`` only)."""
        if not (self.options.placeholders and self.has("pct_placeholder")):
            return []
        self.params_used.add(_PCT)
        return [Ref(_PCT)]

    def _pct_name(self) -> Expr:
        word = seq(_HEAD, star(_TAIL))
        refused = placeholder_name_refusals(self.tables.name)
        if not refused:
            return word
        return Intersect((word, Complement(alt(*(_caseless(w) for w in refused)))))

    def pg_mysql_terminals(self) -> list[Rule]:
        """The ``%(name)s`` terminal, where a placeholder uses it."""
        if _PCT not in self.params_used:
            return []
        body = seq(Lit.text("%("), self._pct_name(), Lit.text(")s"))
        return [basic_terminal(_PCT, body, self.origin.at(_PCT), 2)]

    def pg_mysql_reserved(self) -> list[Rule]:
        """``%(name)sx`` is one placeholder then the alias ``sx`` for sqlglot: refused."""
        if _PCT not in self.params_used:
            return []
        name = seq(_HEAD, star(_TAIL))
        body = seq(Lit.text("%("), name, Lit.text(")s"), Repeat(_TAIL, 1))
        return [basic_terminal("RESERVED_GLUED_PCT", body, self.origin.at(_PCT), 3)]

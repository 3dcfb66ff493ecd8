"""T-SQL's and Oracle's own clause forms, each on where its probe round-trips
(:mod:`.tsql_oracle_probes`) and the dialect class includes it.

T-SQL: ``#temp`` / ``##temp`` tables, ``WITH (INDEX(i))`` hints, ``OPTION(...)`` with sqlglot's
own option table, ``FOR BROWSE``, ``SELECT a = 1`` aliases, ``CONVERT(type, x[, style])``.
Oracle: interval expressions ``(a - b) DAY(9) TO SECOND(3)``, ``PRIOR a`` as a value,
``ORDER SIBLINGS BY``, ``UNPIVOT INCLUDE NULLS``, pivot aliases without ``AS``, a pivot after
joins.
"""

from __future__ import annotations

from typedgen.frontends.sql.identifiers import word_tail
from typedgen.frontends.sql.lexicon import WORD_HEAD, basic_terminal
from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Expr, Lit, Ref, Repeat

__all__ = ["TsqlOracleRules"]

_SPANS: tuple[tuple[str, str], ...] = (
    ("YEAR", "MONTH"),
    ("DAY", "HOUR"),
    ("DAY", "MINUTE"),
    ("DAY", "SECOND"),
    ("HOUR", "MINUTE"),
    ("HOUR", "SECOND"),
    ("MINUTE", "SECOND"),
)
"""Oracle's interval spans (``unit TO unit``), from the larger unit to the smaller."""


def _tsql_options() -> dict[str, tuple[tuple[str, ...], ...]]:
    """sqlglot's T-SQL query options, each with the word sequences that may follow it."""
    from sqlglot.parsers import tsql

    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for name, follows in tsql.OPTIONS.items():
        out[name] = tuple((f,) if isinstance(f, str) else tuple(f) for f in follows)
    return out


class TsqlOracleRules(RuleBuilder):
    """The T-SQL and Oracle constructs the other clause families hook in."""

    # -- T-SQL -----------------------------------------------------------------------------
    def temp_terminals(self) -> list[Rule]:
        """``#t`` (local) and ``##t`` (global) temporary table names: one lexeme here, as
        sqlglot reads ``#`` glued to a name."""
        if not self.has("temp_table"):
            return []
        body = seq(Repeat(Lit.text("#"), 1, 2), WORD_HEAD, star(word_tail(self.tables.name)))
        return [basic_terminal("TEMP_NAME", body, self.origin.at("TEMP_NAME"), 2)]

    def more_table_names(self) -> list[Expr]:
        """Table names beyond ``[db.]s.t``: T-SQL's ``#t``, ``##t`` and ``db..t`` (the
        database's default schema); none with a schema (a temporary table is in none)."""
        if self.options.schema is not None:
            return []
        out: list[Expr] = []
        if self.has("temp_table"):
            out.append(Ref("TEMP_NAME"))
        if self.has("table_default_schema"):
            dot = self.punct(".")
            out.append(seq(self.ref("ident"), dot, dot, self.ref("member_name")))
        return out

    def temp_columns(self) -> list[Expr]:
        """Column references qualified by a temporary table: ``#t.a``."""
        if not self.has("temp_table") or self.options.schema is not None:
            return []
        member = seq(self.punct("."), self.ref("member_name"))
        return [seq(Ref("TEMP_NAME"), member)]

    def hint_items(self) -> list[Expr]:
        """Table hints beyond names: ``INDEX(i, j)`` inside ``WITH (...)``."""
        if not self.has("table_hint_index"):
            return []
        return [seq(self.keyword("INDEX"), self.parens(self.separated(self.ref("ident"))))]

    def query_options(self) -> Expr | None:
        """T-SQL's ``OPTION(LABEL = 'x', MAXDOP 1, HASH JOIN)``, from sqlglot's option table:
        an option followed by its words, or by a value (``=`` where sqlglot writes one)."""
        if not self.has("query_option"):
            return None
        from sqlglot.parsers.tsql import OPTIONS_THAT_REQUIRE_EQUAL

        kw = self.keyword
        value = alt(Ref("INTEGER"), Ref("STRING"))
        forms: list[Expr] = []
        for name, follows in sorted(_tsql_options().items()):
            if follows:
                forms.append(seq(kw(name), alt(*(kw(*words) for words in follows))))
            elif name in OPTIONS_THAT_REQUIRE_EQUAL:
                forms.append(seq(kw(name), self.punct("="), value))
            else:
                forms.append(seq(kw(name), opt(Ref("INTEGER"))))
        return seq(kw("OPTION"), self.parens(self.separated(alt(*forms))))

    def for_browse(self) -> list[Expr]:
        return [self.keyword("FOR", "BROWSE")] if self.has("for_browse") else []

    def assign_aliases(self) -> list[Expr]:
        """T-SQL's ``SELECT a = 1``: sqlglot reads it as ``1 AS a``."""
        if not self.has("assign_alias"):
            return []
        return [seq(self.ref("column_alias"), self.punct("="), self.ref("expr"))]

    def length_types(self) -> list[Expr]:
        """Character and binary types with T-SQL's ``VARCHAR(MAX)`` or Oracle's
        ``VARCHAR2(10 BYTE)`` / ``CHAR(2 CHAR)`` length (types that take one length). The
        first call, before the lexicon is built, registers the words and makes the rule."""
        if "length_type" in self.rules:
            return [self.ref("length_type")]
        kw = self.keyword
        lengths: list[Expr] = []
        if self.has("type_max"):
            lengths.append(kw("MAX"))
        if self.has("type_length_unit"):
            lengths.append(seq(Ref("INTEGER"), alt(kw("BYTE"), kw("CHAR"))))
        words = [
            word
            for word, params in sorted(self.tables.types.items())
            if 1 in params
            and ("CHAR" in word or "BINARY" in word)
            and " " not in word
            and word not in self.options.exclude_types
        ]
        if not lengths or not words:
            return []
        body = seq(alt(*(kw(w) for w in words)), self.parens(alt(*lengths)))
        return [self.rule("length_type", body)]

    # -- Oracle ----------------------------------------------------------------------------
    def interval_spans(self) -> list[Expr]:
        """``(a - b) DAY(9) TO SECOND(3)``: a parenthesised value as an interval."""
        if not self.has("interval_span"):
            return []
        kw = self.keyword
        precision = opt(self.parens(Ref("INTEGER")))
        spans = [
            seq(kw(first), precision, kw("TO"), kw(last), precision if last == "SECOND" else seq())
            for first, last in _SPANS
        ]
        return [seq(self.parens(self.ref("expr")), alt(*spans))]

    def tsql_oracle_primaries(self) -> list[Expr]:
        """Values: Oracle's ``PRIOR a``, ``CONNECT_BY_ROOT a``, ``DBMS_RANDOM.VALUE()`` and
        interval spans, T-SQL's ``CONVERT(type, x)``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = self.interval_spans()
        if self.has("scalar_subquery_order"):  # ORDER BY in a value's subquery
            out.append(self.parens(ref("ordered_query")))
        if self.has("prior_value"):
            out.append(seq(kw("PRIOR"), ref("bitwise")))
        if self.has("method_call"):
            # n.c.VALUE('x', 'float'), DBMS_LOB.GETLENGTH(a): sqlglot reads the word after the
            # last dot as a call of its own whatever it is (an anonymous call).
            dot = self.punct(".")
            # The first name a plain word: Oracle's DBMS_RANDOM.VALUE(1) is its Rand (which
            # drops the 1), not a call.
            # A date part (N, D, M: keywords where EXTRACT takes them) is still a plain word.
            words = [Ref("IDENT")]
            words += [
                Ref(self.lex.keyword_name(unit))
                for unit in self.tables.extract_units
                if unit.isalpha() and unit in self.lex.words and self.lex.role(unit).ident
            ]
            name = seq(alt(*words), dot, Repeat(seq(ref("member_name"), dot), 0, 2))
            args = self.parens(opt(self.separated(ref("expr"))))
            out.append(self.rule("method_call", seq(name, ref("member_name"), args)))
        out += self.json_objects()
        if self.has("connect_by_root"):  # the root's value of a column, in a hierarchy
            out.append(seq(kw("CONNECT_BY_ROOT"), ref("column_ref")))
        if self.has("dbms_random"):
            # DBMS_RANDOM.VALUE() or (low, high): sqlglot's Rand (one bound it would drop).
            bounds = opt(seq(ref("expr"), self.punct(","), ref("expr")))
            random = seq(kw("DBMS_RANDOM"), self.punct("."), kw("VALUE"))
            out.append(seq(random, self.parens(bounds)))
        types = bool(set(self.tables.types) - self.options.exclude_types)
        if self.has("convert_type") and types and self.offers("CONVERT"):
            style = opt(seq(self.punct(","), Ref("INTEGER")))
            args = self.parens(ref("data_type"), self.punct(","), ref("expr"), style)
            out.append(seq(kw("CONVERT"), args))
        return out

    def json_objects(self) -> list[Expr]:
        """Oracle's ``JSON_OBJECT('a': b, KEY c VALUE d FORMAT JSON [NULL|ABSENT ON NULL]
        [RETURNING type])`` and ``JSON_OBJECTAGG(KEY a VALUE b)`` (written ``a: b``)."""
        if not self.has("json_object"):
            return []
        kw, ref = self.keyword, self.ref
        key = alt(Ref("STRING"), ref("column_ref"))
        pair = seq(
            opt(kw("KEY")),
            key,
            alt(self.punct(":"), kw("VALUE")),
            ref("bitwise"),
            opt(kw("FORMAT", "JSON")),
        )
        on_null = opt(alt(kw("NULL", "ON", "NULL"), kw("ABSENT", "ON", "NULL")))
        returning = opt(seq(kw("RETURNING"), ref("data_type")))
        out: list[Expr] = []
        for word, pairs in (("JSON_OBJECT", self.separated(pair)), ("JSON_OBJECTAGG", pair)):
            if self.offers(word):
                out.append(seq(kw(word), self.parens(pairs, on_null, returning)))
        return out

    def order_phrases(self) -> list[Expr]:
        """``ORDER SIBLINGS BY`` (Oracle's hierarchical order) beside ``ORDER BY``."""
        if not self.has("order_siblings"):
            return []
        return [self.phrase("ORDER", "SIBLINGS", "BY")]

    def unpivot_nulls(self) -> Expr:
        """``UNPIVOT INCLUDE NULLS (...)`` / ``EXCLUDE NULLS``."""
        if not self.has("unpivot_nulls"):
            return seq()
        return opt(alt(self.keyword("INCLUDE", "NULLS"), self.keyword("EXCLUDE", "NULLS")))

    def pivot_alias(self, kind: str) -> Expr | None:
        """The alias after ``PIVOT(...)`` / ``UNPIVOT(...)`` where only a bare one comes back
        (Oracle writes ``AS p`` as ``p``), or None."""
        if not self.has(f"{kind}_alias_bare"):
            return None
        return opt(seq(opt(self.keyword("AS")), self.ref("ident")))

"""Constructs one database family has, each on where its probe round-trips (issue 15, fifth
round): Spark's script ``TRANSFORM ... USING``, select items named ``AS (a, b)``, ``VALUES``
as a bare table, ``MINUS``; lambdas as call arguments live with the calls (:mod:`.calls`)."""

from __future__ import annotations

from typedgen.frontends.sql.postgres_mysql import PgMysqlRules
from typedgen.frontends.sql.rules import alt, empty, opt, seq
from typedgen.ir.nodes import Expr, Ref

__all__ = ["VendorRules"]


class VendorRules(PgMysqlRules):
    """Select-list, alias and FROM forms of one dialect family."""

    def select_values(self) -> list[Expr]:
        """Select items besides ``expr [alias]``: Hive's and Spark's ``TRANSFORM(a, b) USING
        'cmd' [AS (x INT, y)]`` (the script's output columns, each optionally typed)."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("transform_using") and self.has("transform_using_bare"):
            column: Expr = ref("ident")
            if set(self.tables.types) - self.options.exclude_types:
                column = seq(column, opt(ref("data_type")))
            columns = seq(kw("AS"), self.parens(self.separated(column)))
            args = self.parens(self.separated(ref("expr")))
            out.append(seq(kw("TRANSFORM"), args, kw("USING"), Ref("STRING"), opt(columns)))
        if self.has("assign_variable") and self.has("at_variable") and self.options.placeholders:
            # MySQL's SELECT @a := COUNT(*): a user variable set (variables are parameters,
            # on only with placeholders=True).
            self.params_used.add("AT_PARAM")
            value = seq(Ref("AT_PARAM"), self.punct(":="), ref("expr"), opt(ref("alias")))
            out.append(value)
        return out

    def alias_forms(self) -> list[Expr]:
        """Column aliases besides ``[AS] name``: ``POSEXPLODE(x) AS (a, b)`` (Spark names a
        generator's columns so)."""
        if not self.has("alias_columns"):
            return []
        names = self.parens(self.separated(self.ref("ident")))
        return [seq(self.keyword("AS"), names)]

    def vendor_tables(self, name_alias: Expr, columns: Expr) -> list[Expr]:
        """Tables of one dialect family: Spark's ``FROM VALUES (1, 2), (3, 4) [AS t(a, b)]``
        (rows without parentheses around the whole; ``VALUES 1`` comes back as another
        tree), PostgreSQL's ``ROWS FROM (f(a), g(b)) [WITH ORDINALITY] [AS x(a, b)]`` and
        ``ONLY t`` (no descendant tables)."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        alias: Expr = seq(kw("AS"), ref("ident"))
        if self.has("table_alias_columns"):
            alias = seq(alias, opt(columns))
        if self.has("values_bare"):
            rows = self.separated(self.parens(self.separated(ref("expr"))))
            tail = opt(alias) if self.has("values_bare_alias") else empty()
            out.append(seq(kw("VALUES"), rows, tail))
        if self.has("rows_from") and self.any_calls():
            functions = self.parens(self.separated(self.rows_from_functions()))
            ordinality = opt(kw("WITH", "ORDINALITY"))
            rows_alias = alias
            if self.has("rows_from_column_types") and self.has_types():
                rows_alias = alt(alias, seq(kw("AS"), ref("ident"), self.typed_columns()))
            out.append(seq(kw("ROWS", "FROM"), functions, ordinality, opt(rows_alias)))
        if self.has("table_variable") and self.has("at_variable") and self.options.placeholders:
            # T-SQL: FROM @v, a table variable (variables are parameters: placeholders only)
            self.params_used.add("AT_PARAM")
            out.append(seq(Ref("AT_PARAM"), opt(name_alias)))
        if self.has("from_only"):
            out.append(seq(kw("ONLY"), ref("table_name"), opt(name_alias)))
        return out

    def vendor_conditions(self) -> list[Expr]:
        """Whole conditions (before ``AND``/``OR`` only): MySQL's ``a SOUNDS LIKE b``, which
        sqlglot writes as ``SOUNDEX(a) = SOUNDEX(b)`` (the same tree), so it may not be an
        operand of ``=`` (``c = SOUNDEX(a) = SOUNDEX(b)`` groups otherwise)."""
        ref, kw = self.ref, self.keyword
        out: list[Expr] = []
        if self.has("sounds_like"):
            sounds = seq(ref("bitwise"), kw("SOUNDS", "LIKE"), ref("bitwise"))
            out.append(seq(sounds, self.sounds_like_tail()))
        if self.has("overlaps"):
            # PostgreSQL: (start, end) OVERLAPS (start, end), two periods.
            period = self.parens(ref("expr"), self.punct(","), ref("expr"))
            out.append(seq(period, kw("OVERLAPS"), period))
        return out

    def vendor_predicates(self) -> list[tuple[str, Expr]]:
        """Range predicates, each with the word sqlglot's ``RANGE_PARSERS`` knows it by:
        MySQL's ``a MEMBER OF(json_array)``."""
        out: list[tuple[str, Expr]] = []
        if self.has("member_of"):
            member = seq(self.phrase("MEMBER", "OF"), self.parens(self.ref("expr")))
            out.append(("MEMBER OF", member))
        if self.has("jsonb_key_ops"):  # PostgreSQL: a ?| b, a ?& b, a @? '$.path'
            out += [(sym, seq(self.punct(sym), self.ref("bitwise"))) for sym in ("?|", "?&", "@?")]
        return out

    def vendor_primaries(self) -> list[Expr]:
        """Calls with syntax of their own: MySQL's ``CHAR(65, 66 USING utf8)``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("current_schema"):
            out.append(kw("CURRENT_SCHEMA"))
        if self.has("substring_for") and self.offers("SUBSTRING"):  # SUBSTRING(a FOR 2)
            out.append(seq(kw("SUBSTRING"), self.parens(ref("expr"), kw("FOR"), ref("expr"))))
        for feature, word in (("char_using", "CHAR"), ("chr_using", "CHR")):
            if self.has(feature) and self.offers(word):  # CHAR(65 USING utf8), CHR(...)
                charset = alt(ref("ident"), kw("BINARY")) if word == "CHAR" else ref("ident")
                args = seq(self.separated(ref("expr")), kw("USING"), charset)
                out.append(seq(kw(word), self.parens(args)))
        if self.has("systimestamp"):
            out.append(kw("SYSTIMESTAMP"))
        if self.has("next_value_for"):
            # T-SQL's and Oracle's sequences: NEXT VALUE FOR db.s.seq [OVER (ORDER BY a)]
            over = opt(seq(kw("OVER"), self.parens(ref("order_by"))))
            out.append(seq(kw("NEXT", "VALUE", "FOR"), ref("column_ref"), over))
        if self.has("date_add_interval") and self.has("interval") and self.tables.interval_units:
            # MySQL's DATE_ADD(a, INTERVAL n DAY) / DATE_SUB(...): only with an interval.
            amounts: list[Expr] = [Ref("STRING")]
            if self.has("interval_number"):
                amounts.append(Ref("INTEGER"))
            if self.has("interval_column"):
                amounts.append(ref("column_ref"))
            amounts += self.interval_terms()  # DATE_ADD(a, INTERVAL 2 * 2 MONTH)
            units = alt(*(kw(u) for u in self.tables.interval_units))
            interval = seq(kw("INTERVAL"), alt(*amounts), units)
            args = self.parens(ref("expr"), self.punct(","), interval)
            out += [seq(kw(w), args) for w in ("DATE_ADD", "DATE_SUB") if self.offers(w)]
        if self.has("iif") and self.offers("IIF"):  # T-SQL: IIF(condition, a, b)
            args = seq(ref("condition"), self.punct(","), ref("expr"), self.punct(","), ref("expr"))
            out.append(seq(kw("IIF"), self.parens(args)))
        if self.has("datepart") and self.offers("DATEPART") and self.tables.extract_units:
            units = alt(*(kw(u) for u in self.tables.extract_units))
            args = seq(units, self.punct(","), ref("expr"))
            out.append(seq(kw("DATEPART"), self.parens(args)))
        if self.has("nth_value_from") and self.offers("NTH_VALUE"):
            # Oracle: NTH_VALUE(x, 2) FROM FIRST|LAST OVER (...), a window function only.
            args = self.parens(ref("expr"), self.punct(","), ref("expr"))
            side = seq(kw("FROM"), alt(kw("FIRST"), kw("LAST")))
            if self.has("nth_value_from_nulls"):
                side = seq(side, opt(alt(kw("RESPECT", "NULLS"), kw("IGNORE", "NULLS"))))
            out.append(seq(kw("NTH_VALUE"), args, side, ref("over")))
        if self.has("outer_join_mark"):
            # Oracle's outer-join marker on a column: t.y (+) = u.y (one token for sqlglot,
            # spaces inside it refused)
            out.append(seq(ref("column_ref"), self.punct("(+)")))
        return out

    def vendor_joins(self, primary: Expr, condition: Expr) -> list[Expr]:
        """Joins of one dialect: MySQL's ``STRAIGHT_JOIN`` (left table read first)."""
        out: list[Expr] = []
        kw = self.keyword
        if self.has("straight_join"):
            out.append(seq(kw("STRAIGHT_JOIN"), primary, opt(condition)))
        if self.has("join_hints"):
            # T-SQL's INNER HASH JOIN, LEFT LOOP JOIN... (a side first: HASH JOIN alone is
            # HASH as an alias)
            sides = [kw("INNER"), seq(kw("LEFT"), opt(kw("OUTER")))]
            sides += [seq(kw(w), opt(kw("OUTER"))) for w in ("RIGHT", "FULL")]
            hints = alt(*(kw(w) for w in ("HASH", "LOOP", "MERGE", "REMOTE")))
            out.append(seq(alt(*sides), hints, kw("JOIN"), primary, condition))
        if self.has("join_lateral_function") and self.has("lateral_function") and self.any_calls():
            # PostgreSQL: LEFT JOIN LATERAL f(t.id) [AS] p ON TRUE
            side = opt(alt(kw("LEFT"), kw("INNER")))
            alias = alt(seq(kw("AS"), self.ref("ident")), self.ref("table_alias"))
            lateral = seq(kw("LATERAL"), self.ref("table_call"), opt(alias))
            out.append(seq(side, kw("JOIN"), lateral, condition))
        return out

    def any_calls(self) -> bool:
        """Whether some function may be called (``functions=[]`` leaves none)."""
        return bool(self.callable_functions()) or (
            self.options.anonymous_calls and self.has("anonymous")
        )

    def vendor_samples(self, table_alias: Expr) -> list[Expr]:
        """Oracle's ``t SAMPLE (10) [SEED (1)] [s]``: the alias after the sample."""
        if not (self.has("sample") and self.has("sample_alias")):
            return []
        kw = self.keyword
        number = alt(Ref("INTEGER"), Ref("DECIMAL"))
        seed = (
            opt(seq(kw("SEED"), self.parens(Ref("INTEGER"))))
            if self.has("sample_seed")
            else empty()
        )
        return [seq(kw("SAMPLE"), self.parens(number), seed, opt(table_alias))]

    def unpivot_column(self) -> Expr:
        """A column ``UNPIVOT(... IN (...))`` takes: Oracle's and BigQuery's ``q1 AS 1``
        names its value."""
        qualified = self.has("unpivot_qualified")  # elsewhere IN (t.c) comes back IN (c)
        column: Expr = self.ref("column_ref") if qualified else self.ref("ident")
        if self.has("unpivot_in_alias"):
            value = alt(Ref("INTEGER"), Ref("STRING"))
            column = seq(column, opt(seq(self.keyword("AS"), value)))
        return column

    def keep_clause(self) -> Expr:
        """Oracle's ``MIN(a) KEEP (DENSE_RANK FIRST|LAST ORDER BY c) [OVER (...)]`` after an
        aggregate (registered before the lexicon is built, as the other call tails)."""
        if not self.has("keep"):
            return empty()
        kw = self.keyword
        rank = seq(kw("DENSE_RANK"), alt(kw("FIRST"), kw("LAST")), self.ref("order_by"))
        return opt(seq(kw("KEEP"), self.parens(rank)))

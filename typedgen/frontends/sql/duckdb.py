"""DuckDB's own syntax (issue 15, sixth round), each construct on where its probe in
:mod:`.duckdb_probes` reads back to the same tree and the dialect class includes it:
FROM-first queries, ``#1`` positional columns, slices with a step, list comprehensions,
``ROW(...)``, ``COLUMNS(*)`` and ``*COLUMNS(...)``, ``f(t.*)``, ``FROM 'file.csv'`` and
``FROM alias: table``.

The other clause families call the hooks here at the place each construct goes; each returns
nothing where the dialect lacks it.
"""

from __future__ import annotations

from typedgen.frontends.sql.duckdb_calls import DuckdbCallRules
from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import alt, empty, opt, seq
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import CharClass, Expr, Lit, Ref, Repeat

__all__ = ["DuckdbRules"]

_GROUPED = "GROUPED_INTEGER"
"""The terminal of ``20_000`` (at most 45 digits: a DECIMAL's worth)."""


class DuckdbRules(DuckdbCallRules):
    """Hooks for DuckDB's constructs."""

    def from_first(self, select: Expr, items: Expr, clauses: list[Expr]) -> list[Expr]:
        """``FROM t [SELECT ...] [WHERE ...] ...``: a query that names its table first (no
        ``SELECT``: all columns). One table only: sqlglot keeps the joins of a FROM-first
        table inside the table (another tree than the same query written SELECT-first)."""
        if not self.has("from_first"):
            return []
        head = seq(self.keyword("FROM"), self.ref("table_primary"))
        out = [seq(head, select, items, *clauses)]
        if self.has("from_first_bare"):
            out.append(seq(head, *clauses))
        return out

    def duckdb_primaries(self) -> list[Expr]:
        """``#2`` (a column by position), ``ROW(a, b)``, ``[x FOR x, i IN l IF c]``,
        ``COLUMNS(* EXCLUDE (a))``."""
        ref, kw, punct = self.ref, self.keyword, self.punct
        out: list[Expr] = []
        if self.has("positional_column"):
            out.append(seq(punct("#"), Ref("INTEGER")))
        if self.has("row_call"):
            out.append(seq(kw("ROW"), self.parens(opt(self.separated(ref("expr"))))))
        if self.has("list_comprehension"):
            names = seq(ref("ident"), opt(seq(punct(","), ref("ident"))))
            condition = opt(seq(kw("IF"), ref("condition")))
            body = seq(ref("expr"), kw("FOR"), names, kw("IN"), ref("expr"), condition)
            out.append(seq(punct("["), body, punct("]")))
        if self.has("columns_star"):
            out.append(seq(kw("COLUMNS"), self.parens(self.modified_star())))
        if self.has("abs_operator"):  # sqlglot reads a bitwise operand after it
            out.append(seq(punct("@"), ref("bitwise")))
        if self.has("interval_bare_read") and not self.has("interval_bare"):
            # INTERVAL '1 quarter': sqlglot splits the unit off a number's string.
            out.append(seq(kw("INTERVAL"), Ref("STRING")))
        return out

    def duckdb_literals(self) -> list[Expr]:
        """``20_000``: digits in groups (sqlglot reads the number they spell)."""
        return [Ref(_GROUPED)] if self.has("grouped_digits") else []

    def duckdb_terminals(self) -> list[Rule]:
        """The terminal of digits in groups (it outranks the reserved digits-then-word)."""
        if not self.has("grouped_digits"):
            return []
        digits = Repeat(CharClass(((ord("0"), ord("9")),)), 1, 9)
        body = seq(digits, Repeat(seq(Lit.text("_"), digits), 1, 4))
        return [basic_terminal(_GROUPED, body, self.origin.at(_GROUPED), priority=2)]

    def modified_star(self) -> Expr:
        """``*`` with the dialect's modifiers (``* EXCLUDE (a) REPLACE (b AS c)``)."""
        return seq(self.punct("*"), *(opt(m) for m in self.star_modifiers()))

    def star_modifiers(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - QueryRules

    def any_calls(self) -> bool:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def column_aggregates(self) -> list[Expr]:
        """``BIT_OR(a)``: aggregates sqlglot reads with a column or a number (a string, or an
        expression of a string's type, comes back cast)."""
        if not self.has("column_aggregates"):
            return []
        names = [n for n in self.tables.warehouse.column_aggregates if self.offers(n)]
        if not names or not self.any_calls():
            return []
        arg = alt(self.ref("column_ref"), Ref("INTEGER"))
        tails = (self.filter_clause, self.over_clause)
        return [seq(alt(*(self.keyword(n) for n in names)), self.parens(arg), *tails)]

    def filter_where(self) -> Expr:
        """``WHERE`` in ``FILTER (WHERE c)``; optional where the dialect reads ``FILTER (c)``."""
        where = self.keyword("WHERE")
        return opt(where) if self.has("filter_bare") else where

    def duckdb_unary(self) -> list[Expr]:
        """``*COLUMNS('re')``: the matching columns spread (as a whole operand: sqlglot reads
        no postfix after it)."""
        if not self.has("columns_star"):
            return []
        inner = alt(self.modified_star(), self.ref("expr"))
        return [seq(self.punct("*"), self.keyword("COLUMNS"), self.parens(inner))]

    def slices(self, *, open_start: bool = True) -> Expr:
        """``a[1:2]``, and ``a[:2]``, ``a[1:]``, ``a[:]`` where those round-trip. After ``[:``
        sqlglot reads a name as a parameter (``a[:b]`` is ``a[$b]``), so an end without a start
        is a number or a parenthesised expression. ``open_start=False``: no slice without a
        start (after a bare type word: ``bigint[:2]`` reads as an array type)."""
        ref, punct = self.ref, self.punct
        forms: list[Expr] = [seq(ref("expr"), punct(":"), ref("expr"))]
        if self.has("slice_open"):
            end = alt(
                seq(opt(punct("-")), alt(Ref("INTEGER"), Ref("DECIMAL"))), self.parens(ref("expr"))
            )
            forms.append(seq(ref("expr"), punct(":")))
            if open_start:
                forms.append(seq(punct(":"), opt(end)))
        return seq(punct("["), alt(*forms), punct("]"))

    def duckdb_postfix(self, *, open_start: bool = True) -> list[Expr]:
        """``a[1:2:3]``, ``a[:-:-1]`` (a ``-`` for the default end): a slice with a step
        (sqlglot reads the step as a unary operand). The end is never left out before the
        step (``a[1::2]`` lexes as a cast) and the start only before ``-`` (never with
        ``open_start=False``, as in :meth:`slices`)."""
        if not self.has("slice_step"):
            return []
        ref, punct = self.ref, self.punct
        step = seq(punct(":"), ref("unary"))
        ended = seq(ref("expr"), punct(":"), alt(ref("expr"), punct("-")), step)
        default = seq(punct(":"), punct("-"), step)
        return [seq(punct("["), alt(ended, default) if open_start else ended, punct("]"))]

    def open_slices(self) -> bool:
        """Whether a slice may leave out its start (``a[:2]``, ``a[:-:-1]``): then a bare
        type word (``bigint``) is a column of its own rules, since sqlglot reads ``bigint[:``
        as an array type (a random walk found ``string[:]`` in ClickHouse)."""
        return self.has("subscript") and (
            (self.has("slice") and self.has("slice_open")) or self.has("slice_step")
        )

    def star_arguments(self) -> list[Expr]:
        """``COUNT(t.*)``, ``f(t.*)``: a table's columns as an argument."""
        if not self.has("qualified_star_arg"):
            return []
        return [seq(self.ref("ident"), self.punct("."), self.punct("*"))]

    def duckdb_tables(self, name_alias: Expr) -> list[Expr]:
        """``FROM 'file.csv' [AS t]`` (a string naming a table: sqlglot reads a quoted name)
        and ``FROM x: t`` (the alias first; sqlglot writes ``t AS x``)."""
        ref, punct, kw = self.ref, self.punct, self.keyword
        out: list[Expr] = []
        alias_columns = seq(name_alias, opt(self.parens(self.separated(ref("ident")))))
        if self.has("string_table_name"):
            out.append(seq(Ref("STRING"), opt(name_alias)))
        values: list[Expr] = []
        if self.has("values_unaliased"):
            rows = self.separated(self.parens(self.separated(ref("expr"))))
            values.append(self.parens(kw("VALUES"), rows))
            out.append(seq(values[0], opt(alias_columns)))
        if self.has("glob_table"):
            glob = seq(kw("GLOB"), self.parens(self.separated(ref("expr"))))
            out.append(seq(glob, opt(alias_columns)))
        if self.has("pivot_statement") and self.any_calls():
            out.append(seq(self.parens(self.pivot_statement()), opt(name_alias)))
        if self.has("describe_table"):
            described = self.parens(kw("DESCRIBE"), ref("table_name"))
            out.append(seq(described, opt(name_alias)))
        if self.has("table_prefix_alias"):
            tables: list[Expr] = [ref("table_name"), self.parens(ref("query")), *values]
            if self.has("string_table_name"):
                tables.append(Ref("STRING"))
            if self.has("table_function") and self.any_calls():
                tables.append(ref("table_call"))
            out.append(seq(ref("ident"), punct(":"), alt(*tables)))
        return out

    def pivot_statement(self) -> Expr:
        """``PIVOT t ON y [IN (...)], ... [USING SUM(x) [AS s], ...] [GROUP BY g]``."""
        if "pivot_statement" in self.rules:
            return self.ref("pivot_statement")
        ref, kw = self.ref, self.keyword
        alias = opt(seq(kw("AS"), ref("ident")))
        source = alt(seq(ref("table_name"), alias), seq(self.parens(ref("query")), alias))
        values = seq(kw("IN"), self.parens(self.separated(ref("expr"))))
        on = seq(kw("ON"), self.separated(seq(ref("bitwise"), opt(values))))
        using = seq(kw("USING"), self.separated(seq(ref("function_call"), alias)))
        group = seq(self.phrase("GROUP", "BY"), ref("group_by"))
        return self.rule("pivot_statement", seq(kw("PIVOT"), source, on, opt(using), opt(group)))

    def duckdb_ctes(self, body: Expr) -> list[Expr]:
        """``WITH 'x' AS (...)`` and ``WITH p AS (PIVOT ...)``."""
        out: list[Expr] = []
        if self.has("string_cte_name"):
            out.append(seq(Ref("STRING"), body))
        if self.has("pivot_statement") and self.any_calls():
            pivot = self.parens(self.pivot_statement())
            out.append(seq(self.ref("ident"), self.keyword("AS"), pivot))
        return out

    def duckdb_joins(self, primary: Expr, condition: Expr) -> list[Expr]:
        """``a POSITIONAL JOIN b``, ``a ASOF [LEFT|RIGHT] JOIN b ON a.t >= b.t``."""
        kw = self.keyword
        out: list[Expr] = []
        if self.has("positional_join"):
            out.append(seq(kw("POSITIONAL", "JOIN"), primary))
        if self.has("asof_join"):
            side = opt(alt(kw("LEFT"), kw("RIGHT")))
            out.append(seq(kw("ASOF"), side, kw("JOIN"), primary, condition))
        return out

    def cte_keys(self) -> list[Expr]:
        """``t(a) USING KEY (a) AS (...)``: the key of a recursive CTE."""
        if not self.has("cte_using_key"):
            return []
        keys = self.parens(self.separated(self.ref("ident")))
        return [opt(seq(self.keyword("USING", "KEY"), keys))]

    def duckdb_sample(self) -> Expr | None:
        """``TABLESAMPLE [BERNOULLI|SYSTEM] (10 PERCENT|%)``, ``TABLESAMPLE [RESERVOIR]
        (20 ROWS)`` [``REPEATABLE (1)``]: a method other than RESERVOIR with ROWS comes back
        as RESERVOIR, and a size without a unit is not offered."""
        if not self.has("tablesample_method"):
            return None
        kw, punct = self.keyword, self.punct
        size = alt(Ref("INTEGER"), Ref("DECIMAL"))
        percent = self.parens(size, alt(punct("%"), kw("PERCENT")))
        rows = self.parens(size, kw("ROWS"))
        methods = opt(alt(kw("BERNOULLI"), kw("SYSTEM"), kw("RESERVOIR")))
        sized = alt(seq(methods, percent), seq(opt(kw("RESERVOIR")), rows))
        repeat = opt(seq(kw("REPEATABLE"), self.parens(Ref("INTEGER"))))
        return seq(kw("TABLESAMPLE"), sized, repeat)

    def pivot_tails(self) -> tuple[Expr, Expr, list[Expr]]:
        """DuckDB's ``PIVOT(SUM(a) AS s, FOR b IN c GROUP BY d)``: the comma before ``FOR``,
        the grouping after the values, and values named by an (enum) type."""
        if not self.has("pivot_extras"):
            return empty(), empty(), []
        comma = opt(self.punct(","))
        group = opt(seq(self.phrase("GROUP", "BY"), self.separated(self.ref("expr"))))
        return comma, group, [self.ref("ident")]

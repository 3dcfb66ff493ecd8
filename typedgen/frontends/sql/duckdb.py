"""DuckDB's own syntax (issue 15, sixth round), each construct on where its probe in
:mod:`.duckdb_probes` reads back to the same tree and the dialect class includes it:
FROM-first queries, ``#1`` positional columns, slices with a step, list comprehensions,
``ROW(...)``, ``COLUMNS(*)`` and ``*COLUMNS(...)``, ``f(t.*)``, ``FROM 'file.csv'`` and
``FROM alias: table``.

The other clause families call the hooks here at the place each construct goes; each returns
nothing where the dialect lacks it.
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq
from typedgen.ir.nodes import Expr, Ref

__all__ = ["DuckdbRules"]


class DuckdbRules(RuleBuilder):
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
        return out

    def modified_star(self) -> Expr:
        """``*`` with the dialect's modifiers (``* EXCLUDE (a) REPLACE (b AS c)``)."""
        return seq(self.punct("*"), *(opt(m) for m in self.star_modifiers()))

    def star_modifiers(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - QueryRules

    def any_calls(self) -> bool:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def duckdb_unary(self) -> list[Expr]:
        """``*COLUMNS('re')``: the matching columns spread (as a whole operand: sqlglot reads
        no postfix after it)."""
        if not self.has("columns_star"):
            return []
        inner = alt(self.modified_star(), self.ref("expr"))
        return [seq(self.punct("*"), self.keyword("COLUMNS"), self.parens(inner))]

    def duckdb_postfix(self) -> list[Expr]:
        """``a[1:2:3]``, ``a[:-:-1]`` (a ``-`` for the default end): a slice with a step
        (sqlglot reads the step as a unary operand). The end is never left out before the
        step (``a[1::2]`` lexes as a cast) and the start only before ``-``."""
        if not self.has("slice_step"):
            return []
        ref, punct = self.ref, self.punct
        step = seq(punct(":"), ref("unary"))
        ended = seq(ref("expr"), punct(":"), alt(ref("expr"), punct("-")), step)
        default = seq(punct(":"), punct("-"), step)
        return [seq(punct("["), alt(ended, default), punct("]"))]

    def star_arguments(self) -> list[Expr]:
        """``COUNT(t.*)``, ``f(t.*)``: a table's columns as an argument."""
        if not self.has("qualified_star_arg"):
            return []
        return [seq(self.ref("ident"), self.punct("."), self.punct("*"))]

    def duckdb_tables(self, name_alias: Expr) -> list[Expr]:
        """``FROM 'file.csv' [AS t]`` (a string naming a table: sqlglot reads a quoted name)
        and ``FROM x: t`` (the alias first; sqlglot writes ``t AS x``)."""
        ref, punct = self.ref, self.punct
        out: list[Expr] = []
        if self.has("string_table_name"):
            out.append(seq(Ref("STRING"), opt(name_alias)))
        if self.has("table_prefix_alias"):
            tables: list[Expr] = [ref("table_name"), self.parens(ref("query"))]
            if self.has("string_table_name"):
                tables.append(Ref("STRING"))
            if self.has("table_function") and self.any_calls():
                tables.append(ref("table_call"))
            out.append(seq(ref("ident"), punct(":"), alt(*tables)))
        return out

"""DuckDB's calls (issue 15, seventh round), from the tables :mod:`.duckdb_probes` reads:
``DATE_DIFF('day', a, b)`` (a date part as a string), ``REGEXP_EXTRACT(a, 'p', 0, 'i')`` (a
string of flags last), ``NTH_VALUE(a, 2 IGNORE NULLS)`` (the null treatment inside) and
``RANK( ORDER BY a)`` (an ORDER BY alone). Each is on where its feature probe holds and the
dialect class includes it.
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, empty, opt, seq
from typedgen.frontends.sql.string_classes import StringClassRules
from typedgen.ir.nodes import Expr, Ref

__all__ = ["DuckdbCallRules"]


class DuckdbCallRules(StringClassRules, RuleBuilder):
    """The call forms above (the words are registered by the first call, before the lexicon
    is built)."""

    def duckdb_calls(self) -> list[Expr]:
        if not self.any_calls():
            return []
        return [*self.unit_calls(), *self.flag_calls(), *self.nulls_calls(), *self.ordered_bare()]

    def date_operand(self) -> Expr:
        """An argument beside a date part: no bare string (sqlglot writes one cast to a date,
        ``CAST('2020-01-01' AS DATE)``, another tree): a column, a call, a cast, a typed
        literal (``DATE '2020-01-01'``, read as a cast), or any expression in parentheses."""
        ref = self.ref
        forms: list[Expr] = [ref("column_ref"), ref("call"), self.parens(ref("expr"))]
        typed = [w for w in ("DATE", "TIMESTAMP") if self.has(f"{w.lower()}_literal")]
        forms += [seq(self.keyword(w), Ref("STRING")) for w in typed]
        if self.has_types():
            cast = self.parens(ref("expr"), self.keyword("AS"), ref("data_type"))
            forms.append(seq(self.keyword("CAST"), cast))
        return alt(*forms)

    def unit_calls(self) -> list[Expr]:
        """``DATE_DIFF('day', a, b)``: the parts in upper or lower case."""
        if not self.has("unit_string_calls"):
            return []
        out: list[Expr] = []
        for name, count, parts in self.tables.duckdb.unit_calls:
            if not self.offers(name):
                continue
            unit = self.string_class("date_part", (s for p in parts for s in (p, p.lower())))
            if unit is None:
                continue
            operand = self.date_operand()
            args = seq(unit, *(seq(self.punct(","), operand) for _ in range(count - 1)))
            out.append(seq(self.keyword(name), self.parens(args)))
        return out

    def flag_calls(self) -> list[Expr]:
        """``REGEXP_EXTRACT(a, 'p', 0, 'im')``: the flags last."""
        if not self.has("flag_string_calls"):
            return []
        out: list[Expr] = []
        for name, count, flags in self.tables.duckdb.flag_calls:
            if not self.offers(name):
                continue
            flag = self.string_class(f"flags_{name.lower()}", flags)
            if flag is None:
                continue
            head = [seq(self.ref("expr"), self.punct(",")) for _ in range(count - 1)]
            out.append(seq(self.keyword(name), self.parens(*head, flag), self.over_clause))
        return out

    def nulls_calls(self) -> list[Expr]:
        """``NTH_VALUE(a, 2 IGNORE NULLS)``, ``LAST_VALUE(a ORDER BY b RESPECT NULLS)``."""
        if not self.has("nulls_inside_calls"):
            return []
        kw, ref = self.keyword, self.ref
        nulls = alt(kw("IGNORE", "NULLS"), kw("RESPECT", "NULLS"))
        out: list[Expr] = []
        for name, counts, ordered in self.tables.duckdb.nulls_calls:
            if not self.offers(name):
                continue
            order = opt(ref("order_by")) if ordered else empty()
            lists = [
                seq(ref("expr"), *(seq(self.punct(","), ref("expr")) for _ in range(n - 1)))
                for n in counts
            ]
            args = seq(alt(*lists), order, nulls)
            out.append(seq(kw(name), self.parens(args), self.over_clause))
        return out

    def ordered_bare(self) -> list[Expr]:
        """``RANK( ORDER BY a) OVER (...)``."""
        if not self.has("ordered_bare"):
            return []
        names = [n for n in self.tables.duckdb.ordered_bare if self.offers(n)]
        if not names:
            return []
        call = seq(alt(*(self.keyword(n) for n in names)), self.parens(self.ref("order_by")))
        return [seq(call, self.filter_clause, self.over_clause)]

    def any_calls(self) -> bool:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def has_types(self) -> bool:
        raise NotImplementedError  # pragma: no cover - ExpressionRules

"""``SELECT ... INTO``: a statement that creates a table (T-SQL's ``SELECT * INTO #t FROM
u``) or assigns variables (Oracle's ``SELECT a, b INTO x, y FROM u``, ``BULK COLLECT INTO``).

It writes, so it is no query: it is the statement kind ``"select_into"``, offered only where
``Sql(statements=...)`` names it and the dialect's probe round-trips
(:mod:`.tsql_oracle_probes`). Binding tells it from a query by sqlglot's ``into`` argument.
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, seq
from typedgen.ir.nodes import Expr

__all__ = ["SelectIntoRules"]


class SelectIntoRules(RuleBuilder):
    """The ``select_into`` statement: a SELECT with an INTO target before FROM."""

    def into_targets(self) -> list[Expr]:
        """``INTO t`` (a table: T-SQL's ``#t``, ``db.s.t``), ``INTO x, y`` (Oracle's variables),
        ``BULK COLLECT INTO x, y``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("select_into") or self.has("select_into_vars"):
            out.append(seq(kw("INTO"), ref("table_name")))
        if self.has("select_into_vars"):
            variables = seq(ref("ident"), self.punct(","), self.separated(ref("ident")))
            out.append(seq(kw("INTO"), variables))
        if self.has("bulk_collect_into"):
            out.append(seq(kw("BULK", "COLLECT", "INTO"), self.separated(ref("ident"))))
        return out

    def select_into_core(self, head: list[Expr], items: Expr, clauses: list[Expr]) -> None:
        """The rule ``select_into_core``: ``head`` (SELECT, DISTINCT, TOP), the select
        ``items``, the INTO target, FROM, then the query's other ``clauses`` (WHERE...)."""
        if "select_into" not in self.options.statements:
            return
        targets = self.into_targets()
        if not targets:
            return
        from_ = seq(self.keyword("FROM"), self.ref("from_items"))
        self.rule("select_into_core", seq(*head, items, alt(*targets), from_, *clauses))

    def select_into_statement(self, with_clause: Expr, tail: Expr) -> None:
        """The statement ``select_into``: ``[WITH ...] SELECT ... INTO ... [ORDER BY ...]``."""
        if "select_into_core" in self.rules:
            core = self.ref("select_into_core")
            self.rule("select_into", seq(with_clause, core, tail))

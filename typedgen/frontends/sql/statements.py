"""Statements other than queries, each opt-in through ``Sql(statements=...)``.

DML and DDL are on the same footing as queries: each form is offered where its probe
round-trips in the dialect (``INSERT ... SELECT``, ``MERGE``, ``CREATE VIEW``), and binding
checks the statement kind with sqlglot.
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, empty, opt, seq, star
from typedgen.ir.nodes import Expr, Ref

__all__ = ["StatementRules"]


class StatementRules(RuleBuilder):
    """INSERT, UPDATE, DELETE, MERGE, CREATE TABLE, CREATE VIEW."""

    def column_list(self) -> Expr:
        return self.parens(self.separated(self.ref("column_name")))

    def insert(self) -> Ref:
        kw, ref = self.keyword, self.ref
        values = seq(kw("VALUES"), self.separated(self.parens(self.separated(ref("expr")))))
        # INSERT ... SELECT is an INSERT: it needs no "select" among the statements.
        source = alt(values, ref("query")) if self.has("insert_select") else values
        return self.rule(
            "insert",
            seq(kw("INSERT"), kw("INTO"), ref("table_name"), opt(self.column_list()), source),
        )

    def update(self) -> Ref:
        kw, ref = self.keyword, self.ref
        assignment = seq(ref("column_name"), self.punct("="), ref("expr"))
        return self.rule(
            "update",
            seq(
                kw("UPDATE"),
                ref("table_name"),
                kw("SET"),
                self.separated(assignment),
                opt(seq(kw("WHERE"), ref("condition"))),
            ),
        )

    def delete(self) -> Ref:
        kw, ref = self.keyword, self.ref
        return self.rule(
            "delete",
            seq(
                kw("DELETE"),
                kw("FROM"),
                ref("table_name"),
                opt(seq(kw("WHERE"), ref("condition"))),
            ),
        )

    def create_table(self) -> Ref:
        kw, ref = self.keyword, self.ref
        constraint = alt(
            kw("NOT", "NULL"),
            self.phrase("PRIMARY", "KEY"),
            kw("UNIQUE"),
            seq(kw("DEFAULT"), ref("literal")),
        )
        column = seq(ref("ident"), ref("data_type"), star(constraint))
        return self.rule(
            "create_table",
            seq(
                kw("CREATE"),
                kw("TABLE"),
                opt(kw("IF", "NOT", "EXISTS")),
                ref("ident"),
                self.parens(self.separated(column)),
            ),
        )

    def merge(self) -> Ref:
        """``MERGE INTO t USING s ON ... WHEN [NOT] MATCHED [AND ...] THEN ...``."""
        kw, ref = self.keyword, self.ref
        alias = opt(seq(kw("AS"), ref("ident")))
        source = alt(
            seq(ref("table_name"), alias),
            seq(self.parens(ref("query")), kw("AS"), ref("ident")),
        )
        extra = opt(seq(kw("AND"), ref("condition"))) if self.has("merge_and") else empty()
        assignment = seq(ref("column_name"), self.punct("="), ref("expr"))
        matched: list[Expr] = [seq(kw("UPDATE"), kw("SET"), self.separated(assignment))]
        if self.has("merge_delete"):
            matched.append(kw("DELETE"))
        values = seq(kw("VALUES"), self.parens(self.separated(ref("expr"))))
        insert = seq(kw("INSERT"), opt(self.column_list()), values)
        when = alt(
            seq(kw("WHEN"), kw("MATCHED"), extra, kw("THEN"), alt(*matched)),
            seq(kw("WHEN"), kw("NOT"), kw("MATCHED"), extra, kw("THEN"), insert),
        )
        return self.rule(
            "merge",
            seq(
                kw("MERGE"),
                kw("INTO"),
                ref("table_name"),
                alias,
                kw("USING"),
                source,
                kw("ON"),
                ref("condition"),
                star(when),
                when,
            ),
        )

    def create_view(self) -> Ref:
        """``CREATE [OR REPLACE] VIEW v [(columns)] AS query``."""
        kw, ref = self.keyword, self.ref
        replace = opt(kw("OR", "REPLACE")) if self.has("create_or_replace_view") else empty()
        columns = (
            opt(self.parens(self.separated(ref("ident"))))
            if self.has("create_view_columns")
            else empty()
        )
        return self.rule(
            "create_view",
            seq(kw("CREATE"), replace, kw("VIEW"), ref("ident"), columns, kw("AS"), ref("query")),
        )

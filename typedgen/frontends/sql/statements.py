"""Statements other than queries, each opt-in through ``Sql(statements=...)``."""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.nodes import Expr, Ref

__all__ = ["StatementRules"]


class StatementRules(RuleBuilder):
    """INSERT, UPDATE, DELETE, CREATE TABLE."""

    def column_list(self) -> Expr:
        return self.parens(self.separated(self.ref("column_name")))

    def insert(self) -> Ref:
        kw, ref = self.keyword, self.ref
        values = seq(kw("VALUES"), self.separated(self.parens(self.separated(ref("expr")))))
        source = alt(values, ref("query")) if "select" in self.options.statements else values
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
            kw("PRIMARY", "KEY"),
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

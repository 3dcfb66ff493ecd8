"""Round 7's T-SQL and MySQL forms, each on where its probe round-trips
(:mod:`.tsql_mysql_probes`) and, where sqlglot's base parser reads it everywhere, the dialect
class includes it.

MySQL: an interval's amount as an arithmetic term (``INTERVAL 2 * 2 MONTH``, ``INTERVAL
DAYOFMONTH(d) - 1 DAY``; sqlglot writes it in parentheses, which ``trees.same_tree`` reads as
the same amount); ``GROUP_CONCAT``, ``CHARSET(a)``, ``CONVERT(a USING charset)`` and
``JSON_TABLE(... COLUMNS (...))`` with MySQL's column types. T-SQL's derived tables with
bare columns (``(SELECT c) AS s``, written ``c AS c``) are a form of :mod:`.query`'s
``cte_select`` (probe ``cte_column_named``).
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, empty, opt, seq
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["TsqlMysqlRules"]


class TsqlMysqlRules(RuleBuilder):
    """The T-SQL and MySQL constructs of round 7 that the other clause families hook in."""

    def interval_terms(self) -> list[Expr]:
        """Interval amounts beyond a literal or a column: ``(expr)``, and a term of sqlglot's
        ``_parse_term`` (``+ - * / %``) whose first operand is no string (after a string
        sqlglot reads the unit at once)."""
        if not self.has("interval_term"):
            return []
        punct, ref = self.punct, self.ref
        first: list[Expr] = [Ref("INTEGER"), Ref("DECIMAL"), ref("column_ref")]
        if self.callable_functions() or (self.options.anonymous_calls and self.has("anonymous")):
            first.append(ref("function_call"))
        ops = [punct("+"), punct("-"), punct("*"), punct("/")]
        if self.has("mod_operator"):
            ops.append(punct("%"))
        steps = Repeat(seq(alt(*ops), ref("unary")), 1)
        return [self.parens(ref("expr")), seq(alt(*first), steps)]

    def tsql_mysql_primaries(self) -> list[Expr]:
        """MySQL's ``GROUP_CONCAT([DISTINCT] a [ORDER BY ...] [SEPARATOR 's'])`` (written with
        its default ``SEPARATOR ','``, the same value), ``CHARSET(a)`` (a keyword for
        sqlglot's tokenizer, so no anonymous call), ``CONVERT(a USING charset)`` (written
        ``CAST(a AS CHAR CHARACTER SET charset)``)."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("group_concat") and self.offers("GROUP_CONCAT"):
            order = opt(ref("order_by"))
            separator = opt(seq(kw("SEPARATOR"), Ref("STRING")))
            args = seq(opt(kw("DISTINCT")), ref("expr"), order, separator)
            out.append(seq(kw("GROUP_CONCAT"), self.parens(args)))
        if self.has("charset_call") and self.offers("CHARSET"):
            out.append(seq(kw("CHARSET"), self.parens(ref("expr"))))
        if self.has("convert_using") and self.offers("CONVERT"):
            # sqlglot reads a charset as a plain word, a quoted name or BINARY.
            names: list[Expr] = [Ref("IDENT"), kw("BINARY")]
            if self.tables.identifier_quotes:
                names.append(Ref("QIDENT"))
            args = seq(ref("bitwise"), kw("USING"), alt(*names))
            out.append(seq(kw("CONVERT"), self.parens(args)))
        return out

    def mysql_json_tables(self, name_alias: Expr) -> list[Expr]:
        """MySQL's ``JSON_TABLE(doc, 'path' COLUMNS (name FOR ORDINALITY, name type PATH 'p',
        NESTED PATH 'p' COLUMNS (...))) AS t`` (the alias required, a type on each value
        column). sqlglot reads no ``EXISTS PATH``, ``NESTED`` without ``PATH`` or ``ON EMPTY``
        / ``ON ERROR`` there."""
        if not self.has("json_table_mysql") or self.has("json_table"):
            return []
        kw, ref = self.keyword, self.ref
        ordinality = seq(ref("ident"), kw("FOR", "ORDINALITY"))
        value = seq(ref("ident"), self.json_column_type(), kw("PATH"), Ref("STRING"))
        nested = seq(kw("NESTED", "PATH"), Ref("STRING"), ref("mysql_json_columns"))
        column = alt(ordinality, value, nested)
        columns = seq(kw("COLUMNS"), self.parens(self.separated(column)))
        self.rule("mysql_json_columns", columns)
        body = seq(ref("bitwise"), self.punct(","), Ref("STRING"), ref("mysql_json_columns"))
        return [seq(kw("JSON_TABLE"), self.parens(body), name_alias)]

    def json_column_type(self) -> Expr:
        """A ``JSON_TABLE`` column's type: MySQL's column types (``VARCHAR(255)``, ``INT``,
        ``DECIMAL(10, 2)``, ``JSON``), not ``CAST``'s few; those of the probe
        (``tables.json_column_types``) the caller did not exclude."""
        punct, number = self.punct, Ref("INTEGER")
        suffixes = (empty(), self.parens(number), self.parens(number, punct(","), number))
        forms = [
            seq(self.phrase(*word.split()), alt(*(suffixes[n] for n in params)))
            for word, params in sorted(self.tables.json_column_types.items())
            if word not in self.options.exclude_types
        ]
        return alt(*forms) if forms else self.ref("data_type")

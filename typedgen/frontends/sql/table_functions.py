"""Table functions with syntax of their own: Oracle's ``JSON_TABLE`` and ``XMLTABLE``, T-SQL's
``OPENJSON``; each where its probe round-trips (:mod:`.tsql_oracle_probes`) and the dialect
class includes it.

The forms are those sqlglot's parser reads (``Parser._parse_json_table``,
``_parse_xml_table``, ``_parse_open_json``) and writes back as the same tree.
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["TableFunctionRules"]


class TableFunctionRules(RuleBuilder):
    """``JSON_TABLE(...)``, ``XMLTABLE(...)``, ``OPENJSON(...) WITH (...)`` in FROM."""

    def json_tables(self, name_alias: Expr, columns: Expr) -> list[Expr]:
        """The table functions of this module (and T-SQL's ``s.f(x) AS t(a)``) in FROM."""
        out: list[Expr] = []
        if self.has("table_function_qualified"):
            # A function named in a schema: sqlglot reads any name there as a call.
            ref, dot = self.ref, self.punct(".")
            name = seq(ref("ident"), dot, Repeat(seq(ref("ident"), dot), 0, 1), Ref("IDENT"))
            call = seq(name, self.parens(opt(self.separated(ref("expr")))))
            out.append(seq(call, opt(seq(name_alias, opt(columns)))))
        if self.has("json_table"):
            out.append(seq(self.json_table(), opt(name_alias)))
        out += self.mysql_json_tables(name_alias)  # MySQL: JSON_TABLE(...) AS t
        if self.has("xmltable"):
            out.append(seq(self.xml_table(), opt(name_alias)))
        if self.has("openjson"):
            out.append(seq(self.open_json(), opt(name_alias)))
        return out

    def json_table(self) -> Expr:
        """``JSON_TABLE(doc [FORMAT JSON], 'path' [ERROR|NULL ON ERROR] [ERROR|NULL ON EMPTY]
        COLUMNS (name [FOR ORDINALITY] [type] [FORMAT JSON] [PATH 'p'], NESTED [PATH 'p']
        COLUMNS (...)))``; the columns may also come unparenthesised (sqlglot adds them)."""
        kw, ref = self.keyword, self.ref
        format_json = opt(kw("FORMAT", "JSON"))
        path = opt(seq(kw("PATH"), Ref("STRING")))
        plain = seq(
            ref("ident"), opt(kw("FOR", "ORDINALITY")), opt(ref("data_type")), format_json, path
        )
        nested = seq(kw("NESTED"), format_json, path, ref("json_table_columns"))
        column = alt(plain, nested)
        self.rule("json_table_columns", seq(kw("COLUMNS"), self.parens(self.separated(column))))
        handling = [
            opt(alt(kw("ERROR", "ON", on), kw("NULL", "ON", on))) for on in ("ERROR", "EMPTY")
        ]
        unwrapped = seq(kw("COLUMNS"), self.separated(column))
        body = seq(
            ref("bitwise"),
            format_json,
            opt(seq(self.punct(","), Ref("STRING"))),
            *handling,
            alt(ref("json_table_columns"), unwrapped),
        )
        return seq(kw("JSON_TABLE"), self.parens(body))

    def xml_table(self) -> Expr:
        """``XMLTABLE('xpath' [PASSING [BY VALUE] a, ...] [RETURNING SEQUENCE BY REF]
        [COLUMNS name type [PATH 'p'], ...])``."""
        kw, ref = self.keyword, self.ref
        document: Expr = ref("column_ref")
        if self.has("method_call"):  # PASSING dbms_xmlgen.getxmltype('...')
            document = alt(document, ref("method_call"))
        passing = seq(kw("PASSING"), opt(kw("BY", "VALUE")), self.separated(document))
        column = seq(ref("ident"), ref("data_type"), opt(seq(kw("PATH"), Ref("STRING"))))
        body = seq(
            Ref("STRING"),
            opt(passing),
            opt(kw("RETURNING", "SEQUENCE", "BY", "REF")),
            opt(seq(kw("COLUMNS"), self.separated(column))),
        )
        return seq(kw("XMLTABLE"), self.parens(body))

    def open_json(self) -> Expr:
        """``OPENJSON(doc [, 'path']) [WITH (name type ['path'] [AS JSON], ...)]``."""
        kw, ref = self.keyword, self.ref
        column = seq(ref("ident"), ref("data_type"), opt(Ref("STRING")), opt(kw("AS", "JSON")))
        schema = seq(kw("WITH"), self.parens(self.separated(column)))
        args = self.parens(ref("bitwise"), opt(seq(self.punct(","), Ref("STRING"))))
        return seq(kw("OPENJSON"), args, opt(schema))

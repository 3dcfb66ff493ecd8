"""The SQL grammar: one base grammar in the IR, specialised by a dialect's tables and a schema.

The builder is assembled from one mixin per clause family: queries (:mod:`.query`),
expressions (:mod:`.expressions`), calls, types and names (:mod:`.calls`), other statements
(:mod:`.statements`) and terminals (:mod:`.terminals`), over the shared state and combinators
of :mod:`.rules`. Every terminal is lexed as sqlglot lexes (longest match), so that the text
the model writes is cut into the tokens sqlglot will cut it into.
"""

from __future__ import annotations

from collections.abc import Callable

from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.sql.bigquery_names import BigqueryNameRules
from typedgen.frontends.sql.calls import CallRules
from typedgen.frontends.sql.digit_names import DigitNameRules
from typedgen.frontends.sql.duckdb import DuckdbRules
from typedgen.frontends.sql.expressions import ExpressionRules
from typedgen.frontends.sql.match_recognize import MatchRecognizeRules
from typedgen.frontends.sql.query import QueryRules
from typedgen.frontends.sql.routines import RoutineRules
from typedgen.frontends.sql.rules import GrammarOptions, SchemaNames, alt, empty, opt, seq
from typedgen.frontends.sql.select_into import SelectIntoRules
from typedgen.frontends.sql.statements import StatementRules
from typedgen.frontends.sql.table_functions import TableFunctionRules
from typedgen.frontends.sql.tables import DialectTables
from typedgen.frontends.sql.terminals import TerminalRules
from typedgen.frontends.sql.tsql_mysql import TsqlMysqlRules
from typedgen.frontends.sql.tsql_oracle import TsqlOracleRules
from typedgen.frontends.sql.vendor import VendorRules
from typedgen.ir.grammar import Grammar
from typedgen.ir.nodes import Expr, Ref
from typedgen.ir.passes.rewrite import prune_unreachable

__all__ = ["STATEMENTS", "GrammarOptions", "SchemaNames", "build_sql_grammar"]

STATEMENTS = (
    "select",
    "insert",
    "update",
    "delete",
    "merge",
    "create_table",
    "create_view",
    "select_into",
)


class _Builder(
    MatchRecognizeRules,  # (first: query.py calls its hook, which RuleBuilder declares)
    RoutineRules,
    QueryRules,
    CallRules,
    ExpressionRules,
    StatementRules,
    TerminalRules,
    VendorRules,
    DuckdbRules,
    TsqlOracleRules,
    TsqlMysqlRules,
    TableFunctionRules,
    SelectIntoRules,
    BigqueryNameRules,
    DigitNameRules,
):
    def build(self) -> Grammar:
        self.lex.phrase_gap = self.whitespace()
        query = self.with_routines(self.query())
        builders: dict[str, Callable[[], Expr]] = {
            "select": lambda: query,
            "insert": self.insert,
            "update": self.update,
            "delete": self.delete,
            "merge": self.merge,
            "create_table": self.create_table,
            "create_view": self.create_view,
            "select_into": lambda: self.ref("select_into"),
        }
        offered = {
            "merge": self.has("merge"),
            "create_view": self.has("create_view"),
            "select_into": "select_into" in self.rules,  # T-SQL, Oracle
        }
        statements = [builders[s]() for s in self.options.statements if offered.get(s, True)]
        if not statements:
            raise UnsupportedFeatureError(
                f"the dialect {self.source!r} has none of the statements"
                f" {', '.join(self.options.statements)}",
                code="sql-statements",
                origin=self.origin,
                hint="MERGE, CREATE VIEW and SELECT INTO are offered only where the dialect"
                " has them",
            )
        # One statement, optionally closed by ";" (a terminator; nothing may follow it).
        end = opt(self.punct(";")) if self.options.terminator else empty()
        if self.options.whitespace != "check":
            end = seq(end, opt(Ref("END_GAP")))  # a blank line ends it (Terminals.end_gap)
        self.rule("statement", seq(alt(*statements), end))
        self.expressions()
        self.names()
        self.warehouse_words()
        self.length_types()  # (its words registered before the lexicon is built)
        self.lex.type_words = self.open_slices()  # bigint[:2]: CallRules.type_word_rules
        word_rules, reserved_words, classes, by_role = self.lex.build()
        warehouse_terminals_ = self.warehouse_terminals(classes)
        warehouse_terminals_ += self.digit_name_terminals(classes)  # (joins IDENT's classes)
        self.role_rules(classes, by_role)
        terminals = [*word_rules, *warehouse_terminals_, *self.fixed_terminals()]
        terminals += self.duckdb_terminals()
        terminals += self.temp_terminals()
        terminals += self.bigquery_name_terminals()
        reserved = [*reserved_words, *self.reserved_terminals(), *self.digit_reserved()]
        ignore = ("WS", "COMMENT") if any(t.name == "COMMENT" for t in terminals) else ("WS",)
        names = ["statement", *ignore, *(r.name for r in reserved)]
        every = self.with_string_classes([*self.rules.values(), *terminals, *reserved])
        rules = prune_unreachable(every, names)
        return Grammar(
            rules,
            "statement",
            ignore=ignore,
            reserved=tuple(r.name for r in reserved),
            origin=self.origin,
        )


def build_sql_grammar(
    tables: DialectTables, options: GrammarOptions, *, source: str | None = None
) -> Grammar:
    """The IR grammar of one dialect under the caller's options."""
    return _Builder(tables, options, source or tables.name).build()

"""SQL dialects derived from sqlglot's tables, lowered to the IR (see ``docs/sql.md``)."""

from typedgen.frontends.sql.build import STATEMENTS, GrammarOptions, build_sql_grammar
from typedgen.frontends.sql.dialects import DIALECTS, REFUSED, SqlDialect, dialect_class
from typedgen.frontends.sql.schema import SqlSchema, schema_from
from typedgen.frontends.sql.spec import Sql
from typedgen.frontends.sql.tables import DialectTables, dialect_tables

__all__ = [
    "DIALECTS",
    "REFUSED",
    "STATEMENTS",
    "DialectTables",
    "GrammarOptions",
    "Sql",
    "SqlDialect",
    "SqlSchema",
    "build_sql_grammar",
    "dialect_class",
    "dialect_tables",
    "schema_from",
]

"""Database schemas for schema-aware SQL: a dict, DDL text, or a live SQLite database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from typedgen.errors import GrammarError
from typedgen.frontends.sql.build import SchemaNames
from typedgen.ir.origin import Origin

__all__ = ["SqlSchema", "schema_from"]


@dataclass(frozen=True)
class SqlSchema:
    """Tables and their typed columns, in the caller's spelling."""

    tables: dict[str, dict[str, str]]

    def names(self) -> SchemaNames:
        columns = dict.fromkeys(c for cols in self.tables.values() for c in cols)
        return SchemaNames(tuple(self.tables), tuple(columns))

    def key(self) -> str:
        """A canonical text of the schema, for caching grammars."""
        return json.dumps(self.tables, sort_keys=True)

    def describe(self, dialect: str = "") -> str:
        """The schema as ``CREATE TABLE`` lines, for prompts (names quoted where needed)."""
        from sqlglot import exp
        from sqlglot.dialects.dialect import Dialect
        from sqlglot.tokenizer_core import TokenType

        keywords = Dialect.get_or_raise(dialect).tokenizer_class.KEYWORDS

        def name(text: str) -> str:
            ident = exp.to_identifier(text)
            if keywords.get(text.upper(), TokenType.VAR) != TokenType.VAR:
                ident.set("quoted", True)
            return str(ident.sql(dialect=dialect))

        lines = []
        for table, columns in self.tables.items():
            cols = ", ".join(f"{name(c)} {t}".rstrip() for c, t in columns.items())
            lines.append(f"CREATE TABLE {name(table)} ({cols});")
        return "\n".join(lines)


def _error(message: str, hint: str) -> GrammarError:
    return GrammarError(message, code="sql-schema", origin=Origin("<schema>"), hint=hint)


def _from_mapping(schema: Mapping[Any, Any]) -> SqlSchema:
    tables: dict[str, dict[str, str]] = {}
    for table, columns in schema.items():
        if not isinstance(table, str) or not table:
            raise _error(f"table name {table!r} is not a non-empty string", "use str keys")
        if isinstance(columns, Mapping):
            tables[table] = {str(c): str(t) for c, t in columns.items()}
        elif isinstance(columns, list | tuple):
            tables[table] = {str(c): "" for c in columns}
        else:
            raise _error(
                f"columns of table {table!r} are {type(columns).__name__}",
                "give {table: {column: type}} or {table: [column, ...]}",
            )
        if not tables[table]:
            raise _error(f"table {table!r} has no columns", "list at least one column")
    if not tables:
        raise _error("the schema has no tables", "pass at least one table")
    return SqlSchema(tables)


def _from_ddl(ddl: str, dialect: str) -> SqlSchema:
    import sqlglot
    from sqlglot import expressions as exp
    from sqlglot.errors import SqlglotError

    tables: dict[str, dict[str, str]] = {}
    try:  # sqlglot raises TokenError (an unclosed quote) as well as ParseError
        statements = sqlglot.parse(ddl, read=dialect)
        for statement in statements:
            if not isinstance(statement, exp.Create) or statement.kind != "TABLE":
                continue
            target = statement.this
            if not isinstance(target, exp.Schema):
                continue
            name = target.this.name
            columns = {
                col.name: (col.args["kind"].sql(dialect=dialect) if col.args.get("kind") else "")
                for col in target.expressions
                if isinstance(col, exp.ColumnDef)
                or isinstance(col, exp.Identifier)  # a column without a type (SQLite)
            }
            if not columns:
                raise _error(
                    f"table {name!r} has no columns in the schema DDL",
                    "declare at least one column: CREATE TABLE t (a INT, ...)",
                )
            tables[name] = columns
    except SqlglotError as err:
        raise _error(
            f"the schema DDL does not parse as {dialect or 'SQL'}: {err}", "fix the DDL"
        ) from err
    if not tables:
        raise _error("the schema DDL has no CREATE TABLE statements", "pass CREATE TABLE ...")
    return SqlSchema(tables)


def _from_sqlite(conn: sqlite3.Connection) -> SqlSchema:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
    ]
    tables = {}
    for name in names:
        quoted = '"' + name.replace('"', '""') + '"'
        rows = conn.execute(f"PRAGMA table_info({quoted})").fetchall()
        tables[name] = {row[1]: row[2] or "" for row in rows}
    if not tables:
        raise _error("the SQLite database has no tables", "create tables first")
    return SqlSchema(tables)


def schema_from(schema: object, dialect: str) -> SqlSchema:
    """A schema from a dict, DDL text, an SQLite connection, or an :class:`SqlSchema`."""
    if isinstance(schema, SqlSchema):
        return schema
    if isinstance(schema, sqlite3.Connection):
        return _from_sqlite(schema)
    if isinstance(schema, str):
        return _from_ddl(schema, dialect)
    if isinstance(schema, Mapping):
        return _from_mapping(schema)
    raise _error(
        f"cannot read a schema from {type(schema).__name__}",
        "pass {table: {column: type}}, CREATE TABLE text, or a sqlite3.Connection",
    )

"""Database schemas for schema-aware SQL: a dict, DDL text, or a live SQLite database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from typedgen.errors import GrammarError
from typedgen.frontends.sql.build import SchemaNames
from typedgen.ir.origin import Origin

__all__ = ["ForeignKey", "SqlSchema", "schema_from"]


class ForeignKey(NamedTuple):
    """``FOREIGN KEY (columns) REFERENCES table (references)``; ``references`` may be empty
    (the referenced table's primary key)."""

    columns: tuple[str, ...]
    table: str
    references: tuple[str, ...]


@dataclass(frozen=True)
class SqlSchema:
    """Tables and their typed columns, in the caller's spelling.

    ``primary_keys`` and ``foreign_keys`` are shown in prompts (they tell a model how tables
    join) where the source states them (DDL, a SQLite database); the grammar does not use them.
    """

    tables: dict[str, dict[str, str]]
    primary_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    foreign_keys: dict[str, tuple[ForeignKey, ...]] = field(default_factory=dict)

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

        def names(items: tuple[str, ...]) -> str:
            return ", ".join(name(i) for i in items)

        lines = []
        for table, columns in self.tables.items():
            primary = self.primary_keys.get(table, ())
            foreign = self.foreign_keys.get(table, ())
            parts = []
            for column, kind in columns.items():
                part = f"{name(column)} {kind}".rstrip()
                if primary == (column,):
                    part += " PRIMARY KEY"
                for key in foreign:
                    if key.columns == (column,):
                        part += f" REFERENCES {name(key.table)}"
                        part += f"({names(key.references)})" if key.references else ""
                parts.append(part)
            if len(primary) > 1:
                parts.append(f"PRIMARY KEY ({names(primary)})")
            for key in foreign:
                if len(key.columns) > 1:
                    target = f"{name(key.table)}({names(key.references)})"
                    parts.append(f"FOREIGN KEY ({names(key.columns)}) REFERENCES {target}")
            lines.append(f"CREATE TABLE {name(table)} ({', '.join(parts)});")
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
    primary: dict[str, tuple[str, ...]] = {}
    foreign: dict[str, tuple[ForeignKey, ...]] = {}
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
            primary[name], foreign[name] = _ddl_keys(target.expressions)
    except SqlglotError as err:
        raise _error(
            f"the schema DDL does not parse as {dialect or 'SQL'}: {err}", "fix the DDL"
        ) from err
    if not tables:
        raise _error("the schema DDL has no CREATE TABLE statements", "pass CREATE TABLE ...")
    return SqlSchema(tables, _present(primary), _present(foreign))


def _present(keys: dict[str, Any]) -> dict[str, Any]:
    return {table: found for table, found in keys.items() if found}


def _ddl_keys(items: list[Any]) -> tuple[tuple[str, ...], tuple[ForeignKey, ...]]:
    """The primary key and foreign keys of one ``CREATE TABLE``'s column and table items."""
    from sqlglot import expressions as exp

    def reference(ref: Any, columns: tuple[str, ...]) -> ForeignKey | None:
        target = ref.this if isinstance(ref, exp.Reference) else None
        if not isinstance(target, exp.Schema | exp.Table):
            return None
        table = target.this.name if isinstance(target, exp.Schema) else target.name
        refs = tuple(e.name for e in target.expressions) if isinstance(target, exp.Schema) else ()
        return ForeignKey(columns, table, refs)

    primary: tuple[str, ...] = ()
    foreign: list[ForeignKey] = []
    for item in items:
        if isinstance(item, exp.ColumnDef):
            for constraint in item.args.get("constraints") or ():
                kind = constraint.args.get("kind")
                if isinstance(kind, exp.PrimaryKeyColumnConstraint):
                    primary = (item.name,)
                elif isinstance(kind, exp.Reference):
                    key = reference(kind, (item.name,))
                    foreign += [key] if key else []
        elif isinstance(item, exp.PrimaryKey):
            primary = tuple(e.name for e in item.expressions)
        elif isinstance(item, exp.ForeignKey):
            key = reference(item.args.get("reference"), tuple(e.name for e in item.expressions))
            foreign += [key] if key else []
    return primary, tuple(foreign)


def _foreign_key(parts: list[Any]) -> ForeignKey:
    """One foreign key from its ``PRAGMA foreign_key_list`` rows (id, seq, table, from, to)."""
    ordered = sorted(parts, key=lambda r: r[1])
    referenced = tuple(r[4] for r in ordered if r[4] is not None)
    return ForeignKey(tuple(r[3] for r in ordered), ordered[0][2], referenced)


def _from_sqlite(conn: sqlite3.Connection) -> SqlSchema:
    names = [
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
    ]
    tables = {}
    primary: dict[str, tuple[str, ...]] = {}
    foreign: dict[str, tuple[ForeignKey, ...]] = {}
    for name in names:
        quoted = '"' + name.replace('"', '""') + '"'
        columns = conn.execute(f"PRAGMA table_info({quoted})").fetchall()
        tables[name] = {row[1]: row[2] or "" for row in columns}
        # row[5]: the column's position in the primary key (0: not part of it)
        primary[name] = tuple(row[1] for row in sorted(columns, key=lambda r: r[5]) if row[5])
        # (id, seq, table, from, to, ...): one row per column of each foreign key
        keys: dict[int, list[Any]] = {}
        for row in conn.execute(f"PRAGMA foreign_key_list({quoted})").fetchall():
            keys.setdefault(row[0], []).append(row)
        foreign[name] = tuple(_foreign_key(parts) for parts in keys.values())
    if not tables:
        raise _error("the SQLite database has no tables", "create tables first")
    return SqlSchema(tables, _present(primary), _present(foreign))


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

"""``typedgen.Sql``: SQL of one dialect, optionally narrowed to a schema, as an output type."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from typedgen.errors import OptionError, UnsupportedFeatureError
from typedgen.frontends.sql.build import STATEMENTS, GrammarOptions, build_sql_grammar
from typedgen.frontends.sql.dialects import SqlDialect, dialect_class
from typedgen.frontends.sql.schema import SqlSchema, schema_from
from typedgen.ir.grammar import Grammar
from typedgen.ir.origin import Origin

__all__ = ["WHITESPACE_MODES", "Sql", "sql_grammar"]

WHITESPACE_MODES = ("generation", "check")


class Sql:
    """One SQL statement of ``dialect``; the value is the sqlglot ``Expression`` it parses to.

    ``schema`` ({table: {column: type}}, ``CREATE TABLE`` text, or a ``sqlite3.Connection``)
    limits table and column names to that schema, and a check after decoding resolves every
    column through a table in scope (errors are fed back to the model and retried).
    ``statements`` opts into more than ``("select",)``: ``"insert"``, ``"update"``,
    ``"delete"``, ``"create_table"``. ``functions`` limits the callable functions to those
    names (default: every function sqlglot knows for the dialect, and no other name;
    ``functions="any"`` also accepts any ``name(...)``, for user-defined functions).
    ``ctes`` lets a schema-aware query name its own ``WITH`` tables (any identifier then passes
    as a table name; the check after decoding still resolves columns); the default is on with a
    schema (many real queries need ``WITH``), ``ctes=False`` keeps table names to the schema.
    ``terminator=False`` drops the optional closing ``;`` (for a host grammar that embeds the
    statement and ends it itself).
    ``comments=True`` accepts the dialect's comments (``--``, ``/* */``, ``#``...) as ignored
    text, each at most 256 characters; off by default, so a model cannot spend its budget in
    comments (a run of comments is not bounded, only each comment). ``whitespace="generation"``
    (default) allows at most 8 spaces or tabs on a line and one line break (16 after it)
    between two words and around the statement, and no ``\r`` but in ``\r\n``; a blank line
    ends the statement (only a complete one may take it); ``whitespace="check"`` is the wider
    language for checking SQL from elsewhere (100 characters, three line breaks, any
    ``\r`` unless comments are on). ``placeholders=True`` accepts the dialect's query
    parameters (``?``, ``$1``, ``:name``, ``@name``); off by default, since a generated query
    has nothing to bind them to (and a small model drifts into ``SELECT :x``).

    The grammar makes the output parse; it is not an authorisation layer: run generated SQL
    with a database role that may only do what the application allows.
    """

    def __init__(
        self,
        dialect: str | type[SqlDialect],
        *,
        schema: object = None,
        statements: Sequence[str] = ("select",),
        functions: Sequence[str] | str | None = None,
        ctes: bool | None = None,
        check_columns: bool = True,
        terminator: bool = True,
        comments: bool = False,
        whitespace: str = "generation",
        placeholders: bool = False,
    ) -> None:
        self.dialect_class = dialect_class(dialect)
        self.dialect = self.dialect_class.sqlglot
        if isinstance(statements, str):
            statements = (statements,)
        unknown = [s for s in statements if s not in STATEMENTS]
        if unknown or not statements:
            raise UnsupportedFeatureError(
                f"unknown SQL statement kind(s): {', '.join(map(repr, unknown)) or '(none)'}",
                code="sql-statements",
                origin=Origin(self.dialect_class.name),
                hint=f"choose among {', '.join(STATEMENTS)}",
            )
        self.statements = tuple(dict.fromkeys(statements))
        if whitespace not in WHITESPACE_MODES:
            raise OptionError(
                f"whitespace={whitespace!r} is not one of {', '.join(map(repr, WHITESPACE_MODES))}",
                code="option-value",
                origin=Origin(self.dialect_class.name),
                hint=f"choose among {', '.join(map(repr, WHITESPACE_MODES))}",
            )
        self.comments = bool(comments)
        self.whitespace = whitespace
        self.placeholders = bool(placeholders)
        self.schema: SqlSchema | None = (
            None if schema is None else schema_from(schema, self.dialect)
        )
        self.anonymous_calls = functions == "any"
        if functions is None or isinstance(functions, str):
            if functions not in (None, "any"):
                raise UnsupportedFeatureError(
                    f"functions must be a list of names, None or 'any', not {functions!r}",
                    code="sql-functions",
                    origin=Origin(self.dialect_class.name),
                    hint='pass functions=["COUNT", ...], or "any" to allow unknown names too',
                )
            self.functions: tuple[str, ...] | None = None
        else:
            self.functions = tuple(f.upper() for f in functions)
        self.ctes = self.schema is not None if ctes is None else ctes
        self.check_columns = check_columns
        self.terminator = terminator

    def __repr__(self) -> str:
        extra = f", schema=<{len(self.schema.tables)} tables>" if self.schema else ""
        return f"Sql({self.dialect_class.name!r}{extra}, statements={self.statements!r})"

    def _key(self) -> tuple[Any, ...]:
        return (
            self.dialect_class,
            self.schema.key() if self.schema else None,
            self.statements,
            self.functions,
            self.anonymous_calls,
            self.ctes,
            self.terminator,
            self.comments,
            self.whitespace,
            self.placeholders,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sql) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def parse(self, text: str) -> Any:
        """Parse and check SQL text as this output type would (for SQL from elsewhere too)."""
        from typedgen.binding.sql import bind_sql

        return bind_sql(
            text,
            dialect=self.dialect,
            statements=self.statements,
            schema=self.schema,
            check_columns=self.check_columns,
            quoted_strings=self.dialect_class.double_quoted_strings,
        )


def sql_grammar(sql: Sql) -> Grammar:
    """The IR of ``sql`` (built once per dialect, schema and options: SQL's takes seconds)."""
    return _grammar(sql._key(), sql)


@functools.lru_cache(maxsize=64)
def _grammar(key: tuple[Any, ...], sql: Sql) -> Grammar:
    cls = sql.dialect_class
    options = GrammarOptions(
        statements=sql.statements,
        schema=sql.schema.names() if sql.schema else None,
        ctes_in_schema=sql.ctes,
        terminator=sql.terminator,
        functions=frozenset(sql.functions) if sql.functions is not None else None,
        anonymous_calls=sql.anonymous_calls,
        exclude_types=cls.exclude_types,
        quoted_values=cls.double_quoted_strings,
        comments=sql.comments,
        whitespace=sql.whitespace,
        placeholders=sql.placeholders,
    )
    return build_sql_grammar(cls.tables(), options, source=cls.name)

"""SQL text -> sqlglot Expression, with the statement-kind and schema checks.

The grammar already guarantees that the text parses; binding parses it with sqlglot in the same
dialect (an independent check), refuses statement kinds the caller did not opt into, and, for a
schema-aware ``Sql``, resolves every column against the tables in scope with sqlglot's own
qualifier. A failed check is a :class:`~typedgen.binding.BindingError`, which the retry loop
feeds back to the model.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from typedgen.binding import BindingError

if TYPE_CHECKING:
    from typedgen.frontends.sql.schema import SqlSchema

__all__ = ["STATEMENT_KINDS", "bind_sql", "statement_kind"]

STATEMENT_KINDS = {
    "select": ("Select", "Union", "Intersect", "Except", "Subquery"),
    "insert": ("Insert",),
    "update": ("Update",),
    "delete": ("Delete",),
    "merge": ("Merge",),
    "create_table": ("Create",),
    "create_view": ("Create",),
    "select_into": ("Select",),
}


def statement_kind(tree: Any) -> str | None:
    """Which of :data:`STATEMENT_KINDS` a parsed statement is (``None`` if none)."""
    name = type(tree).__name__
    if name == "Select" and tree.args.get("into") is not None:
        return "select_into"  # SELECT ... INTO creates a table or assigns variables
    created = {"create_table": "TABLE", "create_view": "VIEW"}
    for kind, classes in STATEMENT_KINDS.items():
        if name in classes:
            if kind in created and str(tree.args.get("kind", "")).upper() != created[kind]:
                continue
            return kind
    return None


def _quoted_to_strings(tree: Any, schema: SqlSchema) -> Any:
    """SQLite's rule: a double-quoted name that is no column in the schema is a string."""
    from sqlglot import exp

    known = {c.lower() for cols in schema.tables.values() for c in cols}
    known |= {t.lower() for t in schema.tables}

    def convert(node: Any) -> Any:
        if (
            isinstance(node, exp.Column)
            and not node.table
            and node.this.args.get("quoted")
            and node.name.lower() not in known
        ):
            return exp.Literal.string(node.name)
        return node

    return tree.transform(convert)


def _mapping(schema: SqlSchema, dialect: str) -> Any:
    from sqlglot import exp
    from sqlglot.errors import ParseError
    from sqlglot.schema import MappingSchema

    tables: dict[str, object] = {}
    for table, columns in schema.tables.items():
        typed = {}
        for column, type_text in columns.items():
            kind = "UNKNOWN"
            if type_text:
                try:
                    kind = exp.DataType.build(type_text, dialect=dialect).sql(dialect=dialect)
                except (ParseError, ValueError):
                    kind = "UNKNOWN"
            typed[column] = kind
        tables[table] = typed
    return MappingSchema(tables, dialect=dialect)


def bind_sql(
    text: str,
    *,
    dialect: str,
    statements: tuple[str, ...],
    schema: SqlSchema | None,
    check_columns: bool,
    quoted_strings: bool = False,
) -> Any:
    """Parse ``text`` as one statement of ``dialect`` and run the checks; return the Expression."""
    import sqlglot
    from sqlglot.errors import OptimizeError, SqlglotError

    try:
        trees = sqlglot.parse(text, read=dialect)
    except SqlglotError as err:
        raise BindingError(
            f"sqlglot cannot parse the SQL as {dialect or 'generic SQL'}: {err}",
            code="sql-parse",
        ) from err
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise BindingError(
            f"expected exactly one SQL statement, found {len(trees)}",
            code="sql-statement-count",
            hint="statement separators are refused: ask for one statement",
        )
    tree: Any = trees[0]
    kind = statement_kind(tree)
    if kind not in statements:
        raise BindingError(
            f"{kind or type(tree).__name__.upper()} statements are not allowed here"
            f" (allowed: {', '.join(statements)})",
            code="sql-statement-refused",
            hint=f"opt in with typedgen.Sql(..., statements=({', '.join(map(repr, statements))},"
            f" {kind!r})) if this is intended; a grammar is not an authorisation layer",
        )
    if schema is not None and quoted_strings:
        tree = _quoted_to_strings(tree, schema)
    if schema is not None and check_columns:
        from sqlglot.optimizer.qualify import qualify

        logger = logging.getLogger("sqlglot")
        level = logger.level
        logger.setLevel(logging.ERROR)
        try:
            qualify(
                tree.copy(),
                schema=_mapping(schema, dialect),
                dialect=dialect,
                validate_qualify_columns=True,
                quote_identifiers=False,
                identify=False,
            )
        except (OptimizeError, SqlglotError) as err:
            raise BindingError(
                f"the query does not fit the schema: {err}",
                code="sql-schema-check",
                hint="use only the tables and columns of the schema, each through a table"
                " that is in scope",
            ) from err
        finally:
            logger.setLevel(level)
    tree.meta["text"] = text
    return tree

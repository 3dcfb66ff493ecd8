"""Sameness of sqlglot trees, the marks of a spelling aside.

sqlglot records how some nodes were spelled: Snowflake's ``v:a.b`` is a ``JSONExtract`` marked
``variant_extract`` (written ``GET_PATH(v, 'a.b')``, which reads back unmarked), a path key
``quoted``, a bracket in a path ``json_access``; an object literal's ``{'k': v}`` key is read
as an identifier (written ``OBJECT_CONSTRUCT('k', v)``, whose key reads back as a string); a
date part is written by its canonical name (``EXTRACT(DAYOFMONTH FROM a)`` as ``DATE_PART(DAY,
a)``); a dollar-quoted string (``$$a$$``, a ``RawString``) is written as the plain string ``'a'``;
T-SQL writes a derived table's column ``c`` as ``c AS c`` (the same output name); DuckDB
writes ``JSON_EXTRACT(c, 'p') = 1`` as ``(c -> 'p') = 1`` (a call written as an operator,
parenthesised), and PostgreSQL ``ARRAY[1][1]`` as ``(ARRAY[1])[1]``.
A round trip keeps the meaning of each, so the probes and the soundness tests compare trees
with those marks aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["date_part_words", "same_tree"]

_SPELLING_MARKS: dict[str, tuple[str, ...]] = {
    "JSONExtract": ("variant_extract",),
    "JSONPathKey": ("quoted",),
    "Bracket": ("json_access",),
}
"""Arguments that record only how a node was spelled, by expression class."""


def _canonical(tree: Any, dialect: Any) -> Any:
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect

    parts: dict[str, str] = {}
    mysql = False
    if dialect is not None:
        kind = type(Dialect.get_or_raise(dialect))
        parts = getattr(kind, "DATE_PART_MAPPING", {}) or {}
        mysql = kind.__name__ == "MySQL"  # exactly MySQL: Doris's default separator is ", "

    tree = tree.copy()
    for node in list(tree.walk()):
        for arg in _SPELLING_MARKS.get(type(node).__name__, ()):
            node.set(arg, None)
        if (
            isinstance(node, exp.PropertyEQ)
            and isinstance(node.parent, exp.Struct)
            and isinstance(node.this, exp.Identifier)
            and not node.this.quoted
        ):
            node.set("this", exp.Literal.string(node.this.name))
        if isinstance(node, exp.RawString):
            node.replace(exp.Literal.string(node.this))
            continue
        if isinstance(node, exp.GroupConcat) and node.args.get("separator") is None and mysql:
            # MySQL's GROUP_CONCAT(a) is written GROUP_CONCAT(a SEPARATOR ','), its default.
            node.set("separator", exp.Literal.string(","))
        if (
            isinstance(node, exp.DataType)
            and node.this == exp.DType.CHARACTER_SET
            and isinstance(node.args.get("kind"), exp.Identifier)
        ):
            # CONVERT(a USING `x y`) is written CAST(a AS CHAR CHARACTER SET `x y`), whose
            # charset reads back as a word: one charset name, quoted or not.
            node.set("kind", exp.Var(this=node.args["kind"].name))
        if isinstance(node, exp.Paren) and _spelling_paren(node):
            node.replace(node.this)
            continue
        if isinstance(node, exp.Paren) and _interval_amount(node):
            # INTERVAL 2 * 2 MONTH is written INTERVAL (2 * 2) MONTH: the same amount.
            node.replace(node.this)
            continue
        if _self_named(node):
            # SELECT c AS c is SELECT c: T-SQL's writer names a derived table's columns so.
            node.replace(node.this)
            continue
        if isinstance(node, exp.Extract) and isinstance(node.this, exp.Var):
            # EXTRACT(DAYOFMONTH FROM a) is written DATE_PART(DAY, a): one part, two names.
            name = node.this.name.upper()
            node.set("this", exp.Var(this=parts.get(name, name)))
    return tree


def _spelling_paren(node: Any) -> bool:
    """Whether the parentheses ``node`` are the writer's alone: DuckDB writes
    ``JSON_EXTRACT(c, 'p') = 1`` as ``(c -> 'p') = 1`` (a call written as an operator, inside
    another operator), PostgreSQL ``ARRAY[1][1]`` as ``(ARRAY[1])[1]``."""
    from sqlglot import exp

    inner = node.this
    if isinstance(inner, exp.Binary) and isinstance(inner, exp.Func):
        return True
    return bool(
        isinstance(inner, exp.Array)
        and isinstance(node.parent, exp.Bracket)
        and node.arg_key == "this"
    )


def _interval_amount(node: Any) -> bool:
    """Whether ``node`` is an interval's amount: ``INTERVAL (x) DAY`` (``Interval.this``), or
    MySQL's ``DATE_ADD(a, INTERVAL (x) DAY)`` (the ``expression`` of a ``DateAdd`` with a
    unit)."""
    from sqlglot import exp

    parent = node.parent
    if isinstance(parent, exp.Interval):
        return bool(node.arg_key == "this")
    return bool(
        isinstance(parent, (exp.DateAdd, exp.DateSub))
        and node.arg_key == "expression"
        and parent.args.get("unit") is not None
    )


def _self_named(node: Any) -> bool:
    """Whether ``node`` is a select item ``c AS c``: an unqualified column named by its own
    name (the same identifier, quoted alike), which names the output column as ``c`` does.
    A qualified column is left alone (``t.c AS c`` names an output that ORDER BY or GROUP BY
    may reach by ``c``, where ``c`` alone might be ambiguous)."""
    from sqlglot import exp

    if not (isinstance(node, exp.Alias) and isinstance(node.parent, exp.Select)):
        return False
    column, alias = node.this, node.args.get("alias")
    return (
        node.arg_key == "expressions"
        and isinstance(column, exp.Column)
        and not column.table
        and isinstance(column.this, exp.Identifier)
        and isinstance(alias, exp.Identifier)
        and column.this.this == alias.this
        and bool(column.this.quoted) == bool(alias.quoted)
    )


def same_tree(a: Any, b: Any, dialect: Any = None) -> bool:
    """Whether two sqlglot trees are the same, the marks of a spelling aside (and the names
    of a date part, where ``dialect`` is given)."""
    return bool(a == b or _canonical(a, dialect) == _canonical(b, dialect))


# Date parts: typedgen's list, every spelling of the dialect's DATE_PART_MAPPING (DAYOFMONTH,
# DD, WEEKDAY_ISO...) and the x-of-y parts sqlglot models as functions (YEAROFWEEK); each is
# kept where EXTRACT(part FROM a) round-trips (an alias is written as its canonical part,
# which same_tree reads as the same).
_X_OF_Y = re.compile(r"(?:YEAR|QUARTER|MONTH|WEEK|DAY)OF(?:YEAR|MONTH|WEEK|DAY)(?:_?ISO)?")
_WORD = re.compile(r"[A-Z_][A-Z0-9_]*")


def date_part_words(dialect: Any, base: Iterable[str]) -> tuple[str, ...]:
    """The date-part words to probe in ``dialect`` (a sqlglot dialect instance), in order:
    the aliases and x-of-y parts only where the dialect has a mapping of its own (sqlglot's
    base mapping, inherited by every dialect, says nothing of what a database reads)."""
    mapping = getattr(type(dialect), "DATE_PART_MAPPING", {}) or {}
    words = [*base, *mapping.values()]
    if any("DATE_PART_MAPPING" in vars(k) for k in type(dialect).__mro__[:-2]):
        functions = getattr(dialect.parser_class, "FUNCTIONS", {}) or {}
        words += [*mapping, *(n for n in functions if _X_OF_Y.fullmatch(n))]
    return tuple(dict.fromkeys(w for w in words if _WORD.fullmatch(w)))

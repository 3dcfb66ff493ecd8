"""Repair at the faulty place: where a rejection names a place in the output, decode again there.

A validator that rejects one field, or a SQL schema check that rejects one column, says *where*
the output went wrong. Redoing the whole output (the retry with feedback) throws away every
good choice before that place, and under greedy decoding mostly writes the same text again.
Instead, :func:`locate` maps the rejection to a span of the answer text, the generator rolls the
matcher and the KV cache back to the token where that span begins, excludes the token it chose
there, and decodes on from that point (:meth:`typedgen.decoding.loop.Decoder.rewind`).

What can be located:

- a Pydantic ``ValidationError`` (from binding or a validator): each error's ``loc`` is a JSON
  path; the value at that path is found in the text by :func:`json_value_span`;
- a ``Sql`` output with a schema: a column reference whose qualifier's table has no such
  column (``T2.name`` where ``T2`` is ``concert``), or a table that is neither in the schema
  nor named by ``WITH``, found in sqlglot's parse of the text;
- a :class:`~typedgen.errors.Fault` raised by a validator of your own (it names the span).

Everything else (a validator's plain message) leaves the whole-output retry to do the work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from typedgen.errors import BindingError, Fault

__all__ = ["Fault", "Repair", "json_value_span", "locate", "sql_column_faults"]


@dataclass(frozen=True)
class Repair:
    """One choice excluded by a repair: at which token, what text it wrote, and why."""

    token_index: int
    """Tokens of the attempt kept before the excluded one."""
    excluded: str
    """The excluded token's text."""
    place: str
    """The place the rejection named (a JSON path, a column reference)."""
    error: str
    attempt: int = 0


# -- JSON -----------------------------------------------------------------------------------------
def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _string_end(text: str, i: int) -> int:
    """Index after the string starting at ``text[i] == '"'``."""
    i += 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    raise ValueError("unterminated string")


def _value_spans(text: str, i: int, path: tuple[Any, ...], out: dict[tuple[Any, ...], Any]) -> int:
    """Record the span of the value at ``i`` (and of every value inside it) under its path."""
    import json

    i = _skip_ws(text, i)
    start = i
    if i >= len(text):
        raise ValueError("unexpected end")
    c = text[i]
    if c == "{":
        i = _skip_ws(text, i + 1)
        if text[i] == "}":
            i += 1
        else:
            while True:
                i = _skip_ws(text, i)
                key_end = _string_end(text, i)
                key = json.loads(text[i:key_end])
                i = _skip_ws(text, key_end)
                i = _value_spans(text, i + 1, (*path, key), out)  # past ':'
                i = _skip_ws(text, i)
                if text[i] == ",":
                    i += 1
                    continue
                i += 1  # '}'
                break
    elif c == "[":
        i = _skip_ws(text, i + 1)
        if text[i] == "]":
            i += 1
        else:
            index = 0
            while True:
                i = _value_spans(text, i, (*path, index), out)
                index += 1
                i = _skip_ws(text, i)
                if text[i] == ",":
                    i += 1
                    continue
                i += 1  # ']'
                break
    elif c == '"':
        i = _string_end(text, i)
    else:
        while i < len(text) and text[i] not in ",]} \t\r\n":
            i += 1
    out[path] = (start, i)
    return i


def json_value_span(text: str, path: tuple[Any, ...]) -> tuple[int, int] | None:
    """Character span ``[start, end)`` of the value at ``path`` in the JSON ``text``."""
    spans: dict[tuple[Any, ...], Any] = {}
    try:
        _value_spans(text, 0, (), spans)
    except (ValueError, IndexError):
        return None
    found = spans.get(tuple(path))
    return None if found is None else (int(found[0]), int(found[1]))


def _pydantic_faults(exc: Any, answer: str) -> list[Fault]:
    faults = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        while loc:
            span = json_value_span(answer, loc)
            if span is not None:
                place = ".".join(str(p) for p in loc)
                faults.append(
                    Fault(str(err.get("msg", "")), start=span[0], end=span[1], place=place)
                )
                break
            loc = loc[:-1]  # a missing key: repair at its parent (rarely useful, still a place)
        if loc == ():
            continue
    return faults


# -- SQL ------------------------------------------------------------------------------------------
def _unqualified_has_no_table(column: Any, tables: dict[str, set[str]], aliases: set[str]) -> bool:
    """An unqualified column that no table in its query or an enclosing one has.

    Judged only where every source of those queries is a schema table (no subquery, ``WITH``
    name or table function could supply the name), and the name is no output alias.
    """
    from sqlglot import exp

    name = column.name.lower()
    if name in aliases:
        return False
    select = column.find_ancestor(exp.Select)
    if select is None:
        return False
    while select is not None:
        sources = [select.args.get("from_"), *(select.args.get("joins") or ())]
        for source in filter(None, sources):
            if not isinstance(source.this, exp.Table):
                return False  # a subquery, UNNEST, a table function: its columns are unknown
            known = tables.get(source.this.name.lower())
            if known is None or name in known:
                return False
        select = select.find_ancestor(exp.Select)
    return True


def sql_column_faults(answer: str, sql: Any) -> list[Fault]:
    """Table references that are neither in the schema nor a ``WITH`` name, column
    references whose qualifier names no table or alias of the query (at the qualifier's first
    part: ``x.id``, ``a.b.id``) or one that has no such column, and unqualified columns that no
    table of their query (or an enclosing one) has."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    schema = getattr(sql, "schema", None)
    if schema is None:
        return []
    try:
        tree = sqlglot.parse_one(answer, read=sql.dialect)
    except SqlglotError:
        return []
    tables = {t.lower(): {c.lower() for c in cols} for t, cols in schema.tables.items()}
    ctes = {cte.alias.lower() for cte in tree.find_all(exp.CTE) if cte.alias}
    aliases: dict[str, str] = {}
    faults: list[Fault] = []

    def fault(message: str, name: Any, place: str) -> None:
        """A fault over the identifier ``name`` (whose parser meta holds its span)."""
        faults.append(
            Fault(
                message, start=int(name.meta["start"]), end=int(name.meta["end"]) + 1, place=place
            )
        )

    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if name in tables:
            aliases[name] = name
            if table.alias:
                aliases[table.alias.lower()] = name
        elif name not in ctes and "start" in table.this.meta:
            fault(f"no table {table.name} in the schema", table.this, table.name)
    outputs = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
    # Every name a qualifier may use: tables, WITH names, and aliases of tables, derived tables
    # and table functions.
    sources = set(aliases) | ctes | {t.name.lower() for t in tree.find_all(exp.Table)}
    sources |= {a.name.lower() for a in tree.find_all(exp.TableAlias) if a.name}
    for column in tree.find_all(exp.Column):
        if "start" not in column.this.meta or not isinstance(column.this, exp.Identifier):
            continue
        qualifier = column.table.lower()
        first = column.args.get("catalog") or column.args.get("db") or column.args.get("table")
        if qualifier and qualifier not in sources and "start" in getattr(first, "meta", {}):
            # 'x.id' or 'a.b.id' with no table or alias x (b) in the query: the name is wrong
            # from its first part on.
            message = f"no table or alias {column.table} in the query"
            fault(message, first, ".".join(p.name for p in column.parts))
            continue
        if not qualifier:
            if _unqualified_has_no_table(column, tables, outputs):
                message = f"no table in the query has a column {column.name}"
                fault(message, column.this, column.name)
        elif qualifier in aliases and column.name.lower() not in tables[aliases[qualifier]]:
            message = f"table {aliases[qualifier]} has no column {column.name}"
            fault(message, column.this, f"{column.table}.{column.name}")
    return sorted(faults, key=lambda f: f.start)


def locate(output_type: object, answer: str, exc: BaseException | None) -> Fault | None:
    """The earliest place in ``answer`` that the rejection ``exc`` points at, if one is known."""
    if exc is None:
        return None
    if isinstance(exc, Fault):
        return exc
    from pydantic import ValidationError

    faults: list[Fault] = []
    cause = exc.__cause__
    if isinstance(exc, ValidationError):
        faults = _pydantic_faults(exc, answer)
    elif isinstance(cause, ValidationError):
        faults = _pydantic_faults(cause, answer)
    elif isinstance(exc, BindingError) and exc.code == "sql-schema-check":
        faults = sql_column_faults(answer, output_type)
    elif isinstance(exc, BindingError) and isinstance(getattr(exc, "json_path", None), tuple):
        path: tuple[Any, ...] = exc.json_path  # type: ignore[attr-defined]
        span = json_value_span(answer, path)
        if span is not None:
            place = "/" + "/".join(str(p) for p in path)
            faults = [Fault(exc.message, start=span[0], end=span[1], place=place)]
    return min(faults, key=lambda f: f.start) if faults else None

"""Probes of BigQuery's call and subscript syntax (:mod:`.bigquery_syntax`).

The feature probes (:data:`BIGQUERY_PROBES`) are read by sqlglot's base parser in every dialect,
so they are on only where a dialect class includes them (:data:`BIGQUERY_SYNTAX`); the entries
of each construct are read from sqlglot's tables and kept where they round-trip, once per
dialect and process (a few dozen parses):

- :func:`interval_calls`: the functions whose expression class adds an interval (sqlglot's
  ``IntervalOp``: ``DateSub``, ``DatetimeAdd``, ``TimestampSub``...) and that come back unchanged as
  ``NAME(x, INTERVAL '1' unit)``, with the units and the amounts (a number, a column) they
  round-trip with;
- :func:`bracket_offsets`: the parser's ``BRACKET_OFFSETS`` (``a[OFFSET(1)]``, ``a[ORDINAL(1)]``,
  ``a[SAFE_OFFSET(1)]``) that round-trip;
- :func:`prefixed_functions`: the functions the parser reads behind ``AI.`` (its ``_parse_
  column_ops``) whose class is that prefix's (``EMBED`` is ``AIEmbed``), and the ``MODEL m,
  'prompt'`` functions of the ``_parse_generate`` parser, called as values.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = [
    "BIGQUERY_PROBES",
    "BIGQUERY_READ",
    "BIGQUERY_SYNTAX",
    "bracket_offsets",
    "interval_calls",
    "named_parser_calls",
    "nested_types",
    "prefixed_functions",
    "week_days",
]

BIGQUERY_PROBES: dict[str, str] = {
    "interval_calls": "SELECT DATETIME_SUB(a, INTERVAL '1' DAY)",
    "bracket_offsets": "SELECT a[OFFSET(1)], b[SAFE_ORDINAL(2)] FROM t",
    "prefixed_calls": "SELECT AI.EMBED('a')",
    "qualified_udf": "SELECT d.my_udf(a, 1), p.d.f(b)",
    # Round 7, part 2: values, clauses and table suffixes.
    "tuple_value": "SELECT (1, 'a'), [(a, b)], (a, b) = (c, d) FROM t",
    "subscript_field": "SELECT a[0].b, a[OFFSET(1)].c.d FROM t",
    "paren_set_first": "(SELECT a FROM t) UNION ALL (SELECT a FROM u) UNION ALL SELECT 1",
    "qualify_window": "SELECT a FROM t QUALIFY b WINDOW w AS (PARTITION BY c)",
    "system_time_spaced": "SELECT * FROM t AS a FOR SYSTEM TIME AS OF z",
    "unpivot_one_group": "SELECT * FROM t UNPIVOT((c) FOR n IN (v1, v2))",
    "pivot_agg_alias_bare": "SELECT * FROM t PIVOT(SUM(b) d, COUNT(*) e FOR c IN ('x', 'y'))",
    "cast_format_paren": "SELECT CAST(a AS STRING FORMAT ('YYYY'))",
    "cast_format_zone": "SELECT CAST(a AS STRING FORMAT 'YYYY' AT TIME ZONE 'UTC')",
    "week_start": "SELECT EXTRACT(WEEK(MONDAY) FROM a)",
    "unnest_offset_bare": "SELECT * FROM UNNEST(a) WITH OFFSET o",
    "named_parser_args": "SELECT MAKE_INTERVAL(1, 2, minute => 5, day => 3)",
    "derived_alias_pivot": "SELECT * FROM (SELECT * FROM t) AS a UNPIVOT(c FOR n IN (v1, v2))",
    "nested_types": "SELECT CAST(x AS ARRAY<STRUCT<a INT64, b ARRAY<STRING>>>)",
    "typed_constructors": "SELECT ARRAY<INT64>[1, 2], STRUCT<a INT64>(1), ARRAY<STRUCT<x INT64>>[]",
    "respect_nulls_arg": "SELECT PERCENTILE_CONT(x, 0.5 RESPECT NULLS) OVER (),"
    " NTH_VALUE(x, 2 IGNORE NULLS) OVER () FROM t",
}
"""Each construct with the SQL that must round-trip for it to be on."""

BIGQUERY_READ: frozenset[str] = frozenset(
    {
        "system_time_spaced",  # written FOR SYSTEM_TIME
        "pivot_agg_alias_bare",  # written SUM(b) AS d
        "cast_format_paren",  # written FORMAT 'YYYY'
        "unnest_offset_bare",  # written WITH OFFSET AS o
        "named_parser_args",  # written in the class's order (day => 3, minute => 5)
        "typed_constructors",  # STRUCT<a INT64>(1) written CAST(STRUCT(1) AS STRUCT<a INT64>)
    }
)
"""Probes that come back in another spelling of the same tree."""

BIGQUERY_SYNTAX: frozenset[str] = frozenset(BIGQUERY_PROBES)
"""sqlglot's base parser reads all of them (``a[OFFSET(1)]`` as a call in a subscript): on
only where a dialect class includes them."""

_WORD = re.compile(r"[A-Z][A-Z0-9_]*")
_UNITS = (
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
)
_AMOUNTS = {"string": "'1'", "number": "1", "column": "y"}
_GENERATE_SHAPES = {"prompt": "'x'", "prompt_struct": "'x', STRUCT(1 AS a)"}


def _round_trips(sql: str, dialect: str, *, exact: bool) -> bool:
    """sqlglot reads ``sql``, writes it back (the same text, case and spacing aside, when
    ``exact``) and reads that back as the same tree."""
    import sqlglot

    from typedgen.frontends.sql.trees import same_tree

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        text = tree.sql(dialect=dialect)
        if exact and "".join(text.split()).upper() != "".join(sql.split()).upper():
            return False
        return same_tree(sqlglot.parse_one(text, read=dialect), tree, dialect)
    except Exception:  # sqlglot raises several error types on what it cannot read
        return False


def _parser(dialect: str) -> Any:
    from sqlglot.dialects.dialect import Dialect

    return Dialect.get_or_raise(dialect).parser_class


def _classes(builder: Any, name: str) -> list[Any]:
    """The expression classes a ``FUNCTIONS`` entry builds: the bound class, the one of the
    name, or those its closure holds (``build_date_delta_with_interval(exp.DateSub)``)."""
    from sqlglot import exp

    found = [getattr(builder, "__self__", None), exp.FUNCTION_BY_NAME.get(name)]
    found += [cell.cell_contents for cell in getattr(builder, "__closure__", None) or ()]
    return [c for c in found if isinstance(c, type) and issubclass(c, exp.Func)]


@functools.cache
def interval_calls(dialect: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(name, units, amounts) of each ``NAME(x, INTERVAL n unit)`` that round-trips exactly
    (a string amount always; ``number``: ``INTERVAL 1 DAY``, read back quoted; ``column``):
    the functions whose class adds or subtracts a unit (sqlglot's ``IntervalOp`` and
    ``TimeUnit`` classes named ``...Add``/``...Sub``)."""
    from sqlglot import exp

    out = []
    for name, builder in sorted(_parser(dialect).FUNCTIONS.items()):
        if not _WORD.fullmatch(name):
            continue
        if not any(
            issubclass(c, (exp.IntervalOp, exp.TimeUnit)) and c.__name__.endswith(("Add", "Sub"))
            for c in _classes(builder, name)
        ):
            continue
        units = tuple(
            u
            for u in _UNITS
            if _round_trips(f"SELECT {name}(x, INTERVAL '1' {u})", dialect, exact=True)
        )
        if not units:
            continue
        amounts = tuple(
            kind
            for kind, amount in _AMOUNTS.items()
            if _round_trips(f"SELECT {name}(x, INTERVAL {amount} {units[0]})", dialect, exact=False)
        )
        out.append((name, units, amounts))
    return tuple(out)


@functools.cache
def bracket_offsets(dialect: str) -> tuple[str, ...]:
    """The words of ``a[WORD(1)]`` (the parser's ``BRACKET_OFFSETS``) that round-trip."""
    offsets = getattr(_parser(dialect), "BRACKET_OFFSETS", None) or {}
    return tuple(
        word
        for word in sorted(offsets)
        if _WORD.fullmatch(word)
        and _round_trips(f"SELECT a[{word}(1)], b[{word}(c + 1)] FROM t", dialect, exact=True)
    )


def _camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


@functools.cache
def prefixed_functions(dialect: str, prefix: str) -> tuple[tuple[str, str], ...]:
    """(name, kind) of the calls behind ``prefix.`` that round-trip: ``plain``, a function
    whose class is the prefix's (``AI.EMBED``: ``AIEmbed``), called with its own arguments
    (probed with one); ``prompt``/``prompt_struct``, a ``_parse_generate`` function called as
    ``AI.NAME(MODEL m, 'prompt'[, STRUCT(...)])``."""
    par = _parser(dialect)
    out = []
    for name, builder in sorted(par.FUNCTIONS.items()):
        if not _WORD.fullmatch(name):
            continue
        if any(c.__name__ == prefix + _camel(name) for c in _classes(builder, name)):
            if _round_trips(f"SELECT {prefix}.{name}('a')", dialect, exact=True):
                out.append((name, "plain"))
    for name, parse in sorted(par.FUNCTION_PARSERS.items()):
        code = getattr(parse, "__code__", None)
        if not _WORD.fullmatch(name) or code is None or "_parse_generate" not in code.co_names:
            continue
        for kind, args in _GENERATE_SHAPES.items():
            if _round_trips(f"SELECT {prefix}.{name}(MODEL m, {args})", dialect, exact=True):
                out.append((name, kind))
    return tuple(out)


@functools.cache
def week_days(dialect: str) -> tuple[str, ...]:
    """The days of ``WEEK(day)`` (sqlglot's ``WEEK_START_DAY_TO_DOW``) that round-trip as a
    date part, ``EXTRACT(WEEK(MONDAY) FROM a)``."""
    from sqlglot.dialects import dialect as base

    days = getattr(base, "WEEK_START_DAY_TO_DOW", None) or {}
    return tuple(
        day
        for day in days
        if _WORD.fullmatch(day)
        and _round_trips(f"SELECT EXTRACT(WEEK({day}) FROM a)", dialect, exact=True)
    )


def _sets(sql: str, dialect: str, arg: str) -> bool:
    """Whether the first value of ``sql`` has its argument ``arg`` set to the number 2."""
    import sqlglot
    from sqlglot import exp

    try:
        value = sqlglot.parse_one(sql, read=dialect).expressions[0]
    except Exception:  # sqlglot raises several error types on what it cannot read
        return False
    got = value.args.get(arg)
    if isinstance(got, exp.Kwarg) and got.this.name == arg:
        got = got.expression
    return isinstance(got, exp.Literal) and got.this == "2"


@functools.cache
def named_parser_calls(dialect: str) -> tuple[tuple[str, tuple[str, ...], int], ...]:
    """(name, names, most positional) of the functions the dialect parses itself
    (``FUNCTION_PARSERS``) that take their class's arguments by name after positional ones,
    ``MAKE_INTERVAL(1, 2, minute => 5)``: each name kept where ``NAME(1, name => 2)`` and
    ``NAME(name => 2)`` round-trip exactly and the builder sets that argument to the value
    (elsewhere ``name => 2`` is an argument of its own, a keyword argument), and some name
    past the second sets its own argument (not the next by position); up to one positional
    argument fewer than the class has (sqlglot writes the named ones back in the class's
    order, the same tree)."""
    par = _parser(dialect)
    out = []
    for name in sorted(par.FUNCTION_PARSERS):
        builder = par.FUNCTIONS.get(name)
        if builder is None or not _WORD.fullmatch(name):
            continue
        keys: list[str] = []
        for cls in _classes(builder, name)[:1]:
            keys = [k for k in cls.arg_types if _WORD.fullmatch(k.upper())]
        names = tuple(
            k
            for k in keys
            if _sets(f"SELECT {name}(1, {k} => 2)", dialect, k)
            and _round_trips(f"SELECT {name}(1, {k} => 2)", dialect, exact=True)
            and _round_trips(f"SELECT {name}({k} => 2)", dialect, exact=True)
        )
        # By name, not by position: some name past the second sets its own argument.
        if any(k in names for k in keys[2:]):
            out.append((name, names, len(keys) - 1))
    return tuple(out)


@functools.cache
def nested_types(
    dialect: str, words: tuple[str, ...]
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """BigQuery's types of types, ``ARRAY<INT64>``, ``STRUCT<a INT64, b STRING>``: of the
    type names ``words`` (those of sqlglot's ``DataType.NESTED_TYPES`` and its ``RANGE``), the
    shapes each round-trips with (``element``: ``W<T>``; ``fields``: ``W<a T, b T>`` and
    ``W<T, T>``; ``brackets``: ``W<T>[1]``, a typed array; ``parens``: ``W<T>(1)``, a typed
    struct, written as a cast), and the plain type names that round-trip inside them."""
    from sqlglot import exp

    nested = {t.value for t in exp.DataType.NESTED_TYPES} | {"RANGE"}
    shapes = {
        "element": "CAST(x AS {w}<INT64>)",
        "fields": "CAST(x AS {w}<a INT64, b STRING>), CAST(y AS {w}<INT64, STRING>)",
        "brackets": "{w}<INT64>[1, 2], {w}<STRING>[]",
        "parens": "{w}<a INT64>(1), {w}<INT64, STRING>(1, 'a')",
    }
    made: dict[str, tuple[str, ...]] = {}
    for word in words:
        if word not in nested or not _WORD.fullmatch(word):
            continue
        kept = tuple(
            shape
            for shape, sql in shapes.items()
            if _round_trips(f"SELECT {sql.format(w=word)}", dialect, exact=shape != "parens")
        )
        if {"element", "fields"} & set(kept):
            made[word] = kept
    element = next((w for w, kept in made.items() if "element" in kept), None)
    if element is None:
        return {}, ()
    inner = tuple(
        word
        for word in words
        if word not in made
        and _WORD.fullmatch(word)
        and _round_trips(f"SELECT CAST(x AS {element}<{word}>)", dialect, exact=True)
    )
    return made, inner

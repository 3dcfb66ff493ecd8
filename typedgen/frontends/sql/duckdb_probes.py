"""Probes of DuckDB's own syntax (issue 15, sixth round): each construct with the SQL that must
come back from sqlglot as the same tree for it to be on (:mod:`.duckdb` builds the rules).

sqlglot's base parser reads nearly all of these in every dialect (``FROM t SELECT a`` and
``SELECT a[1:2:3]`` come back in SQLite too), so they are dialect-specific
(``probes.DIALECT_SPECIFIC``): on only where a dialect class includes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DUCKDB_PROBES",
    "DUCKDB_SYNTAX",
    "DuckdbTables",
    "column_aggregates",
    "read_duckdb_tables",
]

DUCKDB_PROBES: dict[str, str] = {
    # FROM-first queries: FROM t [SELECT ...] (sqlglot writes them SELECT-first).
    "from_first": "FROM t AS x SELECT a WHERE b GROUP BY a HAVING c QUALIFY d",
    "from_first_bare": "FROM (FROM t) WHERE b ORDER BY a",
    # SELECT #2, #1: the columns by position.
    "positional_column": "SELECT #2, #1 + 1 FROM t",
    # Slices with a step: a[1:2:3], a[:-:-1] (a '-' for the default end).
    "slice_step": "SELECT a[1:2:3], a[:-:-1], a[:x:-1]",
    # List comprehensions: [x + 1 FOR x, i IN l IF i > 1].
    "list_comprehension": "SELECT [x + 1 FOR x IN l], [x FOR x, i IN l IF i > 1 AND x < 3]",
    # ROW(a, b): a struct (sqlglot reads an anonymous call).
    "row_call": "SELECT ROW(), ROW(a, b + 1)",
    # Star expressions: COLUMNS(*), COLUMNS(* EXCLUDE (a)), *COLUMNS('re'), f(t.*).
    "columns_star": "SELECT COLUMNS(* EXCLUDE (a) REPLACE (b + 1 AS b)), MIN(*COLUMNS(*)) FROM t",
    "qualified_star_arg": "SELECT COUNT(t.*), f(t.*) FROM t",
    # FROM 'file.csv': a string naming a table (the tree of a quoted identifier).
    "string_table_name": "SELECT * FROM 'x.y' AS t",
    # FROM x: t, a prefix alias of a table (sqlglot writes t AS x).
    "table_prefix_alias": "SELECT * FROM x: t, y: (SELECT 1), z: f(1)",
    # FROM (VALUES (1, 'a')): rows without an alias.
    "values_unaliased": "SELECT * FROM (VALUES (1, 'a'), (2, 'b')), v: (VALUES (3))",
    # FROM GLOB('*.csv'): the files matching a pattern (GLOB is also an operator's keyword).
    "glob_table": "SELECT * FROM GLOB('*') AS g(a), GLOB(x)",
    # a POSITIONAL JOIN b: rows paired by position. After an alias, so that no dialect can read
    # POSITIONAL as the alias of a and the join as a plain one (the base parser would: FROM a
    # POSITIONAL JOIN b round-trips there as another tree); only a positional join reads it.
    "positional_join": "SELECT * FROM a AS x POSITIONAL JOIN b",
    # @a: the absolute value of the bitwise expression that follows (sqlglot writes ABS(a)).
    "abs_operator": "SELECT @a, @(-1) + 1, 1 + @a * 2",
    # 20_000: digits in groups (sqlglot writes 20000).
    "grouped_digits": "SELECT 20_000, 1_2_3",
    # PIVOT t ON c USING SUM(x) GROUP BY g: the pivot statement, as a subquery or a CTE.
    "pivot_statement": "WITH p AS (PIVOT t ON y IN ('a', 'b'), z USING SUM(q) AS s, MAX(r)"
    " GROUP BY x) SELECT * FROM (PIVOT (SELECT 1) AS c ON y) AS d, p",
    # WITH 'x' AS (...): a string naming a CTE.
    "string_cte_name": "WITH 'x' AS (SELECT 1) SELECT * FROM x",
    # WITH RECURSIVE t(a) USING KEY (a) AS (...): a recursive CTE keyed on columns.
    "cte_using_key": "WITH RECURSIVE t(a) USING KEY (a) AS (SELECT 1), u USING KEY (b, c) AS"
    " (SELECT 2) SELECT 1",
    # a ASOF [LEFT] JOIN b ON a.t >= b.t: the nearest match.
    "asof_join": "SELECT * FROM a ASOF JOIN b ON a.x >= b.x ASOF LEFT JOIN c USING (x)",
    # TABLESAMPLE RESERVOIR (20%) after a table, an alias or a subquery's alias (sqlglot writes
    # the method and PERCENT out: the same tree).
    "tablesample_method": "SELECT * FROM a TABLESAMPLE RESERVOIR (20%), b AS x TABLESAMPLE"
    " (1 ROWS), (SELECT 1) AS c TABLESAMPLE SYSTEM (10 PERCENT) REPEATABLE (1)",
    # PIVOT(SUM(a) AS s, FOR b IN c GROUP BY d): a comma before FOR, values named by an enum
    # type, the grouping inside.
    "pivot_extras": "SELECT * FROM t PIVOT(SUM(a) AS s, FOR b IN c GROUP BY d, e),"
    " u PIVOT(MAX(a) FOR b IN (1) GROUP BY d)",
    # (DESCRIBE t): a table's description as a subquery.
    "describe_table": "SELECT * FROM (DESCRIBE t), (DESCRIBE s.u) AS d",
    # SUM(x) FILTER (x = 1): a filter without WHERE (sqlglot writes it in).
    "filter_bare": "SELECT SUM(x) FILTER (x = 1), COUNT(*) FILTER (y)",
    # GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW: a frame of peer groups.
    "frame_groups": "SELECT SUM(x) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    # INTERVAL '1 quarter': the unit inside the string (sqlglot writes INTERVAL '1' QUARTER).
    "interval_bare_read": "SELECT INTERVAL '1 quarter', INTERVAL '1 day 2 hours'",
    # BIT_OR(a): aggregates of a column or a number only (sqlglot writes a string argument
    # as a CAST, so the ordinary arity probe refuses them); see column_aggregates.
    "column_aggregates": "SELECT BIT_OR(a), BIT_AND(t.b), BIT_XOR(1) FROM t",
}
"""Each construct with the SQL that must read back to the same tree."""

DUCKDB_PROBES["inner_bare"] = "SELECT * FROM a INNER JOIN b"
"""(Every dialect's: an inner join without a condition, which DuckDB writes as a comma.)"""

DUCKDB_SYNTAX: frozenset[str] = frozenset(DUCKDB_PROBES) - {"inner_bare"}
"""DuckDB's features of :data:`DUCKDB_PROBES`: all read probes, and all dialect-specific."""


def column_aggregates(
    dialect: Any, round_trips: Callable[[str, Any], bool], known: frozenset[str]
) -> tuple[str, ...]:
    """sqlglot's aggregates of one argument that round-trip with a column or a number but not
    with a string (DuckDB's ``BIT_OR('a')`` comes back as ``BIT_OR(CAST('a' AS INT))``)."""
    from sqlglot import exp

    builders = getattr(dialect.parser_class, "FUNCTIONS", {}) or {}
    out: list[str] = []
    for name in sorted(known):
        cls = getattr(builders.get(name), "__self__", None) or exp.FUNCTION_BY_NAME.get(name)
        if not (isinstance(cls, type) and issubclass(cls, exp.AggFunc)):
            continue
        if round_trips(f"SELECT {name}('a')", dialect):
            continue  # an ordinary function (the arity probe has it)
        values = ("x", "1", "t.y")
        if all(round_trips(f"SELECT {name}({v}) FROM t", dialect) for v in values):
            out.append(name)
    return tuple(out)


# -- DuckDB's call tables (issue 15, seventh round) ---------------------------------------------
DUCKDB_PROBES.update(
    {
        # DATE_DIFF('day', a, b): a date part as a string (sqlglot reads the unit it names and
        # writes it upper-case: the same tree); see unit_calls.
        "unit_string_calls": "SELECT DATE_DIFF('day', a, b), DATE_DIFF('HOUR', a, b)",
        # REGEXP_EXTRACT(a, 'p', 0, 'i'): a string of regexp flags last; see flag_calls.
        "flag_string_calls": "SELECT REGEXP_EXTRACT(a, 'p', 0, 'i')",
        # NTH_VALUE(a, 2 IGNORE NULLS): the null treatment of a window function inside its
        # parentheses (the tree of NTH_VALUE(a, 2) IGNORE NULLS); see nulls_calls.
        "nulls_inside_calls": "SELECT NTH_VALUE(a, 2 IGNORE NULLS) OVER (ORDER BY b),"
        " LAST_VALUE(a ORDER BY b RESPECT NULLS) OVER (ORDER BY b)",
        # RANK( ORDER BY a): an ORDER BY without arguments; see ordered_bare.
        "ordered_bare": "SELECT RANK( ORDER BY a) OVER (ORDER BY b)",
        # my_udf(a := 1): a named argument of a function sqlglot does not model (a PropertyEQ,
        # which sqlglot's base parser reads in every dialect).
        "walrus_argument": "SELECT my_udf(a := 1, b := x + 1), f(2, c := 'x')",
    }
)
DUCKDB_SYNTAX = DUCKDB_SYNTAX | {
    "unit_string_calls",
    "flag_string_calls",
    "nulls_inside_calls",
    "ordered_bare",
    "walrus_argument",
}

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FLAG_LENGTH = 3
"""Flag strings of up to this many distinct letters (``'ims'``)."""


@dataclass(frozen=True)
class DuckdbTables:
    """Entries of sqlglot's tables for DuckDB's calls, as probed."""

    unit_calls: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    """Functions sqlglot models with a date part (``unit``) that it reads from a string first
    argument (``DATE_DIFF('day', a, b)``), which take no other string there: the name, the
    argument count, and the parts (``EXTRACT``'s) that read back to the same tree."""
    flag_calls: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    """Functions whose last argument at one count more than they take otherwise is a string
    of flags (``REGEXP_EXTRACT(a, 'p', 0, 'im')``): the name, the count, the flag strings."""
    nulls_calls: tuple[tuple[str, tuple[int, ...], bool], ...] = ()
    """Functions that take ``IGNORE NULLS`` / ``RESPECT NULLS`` inside their parentheses as
    the null treatment of the whole call: the name, the argument counts, and whether after
    an ``ORDER BY`` too."""
    ordered_bare: tuple[str, ...] = ()
    """Aggregates of a list of arguments that take ``( ORDER BY a)`` alone (``RANK``)."""


def read_duckdb_tables(
    dialect: Any,
    features: frozenset[str],
    functions: Iterable[Any],
    units: tuple[str, ...],
    round_trips: Callable[[str, Any], bool],
) -> DuckdbTables:
    """The tables above, each probed where its feature probe holds (``functions``: the
    dialect's :class:`~typedgen.frontends.sql.tables.Function` entries)."""
    funcs = tuple(functions)

    def on(feature: str) -> bool:
        return feature in features

    return DuckdbTables(
        unit_calls=_unit_calls(dialect, funcs, units, round_trips)
        if on("unit_string_calls")
        else (),
        flag_calls=_flag_calls(dialect, funcs, round_trips) if on("flag_string_calls") else (),
        nulls_calls=_nulls_calls(dialect, funcs, round_trips) if on("nulls_inside_calls") else (),
        ordered_bare=_ordered_bare(dialect, funcs, round_trips) if on("ordered_bare") else (),
    )


def _node(sql: str, dialect: Any) -> Any:
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception:  # sqlglot's errors
        return None
    values = tree.expressions if isinstance(tree, exp.Select) else []
    return values[0] if len(values) == 1 else None


def _unit_calls(
    dialect: Any, funcs: tuple[Any, ...], units: tuple[str, ...], round_trips: Callable[..., bool]
) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """sqlglot's functions of a ``unit`` that are no function of the dialect otherwise (their
    arity probe failed: a string is written back cast), at the fewest arguments where a
    string part then columns and numbers read back; a string elsewhere must not."""
    from sqlglot import exp

    known = {f.name for f in funcs}
    builders = getattr(dialect.parser_class, "FUNCTIONS", {}) or {}
    out = []
    for name, builder in sorted(builders.items()):
        cls: Any = getattr(builder, "__self__", None) or exp.FUNCTION_BY_NAME.get(name)
        if name in known or "unit" not in (getattr(cls, "arg_types", None) or {}):
            continue
        for k in (2, 3):
            rest = ", ".join(["x"] * (k - 1))
            if not all(
                round_trips(f"SELECT {name}('day', {rest.replace('x', v)})", dialect)
                for v in ("x", "1", "t.x")
            ):
                continue
            node = _node(f"SELECT {name}('day', {rest})", dialect)
            unit = getattr(node, "args", {}).get("unit")
            if not (isinstance(cls, type) and isinstance(node, cls) and isinstance(unit, exp.Var)):
                break
            parts = tuple(
                u
                for u in units
                if all(
                    round_trips(f"SELECT {name}('{w}', {rest})", dialect) for w in {u, u.lower()}
                )
            )
            if parts:
                out.append((name, k, parts))
            break
    return tuple(out)


def _flag_calls(
    dialect: Any, funcs: tuple[Any, ...], round_trips: Callable[..., bool]
) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """Functions that take one argument more only where it is a string of some letters but
    not of others (flags): every string of up to three distinct such letters that reads
    back, after columns, numbers or strings."""
    import itertools

    out = []
    for f in funcs:
        if f.arity.rest is not None:
            continue
        for k in range(2, 6):
            if k in f.arity.counts or k - 1 not in f.arity.counts:
                continue
            head = "x, " * (k - 1)
            if _node(f"SELECT {f.name}({head}'a')", dialect) is None:
                continue
            letters = [c for c in _LETTERS if round_trips(f"SELECT {f.name}({head}'{c}')", dialect)]
            if not letters or len(letters) == len(_LETTERS):
                continue  # no flags, or any string (the arity probe's business)
            flags = [
                "".join(p)
                for n in range(1, _FLAG_LENGTH + 1)
                for p in itertools.permutations(letters, n)
            ]
            heads = [", ".join([v] * (k - 1)) + ", " for v in ("x", "1", "'a'")]
            kept = tuple(
                s
                for s in flags
                if all(round_trips(f"SELECT {f.name}({h}'{s}')", dialect) for h in heads)
            )
            if kept:
                out.append((f.name, k, kept))
    return tuple(out)


def _nulls_calls(
    dialect: Any, funcs: tuple[Any, ...], round_trips: Callable[..., bool]
) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
    """Aggregates where ``f(x, ... IGNORE NULLS)`` and ``RESPECT NULLS`` read back as the
    tree of ``f(x, ...) IGNORE NULLS`` (a null treatment of the call, not of an argument)."""
    from typedgen.frontends.sql.trees import same_tree

    def holds(name: str, args: str, order: str) -> bool:
        for word in ("IGNORE", "RESPECT"):
            inside = f"SELECT {name}({args}{order} {word} NULLS) OVER (ORDER BY z)"
            outside = f"SELECT {name}({args}{order}) {word} NULLS OVER (ORDER BY z)"
            a, b = _node(inside, dialect), _node(outside, dialect)
            if a is None or b is None or not same_tree(a, b, dialect):
                return False
            bare = inside.split(" OVER")[0]
            if not (round_trips(inside, dialect) and round_trips(bare, dialect)):
                return False
        return True

    out = []
    for f in funcs:
        if not f.aggregate:
            continue
        counts = [*(k for k in f.arity.counts if k), *([f.arity.rest] if f.arity.rest else [])]
        taken = tuple(k for k in counts if holds(f.name, ", ".join(["x"] * k), ""))
        if taken:
            ordered = all(holds(f.name, ", ".join(["x"] * k), " ORDER BY y") for k in taken)
            out.append((f.name, taken, ordered))
    return tuple(out)


def _ordered_bare(
    dialect: Any, funcs: tuple[Any, ...], round_trips: Callable[..., bool]
) -> tuple[str, ...]:
    """Aggregates that take no argument, and ``( ORDER BY y)`` as the one item of their list
    of arguments (sqlglot's ``expressions``), where that reads back."""
    from sqlglot import exp

    out = []
    for f in funcs:
        if not (f.aggregate and 0 in f.arity.counts):
            continue
        sql = f"SELECT {f.name}( ORDER BY y) FROM t"
        node = _node(sql, dialect)
        items = node.args.get("expressions") if node is not None else None
        if items and isinstance(items[0], exp.Order) and round_trips(sql, dialect):
            out.append(f.name)
    return tuple(out)

"""Probes of DuckDB's own syntax (issue 15, sixth round): each construct with the SQL that must
come back from sqlglot as the same tree for it to be on (:mod:`.duckdb` builds the rules).

sqlglot's base parser reads nearly all of these in every dialect (``FROM t SELECT a`` and
``SELECT a[1:2:3]`` come back in SQLite too), so they are dialect-specific
(``probes.DIALECT_SPECIFIC``): on only where a dialect class includes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["DUCKDB_PROBES", "DUCKDB_SYNTAX", "column_aggregates"]

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
    # a POSITIONAL JOIN b: rows paired by position.
    "positional_join": "SELECT * FROM a POSITIONAL JOIN b",
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

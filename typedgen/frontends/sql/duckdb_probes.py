"""Probes of DuckDB's own syntax (issue 15, sixth round): each construct with the SQL that must
come back from sqlglot as the same tree for it to be on (:mod:`.duckdb` builds the rules).

sqlglot's base parser reads nearly all of these in every dialect (``FROM t SELECT a`` and
``SELECT a[1:2:3]`` come back in SQLite too), so they are dialect-specific
(``probes.DIALECT_SPECIFIC``): on only where a dialect class includes them.
"""

from __future__ import annotations

__all__ = ["DUCKDB_PROBES", "DUCKDB_SYNTAX"]

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
}
"""Each construct with the SQL that must read back to the same tree."""

DUCKDB_SYNTAX: frozenset[str] = frozenset(DUCKDB_PROBES)
"""The features of :data:`DUCKDB_PROBES`: all read probes, and all dialect-specific."""

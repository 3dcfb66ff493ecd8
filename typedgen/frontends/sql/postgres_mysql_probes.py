"""Round-trip probes of PostgreSQL's and MySQL's own constructs (issue 15, sixth round).

Each construct is on in a dialect where its probe round-trips there (exactly, unless it is in
:data:`PG_MYSQL_READ`: sqlglot writes another spelling of the same tree); the ones sqlglot's
base parser reads in every dialect (:data:`PG_MYSQL_SPECIFIC`) only where a dialect class
includes them (:mod:`.dialects`). The grammar for them is in :mod:`.postgres_mysql`.
"""

from __future__ import annotations

__all__ = ["PG_MYSQL_PROBES", "PG_MYSQL_READ", "PG_MYSQL_SPECIFIC"]

PG_MYSQL_PROBES: dict[str, str] = {
    # PostgreSQL's TRIM(LEADING x) / TRIM(TRAILING x), without FROM: written LTRIM(x) and
    # RTRIM(x), the same tree. (TRIM(BOTH x) is written TRIM(x), another tree: refused.)
    "trim_side_only": "SELECT TRIM(LEADING 'x'), TRIM(TRAILING a) FROM t",
    # PostgreSQL's geometric distance operators (at the level of * and /, sqlglot's FACTOR)
    # and the range adjacency test (a range predicate).
    "distance_ops": "SELECT a <-> b * c, a <<->> b, a * b <-> c FROM t",
    "adjacent_op": "SELECT a FROM t WHERE a -|- b AND c -|- d + 1",
    # psycopg's named placeholders, %(name)s (with placeholders=True only).
    "pct_placeholder": "SELECT * FROM t WHERE a = %(x)s AND b = %(y_1)s",
    # MySQL's a SOUNDS LIKE b IS [NOT] NULL (sqlglot: (SOUNDEX(a) = SOUNDEX(b)) IS NULL).
    "sounds_like_is": "SELECT a FROM t WHERE a SOUNDS LIKE b IS NULL AND c SOUNDS LIKE d IS NOT"
    " NULL IS NULL",
    # LATERAL f(x) AS s(a, b): the function's columns named.
    "lateral_function_columns": "SELECT * FROM t, LATERAL f(a) AS s(x, y)",
    # PostgreSQL's column definition lists for functions returning records, f(x) AS y(a INT),
    # also in ROWS FROM (f(a) AS x(b TEXT), ...).
    "function_column_types": "SELECT * FROM f(z) AS y(a INT, b TEXT)",
    "rows_from_column_types": "SELECT * FROM ROWS FROM (f(a) AS x(b TEXT), g(c)) WITH ORDINALITY"
    " AS y(c INT, d TEXT)",
}
"""Each construct with the SQL that must come back from sqlglot."""

PG_MYSQL_READ: frozenset[str] = frozenset({"trim_side_only", "sounds_like_is"})
"""Probes that need only come back as the same tree (another spelling)."""

PG_MYSQL_SPECIFIC: frozenset[str] = frozenset(
    {"trim_side_only", "distance_ops", "adjacent_op"}
    | {"function_column_types", "rows_from_column_types"}
)
"""Probes sqlglot's base parser passes in every dialect: on only where a class includes them."""

"""Probes of round 7's T-SQL and MySQL constructs: each with the SQL that must come back from
sqlglot (exactly, unless in :data:`TSQL_MYSQL_READ`) for it to be on.
"""

from __future__ import annotations

__all__ = ["TSQL_MYSQL_PROBES", "TSQL_MYSQL_READ", "TSQL_MYSQL_SPECIFIC"]

TSQL_MYSQL_PROBES: dict[str, str] = {
    # T-SQL: a derived table's or CTE's unnamed column, written back named by itself (c AS c,
    # the same tree for trees.same_tree); only where CTEs need names (no cte_unaliased).
    "cte_column_named": 'WITH r AS (SELECT a, "b" FROM t) SELECT * FROM (SELECT a FROM r) AS s',
}
"""Each construct with the SQL that must round-trip."""

TSQL_MYSQL_READ: frozenset[str] = frozenset({"cte_column_named"})
"""Probes that need only come back as the same tree."""

TSQL_MYSQL_SPECIFIC: frozenset[str] = frozenset()
"""Probes sqlglot's base parser reads in every dialect: on only where a dialect includes them."""

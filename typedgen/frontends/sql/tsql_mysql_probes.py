"""Probes of round 7's T-SQL and MySQL constructs: each with the SQL that must come back from
sqlglot (exactly, unless in :data:`TSQL_MYSQL_READ`) for it to be on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = [
    "JSON_COLUMN_PROBE",
    "MYSQL_ROUND7",
    "TSQL_MYSQL_PROBES",
    "TSQL_MYSQL_READ",
    "TSQL_MYSQL_SPECIFIC",
    "json_column_types",
]

TSQL_MYSQL_PROBES: dict[str, str] = {
    # T-SQL: a derived table's or CTE's unnamed column, written back named by itself (c AS c,
    # the same tree for trees.same_tree); only where CTEs need names (no cte_unaliased).
    "cte_column_named": 'WITH r AS (SELECT a, "b" FROM t) SELECT * FROM (SELECT a FROM r) AS s',
    # MySQL: an interval's amount as a term, written in parentheses (the same amount).
    "interval_term": "SELECT DATE_ADD(a, INTERVAL 2 * b DAY), a - INTERVAL (b - 1) DAY,"
    " a + INTERVAL f(b) - 1 DAY",
    # MySQL: GROUP_CONCAT (its default separator written out), CHARSET(a), CONVERT ... USING
    # (written CAST(a AS CHAR CHARACTER SET x)), JSON_TABLE with MySQL's columns.
    "group_concat": "SELECT GROUP_CONCAT(a), GROUP_CONCAT(DISTINCT a ORDER BY b DESC, c"
    " SEPARATOR '-') FROM t",
    "charset_call": "SELECT CHARSET(a), CHARSET(CHAR(65 USING utf8))",
    "convert_using": "SELECT CONVERT(a USING utf8mb4), CONVERT(b USING `my charset`)",
    "json_table_mysql": "SELECT * FROM t, JSON_TABLE(t.a, '$[*]' COLUMNS(b FOR ORDINALITY,"
    " c VARCHAR(255) PATH '$.c', NESTED PATH '$.d' COLUMNS(e INT PATH '$.e'))) AS j",
}
"""Each construct with the SQL that must round-trip."""

TSQL_MYSQL_READ: frozenset[str] = frozenset(
    {"cte_column_named", "interval_term", "group_concat", "convert_using"}
)
"""Probes that need only come back as the same tree."""

TSQL_MYSQL_SPECIFIC: frozenset[str] = frozenset(
    {"interval_term", "group_concat", "charset_call", "convert_using", "json_table_mysql"}
)
"""Probes sqlglot's base parser reads in every dialect: on only where a dialect includes them."""

MYSQL_ROUND7: frozenset[str] = TSQL_MYSQL_SPECIFIC
"""The dialect-specific probes MySQL includes (:mod:`.dialects`)."""

JSON_COLUMN_PROBE = "SELECT * FROM JSON_TABLE(a, '$' COLUMNS(c {type} PATH '$.c')) AS j"
"""A MySQL ``JSON_TABLE`` value column of one type (``{type}``: a name and its parameters)."""


def json_column_types(
    type_words: Iterable[str], reads_back: Callable[[str], bool]
) -> dict[str, tuple[int, ...]]:
    """The types a MySQL ``JSON_TABLE`` column takes: each of sqlglot's type words (the
    words its tokenizer reads as a type, as for ``CAST``) with the parameter counts (0:
    ``INT``, 1: ``VARCHAR(255)``, 2: ``DECIMAL(10, 2)``) with which a column of it reads back
    as the same tree. Not the ``CAST`` types: MySQL's ``CAST`` takes only a few (sqlglot
    writes ``CAST(a AS VARCHAR(9))`` as ``CHAR(9)``), a column any of MySQL's."""
    out: dict[str, tuple[int, ...]] = {}
    for word in type_words:
        params = tuple(
            n
            for n, suffix in enumerate(("", "(10)", "(10, 2)"))
            if reads_back(JSON_COLUMN_PROBE.format(type=word + suffix))
        )
        if params:
            out[word] = params
    return out

"""Probes of T-SQL's and Oracle's own syntax: each construct with the SQL that must come back
from sqlglot (exactly, unless in :data:`TSQL_ORACLE_READ`) for it to be on.

sqlglot's base parser reads most of these in every dialect (``OPTION(...)`` aside), so they are
dialect-specific (``probes.DIALECT_SPECIFIC``): on only where a dialect class includes them
(:mod:`.dialects`) and the probe round-trips there.
"""

from __future__ import annotations

__all__ = ["ORACLE_NATIVE", "TSQL_NATIVE", "TSQL_ORACLE_PROBES", "TSQL_ORACLE_READ"]

TSQL_ORACLE_PROBES: dict[str, str] = {
    # T-SQL.
    "temp_table": "SELECT #t.a FROM #t AS x JOIN ##u ON x.a = ##u.b",
    "table_hint_index": "SELECT * FROM t WITH (TABLOCK, INDEX(i))",
    "query_option": "SELECT a FROM t OPTION(LABEL = 'x', MAXDOP 1, HASH JOIN)",
    "for_browse": "SELECT a FROM t FOR BROWSE",
    # SELECT a = 1: sqlglot reads an equality on a column in the select list as an alias.
    "assign_alias": "SELECT a = 1, b = c + 1 FROM t",
    "convert_type": "SELECT CONVERT(VARCHAR(10), a, 120), CONVERT(INT, b)",
    "openjson": "SELECT * FROM OPENJSON(@j, '$.a') WITH (n VARCHAR(200) '$.n', o NVARCHAR(MAX)"
    " AS JSON) AS j",
    "select_into": "SELECT a, b INTO #t FROM u",
    "type_max": "SELECT CAST(a AS VARCHAR(MAX))",
    # Names: a table in the default schema of a database (a..b), four-part column names,
    # table functions named in a schema (in FROM and APPLY).
    "table_default_schema": "SELECT * FROM a..b AS x",
    "column_four_parts": "SELECT a.b.c.d FROM t",
    "scalar_subquery_order": "SELECT (SELECT TOP 5 a FROM t ORDER BY a DESC FOR JSON PATH) AS j",
    "table_function_qualified": "SELECT * FROM x CROSS APPLY a.b.f(x.y, 1) AS z(c)",
    # Both: a method or packaged function called on a name (sqlglot reads any word after the
    # dot as a call of its own).
    "method_call": "SELECT n.c.VALUE('x', 'float'), a.f(1), a.b.c.g() FROM t",
    # Oracle.
    "interval_span": "SELECT (a - b) DAY(9) TO SECOND(3), (a - b) YEAR TO MONTH FROM t",
    "type_length_unit": "SELECT CAST(a AS VARCHAR2(10 BYTE)), CAST(b AS CHAR(2 CHAR))",
    "connect_by_root": "SELECT CONNECT_BY_ROOT a AS r, CONNECT_BY_ROOT t.b FROM t"
    " CONNECT BY PRIOR a = c",
    "dbms_random": "SELECT DBMS_RANDOM.VALUE(), DBMS_RANDOM.VALUE(1, a + 2)",
    "json_object": "SELECT JSON_OBJECT('a': b, KEY c VALUE d FORMAT JSON ABSENT ON NULL"
    " RETURNING CLOB), JSON_OBJECTAGG(KEY a VALUE b) FROM t",
    "prior_value": "SELECT PRIOR a AS b FROM t CONNECT BY PRIOR a = c",
    "order_siblings": "SELECT a FROM t CONNECT BY PRIOR a = c ORDER SIBLINGS BY a",
    "unpivot_nulls": "SELECT * FROM t UNPIVOT INCLUDE NULLS (a FOR b IN (c, d))",
    "pivot_alias_bare": "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x')) p",
    "unpivot_alias_bare": "SELECT * FROM t UNPIVOT(a FOR b IN (c, d)) p",
    # A qualified pivot column comes back unqualified in some dialects (FOR t.b as FOR b):
    # not dialect-specific, these say where a pivot may name one.
    "pivot_qualified": "SELECT * FROM t PIVOT(SUM(a) FOR t.b IN ('x'))",
    "unpivot_qualified": "SELECT * FROM t UNPIVOT(a FOR b IN (t.c, d))",
    "pivot_after_join": "SELECT * FROM a JOIN b ON a.x = b.y PIVOT(MAX(c) FOR d IN (1, 2))",
    "bulk_collect_into": "SELECT a, b BULK COLLECT INTO x, y FROM u",
    "select_into_vars": "SELECT a, b INTO x, y FROM u",
    "json_table": "SELECT * FROM JSON_TABLE(a FORMAT JSON, '$[*]' ERROR ON ERROR NULL ON EMPTY"
    " COLUMNS(b NUMBER PATH '$.b', c CLOB FORMAT JSON PATH '$.c', NESTED PATH '$.d'"
    " COLUMNS(e PATH '$.e'))) j",
    "xmltable": "SELECT * FROM XMLTABLE('/a' PASSING t.x COLUMNS b VARCHAR2(6) PATH 'c',"
    " d NUMBER PATH 'e') w",
}
"""Each construct with the SQL that must round-trip."""

TSQL_ORACLE_READ: frozenset[str] = frozenset(
    {
        "assign_alias",
        "convert_type",
        "openjson",
        "pivot_alias_bare",
        "unpivot_alias_bare",
        "json_object",
    }
)
"""Probes that need only come back as the same tree (``SELECT a = 1`` is written ``SELECT 1
AS a``, ``CONVERT(INT, b)`` as ``CAST(b AS INTEGER)``, ``INT`` as ``INTEGER``)."""

TSQL_NATIVE: frozenset[str] = frozenset(
    {
        "temp_table",
        "table_hint_index",
        "query_option",
        "for_browse",
        "assign_alias",
        "convert_type",
        "openjson",
        "select_into",
        "type_max",
        "table_default_schema",
        "column_four_parts",
        "table_function_qualified",
        "scalar_subquery_order",
        "method_call",
    }
)
ORACLE_NATIVE: frozenset[str] = frozenset(
    {
        "interval_span",
        "type_length_unit",
        "prior_value",
        "connect_by_root",
        "dbms_random",
        "json_object",
        "order_siblings",
        "unpivot_nulls",
        "pivot_alias_bare",
        "unpivot_alias_bare",
        "pivot_after_join",
        "bulk_collect_into",
        "select_into_vars",
        "json_table",
        "xmltable",
        "method_call",
    }
)

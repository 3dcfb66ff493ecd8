"""The round-trip probes: each syntax feature the SQL grammar may offer, with the SQL that
must come back from sqlglot (see :func:`typedgen.frontends.sql.tables._round_trips`) in a
dialect for the feature to be on there."""

from __future__ import annotations

from typedgen.frontends.sql.bigquery_names_probes import (
    BIGQUERY_NAMES_NATIVE,
    BIGQUERY_NAMES_PROBES,
    BIGQUERY_NAMES_READ,
)
from typedgen.frontends.sql.bigquery_probes import BIGQUERY_PROBES, BIGQUERY_READ, BIGQUERY_SYNTAX
from typedgen.frontends.sql.duckdb_probes import DUCKDB_PROBES, DUCKDB_SYNTAX
from typedgen.frontends.sql.match_recognize import MATCH_RECOGNIZE_PROBES, MATCH_RECOGNIZE_READ
from typedgen.frontends.sql.postgres_mysql_probes import (
    PG_MYSQL_PROBES,
    PG_MYSQL_READ,
    PG_MYSQL_SPECIFIC,
)
from typedgen.frontends.sql.routines import ROUTINE_PROBES
from typedgen.frontends.sql.tsql_mysql_probes import (
    TSQL_MYSQL_PROBES,
    TSQL_MYSQL_READ,
    TSQL_MYSQL_SPECIFIC,
)
from typedgen.frontends.sql.tsql_oracle_probes import (
    ORACLE_NATIVE,
    TSQL_NATIVE,
    TSQL_ORACLE_PROBES,
    TSQL_ORACLE_READ,
)
from typedgen.frontends.sql.warehouse_probes import (
    WAREHOUSE_PROBES,
    WAREHOUSE_READ,
    WAREHOUSE_SPECIFIC,
)

__all__ = ["DIALECT_SPECIFIC", "FEATURE_PROBES", "READ_FEATURES"]

FEATURE_PROBES: dict[str, str] = {
    "booleans": "SELECT TRUE, FALSE",
    "ilike": "SELECT a FROM t WHERE a ILIKE 'x%'",
    "nullsafe_eq": "SELECT a <=> b FROM t",
    "concat": "SELECT a || b FROM t",
    "qualify": "SELECT a FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY a) = 1",
    "nulls_first": "SELECT a FROM t ORDER BY a NULLS FIRST",
    "nulls_last": "SELECT a FROM t ORDER BY a DESC NULLS LAST",
    "nulls_last_plain": "SELECT a FROM t ORDER BY a NULLS LAST",
    "nulls_first_asc": "SELECT a FROM t ORDER BY a ASC NULLS FIRST",
    "nulls_last_asc": "SELECT a FROM t ORDER BY a ASC NULLS LAST",
    "nulls_first_desc": "SELECT a FROM t ORDER BY a DESC NULLS FIRST",
    "date_literal": "SELECT DATE '2020-01-31'",
    "interval": "SELECT INTERVAL '1' DAY",
    "extract": "SELECT EXTRACT(YEAR FROM a) FROM t",
    "full_join": "SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x",
    "right_join": "SELECT * FROM a RIGHT JOIN b ON a.x = b.x",
    "natural_join": "SELECT * FROM a NATURAL JOIN b",
    "using": "SELECT * FROM a JOIN b USING (x)",
    "cross_join": "SELECT * FROM a CROSS JOIN b",
    "cross_apply": "SELECT * FROM x CROSS APPLY (SELECT v FROM t) AS s",
    "outer_apply": "SELECT * FROM x OUTER APPLY (SELECT v FROM t) AS s",
    "table_hint": "SELECT x FROM a WITH (NOLOCK)",
    "indexed_by": "SELECT * FROM t INDEXED BY i",
    "union": "SELECT a FROM t UNION SELECT a FROM u",
    "union_all": "SELECT a FROM t UNION ALL SELECT a FROM u",
    "union_distinct": "SELECT a FROM t UNION DISTINCT SELECT a FROM u",
    "intersect": "SELECT a FROM t INTERSECT SELECT a FROM u",
    "intersect_distinct": "SELECT a FROM t INTERSECT DISTINCT SELECT a FROM u",
    "except": "SELECT a FROM t EXCEPT SELECT a FROM u",
    "except_distinct": "SELECT a FROM t EXCEPT DISTINCT SELECT a FROM u",
    "except_all": "SELECT a FROM t EXCEPT ALL SELECT a FROM u",
    "intersect_all": "SELECT a FROM t INTERSECT ALL SELECT a FROM u",
    "recursive": "WITH RECURSIVE r AS (SELECT 1 AS n) SELECT n FROM r",
    "cte_columns": "WITH r(n) AS (SELECT 1) SELECT n FROM r",
    "cte_unaliased": "WITH r AS (SELECT a FROM t) SELECT a FROM r",
    "window_frame": "SELECT SUM(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN UNBOUNDED"
    " PRECEDING AND CURRENT ROW) FROM t",
    "filter": "SELECT COUNT(*) FILTER (WHERE a > 1) FROM t",
    "count_star": "SELECT COUNT(*) FROM t",
    "limit": "SELECT a FROM t LIMIT 1",
    "offset": "SELECT a FROM t LIMIT 1 OFFSET 2",
    "fetch": "SELECT a FROM t OFFSET 2 ROWS FETCH FIRST 1 ROWS ONLY",
    "fetch_only": "SELECT a FROM t FETCH FIRST 1 ROWS ONLY",
    "fetch_ordered": "SELECT a FROM t ORDER BY a OFFSET 2 ROWS FETCH FIRST 1 ROWS ONLY",
    "fetch_only_ordered": "SELECT a FROM t ORDER BY a FETCH FIRST 1 ROWS ONLY",
    "top": "SELECT TOP 1 a FROM t",
    "cast_operator": "SELECT a::INT FROM t",
    "exists": "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u)",
    "case": "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' END FROM t",
    "timestamp_literal": "SELECT TIMESTAMP '2020-01-31 10:00:00'",
    "is_true": "SELECT a IS TRUE FROM t",
    "similar_to": "SELECT a SIMILAR TO 'x%' FROM t",
    "distinct_from": "SELECT a IS DISTINCT FROM b FROM t",
    "like_escape": "SELECT a LIKE 'x!%' ESCAPE '!' FROM t",
    "bit_and": "SELECT a & b FROM t",
    "bit_or": "SELECT a | b FROM t",
    "bit_xor": "SELECT a ^ b FROM t",
    "bit_not": "SELECT ~a FROM t",
    "shift": "SELECT a << 1 FROM t",
    "json_arrow": "SELECT a -> 'k' FROM t",
    "json_arrow_text": "SELECT a ->> 'k' FROM t",
    "anonymous": "SELECT my_udf(a, 1, 'x') FROM t",
    "nested_with": "WITH a AS (WITH b AS (SELECT 1 AS x) SELECT x FROM b) SELECT x FROM a",
    "subquery_order": "SELECT a FROM (SELECT a FROM t ORDER BY a) AS s",
    "mod_operator": "SELECT a % b FROM t",
    "bare_condition": "SELECT a FROM t WHERE b",
    "paren_set_operand": "SELECT a FROM t UNION (SELECT a FROM u)",
    # ClickHouse: an operand's own ORDER BY / LIMIT before the operator (sqlglot keeps it on
    # that SELECT; elsewhere it writes the operand in parentheses, or as TOP in T-SQL).
    "limited_set_operand": "SELECT a FROM t ORDER BY a LIMIT 1 UNION ALL SELECT b FROM u",
    "rollup": "SELECT a, SUM(b) FROM t GROUP BY ROLLUP (a)",
    "cube": "SELECT a, SUM(b) FROM t GROUP BY CUBE (a)",
    "grouping_sets": "SELECT a, SUM(b) FROM t GROUP BY GROUPING SETS ((a), ())",
    "derived_no_alias": "SELECT * FROM (SELECT 1 AS a)",
    "table_alias_columns": "SELECT * FROM t AS u(a, b)",
    "interval_bare": "SELECT INTERVAL '1 day'",
    "interval_number": "SELECT INTERVAL 1 DAY",
    "try_cast": "SELECT TRY_CAST(a AS INT) FROM t",
    # Statements (each still opt-in through Sql(statements=...)).
    "insert_select": "INSERT INTO t (a) SELECT a FROM u",
    "merge": "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN UPDATE SET b = s.b"
    " WHEN NOT MATCHED THEN INSERT (a, b) VALUES (s.a, s.b)",
    "merge_delete": "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE",
    "merge_and": "MERGE INTO t AS x USING (SELECT a FROM u) AS s ON x.a = s.a"
    " WHEN MATCHED AND s.a > 1 THEN UPDATE SET b = 1",
    "create_view": "CREATE VIEW v AS SELECT a FROM t",
    "create_view_columns": "CREATE VIEW v (x) AS SELECT a FROM t",
    "create_or_replace_view": "CREATE OR REPLACE VIEW v AS SELECT a FROM t",
    # Arrays, structs, subscripts.
    "array_literal": "SELECT [1, 2]",
    "array_constructor": "SELECT ARRAY[1, 2]",
    "array_subquery": "SELECT ARRAY(SELECT 1)",
    "subscript": "SELECT a[1] FROM t",
    "slice": "SELECT a[1:2] FROM t",
    "slice_open": "SELECT a[:2], a[1:], a[:] FROM t",
    # A cast before a slice without a start (SingleStore writes CAST(a AS INT)[:2] as
    # a :> INT[:2], which reads as an array type): off, a cast takes no such slice.
    "cast_open_slice": "SELECT CAST(a AS INT)[:2] FROM t",
    "struct_literal": "SELECT {'a': 1}",
    # FROM: table functions, UNNEST, LATERAL, VALUES, samples, PIVOT.
    "table_function": "SELECT * FROM f(a) AS s",
    "table_function_bare": "SELECT * FROM f(a)",
    "unnest": "SELECT * FROM UNNEST(a) AS u",
    "unnest_columns": "SELECT * FROM UNNEST(a) AS u(x)",
    "unnest_ordinality": "SELECT * FROM UNNEST(a) WITH ORDINALITY AS u(x, n)",
    "unnest_offset": "SELECT * FROM UNNEST(a) AS x WITH OFFSET AS o",
    "lateral_subquery": "SELECT * FROM t, LATERAL (SELECT 1) AS s",
    "lateral_function": "SELECT * FROM t, LATERAL f(a) AS s",
    "join_lateral": "SELECT * FROM t CROSS JOIN LATERAL (SELECT 1) AS s",
    "table_of": "SELECT * FROM TABLE(f(a))",
    # Round 4: a table function's alias names its columns.
    "table_of_columns": "SELECT * FROM TABLE(f(a)) AS s(x, y)",
    "table_function_columns": "SELECT * FROM f(a) AS s(x, y)",
    "values_table": "SELECT * FROM (VALUES (1, 2)) AS t(a, b)",
    "tablesample_system": "SELECT * FROM t TABLESAMPLE SYSTEM (50)",
    "tablesample_bernoulli": "SELECT * FROM t TABLESAMPLE BERNOULLI (50)",
    "tablesample_percent": "SELECT * FROM t TABLESAMPLE (10 PERCENT)",
    "tablesample_system_percent": "SELECT * FROM t TABLESAMPLE SYSTEM (10 PERCENT)",
    "tablesample_rows": "SELECT * FROM t TABLESAMPLE (10 ROWS)",
    "tablesample_plain": "SELECT * FROM t TABLESAMPLE (10)",
    "sample": "SELECT * FROM t SAMPLE (10)",
    "pivot": "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x', 'y'))",
    "pivot_alias": "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x', 'y')) AS p",
    "unpivot": "SELECT * FROM t UNPIVOT(a FOR b IN (c, d))",
    "unpivot_alias": "SELECT * FROM t UNPIVOT(a FOR b IN (c, d)) AS p",
    # Select list and clauses.
    "star_except": "SELECT * EXCEPT (a) FROM t",
    "star_exclude": "SELECT * EXCLUDE (a) FROM t",
    "star_replace": "SELECT * REPLACE (a AS b) FROM t",
    "distinct_on": "SELECT DISTINCT ON (a) a, b FROM t",
    "group_by_all": "SELECT a, SUM(b) FROM t GROUP BY ALL",
    "named_window": "SELECT SUM(a) OVER w FROM t WINDOW w AS (PARTITION BY b)",
    "window_ref_spec": "SELECT SUM(a) OVER (w ORDER BY c) FROM t WINDOW w AS (PARTITION BY b)",
    # Calls.
    "within_group": "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) FROM t",
    "ignore_nulls": "SELECT FIRST_VALUE(a) IGNORE NULLS OVER (ORDER BY b) FROM t",
    "respect_nulls": "SELECT FIRST_VALUE(a) RESPECT NULLS OVER (ORDER BY b) FROM t",
    "ignore_nulls_inside": "SELECT FIRST_VALUE(a IGNORE NULLS) OVER (ORDER BY b) FROM t",
    "named_argument": "SELECT my_udf(a => 1)",
    "trim_from": "SELECT TRIM('x' FROM a) FROM t",
    "trim_both": "SELECT TRIM(BOTH 'x' FROM a) FROM t",
    "trim_leading": "SELECT TRIM(LEADING 'x' FROM a) FROM t",
    "trim_trailing": "SELECT TRIM(TRAILING 'x' FROM a) FROM t",
    "substring_from": "SELECT SUBSTRING(a FROM 1 FOR 2) FROM t",
    "substring_from_only": "SELECT SUBSTRING(a FROM 1) FROM t",
    "position_in": "SELECT POSITION('x' IN a) FROM t",
    # Operators and values.
    "collate": "SELECT a COLLATE x FROM t",
    "collate_string": "SELECT a COLLATE 'x' FROM t",
    "collate_quoted": 'SELECT a COLLATE "x" FROM t',
    "qmark_placeholder": "SELECT * FROM t WHERE a = ?",
    "dollar_placeholder": "SELECT * FROM t WHERE a = $1",
    "colon_placeholder": "SELECT * FROM t WHERE a = :x",
    "at_variable": "SELECT * FROM t WHERE a = @x",
    "json_arrow_path": "SELECT a -> '$.k' FROM t",
    "contains_ops": "SELECT a @> b, a <@ b FROM t",
    "overlap_op": "SELECT a && b FROM t",
    "isnull_op": "SELECT a FROM t WHERE a ISNULL",
    "notnull_op": "SELECT a FROM t WHERE a NOTNULL",
    "not_null_op": "SELECT a FROM t WHERE a NOT NULL",
    "regexp": "SELECT a FROM t WHERE a REGEXP 'x'",
    "rlike": "SELECT a FROM t WHERE a RLIKE 'x'",
    "glob": "SELECT a FROM t WHERE a GLOB 'x'",
    "match": "SELECT a FROM t WHERE a MATCH 'x'",
    # SQLite's IS / IS NOT against any value (null-safe equality): elsewhere sqlglot writes
    # a IS NOT b as NOT a IS b.
    "is_value": "SELECT a IS b FROM t",
    "is_not_value": "SELECT a IS NOT b FROM t",
    # NOT over IN and IS written bare (ClickHouse writes NOT (a IN (1)), another tree).
    "not_in_bare": "SELECT NOT a IN (1)",
    "not_is_bare": "SELECT NOT a IS NULL",
    "like_any": "SELECT a FROM t WHERE a LIKE ANY ('x', 'y')",
    "like_all": "SELECT a FROM t WHERE a LIKE ALL ('x', 'y')",
    "like_any_escape": "SELECT a FROM t WHERE a LIKE ANY ('x', 'y') ESCAPE '#'",
    "like_all_escape": "SELECT a FROM t WHERE a LIKE ALL ('x', 'y') ESCAPE '#'",
    "all_subquery": "SELECT a FROM t WHERE a > ALL (SELECT 1)",
    "any_subquery": "SELECT a FROM t WHERE a = ANY (SELECT 1)",
    "count_distinct_many": "SELECT COUNT(DISTINCT a, b) FROM t",
    "grouping_sets_bare": "SELECT a, SUM(b) FROM t GROUP BY GROUPING SETS (a, (a, b), ())",
    "limit_subquery": "SELECT a FROM t LIMIT (SELECT 1)",
    # FROM (t1 JOIN t2 ON ...) AS s: parenthesised tables and joins.
    "paren_table": "SELECT * FROM (t1 LEFT JOIN t2 ON t1.a = t2.a) AS s",
    "paren_table_bare": "SELECT * FROM (t)",
    "semi_join": "SELECT 1 FROM a SEMI JOIN b ON a.x = b.x",
    "anti_join": "SELECT 1 FROM a ANTI JOIN b ON a.x = b.x",
    "left_semi_join": "SELECT 1 FROM a LEFT SEMI JOIN b ON a.x = b.x",
    "left_anti_join": "SELECT 1 FROM a LEFT ANTI JOIN b ON a.x = b.x",
    "right_semi_join": "SELECT 1 FROM a RIGHT SEMI JOIN b ON a.x = b.x",
    "right_anti_join": "SELECT 1 FROM a RIGHT ANTI JOIN b ON a.x = b.x",
    "lateral_view": "SELECT a FROM t LATERAL VIEW EXPLODE(s) x AS y, z",
    "lateral_view_outer": "SELECT a FROM t LATERAL VIEW OUTER EXPLODE(s) AS y",
    "qualified_star_modifiers": "SELECT t.* REPLACE (a AS b) FROM t",
    "star_bare_union": "SELECT * UNION SELECT 1",
    "offset_only": "SELECT a FROM t ORDER BY a OFFSET 1",
    "fetch_percent": "SELECT a FROM t ORDER BY a FETCH FIRST 10 PERCENT ROWS ONLY",
    "fetch_with_ties": "SELECT a FROM t ORDER BY a FETCH FIRST 10 ROWS WITH TIES",
    "pivot_chain": "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x')) PIVOT(MAX(c) FOR d IN ('y'))",
    "tablesample_bucket": "SELECT a FROM t TABLESAMPLE (BUCKET 1 OUT OF 5)",
    "tablesample_bucket_on": "SELECT a FROM t TABLESAMPLE (BUCKET 1 OUT OF 5 ON x)",
    # Functions written without parentheses (sqlglot's NO_PAREN_FUNCTIONS).
    "current_date": "SELECT CURRENT_DATE",
    "current_time": "SELECT CURRENT_TIME",
    "current_timestamp": "SELECT CURRENT_TIMESTAMP",
    "current_user": "SELECT CURRENT_USER",
    "frame_expr": "SELECT SUM(x) OVER (ORDER BY b ROWS BETWEEN a + 1 PRECEDING AND 2 FOLLOWING)"
    " FROM t",
    # Round 3.
    # Time travel (sqlglot's HISTORICAL_DATA_PREFIX/KIND): before the alias, or after it.
    "historical_at": "SELECT * FROM t AT (TIMESTAMP => x)",
    "historical_before": "SELECT * FROM t BEFORE (TIMESTAMP => x)",
    "historical_after_alias": "SELECT * FROM t AS a AT (TIMESTAMP => x)",
    # Locking clauses.
    "for_update": "SELECT a FROM t FOR UPDATE",
    "for_share": "SELECT a FROM t FOR SHARE",
    "for_update_of": "SELECT a FROM t FOR UPDATE OF t, s.u",
    "for_update_nowait": "SELECT a FROM t FOR UPDATE NOWAIT",
    "for_update_skip_locked": "SELECT a FROM t FOR UPDATE SKIP LOCKED",
    "for_update_many": "SELECT a FROM t FOR SHARE OF t NOWAIT FOR UPDATE OF u SKIP LOCKED",
    # MySQL's index hints (sqlglot's TABLE_INDEX_HINT_TOKENS).
    "index_hint": "SELECT a FROM t USE INDEX (i, j) IGNORE INDEX (k) FORCE INDEX (l)",
    "index_hint_for": "SELECT a FROM t USE INDEX FOR JOIN (i) IGNORE INDEX FOR ORDER BY (k)"
    " FORCE INDEX FOR GROUP BY (l)",
    "index_hint_empty": "SELECT a FROM t USE INDEX ()",
    # ClickHouse's clauses.
    "limit_by": "SELECT a FROM t LIMIT 1 BY a, b",
    "with_totals": "SELECT a, COUNT(b) FROM t GROUP BY a WITH TOTALS",
    "settings": "SELECT a FROM t SETTINGS x = 1, y = 'z'",
    "format_clause": "SELECT a FROM t FORMAT JSONEachRow",
    "array_join": "SELECT a FROM t ARRAY JOIN b, c AS d",
    "left_array_join": "SELECT a FROM t LEFT ARRAY JOIN b AS d",
    # T-SQL's FOR XML / FOR JSON.
    "for_xml": "SELECT a FROM t FOR XML PATH",
    "for_json": "SELECT a FROM t FOR JSON AUTO",
    # Round 4.
    # Temporal tables (sqlglot's VERSION_PHRASES): T-SQL before the alias, BigQuery after it.
    "system_time_as_of": "SELECT * FROM t FOR SYSTEM_TIME AS OF z AS a",
    "system_time_from_to": "SELECT * FROM t FOR SYSTEM_TIME FROM c TO d AS a",
    "system_time_between": "SELECT * FROM t FOR SYSTEM_TIME BETWEEN c AND d AS a",
    "system_time_contained": "SELECT * FROM t FOR SYSTEM_TIME CONTAINED IN (c, d) AS a",
    "system_time_all": "SELECT * FROM t FOR SYSTEM_TIME ALL AS a",
    "system_time_after_alias": "SELECT * FROM t AS a FOR SYSTEM_TIME AS OF z",
    # Hierarchical queries (Oracle, Snowflake).
    "connect_by": "SELECT a FROM t START WITH b = 1 CONNECT BY PRIOR a = c",
    "connect_by_nocycle": "SELECT a FROM t CONNECT BY NOCYCLE PRIOR a = c AND d = PRIOR e",
    # DuckDB's sample clause, written back in its long form (USING SAMPLE SYSTEM (10 PERCENT)).
    "using_sample": "SELECT a FROM t USING SAMPLE 10%",
    # LISTAGG's overflow clause (Oracle, Trino).
    "listagg_overflow": "SELECT LISTAGG(a, ',' ON OVERFLOW ERROR) WITHIN GROUP (ORDER BY a)",
    "listagg_truncate": "SELECT LISTAGG(DISTINCT a, ',' ON OVERFLOW TRUNCATE '...' WITHOUT COUNT)"
    " WITHIN GROUP (ORDER BY a)",
    # Functions with syntax of their own.
    "overlay": "SELECT OVERLAY(a PLACING b FROM 1 FOR 2)",
    "overlay_from": "SELECT OVERLAY(a PLACING b FROM 1)",
    "xmlelement": "SELECT XMLELEMENT(NAME foo, a, 'c'), XMLELEMENT(NAME bar)",
    "xmlattributes": "SELECT XMLELEMENT(NAME foo, XMLATTRIBUTES('x' AS bar, a), 'c')",
    # Round 5, part A (spark, postgres, mysql, tsql, oracle).
    # Hive's and Spark's script transform: TRANSFORM(a, b) USING 'cmd' [AS (x INT, y)].
    "transform_using": "SELECT TRANSFORM(a, b) USING 'cat' AS (x INT, y) FROM t",
    "transform_using_bare": "SELECT TRANSFORM(a) USING 'cat' FROM t",
    # WITHIN GROUP where PERCENTILE_CONT is spelled otherwise (Spark's MODE() WITHIN GROUP).
    "within_group_mode": "SELECT MODE() WITHIN GROUP (ORDER BY a) FROM t",
    # Spark's VALUES as a table without parentheses.
    "values_bare": "SELECT * FROM VALUES (1, 2), (3, 4)",
    "values_bare_alias": "SELECT * FROM VALUES (1, 2) AS t(a, b)",
    # A pivot over a derived table, and values other than calls as pivot aggregations.
    "derived_pivot": "SELECT * FROM (SELECT a FROM t) PIVOT(SUM(a) FOR b IN ('x'))",
    "pivot_any_value": "SELECT * FROM t PIVOT(SUM(a) AS s, 'x' AS y FOR c IN ('z'))",
    # MINUS for EXCEPT (Oracle, Spark, Snowflake): written back as EXCEPT, the same tree.
    "minus": "SELECT a FROM t MINUS SELECT a FROM u",
    # Base-parser constructs (DIALECT_SPECIFIC): lambdas, AS (a, b) after a select item,
    # COLLATE inside a type.
    "lambda": "SELECT f(a, x -> x + 1), f(a, (x, y) -> x + y)",
    "alias_columns": "SELECT f(x) AS (a, b) FROM t",
    "type_collate": "SELECT CAST(a AS STRING COLLATE x)",
    # PostgreSQL.
    "variadic": "SELECT f(a, VARIADIC b) FROM t",
    "from_only": "SELECT * FROM ONLY t AS x WHERE a = 1",
    "tablesample_repeatable": "SELECT * FROM t TABLESAMPLE BERNOULLI (50) REPEATABLE (55)",
    "lateral_ordinality": "SELECT * FROM t, LATERAL f(a) WITH ORDINALITY AS e(v, o)",
    "uescape": "SELECT U&'d!0061t' UESCAPE '!'",
    # Base-parser constructs native to PostgreSQL (DIALECT_SPECIFIC).
    "rows_from": "SELECT * FROM ROWS FROM (f(a), g(b)) WITH ORDINALITY AS x(a, b)",
    "cte_materialized": "WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (SELECT 2)"
    " SELECT 1",
    "overlaps": "SELECT (a, b) OVERLAPS (c, d) AND e",
    "current_schema": "SELECT CURRENT_SCHEMA",
    "substring_for": "SELECT SUBSTRING(a FOR 1)",
    "any_array": "SELECT 1 = ANY (a) AND 2 <= ANY (b)",
    "join_lateral_function": "SELECT * FROM t LEFT JOIN LATERAL f(t.id) AS p ON TRUE",
    # MySQL.
    "member_of": "SELECT a FROM t WHERE 'ab' MEMBER OF(b) AND c MEMBER OF(d) = e",
    "sounds_like": "SELECT a FROM t WHERE a SOUNDS LIKE b",
    "xor": "SELECT a FROM t WHERE a XOR b OR c",
    "char_using": "SELECT CHAR(65 USING utf8), CHAR(65, 66 USING binary)",
    "interval_column": "SELECT INTERVAL a DAY, INTERVAL t.b DAY",
    "assign_variable": "SELECT @a := 1, @b",
    "straight_join": "SELECT a FROM t STRAIGHT_JOIN u ON t.x = u.y",
    # T-SQL.
    "top_percent": "SELECT TOP 10 PERCENT a FROM t",
    "top_ties": "SELECT TOP 10 WITH TIES a FROM t ORDER BY a",
    "top_expr": "SELECT TOP (a + 1) b FROM t",
    "top_subquery": "SELECT TOP (SELECT 1) b FROM t",
    "join_hints": "SELECT x FROM a INNER HASH JOIN b ON b.id = a.id LEFT LOOP JOIN c ON c.id = a.id"
    " INNER MERGE JOIN d ON d.x = a.x INNER REMOTE JOIN e ON e.x = a.x",
    "next_value_for": "SELECT NEXT VALUE FOR db.s.seq, NEXT VALUE FOR s OVER (ORDER BY a)",
    "iif": "SELECT IIF(a > 1, 'x', 'y')",
    "table_variable": "SELECT a FROM @v",
    "datepart": "SELECT DATEPART(YEAR, a), DATEPART(day, a)",
    # Oracle.
    "unpivot_in_alias": "SELECT * FROM t UNPIVOT(q FOR p IN (q1 AS 1, q2 AS 'b'))",
    "at_time_zone": "SELECT a AT TIME ZONE 'UTC' FROM t",
    "systimestamp": "SELECT SYSTIMESTAMP",
    "sample_alias": "SELECT * FROM t SAMPLE (25) s",
    "sample_seed": "SELECT * FROM t SAMPLE (10) SEED (1)",
    "outer_join_mark": "SELECT a FROM t, u WHERE t.y (+) = u.y AND t.z = u.z (+)",
    "nth_value_from": "SELECT NTH_VALUE(x, 2) FROM FIRST OVER (ORDER BY y),"
    " NTH_VALUE(x, 2) FROM LAST OVER (ORDER BY y) FROM t",
    "chr_using": "SELECT CHR(187 USING NCHAR_CS)",
    "keep": "SELECT MIN(a) KEEP (DENSE_RANK FIRST ORDER BY c),"
    " MAX(a) KEEP (DENSE_RANK LAST ORDER BY c DESC) OVER (PARTITION BY d) FROM t",
    # Read spellings native to one dialect (DIALECT_SPECIFIC and READ_FEATURES): MySQL's
    # && and || for AND and OR and DISTINCTROW, PostgreSQL's INTERVAL '1' HOUR.
    "and_symbol": "SELECT a FROM t WHERE a && b",
    "or_symbol": "SELECT a FROM t WHERE a || b",
    # After an alias too, so that no dialect can read the word as a column named by it and
    # aliased a (the base parser reads SELECT UNIQUE a so: another tree, which a round trip
    # alone does not tell).
    "distinctrow": "SELECT DISTINCTROW a AS x FROM t",
    "interval_read": "SELECT a - INTERVAL '1' HOUR",
    "unique_select": "SELECT UNIQUE a AS x FROM t",
    "date_add_interval": "SELECT DATE_ADD(a, INTERVAL '1' DAY), DATE_SUB(a, INTERVAL b DAY)",
    "caret_neq": "SELECT a FROM t WHERE a ^= 1",
    "nth_value_from_nulls": "SELECT NTH_VALUE(x, 2) FROM FIRST RESPECT NULLS OVER (ORDER BY y),"
    " NTH_VALUE(x, 2) FROM LAST IGNORE NULLS OVER (ORDER BY y) FROM t",
    # PostgreSQL's JSONB key and path operators.
    "jsonb_key_ops": "SELECT a ?| b, a ?& c, a @? '$.a'",
}
"""Each syntax feature the grammar offers, with the SQL that must round-trip for it to be on."""

READ_FEATURES: frozenset[str] = frozenset(
    {
        "json_arrow_path",
        "using_sample",
        "sample",
        "lateral_function",
        "tablesample_plain",
        "tablesample_percent",
        "extract",
        # NULLS FIRST/LAST where it is the default come back omitted (ASC too); read only
        # where some placement round-trips exactly (below), so MySQL gets none.
        "nulls_first",
        "nulls_last",
        "nulls_last_plain",
        "nulls_first_asc",
        "nulls_last_asc",
        "nulls_first_desc",
        "minus",
        "sounds_like",
        "substring_for",
        "and_symbol",
        "or_symbol",
        "distinctrow",
        "interval_read",
        "unique_select",
        "caret_neq",
    }
)
"""Features whose probe need not come back in the same spelling, only as the same tree:
native syntax that sqlglot writes in another form (SQLite's ``a -> 'k'`` comes back as
``a -> '$.k'``, Snowflake's ``SAMPLE (10)`` as ``TABLESAMPLE BERNOULLI (10)`` and
``EXTRACT(YEAR FROM a)`` as ``DATE_PART``). Only where no other dialect reads the probe as
a transpilation: PostgreSQL's ``a ISNULL`` or MySQL's ``a REGEXP 'x'`` are read elsewhere
too, so those are dialect overrides (:mod:`.dialects`)."""

DIALECT_SPECIFIC: frozenset[str] = frozenset(
    {
        "cast_format",
        "historical_at",
        "historical_before",
        "historical_after_alias",
        "limit_by",
        "connect_by",
        "connect_by_nocycle",
        "overlay",
        "overlay_from",
        "xmlelement",
        "xmlattributes",
        "lambda",
        "alias_columns",
        "type_collate",
        "assign_variable",
        "straight_join",
        "interval_column",
        "rows_from",
        "cte_materialized",
        "overlaps",
        "current_schema",
        "substring_for",
        "any_array",
        "join_lateral_function",
        "table_variable",
        "datepart",
        "at_time_zone",
        "systimestamp",
        "chr_using",
        "and_symbol",
        "or_symbol",
        "distinctrow",
        "interval_read",
        "unique_select",
        "date_add_interval",
    }
)
"""Features sqlglot's base parser reads (and writes back) in *every* dialect, so a round trip
cannot tell where they are native: Snowflake's ``AT (TIMESTAMP => x)`` and ClickHouse's
``LIMIT 1 BY a`` round-trip in SQLite too, which refuses both. They are off unless a dialect
class names them in ``include_features`` (see :mod:`.dialects`); where one does, its probe
must still round-trip there. ``cast_format`` has no probe of its own: it is on where some type
takes ``FORMAT`` (``DialectTables.format_types``)."""

_FAMILIES: tuple[tuple[dict[str, str], frozenset[str], frozenset[str]], ...] = (
    # (probes, those read back in another spelling, those on only where a dialect names them)
    # Round 5: one warehouse's constructs (DuckDB, BigQuery, Snowflake, ClickHouse, Trino).
    (WAREHOUSE_PROBES, WAREHOUSE_READ, WAREHOUSE_SPECIFIC),
    # Round 6: PostgreSQL's and MySQL's constructs; DuckDB's own syntax (FROM-first queries,
    # COLUMNS(*), slices with a step...); T-SQL's and Oracle's; inline SQL routines (Trino's
    # WITH FUNCTION); MATCH_RECOGNIZE.
    (PG_MYSQL_PROBES, PG_MYSQL_READ, PG_MYSQL_SPECIFIC),
    (DUCKDB_PROBES, frozenset(DUCKDB_PROBES), DUCKDB_SYNTAX),
    (TSQL_ORACLE_PROBES, TSQL_ORACLE_READ, TSQL_NATIVE | ORACLE_NATIVE),
    (ROUTINE_PROBES, frozenset(), frozenset()),
    (MATCH_RECOGNIZE_PROBES, MATCH_RECOGNIZE_READ, frozenset()),
    # Round 7: T-SQL's and MySQL's; BigQuery's names and lexemes; BigQuery's calls and
    # subscripts.
    (TSQL_MYSQL_PROBES, TSQL_MYSQL_READ, TSQL_MYSQL_SPECIFIC),
    (BIGQUERY_NAMES_PROBES, BIGQUERY_NAMES_READ, BIGQUERY_NAMES_NATIVE),
    (BIGQUERY_PROBES, BIGQUERY_READ, BIGQUERY_SYNTAX),
)
"""The feature modules' probes, registered here (one line per family)."""

for _probes, _read, _specific in _FAMILIES:
    FEATURE_PROBES.update(_probes)
    READ_FEATURES = READ_FEATURES | _read
    DIALECT_SPECIFIC = DIALECT_SPECIFIC | _specific

"""Probes and tables of the syntax one warehouse has (DuckDB, BigQuery, Snowflake, ClickHouse,
Trino): each construct with the SQL that must come back from sqlglot for it to be on, and the
entries of sqlglot's own tables (ClickHouse's parametric aggregates, the join phrases its parser
reads, type constructors taking types) that round-trip, read as :mod:`.tables` reads the rest.

Most of these round-trip in sqlglot's base parser too (``ORDER BY a WITH FILL`` and ``FROM
v(x = 1)`` come back unchanged in SQLite), so they are dialect-specific
(``probes.DIALECT_SPECIFIC``): on only where a dialect class includes them and the probe
round-trips there.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BIGQUERY_NATIVE",
    "CLICKHOUSE_NATIVE",
    "DUCKDB_NATIVE",
    "SNOWFLAKE_NATIVE",
    "TRINO_NATIVE",
    "WAREHOUSE_PROBES",
    "WAREHOUSE_READ",
    "WAREHOUSE_SPECIFIC",
    "WarehouseTables",
    "read_warehouse_tables",
]

WAREHOUSE_PROBES: dict[str, str] = {
    # ClickHouse.
    "global_in": "SELECT a FROM t WHERE x GLOBAL IN (SELECT 1)",
    "global_not_in": "SELECT a FROM t WHERE x GLOBAL NOT IN (1, 2)",
    "final": "SELECT * FROM t AS y FINAL",
    "prewhere": "SELECT a FROM t PREWHERE b = 1 WHERE c = 2",
    "sample_ratio": "SELECT a FROM t AS x SAMPLE 1 / 10 OFFSET 1 / 2",
    "star_apply": "SELECT * APPLY(sum) APPLY(toString) FROM t",
    "with_fill": "SELECT a FROM t ORDER BY a DESC WITH FILL FROM 1 TO 2 STEP 1, b WITH FILL",
    "interpolate": "SELECT a FROM t ORDER BY a WITH FILL INTERPOLATE (b AS b + 1, c)",
    "in_array_read": "SELECT a FROM t WHERE x IN ['a', 'b']",
    "view_parameters": "SELECT a FROM s.v(x = 1, y = 'z') AS w",
    "cte_expression": "WITH 1 AS x, y AS (SELECT 2) SELECT x",
    "values_rows": "SELECT * FROM VALUES ((1, 1), (2, 1))",
    "using_bare": "SELECT * FROM a JOIN b USING x, y",
    "query_parameter": "SELECT a FROM t WHERE x = {p: String} AND y = {q: Array(UInt8)}",
    # Intervals of a value other than a string: a parenthesised expression, a number (which
    # sqlglot writes back quoted: INTERVAL '1' DAY, the same tree); of a column, the probe
    # interval_column (probes.py).
    "interval_paren": "SELECT INTERVAL (x + 1) DAY",
    "interval_number_read": "SELECT INTERVAL 1 DAY",
    # Types of types (MAP(VARCHAR, INT), Nullable(DateTime)): sqlglot's base parser reads
    # them in every dialect (SQLite too), so they are on where a dialect class says so.
    "type_constructors": "SELECT CAST(x AS ARRAY(INT))",
    # Typed literals beyond DATE '...' and TIMESTAMP '...' (DATETIME '...', JSON '...',
    # NUMERIC '...'), which sqlglot writes as CASTs (or PARSE_JSON): the same tree.
    "typed_literals": "SELECT TIME '23:59:59'",
    # BigQuery: SELECT AS STRUCT / AS VALUE, IN UNNEST(...), and clauses inside an
    # aggregate's parentheses (per function: aggregate_clauses below).
    "select_as_struct": "SELECT DISTINCT AS STRUCT 1 AS a, b FROM t",
    "select_as_value": "SELECT AS VALUE STRUCT(1 AS a)",
    "in_unnest": "SELECT a FROM t WHERE b IN UNNEST(c)",
    "aggregate_clauses": "SELECT ARRAY_AGG(a ORDER BY b LIMIT 10) FROM t",
    # DuckDB.
    "prefix_alias": "SELECT foo: 1, bar: a + 2 FROM t",
    "map_literal": "SELECT MAP {'x': 1, 'y': a}",
    "limit_percent": "SELECT * FROM t LIMIT 10 PERCENT OFFSET 1",
    "limit_percent_sign": "SELECT * FROM t LIMIT 10% OFFSET 1",
    "empty_array": "SELECT [], [[]]",
    "lambda_keyword": "SELECT LIST_TRANSFORM(a, LAMBDA x, y : x + y)",
    "dollar_variable": "SELECT * FROM t WHERE a = $x",
    # Set operations by name (DuckDB, BigQuery) and BigQuery's CORRESPONDING and sides.
    "union_by_name": "SELECT 1 AS x UNION ALL BY NAME ON (x) SELECT 2 AS x",
    "union_by_name_bare": "SELECT 1 AS x UNION BY NAME SELECT 2",
    "union_corresponding": "SELECT 1 AS x UNION ALL STRICT CORRESPONDING BY (a) SELECT 2 AS x",
    "union_side": "SELECT a FROM t FULL OUTER UNION ALL BY NAME (SELECT 2 AS a)",
    # Snowflake.
    "colon_number": "SELECT :1, :2",
    "asof_match": "SELECT * FROM x ASOF JOIN y MATCH_CONDITION (x.a > y.a) ON x.i = y.i",
    "directed_join": "SELECT * FROM a INNER DIRECTED JOIN b USING (i) CROSS DIRECTED JOIN c",
    "pivot_in_query": "SELECT * FROM t PIVOT(SUM(a) FOR b IN (SELECT DISTINCT q FROM u))",
    "pivot_in_any": "SELECT * FROM t PIVOT(SUM(a) FOR b IN (ANY ORDER BY b)) AS p",
    "stage_reference": "SELECT * FROM @ns.%t/path/to/file.csv.gz (PATTERN => 'p') AS t(a)",
    "string_table": "SELECT * FROM '@x' (FILE_FORMAT => 'f') AS t",
    "star_braces": "SELECT {*}, {t.*}, {* EXCLUDE (a, b)} FROM t",
    "star_exclude_bare": "SELECT * EXCLUDE a FROM t",
    "star_rename": "SELECT * EXCLUDE (a) RENAME (b AS c, d AS e) FROM t",
    "sample_suffix": "SELECT * FROM t AS x TABLESAMPLE BERNOULLI (5) SEED (1)",
    "sample_read": "SELECT * FROM t AS x SAMPLE BLOCK (0.5) REPEATABLE (1)",
    "date_part_from": "SELECT DATE_PART(year FROM a)",
    # Semi-structured paths (semistructured.py), written back as GET_PATH(v, 'a.b[0].c').
    "variant_path": 'SELECT v:a.b[0]:c::INT, t.v:"x y"[k]:from FROM t',
    # Snowflake (snowflake_syntax.py).
    "changes": "SELECT * FROM t CHANGES (INFORMATION => DEFAULT) AT (OFFSET => -1) END (STREAM"
    " => s)",
    "object_type": "SELECT CAST(x AS OBJECT(a INT NOT NULL, b OBJECT(c VARCHAR)))",
    "object_fields": "SELECT CAST(x AS OBJECT(a INT) ADD FIELDS), CAST(y AS OBJECT(b INT) RENAME"
    " FIELDS)",
    "limit_null": "SELECT a FROM t LIMIT NULL OFFSET 1",
    "dollar_column": "SELECT t.$1, $1.a FROM t",
    "model_attribute": "SELECT m!PREDICT(1, x), m!foo FROM t",
    # BigQuery's ML.*/AI.* table functions (bigquery_ml.py).
    "ml_functions": "SELECT * FROM ML.PREDICT(MODEL m, TABLE t, STRUCT(1 AS a)) AS p",
    "gap_fill": "SELECT * FROM GAP_FILL(TABLE t, ts_column => 'a', bucket_width => x, origin => y)",
    "vector_search": "SELECT * FROM VECTOR_SEARCH(TABLE t, 'c', TABLE q, 'd', top_k => 2) AS v",
    "features_at_time": "SELECT * FROM ML.FEATURES_AT_TIME(TABLE t, time => 'x', num_rows => 1)",
    "ai_forecast": "SELECT * FROM AI.FORECAST((SELECT 1), data_col => 'a', horizon => 3)",
    # A JOIN without a condition (query.py): BigQuery and ClickHouse write it as a comma join.
    "join_bare": "SELECT * FROM a JOIN b",
    "unpivot_groups": "SELECT * FROM t UNPIVOT((a, b) FOR s IN ((q1, q2) AS 'x', (q3, q4) AS 'y'))",
}
"""Each construct with the SQL that must round-trip (exactly, unless in :data:`WAREHOUSE_READ`)."""

WAREHOUSE_READ: frozenset[str] = frozenset(
    {
        "using_bare",
        "interval_number_read",
        "in_array_read",
        "type_constructors",
        "typed_literals",
        "prefix_alias",
        "limit_percent_sign",
        "star_exclude_bare",
        "sample_read",
        "union_corresponding",
        "join_bare",
        "variant_path",
        "date_part_from",
    }
)
"""Probes that need only come back as the same tree (a spelling sqlglot reads and writes in
another form)."""

CLICKHOUSE_NATIVE: frozenset[str] = frozenset(
    {
        "global_in",
        "global_not_in",
        "final",
        "prewhere",
        "sample_ratio",
        "star_apply",
        "with_fill",
        "interpolate",
        "in_array_read",
        "view_parameters",
        "cte_expression",
        "values_rows",
        "type_constructors",
        "using_bare",
        "query_parameter",
        "interval_column",
        "interval_paren",
        "interval_number_read",
        # Generic probes whose spelling sqlglot writes in another form, the same tree:
        # {'a': 1} as map('a', 1), POSITION(x IN y) as POSITION(y, x).
        "struct_literal",
        "position_in",
    }
)
"""ClickHouse's own constructs (see :mod:`.dialects`)."""

SNOWFLAKE_NATIVE: frozenset[str] = frozenset(
    {
        "type_constructors",
        "typed_literals",
        "aggregate_clauses",
        "empty_array",
        "star_braces",
        "star_exclude_bare",
        "star_rename",
        "sample_suffix",
        "sample_read",
        "dollar_variable",
        "colon_number",
        "asof_match",
        "directed_join",
        "stage_reference",
        "string_table",
        "pivot_in_query",
        "pivot_in_any",
        "variant_path",
        "struct_literal",  # {'a': 1} comes back as OBJECT_CONSTRUCT('a', 1): the same tree
        "changes",
        "object_type",
        "object_fields",
        "limit_null",
        "dollar_column",
        "model_attribute",
    }
)
DUCKDB_NATIVE: frozenset[str] = frozenset(
    {
        "type_constructors",
        "typed_literals",
        "prefix_alias",
        "map_literal",
        "limit_percent",
        "limit_percent_sign",
        "empty_array",
        "interval_paren",
        "interval_number_read",
        "array_constructor",  # ARRAY[1, 2] comes back as [1, 2]: the same tree
        "lambda_keyword",
        "dollar_variable",
        "union_by_name",
        "union_by_name_bare",
    }
)
BIGQUERY_NATIVE: frozenset[str] = frozenset(
    {
        "gap_fill",
        "vector_search",
        "features_at_time",
        "ai_forecast",
        "unpivot_groups",
        "ml_functions",
        "typed_literals",
        "select_as_struct",
        "select_as_value",
        "in_unnest",
        "aggregate_clauses",
        "empty_array",
        "union_by_name",
        "union_corresponding",
        "union_side",
    }
)
TRINO_NATIVE: frozenset[str] = frozenset({"type_constructors", "typed_literals"})

WAREHOUSE_SPECIFIC: frozenset[str] = (
    CLICKHOUSE_NATIVE | SNOWFLAKE_NATIVE | DUCKDB_NATIVE | BIGQUERY_NATIVE | TRINO_NATIVE
) - {"struct_literal", "position_in", "array_constructor"}
"""Probes sqlglot's base parser round-trips in every dialect, or that only some dialect's
databases read: on only where a dialect class includes them."""

_PARAMETRIC_SHAPES = ((1, 1), (2, 1), (1, 2))
"""(parameters, arguments) of ``name(0.5)(a)`` probed for a parametric aggregate."""
_JOIN_STRICTNESS = ("ANY", "ALL", "ASOF", "SEMI", "ANTI")
_JOIN_SIDES = ("", "LEFT", "RIGHT", "FULL", "INNER")


@dataclass(frozen=True)
class WarehouseTables:
    """Entries of sqlglot's tables for one warehouse's syntax, as probed."""

    parametric: tuple[str, ...] = ()
    """ClickHouse's parametric aggregates sqlglot reads as such only in this spelling
    (``quantiles(0.5)(a)``; ``Quantiles(0.5)(a)`` is a call with an alias): any number of
    parameters and arguments."""
    parametric_known: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    """Functions sqlglot models that take parameters too (``quantile(0.5)(a)``,
    ``groupConcat(', ')(x)``), any case, with the (parameters, arguments) counts that
    round-trip."""
    type_constructors: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Types that take types (``MAP(VARCHAR, INT)``, ``Nullable(DateTime)``, ``Tuple(...)``),
    with the numbers of type arguments that round-trip (3: three or more)."""
    inner_types: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """The types (with their parameter counts) that round-trip inside every constructor:
    ClickHouse writes ``Array(VARCHAR)`` as ``Array(String)``, another tree."""
    typed_literals: tuple[str, ...] = ()
    """Types written before a string as a literal (``DATETIME '2020-01-01 10:00:00'``):
    sqlglot's temporal, JSON and decimal types that round-trip so."""
    aggregate_clauses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Aggregates of one argument with the clauses each takes inside its parentheses, as
    probed one by one (``ignore``: ``x IGNORE NULLS``, ``respect``, ``having``: ``x HAVING MAX
    y``, ``limit``: ``x LIMIT 10``, ``order_limit``: ``x ORDER BY y LIMIT 10``)."""
    join_phrases: tuple[tuple[tuple[str, ...], bool, bool], ...] = ()
    column_aggregates: tuple[str, ...] = ()
    """Aggregates of one column or number only (``duckdb_probes.column_aggregates``)."""
    """ClickHouse's join phrases before ``JOIN`` (``GLOBAL LEFT ANY``, ``ANY LEFT``) that
    round-trip as the same tree, each with whether it does so with ``ON`` and without a
    condition."""


def _parametric(
    dialect: Any, round_trips: Callable[[str, Any], bool], known: frozenset[str]
) -> tuple[tuple[str, ...], dict[str, tuple[tuple[int, int], ...]]]:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    mapping = getattr(dialect.parser_class, "AGG_FUNC_MAPPING", None) or {}
    plain: list[str] = []
    modelled: dict[str, tuple[tuple[int, int], ...]] = {}

    def keeps(name: str, params: int, args: int) -> bool:
        head = ", ".join(["0.5", "1", "2"][:params])
        tail = ", ".join(["a", "b"][:args])
        sql = f"SELECT {name}({head})({tail})"
        if not round_trips(sql, dialect):
            return False
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except SqlglotError:
            return False
        # A call followed by "(a)" is also read as a call with an alias list.
        return not any(tree.find_all(exp.Alias, exp.Aliases))

    for name in sorted(mapping):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        shapes = tuple(s for s in _PARAMETRIC_SHAPES if keeps(name, *s))
        if name.upper() in known:
            if shapes:
                modelled[name.upper()] = shapes
        elif shapes == _PARAMETRIC_SHAPES:
            plain.append(name)
    return tuple(plain), modelled


def _join_phrases(
    dialect: Any, round_trips: Callable[[str, Any], bool]
) -> tuple[tuple[tuple[str, ...], bool, bool], ...]:
    out: list[tuple[tuple[str, ...], bool, bool]] = []
    phrases: list[tuple[str, ...]] = [("GLOBAL",), ("GLOBAL", "CROSS")]
    phrases += [("GLOBAL", side) for side in _JOIN_SIDES if side]
    for glob, strict, side, strict_first in itertools.product(
        ("", "GLOBAL"), _JOIN_STRICTNESS, _JOIN_SIDES, (False, True)
    ):
        if strict_first and not side:
            continue
        words = (strict, side) if strict_first else (side, strict)
        phrases.append(tuple(w for w in (glob, *words) if w))
    for phrase in phrases:
        text = " ".join(phrase)
        with_on = round_trips(f"SELECT * FROM a {text} JOIN b ON a.x = b.x", dialect)
        bare = round_trips(f"SELECT * FROM a {text} JOIN b", dialect)
        if with_on or bare:
            out.append((phrase, with_on, bare))
    return tuple(out)


_INNER_PREFERRED = ("INT", "String", "VARCHAR", "INT64", "TEXT", "INTEGER")
_TYPE_SUFFIXES = ("", "(10)", "(10, 2)")


def _nested_cast(sql: str, dialect: Any, word: str) -> bool:
    """Whether the cast of ``sql`` is to a type made of types (not ``DECIMAL(INT)``, read as
    a parameter named INT) that the dialect writes back under the same name (ClickHouse
    writes ``STRUCT(...)`` as ``Tuple(...)``: STRUCT is sqlglot's name, not the database's)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return False
    written = "".join(tree.sql(dialect=dialect).split()).upper()
    if f"AS{word.upper()}(" not in written:
        return False
    cast = tree.find(exp.Cast)
    to = cast.to if cast is not None else None
    if not isinstance(to, exp.DataType):
        return False
    if to.args.get("nullable") and not to.expressions:
        return True  # ClickHouse's Nullable(INT): the inner type, marked nullable
    return bool(
        to.args.get("nested")
        and to.expressions
        and all(isinstance(e, exp.DataType) for e in to.expressions)
    )


def _type_constructors(
    dialect: Any,
    round_trips: Callable[[str, Any], bool],
    words: tuple[str, ...],
    types: dict[str, tuple[int, ...]],
) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    base = next(
        (
            t
            for t in (*_INNER_PREFERRED, *sorted(types))
            if 0 in types.get(t, ()) and round_trips(f"SELECT CAST(x AS {t})", dialect)
        ),
        None,
    )
    if base is None:
        return {}, {}

    def takes(word: str, inner: str, k: int) -> bool:
        sql = f"SELECT CAST(x AS {word}({', '.join([inner] * k)}))"
        return round_trips(sql, dialect) and _nested_cast(sql, dialect, word)

    constructors: dict[str, tuple[int, ...]] = {}
    for word in words:
        if not takes(word, base, 1) and not takes(word, base, 2):
            continue
        counts = tuple(k for k in (1, 2, 3) if takes(word, base, k))
        if 3 in counts and not takes(word, base, 4):
            counts = tuple(k for k in counts if k < 3)
        if counts:
            constructors[word] = counts
    inner: dict[str, tuple[int, ...]] = {}
    # Inner types are probed in the first constructor of one and of two types (probing each
    # against every constructor takes seconds; the random walks cover the rest).
    probes = {
        k: next((c for c, counts in sorted(constructors.items()) if k in counts), None)
        for k in (1, 2)
    }
    if constructors:
        for word, params in sorted(types.items()):
            kept = tuple(
                n
                for n in params
                if all(
                    takes(c, word + _TYPE_SUFFIXES[n], k)
                    for k, c in probes.items()
                    if c is not None
                )
            )
            if kept:
                inner[word] = kept
    return constructors, inner


_LITERAL_BODIES = ("'2020-01-31 10:00:00'", "'x'", "'1.5'")


def _typed_literals(
    dialect: Any, round_trips: Callable[[str, Any], bool], types: dict[str, tuple[int, ...]]
) -> tuple[str, ...]:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    kinds = {*exp.DataType.TEMPORAL_TYPES, exp.DataType.Type.JSON}
    kinds |= {exp.DataType.Type.DECIMAL, exp.DataType.Type.BIGDECIMAL}
    out = []
    for word, params in sorted(types.items()):
        if 0 not in params:
            continue
        try:
            cast = sqlglot.parse_one(f"SELECT CAST(x AS {word})", read=dialect).find(exp.Cast)
        except SqlglotError:
            continue
        if cast is None or cast.to.this not in kinds:
            continue
        kept = True
        for body in _LITERAL_BODIES:
            sql = f"SELECT {word} {body}"
            if not round_trips(sql, dialect):
                kept = False
                break
            node = sqlglot.parse_one(sql, read=dialect).expressions[0]
            if isinstance(node, (exp.Alias, exp.Column)):  # SELECT a 'x': an alias
                kept = False
                break
        if kept:
            out.append(word)
    return tuple(out)


_INSIDE = {
    "ignore": "a IGNORE NULLS",
    "respect": "a RESPECT NULLS",
    "having": "a HAVING MAX b",
    "limit": "a LIMIT 10",
    "order_limit": "a ORDER BY b LIMIT 10",
}


def _aggregate_clauses(
    dialect: Any, round_trips: Callable[[str, Any], bool], aggregates: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """Each clause alone, exactly as written (COUNT(a RESPECT NULLS) comes back from
    Snowflake as COUNT(a) RESPECT NULLS: not inside)."""
    out: dict[str, tuple[str, ...]] = {}
    for name in aggregates:
        kept = tuple(
            clause
            for clause, args in _INSIDE.items()
            if round_trips(f"SELECT {name}({args}) FROM t", dialect)
        )
        if kept:
            out[name] = kept
    return out


def read_warehouse_tables(
    dialect: Any,
    features: frozenset[str],
    round_trips: Callable[[str, Any], bool],
    known: frozenset[str],
    type_words: tuple[str, ...] = (),
    types: dict[str, tuple[int, ...]] | None = None,
    aggregates: tuple[str, ...] = (),
    exact: Callable[[str, Any], bool] | None = None,
) -> WarehouseTables:
    """The entries of sqlglot's tables for the constructs above, as probed; ``round_trips``
    compares trees only (``exact=False``)."""
    parametric: tuple[str, ...] = ()
    modelled: dict[str, tuple[tuple[int, int], ...]] = {}
    if getattr(dialect.parser_class, "AGG_FUNC_MAPPING", None):
        parametric, modelled = _parametric(dialect, round_trips, known)
    phrases = _join_phrases(dialect, round_trips) if "global_in" in features else ()
    constructors, inner = _type_constructors(dialect, round_trips, type_words, types or {})
    literals = _typed_literals(dialect, round_trips, types or {})
    inside: dict[str, tuple[str, ...]] = {}
    if exact is not None and "aggregate_clauses" in features:
        inside = _aggregate_clauses(dialect, exact, aggregates)
    columns: tuple[str, ...] = ()
    if "column_aggregates" in features:
        from typedgen.frontends.sql.duckdb_probes import column_aggregates

        columns = column_aggregates(dialect, round_trips, known)
    return WarehouseTables(
        parametric, modelled, constructors, inner, literals, inside, phrases, columns
    )

"""SQL dialects: each a small class naming its sqlglot dialect and what differs from the tables.

Everything a dialect's grammar needs is read from sqlglot (:mod:`.tables`); a class here only
overrides what the tables get wrong for generation, or refuses a dialect whose queries the
grammar cannot express. Adding a dialect::

    class MyWarehouse(SqlDialect):
        name = "mywarehouse"
        sqlglot = "postgres"
        exclude_features = frozenset({"ilike"})

after which ``typedgen.Sql("mywarehouse")`` works.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from typing import ClassVar

from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.sql.bigquery_names_probes import BIGQUERY_NAMES_NATIVE
from typedgen.frontends.sql.bigquery_probes import BIGQUERY_SYNTAX
from typedgen.frontends.sql.duckdb_probes import DUCKDB_SYNTAX
from typedgen.frontends.sql.probes import DIALECT_SPECIFIC, FEATURE_PROBES
from typedgen.frontends.sql.tables import (
    DialectTables,
    _round_trips,
    dialect_tables,
    sqlglot_dialect,
)
from typedgen.frontends.sql.tsql_mysql_probes import MYSQL_ROUND7
from typedgen.frontends.sql.tsql_oracle_probes import ORACLE_NATIVE, TSQL_NATIVE
from typedgen.frontends.sql.warehouse_probes import (
    BIGQUERY_NATIVE,
    CLICKHOUSE_NATIVE,
    DUCKDB_NATIVE,
    SNOWFLAKE_NATIVE,
    TRINO_NATIVE,
)
from typedgen.ir.origin import Origin

__all__ = ["DIALECTS", "REFUSED", "SqlDialect", "dialect_class"]

DIALECTS: dict[str, type[SqlDialect]] = {}
"""Supported dialects by name."""

REFUSED: dict[str, str] = {}
"""sqlglot dialects the SQL grammar does not cover, with the reason."""


class SqlDialect:
    """A SQL dialect for :class:`typedgen.Sql`; subclasses register themselves by ``name``."""

    name: ClassVar[str] = ""
    sqlglot: ClassVar[str] = ""
    """The sqlglot dialect whose tables the grammar is derived from (``""``: sqlglot's base)."""
    exclude_features: ClassVar[frozenset[str]] = frozenset()
    """Features (see ``probes.FEATURE_PROBES``) to leave out although sqlglot round-trips them."""
    include_features: ClassVar[frozenset[str]] = frozenset()
    """Native syntax that sqlglot parses but writes in another form (``x::INT`` comes back as
    ``CAST``), so the probes cannot tell; every feature here is still covered by the
    soundness tests (random walks parse with sqlglot)."""
    read_identifier_quotes: ClassVar[tuple[tuple[str, str], ...]] = ()
    """Identifier delimiters sqlglot reads but writes as another (T-SQL's ``"a b"`` comes back
    as ``[a b]``, the same tree), so the exact probe cannot tell; each is on where sqlglot
    reads it as a name and reads that back (:func:`_reads_quoted_name`)."""
    exclude_functions: ClassVar[frozenset[str]] = frozenset()
    """Function names sqlglot reads as another of the dialect's functions, written back under
    that name (MySQL's STRING_AGG(a) as GROUP_CONCAT(a SEPARATOR ',')), where the database has
    no function of the name: the round trip cannot tell."""
    exclude_types: ClassVar[frozenset[str]] = frozenset({"NULL", "UNKNOWN", "UNION"})
    """Type names sqlglot accepts that no one writes in a ``CAST``."""
    double_quoted_strings: ClassVar[bool] = False
    """Whether the database reads a ``"..."`` that names no column as a string (SQLite's legacy
    rule); sqlglot parses it as an identifier, so schema-aware grammars then accept quoted
    identifiers as values and binding turns the unresolved ones into string literals."""
    refused: ClassVar[str | None] = None
    """Why the grammar cannot cover this dialect (the class then only documents it)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.name:
            return
        if cls.refused:
            REFUSED[cls.name] = cls.refused
            DIALECTS.pop(cls.name, None)
        else:
            DIALECTS[cls.name] = cls
            REFUSED.pop(cls.name, None)

    @classmethod
    def tables(cls) -> DialectTables:
        """sqlglot's tables for this dialect, with this class's exclusions applied."""
        tables = dialect_tables(cls.sqlglot)
        # A dialect-specific feature (see probes.DIALECT_SPECIFIC) is on only where the class
        # names it, and its probe round-trips there.
        native = cls.include_features & DIALECT_SPECIFIC & tables.features
        features = (tables.features - DIALECT_SPECIFIC) | native
        # The others are on where sqlglot reads its own spelling of the probe back to the
        # same tree (any spelling): Oracle's DATE 'x' is written TO_DATE('x', 'YYYY-MM-DD'),
        # which reads back as another tree, and so is MySQL's TIMESTAMP 'x'.
        forced = {
            f
            for f in cls.include_features - DIALECT_SPECIFIC
            if f not in FEATURE_PROBES or _reads_back(cls.sqlglot, FEATURE_PROBES[f])
        }
        features = (features | forced) - cls.exclude_features
        if features != tables.features:
            tables = dataclasses.replace(tables, features=features)
        if any(f.name in cls.exclude_functions for f in tables.functions):
            kept = tuple(f for f in tables.functions if f.name not in cls.exclude_functions)
            tables = dataclasses.replace(tables, functions=kept)
        quotes = tuple(
            pair
            for pair in cls.read_identifier_quotes
            if pair not in tables.identifier_quotes and _reads_quoted_name(cls.sqlglot, *pair)
        )
        if quotes:
            tables = dataclasses.replace(
                tables, identifier_quotes=tables.identifier_quotes + quotes
            )
        return tables


@functools.cache
def _reads_back(dialect: str, sql: str) -> bool:
    """Whether sqlglot's own spelling of ``sql`` reads back to the tree ``sql`` reads as."""
    return _round_trips(sql, sqlglot_dialect(dialect), exact=False)


@functools.cache
def _reads_quoted_name(dialect: str, open_: str, close: str) -> bool:
    """Whether sqlglot reads ``open_ a b close`` as a column named ``a b`` and reads its own
    output back as the same tree."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(f"SELECT {open_}a b{close} FROM t", read=dialect or None)
        value = tree.expressions[0] if isinstance(tree, exp.Select) else None
        again = sqlglot.parse_one(tree.sql(dialect=dialect or None), read=dialect or None)
    except (SqlglotError, IndexError):
        return False
    return isinstance(value, exp.Column) and value.name == "a b" and again == tree


def dialect_class(dialect: str | type[SqlDialect]) -> type[SqlDialect]:
    """The dialect class for a name or class; a clear error for refused or unknown names."""
    if isinstance(dialect, type) and issubclass(dialect, SqlDialect):
        if dialect.refused:
            raise _refused(dialect.name, dialect.refused)
        return dialect
    name = str(dialect).lower()
    found = DIALECTS.get(name)
    if found is not None:
        return found
    if name in REFUSED:
        raise _refused(name, REFUSED[name])
    close = difflib.get_close_matches(name, list(DIALECTS), n=1)
    raise UnsupportedFeatureError(
        f"unknown SQL dialect {dialect!r}",
        code="sql-dialect",
        origin=Origin("<sql>"),
        hint=(f"did you mean {close[0]!r}? " if close else "")
        + f"supported: {', '.join(sorted(DIALECTS))}; or subclass typedgen.SqlDialect",
    )


def _refused(name: str, reason: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(
        f"the SQL dialect {name!r} is not supported: {reason}",
        code="sql-dialect-refused",
        origin=Origin(name),
        hint="pick a supported dialect (typedgen.frontends.sql.DIALECTS), or describe the"
        " language as a Lark grammar",
    )


def _define(name: str, sqlglot: str | None = None, **attrs: object) -> None:
    namespace: dict[str, object] = {
        "name": name,
        "sqlglot": name if sqlglot is None else sqlglot,
        **attrs,
    }
    type(f"{name.title().replace('_', '')}Dialect", (SqlDialect,), namespace)


# sqlglot's dialects. The grammar's features come from each one's own tables and round-trip
# probes; nothing here needs an override yet except the refusals.
for _name in (
    "athena",
    "doris",
    "dremio",
    "drill",
    "druid",
    "dune",
    "exasol",
    "fabric",
    "hive",
    "singlestore",
    "solr",
    "spark2",
    "starrocks",
    "tableau",
):
    _define(_name)
# T-SQL's table variables (FROM @v, with placeholders) and DATEPART(day, x), AT TIME ZONE:
# sqlglot's base parser reads them everywhere.
# T-SQL reads "a b" as a name as well as [a b] (written back so).
_define(
    "tsql",
    include_features=frozenset({"table_variable", "datepart", "at_time_zone"}) | TSQL_NATIVE,
    read_identifier_quotes=(('"', '"'),),
)
_TYPED_LITERALS: frozenset[str] = frozenset({"date_literal", "timestamp_literal"})
_PG_LIKE = frozenset({"cast_operator"}) | _TYPED_LITERALS
# PostgreSQL's a ISNULL / a NOTNULL come back as IS [NOT] NULL (and other dialects read
# them too, so a read probe cannot tell).
_XML = frozenset({"xmlelement", "xmlattributes"})
_CONNECT_BY = frozenset({"connect_by", "connect_by_nocycle"})
# PostgreSQL's OVERLAY(a PLACING b FROM 1) and XMLELEMENT(NAME x, ...): sqlglot's base parser
# reads both everywhere (probes.DIALECT_SPECIFIC).
_define(
    "postgres",
    include_features=_PG_LIKE
    | _XML
    | {"isnull_op", "notnull_op", "overlay", "overlay_from"}
    | {"rows_from", "cte_materialized", "overlaps", "current_schema", "substring_for"}
    | {"any_array", "join_lateral_function", "at_time_zone", "interval_read"}
    # TRIM(LEADING x) (written LTRIM(x)), a <-> b, a <<->> b, a -|- b
    | {"trim_side_only", "distance_ops", "adjacent_op"}
    | {"function_column_types", "rows_from_column_types"},
)
for _name in ("materialize", "risingwave", "redshift"):
    _define(_name, include_features=_PG_LIKE)
# DuckDB's FROM-first queries (FROM t SELECT a) are left out: sqlglot writes them SELECT-first,
# and some (with a NATURAL RIGHT JOIN and quoted names) come back as another tree.
# DuckDB's writer parenthesises a shift under any binary operator (a = b >> c comes back as
# a = (b >> c), a LIKE (b >> c): another tree; a random walk found it), so no shifts there.
_define(
    "duckdb",
    include_features=_PG_LIKE
    | {"historical_at", "historical_after_alias"}
    | DUCKDB_NATIVE
    | DUCKDB_SYNTAX
    | {"at_time_zone"},
    exclude_features=frozenset({"shift"}),
)
# Snowflake's time travel, AT (TIMESTAMP => x) / BEFORE (...), which sqlglot's base parser
# reads everywhere (see probes.DIALECT_SPECIFIC); DuckDB's after the alias too.
# Hierarchical queries (START WITH ... CONNECT BY PRIOR ...): Oracle and Snowflake.
_define(
    "snowflake",
    include_features=_CONNECT_BY
    | {"cast_operator", "historical_at", "historical_before"}
    | SNOWFLAKE_NATIVE,
)
# BigQuery's names and lexemes (bigquery_names): my-project.d.t, """a""", a.b.25, a.b.c.d;
# its calls, types and clauses (bigquery_syntax).
_BIGQUERY_NAMES = BIGQUERY_NAMES_NATIVE | {"column_four_parts"}
_define(
    "bigquery",
    include_features=_TYPED_LITERALS
    | {"cast_format"}
    | BIGQUERY_NATIVE
    | _BIGQUERY_NAMES
    | BIGQUERY_SYNTAX,
)
# Presto's tokenizer knows MATCH_RECOGNIZE (sqlglot's Trino is built on it); PrestoDB has no
# row pattern recognition.
_define("presto", exclude_features=frozenset({"match_recognize"}))
# Trino and the other warehouses: their own constructs (warehouse_probes).
_define("trino", include_features=TRINO_NATIVE)
_define(
    "oracle",
    include_features=_TYPED_LITERALS
    | _CONNECT_BY
    | _XML
    | {"at_time_zone", "systimestamp", "chr_using", "unique_select"}
    | ORACLE_NATIVE,
)
# Spark's lambdas (TRANSFORM(a, x -> x + 1)), generator columns (POSEXPLODE(x) AS (a, b)) and
# collations in a type (CAST(a AS STRING COLLATE UTF8_BINARY)): sqlglot's base parser reads
# all three everywhere (probes.DIALECT_SPECIFIC).
_SPARK = frozenset({"lambda", "alias_columns", "type_collate"})
for _name in ("spark", "databricks"):
    _define(_name, include_features=_SPARK)
_define("teradata", include_features=frozenset({"cast_format"}))
# ClickHouse's tokenizer reads 1_000 as a number (sqlglot's NUMBERS_CAN_BE_UNDERSCORE_SEPARATED,
# as DuckDB's): the probe of DuckDB's grouped digits holds, and means the same there.
_define(
    "clickhouse", include_features=frozenset({"limit_by", "grouped_digits"}) | CLICKHOUSE_NATIVE
)
# MySQL's a REGEXP 'x' comes back as REGEXP_LIKE(a, 'x').
_define(
    "mysql",
    include_features=_TYPED_LITERALS
    | {"regexp", "assign_variable", "straight_join", "interval_column"}
    | {"and_symbol", "or_symbol", "distinctrow", "date_add_interval"}
    # INTERVAL 1 DAY is MySQL's own spelling; sqlglot writes INTERVAL '1' DAY (the same tree).
    | {"interval_number"}
    | MYSQL_ROUND7,
    exclude_features=frozenset({"merge"}),
    exclude_functions=frozenset({"STRING_AGG"}),
)
# sqlglot's base dialect is native to everything its parser reads (no database refuses).
_define(
    "generic",
    "",
    include_features=frozenset({"date_literal", "timestamp_literal"}) | DIALECT_SPECIFIC,
)
# SQLite refuses a parenthesised operand of UNION/EXCEPT ("near '(': syntax error"), which
# sqlglot writes back unchanged; SQLite and MySQL have no MERGE statement, which sqlglot
# round-trips in every dialect.
_define(
    "sqlite",
    double_quoted_strings=True,
    include_features=frozenset({"not_null_op"}),  # a NOT NULL comes back as NOT a IS NULL
    exclude_features=frozenset({"paren_set_operand", "merge"}),
)
_define(
    "prql",
    refused="PRQL is a pipeline language (from t | filter ...), not SQL; sqlglot transpiles it"
    " but its syntax shares nothing with the SQL grammar",
)
_define(
    "dax",
    refused="DAX is Power BI's expression language (EVALUATE ...), not SQL",
)

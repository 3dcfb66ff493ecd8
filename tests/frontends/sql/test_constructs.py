"""Constructs of issue 15, each on where its probe round-trips and off elsewhere.

Every accepted text must also parse with sqlglot in the dialect and round-trip (the oracle);
each construct is refused in a dialect whose tables do not offer it.
"""

from __future__ import annotations

import itertools

import pytest
import sqlglot

import typedgen
from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.sql import DIALECTS

from ._sql import assert_construct, round_trips, sql_accepts

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    ("postgres", "SELECT ARRAY[1, 2], a[1] FROM t", "sqlite"),
    ("duckdb", "SELECT [1, 2], {'a': 1}, a[1] FROM t", "mysql"),
    ("duckdb", "SELECT a[1:2], a[:2], a[x + 1:], [1, 2, 3][1:2][1] FROM t", "mysql"),
    ("bigquery", "SELECT * FROM UNNEST(a) AS x WITH OFFSET AS o", "sqlite"),
    ("postgres", "SELECT * FROM UNNEST(a) WITH ORDINALITY AS u(x, n)", "sqlite"),
    ("postgres", "SELECT * FROM t, LATERAL (SELECT 1) AS s", "sqlite"),
    ("postgres", "SELECT * FROM GENERATE_SERIES(1, 3) AS s", None),
    ("postgres", "SELECT * FROM (VALUES (1, 2)) AS t(a, b)", None),
    ("snowflake", "SELECT * FROM t SAMPLE (10)", "sqlite"),
    ("postgres", "SELECT * FROM t TABLESAMPLE SYSTEM (50)", "sqlite"),
    ("snowflake", "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x', 'y'))", "postgres"),
    ("snowflake", "SELECT * FROM t UNPIVOT(a FOR b IN (c, d))", "postgres"),
    ("bigquery", "SELECT * EXCEPT (a) FROM t", None),
    ("snowflake", "SELECT * EXCLUDE (a) FROM t", "postgres"),
    ("postgres", "SELECT DISTINCT ON (a) a, b FROM t", "mysql"),
    ("duckdb", "SELECT a, SUM(b) FROM t GROUP BY ALL", None),
    ("postgres", "SELECT SUM(a) OVER w FROM t WINDOW w AS (PARTITION BY b)", None),
    ("postgres", "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) FROM t", None),
    ("snowflake", "SELECT FIRST_VALUE(a) IGNORE NULLS OVER (ORDER BY b) FROM t", "postgres"),
    ("postgres", "SELECT TRIM(BOTH 'x' FROM a), POSITION('x' IN a) FROM t", "sqlite"),
    ("postgres", "SELECT SUBSTRING(a FROM 1 FOR 2) FROM t", "sqlite"),
    ("sqlite", "SELECT a COLLATE NOCASE FROM t", None),
    ("postgres", 'SELECT a COLLATE "de_DE" FROM t', None),
    ("mysql", "SELECT 'it''s', \"a\"\"b\"", None),
    ("sqlite", "SELECT a -> '$.k', a ->> 'k' FROM t", "tsql"),
    ("postgres", "SELECT E'a\\nb', X'CC', B'01'", "sqlite"),
    ("postgres", "SELECT CAST(a AS DOUBLE PRECISION), CAST(b AS CHARACTER VARYING(3))", None),
    ("generic", "SELECT CAST(a AS STRING), CAST(b AS NUMERIC(12, 2)), CAST(c AS DEC(15, 4))", None),
    ("postgres", "SELECT a FROM t WHERE a ISNULL OR b NOTNULL", "mysql"),
    ("mysql", "SELECT a FROM t WHERE a REGEXP 'x'", "postgres"),
    ("tsql", "SELECT * FROM x CROSS APPLY (SELECT v FROM t) AS s", "postgres"),
    ("tsql", "SELECT x FROM a WITH (NOLOCK) WHERE x = N'y'", "postgres"),
    ("sqlite", "SELECT * FROM t INDEXED BY i WHERE a NOT NULL", "postgres"),
    ("sqlite", "SELECT * FROM t AS t INDEXED BY s.i", "postgres"),
    ("sqlite", "SELECT rowid FROM t1 WHERE t1 MATCH 'lorem'", "postgres"),
    # SQLite's IS [NOT] against any value (null-safe equality), written back as it is.
    ("sqlite", "SELECT * FROM station WHERE city IS NOT '' AND a IS b + 1", "postgres"),
    # A negated range followed by another range predicate: sqlglot parenthesises the NOT.
    ("sqlite", "SELECT 1 NOT IN (0) IN (0, 1), x NOT IN (1) IS TRUE", None),
    ("postgres", "SELECT a FROM t WHERE 0 NOT IN (1) NOT IN (2)", None),
    ("generic", "SELECT a FROM t WHERE b = x NOT LIKE 'a' IN (TRUE)", None),
    # ClickHouse: NOT over IN or IS only parenthesised (sqlglot writes it so).
    ("clickhouse", "SELECT NOT (a IN (1)), NOT a = 1, a NOT LIKE 'x' FROM t", None),
    ("postgres", "SELECT a FROM t WHERE a > ALL (SELECT 1) AND b = ANY (SELECT 2)", None),
    ("snowflake", "SELECT COUNT(DISTINCT a, b) FROM t", "postgres"),
    ("postgres", "SELECT a FROM t GROUP BY GROUPING SETS (a, (a, b), CUBE (c), ())", None),
    ("postgres", "SELECT * FROM t LIMIT (SELECT 1) OFFSET (SELECT 2)", None),
    ("postgres", "SELECT * FROM (t1 LEFT JOIN (t2 CROSS JOIN t3) ON t1.a = t2.a) AS s", None),
    ("duckdb", "SELECT * FROM (t) JOIN u ON t.a = u.a", None),
    ("spark", "SELECT 1 FROM a LEFT SEMI JOIN b ON a.x = b.x RIGHT ANTI JOIN c ON a.x = c.x", None),
    ("duckdb", "SELECT 1 FROM a SEMI JOIN b ON a.x = b.x", "postgres"),
    ("spark", "SELECT a FROM t LATERAL VIEW OUTER EXPLODE(s) x AS y, z", "postgres"),
    ("generic", "SELECT * EXCEPT (a, t.b), t.* REPLACE (a AS b) FROM t", None),
    ("generic", "SELECT * EXCEPT (a, b)", None),
    ("generic", "SELECT * WHERE b IS NULL", None),
    ("postgres", "SELECT a FROM t ORDER BY a OFFSET 1", "snowflake"),
    ("postgres", "SELECT a FROM t ORDER BY a FETCH FIRST 10 PERCENT ROWS WITH TIES", "duckdb"),
    (
        "snowflake",
        "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x')) PIVOT(MAX(c) FOR d IN ('y'))",
        None,
    ),
    ("spark", "SELECT a FROM t TABLESAMPLE (BUCKET 1 OUT OF 5 ON x)", "sqlite"),
    (
        "postgres",
        "SELECT SUM(x) OVER (ORDER BY b ROWS BETWEEN a + 1 PRECEDING AND 2 FOLLOWING)",
        None,
    ),
    ("postgres", "SELECT a FROM t EXCEPT ALL SELECT a FROM u INTERSECT ALL SELECT 1", "snowflake"),
    ("postgres", "SELECT a FROM t WHERE a NOT ILIKE ALL (ARRAY['x%', 'y%'])", None),
    ("snowflake", "SELECT 'he%lo' LIKE ALL ('he#%lo', 'x') ESCAPE '#'", None),
    # ORDER BY inside an aggregate's arguments, per aggregate, as probed.
    (
        "postgres",
        "SELECT JSON_AGG(DISTINCT a ORDER BY a), STRING_AGG(a, ',' ORDER BY b) FROM t",
        None,
    ),
    # DISTINCT before several arguments, per aggregate, as probed.
    ("generic", "SELECT ARG_MAX(DISTINCT a, b), COUNT(DISTINCT a, b + 1) FROM t", "postgres"),
    # NULLS FIRST/LAST only after the directions where it round-trips (not the default).
    ("sqlite", "SELECT a FROM t ORDER BY a DESC NULLS FIRST, b ASC NULLS LAST", "mysql"),
    ("postgres", "SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST", "tsql"),
    # Round 3: time travel (HISTORICAL_DATA_KIND), CAST ... FORMAT for the types that take
    # it, locking clauses, MySQL's index hints, ClickHouse's clauses, FOR XML/JSON, STRUCT
    # arguments named with AS.
    ("snowflake", "SELECT * FROM t AT (OFFSET => -60 * 5) AS u WHERE u.f = 'v'", "sqlite"),
    ("snowflake", "SELECT * FROM t BEFORE (STATEMENT => 'x') UNPIVOT(a FOR b IN (c))", "postgres"),
    ("duckdb", "SELECT * FROM t1 AS a AT (VERSION => 2), t2 AT (TIMESTAMP => x)", "snowflake"),
    ("bigquery", "SELECT CAST(a AS STRING FORMAT 'YYYY'), CAST(b AS STRING)", "postgres"),
    ("mysql", "SELECT * FROM t1, t2 FOR SHARE OF t1 NOWAIT FOR UPDATE OF t2 SKIP LOCKED", "sqlite"),
    ("oracle", "SELECT * FROM t FOR UPDATE OF s.t.c, s.t.v NOWAIT", "sqlite"),
    ("postgres", "SELECT * FROM (SELECT a FROM t FOR UPDATE) AS s", "tsql"),
    (
        "mysql",
        "SELECT * FROM t USE INDEX FOR JOIN (i) FORCE INDEX (j, k) IGNORE INDEX ()",
        "sqlite",
    ),
    (
        "clickhouse",
        "SELECT a, COUNT() FROM t GROUP BY a WITH TOTALS ORDER BY a LIMIT 1 BY a"
        " SETTINGS x = 1, y = 'z' FORMAT JSONEachRow",
        "postgres",
    ),
    ("clickhouse", "SELECT s FROM t LEFT ARRAY JOIN arr AS a, [1, 2] AS b", "postgres"),
    ("tsql", "SELECT * FROM t FOR XML PATH('row'), ROOT('r'), ELEMENTS XSINIL", "postgres"),
    (
        "tsql",
        "SELECT j FROM (SELECT a AS j FROM t FOR JSON AUTO, WITHOUT_ARRAY_WRAPPER) AS x",
        None,
    ),
    ("bigquery", "SELECT STRUCT(1 AS a, b AS c), STRUCT(2, 'x' AS d)", "snowflake"),
    # Round 4.
    (
        "postgres",
        "SELECT OVERLAY(a PLACING b FROM 1), OVERLAY(a PLACING 'x' FROM 2 FOR 3)",
        "mysql",
    ),
    ("postgres", "SELECT XMLELEMENT(NAME foo, XMLATTRIBUTES('x' AS bar, a), 'c', b)", "mysql"),
    ("oracle", "SELECT a FROM t START WITH b = 1 CONNECT BY PRIOR a = c", "postgres"),
    ("oracle", "SELECT a FROM t CONNECT BY NOCYCLE PRIOR a = c AND d = PRIOR e START WITH b", None),
    ("snowflake", "SELECT a FROM t START WITH b IS NULL CONNECT BY c = PRIOR a", "sqlite"),
    ("tsql", "SELECT x FROM a FOR SYSTEM_TIME AS OF 'foo' AS b", "bigquery"),
    ("tsql", "SELECT x FROM a FOR SYSTEM_TIME FROM c TO d, e FOR SYSTEM_TIME ALL", "postgres"),
    ("tsql", "SELECT x FROM a FOR SYSTEM_TIME CONTAINED IN (c, d) AS b", "bigquery"),
    ("bigquery", "SELECT * FROM a AS t FOR SYSTEM_TIME AS OF z", "tsql"),
    ("oracle", "SELECT LISTAGG(a, '; ' ON OVERFLOW ERROR) WITHIN GROUP (ORDER BY b)", "postgres"),
    (
        "trino",
        "SELECT LISTAGG(DISTINCT a, ',' ON OVERFLOW TRUNCATE '..' WITHOUT COUNT) WITHIN GROUP"
        " (ORDER BY a)",
        "snowflake",
    ),
    ("duckdb", "SELECT a FROM t WHERE b USING SAMPLE 10% ORDER BY a", "postgres"),
    ("duckdb", "SELECT a FROM t USING SAMPLE 10 PERCENT (bernoulli, 7)", "snowflake"),
    ("duckdb", "SELECT a FROM t USING SAMPLE RESERVOIR (50 ROWS) REPEATABLE (1)", "generic"),
    # Functions without parentheses, where each round-trips (T-SQL writes GETDATE()).
    ("sqlite", "SELECT a FROM t WHERE d < CURRENT_DATE", "tsql"),
    ("sqlite", "SELECT CURRENT_TIME, CURRENT_TIMESTAMP", "generic"),
    ("postgres", "SELECT CURRENT_USER, CURRENT_TIMESTAMP - d FROM t", "sqlite"),
]


KEYWORD_NAMES = [
    ("generic", "SELECT x AS into, y AS all FROM schema.case, current_date"),
    ("postgres", 'WITH t AS (SELECT 1 AS "null") SELECT t.null FROM t'),
    ("sqlite", "SELECT a AS from FROM t"),
]


@pytest.mark.parametrize(("dialect", "text"), KEYWORD_NAMES)
def test_keywords_as_names_in_the_checking_language_only(dialect: str, text: str) -> None:
    # Keywords that name a thing in some places only, as sqlglot reads them there: checking
    # SQL from elsewhere accepts them; generation does not offer them (SQLite refuses
    # `SELECT a AS from FROM t`: near "from": syntax error).
    assert sql_accepts(typedgen.Sql(dialect, whitespace="check"), text), (dialect, text)
    ok, detail = round_trips(text, typedgen.Sql(dialect).dialect)
    assert ok, detail
    assert not sql_accepts(typedgen.Sql(dialect), text), (dialect, text)


PLACEHOLDERS = [
    ("postgres", "SELECT * FROM t WHERE a = $1", None),
    ("sqlite", "SELECT * FROM t WHERE a = ?", None),
    ("snowflake", "SELECT * FROM t WHERE a = :x", "postgres"),
    ("tsql", "SELECT * FROM t WHERE a = @x", "postgres"),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without)


@pytest.mark.parametrize(("dialect", "text", "without"), PLACEHOLDERS)
def test_placeholders_only_when_asked(dialect: str, text: str, without: str | None) -> None:
    """Query parameters are opt-in: a generated query has nothing to bind them to."""
    sql = typedgen.Sql(dialect, placeholders=True)
    assert sql_accepts(sql, text), (dialect, text)
    ok, detail = round_trips(text, sql.dialect)
    assert ok, detail
    assert not sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
    if without is not None:
        assert not sql_accepts(typedgen.Sql(without, placeholders=True), text), (without, text)


@pytest.mark.parametrize(
    "text",
    [
        "SELECT X'zz'",  # a hex string with a non-hex body is one token for sqlglot
        "SELECT * FROM t WHERE a = $1a",
        "SELECT $t$a$t$",  # a tagged dollar string ($$a$$ is accepted: test_postgres_mysql)
        "SELECT$1",  # one word for sqlglot ("$" goes on in a word)
    ],
)
def test_refused_spellings(text: str) -> None:
    assert not sql_accepts(typedgen.Sql("postgres", placeholders=True), text)


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        ("snowflake", "SELECT :And"),  # a keyword after ":" is no placeholder name
        ("tsql", "SELECT :Then"),
        ("bigquery", 'SELECT "a""b"'),  # no doubled-quote escape: two adjacent strings
        ("duckdb", "FROM t, u SELECT a"),  # FROM-first joins stay inside the table: another tree
        ("tsql", "SELECT a FROM t WHERE b = 1 AND@h = 2"),  # AND@h is one word for sqlglot
        # sqlglot parenthesises a negated range only before a range predicate: these come
        # back as another tree (NOT x LIKE 'a' IS NULL, NOT x IN (1) = b).
        ("postgres", "SELECT x NOT LIKE 'a' ISNULL"),
        ("postgres", "SELECT x NOT IN (1) = b"),
        ("sqlite", "SELECT b = x NOT IN (1)"),
        # ClickHouse writes NOT over IN and IS with parentheses: another tree.
        ("clickhouse", "SELECT a FROM t WHERE a NOT IN (1)"),
        ("clickhouse", "SELECT a FROM t WHERE a IS NOT NULL"),
        ("clickhouse", "SELECT NOT x IN (1) AND b"),
        ("clickhouse", "SELECT NOT x = 1 IS NULL"),
        ("sqlite", "SELECT * FROM t AS t(c1, c2)"),  # sqlglot drops the column names
        ("sqlite", "SELECT CAST(a AS SMALLINT)"),  # written back as INTEGER
        # A FROM-less * takes a set operation's EXCEPT as its own; BigQuery refuses a set
        # operation after a FROM-less *.
        ("generic", "SELECT * EXCEPT SELECT 1"),
        ("generic", "SELECT a, * EXCEPT SELECT 1"),
        ("bigquery", "SELECT * EXCEPT (a) UNION SELECT 1"),
        # Spark reads ANY (...) followed by arithmetic as a lambda; UNNEST in parentheses
        # comes back as EXPLODE.
        ("spark", "SELECT 1 < ANY (SELECT 1) + 1"),
        ("spark", "SELECT * FROM (UNNEST(a) AS u)"),
        ("postgres", "SELECT 1 FROM a SEMI JOIN b ON a.x = b.x"),  # written as EXISTS
        ("snowflake", "SELECT a[1:2] FROM t"),  # a path for Snowflake (GET_PATH)
        ("snowflake", "SELECT ARRAY_AGG(a ORDER BY b) FROM t"),  # written WITHIN GROUP
        ("generic", "SELECT STRING_AGG(a, ',' ORDER BY b) FROM t"),  # the ORDER BY moves
        ("duckdb", "SELECT a FROM t WHERE a LIKE ALL ('x', 'y')"),  # written as two LIKEs
        ("duckdb", "SELECT a FROM t WHERE a LIKE ANY ('x', 'y') ESCAPE '#'"),
        ("generic", "SELECT STRING_AGG(DISTINCT a, ',') FROM t"),  # DISTINCT moves
        ("postgres", "SELECT SUM(DISTINCT a, b) FROM t"),
        ("sqlite", "SELECT a FROM t OFFSET 1"),  # written back with LIMIT -1
        # BigQuery writes CAST(a AS DATE FORMAT 'x') as PARSE_DATE('x', a): another tree.
        ("bigquery", "SELECT CAST(a AS DATE FORMAT 'x')"),
        ("bigquery", "SELECT CAST(a AS TIMESTAMP FORMAT 'x')"),
        # sqlglot round-trips these everywhere; they are native to one dialect only.
        ("sqlite", "SELECT * FROM t AT (TIMESTAMP => x)"),
        ("postgres", "SELECT * FROM t LIMIT 1 BY a"),
        ("clickhouse", "SELECT a FROM t LIMIT 1 BY a LIMIT 5"),  # two LIMITs: refused
        ("snowflake", "SELECT * FROM t AT (FOO => 1)"),  # not a kind sqlglot knows
        # sqlglot writes these back in another order or form: another tree or no parse.
        ("bigquery", "SELECT * FROM a FOR SYSTEM_TIME AS OF z AS t"),  # alias goes first
        ("tsql", "SELECT * FROM a AS t FOR SYSTEM_TIME AS OF z"),  # alias goes last
        ("oracle", "SELECT a FROM t CONNECT BY PRIOR a = c START WITH b CONNECT BY d = PRIOR e"),
        ("postgres", "SELECT XMLELEMENT(foo)"),  # no NAME: sqlglot reads no element name
        ("duckdb", "SELECT a FROM t USING SAMPLE BERNOULLI (10 ROWS)"),  # comes back RESERVOIR
        # Without WITHIN GROUP sqlglot drops the overflow clause (the shorter tree round-trips).
        ("oracle", "SELECT LISTAGG(a, ',' ON OVERFLOW ERROR) FROM t"),
        ("trino", "SELECT LISTAGG(a, ',' ON OVERFLOW TRUNCATE WITH COUNT) FROM t"),
    ],
)
def test_refused_where_sqlglot_reads_otherwise(dialect: str, text: str) -> None:
    assert not sql_accepts(typedgen.Sql(dialect, placeholders=True), text)


def test_dialect_specific_features_follow_the_class() -> None:
    """A feature sqlglot reads in every dialect (probes.DIALECT_SPECIFIC) is on only where a
    dialect class includes it."""
    from typedgen.frontends.sql.dialects import DIALECTS, SqlDialect

    class LimitBy(SqlDialect):
        name = "test_limit_by"
        sqlglot = "postgres"
        include_features = frozenset({"limit_by"})

    try:
        text = "SELECT a FROM t LIMIT 1 BY a"
        assert sql_accepts(typedgen.Sql(LimitBy), text)
        assert not sql_accepts(typedgen.Sql("postgres"), text)
    finally:
        DIALECTS.pop("test_limit_by", None)


CHAIN_STEPS = [
    "IN (1)",
    "NOT IN (1)",
    "IS NULL",
    "IS NOT NULL",
    "IS NOT TRUE",
    "NOT LIKE 'a'",
    "BETWEEN 1 AND 2",
    "< 1",
    "ISNULL",
    "NOT NULL",
    "MATCH 'a'",
    "IS NOT 'a'",
]


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "tsql", "generic", "clickhouse"])
def test_predicate_chains_round_trip(dialect: str) -> None:
    """Every chain of two predicates the grammar accepts, as a value, a condition and an
    operand, comes back from sqlglot as the same tree (negations are where chains break)."""
    sql = typedgen.Sql(dialect)
    accepted = 0
    for first, second in itertools.product(CHAIN_STEPS, repeat=2):
        for context in ("SELECT {}", "SELECT a FROM t WHERE {}", "SELECT b = {}"):
            text = context.format(f"x {first} {second}")
            if sql_accepts(sql, text):
                accepted += 1
                ok, detail = round_trips(text, sql.dialect)
                assert ok, (text, detail)
    assert accepted


def test_no_rows_of_values() -> None:
    """Rows of values ``(a, b)`` are not offered: SQLite refuses one outside a comparison, and
    with rows as values a small model wrote ``SELECT DISTINCT (a, b, c)`` and, with rows only
    before IN, ``SELECT DISTINCT (a, b) IN (...)`` (the e2e test, spider-dev/0289)."""
    sql = typedgen.Sql("sqlite")
    assert not sql_accepts(sql, "SELECT DISTINCT (a, b) FROM t")
    assert not sql_accepts(sql, "SELECT a FROM t WHERE (a, b) IN (SELECT 1, 2)")


STATEMENTS = [
    (
        "postgres",
        "merge",
        "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED AND s.b > 1 THEN UPDATE SET b = s.b"
        " WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (a, b) VALUES (s.a, s.b)",
        "Merge",
    ),
    ("postgres", "create_view", "CREATE OR REPLACE VIEW v AS SELECT a FROM t", "Create"),
    ("sqlite", "create_view", "CREATE VIEW v (x) AS SELECT a FROM t", "Create"),
    ("sqlite", "insert", "INSERT INTO t (a) SELECT a FROM u WHERE b > 1", "Insert"),
]


@pytest.mark.parametrize(("dialect", "kind", "text", "node"), STATEMENTS)
def test_statements_are_opt_in(dialect: str, kind: str, text: str, node: str) -> None:
    sql = typedgen.Sql(dialect, statements=(kind,))
    assert sql_accepts(sql, text)
    assert type(sql.parse(text)).__name__ == node
    ok, detail = round_trips(text, dialect)
    assert ok, detail
    assert not sql_accepts(typedgen.Sql(dialect), text)  # SELECT only by default


def test_merge_only_where_the_dialect_has_it() -> None:
    sql = typedgen.Sql("sqlite", statements=("select", "merge"))
    assert not sql_accepts(sql, "MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE")
    assert sql_accepts(sql, "SELECT 1")
    with pytest.raises(UnsupportedFeatureError, match="none of the statements merge"):
        typedgen.grammar_of(typedgen.Sql("mysql", statements=("merge",)))


@pytest.mark.parametrize("dialect", ["oracle", "postgres", "snowflake", "generic"])
@pytest.mark.parametrize("word", ["range", "map", "array", "struct", "object", "list"])
def test_nested_type_words_are_no_column_before_less_than(dialect: str, word: str) -> None:
    """sqlglot reads ``range <`` as a nested type (``RANGE<INT>``): a random walk found
    ``Select range< MA ...`` accepted in Oracle's checking language, which sqlglot refuses.
    A word is a column name only where ``SELECT w < x`` reads it as one (probed)."""
    text = f"SELECT {word} < ma"
    checking = typedgen.Sql(dialect, comments=True, whitespace="check", functions="any")
    if not round_trips(text, checking.dialect)[0]:
        assert not sql_accepts(checking, text), (dialect, text)
        assert not sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
    # The word still names a column after a dot.
    dotted = f"SELECT t.{word} < ma FROM t"
    if sql_accepts(checking, dotted):
        assert round_trips(dotted, checking.dialect)[0], (dialect, dotted)


LIMITED_OPERANDS = [
    "SELECT * FROM x LIMIT 1 UNION ALL SELECT * FROM y",
    "SELECT a FROM x ORDER BY a LIMIT 1 BY a UNION ALL SELECT b FROM y LIMIT 2 UNION ALL"
    " SELECT c FROM z LIMIT 3",
    "SELECT * FROM (SELECT a FROM x LIMIT 1 OFFSET 2 INTERSECT SELECT b FROM y) AS s",
]


@pytest.mark.parametrize("text", LIMITED_OPERANDS)
def test_an_operand_with_its_own_limit(text: str) -> None:
    """ClickHouse: a set operation's operand with its own ORDER BY / LIMIT (probe
    ``limited_set_operand``); elsewhere sqlglot writes it in parentheses (another text: no
    round trip), and the grammar refuses it."""
    assert_construct("clickhouse", text, "postgres")
    tree = typedgen.Sql("clickhouse").parse(text)
    first = tree.find(sqlglot.exp.SetOperation)
    while isinstance(first, sqlglot.exp.SetOperation):
        first = first.this
    assert isinstance(first, sqlglot.exp.Select) and first.args.get("limit") is not None
    for dialect in ("postgres", "duckdb", "mysql"):
        assert not round_trips(text, dialect)[0]


def test_an_operand_limit_stays_refused_where_sqlglot_rewrites_it() -> None:
    """``LIMIT 1, 2`` in an operand comes back as ``LIMIT 2 OFFSET 1``: refused there too."""
    text = "SELECT a FROM x LIMIT 1, 2 UNION ALL SELECT b FROM y"
    assert not sql_accepts(typedgen.Sql("clickhouse"), text)


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "generic", "duckdb"])
def test_one_where_after_items_without_from(dialect: str) -> None:
    """Without FROM, the items may be followed by a WHERE (``SELECT * WHERE b``) once: the
    form kept for a bare star's WHERE took the optional WHERE after it too, and sqlglot reads
    ``SELECT a WHERE b WHERE c`` as "multiple WHERE clauses" (a random walk found it)."""
    for options in ({}, {"comments": True, "whitespace": "check", "functions": "any"}):
        sql = typedgen.Sql(dialect, **options)  # type: ignore[arg-type]
        for refused in ("SELECT a WHERE b WHERE c", "SELECT * WHERE b WHERE c"):
            with pytest.raises(sqlglot.errors.ParseError):
                sqlglot.parse_one(refused, read=sql.dialect)
            assert not sql_accepts(sql, refused), (dialect, refused)
        for text in ("SELECT a WHERE b", "SELECT a, b WHERE c GROUP BY a"):
            assert sql_accepts(sql, text), (dialect, text)
            assert round_trips(text, sql.dialect)[0]


@pytest.mark.parametrize(("dialect", "word"), [("oracle", "UNIQUE"), ("mysql", "DISTINCTROW")])
def test_distinct_spellings_only_where_read_as_distinct(dialect: str, word: str) -> None:
    """Oracle's ``SELECT UNIQUE a``, MySQL's ``SELECT DISTINCTROW a``: on where sqlglot reads
    a DISTINCT. The base parser reads ``SELECT UNIQUE a`` as the column ``unique`` aliased
    ``a`` (so its probe round-tripped there) and fails on ``SELECT UNIQUE a x``, which the
    generic grammar accepted (a stress walk found it)."""
    text = f"SELECT {word} a AS x FROM t"
    assert sql_accepts(typedgen.Sql(dialect), text) and round_trips(text, dialect)[0]
    assert sqlglot.parse_one(text, read=dialect).args.get("distinct") is not None
    refused = f"SELECT {word} a x"
    with pytest.raises(sqlglot.errors.ParseError):
        sqlglot.parse_one(refused, read="")
    generic = typedgen.Sql("generic", comments=True, whitespace="check", functions="any")
    assert not sql_accepts(typedgen.Sql("generic"), refused)
    assert not sql_accepts(generic, refused)
    assert not sql_accepts(typedgen.Sql("generic"), text)


def _misread(text: str, dialect: str) -> bool:
    """Whether sqlglot fails on ``text``, fails to read its own spelling back to the same
    tree, reads a bare type word before ``[`` as a data type (not a column), or a typed
    literal's subscript as the string's (``DATE 'x'[1]`` as ``CAST('x'[1] AS DATE)``)."""
    if not round_trips(text, dialect)[0]:
        return True
    exp = sqlglot.exp
    item = sqlglot.parse_one(text, read=dialect or None).selects[0]
    return any(
        (isinstance(n, exp.DataType) and not isinstance(n.parent, exp.Cast))
        or (isinstance(n, exp.Bracket) and isinstance(n.this, exp.Literal) and n.this.is_string)
        for n in item.walk()
    )


@pytest.mark.parametrize(
    ("dialect", "refused", "kept"),
    [
        # A bare type word before a slice without a start is read as an array type: a
        # stress walk found ClickHouse's string[:].
        ("clickhouse", "SELECT string[:] FROM t", "SELECT string[1:2], x[:] FROM t"),
        ("postgres", "SELECT text[:2] FROM t", "SELECT text[1:], t.text[:2] FROM t"),
        ("generic", "SELECT int[:2] FROM t", "SELECT int[1][1:2], x[1][:2] FROM t"),
        ("postgres", "SELECT NULL[:2]", "SELECT NULL[1:2]"),
        # DuckDB reads bigint[1] as the fixed-size array type BIGINT[1].
        ("duckdb", "SELECT bigint[1] FROM t", "SELECT bigint[1:2], x[1], x[:2] FROM t"),
        # A typed literal takes no subscript: DATE 'x'[1] is CAST('x'[1] AS DATE).
        ("postgres", "SELECT DATE '2020-01-31'[1]", "SELECT DATE '2020-01-31'::TEXT"),
        ("bigquery", "SELECT JSON '{}'[0]", "SELECT JSON '{}'"),
        # SingleStore writes CAST(a AS INT)[:2] as a :> INT[:2].
        ("singlestore", "SELECT CAST(a AS INT)[:2] FROM t", "SELECT CAST(a AS INT)[1:2] FROM t"),
        # Oracle writes DATE 'x' as TO_DATE('x', 'YYYY-MM-DD'), MySQL TIMESTAMP 'x' as
        # TIMESTAMP('x'): each reads back as another tree.
        ("oracle", "SELECT DATE '2020-01-31' FROM t", "SELECT TIMESTAMP '2020-01-31 10:00:00'"),
        ("mysql", "SELECT TIMESTAMP '2020-01-31 10:00:00'", "SELECT DATE '2020-01-31'"),
    ],
)
def test_type_words_before_a_subscript(dialect: str, refused: str, kept: str) -> None:
    """What sqlglot reads as a type before ``[``, and typed literals sqlglot misreads, are
    refused; the nearest texts stay accepted."""
    sql = typedgen.Sql(dialect)
    checking = typedgen.Sql(dialect, whitespace="check", comments=True, functions="any")
    assert _misread(refused, sql.dialect)
    assert not sql_accepts(sql, refused) and not sql_accepts(checking, refused)
    assert not _misread(kept, sql.dialect)
    assert sql_accepts(sql, kept) and sql_accepts(checking, kept)


def test_an_array_literal_takes_a_subscript() -> None:
    """PostgreSQL's ``ARRAY[1, 2][1]`` is written ``(ARRAY[1, 2])[1]``: the same subscript
    (``trees.same_tree``)."""
    text = "SELECT ARRAY[1, 2][1]"
    assert sql_accepts(typedgen.Sql("postgres"), text) and round_trips(text, "postgres")[0]


SUBSCRIPTED = ("[1]", "[1:2]", "[:2]", "[:]", "[1:]", "[1][:2]", "[1:2][1]", "[:-:-1]")


@pytest.mark.parametrize("dialect", ["postgres", "duckdb", "clickhouse", "generic"])
def test_every_type_word_before_a_subscript(dialect: str) -> None:
    """Every bare word of sqlglot's type tokens (and NULL) before each subscript form: what
    either language accepts, sqlglot reads as a column's subscript and back."""
    sql = typedgen.Sql(dialect)
    checking = typedgen.Sql(dialect, whitespace="check", comments=True, functions="any")
    t = DIALECTS[dialect].tables()
    words = sorted({w for w, tt in t.keywords.items() if tt in t.type_tokens} | {"NULL"})
    accepted = 0
    for word in words:
        for form in SUBSCRIPTED:
            text = f"SELECT {word.lower()}{form} FROM t"
            if sql_accepts(sql, text) or sql_accepts(checking, text):
                accepted += 1
                assert not _misread(text, sql.dialect), (dialect, text)
    assert accepted > len(words)  # the closed forms stay


def test_a_schema_column_named_by_a_type_word() -> None:
    """A schema's column named ``text`` is such a type word too; qualified it is not."""
    sql = typedgen.Sql("postgres", schema={"t": {"text": "text", "x": "int"}})
    assert _misread("SELECT text[:2] FROM t", "postgres")
    assert not sql_accepts(sql, "SELECT text[:2] FROM t")
    kept = "SELECT t.text[:2], text[1:2], x[:2] FROM t"
    assert sql_accepts(sql, kept) and not _misread(kept, "postgres")


def test_variadic_takes_a_bitwise_operand() -> None:
    """PostgreSQL reads ``VARIADIC`` with a bitwise operand (``VARIADIC b = c`` comes back as
    ``a -> (VARIADIC b = c)``, another tree): a comparison or a predicate is no operand."""
    sql = typedgen.Sql("postgres")
    for operand in ("b = c", "b IS NULL", "b NOT IN (1)"):
        text = f"SELECT JSON_EXTRACT_PATH(a, VARIADIC {operand}) FROM t"
        assert not round_trips(text, "postgres")[0], text
        assert not sql_accepts(sql, text), text
    for operand in ("b || c", "ARRAY[b, c]"):
        text = f"SELECT JSON_EXTRACT_PATH(a, VARIADIC {operand}) FROM t"
        assert sql_accepts(sql, text) and round_trips(text, "postgres")[0], text


@pytest.mark.parametrize("dialect", ["postgres", "snowflake", "duckdb"])
def test_named_arguments_named_by_keywords(dialect: str) -> None:
    """A named argument's name is any unquoted name, keywords too (``f(count => 1)``); a
    quoted one is refused (``f("a b" => 1)`` is written ``f(a b => 1)``, which fails)."""
    sql = typedgen.Sql(dialect, functions="any", whitespace="check")
    text = "SELECT my_udf(count => 1, year => 2)"
    assert sql_accepts(sql, text) and round_trips(text, dialect)[0]
    quoted = 'SELECT my_udf("a b" => 1)'
    assert not round_trips(quoted, dialect)[0]
    assert not sql_accepts(sql, quoted)

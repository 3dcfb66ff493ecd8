"""T-SQL's and Oracle's constructs: each accepted where its probe round-trips in the dialect,
refused elsewhere. sqlglot is the oracle: every accepted text parses in the dialect and its
output parses back to the same tree.
"""

from __future__ import annotations

import pytest

import typedgen

from ._sql import assert_construct, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (dialect that has it, text, a dialect that does not, or None)
CONSTRUCTS = [
    # Words read on through sqlglot's VAR_SINGLE_TOKENS: one name each.
    ("tsql", "SELECT t.Test#, t.Test@, Test$ FROM t", "sqlite"),
    ("oracle", "SELECT a$x#b FROM V$SESSION", "sqlite"),
    ("oracle", "SELECT * FROM table_name@dblink_name.database_link_domain AS x", "mysql"),
    # T-SQL: temporary tables, hints, OPTION, FOR BROWSE, a = 1 aliases, CONVERT, OPENJSON.
    ("tsql", "SELECT #t.a, ##u.b FROM #t JOIN ##u ON #t.a = ##u.b", "oracle"),
    ("tsql", "SELECT * FROM t WITH (TABLOCK, INDEX(i, j))", "sqlite"),
    ("tsql", "SELECT a FROM t OPTION(LABEL = 'x', MAXDOP 2, HASH JOIN, RECOMPILE)", "oracle"),
    ("tsql", "SELECT a FROM t FOR BROWSE", "postgres"),
    ("tsql", "SELECT a = 1, b = c + 1 FROM t", None),
    ("tsql", "SELECT CONVERT(VARCHAR(10), a, 120), CONVERT(INT, b) FROM t", "postgres"),
    (
        "tsql",
        "SELECT * FROM OPENJSON(@j, '$.a') WITH (n INT '$.n', o NVARCHAR(MAX) AS JSON) j",
        None,
    ),
    ("tsql", "SELECT [key], value FROM OPENJSON(@j, '$.path') AS x", "oracle"),
    ("tsql", "SELECT a.b.c.d, CONVERT(INT, db.s.t.x) FROM db..t", "oracle"),
    ("tsql", 'SELECT "a b" AS "[x]" FROM t', "mysql"),  # written [a b] AS [[x]]]
    (
        "tsql",
        "SELECT n.c.VALUE('(/a)[1]', 'float') AS v FROM t AS s CROSS APPLY s.x.nodes('/a') AS n(c)",
        "mysql",
    ),
    ("tsql", "SELECT j FROM (SELECT TOP 1 a AS j FROM t ORDER BY a FOR JSON PATH) AS x", "oracle"),
    ("tsql", "SELECT (SELECT TOP 5 a FROM t ORDER BY a DESC FOR JSON PATH) AS j", "oracle"),
    ("tsql", "SELECT * FROM (SELECT a FROM t UNION SELECT b FROM u ORDER BY a) AS s", "oracle"),
    (
        "tsql",
        "SELECT * FROM (SELECT c AS c FROM t) AS s JOIN (SELECT d FROM u) AS v(e) ON 1 = 1",
        None,
    ),
    ("tsql", "SELECT y.z FROM x OUTER APPLY a.b.tvfTest(x.a, 1)y(z)", "oracle"),
    # Oracle: intervals, PRIOR, ORDER SIBLINGS BY, pivots, JSON_TABLE, XMLTABLE.
    (
        "oracle",
        "SELECT CONNECT_BY_ROOT t.a r, DBMS_RANDOM.VALUE(), DBMS_RANDOM.VALUE(1, 2)",
        "tsql",
    ),
    ("oracle", "SELECT (a - b) DAY(9) TO SECOND(3), (a - b) YEAR TO MONTH FROM t", "postgres"),
    (
        "oracle",
        "SELECT PRIOR a AS p FROM t START WITH b = 1 CONNECT BY PRIOR a = c ORDER SIBLINGS BY a",
        "snowflake",
    ),
    ("oracle", "SELECT * FROM t UNPIVOT INCLUDE NULLS (a FOR b IN (c, d)) u", "tsql"),
    ("oracle", "SELECT * FROM t PIVOT(SUM(a) FOR b IN ('x' AS x)) AS p", "postgres"),
    ("oracle", "SELECT CAST(a AS VARCHAR2(10 BYTE)), CAST(b AS CHAR(2 CHAR)) FROM t", "tsql"),
    ("tsql", "SELECT CAST(a AS VARCHAR(MAX)), CAST(b AS NVARCHAR(MAX)) FROM t", "oracle"),
    ("oracle", "SELECT * FROM a LEFT JOIN b ON a.x = b.y PIVOT(MAX(c) FOR d IN (1, 2))", "tsql"),
    (
        "oracle",
        "SELECT * FROM JSON_TABLE(a FORMAT JSON, '$[*]' ERROR ON ERROR NULL ON EMPTY"
        " COLUMNS(b NUMBER PATH '$.b', c CLOB FORMAT JSON PATH '$.c', NESTED PATH '$.d'"
        " COLUMNS(e PATH '$.e'))) j",
        "tsql",
    ),
    ("oracle", "SELECT * FROM JSON_TABLE(a, '$' COLUMNS b PATH '$.b')", "tsql"),
    (
        "oracle",
        "SELECT w.c FROM t, XMLTABLE('/a' PASSING t.x COLUMNS \"c\" VARCHAR2(6) PATH 'c') w",
        "tsql",
    ),
    # Oracle: JSON_OBJECT with key: value pairs, calls on package names.
    (
        "oracle",
        "SELECT JSON_OBJECT('a': b, KEY c VALUE d FORMAT JSON ABSENT ON NULL RETURNING CLOB),"
        " JSON_OBJECTAGG(KEY a VALUE b) FROM t",
        "tsql",
    ),
    ("oracle", "SELECT DBMS_LOB.GETLENGTH(a), DBMS_LOB.SUBSTR(a, 1, 2) FROM t", "postgres"),
    (
        "oracle",
        "SELECT * FROM XMLTABLE('/a' PASSING dbms_xmlgen.getxmltype('x')"
        " COLUMNS b NUMBER PATH 'c')",
        "tsql",
    ),
]

# Spellings sqlglot reads as another tree: refused.
REFUSED = [
    ("oracle", "SELECT * FROM t PIVOT(SUM(a) FOR t.b IN ('x'))"),  # comes back FOR b
    ("oracle", "SELECT * FROM t UNPIVOT(a FOR b IN (t.c, d))"),  # comes back IN (c, d)
    # T-SQL names a derived table's unnamed columns when it writes it back (another tree).
    ("tsql", "SELECT * FROM (SELECT 1) AS s"),
    ("oracle", "SELECT prior FROM t"),  # PRIOR reads a value: no column named prior
]

# A construct beside a spelling of it that sqlglot reads as another tree: (dialect, accepted,
# refused).
BESIDE = [
    ("tsql", "SELECT * FROM t WITH (INDEX(i))", "SELECT * FROM t WITH (INDEX = i)"),
    (
        "tsql",
        'SELECT * FROM x JOIN (SELECT "c" AS c FROM t) AS s ON 1 = 1',
        # t.c is written t.c AS c: another tree (a bare c AS c is c: test_tsql_mysql)
        'SELECT * FROM x JOIN (SELECT t."c" FROM t) AS s ON 1 = 1',
    ),
    # One bound: sqlglot's Rand drops it.
    ("oracle", "SELECT DBMS_RANDOM.VALUE(1, 2)", "SELECT DBMS_RANDOM.VALUE(1)"),
]


@pytest.mark.parametrize(("dialect", "text", "without"), CONSTRUCTS)
def test_construct(dialect: str, text: str, without: str | None) -> None:
    assert_construct(dialect, text, without, **CHECKING)


@pytest.mark.parametrize(("dialect", "accepted", "refused"), BESIDE)
def test_beside_another_tree(dialect: str, accepted: str, refused: str) -> None:
    assert_construct(dialect, accepted, None, **CHECKING)
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), refused)


@pytest.mark.parametrize(("dialect", "text"), REFUSED)
def test_refused(dialect: str, text: str) -> None:
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text)


# SELECT ... INTO: a statement (it creates a table or assigns variables), opted into.
SELECT_INTO = [
    ("tsql", "SELECT * INTO #t FROM u WHERE a > 1"),
    ("tsql", "WITH t(c) AS (SELECT 1) SELECT * INTO db.s.foo FROM (SELECT c AS c FROM t) AS x"),
    ("oracle", "SELECT a, b INTO x, y FROM u FETCH FIRST 1 ROWS ONLY"),
    ("oracle", "SELECT a, b BULK COLLECT INTO x, y FROM u"),
]


@pytest.mark.parametrize(("dialect", "text"), SELECT_INTO)
def test_select_into(dialect: str, text: str) -> None:
    assert_construct(dialect, text, None, statements=("select", "select_into"), **CHECKING)
    # Not a query: refused without the opt-in, and binding names its kind.
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text)
    with pytest.raises(typedgen.BindingError, match="select_into"):
        typedgen.Sql(dialect).parse(text)


def test_select_into_needs_a_dialect_that_has_it() -> None:
    with pytest.raises(typedgen.UnsupportedFeatureError, match="SELECT INTO"):
        typedgen.grammar_of(typedgen.Sql("sqlite", statements=("select_into",)))


@pytest.mark.parametrize("dialect", ["tsql", "oracle"])
def test_a_method_call_on_a_date_part_word(dialect: str) -> None:
    # n, d, m... are keywords where EXTRACT takes them as date parts (N: nanosecond in T-SQL);
    # as the first name of a method call they are still plain words (found when merging).
    assert_construct(dialect, "SELECT n.c.VALUE('x', 'float') AS v FROM t", None)

"""BigQuery's names and lexemes (typedgen/frontends/sql/bigquery_names.py), each construct on
where its probe (bigquery_names_probes.py) reads back to the same tree and the dialect class
includes it.

sqlglot is the oracle: every accepted text parses in BigQuery and its output parses back to
the same tree; each refused spelling below is one sqlglot reads as another tree (or not at all).
"""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

import typedgen
from typedgen.frontends.sql import dialect_class
from typedgen.frontends.sql.tables import dialect_tables

from ._sql import assert_construct, sql_accepts

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}

# (text BigQuery accepts, a dialect that refuses it, or None)
CONSTRUCTS = [
    # Dashed project and table names, first in FROM (then joins, no comma list).
    ("SELECT * FROM my-project.mydataset.mytable", "duckdb"),
    ("SELECT * FROM a-b-c", "snowflake"),
    ("SELECT * FROM x-0.y", "postgres"),
    ("SELECT * FROM x-0.y.z AS t WHERE t.a-1 > 0", None),
    ("SELECT * FROM my-1table t JOIN u ON t.a = u.a", None),
    ("SELECT * FROM pro-ject_id.c.d CROSS JOIN foo-bar AS f", None),
    ("SELECT * FROM x WHERE x.y >= (SELECT MAX(a) FROM b-c) - 20", None),
    # a-b stays a subtraction where no table name may go.
    ("SELECT a-b, f(c-1), (d-e) FROM t WHERE g-h > 0", None),
    # Triple-quoted strings: no run of three quotes inside, no quote last.
    ('SELECT """a\\"b"""', "duckdb"),
    ("SELECT '''ends with \\'word\\''''", "postgres"),
    ("SELECT \"\"\"a\"\"b'''c\"\"\", '''d''e\"\"\"f''' AS x", None),
    ('SELECT """""", """a\nb"""', None),
    # A number as the last part of a path.
    ("SELECT * FROM foo.bar.25", "duckdb"),
    ("SELECT STRING(data.144), a.b.7 FROM foo.25 AS f", "postgres"),
    ("SELECT * FROM foo.bar.25x AS a, foo.25ab b WHERE a.144x = b.c.7y", "snowflake"),
    # Raw strings in triple quotes: a backslash keeps a quote from closing, and stays.
    ('SELECT r"""a\\"b""", R\'\'\'c\\\'d\'\'\', r"""ends with \\""""', "duckdb"),
    # The fields of an array's element.
    ("SELECT a[0].b, c[1].d.e, f(x)[2].g[3].h FROM t", None),
    # A user function by its quoted path (functions="any"), .* its struct's fields.
    ("SELECT `p.d.UdF`(data).* FROM `p.d.t`", "mysql"),
    ("SELECT `my-proj.d.f`() + `a.b`(x, `c.d`(y)).* * 2, `e.f`(z) AS w FROM t", "spark"),
    # A domain-scoped project's table (a quoted name with a dot before a colon).
    ("SELECT x.a FROM `a.com:p-q.d.t` AS x JOIN `b.c:q.e.u` ON TRUE", None),
    # Four-part column paths.
    ("SELECT * FROM t1, UNNEST(`t1`.`t2`.`t3`.`t4`) AS `col`", None),
    ("SELECT a.b.c.d FROM t", "postgres"),
]


@pytest.mark.parametrize(("text", "without"), CONSTRUCTS)
def test_bigquery_names_construct(text: str, without: str | None) -> None:
    assert_construct("bigquery", text, without, **CHECKING)


def _table(text: str) -> exp.Table:
    table = sqlglot.parse_one(text, read="bigquery").find(exp.Table)
    assert table is not None
    return table


def test_dashed_names_are_one_name() -> None:
    """sqlglot's parse of the accepted text: the dashes belong to the project's name."""
    table = _table("SELECT * FROM my-project.mydataset.mytable")
    assert (table.catalog, table.db, table.name) == ("my-project", "mydataset", "mytable")
    assert _table("SELECT * FROM a-b-c").name == "a-b-c"


def test_numeric_parts_and_triple_quotes_parse_as_names_and_strings() -> None:
    table = _table("SELECT * FROM foo.bar.25")
    assert (table.db, table.name, table.this.quoted) == ("bar", "25", True)
    string = sqlglot.parse_one('SELECT """a\\"b"""', read="bigquery").expressions[0]
    assert string == exp.Literal.string('a"b')


# (a spelling BigQuery accepts, a close one it refuses: sqlglot reads it as another tree)
REFUSED = [
    # A glued comma is read into the dashed name (a parse error). So that none can follow
    # one, a dashed name is first in a FROM without a comma list (by choice: sqlglot reads
    # the spaced forms too).
    ("SELECT * FROM a-b", "SELECT * FROM a-b,c"),
    ("SELECT * FROM a-b", "SELECT * FROM a-b , c"),
    ("SELECT * FROM a-b", "SELECT * FROM c, a-b"),
    # Right after FROM a dashed name may start, so a subtraction there needs a space (a
    # cost of the contextual lexeme, by choice).
    ("SELECT EXTRACT(DAY FROM a - b)", "SELECT EXTRACT(DAY FROM a-b)"),
    ("SELECT * FROM t --x\n", "SELECT * FROM t--x\n"),
    # sqlglot's tokenizer fails on a quoted name glued to a dashed one, so a quoted alias
    # takes AS (spaced too, by choice).
    ("SELECT * FROM x-0.y AS`b`", "SELECT * FROM x-0.y`b`"),
    ("SELECT * FROM a-h AS `b`", "SELECT * FROM a-h `b`"),
    # Spaces around the dash make another text (a parse error).
    ("SELECT * FROM a-b", "SELECT * FROM a - b"),
    ("SELECT * FROM a-b", "SELECT * FROM a-b-"),
    # A keyword or quoted part after a part ending in digits comes back quoted or fails.
    ("SELECT * FROM x-0.y", "SELECT * FROM x-0.select"),
    ("SELECT * FROM x-0.y", "SELECT * FROM x-0.`y`"),
    # More than project.dataset.table comes back as one quoted name.
    ("SELECT * FROM x-0.y.z", "SELECT * FROM x-0.y.z.w"),
    # Four quotes close the string and leave a quote.
    ('SELECT """a"""', 'SELECT """a""""'),
    ("SELECT '''a'''", "SELECT '''a''''"),
    # A hex number is no name part; 25x alone is no value; a keyword is no field.
    ("SELECT * FROM foo.bar.0x", "SELECT * FROM foo.bar.0x1f"),
    ("SELECT 25 AS x", "SELECT 25x"),
    ("SELECT a[0].b FROM t", "SELECT a[0].select FROM t"),
    # sqlglot reads a quoted name without a dot as the function it names (`date`(1) is
    # DATE(1), `if`(x) fails): only a quoted path is called.
    ("SELECT `a.b`(x)", "SELECT `if`(x)"),
    ("SELECT `a.b`(x)", "SELECT `a..b`(x)"),
    # A quoted column with a dot before a colon comes back as ``.`a.b:c` (sqlglot reads a
    # domain-scoped project): a table's name only.
    ("SELECT `a:c`, `a.b` FROM `a.b:c`", "SELECT `a.b:c` FROM t"),
    ("SELECT f(`a:c`) FROM t", "SELECT f(`a.b:c`) FROM t"),
    # A doubled quote is an escaped one: `a.b``c:d` is one such name (a random walk found it).
    ("SELECT * FROM `a.b``c:d`", "SELECT `a.b``c:d`"),
    # A number only last: data.1.5 lexes a decimal, foo.25.bar comes back as one name.
    ("SELECT data.1 FROM t", "SELECT data.1.5 FROM t"),
    ("SELECT * FROM foo.bar.25", "SELECT * FROM foo.25.bar"),
]


@pytest.mark.parametrize(("accepted", "refused"), REFUSED)
def test_bigquery_names_refuses(accepted: str, refused: str) -> None:
    sql = typedgen.Sql("bigquery", **CHECKING)
    assert sql_accepts(sql, accepted)
    assert not sql_accepts(sql, refused)


def test_bigquery_names_are_dialect_specific() -> None:
    """Only sqlglot's BigQuery reads them: on there, off elsewhere."""
    features = dialect_class("bigquery").tables().features
    assert {"dashed_table", "triple_quoted", "numeric_path", "subscript_field"} <= features
    assert {"quoted_call", "domain_project"} <= features
    assert "column_four_parts" in features
    for feature in ("dashed_table", "triple_quoted", "numeric_path", "quoted_call"):
        assert feature not in dialect_tables("").features
        assert feature not in dialect_class("duckdb").tables().features

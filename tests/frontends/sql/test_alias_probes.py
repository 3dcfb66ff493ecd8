"""Keywords as bare aliases (:mod:`typedgen.frontends.sql.alias_probes`): a keyword is a table
or column alias without ``AS`` where sqlglot reads it back as that alias before every follower
the grammar allows there, and is refused where it would start a clause instead. sqlglot is the
oracle: an accepted text parses, round-trips, and names the word as its alias.
"""

from __future__ import annotations

import functools

import pytest
import sqlglot
from sqlglot import exp

import typedgen
from typedgen.compiler.lowering import lower
from typedgen.frontends.sql import DIALECTS
from typedgen.frontends.sql.alias_probes import (
    COLUMN_ALIAS_AFTER,
    COLUMN_ALIAS_PROBES,
    TABLE_ALIAS_PROBES,
    continuation_words,
)
from typedgen.frontends.sql.tables import (
    _alias_before,
    _quiet_sqlglot,
    _round_trips,
    _word_roles,
    dialect_tables,
    sqlglot_dialect,
)
from typedgen.ir.analysis import bnf_first_follow

from ._sql import round_trips, sql_accepts

MAIN = ("sqlite", "postgres", "mysql", "bigquery", "snowflake", "duckdb", "tsql", "oracle")
CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}


def _aliases(text: str, dialect: str) -> list[str]:
    tree = sqlglot.parse_one(text, read=typedgen.Sql(dialect).dialect)
    found = [a.alias for a in tree.find_all(exp.Alias, exp.TableAlias)]
    return [name.upper() for name in found + [t.alias for t in tree.find_all(exp.Table)]]


def test_the_fixed_check_finds_keyword_aliases() -> None:
    # The word is compared upper case (sqlglot's names are compared so): COMMENT, a keyword of
    # BigQuery's tokenizer, is an alias before every follower there, and the roles say so.
    d = sqlglot_dialect("bigquery")
    with _quiet_sqlglot():
        assert _alias_before("COMMENT", d, TABLE_ALIAS_PROBES, {})
        assert _alias_before("COMMENT", d, COLUMN_ALIAS_PROBES, {})
        assert _word_roles("COMMENT", d, {}) == (True, True, True)
        # LEFT starts a join after a table, QUALIFY a clause after a column: no bare aliases.
        assert not _alias_before("LEFT", d, TABLE_ALIAS_PROBES, {})
        assert not _alias_before("QUALIFY", d, COLUMN_ALIAS_PROBES, {})
        assert _word_roles("LEFT", d, {})[1:] == (False, False)
    tables = dialect_tables("bigquery")
    assert sum(roles[1] for roles in tables.word_roles.values()) > 100
    assert sum(roles[2] for roles in tables.word_roles.values()) > 100


# (dialect, text, the keyword read back as its alias): keywords of the dialect's tokenizer
# that sqlglot reads as a bare alias before the follower.
ACCEPTED = [
    ("bigquery", "SELECT a comment FROM t", "COMMENT"),
    ("bigquery", "SELECT a FROM t cache WHERE cache.b > 1", "CACHE"),
    ("bigquery", "SELECT a FROM t comment JOIN u cache ON comment.a = cache.b", "COMMENT"),
    ("postgres", "SELECT a FROM t cache LEFT JOIN u ON a = b", "CACHE"),
    ("postgres", "SELECT a comment, b FROM t ORDER BY a", "COMMENT"),
    ("postgres", "SELECT a left FROM t", "LEFT"),
    ("snowflake", "SELECT a FROM t file QUALIFY b = 1", "FILE"),
    ("duckdb", "SELECT a FROM t comment, u", "COMMENT"),
    ("mysql", "SELECT a FROM t comment LIMIT 1", "COMMENT"),
    ("sqlite", "SELECT a analyze FROM t", "ANALYZE"),
    ("tsql", "SELECT a FROM t comment WHERE b = 1", "COMMENT"),
    ("oracle", "SELECT a FROM t cache CONNECT BY a = PRIOR b", "CACHE"),
]


@pytest.mark.parametrize(("dialect", "text", "word"), ACCEPTED)
def test_keyword_bare_alias_accepted(dialect: str, text: str, word: str) -> None:
    assert sqlglot_dialect(dialect).tokenizer_class.KEYWORDS[word].name != "VAR"
    assert sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
    ok, detail = round_trips(text, dialect)
    assert ok, detail
    assert word in _aliases(text, dialect)


# (dialect, text): a keyword that would start a clause (or is read as part of the expression)
# right where a bare alias could stand; sqlglot reads another tree or none.
REFUSED = [
    ("bigquery", "SELECT a FROM t left"),
    ("bigquery", "SELECT a FROM t natural WHERE b = 1"),
    ("bigquery", "SELECT a FROM t cross"),
    ("bigquery", "SELECT a qualify FROM t"),
    ("bigquery", "SELECT a FROM t window"),
    ("postgres", "SELECT a FROM t full WHERE b = 1"),
    ("postgres", "SELECT a FROM t natural"),
    ("postgres", "SELECT a FROM t window WHERE b = 1"),
    ("postgres", "SELECT COUNT(a) over FROM t"),
    ("snowflake", "SELECT a qualify FROM t"),
    ("snowflake", "SELECT a FROM t qualify WHERE b = 1"),
    ("snowflake", "SELECT a FROM t match_recognize"),
    ("duckdb", "SELECT a FROM t using WHERE b = 1"),
    ("duckdb", "SELECT a FROM t positional"),
    ("duckdb", "SELECT a FROM t asof"),
    ("mysql", "SELECT a FROM t straight_join WHERE b = 1"),
    ("mysql", "SELECT a FROM t force"),
    ("mysql", "SELECT a FROM t ignore"),
    ("tsql", "SELECT a FROM t outer WHERE b = 1"),
    ("tsql", "SELECT a FROM t option"),
    ("tsql", "SELECT a option FROM t"),
    ("sqlite", "SELECT a LIKE b escape FROM t"),
    ("sqlite", "SELECT a FROM t left"),
    ("generic", "SELECT case = a"),
    ("generic", "SELECT all = a"),
    ("oracle", "SELECT a FROM t minus"),
    ("oracle", "SELECT a FROM t start"),
]


@pytest.mark.parametrize(("dialect", "text"), REFUSED)
def test_keyword_starting_a_clause_refused(dialect: str, text: str) -> None:
    assert not sql_accepts(typedgen.Sql(dialect), text), (dialect, text)
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text), (dialect, text)


def test_refused_texts_are_not_that_alias() -> None:
    # The oracle for REFUSED: sqlglot fails, or reads the word as no alias (OVER as a window,
    # TO as an interval's end), or reads an alias that starts a clause after it (START WITH).
    for dialect, text in REFUSED:
        word = next(w for w in text.split() if w.islower() and w not in {"a", "b", "t", "u"})
        try:
            aliases = _aliases(text, dialect)
        except sqlglot.errors.SqlglotError:
            continue
        assert word.upper() not in aliases or dialect == "oracle", (dialect, text)


@functools.cache
def _follow(dialect: str, checking: bool) -> dict[str, set[str]]:
    """The terminals that may follow each alias rule in the dialect's grammar (FOLLOW sets)."""
    grammar = typedgen.grammar_of(typedgen.Sql(dialect, **(CHECKING if checking else {})))
    parser = lower(grammar)
    n = len(parser.terminals)
    _, follow = bnf_first_follow(parser.productions, n, n + len(parser.nonterminals))
    out = {}
    for rule in ("table_alias", "column_alias"):
        i = parser.nonterminals.index(rule) + n
        out[rule] = {parser.terminals[k].name for k in range(n) if follow[i] >> k & 1}
    return out


_IGNORED = {"LINE_COMMENT", "BLOCK_COMMENT", "WS", "COMMENT"}


def _probed(dialect: str, probes: tuple[tuple[str, str], ...]) -> set[str]:
    """The follower terminals with a probe that counts in ``dialect``."""
    d = sqlglot_dialect(typedgen.Sql(dialect).dialect)
    with _quiet_sqlglot():
        return {
            terminal
            for terminal, template in probes
            if _round_trips(template.format("x"), d, exact=False)
        }


KNOWN_GAPS: dict[tuple[str, str], set[str]] = {}
"""Followers no probe can count, each a bug of its own (none known: the generic grammar's
``POSITIONAL JOIN``, whose probe read back there as an alias and a plain join, is off)."""


def _check_followers(dialect: str) -> None:
    for checking in (False, True):
        follow = _follow(dialect, checking)
        for rule, probes in (
            ("table_alias", TABLE_ALIAS_PROBES),
            ("column_alias", COLUMN_ALIAS_PROBES),
        ):
            known = KNOWN_GAPS.get((dialect, rule), set())
            assert known <= follow[rule]  # a gap fixed elsewhere is taken off the list
            missing = follow[rule] - _probed(dialect, probes) - _IGNORED - known
            assert not missing, f"{dialect} {rule}: followers never probed: {sorted(missing)}"


@pytest.mark.parametrize("dialect", MAIN)
def test_every_follower_of_an_alias_is_probed(dialect: str) -> None:
    _check_followers(dialect)


@pytest.mark.slow
@pytest.mark.parametrize("dialect", sorted(set(DIALECTS) - set(MAIN)))
def test_every_follower_of_an_alias_is_probed_other_dialects(dialect: str) -> None:
    _check_followers(dialect)


def test_after_expressions_probed() -> None:
    # The expressions whose end a word may extend take the plain alias x in BigQuery (so
    # they count there), and ESCAPE after LIKE is no alias: it would read as LIKE's escape.
    d = sqlglot_dialect("bigquery")
    with _quiet_sqlglot():
        counted = [t for t in COLUMN_ALIAS_AFTER if _round_trips(t.format("x"), d, exact=False)]
        assert len(counted) >= len(COLUMN_ALIAS_AFTER) // 2
        assert not _round_trips("SELECT a LIKE b escape FROM t", d, exact=False)
    assert not dialect_tables("bigquery").word_roles.get("ESCAPE", (0, 0, 0))[2]


def _cte_names(text: str, dialect: str) -> list[str] | None:
    """The names of the CTEs sqlglot reads from ``text`` (upper case); None where it fails."""
    try:
        tree = sqlglot.parse_one(text, read=typedgen.Sql(dialect).dialect)
    except sqlglot.errors.SqlglotError:
        return None
    return [cte.alias.upper() for cte in tree.find_all(exp.CTE)]


# (dialect, text refused, the nearest text still accepted): a CTE named by a word sqlglot
# reads as a WITH modifier (RECURSIVE, after WITH and after each comma) or, before a column
# list, as something else (LIMIT(c)); quoted, the name stays fine.
CTE_NAMES = [
    ("postgres", "WITH recursive AS (SELECT 1) SELECT 2", "WITH r AS (SELECT 1) SELECT 2"),
    (
        "postgres",
        "WITH recursive(a) AS (SELECT 1) SELECT 2",
        'WITH "recursive"(a) AS (SELECT 1) SELECT 2',
    ),
    (
        "postgres",
        "WITH a AS (SELECT 1), recursive AS (SELECT 2) SELECT 3",
        "WITH a AS (SELECT 1), rec AS (SELECT 2) SELECT 3",
    ),
    ("postgres", "WITH limit(c) AS (SELECT 1) SELECT 2", "WITH lim(c) AS (SELECT 1) SELECT 2"),
    ("sqlite", "WITH recursive AS (SELECT 1) SELECT 2", 'WITH "r" AS (SELECT 1) SELECT 2'),
    ("duckdb", "WITH recursive AS (SELECT 1) SELECT 2", "WITH r AS (SELECT 1) SELECT 2"),
    ("snowflake", "WITH offset(c) AS (SELECT 1) SELECT 2", "WITH o(c) AS (SELECT 1) SELECT 2"),
    ("tsql", "WITH recursive(a) AS (SELECT 1) SELECT 2", "WITH r(a) AS (SELECT 1) SELECT 2"),
    ("generic", "WITH recursive AS (SELECT 1) SELECT 2", "WITH r AS (SELECT 1) SELECT 2"),
]


@pytest.mark.parametrize(("dialect", "refused", "accepted"), CTE_NAMES)
def test_cte_named_by_a_with_modifier_refused(dialect: str, refused: str, accepted: str) -> None:
    assert _cte_names(refused, dialect) is None  # sqlglot: "Expected CTE to have alias"
    for options in ({}, CHECKING):
        sql = typedgen.Sql(dialect, **options)
        assert not sql_accepts(sql, refused), (dialect, refused)
        assert sql_accepts(sql, accepted), (dialect, accepted)
    ok, detail = round_trips(accepted, typedgen.Sql(dialect).dialect)
    assert ok, detail
    assert _cte_names(accepted, dialect)  # read with its CTEs named


def test_cte_names_probed() -> None:
    # RECURSIVE names a column in PostgreSQL (SELECT recursive FROM t) but no CTE.
    tables = dialect_tables("postgres")
    assert tables.word_roles["RECURSIVE"][0]
    assert "RECURSIVE" in tables.cte_refused
    assert "YEAR" not in tables.cte_refused
    assert sql_accepts(typedgen.Sql("postgres"), "SELECT recursive FROM t")


# (dialect, text refused, the nearest text still accepted): TO after an interval's unit
# continues the interval for sqlglot (DAY TO FROM is a span, t the alias), so TO is no bare
# column alias where spans parse; after AS it still is.
INTERVAL_TO = [
    ("postgres", "SELECT INTERVAL '1' DAY to FROM t", "SELECT INTERVAL '1' DAY AS to FROM t"),
    ("oracle", "SELECT INTERVAL '1' DAY to FROM t", "SELECT INTERVAL '1' DAY AS to FROM t"),
    ("tsql", "SELECT INTERVAL '1' DAY to FROM t", "SELECT INTERVAL '1' DAY AS to FROM t"),
    ("generic", "SELECT INTERVAL '1' DAY to FROM t", "SELECT INTERVAL '1' DAY AS to FROM t"),
    ("postgres", "SELECT INTERVAL '1' DAY to", "SELECT INTERVAL '1' DAY x"),
]


@pytest.mark.parametrize(("dialect", "refused", "accepted"), INTERVAL_TO)
def test_interval_continuation_no_bare_alias(dialect: str, refused: str, accepted: str) -> None:
    name = typedgen.Sql(dialect).dialect
    try:
        tree = sqlglot.parse_one(refused, read=name)
    except sqlglot.errors.SqlglotError:
        tree = None
    # sqlglot fails, or reads TO as the interval's own (a span), not as the alias.
    assert tree is None or (
        tree.find(exp.IntervalSpan) is not None and "TO" not in _aliases(refused, dialect)
    )
    assert "TO" in continuation_words(sqlglot_dialect(name))
    assert not dialect_tables(name).word_roles["TO"][2]
    for options in ({}, CHECKING):
        sql = typedgen.Sql(dialect, **options)
        assert not sql_accepts(sql, refused), (dialect, refused)
        assert sql_accepts(sql, accepted), (dialect, accepted)
    ok, detail = round_trips(accepted, name)
    assert ok, detail
    assert tree is None or not sqlglot.parse_one(accepted, read=name).find(exp.IntervalSpan)


def test_interval_to_is_an_alias_where_spans_do_not_parse() -> None:
    # ClickHouse's parser reads no interval span: TO after the unit is the alias there.
    assert "TO" in _aliases("SELECT INTERVAL '1' DAY to FROM t", "clickhouse")
    assert dialect_tables("clickhouse").word_roles["TO"] == (True, True, True)


# (dialect, text refused, the nearest text still accepted): words sqlglot's parser reads by
# their text as a function without parentheses (NO_PAREN_FUNCTION_PARSERS: IF takes a
# condition, so IF < 1 has no left side) are probed as keywords are.
NO_PAREN_WORDS = [
    ("generic", "SELECT If<1", 'SELECT "If" < 1'),
    ("generic", "SELECT if = a FROM t", 'SELECT "if" = a FROM t'),
    ("postgres", "SELECT if < 1 FROM t", 'SELECT "if" < 1 FROM t'),
    ("generic", "SELECT connect_by_root < 1", 'SELECT "connect_by_root" < 1'),
]


@pytest.mark.parametrize(("dialect", "refused", "accepted"), NO_PAREN_WORDS)
def test_no_paren_function_words(dialect: str, refused: str, accepted: str) -> None:
    name = typedgen.Sql(dialect).dialect
    word = refused.split()[1].split("<")[0].upper()
    assert word in sqlglot_dialect(name).parser_class.NO_PAREN_FUNCTION_PARSERS
    with pytest.raises(sqlglot.errors.SqlglotError):
        sqlglot.parse_one(refused, read=name)
    assert not dialect_tables(name).word_roles[word][0]
    for options in ({}, CHECKING):
        sql = typedgen.Sql(dialect, **options)
        assert not sql_accepts(sql, refused), (dialect, refused)
        assert sql_accepts(sql, accepted), (dialect, accepted)
    ok, detail = round_trips(accepted, name)
    assert ok, detail


def test_if_still_a_function_where_the_dialect_has_it() -> None:
    # The word IF is no column now, but IF(a, b, c) is still MySQL's function.
    text = "SELECT IF(a, 1, 2) < 1 FROM t"
    assert sql_accepts(typedgen.Sql("mysql"), text)
    assert isinstance(sqlglot.parse_one(text, read="mysql").find(exp.If), exp.If)
    assert round_trips(text, "mysql")[0]

"""Digit-led names (:mod:`typedgen.frontends.sql.digit_names`): where sqlglot's tokenizer
reads ``12abc``, ``1e5x``, ``0xz`` as one name, the checking language takes them as names and
every other cut of such a word is refused; numbers (``1e5``, ``0x1F``, ``0b101``, ``1L``)
stay numbers. sqlglot is the oracle, over every short word of a small alphabet.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

import typedgen
from typedgen.frontends.sql.digit_names import digit_lexing

from ._sql import round_trips, sql_accepts
from .test_soundness import _check

CHECKING = {"comments": True, "whitespace": "check", "functions": "any", "placeholders": True}
DIGIT_DIALECTS = (
    "mysql",
    "clickhouse",
    "hive",
    "spark",
    "doris",
    "starrocks",
    "singlestore",
    "databricks",
    "spark2",
)
ALPHABET = "01eEx_bLz.-$"


@functools.cache
def _words() -> tuple[str, ...]:
    """Every word of up to four characters of :data:`ALPHABET` that begins with a digit."""
    rests = ("".join(r) for n in range(4) for r in itertools.product(ALPHABET, repeat=n))
    return tuple(first + rest for rest in rests for first in "01")


def _column(text: str, dialect: str) -> exp.Column | None:
    """sqlglot's single projection of ``text`` where it is a column and round-trips."""
    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except (sqlglot.errors.SqlglotError, ValueError):
        return None
    values = tree.expressions if isinstance(tree, exp.Select) else []
    if len(values) != 1 or not isinstance(values[0], exp.Column):
        return None
    return values[0] if round_trips(text, dialect)[0] else None


def test_flag_derived() -> None:
    """The dialects whose tokenizer reads digit-led names, and what each reads as a number."""
    assert digit_lexing("postgres") is None and digit_lexing("tsql") is None
    mysql, clickhouse, hive = (digit_lexing(d) for d in ("mysql", "clickhouse", "hive"))
    assert mysql is not None and mysql.hex_prefix and mysql.bit_prefix
    assert not mysql.underscores and not mysql.suffixes and "$" not in mysql.stops
    assert clickhouse is not None and clickhouse.underscores
    assert hive is not None and not hive.hex_prefix and "L" in hive.suffixes


def _one_token(word: str, dialect: str) -> str | None:
    """The kind of the one token sqlglot's tokenizer reads ``word`` as (``VAR``,
    ``IDENTIFIER``, ``NUMBER``...); ``None`` where it reads several or fails."""
    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(word)
    except sqlglot.errors.SqlglotError:
        return None
    whole = len(tokens) == 1 and tokens[0].end == len(word) - 1  # (no comment after it)
    return tokens[0].token_type.name if whole else None


NAME_TOKENS = ("VAR", "IDENTIFIER")


@pytest.mark.parametrize("dialect", DIGIT_DIALECTS)
def test_after_a_dot(dialect: str) -> None:
    """After ``t.``: an accepted text round-trips, and where sqlglot reads the word as one
    name the text is the column of that name (the grammar cuts the word where sqlglot does);
    every word of letters, digits and ``_`` that sqlglot reads as one name is taken."""
    sql = typedgen.Sql(dialect, **CHECKING)
    for word in _words():
        text = f"SELECT t.{word} FROM t"
        kind = _one_token(word, dialect)
        accepted = sql_accepts(sql, text)
        if accepted:
            assert round_trips(text, dialect)[0], (dialect, text)
            if kind in NAME_TOKENS:
                column = _column(text, dialect)
                assert column is not None and column.name == word, (dialect, word)
        elif kind in NAME_TOKENS and word.replace("_", "").isalnum():
            raise AssertionError(f"{dialect}: {word!r} refused")


@pytest.mark.parametrize("dialect", DIGIT_DIALECTS)
def test_alone_and_aliased(dialect: str) -> None:
    """Where a number may come too: an accepted text round-trips; a word sqlglot reads as one
    name is that column (``1e-5x`` is no ``1e-5 AS x``), one it reads as a number is none.
    Generation takes no digit-led name."""
    sql = typedgen.Sql(dialect, **CHECKING)
    generation = typedgen.Sql(dialect)
    for word in _words():
        kind = _one_token(word, dialect)
        text = f"SELECT {word} FROM t"
        accepted = sql_accepts(sql, text)
        if accepted:
            assert round_trips(text, dialect)[0], (dialect, text)
            column = _column(text, dialect)
            if kind in NAME_TOKENS:
                assert column is not None and column.name == word, (dialect, word)
            elif kind is not None:
                assert column is None, (dialect, word)
        elif kind in NAME_TOKENS and word.replace("_", "").isalnum():
            raise AssertionError(f"{dialect}: {word!r} refused")
        if sql_accepts(generation, text):
            assert accepted and kind not in NAME_TOKENS, (dialect, text)


POSITIVE = [
    ("mysql", "SELECT 0xz", True),  # a quoted name for sqlglot (`0xz`)
    ("mysql", "SELECT 0b102, 0b FROM t", True),  # no bit numbers: the names `0b102`, `0b`
    ("mysql", "SELECT 12abc, 1e5x, 0b12, 1_000 FROM t", False),
    ("mysql", "SELECT t.12abc AS 3d FROM t AS 1t", False),
    ("clickhouse", "SELECT 1e5x, 1_a, 0xz FROM t", False),
    ("hive", "SELECT 1Lx, 0b101, 12abc FROM t", False),
]


@pytest.mark.parametrize(("dialect", "text", "quoted"), POSITIVE)
def test_positive(dialect: str, text: str, quoted: bool) -> None:
    sql = typedgen.Sql(dialect, **CHECKING)
    assert sql_accepts(sql, text)
    assert round_trips(text, dialect)[0]
    value = sql.parse(text)
    assert value == sqlglot.parse_one(text, read=dialect)
    first = value.expressions[0].unalias()
    assert isinstance(first, exp.Column) and first.this.quoted is quoted
    assert not sql_accepts(typedgen.Sql(dialect), text)  # not offered to generation
    assert not sql_accepts(typedgen.Sql("postgres", **CHECKING), text)


NEGATIVE = [
    ("mysql", "SELECT 1e-5x"),  # one name for sqlglot, not 1e-5 AS x
    ("mysql", "SELECT 12abc$"),  # one name with "$": refused whole
    ("mysql", "SELECT 1.5x"),  # one name with a decimal point: refused whole
    ("mysql", "SELECT 1e"),  # a number for sqlglot (1e)
    ("clickhouse", "SELECT 1_0e5"),  # a number (10e5) with no terminal: refused, no name
    ("hive", "SELECT 1L"),  # a typed number, CAST(1 AS BIGINT)
    ("hive", "SELECT 0xz"),  # 0 AS xz for sqlglot
]


@pytest.mark.parametrize(("dialect", "text"), NEGATIVE)
def test_negative(dialect: str, text: str) -> None:
    assert not sql_accepts(typedgen.Sql(dialect, **CHECKING), text)


def test_numbers_stay_numbers() -> None:
    sql = typedgen.Sql("mysql", **CHECKING)
    for text in ("SELECT 1e5", "SELECT 0x1F", "SELECT 0b101", "SELECT 1.5", "SELECT 1e-5"):
        assert sql_accepts(sql, text)
        value = sql.parse(text).expressions[0]
        assert not isinstance(value, exp.Column), text
    assert sql_accepts(sql, "SELECT 1 AS x, 2 y")


@pytest.mark.parametrize("dialect", ["clickhouse", "hive", "spark", "doris"])
def test_checking_walks(dialect: str, smollm2_vocab: Any) -> None:
    """Random walks of the checking language where digit-led names are on (MySQL's are in
    test_soundness): each text parses and round-trips."""
    _check(dialect, smollm2_vocab, 20, finished=10, **CHECKING)

"""A sqlglot dialect's surface syntax, read from its tokenizer, parser and generator.

sqlglot has no grammar export; its dialects are tables (``Tokenizer.QUOTES``, ``KEYWORDS``,
``Parser.FUNCTIONS``, ``ID_VAR_TOKENS``, ``Generator.LIMIT_FETCH``...) plus code. This module reads
the tables into plain data, :class:`DialectTables`, that the grammar builder turns into IR.

Function arities are what sqlglot itself accepts: each registered function is probed with 0..5
(and 8) arguments of three kinds (a column, a number, a string), and an arity is kept only when
sqlglot parses every probe, its generator writes it back in the same dialect without an
"unsupported" warning, and the written text parses to the same tree (under any name: SQLite's
``SUBSTR`` comes back as ``SUBSTRING``). A name sqlglot knows is never an anonymous call.
Nothing here is hand-written per dialect; :mod:`typedgen.frontends.sql.dialects` holds the
small overrides.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
import pickle
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typedgen.frontends.sql.alias_probes import (
    COLUMN_ALIAS_AFTER,
    COLUMN_ALIAS_PROBES,
    CTE_NAME_PROBES,
    TABLE_ALIAS_PROBES,
    continuation_words,
)
from typedgen.frontends.sql.arguments import LAST_ARGUMENTS, probe_last_arguments
from typedgen.frontends.sql.dollar import dollar_strings
from typedgen.frontends.sql.duckdb_probes import DuckdbTables, read_duckdb_tables
from typedgen.frontends.sql.named import NamedCall, probe_named_calls
from typedgen.frontends.sql.probes import FEATURE_PROBES, READ_FEATURES
from typedgen.frontends.sql.trees import date_part_words, same_tree
from typedgen.frontends.sql.tsql_mysql_probes import json_column_types
from typedgen.frontends.sql.warehouse_probes import WarehouseTables, read_warehouse_tables

__all__ = [
    "FEATURE_PROBES",
    "READ_FEATURES",
    "Arity",
    "DialectTables",
    "Function",
    "dialect_tables",
    "sqlglot_dialect",
]

_NUMBER_PREFIXES = ("0x", "0X", "0b", "0B")
"""Openers of hex and bit numbers without a closing quote (``0xCC``, ``0b01``)."""

_STRING_KINDS = {
    "BIT_STRINGS": ("bit", "01"),
    "HEX_STRINGS": ("hex", "CC"),
    "BYTE_STRINGS": ("escape", "ab"),
    "RAW_STRINGS": ("raw", "ab"),
    "UNICODE_STRINGS": ("unicode", "ab"),
}
_NATIONAL = ("N'", "'")
"""National strings (``N'...'``), which sqlglot's tokenizer reads in every dialect but Spark."""
"""sqlglot tokenizer tables of prefixed strings, with the kind and a body to probe with."""

_PROBE_MAX_ARGS = 5
_PROBE_MANY_ARGS = 8
"""A function that takes 4 and 5 arguments is variadic when it also takes this many."""
_PROBE_VALUES = ("x", "1", "'a'")
_DATE_PARTS = (
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "DOW",
    "DOY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
    "EPOCH",
)
_SPELLED_OUT = re.compile(r"(?:^|_)[A-Z]_[A-Z](?:_|$)")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True, order=True)
class Arity:
    """Argument counts a function accepts: ``counts``, and any number >= ``rest`` when set."""

    counts: tuple[int, ...]
    rest: int | None = None

    def allows(self, n: int) -> bool:
        return n in self.counts or (self.rest is not None and n >= self.rest)

    def least(self) -> int:
        """The fewest arguments the function takes."""
        return min([*self.counts, *([self.rest] if self.rest is not None else [])])

    def __str__(self) -> str:
        parts = [str(c) for c in self.counts]
        if self.rest is not None:
            parts.append(f"{self.rest}+")
        return ",".join(parts)


@dataclass(frozen=True)
class Function:
    """A function sqlglot registers for the dialect, with the arities it round-trips."""

    name: str
    arity: Arity
    aggregate: bool
    distinct_many: tuple[int, ...] = ()
    """Argument counts of two or more an aggregate takes after ``DISTINCT`` (``COUNT(DISTINCT
    a, b)``), as probed; the variadic rest only when both it and 8 arguments round-trip."""
    order_by: tuple[int, ...] = ()
    """Argument counts an aggregate takes followed by ``ORDER BY`` (``ARRAY_AGG(a ORDER BY
    b)``, ``STRING_AGG(a, ',' ORDER BY b)``), with ``DISTINCT`` first too where it may be."""
    aliased_args: bool = False
    """Whether each argument may be named with ``AS`` (``STRUCT(1 AS a, x AS b)``: sqlglot's
    ``FUNCTIONS_WITH_ALIASED_ARGS``), as probed."""
    last_args: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Special forms of the last argument, each with the argument counts it round-trips at,
    probed where the dialect has the form (:mod:`.arguments`): ``lambda``, Spark's
    ``TRANSFORM(a, x -> x + 1)`` or ``(x, i) -> x + i`` (two or more arguments); ``variadic``,
    PostgreSQL's ``JSON_EXTRACT_PATH(a, VARIADIC b)``."""
    operator_counts: tuple[int, ...] = ()
    """Argument counts at which sqlglot writes the call as an operator that does not keep an
    argument of low precedence its own (SQLite's ``GLOB(a, b)``, written ``b GLOB a``;
    DuckDB's ``JSON_EXTRACT(a, 'p')``, written ``a -> 'p'``): a call of such a count is taken
    only with plain operands as a whole select item (see :func:`_operands_kept`)."""
    operator_heads: tuple[int, ...] = ()
    """Those of ``operator_counts`` at which the call, with plain operands, may also stand
    first in another operator (``JSON_EXTRACT(c, 'p') = 1``, ``JSON_EXTRACT(c, 'p')[1]``),
    which sqlglot's writer parenthesises (see :func:`_operator_heads`)."""


@dataclass(frozen=True)
class DialectTables:
    """The surface syntax of one sqlglot dialect, as plain data."""

    name: str
    string_quotes: tuple[str, ...]
    """Single-character string delimiters (``'``, and ``"`` where it quotes strings)."""
    backslash_escapes: bool
    """Whether ``\\`` escapes the next character inside strings."""
    quote_escapes: tuple[str, ...]
    """String quotes that escape themselves when doubled (``'it''s'``); elsewhere (BigQuery)
    ``'a''b'`` is two adjacent strings."""
    identifier_quotes: tuple[tuple[str, str], ...]
    """(open, close) identifier delimiters: ``("\\"", "\\"")``, ``("`", "`")``, ``("[", "]")``."""
    comments: tuple[str, ...]
    """Comment openers the tokenizer knows (``--``, ``#``, ``/*``, ``//``)."""
    dash_comment_space: bool
    """Whether ``--`` opens a comment only before a blank (MySQL reads ``1 --x`` as ``1 - -x``)."""
    keywords: dict[str, str]
    """Single-word keywords: upper-case word -> sqlglot token type name."""
    reserved: frozenset[str]
    """Upper-case words the generator quotes when they name something (must be quoted)."""
    word_roles: dict[str, tuple[bool, bool, bool]]
    """For each keyword: whether it may be written unquoted as (a column, table or name after
    ``AS``; a table alias without ``AS``; a column alias without ``AS``), as sqlglot reads it.
    Also the words sqlglot's parser reads by their text (``NO_PAREN_FUNCTION_PARSERS``'
    ``IF``, the interval span's ``TO``: ``alias_probes.continuation_words``)."""
    symbols: tuple[str, ...]
    """Operator tokens made of symbols (``<=``, ``::``, ``->>``...)."""
    id_var_tokens: frozenset[str]
    """Token types the parser accepts as a column or a name after ``AS``."""
    table_alias_tokens: frozenset[str]
    """Token types accepted as a table alias without ``AS``."""
    alias_tokens: frozenset[str]
    """Token types accepted as a column alias without ``AS``."""
    func_tokens: frozenset[str]
    """Token types that may name a called function."""
    types: dict[str, tuple[int, ...]]
    """Data type names usable in ``CAST(x AS type)``: word -> parameter counts it round-trips
    with (0: ``INT``, 1: ``VARCHAR(10)``, 2: ``DECIMAL(10, 2)``)."""
    functions: tuple[Function, ...]
    known_functions: frozenset[str]
    """Every name sqlglot's parser treats as a function of its own (``Parser.FUNCTIONS`` and
    ``FUNCTION_PARSERS``), callable or not: such a name is never an anonymous call, since
    sqlglot builds its own node (and checks the arguments) for it."""
    string_forms: tuple[tuple[str, str, str], ...]
    """Prefixed strings the dialect reads natively: (kind, opener, closer), kind one of
    ``bit``, ``hex``, ``escape`` (``E'...'``), ``raw``, ``unicode``, ``dollar`` (``$$...$$``)."""
    limit_fetch: str
    """The generator's limit form: ``"LIMIT"``, ``"FETCH"`` (FETCH FIRST n ROWS ONLY), ``"ALL"``."""
    top: bool
    """Whether the generator writes a limit as ``SELECT TOP n``."""
    normalization: str
    """sqlglot's normalisation strategy for unquoted identifiers (``LOWERCASE``...)."""
    features: frozenset[str]
    """The :data:`FEATURE_PROBES` that round-trip in this dialect."""
    extract_units: tuple[str, ...]
    """Date parts ``EXTRACT(part FROM x)`` round-trips with."""
    interval_units: tuple[str, ...]
    """Units ``INTERVAL '1' unit`` round-trips with."""
    name_roles: dict[str, tuple[bool, bool, bool]] = dataclasses.field(default_factory=dict)
    """For keywords that may not name everything (``word_roles``' first flag is off): whether
    it may still be written unquoted (as a column alias after ``AS``; after a dot, as a
    column's or a table's last part; as a table in ``FROM``), as sqlglot reads it:
    ``SELECT x AS into``, ``SELECT t.null``, ``FROM current_date``."""
    format_types: frozenset[str] = frozenset()
    """Type names ``CAST(x AS type FORMAT 'f')`` round-trips with (BigQuery's ``STRING``, not
    ``DATE``, which sqlglot writes as ``PARSE_DATE``)."""
    historical_kinds: tuple[str, ...] = ()
    """The kinds of a time-travel clause, ``AT (kind => x)``, that round-trip (sqlglot's
    ``HISTORICAL_DATA_KIND``: ``TIMESTAMP``, ``OFFSET``, ``STATEMENT``...)."""
    for_xml_options: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """T-SQL's ``FOR XML`` options (sqlglot's ``FOR_XML_OPTIONS``): a word and the words that
    may follow it (``ELEMENTS XSINIL``), where ``FOR XML word`` round-trips."""
    for_json_options: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The same for ``FOR JSON`` (``FOR_JSON_OPTIONS``)."""
    for_named_options: tuple[str, ...] = ()
    """Options of ``FOR XML``/``FOR JSON`` that take a name in parentheses (``PATH('row')``,
    ``ROOT('r')``) and round-trip with and without it."""
    named_calls: tuple[NamedCall, ...] = ()
    """Functions that take named arguments (``FLATTEN(INPUT => x)``), as probed
    (:mod:`typedgen.frontends.sql.named`)."""
    interval_units_read: tuple[str, ...] = ()
    """Units ``INTERVAL '1' unit`` reads back to the same tree with, in any spelling
    (PostgreSQL writes ``INTERVAL '1 HOUR'``)."""
    operation_modifiers: tuple[str, ...] = ()
    """Words after ``SELECT [DISTINCT]`` that round-trip (sqlglot's ``OPERATION_MODIFIERS``:
    MySQL's ``HIGH_PRIORITY``, ``SQL_CALC_FOUND_ROWS``...)."""
    range_words: frozenset[str] = frozenset()
    """Words and symbols that start a range predicate for sqlglot's parser (its
    ``RANGE_PARSERS``: ``IN``, ``LIKE``, ``IS``...): after a negated range, sqlglot
    parenthesises the negation only before one of these (or ``NOT``)."""
    niladic_words: tuple[str, ...] = ()
    """Words the parser reads by their text as a function without parentheses that name
    nothing (``word_roles``' first flag off) but read back as a value where one may stand
    (Oracle's ``SYSDATE``): primaries of their own."""
    type_tokens: frozenset[str] = frozenset()
    """The parser's ``TYPE_TOKENS``: a keyword of one of these, bare, before ``[`` is read as
    a type (``bigint[:2]`` fails to parse: an array type, then ``:``)."""
    type_index: bool = True
    """Whether a bare type word before ``[1]`` is a column with a subscript (not where
    sqlglot reads ``bigint[1]`` as a fixed-size array type: DuckDB)."""
    cte_refused: frozenset[str] = frozenset()
    """Words that name things (``word_roles``' first flag) but no common table expression:
    sqlglot reads them as a WITH modifier there (``WITH recursive AS (...)``), probed by
    ``alias_probes.CTE_NAME_PROBES``."""
    warehouse: WarehouseTables = dataclasses.field(default_factory=WarehouseTables)
    """Entries of the tables of one warehouse's syntax (:mod:`.warehouse_probes`)."""
    duckdb: DuckdbTables = dataclasses.field(default_factory=DuckdbTables)
    """Entries of the tables of DuckDB's calls (:mod:`.duckdb_probes`)."""
    json_column_types: dict[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)
    """Where MySQL's ``JSON_TABLE`` round-trips: the types its columns take, as ``types``
    (:func:`.tsql_mysql_probes.json_column_types`)."""


def sqlglot_dialect(name: str) -> Any:
    """The sqlglot ``Dialect`` instance of that name (sqlglot's own error if unknown)."""
    from sqlglot.dialects.dialect import Dialect

    return Dialect.get_or_raise(name)


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    logger = logging.getLogger("sqlglot")
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.CRITICAL)
    logger.propagate = False
    try:
        yield
    finally:
        logger.setLevel(level)
        logger.propagate = propagate


@contextmanager
def _strict_sqlglot() -> Iterator[None]:
    """sqlglot checks the arguments its builders make only where ``unittest`` or ``pytest`` is
    imported (``sqlglot.expressions.core.UNITTEST``); elsewhere T-SQL's ``LEN(a, b, c)`` builds
    a node with an argument it does not know, and writes it back. The tables are probed with
    the check on, so that they are the same in every process: they are cached on disk, and a
    test run and an application share the cache."""
    from sqlglot.expressions import core

    with _STRICT_LOCK:
        before = core.UNITTEST
        core.UNITTEST = True
        try:
            yield
        finally:
            core.UNITTEST = before


_STRICT_LOCK = threading.RLock()


def _squash(sql: str) -> str:
    return "".join(sql.split()).upper()


def _round_trips(sql: str, dialect: Any, *, exact: bool = True) -> bool:
    """Whether ``sql`` is native to the dialect: sqlglot parses it, writes it back the same
    (case and spacing aside) without an "unsupported" warning, and reads that back to the same
    tree. Syntax sqlglot only *transpiles* (``x::INT`` in SQLite becomes ``CAST``) fails."""
    import sqlglot
    from sqlglot.errors import ErrorLevel

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        text = tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE)
        if exact and _squash(text) != _squash(sql):
            return False
        return same_tree(sqlglot.parse_one(text, read=dialect), tree, dialect)
    except Exception:  # sqlglot's errors, and its writers' failed assertions (FROM (PIVOT ...))
        return False


def _is_string(sql: str, dialect: Any) -> bool:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return False
    values = tree.expressions if isinstance(tree, exp.Select) else []
    return (
        len(values) == 1
        and isinstance(values[0], exp.Literal)
        and values[0].is_string
        and _round_trips(sql, dialect, exact=False)
    )


def _names(sql: str, dialect: Any, word: str, kind: str) -> bool:
    """Whether ``word`` comes back from ``sql`` as the name of a column, table or alias."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if not _round_trips(sql, dialect, exact=False):
        return False
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return False
    if kind == "column":
        found = [c.name for c in tree.find_all(exp.Column)]
    elif kind == "table":
        found = [t.name for t in tree.find_all(exp.Table)]
    else:
        found = [a.alias for a in tree.find_all(exp.Alias, exp.TableAlias)]
        found += [t.alias for t in tree.find_all(exp.Table) if t.alias]
    return any(name.upper() == word for name in found)


def _parsed(sql: str, dialect: Any) -> Any:
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        return sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None


def _reads_as_x(template: str, word: str, dialect: Any, x_tree: Any) -> bool:
    """Whether ``template`` with ``word`` reads as ``x_tree`` (with ``x``) does, the word in
    the place of ``x``: one parse, where a round trip takes three (the alias is written back
    the same in every place, and ``x_tree`` round-trips)."""
    from sqlglot import exp

    tree = _parsed(template.format(word.lower()), dialect)
    if tree is None:
        return False
    for node in tree.find_all(exp.Identifier, exp.Var):
        if not node.args.get("quoted") and node.name.upper() == word:
            node.set("this", "x")
    return bool(tree == x_tree)


def _alias_before(
    word: str, dialect: Any, probes: tuple[tuple[str, str], ...], ok: dict[str, Any]
) -> bool:
    """Whether ``word`` (upper case) stays a bare alias before each follower the dialect has
    (:mod:`.alias_probes`): where the plain alias ``x`` round-trips, the word reads as ``x``
    does (as the alias; in the generic dialect ``SELECT x = a`` is a comparison, and the word
    must then be read as the column ``x`` is)."""
    for _, template in probes:
        if template not in ok:
            x = template.format("x")
            ok[template] = _parsed(x, dialect) if _round_trips(x, dialect, exact=False) else None
        if ok[template] is not None and not _reads_as_x(template, word, dialect, ok[template]):
            return False
    return True


def _extends_none(word: str, dialect: Any, ok: dict[str, Any]) -> bool:
    """Whether a column alias ``word`` after each expression of ``COLUMN_ALIAS_AFTER`` that
    round-trips with ``x`` there reads as ``x`` does, or as the alias (no expression's end
    takes the word as its own part: ``COUNT(a) OVER``, ``INTERVAL '1' DAY TO`` are other
    trees)."""
    for template in COLUMN_ALIAS_AFTER:
        if template not in ok:
            x = template.format("x")
            ok[template] = _parsed(x, dialect) if _round_trips(x, dialect, exact=False) else None
        tree = ok[template]
        if tree is None or _reads_as_x(template, word, dialect, tree):
            continue
        # INTERVAL '1' x: x is the unit, a keyword may be the alias (both read back).
        if not _names(template.format(word.lower()), dialect, word, "alias"):
            return False
    return True


def _word_roles(
    word: str, dialect: Any, followers: dict[str, dict[str, Any]]
) -> tuple[bool, bool, bool]:
    w = word.lower()
    ident = (
        _names(f"SELECT {w} FROM t", dialect, word, "column")
        # Followed by a bare alias at the end: SELECT interval x is INTERVAL 'x' for some.
        and _names(f"SELECT {w} x", dialect, word, "column")
        # Followed by "<": SELECT range < x is a nested type (RANGE<...>) for sqlglot.
        and _names(f"SELECT {w} < x", dialect, word, "column")
        and _names(f"SELECT t.{w} FROM t", dialect, word, "column")
        and _names(f"SELECT a FROM {w}", dialect, word, "table")
        and _names(f"SELECT a AS {w} FROM t", dialect, word, "alias")
    )
    # The bare aliases: the word (upper case, as sqlglot's names are compared) before every
    # follower of the alias in the grammar (alias_probes.py).
    table_alias = (
        _names(f"SELECT a FROM t {w}", dialect, word, "alias")
        and _names(f"SELECT a FROM t {w} JOIN u ON a = b", dialect, word, "alias")
        and _alias_before(word, dialect, TABLE_ALIAS_PROBES, followers.setdefault("table", {}))
    )
    column_alias = (
        _names(f"SELECT a {w} FROM t", dialect, word, "alias")
        and _names(f"SELECT a {w}, b FROM t", dialect, word, "alias")
        and _alias_before(word, dialect, COLUMN_ALIAS_PROBES, followers.setdefault("column", {}))
        and _extends_none(word, dialect, followers.setdefault("after", {}))
    )
    return ident, table_alias, column_alias


_NILADIC_PROBES = (
    "SELECT {}",
    "SELECT {} FROM t",
    "SELECT {} AS x, a FROM t",
    "SELECT a FROM t WHERE a > {}",
    "SELECT {} + 1, 1 - {}",
    "SELECT f({}, a)",
)


def _niladic(word: str, dialect: Any) -> bool:
    """Whether ``word`` reads back as a value (no column) wherever one may stand."""
    from sqlglot import exp

    tree = _parsed(f"SELECT {word}", dialect)
    return (
        tree is not None
        and not any(isinstance(v, exp.Column) for v in tree.expressions)
        and all(_round_trips(p.replace("{}", word), dialect, exact=False) for p in _NILADIC_PROBES)
    )


def _name_roles(word: str, dialect: Any) -> tuple[bool, bool, bool]:
    """The naming roles of a word that cannot name everything (see ``name_roles``)."""
    w = word.lower()
    after_as = (
        _names(f"SELECT a AS {w} FROM t", dialect, word, "alias")
        and _names(f"SELECT a AS {w}, b FROM t", dialect, word, "alias")
        and _names(f"SELECT a AS {w}", dialect, word, "alias")
    )
    member = (
        _names(f"SELECT t.{w} FROM t", dialect, word, "column")
        and _names(f"SELECT s.t.{w} FROM t", dialect, word, "column")
        and _names(f"SELECT a FROM s.{w}", dialect, word, "table")
        and _names(f"SELECT a FROM s.{w} AS x", dialect, word, "table")
    )
    table = (
        _names(f"SELECT a FROM {w}", dialect, word, "table")
        and _names(f"SELECT a FROM {w} AS x", dialect, word, "table")
        and _names(f"SELECT a FROM {w} JOIN u ON a = b", dialect, word, "table")
        and _names(f"SELECT a FROM u, {w}", dialect, word, "table")
    )
    return after_as, member, table


def _named_counts(arity: Arity | None) -> tuple[int, ...]:
    """Plain-argument counts to probe before named ones: those the function takes in
    ``SELECT`` (up to three), none where it takes none there."""
    if arity is None:
        return ()
    counts = [c for c in arity.counts if c <= 3]
    if arity.rest is not None and arity.rest <= 3:
        counts.append(arity.rest)
    return tuple(sorted(set(counts)))


def _keeps_arguments(sql: str, names: list[str], dialect: Any) -> bool:
    """Whether sqlglot writes ``sql`` back with every column of ``names`` in it: a round trip
    with one value repeated (``ARRAY_AGG(x, x)``) cannot see an argument sqlglot drops (BigQuery
    reads ``ARRAY_AGG(x, y)`` as ``ARRAY_AGG(x)``, SQLite ``LOG10(x, y)`` as ``LOG10(x)``)."""
    import sqlglot

    try:
        text = sqlglot.parse_one(sql, read=dialect).sql(dialect=dialect)
    except Exception:  # sqlglot's errors and its writers' assertions, as in _round_trips
        return False
    return all(re.search(rf"\b{n}\b", text, re.IGNORECASE) for n in names)


def _columns(k: int) -> list[str]:
    """``k`` distinct column names for :func:`_keeps_arguments`."""
    return [f"x{i}" for i in range(1, k + 1)]


def _operands_kept(name: str, k: int, dialect: Any) -> bool:
    """Whether a call sqlglot writes as an operator (SQLite's ``GLOB(a, b)``, written ``b
    GLOB a``) keeps an argument of the lowest precedence (``x OR y``) its own: the writer adds
    no parentheses, so ``GLOB(x IS y, 0)`` comes back as another tree (a random walk found it).
    A call written as a call keeps its arguments inside its parentheses (not probed)."""
    import sqlglot

    if k == 0:
        return True
    try:
        text = sqlglot.parse_one(f"SELECT {name}({', '.join(['x'] * k)})", read=dialect)
        written = text.sql(dialect=dialect)
    except Exception:  # judged by the other probes
        return True
    if re.search(r"\w\s*\(", written[len("SELECT ") :]):
        return True  # a call (of this name or another)
    return _round_trips(f"SELECT {name}({', '.join(['x OR y'] * k)})", dialect, exact=False)


# The operators a call written as an operator may stand first in ({c}: the call with plain
# operands), as the grammar offers them (``CallRules.operator_head``, used by ExpressionRules),
# and where each form is then tried ({h}). A subscript is a unary operand, so it is tried where
# one stands; the others where a value or a condition does. Not BETWEEN, nor an arrow: DuckDB
# writes ``JSON_EXTRACT(a, 'p') -> 'q'`` as ``a -> 'p' -> 'q'`` (and under a sign, ``-a -> ...``).
_HEAD_POSTFIX = ("{c}[1]", "{c}[1:2]", "{c}[1:2:1]")
_HEAD_OTHER = (
    *(f"{{c}} {op} z" for op in ("*", "/", "%", "+", "-", "COLLATE", "||", "&", "|", "^")),
    *(f"{{c}} {op} z" for op in ("<<", ">>", "<", ">", "<=", ">=", "=", "<>", "!=", "<=>")),
    "{c} IN (z)",
    "{c} NOT IN (z)",
    "{c} IS NULL",
    "{c} IS NOT NULL",
    "{c} IS TRUE",
    "{c} IS DISTINCT FROM z",
    "{c} LIKE z",
    "{c} NOT LIKE z",
    "{c} ILIKE z",
    "{c} IN (z) IS NULL",
    "{c} = z = z",
)
_VALUE_PLACES = (
    "SELECT {h}",
    "SELECT {h} AS a",
    "SELECT COALESCE({h}, z)",
    "SELECT z FROM t WHERE {h}",
    "SELECT CASE WHEN {h} THEN {h} END",
    "SELECT z IN ({h})",
    "SELECT NOT {h}",
    "SELECT ({h}) + z",
)
_UNARY_PLACES = (
    *_VALUE_PLACES,
    "SELECT -{h}",
    "SELECT ~{h}",
    "SELECT {h} = z",
    "SELECT z = {h}",
    "SELECT {h} * z",
    "SELECT {h}::INT",
    "SELECT {h} AT TIME ZONE 'UTC'",
    "SELECT {h}[1]",
    "SELECT z -> {h}",
)


def _operator_heads(name: str, k: int, dialect: Any) -> bool:
    """Whether a call sqlglot writes as an operator (DuckDB's ``JSON_EXTRACT(c, 'p')``,
    written ``c -> 'p'``) may stand, with plain operands, as the first operand of another
    operator: DuckDB's writer parenthesises it there (``(c -> 'p') = 1``, which ``same_tree``
    reads as the same). Each form of :data:`_HEAD_POSTFIX` and :data:`_HEAD_OTHER` whose
    column twin (``z`` for the call) round-trips in a place must round-trip there with the
    call. Bare, such a call is no operand (``-JSON_EXTRACT(c, 'p')`` is written ``-c -> 'p'``,
    and DuckDB reads ``COALESCE(c -> 'p', 1)`` as a lambda), and SQLite's ``GLOB(a, b) * 2``
    is written ``b GLOB a * 2``, another tree."""
    if k < 1:
        return False
    call = f"{name}({', '.join(f'x{i}' for i in range(1, k + 1))})"
    tried = 0
    for forms, places in ((_HEAD_POSTFIX, _UNARY_PLACES), (_HEAD_OTHER, _VALUE_PLACES)):
        for form in forms:
            for place in places:
                if not _round_trips(place.format(h=form.format(c="z")), dialect, exact=False):
                    continue  # no such form or place in the dialect
                tried += 1
                if not _round_trips(place.format(h=form.format(c=call)), dialect, exact=False):
                    return False
    return tried > 0


def _type_index(dialect: Any, type_words: set[str]) -> bool:
    """Whether ``SELECT w[1] FROM t`` reads as a subscript of the column ``w`` for the common
    type words ``w`` of the dialect (DuckDB reads ``bigint[1]`` as the type ``BIGINT[1]``)."""
    import sqlglot
    from sqlglot import exp

    for word in sorted(type_words & {"INT", "BIGINT", "TEXT", "DATE", "JSON", "STRING"}):
        try:
            tree = sqlglot.parse_one(f"SELECT {word.lower()}[1] FROM t", read=dialect)
        except Exception:  # sqlglot's errors
            return False
        item = tree.selects[0] if isinstance(tree, exp.Select) else None
        if not (isinstance(item, exp.Bracket) and isinstance(item.this, exp.Column)):
            return False
    return True


def _probe_arity(name: str, dialect: Any) -> Arity | None:
    def takes(k: int) -> bool:
        # Columns first: most failures show there, and the other probes are skipped. Any
        # spelling sqlglot reads back to the same tree counts (SQLite's SUBSTR is written
        # SUBSTRING): the name is known, so only its arities are in question.
        return all(
            _round_trips(f"SELECT {name}({', '.join([value] * k)})", dialect, exact=False)
            for value in _PROBE_VALUES
        ) and (
            k < 2
            or _keeps_arguments(f"SELECT {name}({', '.join(_columns(k))})", _columns(k), dialect)
        )

    counts = [k for k in range(_PROBE_MAX_ARGS + 1) if takes(k)]
    if not counts:
        return None
    rest = None
    last = _PROBE_MAX_ARGS
    if last in counts and last - 1 in counts and takes(_PROBE_MANY_ARGS):
        # Takes 4, 5 and 8 arguments: a variadic function (COALESCE, CONCAT, GREATEST...).
        rest = last - 1
        counts = [c for c in counts if c < rest]
    elif last in counts:
        # Five but not eight: six and seven too (Spark's MAKE_INTERVAL takes up to seven).
        counts += [k for k in (6, 7) if takes(k)]
    elif {last - 3, last - 1} <= set(counts) and takes(_PROBE_MANY_ARGS):
        counts += [6, _PROBE_MANY_ARGS]  # pairs: OBJECT_CONSTRUCT('a', 1, 'b', 2, ...)
    return Arity(tuple(counts), rest)


def _distinct_arities(name: str, arity: Arity, dialect: Any) -> tuple[int, ...]:
    """The counts of two or more arguments ``name(DISTINCT x, ...)`` round-trips with."""

    def takes(k: int) -> bool:
        args = ", ".join(["x"] * k)
        kept = f"SELECT {name}(DISTINCT {', '.join(_columns(k))}) FROM t"
        return _round_trips(
            f"SELECT {name}(DISTINCT {args}) FROM t", dialect, exact=False
        ) and _keeps_arguments(kept, _columns(k), dialect)

    counts = [k for k in arity.counts if k >= 2 and takes(k)]
    if arity.rest is not None and takes(max(arity.rest, 2)) and takes(_PROBE_MANY_ARGS):
        counts.append(max(arity.rest, 2))
    return tuple(counts)


def _ordered_arities(
    name: str, arity: Arity, many: tuple[int, ...], dialect: Any
) -> tuple[int, ...]:
    """The counts ``name(x, ... ORDER BY y)`` round-trips with (with DISTINCT too where the
    grammar offers it: one argument, or a count in ``many``)."""

    def takes(k: int, distinct: bool) -> bool:
        args = ("DISTINCT " if distinct else "") + ", ".join(["x"] * k)
        sql = f"SELECT {name}({args} ORDER BY y) FROM t"
        kept = ("DISTINCT " if distinct else "") + ", ".join(_columns(k))
        return _round_trips(sql, dialect, exact=False) and _keeps_arguments(
            f"SELECT {name}({kept} ORDER BY y) FROM t", [*_columns(k), "y"], dialect
        )

    counts = [*arity.counts, *([arity.rest] if arity.rest is not None else [])]
    return tuple(
        k
        for k in counts
        if k >= 1 and takes(k, False) and (not (k == 1 or k in many) or takes(k, True))
    )


def _node_class(sql: str, dialect: Any) -> type | None:
    """The class of the one selected expression of ``sql`` (a probe that parses)."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read=dialect)
    values = tree.expressions if isinstance(tree, exp.Select) else []
    return type(values[0]) if len(values) == 1 else None


def _dash_comment_space(dialect: Any) -> bool:
    """Whether sqlglot reads ``--x`` as two minus signs rather than a comment."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one("SELECT 1 --x", read=dialect)
    except SqlglotError:
        return True
    values = tree.expressions if isinstance(tree, exp.Select) else []
    return not (len(values) == 1 and isinstance(values[0], exp.Literal))


def _string_forms(tok: Any, dialect: Any) -> tuple[tuple[str, str, str], ...]:
    """The prefixed string forms (``X'CC'``, ``E'a'``, ``$$a$$``) that round-trip."""
    out = []
    with _quiet_sqlglot():
        for table, (kind, body) in _STRING_KINDS.items():
            for entry in getattr(tok, table, ()) or ():
                if not isinstance(entry, tuple) or len(entry) != 2:
                    continue
                opener, closer = entry
                if kind in ("hex", "bit") and opener in _NUMBER_PREFIXES and closer == "":
                    if _round_trips(f"SELECT {opener}{body}", dialect, exact=False):
                        out.append((f"{kind}_number", opener, ""))
                    continue
                # (U&'...': PostgreSQL's and Trino's Unicode escapes)
                prefix = opener[:-1].removesuffix("&")
                if not (len(closer) == 1 and opener.endswith(closer) and prefix.isalpha()):
                    continue
                if _round_trips(f"SELECT {opener}{body}{closer}", dialect, exact=False):
                    out.append((kind, opener, closer))
        if _round_trips(f"SELECT {_NATIONAL[0]}ab{_NATIONAL[1]}", dialect, exact=False):
            out.append(("national", *_NATIONAL))
        if dollar_strings(tok, dialect):  # $$...$$, read back as '...' (the same text)
            out.append(("dollar", "$$", "$$"))
    return tuple(out)


_FOR_NAMED = ("PATH", "RAW", "ROOT")
"""``FOR XML`` options sqlglot reads as a name with an optional ``('name')`` (its
key-value options, which no table lists); each is probed."""


def _for_options(
    par: Any, dialect: Any
) -> tuple[
    tuple[tuple[str, tuple[str, ...]], ...],
    tuple[tuple[str, tuple[str, ...]], ...],
    tuple[str, ...],
]:
    """``FOR XML``/``FOR JSON`` options from the parser module's tables, as probed."""
    import sys

    module = sys.modules.get(par.__module__)
    out: list[tuple[tuple[str, tuple[str, ...]], ...]] = []
    for kind, table in (("XML", "FOR_XML_OPTIONS"), ("JSON", "FOR_JSON_OPTIONS")):
        options = getattr(module, table, None) or {}
        kept = []
        for word, follows in sorted(options.items()):
            tails = tuple(f for f in follows if isinstance(f, str) and set(f) <= _WORD_CHARS)
            if not _round_trips(f"SELECT a FROM t FOR {kind} {word}", dialect):
                continue
            kept.append(
                (
                    word,
                    tuple(
                        f
                        for f in tails
                        if _round_trips(f"SELECT a FROM t FOR {kind} {word} {f}", dialect)
                    ),
                )
            )
        out.append(tuple(kept))
    named = tuple(
        word
        for word in _FOR_NAMED
        if out[0]
        and _round_trips(f"SELECT a FROM t FOR XML {word}", dialect)
        and _round_trips(f"SELECT a FROM t FOR XML {word}('x')", dialect)
    )
    return out[0], out[1], named


def _token_names(tokens: Any) -> frozenset[str]:
    return frozenset(t.name for t in tokens)


def _single_quotes(entries: Any) -> tuple[str, ...]:
    return tuple(e for e in entries if isinstance(e, str) and len(e) == 1)


def _identifier_quotes(entries: Any) -> tuple[tuple[str, str], ...]:
    out = []
    for entry in entries:
        pair = (entry, entry) if isinstance(entry, str) else tuple(entry)
        if len(pair[0]) == 1 and len(pair[1]) == 1:
            out.append((pair[0], pair[1]))
    return tuple(out)


def _comments(entries: Any) -> tuple[str, ...]:
    return tuple(entry if isinstance(entry, str) else entry[0] for entry in entries)


def _module_text() -> bytes:
    here = Path(__file__)
    # The probes asked: their modules, and trees.py and dollar.py that judge them.
    probes = sorted(p.name for p in here.parent.glob("*probes.py"))
    names = (here.name, "named.py", "arguments.py", "dollar.py", "trees.py", *probes)
    names += ("routines.py", "match_recognize.py")
    return b"".join(here.with_name(n).read_bytes() for n in names)


_CODE = _module_text()
"""This module's and the probes' source as imported: the cache key must name the code that
wrote a pickle, not the files on disk when it is written (they may have changed since)."""


@functools.cache
def _code_hash() -> str:
    return hashlib.sha256(_CODE).hexdigest()[:16]


def _cache_file(name: str) -> Path | None:
    if os.environ.get("TYPEDGEN_NO_DISK_CACHE"):
        return None
    from importlib.metadata import version

    from typedgen._bundled import cache_dir

    tag = f"{version('sqlglot')}-{_code_hash()}-{name or 'base'}"
    return cache_dir() / "sql_tables" / f"{tag}.pickle"


@functools.cache
def dialect_tables(name: str) -> DialectTables:
    """A sqlglot dialect's tables: memoised, and cached on disk per sqlglot version (probing
    the functions takes a few seconds)."""
    path = _cache_file(name)
    if path is not None and path.exists():
        try:
            with open(path, "rb") as fh:
                cached = pickle.load(fh)
            if isinstance(cached, DialectTables):
                return cached
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            pass
    with _strict_sqlglot():
        tables = _read_tables(name)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(tables, fh)
            os.replace(tmp, path)
        except OSError:
            pass
    return tables


def _read_tables(name: str) -> DialectTables:
    from sqlglot import expressions as exp

    dialect = sqlglot_dialect(name)
    tok = dialect.tokenizer_class
    par = dialect.parser_class
    gen = dialect.generator_class
    keywords = {
        word: token.name
        for word, token in tok.KEYWORDS.items()
        if word and set(word) <= _WORD_CHARS and not word[0].isdigit()
    }
    type_tokens = _token_names(par.TYPE_TOKENS)
    func_tokens = _token_names(par.FUNC_TOKENS)
    functions = []
    with _quiet_sqlglot():
        followers: dict[str, dict[str, Any]] = {}
        # Keywords, and the words the parser reads by their text where a name could stand:
        # SELECT if < 1 is IF's condition for the base parser (NO_PAREN_FUNCTION_PARSERS).
        probed = {w for w, t in keywords.items() if t != "VAR"}
        no_paren = {w for w in par.NO_PAREN_FUNCTION_PARSERS if set(w) <= _WORD_CHARS}
        probed |= no_paren
        probed |= set(continuation_words(dialect))
        word_roles = {w: _word_roles(w, dialect, followers) for w in sorted(probed)}
        niladic = tuple(
            w for w in sorted(no_paren) if not word_roles[w][0] and _niladic(w, dialect)
        )
        cte = followers.setdefault("cte", {})
        cte_refused = frozenset(
            w
            for w, roles in word_roles.items()
            if roles[0] and not _alias_before(w, dialect, CTE_NAME_PROBES, cte)
        )
        name_roles = {w: _name_roles(w, dialect) for w, roles in word_roles.items() if not roles[0]}
        # Names with a parser of their own (STRING_AGG, POSITION...) are functions too.
        parsed_only = {name: None for name in par.FUNCTION_PARSERS if name not in par.FUNCTIONS}
        aliased_names = set(getattr(par, "FUNCTIONS_WITH_ALIASED_ARGS", ()) or ())
        for fname, builder in sorted({**par.FUNCTIONS, **parsed_only}.items()):
            if not fname or not set(fname) <= _WORD_CHARS or fname[0].isdigit():
                continue
            if _SPELLED_OUT.search(fname):
                continue  # sqlglot's mechanical names for CamelCase classes: J_S_O_N_OBJECT_AGG
            token = keywords.get(fname, "VAR")
            if token not in func_tokens:
                continue
            arity = _probe_arity(fname, dialect)
            if arity is None:
                continue
            cls = getattr(builder, "__self__", None) or exp.FUNCTION_BY_NAME.get(fname)
            if cls is None:
                cls = _node_class(f"SELECT {fname}({', '.join(['x'] * arity.least())})", dialect)
            aggregate = isinstance(cls, type) and issubclass(cls, exp.AggFunc)
            many = _distinct_arities(fname, arity, dialect) if aggregate else ()
            ordered = _ordered_arities(fname, arity, many, dialect) if aggregate else ()
            aliased = fname in aliased_names and _round_trips(
                f"SELECT {fname}(1 AS a, x AS b, 'c' AS c) FROM t", dialect, exact=False
            )
            operators = tuple(k for k in arity.counts if not _operands_kept(fname, k, dialect))
            standing = tuple(k for k in operators if _operator_heads(fname, k, dialect))
            functions.append(
                Function(
                    fname,
                    arity,
                    aggregate,
                    many,
                    ordered,
                    aliased,
                    operator_counts=operators,
                    operator_heads=standing,
                )
            )
        types = {}
        # Type names of one or more words (DOUBLE PRECISION), in any spelling sqlglot reads
        # back to the same type (STRING for TEXT, DEC for DECIMAL).
        type_words = {
            word: token
            for word, token in tok.KEYWORDS.items()
            if word
            and set(word) <= _WORD_CHARS | {" "}
            and not word[0].isdigit()
            and "  " not in word
            and word.strip() == word
        }
        for word, token in sorted(type_words.items()):
            if token.name not in type_tokens:
                continue
            params = tuple(
                n
                for n, suffix in enumerate(("", "(10)", "(10, 2)"))
                if _round_trips(f"SELECT CAST(x AS {word}{suffix})", dialect, exact=False)
            )
            if params:
                types[word] = params
        features = frozenset(
            name
            for name, sql in FEATURE_PROBES.items()
            if _round_trips(sql, dialect, exact=name not in READ_FEATURES)
        )
        if features & set(LAST_ARGUMENTS):

            def reads_back(sql: str) -> bool:
                return _round_trips(sql, dialect, exact=False)

            functions = [
                dataclasses.replace(
                    f,
                    last_args=probe_last_arguments(
                        f.name,
                        f.arity.counts,
                        features if f.aggregate else features - {"respect_nulls_arg"},
                        reads_back,
                    ),
                )
                for f in functions
            ]
        nulls = {name for name in features if name.startswith("nulls_")}
        if not any(_round_trips(FEATURE_PROBES[name], dialect) for name in sorted(nulls)):
            features -= nulls
        # Date parts, in any spelling sqlglot reads back the same (trees.date_part_words).
        parts = date_part_words(dialect, _DATE_PARTS)
        extract_units = tuple(
            u
            for u in parts
            if _round_trips(f"SELECT EXTRACT({u} FROM a) FROM t", dialect, exact=False)
        )
        interval_units = tuple(
            u for u in _DATE_PARTS if _round_trips(f"SELECT INTERVAL '1' {u}", dialect)
        )
        interval_units_read = tuple(
            u for u in _DATE_PARTS if _round_trips(f"SELECT INTERVAL '1' {u}", dialect, exact=False)
        )
        modifiers = getattr(par, "OPERATION_MODIFIERS", ()) or ()
        operation_modifiers = tuple(
            w
            for w in sorted(modifiers)
            if set(w) <= _WORD_CHARS and _round_trips(f"SELECT {w} a FROM t", dialect)
        )
        format_types = frozenset(
            word
            for word in types
            if _round_trips(f"SELECT CAST(a AS {word} FORMAT 'x') FROM t", dialect, exact=False)
        )
        if format_types:
            features |= {"cast_format"}
        for_options = _for_options(par, dialect)
        arities = {f.name: f.arity for f in functions}
        reserved = frozenset(w.upper() for w in getattr(gen, "RESERVED_KEYWORDS", ()) or ())
        named_calls = probe_named_calls(
            (
                (
                    fname,
                    exp.FUNCTION_BY_NAME.get(fname),
                    _named_counts(arities.get(fname)),
                )
                for fname in sorted(par.FUNCTIONS)
                if fname
                and set(fname) <= _WORD_CHARS
                and not fname[0].isdigit()
                and not _SPELLED_OUT.search(fname)
            ),
            features,
            dialect,
            lambda sql, d: _round_trips(sql, d, exact=False),
            keywords=[w for w, roles in word_roles.items() if not roles[0] or w in reserved],
        )
        historical_kinds = tuple(
            kind
            for kind in sorted(getattr(par, "HISTORICAL_DATA_KIND", ()) or ())
            if set(kind) <= _WORD_CHARS
            and _round_trips(f"SELECT * FROM t AT ({kind} => x)", dialect)
            and _round_trips(f"SELECT * FROM t AT ({kind} => 'x')", dialect)
        )
        known = frozenset(
            fname.upper()
            for fname in (*par.FUNCTIONS, *par.FUNCTION_PARSERS)
            if fname and set(fname.upper()) <= _WORD_CHARS and not fname[0].isdigit()
        )
        warehouse = read_warehouse_tables(
            dialect,
            features,
            lambda sql, d: _round_trips(sql, d, exact=False),
            known,
            # Any keyword may make a type of types (ClickHouse's NULLABLE is no type token).
            tuple(sorted(w for w in keywords if w.isalpha())),
            types,
            tuple(f.name for f in functions if f.aggregate and f.arity.allows(1)),
            _round_trips,
        )
        json_types = (
            json_column_types(
                sorted(w for w, t in type_words.items() if t.name in type_tokens),
                lambda sql: _round_trips(sql, dialect, exact=False),
            )
            if "json_table_mysql" in features
            else {}
        )
        duckdb = read_duckdb_tables(
            dialect,
            features,
            functions,
            extract_units,
            lambda sql, d: _round_trips(sql, d, exact=False),
        )
    return DialectTables(
        name=name,
        string_quotes=tuple(
            q for q in _single_quotes(tok.QUOTES) if _is_string(f"SELECT {q}a b{q}", dialect)
        ),
        backslash_escapes="\\" in tok.STRING_ESCAPES,
        quote_escapes=tuple(q for q in tok.STRING_ESCAPES if q in tok.QUOTES),
        identifier_quotes=tuple(
            (o, c)
            for o, c in _identifier_quotes(tok.IDENTIFIERS)
            if _round_trips(f"SELECT {o}a b{c} FROM t", dialect)
        ),
        comments=_comments(tok.COMMENTS),
        dash_comment_space=_dash_comment_space(dialect),
        keywords=keywords,
        reserved=reserved,
        word_roles=word_roles,
        name_roles={w: roles for w, roles in name_roles.items() if any(roles)},
        cte_refused=cte_refused,
        type_tokens=type_tokens,
        type_index=_type_index(dialect, {w for w, t in keywords.items() if t in type_tokens}),
        niladic_words=niladic,
        symbols=tuple(
            sorted(
                k
                for k in tok.KEYWORDS
                if k and not any(c.isalnum() or c == "_" or c.isspace() for c in k)
            )
        ),
        id_var_tokens=_token_names(par.ID_VAR_TOKENS),
        table_alias_tokens=_token_names(par.TABLE_ALIAS_TOKENS),
        alias_tokens=_token_names(par.ALIAS_TOKENS),
        func_tokens=func_tokens,
        types=types,
        functions=tuple(functions),
        string_forms=_string_forms(tok, dialect),
        known_functions=known,
        limit_fetch=str(gen.LIMIT_FETCH),
        top=bool(getattr(gen, "LIMIT_IS_TOP", False)),
        normalization=dialect.NORMALIZATION_STRATEGY.name,
        features=features,
        extract_units=extract_units,
        interval_units=interval_units,
        interval_units_read=interval_units_read,
        operation_modifiers=operation_modifiers,
        format_types=format_types,
        historical_kinds=historical_kinds,
        for_xml_options=for_options[0],
        for_json_options=for_options[1],
        for_named_options=for_options[2],
        named_calls=named_calls,
        warehouse=warehouse,
        duckdb=duckdb,
        json_column_types=json_types,
        range_words=frozenset(
            text.upper()
            for text, token in {**tok.KEYWORDS, **tok.SINGLE_TOKENS}.items()
            if token in par.RANGE_PARSERS
        ),
    )

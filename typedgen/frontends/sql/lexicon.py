"""Words of a SQL dialect and the terminals that lex them.

sqlglot's tokenizer decides what a word *is* (a keyword token, a type, a plain ``VAR``) before its
parser decides what it may *do* (name a column, alias a table, call a function). A grammar that
re-lexes with longest match (``Lexing.BASIC``, as sqlglot does) must give each word exactly one
terminal, so a word's terminal is chosen by the set of roles it plays:

* words of the grammar's fixed syntax (``SELECT``, ``LEFT``) get a terminal each;
* every other word is grouped with the words that play exactly the same roles (functions of the
  same arity, identifier-usable keywords, schema tables...), one terminal per group;
* ``IDENT`` is any other word that sqlglot reads as a plain identifier.

Role classes (``ident``, ``func_1_2``, ``schema_column``...) are then alternations of the
terminals whose words play that role.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from dataclasses import dataclass

from typedgen.frontends.sql.identifiers import value_words, word_tail
from typedgen.frontends.sql.tables import Arity, DialectTables
from typedgen.ir.grammar import Lexing, Rule
from typedgen.ir.nodes import Alt, CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = ["Lexicon", "Role", "basic_terminal", "ci_word"]

WORD_HEAD = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_"))))
WORD_TAIL = CharClass(
    ((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("0"), ord("9")), (ord("_"), ord("_")))
)


def basic_terminal(name: str, body: Expr, origin: Origin, priority: int = 1) -> Rule:
    """A terminal lexed as sqlglot lexes: longest match among all terminals."""
    return Rule(name, body, lexical=True, priority=priority, lexing=Lexing.BASIC, origin=origin)


@functools.cache
def _letter(ch: str) -> Expr:
    """One character of a case-insensitive word (shared: a dialect has ~1,000 words)."""
    if ch.isalpha() and ch.isascii():
        return CharClass.of(ch.upper() + ch.lower())
    return Lit.text(ch)


def ci_word(word: str, *, origin: Origin | None = None) -> Expr:
    """A word matched case-insensitively (ASCII letters), as sqlglot matches keywords."""
    return Seq(tuple(_letter(ch) for ch in word), origin=origin)


@dataclass(frozen=True, order=True)
class Role:
    """What a word may do; words with equal roles share a terminal."""

    function: Arity | None = None
    aggregate: bool = False
    distinct_many: tuple[int, ...] = ()
    """Argument counts (two or more) the aggregate takes after ``DISTINCT``."""
    order_by: tuple[int, ...] = ()
    """Argument counts the aggregate takes followed by ``ORDER BY``."""
    aliased_args: bool = False
    """Arguments may be named with ``AS`` (``STRUCT(1 AS a)``)."""
    last_args: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Special last arguments (a lambda, ``VARIADIC x``) with the counts that take them."""
    type_params: tuple[int, ...] = ()
    type_format: bool = False
    """A type ``CAST(x AS type FORMAT 'f')`` takes."""
    known_function: bool = False
    """A name sqlglot parses as its own function when called, callable here with no arity
    (so never an anonymous call)."""
    ident: bool = False
    """Column, qualifier, or a name after ``AS``."""
    table_alias: bool = False
    """A table alias without ``AS``."""
    column_alias: bool = False
    """A column alias without ``AS``."""
    as_name: bool = False
    """A column alias after ``AS`` only (``SELECT x AS into``)."""
    member: bool = False
    """The part after a dot only (``t.null``, ``s.case``)."""
    table_name: bool = False
    """A table in ``FROM`` only (``FROM current_date``)."""
    table: bool = False
    """A table of the caller's schema."""
    column: bool = False
    """A column of the caller's schema."""
    type_word: bool = False
    """A keyword of the parser's type tokens (``bigint``): as a bare column, no slice without
    a start may follow it (``bigint[:2]`` reads as an array type)."""
    no_cte: bool = False
    """Names things, but no common table expression (``WITH recursive AS``: a modifier)."""
    operator_counts: tuple[int, ...] = ()
    """Argument counts at which the call is written back as an operator (``GLOB(a, b)`` as
    ``b GLOB a``): taken only with plain operands, as a whole select item."""
    operator_heads: tuple[int, ...] = ()
    """Those of ``operator_counts`` at which the call may also stand first in another operator
    (``JSON_EXTRACT(c, 'p') = 1``), which sqlglot's writer parenthesises."""

    def tag(self) -> str:
        parts = []
        if self.function is not None:
            parts.append("F" + str(self.function).replace(",", "_").replace("+", "P"))
        if self.aggregate:
            parts.append("AGG")
        if self.distinct_many:
            parts.append("D" + "".join(map(str, self.distinct_many)))
        if self.order_by:
            parts.append("O" + "".join(map(str, self.order_by)))
        if self.aliased_args:
            parts.append("AA")
        for form, counts in self.last_args:
            parts.append(form[0].upper() + "".join(map(str, counts)))
        if self.type_params:
            parts.append("T" + "".join(map(str, self.type_params)))
        if self.type_format:
            parts.append("FMT")
        if self.known_function:
            parts.append("KF")
        if self.operator_counts:
            parts.append("OP" + "".join(map(str, self.operator_counts)))
        if self.operator_heads:
            parts.append("OH" + "".join(map(str, self.operator_heads)))
        for flag, name in (
            (self.ident, "ID"),
            (self.table_alias, "TA"),
            (self.column_alias, "CA"),
            (self.as_name, "AN"),
            (self.member, "MB"),
            (self.table_name, "TN"),
            (self.table, "TBL"),
            (self.column, "COL"),
            (self.no_cte, "NCTE"),
            (self.type_word, "TY"),
        ):
            if flag:
                parts.append(name)
        return "_".join(parts) or "NONE"


@dataclass
class _Word:
    keyword: bool = False
    function: Arity | None = None
    aggregate: bool = False
    distinct_many: tuple[int, ...] = ()
    order_by: tuple[int, ...] = ()
    aliased_args: bool = False
    last_args: tuple[tuple[str, tuple[int, ...]], ...] = ()
    operator_counts: tuple[int, ...] = ()
    operator_heads: tuple[int, ...] = ()
    type_params: tuple[int, ...] = ()
    type_format: bool = False
    known_function: bool = False
    table: bool = False
    column: bool = False


class Lexicon:
    """Collects words and their roles; emits the word terminals and the role-class rules."""

    def __init__(self, tables: DialectTables, origin: Origin) -> None:
        self.tables = tables
        self.origin = origin
        self.words: dict[str, _Word] = {}
        self.phrase_gap: Expr | None = None
        """Whitespace between the words of a phrase keyword (set by the builder)."""
        self.keyword_names = False
        """Reserved words as names where sqlglot reads them so (``AS from``, ``t.null``, ``FROM
        current_date``): the checking language only (set by the builder). sqlglot round-trips
        them, but databases refuse most (SQLite: ``near "from": syntax error``), so generation
        never offers them."""
        self.type_words = False
        """Whether words of the parser's type tokens get terminals of their own (``Role.
        type_word``): where a slice may leave out its start (set by the builder)."""
        self.unnamed: set[str] = set()
        """Words that name nothing in this grammar (set by a construct that reads them by
        their text where a name could start: MATCH_RECOGNIZE's FINAL and RUNNING)."""
        # Every single-word keyword of the dialect plays the identifier roles its token allows.
        for word in (*tables.keywords, *tables.reserved, *tables.word_roles):
            self._word(word)
        # A name sqlglot knows as a function gets a terminal of its own, so that the
        # anonymous call (any IDENT followed by "(") cannot take it with arguments sqlglot
        # refuses (SQLite: DATEDIFF(x) is no anonymous call but sqlglot's DateDiff).
        for word in tables.known_functions:
            self._word(word).known_function = True

    # -- registration ----------------------------------------------------------------------
    def _word(self, word: str) -> _Word:
        key = word.upper()
        entry = self.words.get(key)
        if entry is None:
            entry = self.words[key] = _Word()
        return entry

    def _word_body(self, word: str) -> Expr:
        """A word, or a phrase (ORDER BY) with the gap sqlglot reads between its words."""
        if " " not in word or self.phrase_gap is None:
            return ci_word(word)
        parts: list[Expr] = []
        for i, part in enumerate(word.split(" ")):
            if i:
                parts.append(self.phrase_gap)
            parts.append(ci_word(part))
        return Seq(tuple(parts))

    def keyword(self, word: str) -> Ref:
        """The terminal of a word of the grammar's fixed syntax."""
        self._word(word).keyword = True
        return Ref(self.keyword_name(word), origin=self.origin.at(word.upper()))

    @staticmethod
    def keyword_name(word: str) -> str:
        return "KW_" + word.upper().replace(" ", "_")

    def function(
        self,
        name: str,
        arity: Arity,
        aggregate: bool,
        distinct_many: tuple[int, ...] = (),
        order_by: tuple[int, ...] = (),
        aliased_args: bool = False,
        last_args: tuple[tuple[str, tuple[int, ...]], ...] = (),
        operator_counts: tuple[int, ...] = (),
        operator_heads: tuple[int, ...] = (),
    ) -> None:
        entry = self._word(name)
        entry.function = arity
        entry.aggregate = aggregate
        entry.distinct_many = distinct_many
        entry.order_by = order_by
        entry.aliased_args = aliased_args
        entry.last_args = last_args
        entry.operator_counts = operator_counts
        entry.operator_heads = operator_heads

    def data_type(self, name: str, params: tuple[int, ...], *, formats: bool = False) -> None:
        entry = self._word(name)
        entry.type_params = params
        entry.type_format = formats

    def schema_name(self, name: str, *, table: bool = False, column: bool = False) -> None:
        entry = self._word(name)
        entry.table = entry.table or table
        entry.column = entry.column or column

    # -- roles -----------------------------------------------------------------------------
    def role(self, word: str) -> Role:
        entry = self.words[word]
        t = self.tables
        # A keyword may name things where sqlglot reads it back as a name (probed); a word
        # the dialect's generator quotes when it names something must be quoted.
        free = word not in t.reserved and word not in self.unnamed
        ident, table_alias, column_alias = t.word_roles.get(word, (True, True, True))
        ident = ident and word not in value_words(t.name)  # PRIOR a: no column named prior
        as_name, member, table_name = (False, False, False)
        if self.keyword_names:
            as_name, member, table_name = t.name_roles.get(word, (False, False, False))
        elif entry.table:  # a schema table named by a keyword (Spider's `list`): probed as one
            table_name = t.name_roles.get(word, (False, False, False))[2]
        if " " in word:  # a phrase (DOUBLE PRECISION) names nothing
            ident = table_alias = column_alias = as_name = member = table_name = False
        return Role(
            function=entry.function,
            aggregate=entry.aggregate,
            distinct_many=entry.distinct_many,
            order_by=entry.order_by,
            aliased_args=entry.aliased_args,
            last_args=entry.last_args,
            operator_counts=entry.operator_counts,
            operator_heads=entry.operator_heads,
            type_params=entry.type_params,
            type_format=entry.type_format,
            known_function=entry.known_function and entry.function is None,
            ident=free and ident,
            table_alias=free and table_alias,
            column_alias=free and column_alias,
            as_name=free and as_name,
            member=free and member,
            table_name=free and table_name,
            table=entry.table,
            column=entry.column,
            no_cte=free and ident and word in t.cte_refused,
            type_word=self.type_words and free and ident and t.keywords.get(word) in t.type_tokens,
        )

    # -- output ----------------------------------------------------------------------------
    def build(
        self,
    ) -> tuple[list[Rule], list[Rule], dict[str, list[str]], dict[Role, list[str]]]:
        """Word terminals, ``IDENT``, and for every role the terminals playing it.

        Returns ``(rules, reserved, classes, by_role)``: ``reserved`` holds the terminal of the
        words that play no role (reserved keywords the grammar does not use), which must lex
        and be refused; ``classes`` maps a role-class name (``ident``, ``table_alias``,
        ``column_alias``, ``as_name``, ``member_name``, ``table_word``, ``cte_name``,
        ``schema_table``,
        ``schema_column``) to terminal names; ``by_role``
        maps each word group's role to its terminal names (for functions and types).

        Word terminals outrank ``IDENT`` (priority 1 over 0), so a word with a terminal never
        lexes as a plain identifier: no keyword list has to be subtracted from ``IDENT``.
        """
        rules: list[Rule] = []
        tail = word_tail(self.tables.name)  # T-SQL's Test#, Oracle's V$SESSION: one word
        phrase_tails: list[Expr] = []
        groups: dict[Role, list[str]] = defaultdict(list)
        terminal_of_role: dict[Role, list[str]] = defaultdict(list)
        for word in sorted(self.words):
            entry = self.words[word]
            role = self.role(word)
            if entry.keyword:
                name = self.keyword_name(word)
                rules.append(self._terminal(name, self._word_body(word), word))
                if " " in word and self.phrase_gap is not None:
                    # GROUP Byear is GROUP then Byear for sqlglot, not GROUP BY then ear.
                    glued = Seq((self._word_body(word), Repeat(tail, 1)))
                    phrase_tails.append(glued)
                terminal_of_role[role].append(name)
            else:
                groups[role].append(word)
        reserved_words: list[str] = []
        for role in sorted(groups, key=lambda r: r.tag()):
            words = groups[role]
            if dataclasses.replace(role, known_function=False) == Role():
                # Plays no role (being a known function name only keeps a word apart).
                reserved_words.extend(words)
                continue
            name = "W_" + role.tag()
            body = Alt(tuple(ci_word(w) for w in words), origin=self.origin.at(name))
            rules.append(self._terminal(name, body, name))
            terminal_of_role[role].append(name)
        reserved: list[Rule] = []
        if phrase_tails:
            body = Alt(tuple(phrase_tails), origin=self.origin.at("RESERVED_PHRASE_WORD"))
            reserved.append(
                self._terminal("RESERVED_PHRASE_WORD", body, "RESERVED_PHRASE_WORD", priority=3)
            )
        if reserved_words:
            body = Alt(
                tuple(ci_word(w) for w in sorted(reserved_words)),
                origin=self.origin.at("RESERVED_WORD"),
            )
            reserved.append(self._terminal("RESERVED_WORD", body, "RESERVED_WORD"))
        ident = Seq((WORD_HEAD, Repeat(tail)), origin=self.origin.at("IDENT"))
        rules.append(self._terminal("IDENT", ident, "IDENT", priority=0))
        classes: dict[str, list[str]] = {
            "ident": ["IDENT"],
            "table_alias": ["IDENT"],
            "column_alias": ["IDENT"],
            "as_name": ["IDENT"],
            "member_name": ["IDENT"],
            "table_word": ["IDENT"],
            "cte_name": ["IDENT"],
            "schema_table": [],
            "schema_column": [],
            "type_ident": [],
            "schema_type_column": [],
        }
        for role, names in sorted(terminal_of_role.items(), key=lambda kv: kv[0].tag()):
            for flag, cls in (
                (role.ident, "ident"),
                (role.table_alias, "table_alias"),
                (role.column_alias, "column_alias"),
                (role.ident or role.as_name, "as_name"),
                (role.ident or role.member, "member_name"),
                (role.ident or role.table_name, "table_word"),
                (role.ident and not role.no_cte, "cte_name"),
                # Unquoted, a schema name must also be usable as a name (a table: in FROM).
                (role.table and (role.ident or role.table_name), "schema_table"),
                (role.column and role.ident, "schema_column"),
                # Bare before [, read as a type (bigint[:2]): see ExpressionRules.operators.
                (role.ident and role.type_word, "type_ident"),
                (role.column and role.ident and role.type_word, "schema_type_column"),
            ):
                if flag:
                    classes[cls].extend(names)
        return rules, reserved, classes, dict(terminal_of_role)

    def _terminal(self, name: str, body: Expr, where: str, *, priority: int = 1) -> Rule:
        return basic_terminal(name, body, self.origin.at(where), priority)

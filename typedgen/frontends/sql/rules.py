"""The SQL grammar builder's shared state and the small combinators every clause family uses.

The builder is split by clause family (:mod:`.query`, :mod:`.expressions`, :mod:`.calls`,
:mod:`.statements`, :mod:`.terminals`); each family is a mixin over :class:`RuleBuilder`, which
holds the dialect's tables, the caller's options, the lexicon and the rules made so far.
"""

from __future__ import annotations

from dataclasses import dataclass

from typedgen.frontends.sql.lexicon import Lexicon
from typedgen.frontends.sql.tables import DialectTables, Function
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, Expr, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = [
    "PUNCT",
    "GrammarOptions",
    "RuleBuilder",
    "SchemaNames",
    "alt",
    "empty",
    "opt",
    "seq",
    "star",
]

PUNCT = {
    "(": "LPAR",
    ";": "SEMICOLON",
    ")": "RPAR",
    ",": "COMMA",
    ".": "DOT",
    "*": "STAR",
    "+": "PLUS",
    "-": "MINUS",
    "/": "SLASH",
    "%": "PERCENT",
    "=": "EQ",
    "<>": "NEQ",
    "!=": "BANGEQ",
    "<": "LT",
    ">": "GT",
    "<=": "LTE",
    ">=": "GTE",
    "<=>": "NULLSAFE_EQ",
    "||": "DPIPE",
    "::": "DCOLON",
    "&": "AMP",
    "|": "PIPE",
    "^": "CARET",
    "~": "TILDE",
    "<<": "LSHIFT",
    ">>": "RSHIFT",
    "->": "ARROW",
    "->>": "DARROW",
    "[": "LBRACKET",
    "]": "RBRACKET",
    "{": "LBRACE",
    "}": "RBRACE",
    ":": "COLON",
    ":=": "COLON_EQ",
    "(+)": "OUTER_MARK",
    "@?": "AT_QMARK",
    "<->": "LR_ARROW",
    "<<->>": "LLRR_ARROW",
    "-|-": "ADJACENT",
    "^=": "CARET_EQ",
    "=>": "FARROW",
    "?": "QMARK",
    "#>": "HASH_ARROW",
    "#>>": "HASH_DARROW",
    "@>": "AT_GT",
    "<@": "LT_AT",
    "?|": "QMARK_PIPE",
    "?&": "QMARK_AMP",
    "&&": "DAMP",
    "!": "BANG",
    "@": "AT",
    "$": "DOLLAR",
    "#": "HASH",
}
"""Punctuation and operator symbols the grammar may use, with their terminal names."""


@dataclass(frozen=True)
class SchemaNames:
    """Table and column names a schema-aware grammar is limited to."""

    tables: tuple[str, ...]
    columns: tuple[str, ...]


@dataclass(frozen=True)
class GrammarOptions:
    """What the caller asked for, beyond the dialect."""

    statements: tuple[str, ...] = ("select",)
    schema: SchemaNames | None = None
    ctes_in_schema: bool = False
    functions: frozenset[str] | None = None
    """Upper-case function names to offer; ``None`` offers every function the dialect knows."""
    anonymous_calls: bool = False
    """Also any other ``name(args)`` (a UDF; sqlglot parses it as an anonymous function)."""
    cast_operator: bool | None = None
    """``x::type``; ``None`` follows the dialect's probe."""
    exclude_types: frozenset[str] = frozenset()
    terminator: bool = True
    """Allow one closing ``;`` (off when a host grammar embeds the statement and ends it)."""
    quoted_values: bool = False
    """Schema-aware: accept a quoted identifier where a value may go (SQLite's "string")."""
    comments: bool = False
    """Accept ``--`` and ``/* */`` comments (bounded) as ignored text where the dialect has
    them; off for generation by default (a model could spend its budget in comments)."""
    whitespace: str = "generation"
    """``"generation"``: whitespace between two lexemes and around the statement is bounded
    tightly and a ``\\r`` must be followed by ``\\n``; ``"check"``: the wider language for
    checking text from elsewhere (longer runs, lone ``\\r``)."""
    placeholders: bool = False
    """Accept the dialect's query parameters (``?``, ``$1``, ``:name``, ``@name``)."""


def seq(*items: Expr) -> Expr:
    return Seq(tuple(items))


def alt(*items: Expr) -> Expr:
    return Alt(tuple(items))


def opt(item: Expr) -> Expr:
    return Repeat(item, 0, 1)


def star(item: Expr) -> Expr:
    return Repeat(item)


def empty() -> Expr:
    return Seq(())


class RuleBuilder:
    """State shared by the clause families, and the helpers they build rules with."""

    def __init__(self, tables: DialectTables, options: GrammarOptions, source: str) -> None:
        self.tables = tables
        self.options = options
        self.features = tables.features
        self.source = source
        self.origin = Origin(source)
        self.lex = Lexicon(tables, self.origin)
        self.lex.keyword_names = options.whitespace == "check"
        self.rules: dict[str, Rule] = {}
        self.punct_used: set[str] = set()
        self.quoted: dict[str, str] = {}
        self.params_used: set[str] = set()
        self.type_phrases: dict[str, tuple[Expr, tuple[int, ...], bool]] = {}
        self.count_star = False
        self.count_many = False
        self.filter_clause: Expr = empty()
        self.distinct: Expr = empty()
        self.over_clause: Expr = empty()
        self.within_group: Expr = empty()
        self.nulls_inside: Expr = empty()
        self.keep_tail: Expr = empty()
        self.named_scalar: list[Expr] = []
        self.named_table: list[Expr] = []
        # Bare type words (ExpressionRules.primaries, CallRules.type_word_rules): the other
        # primaries no slice without a start may follow (NULL), and a name's pieces.
        self.type_heads: list[Expr] = []
        self.column_pieces: tuple[Expr, int, list[Expr]] = (empty(), 0, [])

    def keyword(self, *words: str) -> Expr:
        """The terminals of fixed-syntax words, in sequence."""
        refs = [self.lex.keyword(w) for w in words]
        return refs[0] if len(refs) == 1 else Seq(tuple(refs))

    def phrase(self, *words: str) -> Expr:
        """Words sqlglot's tokenizer reads as one keyword (ORDER BY, GROUP BY, PARTITION BY,
        GROUPING SETS, SIMILAR TO, PRIMARY KEY; WITHIN GROUP so that GROUP is never alone):
        any whitespace may separate them, but no comment, so with comments on each is one
        terminal with whitespace (bounded as WS) between its words."""
        if not self.options.comments:
            return self.keyword(*words)
        return self.lex.keyword(" ".join(words))

    def punct(self, symbol: str) -> Ref:
        """The terminal of a punctuation or operator symbol (see :data:`PUNCT`)."""
        self.punct_used.add(symbol)
        return Ref(PUNCT[symbol])

    def ref(self, name: str) -> Ref:
        return Ref(name)

    def has(self, feature: str) -> bool:
        return feature in self.features

    def offers(self, function: str) -> bool:
        """Whether ``functions=`` (when given; stored upper-case) names ``function``."""
        return self.options.functions is None or function.upper() in self.options.functions

    def rule(self, name: str, body: Expr) -> Ref:
        self.rules[name] = Rule(name, body, origin=self.origin.at(name))
        return Ref(name)

    def separated(self, item: Expr, symbol: str = ",") -> Expr:
        """``item (symbol item)*``."""
        return seq(item, star(seq(self.punct(symbol), item)))

    def parens(self, *items: Expr) -> Expr:
        return seq(self.punct("("), *items, self.punct(")"))

    # Hooks one clause family provides to another (the builder mixes all families in).
    def callable_functions(self) -> tuple[Function, ...]:
        raise NotImplementedError  # pragma: no cover - CallRules

    def calls(self) -> None:
        raise NotImplementedError  # pragma: no cover - CallRules

    def window(self) -> None:
        raise NotImplementedError  # pragma: no cover - CallRules

    def select_values(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def operator_items(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - CallRules

    def operator_head(self) -> Expr | None:
        raise NotImplementedError  # pragma: no cover - CallRules

    def alias_forms(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_tables(self, name_alias: Expr, columns: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_conditions(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_predicates(self) -> list[tuple[str, Expr]]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_primaries(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_joins(self, primary: Expr, condition: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def keep_clause(self) -> Expr:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def vendor_samples(self, table_alias: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def unpivot_column(self) -> Expr:
        raise NotImplementedError  # pragma: no cover - VendorRules

    def from_first(self, select: Expr, items: Expr, clauses: list[Expr]) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_primaries(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_unary(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_postfix(self, *, open_start: bool = True) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def star_arguments(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_tables(self, name_alias: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_ctes(self, body: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_joins(self, primary: Expr, condition: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def cte_keys(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_sample(self) -> Expr | None:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def pivot_tails(self) -> tuple[Expr, Expr, list[Expr]]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def duckdb_literals(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def filter_where(self) -> Expr:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def slices(self, *, open_start: bool = True) -> Expr:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def open_slices(self) -> bool:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    def column_aggregates(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbRules

    # Round 7's T-SQL and MySQL constructs (TsqlMysqlRules).
    def interval_terms(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlMysqlRules

    def tsql_mysql_primaries(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlMysqlRules

    def mysql_json_tables(self, name_alias: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlMysqlRules

    def duckdb_calls(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - DuckdbCallRules

    # T-SQL's and Oracle's constructs (TsqlOracleRules).
    def tsql_oracle_primaries(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def length_types(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def more_table_names(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def temp_columns(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def hint_items(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def query_options(self) -> Expr | None:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def for_browse(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def assign_aliases(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def order_phrases(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def unpivot_nulls(self) -> Expr:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def pivot_alias(self, kind: str) -> Expr | None:
        raise NotImplementedError  # pragma: no cover - TsqlOracleRules

    def json_tables(self, name_alias: Expr, columns: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - TableFunctionRules

    def select_into_core(self, head: list[Expr], items: Expr, clauses: list[Expr]) -> None:
        raise NotImplementedError  # pragma: no cover - SelectIntoRules

    def select_into_statement(self, with_clause: Expr, tail: Expr) -> None:
        raise NotImplementedError  # pragma: no cover - SelectIntoRules

    def match_recognize(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - MatchRecognizeRules

    # BigQuery's names and lexemes (BigqueryNameRules).
    def bigquery_name_terminals(self) -> list[Rule]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def dashed_items(self, join: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def triple_quoted_strings(self, backslash_escapes: bool) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def triple_prefixed(self, kind: str, head: Expr, closer: str) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def quoted_calls(self) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def bigquery_table_names(self, member: Expr) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

    def numeric_paths(self, member: Expr, most: int) -> list[Expr]:
        raise NotImplementedError  # pragma: no cover - BigqueryNameRules

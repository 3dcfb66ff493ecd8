"""The SQL grammar: one base grammar in the IR, specialised by a dialect's tables and a schema.

Every terminal is basic-lexed (longest match among all terminals, as sqlglot's tokenizer does),
so that the text the model writes is cut into the same tokens sqlglot will cut it into: a keyword
glued to a name (``SELECTa``) is one word, ``--`` opens a comment rather than two minus signs,
``<-`` is not ``<`` then ``-``. Text that sqlglot would read as something the grammar does not
offer (comment openers, operators of other dialects, digits glued to letters) is *reserved*: it
lexes, and is refused.

Expression rules follow sqlglot's precedence levels (disjunction, conjunction, NOT, equality,
comparison, range predicates, bitwise/concatenation, term, factor, unary, postfix cast), so the
tree the grammar describes is the tree sqlglot builds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from typedgen.frontends.sql.lexicon import Lexicon, Role, basic_terminal
from typedgen.frontends.sql.tables import DialectTables, Function
from typedgen.ir.grammar import Grammar, Rule
from typedgen.ir.nodes import Alt, CharClass, Expr, Intersect, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import prune_unreachable

__all__ = ["STATEMENTS", "GrammarOptions", "SchemaNames", "build_sql_grammar"]

STATEMENTS = ("select", "insert", "update", "delete", "create_table")

_PUNCT = {
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
}
_DIGIT = CharClass(((ord("0"), ord("9")),))
_WORDISH = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_"))))
_MAX_INT_DIGITS = 18
_MAX_WS = 100
_CONTROLS = "".join(chr(c) for c in range(32) if c != 9) + "\x7f"
"""Control characters (all but tab) are refused inside strings and quoted names."""


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


def _seq(*items: Expr) -> Expr:
    return Seq(tuple(items))


def _alt(*items: Expr) -> Expr:
    return Alt(tuple(items))


def _opt(item: Expr) -> Expr:
    return Repeat(item, 0, 1)


def _star(item: Expr) -> Expr:
    return Repeat(item)


class _Builder:
    def __init__(self, tables: DialectTables, options: GrammarOptions, source: str) -> None:
        self.t = tables
        self.o = options
        self.f = tables.features
        self.source = source
        self.origin = Origin(source)
        self.lex = Lexicon(tables, self.origin)
        self.rules: dict[str, Rule] = {}
        self.punct_used: set[str] = set()
        self.quoted: dict[str, str] = {}
        self.count_star = False
        self.filter_clause: Expr = Seq(())
        self.distinct: Expr = Seq(())

    # -- small helpers ---------------------------------------------------------------------
    def kw(self, *words: str) -> Expr:
        refs = [self.lex.keyword(w) for w in words]
        return refs[0] if len(refs) == 1 else Seq(tuple(refs))

    def p(self, symbol: str) -> Ref:
        self.punct_used.add(symbol)
        return Ref(_PUNCT[symbol])

    def r(self, name: str) -> Ref:
        return Ref(name)

    def has(self, feature: str) -> bool:
        return feature in self.f

    def rule(self, name: str, body: Expr) -> Ref:
        self.rules[name] = Rule(name, body, origin=self.origin.at(name))
        return Ref(name)

    def sep(self, item: Expr, symbol: str = ",") -> Expr:
        return _seq(item, _star(_seq(self.p(symbol), item)))

    def parens(self, *items: Expr) -> Expr:
        return _seq(self.p("("), *items, self.p(")"))

    # -- statements ------------------------------------------------------------------------
    def build(self) -> Grammar:
        query = self.query()
        builders: dict[str, Callable[[], Expr]] = {
            "select": lambda: query,
            "insert": self.insert,
            "update": self.update,
            "delete": self.delete,
            "create_table": self.create_table,
        }
        statements = [builders[s]() for s in self.o.statements]
        # One statement, optionally closed by ";" (a terminator; nothing may follow it).
        end = _opt(self.p(";")) if self.o.terminator else Seq(())
        self.rule("statement", _seq(_alt(*statements), end))
        self.expressions()
        self.names()
        word_rules, reserved_words, classes, by_role = self.lex.build()
        self.role_rules(classes, by_role)
        terminals = [*word_rules, *self.fixed_terminals()]
        reserved = [*reserved_words, *self.reserved_terminals()]
        names = ["statement", "WS", *(r.name for r in reserved)]
        rules = prune_unreachable([*self.rules.values(), *terminals, *reserved], names)
        return Grammar(
            rules,
            "statement",
            ignore=("WS",),
            reserved=tuple(r.name for r in reserved),
            origin=self.origin,
        )

    def query(self) -> Ref:
        """The query rules; returns the statement-level query (WITH may be top-level only)."""
        with_clause: Expr = Seq(())
        if not self.o.schema or self.o.ctes_in_schema:
            recursive = _opt(self.kw("RECURSIVE")) if self.has("recursive") else Seq(())
            columns = (
                _opt(self.parens(self.sep(self.r("ident")))) if self.has("cte_columns") else Seq(())
            )
            cte = self.rule(
                "cte", _seq(self.r("ident"), columns, self.kw("AS"), self.parens(self.r("query")))
            )
            with_clause = _opt(_seq(self.kw("WITH"), recursive, self.sep(cte)))
        set_ops = []
        for feature, words in (
            ("union", ("UNION",)),
            ("union_all", ("UNION", "ALL")),
            ("union_distinct", ("UNION", "DISTINCT")),
            ("intersect", ("INTERSECT",)),
            ("intersect_distinct", ("INTERSECT", "DISTINCT")),
            ("except", ("EXCEPT",)),
            ("except_distinct", ("EXCEPT", "DISTINCT")),
        ):
            if self.has(feature):
                set_ops.append(self.kw(*words))
        operands: list[Expr] = [self.r("select_core")]
        if self.has("paren_set_operand"):
            operands.append(self.parens(self.r("query")))
        operand = self.rule("set_operand", _alt(*operands))
        body: Expr = operand
        if set_ops:
            body = _seq(operand, _star(_seq(_alt(*set_ops), operand)))
        tail = self.limit_tail()
        self.select_core()
        nested_with = self.has("nested_with")
        nested_order = self.has("subquery_order")
        if nested_with and nested_order:
            self.rule("query", _seq(with_clause, body, tail))
            return self.r("query")
        # Where sqlglot rewrites a nested WITH (hoisted) or an ORDER BY in a subquery (T-SQL
        # allows neither), those stay at the top level.
        unordered = self.limit_forms(ordered=False)
        nested_tail = tail if nested_order else _opt(_alt(*unordered)) if unordered else Seq(())
        self.rule("query", _seq(with_clause if nested_with else Seq(()), body, nested_tail))
        return self.rule("top_query", _seq(with_clause, body, tail))

    def limit_tail(self) -> Expr:
        """ORDER BY and the dialect's limit forms (some only after an ORDER BY)."""
        unordered = self.limit_forms(ordered=False)
        ordered = self.limit_forms(ordered=True)
        order_by = self.r("order_by")
        tails: list[Expr] = [_seq(order_by, _opt(_alt(*ordered)) if ordered else Seq(()))]
        tails.append(_alt(*unordered) if unordered else Seq(()))
        return _alt(*tails, Seq(()))

    def limit_forms(self, *, ordered: bool) -> list[Expr]:
        number = Ref("INTEGER")
        forms: list[Expr] = []
        rows = _alt(self.kw("ROW"), self.kw("ROWS"))
        prefer_fetch = self.t.top or self.t.limit_fetch == "FETCH"
        if not prefer_fetch and self.has("limit"):
            offset = _opt(_seq(self.kw("OFFSET"), number)) if self.has("offset") else Seq(())
            forms.append(_seq(self.kw("LIMIT"), number, offset))
        if not (prefer_fetch or self.t.limit_fetch == "ALL"):
            return forms
        suffix = "_ordered" if ordered else ""
        fetch = _seq(
            self.kw("FETCH"),
            _alt(self.kw("FIRST"), self.kw("NEXT")),
            number,
            rows,
            self.kw("ONLY"),
        )
        if self.has("fetch" + suffix) or (ordered and self.has("fetch")):
            forms.append(_seq(self.kw("OFFSET"), number, rows, _opt(fetch)))
        if self.has("fetch_only" + suffix) or (ordered and self.has("fetch_only")):
            forms.append(fetch)
        return forms

    def select_core(self) -> None:
        top: Expr = Seq(())
        if self.t.top and self.has("top"):
            top = _opt(_seq(self.kw("TOP"), _alt(Ref("INTEGER"), self.parens(Ref("INTEGER")))))
        value_item = self.rule("value_item", _seq(self.r("expr"), _opt(self.r("alias"))))
        item = self.rule(
            "select_item",
            _alt(self.p("*"), _seq(self.r("ident"), self.p("."), self.p("*")), value_item),
        )
        self.rule("alias", _alt(_seq(self.kw("AS"), self.r("ident")), self.r("column_alias")))
        # ``*`` needs a FROM: ``SELECT * EXCEPT ...`` is a column exclusion in some dialects.
        items_from = _seq(self.sep(item), self.kw("FROM"), self.sep(self.r("table_item")))
        clauses: list[Expr] = [
            _alt(items_from, self.sep(value_item)),
            _opt(_seq(self.kw("WHERE"), self.r("condition"))),
            _opt(_seq(self.kw("GROUP"), self.kw("BY"), self.sep(self.r("grouping")))),
            _opt(_seq(self.kw("HAVING"), self.r("condition"))),
        ]
        if self.has("qualify"):
            clauses.append(_opt(_seq(self.kw("QUALIFY"), self.r("condition"))))
        self.rule(
            "select_core",
            _seq(
                self.kw("SELECT"),
                _opt(self.kw("DISTINCT")),
                top,
                *clauses,
            ),
        )
        self.from_clause()
        order_item = self.rule(
            "order_item",
            _seq(
                self.r("group_item"),
                _opt(_alt(self.kw("ASC"), self.kw("DESC"))),
                _opt(_seq(self.kw("NULLS"), _alt(self.kw("FIRST"), self.kw("LAST"))))
                if self.has("nulls_first") or self.has("nulls_last")
                else Seq(()),
            ),
        )
        self.rule("order_by", _seq(self.kw("ORDER"), self.kw("BY"), self.sep(order_item)))
        # Output-column aliases may be named in GROUP BY and ORDER BY; in schema-aware mode
        # they are not schema columns, so name them here.
        group_item = [self.r("expr")]
        if self.o.schema:
            group_item.append(self.r("ident"))
        self.rule("group_item", _alt(*group_item))
        grouping: list[Expr] = []
        exprs = self.parens(self.sep(self.r("expr")))
        for feature, word in (("rollup", "ROLLUP"), ("cube", "CUBE")):
            if self.has(feature):
                grouping.append(_seq(self.kw(word), exprs))
        if self.has("grouping_sets"):
            group_set = self.parens(_opt(self.sep(self.r("expr"))))
            grouping.append(_seq(self.kw("GROUPING", "SETS"), self.parens(self.sep(group_set))))
        self.rule("grouping", _alt(self.r("group_item"), *grouping))

    def from_clause(self) -> None:
        table_alias: Expr = _alt(_seq(self.kw("AS"), self.r("ident")), self.r("table_alias"))
        if self.has("table_alias_columns"):
            table_alias = _seq(table_alias, _opt(self.parens(self.sep(self.r("ident")))))
        derived_alias = _seq(_opt(self.kw("AS")), self.r("ident"))
        if self.has("table_alias_columns"):
            derived_alias = _seq(derived_alias, _opt(self.parens(self.sep(self.r("ident")))))
        if self.has("derived_no_alias"):
            derived_alias = _opt(derived_alias)
        derived = _seq(self.parens(self.r("query")), derived_alias)
        primary = self.rule(
            "table_primary", _alt(_seq(self.r("table_name"), _opt(table_alias)), derived)
        )
        condition = _alt(_seq(self.kw("ON"), self.r("condition")))
        if self.has("using"):
            condition = _alt(
                condition,
                _seq(self.kw("USING"), self.parens(self.sep(self.r("ident")))),
            )
        outer = _opt(self.kw("OUTER"))
        sides = [_seq(self.kw("LEFT"), outer)]
        if self.has("right_join"):
            sides.append(_seq(self.kw("RIGHT"), outer))
        if self.has("full_join"):
            sides.append(_seq(self.kw("FULL"), outer))
        joins: list[Expr] = [
            _seq(_opt(self.kw("INNER")), self.kw("JOIN"), primary, _opt(condition)),
            _seq(_alt(*sides), self.kw("JOIN"), primary, condition),
        ]
        if self.has("cross_join"):
            joins.append(_seq(self.kw("CROSS"), self.kw("JOIN"), primary))
        if self.has("natural_join"):
            joins.append(_seq(self.kw("NATURAL"), _opt(_alt(*sides)), self.kw("JOIN"), primary))
        join = self.rule("join", _alt(*joins))
        self.rule("table_item", _seq(primary, _star(join)))

    # -- other statements (opt-in) ---------------------------------------------------------
    def column_list(self) -> Expr:
        return self.parens(self.sep(self.r("column_name")))

    def insert(self) -> Ref:
        values = _seq(self.kw("VALUES"), self.sep(self.parens(self.sep(self.r("expr")))))
        source = _alt(values, self.r("query")) if "select" in self.o.statements else values
        return self.rule(
            "insert",
            _seq(
                self.kw("INSERT"),
                self.kw("INTO"),
                self.r("table_name"),
                _opt(self.column_list()),
                source,
            ),
        )

    def update(self) -> Ref:
        assignment = _seq(self.r("column_name"), self.p("="), self.r("expr"))
        return self.rule(
            "update",
            _seq(
                self.kw("UPDATE"),
                self.r("table_name"),
                self.kw("SET"),
                self.sep(assignment),
                _opt(_seq(self.kw("WHERE"), self.r("condition"))),
            ),
        )

    def delete(self) -> Ref:
        return self.rule(
            "delete",
            _seq(
                self.kw("DELETE"),
                self.kw("FROM"),
                self.r("table_name"),
                _opt(_seq(self.kw("WHERE"), self.r("condition"))),
            ),
        )

    def create_table(self) -> Ref:
        constraint = _alt(
            self.kw("NOT", "NULL"),
            self.kw("PRIMARY", "KEY"),
            self.kw("UNIQUE"),
            _seq(self.kw("DEFAULT"), self.r("literal")),
        )
        column = _seq(self.r("ident"), self.r("data_type"), _star(constraint))
        return self.rule(
            "create_table",
            _seq(
                self.kw("CREATE"),
                self.kw("TABLE"),
                _opt(self.kw("IF", "NOT", "EXISTS")),
                self.r("ident"),
                self.parens(self.sep(column)),
            ),
        )

    # -- expressions -----------------------------------------------------------------------
    def expressions(self) -> None:
        r, kw, p = self.r, self.kw, self.p
        if self.has("bare_condition"):
            self.rule("expr", _seq(r("conjunction"), _star(_seq(kw("OR"), r("conjunction")))))
            self.rule("condition", r("expr"))
        else:
            # Where sqlglot writes a bare value used as a condition as ``x <> 0`` and a
            # predicate used as a value as a CASE (T-SQL has no boolean values), values and
            # conditions are apart: conditions are made of predicates, values have none.
            self.rule("expr", r("bitwise"))
            self.rule(
                "condition",
                _seq(r("bool_and"), _star(_seq(kw("OR"), r("bool_and")))),
            )
            self.rule("bool_and", _seq(r("bool_not"), _star(_seq(kw("AND"), r("bool_not")))))
            self.rule("bool_not", _alt(_seq(kw("NOT"), r("bool_not")), r("bool_atom")))
        self.rule("conjunction", _seq(r("negation"), _star(_seq(kw("AND"), r("negation")))))
        self.rule("negation", _alt(_seq(kw("NOT"), r("negation")), r("equality")))
        eq_ops = [p("="), p("<>"), p("!=")]
        if self.has("nullsafe_eq"):
            eq_ops.append(p("<=>"))
        # sqlglot reads ``x NOT IN (...)`` as NOT(x IN (...)) and writes it back as
        # ``NOT x IN (...)``, which means something else as an operand: negated predicates
        # stand alone, as a whole condition.
        self.rule(
            "equality",
            _alt(
                _seq(r("comparison"), _star(_seq(_alt(*eq_ops), r("comparison")))),
                r("negated"),
            ),
        )
        cmp_ops = _alt(p("<"), p(">"), p("<="), p(">="))
        self.rule("comparison", _seq(r("predicate"), _star(_seq(cmp_ops, r("predicate")))))
        if not self.has("bare_condition"):
            self.rule(
                "bool_atom",
                _alt(
                    _seq(r("comparison"), Repeat(_seq(_alt(*eq_ops), r("comparison")), 1)),
                    _seq(r("predicate"), Repeat(_seq(cmp_ops, r("predicate")), 1)),
                    _seq(r("bitwise"), Repeat(r("predicate_suffix"), 1)),
                    r("negated"),
                    _seq(kw("EXISTS"), self.parens(r("query"))),
                    self.parens(r("condition")),
                ),
            )
        like_ops = [kw("LIKE")]
        if self.has("ilike"):
            like_ops.append(kw("ILIKE"))
        if self.has("similar_to"):
            like_ops.append(kw("SIMILAR", "TO"))
        escape = _opt(_seq(kw("ESCAPE"), Ref("STRING"))) if self.has("like_escape") else Seq(())
        in_list = self.parens(_alt(r("query"), self.sep(r("expr"))))
        tests: list[Expr] = [kw("NULL")]
        if self.has("is_true"):
            tests += [kw("TRUE"), kw("FALSE")]
        if self.has("distinct_from"):
            tests.append(_seq(kw("DISTINCT"), kw("FROM"), r("bitwise")))
        ranges = [
            _seq(kw("BETWEEN"), r("bitwise"), kw("AND"), r("bitwise")),
            _seq(kw("IN"), in_list),
            _seq(_alt(*like_ops), r("bitwise"), escape),
        ]
        self.rule("predicate_suffix", _alt(*ranges, _seq(kw("IS"), _alt(*tests))))
        self.rule("predicate", _seq(r("bitwise"), _star(r("predicate_suffix"))))
        self.rule(
            "negated",
            _seq(
                r("predicate"),
                _alt(_seq(kw("NOT"), _alt(*ranges)), _seq(kw("IS"), kw("NOT"), _alt(*tests))),
            ),
        )
        bit_ops = [
            p(sym)
            for feature, sym in (
                ("concat", "||"),
                ("bit_and", "&"),
                ("bit_or", "|"),
                ("bit_xor", "^"),
                ("shift", "<<"),
                ("shift", ">>"),
            )
            if self.has(feature)
        ]
        if bit_ops:
            self.rule("bitwise", _seq(r("term"), _star(_seq(_alt(*bit_ops), r("term")))))
        else:
            self.rule("bitwise", r("term"))
        factor_ops = [p("*"), p("/")] + ([p("%")] if self.has("mod_operator") else [])
        self.rule("term", _seq(r("factor"), _star(_seq(_alt(p("+"), p("-")), r("factor")))))
        self.rule(
            "factor",
            _seq(r("unary"), _star(_seq(_alt(*factor_ops), r("unary")))),
        )
        signs = [p("-"), p("+")] + ([p("~")] if self.has("bit_not") else [])
        self.rule("unary", _alt(_seq(_alt(*signs), r("unary")), r("postfix")))
        types = bool(set(self.t.types) - self.o.exclude_types)
        cast_op = (
            self.o.cast_operator if self.o.cast_operator is not None else self.has("cast_operator")
        )
        postfix: list[Expr] = []
        if cast_op and types:
            postfix.append(_seq(p("::"), r("data_type")))
        for feature, sym in (("json_arrow", "->"), ("json_arrow_text", "->>")):
            if self.has(feature):
                postfix.append(_seq(p(sym), r("primary")))
        if postfix:
            self.rule("postfix", _seq(r("primary"), _star(_alt(*postfix))))
        else:
            self.rule("postfix", r("primary"))
        cast_body = self.parens(r("expr"), kw("AS"), r("data_type"))
        primaries: list[Expr] = [r("literal"), r("column_ref")]
        if self.callable_functions() or (self.o.anonymous_calls and self.has("anonymous")):
            primaries.append(r("call"))  # functions=[] (or none the dialect knows): no calls
        primaries += [self.parens(r("expr")), self.parens(r("query"))]
        if types:
            primaries.append(_seq(kw("CAST"), cast_body))
        if self.has("try_cast") and types:
            primaries.append(_seq(kw("TRY_CAST"), cast_body))
        if self.has("exists"):
            primaries.append(_seq(kw("EXISTS"), self.parens(r("query"))))
        if self.has("case"):
            when = _seq(kw("WHEN"), r("condition"), kw("THEN"), r("expr"))
            primaries.append(
                _seq(
                    kw("CASE"),
                    _opt(r("expr")),
                    Repeat(when, 1),
                    _opt(_seq(kw("ELSE"), r("expr"))),
                    kw("END"),
                )
            )
        if self.has("extract") and self.t.extract_units:
            units = _alt(*(kw(u) for u in self.t.extract_units))
            primaries.append(_seq(kw("EXTRACT"), self.parens(units, kw("FROM"), r("expr"))))
        if self.has("interval") and self.t.interval_units:
            units = _alt(*(kw(u) for u in self.t.interval_units))
            amount = [Ref("STRING")]
            if self.has("interval_number"):
                amount.append(Ref("INTEGER"))
            primaries.append(_seq(kw("INTERVAL"), _alt(*amount), units))
        if self.has("interval_bare"):
            primaries.append(_seq(kw("INTERVAL"), Ref("STRING")))
        self.rule("primary", _alt(*primaries))
        literals: list[Expr] = [Ref("INTEGER"), Ref("DECIMAL"), Ref("STRING"), kw("NULL")]
        if self.has("booleans"):
            literals += [kw("TRUE"), kw("FALSE")]
        if self.has("date_literal"):
            literals.append(_seq(kw("DATE"), Ref("STRING")))
        if self.has("timestamp_literal"):
            literals.append(_seq(kw("TIMESTAMP"), Ref("STRING")))
        self.rule("literal", _alt(*literals))
        self.calls()
        self.window()

    def callable_functions(self) -> tuple[Function, ...]:
        """The dialect's functions that ``functions=`` (when given) names."""
        funcs = self.t.functions
        if self.o.functions is not None:
            funcs = tuple(f for f in funcs if f.name in self.o.functions)
        return tuple(funcs)

    def calls(self) -> None:
        funcs = self.callable_functions()
        for func in funcs:
            self.lex.function(func.name, func.arity, func.aggregate)
        # COUNT(*) is COUNT's own syntax: COUNT gets its own terminal, not its arity group's.
        self.filter_clause = (
            _opt(_seq(self.kw("FILTER"), self.parens(self.kw("WHERE"), self.r("condition"))))
            if self.has("filter")
            else Seq(())
        )
        self.distinct = self.kw("DISTINCT")
        self.count_star = self.has("count_star") and any(f.name == "COUNT" for f in funcs)
        if self.count_star:
            self.kw("COUNT")
        for word, params in self.t.types.items():
            if word not in self.o.exclude_types:
                self.lex.data_type(word, params)
        # Words of the fixed syntax that are also functions keep their own terminal; the
        # lexicon knows their arity as well.

    def window(self) -> None:
        r, kw = self.r, self.kw
        spec: list[Expr] = [
            _opt(_seq(kw("PARTITION"), kw("BY"), self.sep(r("expr")))),
            _opt(r("order_by")),
        ]
        if self.has("window_frame"):
            bound = _alt(
                kw("UNBOUNDED", "PRECEDING"),
                kw("UNBOUNDED", "FOLLOWING"),
                kw("CURRENT", "ROW"),
                _seq(Ref("INTEGER"), kw("PRECEDING")),
                _seq(Ref("INTEGER"), kw("FOLLOWING")),
            )
            frame = _seq(
                _alt(kw("ROWS"), kw("RANGE")),
                _alt(bound, _seq(kw("BETWEEN"), bound, kw("AND"), bound)),
            )
            spec.append(_opt(frame))
        self.rule("over", _seq(kw("OVER"), self.parens(*spec)))

    def role_rules(self, classes: dict[str, list[str]], by_role: dict[Role, list[str]]) -> None:
        for name, terminals in classes.items():
            if name.startswith("schema_"):
                continue
            self.rule(name, _alt(*(Ref(t) for t in self._with_quoted(terminals))))
        args_of: dict[tuple[object, bool], list[str]] = {}
        for role, terminals in by_role.items():
            if role.function is not None:
                args_of.setdefault((role.function, role.aggregate), []).extend(terminals)
        calls: list[Expr] = []
        filter_clause = self.filter_clause
        over = _opt(self.r("over"))
        for (arity, aggregate), terminals in sorted(args_of.items(), key=lambda kv: str(kv[0])):
            assert arity is not None
            names = _alt(*(Ref(t) for t in sorted(terminals)))
            args = self._args(arity, aggregate)
            tail: list[Expr] = [filter_clause, over] if aggregate else [over]
            calls.append(_seq(names, self.p("("), args, self.p(")"), *tail))
        if self.count_star:
            calls.append(
                _seq(
                    Ref(self.lex.keyword_name("COUNT")),
                    self.parens(self.p("*")),
                    filter_clause,
                    over,
                )
            )
        if self.o.anonymous_calls and self.has("anonymous"):
            # sqlglot parses any other name(args) as an anonymous function (a UDF, or one it
            # does not model): only with functions="any", since a small model otherwise
            # invents functions the database does not have.
            args = _opt(self.sep(self.r("expr")))
            calls.append(_seq(Ref("IDENT"), self.p("("), args, self.p(")"), over))
        if calls:
            self.rule("call", _alt(*calls))
        types: dict[tuple[int, ...], list[str]] = {}
        for role, terminals in by_role.items():
            if role.type_params:
                types.setdefault(role.type_params, []).extend(terminals)
        data_types = []
        number = Ref("INTEGER")
        for params, terminals in sorted(types.items()):
            names = _alt(*(Ref(t) for t in sorted(terminals)))
            suffixes: list[Expr] = []
            if 0 in params:
                suffixes.append(Seq(()))
            if 1 in params:
                suffixes.append(self.parens(number))
            if 2 in params:
                suffixes.append(self.parens(number, self.p(","), number))
            data_types.append(_seq(names, _alt(*suffixes)))
        if data_types:
            self.rule("data_type", _alt(*data_types))
        if self.o.schema:
            self.rule(
                "schema_table",
                _alt(*(Ref(t) for t in classes["schema_table"]), *self._quoted_names("tables")),
            )
            self.rule(
                "schema_column",
                _alt(*(Ref(t) for t in classes["schema_column"]), *self._quoted_names("columns")),
            )

    def _args(self, arity: object, aggregate: bool) -> Expr:
        from typedgen.frontends.sql.tables import Arity

        assert isinstance(arity, Arity)
        expr = self.r("expr")
        first = _seq(self.distinct, expr) if aggregate else None
        forms: list[Expr] = [self._n_args(n, expr, first) for n in arity.counts]
        if arity.rest is not None:
            forms.append(
                _seq(self._n_args(arity.rest, expr, first), _star(_seq(self.p(","), expr)))
            )
        return _alt(*forms)

    def _n_args(self, n: int, expr: Expr, first: Expr | None) -> Expr:
        if n == 0:
            return Seq(())
        head = _alt(expr, first) if first is not None and n == 1 else expr
        return _seq(head, *(_seq(self.p(","), expr) for _ in range(n - 1)))

    def _with_quoted(self, terminals: Iterable[str]) -> list[str]:
        # A quoted schema name lexes as its own terminal (it outranks QIDENT), so wherever a
        # quoted name may go, the schema's quoted names may go too.
        if self.o.schema is not None:
            self._quoted_names("tables")
            self._quoted_names("columns")
        quoted = ["QIDENT"] if self.t.identifier_quotes else []
        return [*terminals, *quoted, *self.quoted.values()]

    def _quoted_names(self, kind: str) -> list[Expr]:
        assert self.o.schema is not None
        names: Sequence[str] = getattr(self.o.schema, kind)
        out: list[Expr] = []
        for name in names:
            for open_, close in self.t.identifier_quotes:
                if close in name or "\n" in name:
                    continue
                out.append(Ref(self._quoted_terminal(f"{open_}{name}{close}")))
        return out

    def _quoted_terminal(self, text: str) -> str:
        name = self.quoted.get(text)
        if name is None:
            name = self.quoted[text] = f"QNAME_{len(self.quoted)}"
        return name

    # -- names -----------------------------------------------------------------------------
    def names(self) -> None:
        r = self.r
        if self.o.schema is None:
            self.rule("table_name", self.sep(r("ident"), "."))
            self.rule("column_name", r("ident"))
            self.rule(
                "column_ref",
                _seq(r("ident"), Repeat(_seq(self.p("."), r("ident")), 0, 2)),
            )
            return
        for table in self.o.schema.tables:
            if _is_word(table):
                self.lex.schema_name(table, table=True)
        for column in self.o.schema.columns:
            if _is_word(column):
                self.lex.schema_name(column, column=True)
        table_names: list[Expr] = [r("schema_table")]
        if self.o.ctes_in_schema:
            table_names.append(r("ident"))
        self.rule("table_name", _alt(*table_names))
        self.rule("column_name", r("schema_column"))
        ref: Expr = _seq(Repeat(_seq(r("ident"), self.p(".")), 0, 2), r("schema_column"))
        if self.o.quoted_values and self.t.identifier_quotes:
            ref = _alt(ref, Ref("QIDENT"))
        self.rule("column_ref", ref)

    # -- terminals -------------------------------------------------------------------------
    def _terminal(self, name: str, body: Expr, priority: int = 1) -> Rule:
        return basic_terminal(name, body, self.origin.at(name), priority)

    def fixed_terminals(self) -> list[Rule]:
        out = [self._terminal(_PUNCT[s], Lit.text(s)) for s in sorted(self.punct_used)]
        digits = Repeat(_DIGIT, 1)
        exponent = _seq(CharClass.of("eE"), _opt(CharClass.of("+-")), digits)
        # Integers that fit in 64 bits (LIMIT, TOP, type sizes take only these); other numbers
        # are DECIMAL. The two never match the same text, so either may come where both may.
        out.append(self._terminal("INTEGER", Repeat(_DIGIT, 1, _MAX_INT_DIGITS), 2))
        decimal = _alt(
            _seq(digits, Lit.text("."), digits, _opt(exponent)),
            _seq(digits, exponent),
            Repeat(_DIGIT, _MAX_INT_DIGITS + 1),
        )
        out.append(self._terminal("DECIMAL", decimal, 2))
        out.append(self._terminal("STRING", self._string()))
        # Whitespace runs are bounded (length, line breaks); the reserved terminal below makes
        # a longer run refused rather than split into two runs.
        blank = CharClass.of(" \t\r")
        runs = _seq(_star(blank), Repeat(_seq(Lit.text("\n"), _star(blank)), 0, 3))
        bounded = Intersect((Repeat(CharClass.of(" \t\r\n"), 1, _MAX_WS), runs))
        out.append(self._terminal("WS", bounded))
        quoted = self._quoted_identifier()
        if quoted is not None:
            out.append(self._terminal("QIDENT", quoted))
        for text, name in self.quoted.items():
            out.append(self._terminal(name, Lit.text(text), 2))
        return out

    def _string(self) -> Expr:
        forms: list[Expr] = []
        id_quotes = {q for pair in self.t.identifier_quotes for q in pair}
        for q in self.t.string_quotes:
            if q in id_quotes:
                continue  # read as an identifier delimiter (T-SQL's "x")
            excluded = q + _CONTROLS
            parts: list[Expr] = []
            if self.t.backslash_escapes:
                excluded += "\\"
                parts.append(_seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)))
            parts.append(CharClass.of(excluded, negated=True))
            parts.append(Lit.text(q + q))
            forms.append(_seq(Lit.text(q), _star(_alt(*parts)), Lit.text(q)))
        return _alt(*forms)

    def _quoted_identifier(self) -> Expr | None:
        forms: list[Expr] = []
        for open_, close in self.t.identifier_quotes:
            body = Repeat(CharClass.of(close + open_ + "\\" + _CONTROLS + "\t", negated=True), 1)
            forms.append(_seq(Lit.text(open_), body, Lit.text(close)))
        return _alt(*forms) if forms else None

    def reserved_terminals(self) -> list[Rule]:
        out = []
        used = set(self.punct_used)
        for i, opener in enumerate(sorted(set(self.t.comments))):
            body = _seq(Lit.text(opener), _star(CharClass.of("", negated=True)))
            out.append(self._terminal(f"RESERVED_COMMENT_{i}", body, 3))
        symbols = sorted(
            w for w in self.t.symbols if len(w) >= 2 and w not in used and w not in self.t.comments
        )
        if symbols:
            body = _alt(*(Lit.text(s) for s in symbols))
            out.append(self._terminal("RESERVED_SYMBOL", body, 3))
        # Runs of whitespace are bounded: a longer run, or a fourth line break, lexes as this
        # reserved terminal (it outranks WS) and is refused, so the model cannot pad forever.
        blank = CharClass.of(" \t\r")
        newline = _seq(_star(blank), Lit.text("\n"))
        long_ws = _alt(
            Repeat(CharClass.of(" \t\r\n"), _MAX_WS + 1),
            _seq(newline, newline, newline, newline, _star(CharClass.of(" \t\r\n"))),
        )
        out.append(self._terminal("RESERVED_WHITESPACE", long_ws, 3))
        word_after_digits = _seq(
            Repeat(_DIGIT, 1),
            _opt(_seq(Lit.text("."), Repeat(_DIGIT, 1))),
            _WORDISH,
            _star(_alt(_WORDISH, _DIGIT)),
        )
        out.append(self._terminal("RESERVED_NUMBER_WORD", word_after_digits, 0))
        return out


def _is_word(name: str) -> bool:
    return (
        bool(name)
        and name.isascii()
        and (name[0].isalpha() or name[0] == "_")
        and all(c.isalnum() or c == "_" for c in name)
    )


def build_sql_grammar(
    tables: DialectTables, options: GrammarOptions, *, source: str | None = None
) -> Grammar:
    """The IR grammar of one dialect under the caller's options."""
    return _Builder(tables, options, source or tables.name).build()

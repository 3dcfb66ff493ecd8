"""One warehouse's syntax: the constructs of :mod:`.warehouse_probes`, each where its probe
round-trips (DuckDB, BigQuery, Snowflake, ClickHouse, Trino).

The other clause families call the hooks here at the place each construct goes (a join, a
predicate, a table suffix, a call); each returns nothing where the dialect lacks it.
"""

from __future__ import annotations

from typedgen.frontends.sql.bigquery_ml import MlTableRules
from typedgen.frontends.sql.bigquery_syntax import BigQuerySyntaxRules
from typedgen.frontends.sql.date_parts import DatePartRules
from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import alt, empty, opt, seq, star
from typedgen.frontends.sql.semistructured import SemistructuredRules
from typedgen.frontends.sql.snowflake_syntax import SnowflakeRules
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, CharClass, Expr, Lit, Ref, Repeat

__all__ = ["WarehouseRules"]

_PARAMETRIC = "PARAM_AGG"
"""The terminal of ClickHouse's parametric aggregates (case-sensitive)."""
_STAGE = "STAGE_PATH"
"""The terminal of Snowflake's stage references (``@ns.stage/path/file.csv``)."""


def _stage_path() -> Expr:
    """``@~`` or ``@name[.name...]`` (a name: a word, a quoted name, ``%table``), then
    ``/``-separated parts: sqlglot reads every token glued to the ``@`` as the path (stopping
    at a comma or a parenthesis); ``-`` (a ``--`` comment) and a trailing ``/`` (``//``) are
    left out, so that no comment opener is ever part of a path."""
    letters = ((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_")))
    head = CharClass(letters)
    tail = CharClass((*letters, (ord("0"), ord("9"))))
    word = seq(head, star(tail))
    quoted = seq(Lit.text('"'), Repeat(CharClass.of('"\n\r', negated=True), 1), Lit.text('"'))
    segment = alt(word, quoted, seq(Lit.text("%"), word))
    name = seq(segment, star(seq(Lit.text("."), segment)))
    part = Repeat(CharClass((*letters, (ord("0"), ord("9")), (ord("."), ord(".")))), 1)
    path = star(seq(Lit.text("/"), part))
    return seq(Lit.text("@"), alt(Lit.text("~"), name), path)


class WarehouseRules(
    SemistructuredRules, DatePartRules, SnowflakeRules, MlTableRules, BigQuerySyntaxRules
):
    """Hooks for the constructs one warehouse has."""

    # -- words -----------------------------------------------------------------------------
    def warehouse_words(self) -> None:
        """Keywords the calls below need, registered before the lexicon is built."""
        for name in self.parametric_known():
            self.keyword(name)
        self.inside_calls()  # (registers the words of those calls)
        self.column_aggregates()
        self.duckdb_calls()
        self.lambdas()
        for word in self.type_constructors():
            self.keyword(word)
        for word in self.inner_types():
            self.type_word(word)
        for word in self.literal_types():
            self.type_word(word)

    def _offered(self, name: str) -> bool:
        """Whether a function may be called: ``functions=`` names it (or is not given), and
        some call is offered at all."""
        if not self.offers(name):
            return False
        return bool(self.callable_functions()) or (
            self.options.anonymous_calls and self.has("anonymous")
        )

    def parametric_known(self) -> dict[str, tuple[tuple[int, int], ...]]:
        known = self.tables.warehouse.parametric_known
        return {n: shapes for n, shapes in known.items() if self._offered(n)}

    def aggregate_clauses(self) -> dict[str, tuple[str, ...]]:
        if not self.has("aggregate_clauses"):
            return {}
        inside = self.tables.warehouse.aggregate_clauses
        return {n: c for n, c in inside.items() if self._offered(n)}

    def parametric_names(self) -> tuple[str, ...]:
        """ClickHouse's parametric aggregates the grammar offers, none a word of its own."""
        taken = set(self.lex.words)
        return tuple(
            n
            for n in self.tables.warehouse.parametric
            if n.upper() not in taken and self._offered(n)
        )

    def warehouse_terminals(self, classes: dict[str, list[str]]) -> list[Rule]:
        """The case-sensitive terminal of the parametric aggregates (``quantiles`` is also a
        plain name wherever an identifier is: it joins every class ``IDENT`` is in)."""
        out: list[Rule] = []
        if self.has("stage_reference"):
            out.append(basic_terminal(_STAGE, _stage_path(), self.origin.at(_STAGE), priority=2))
        names = self.parametric_names()
        if not names:
            return out
        for members in classes.values():
            if "IDENT" in members:
                members.append(_PARAMETRIC)
        body = Alt(tuple(Lit.text(n) for n in names), origin=self.origin.at(_PARAMETRIC))
        out.append(basic_terminal(_PARAMETRIC, body, self.origin.at(_PARAMETRIC), priority=2))
        return out

    # -- types -----------------------------------------------------------------------------
    def type_constructors(self) -> dict[str, tuple[int, ...]]:
        """Types of types the caller did not exclude (none where no inner type is left)."""
        if not self.inner_types():
            return {}
        if not self.has("type_constructors"):
            return {}
        made = self.tables.warehouse.type_constructors
        return {w: n for w, n in made.items() if w not in self.options.exclude_types}

    def inner_types(self) -> dict[str, tuple[int, ...]]:
        inner = self.tables.warehouse.inner_types
        if not (self.tables.warehouse.type_constructors and self.has("type_constructors")):
            return {}
        return {w: n for w, n in inner.items() if w not in self.options.exclude_types}

    def type_word(self, word: str) -> Expr:
        """A type name's own terminal (a phrase's words in sequence where it is split)."""
        phrase = self.type_phrases.get(word)
        return phrase[0] if phrase is not None else self.keyword(word)

    def literal_types(self) -> tuple[str, ...]:
        if not self.has("typed_literals"):
            return ()
        # DATE '...' and TIMESTAMP '...' are literals of their own where those probes are on.
        done = {w for w in ("DATE", "TIMESTAMP") if self.has(w.lower() + "_literal")}
        return tuple(
            w
            for w in self.tables.warehouse.typed_literals
            if w not in self.options.exclude_types and w not in done
        )

    def typed_literals(self) -> list[Expr]:
        """``DATETIME '2020-01-01 10:00:00'``, ``JSON '{}'``, ``NUMERIC '2.5'``."""
        return [seq(self.type_word(w), Ref("STRING")) for w in self.literal_types()]

    def warehouse_types(self) -> list[Expr]:
        """``MAP(VARCHAR, INT)``, ``Nullable(DateTime)``, ``Tuple(String, Array(UInt8))``:
        types of the types that round-trip inside them (``inner_type``)."""
        made = self.type_constructors()
        if not made:
            return []
        ref, punct, number = self.ref, self.punct, Ref("INTEGER")
        suffixes = (empty(), self.parens(number), self.parens(number, punct(","), number))
        inner: list[Expr] = [
            seq(self.type_word(word), alt(*(suffixes[n] for n in params)))
            for word, params in sorted(self.inner_types().items())
        ]
        forms: list[Expr] = []
        item = ref("inner_type")
        for word, counts in sorted(made.items()):
            lists = [seq(item, *(seq(punct(","), item) for _ in range(k - 1))) for k in counts]
            if 3 in counts:  # three or more
                lists[-1] = seq(lists[-1], star(seq(punct(","), item)))
            forms.append(seq(self.keyword(word), self.parens(alt(*lists))))
        self.rule("inner_type", alt(*inner, *forms))
        return forms

    # -- calls -----------------------------------------------------------------------------
    def warehouse_calls(self) -> list[Expr]:
        """ClickHouse's ``quantiles(0.5, 0.9)(x)``: parameters, then arguments."""
        out: list[Expr] = []
        ref, punct = self.ref, self.punct
        tail = (self.filter_clause, self.over_clause)

        def items(n: int) -> Expr:
            return seq(ref("expr"), *(seq(punct(","), ref("expr")) for _ in range(n - 1)))

        for name, shapes in sorted(self.parametric_known().items()):
            forms = [seq(self.parens(items(p)), self.parens(items(a))) for p, a in shapes]
            out.append(seq(self.keyword(name), alt(*forms), *tail))
        out += self.inside_calls()
        out += self.column_aggregates()
        out += self.duckdb_calls()
        if self.parametric_names():
            some = self.separated(ref("expr"))
            call = seq(Ref(_PARAMETRIC), self.parens(some), opt(self.parens(some)))
            out.append(seq(call, *tail))
        return out

    def inside_calls(self) -> list[Expr]:
        """BigQuery's ``ARRAY_AGG(DISTINCT x IGNORE NULLS ORDER BY y LIMIT 10)``,
        ``ANY_VALUE(x HAVING MAX y)``: for each aggregate the clauses it was probed with."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        for name, clauses in sorted(self.aggregate_clauses().items()):
            pairs = (("ignore", "IGNORE"), ("respect", "RESPECT"))
            nulls = [kw(word, "NULLS") for clause, word in pairs if clause in clauses]
            limit = seq(kw("LIMIT"), Ref("INTEGER"))
            ends: list[Expr] = []
            if "order_limit" in clauses:
                ends.append(seq(ref("order_by"), limit))
            if "limit" in clauses:
                ends.append(limit)
            having: Expr = empty()
            if "having" in clauses:
                having = opt(seq(kw("HAVING"), alt(kw("MIN"), kw("MAX")), ref("bitwise")))
            args = seq(
                opt(self.distinct),
                ref("expr"),
                opt(alt(*nulls)) if nulls else empty(),
                having,
                opt(alt(*ends)) if ends else empty(),
            )
            out.append(seq(kw(name), self.parens(args), self.filter_clause, self.over_clause))
        return out

    def warehouse_collections(self) -> list[Expr]:
        """DuckDB's ``MAP {'x': 1}``, an empty ``[]``, Snowflake's ``{*}``, ``{t.*}``,
        ``{* EXCLUDE (a)}``."""
        ref, punct, kw = self.ref, self.punct, self.keyword
        out: list[Expr] = []
        if self.has("map_literal"):
            member = seq(ref("expr"), punct(":"), ref("expr"))
            out.append(seq(kw("MAP"), punct("{"), opt(self.separated(member)), punct("}")))
        if self.has("empty_array"):
            out.append(seq(punct("["), punct("]")))
        if self.has("star_braces"):
            qualified = seq(ref("ident"), punct("."), punct("*"))
            excluded = seq(kw("EXCLUDE"), self.parens(self.separated(ref("column_ref"))))
            stars = alt(seq(punct("*"), opt(excluded)), qualified)
            out.append(seq(punct("{"), stars, punct("}")))
        return out

    def prefix_aliases(self) -> list[Expr]:
        """DuckDB's ``SELECT name: value`` (sqlglot writes ``value AS name``)."""
        if not self.has("prefix_alias"):
            return []
        return [seq(self.ref("ident"), self.punct(":"), self.ref("expr"))]

    def warehouse_limits(self) -> list[Expr]:
        """DuckDB's ``LIMIT 10 PERCENT`` / ``LIMIT 10%`` [OFFSET n]."""
        kw = self.keyword
        units: list[Expr] = []
        if self.has("limit_percent"):
            units.append(kw("PERCENT"))
        if self.has("limit_percent_sign"):
            units.append(self.punct("%"))
        if not units:
            return []
        number = alt(Ref("INTEGER"), Ref("DECIMAL"))
        offset = opt(seq(kw("OFFSET"), Ref("INTEGER")))
        return [seq(kw("LIMIT"), number, alt(*units), offset)]

    def sample_suffix(self) -> list[Expr]:
        """Snowflake's sample after an alias, a subquery or a PIVOT: ``t AS x TABLESAMPLE
        BERNOULLI (5) SEED (1)`` (and ``SAMPLE BLOCK (5) REPEATABLE (1)``, read as the same)."""
        if not self.has("sample_suffix"):
            return []
        kw = self.keyword
        read = self.has("sample_read")
        words = [kw("TABLESAMPLE"), *([kw("SAMPLE")] if read else [])]
        methods = [kw(m) for m in ("BERNOULLI", "SYSTEM", *(("ROW", "BLOCK") if read else ()))]
        number = alt(Ref("INTEGER"), Ref("DECIMAL"))
        seeds = [kw("SEED"), *([kw("REPEATABLE")] if read else [])]
        size = self.parens(number, opt(kw("ROWS"))) if read else self.parens(number)
        seed = opt(seq(alt(*seeds), self.parens(Ref("INTEGER"))))
        return [opt(seq(alt(*words), opt(alt(*methods)), size, seed))]

    def lambdas(self) -> list[Expr]:
        """DuckDB's ``LAMBDA x, y : x + y``, as a call's argument only (sqlglot reads it
        nowhere else)."""
        if not self.has("lambda_keyword"):
            return []
        ref = self.ref
        params = self.separated(ref("ident"))
        return [seq(self.keyword("LAMBDA"), params, self.punct(":"), ref("expr"))]

    def warehouse_placeholders(self) -> list[Expr]:
        """Snowflake's and DuckDB's ``$name`` variables, Snowflake's ``:1``."""
        out: list[Expr] = []
        if self.has("dollar_variable"):
            self.params_used.add("DOLLAR_NAME")
            out.append(Ref("DOLLAR_NAME"))
        if self.has("colon_number"):
            out.append(seq(self.punct(":"), Ref("INTEGER")))
        return out

    def warehouse_set_ops(self) -> list[Expr]:
        """``UNION ALL BY NAME [ON (a)]``, ``UNION ALL [STRICT] CORRESPONDING [BY (a)]``,
        ``FULL [OUTER] UNION ALL ...`` where each was probed."""
        kw, ref = self.keyword, self.ref
        columns = self.parens(self.separated(ref("ident")))
        mods: list[Expr] = []
        if self.has("union_by_name"):
            mods.append(seq(kw("BY", "NAME"), opt(seq(kw("ON"), columns))))
        if self.has("union_corresponding"):
            mods.append(seq(opt(kw("STRICT")), kw("CORRESPONDING"), opt(seq(kw("BY"), columns))))
        if not mods:
            return []
        out: list[Expr] = []
        for op in ("UNION", "INTERSECT", "EXCEPT"):
            words = [
                kw(word) for word in ("ALL", "DISTINCT") if self.has(f"{op.lower()}_{word.lower()}")
            ]
            if not words:
                continue
            out.append(seq(kw(op), alt(*words), alt(*mods)))
            if self.has("union_side"):
                sides = alt(
                    seq(kw("FULL"), opt(kw("OUTER"))),
                    seq(kw("LEFT"), opt(kw("OUTER"))),
                    kw("INNER"),
                )
                out.append(seq(sides, kw(op), alt(*words), opt(alt(*mods))))
        if self.has("union_by_name_bare"):
            out.append(seq(kw("UNION"), kw("BY", "NAME"), opt(seq(kw("ON"), columns))))
        return out

    def pivot_in_lists(self) -> list[Expr]:
        """Snowflake's ``PIVOT(... FOR b IN (SELECT ...))`` and ``IN (ANY [ORDER BY ...])``."""
        out: list[Expr] = []
        if self.has("pivot_in_query"):
            out.append(self.parens(self.ref("query")))
        if self.has("pivot_in_any"):
            out.append(self.parens(self.keyword("ANY"), opt(self.ref("order_by"))))
        return out

    def select_as(self) -> list[Expr]:
        """BigQuery's ``SELECT [DISTINCT] AS STRUCT ...`` and ``SELECT AS VALUE ...``."""
        kinds = [
            self.keyword("AS", word)
            for feature, word in (("select_as_struct", "STRUCT"), ("select_as_value", "VALUE"))
            if self.has(feature)
        ]
        return [opt(alt(*kinds))] if kinds else []

    # -- FROM ------------------------------------------------------------------------------
    def warehouse_joins(self, primary: Expr, condition: Expr) -> list[Expr]:
        """ClickHouse's ``[GLOBAL] [side] ANY|ALL|ASOF|SEMI|ANTI JOIN`` (and the strictness
        before the side, which sqlglot reads as the same join)."""
        kw = self.keyword
        out: list[Expr] = []
        for words, with_on, bare in self.tables.warehouse.join_phrases:
            joined = seq(kw(*words), kw("JOIN"), primary)
            # An outer join takes a condition, as the other joins of the grammar do.
            bare = bare and not {"LEFT", "RIGHT", "FULL"} & set(words)
            if with_on and bare:
                out.append(seq(joined, opt(condition)))
            elif with_on:
                out.append(seq(joined, condition))
            elif bare:
                out.append(joined)
        if self.has("asof_match"):
            # Snowflake: ASOF JOIN y MATCH_CONDITION (x.a > y.a) [ON ...]
            match = seq(kw("MATCH_CONDITION"), self.parens(self.ref("condition")))
            out.append(seq(kw("ASOF", "JOIN"), primary, match, opt(condition)))
        if self.has("directed_join"):
            out.append(seq(kw("INNER", "DIRECTED", "JOIN"), primary, opt(condition)))
            out.append(seq(kw("CROSS", "DIRECTED", "JOIN"), primary))
        return out

    def warehouse_table_suffix(self) -> list[Expr]:
        """ClickHouse's ``t AS x FINAL SAMPLE 1 / 10 OFFSET 1 / 2`` after a table."""
        kw = self.keyword
        out: list[Expr] = self.sample_suffix()
        if self.has("final"):
            out.append(opt(kw("FINAL")))
        if self.has("sample_ratio"):
            number = alt(Ref("INTEGER"), Ref("DECIMAL"))
            ratio = seq(number, opt(seq(self.punct("/"), number)))
            out.append(opt(seq(kw("SAMPLE"), ratio, opt(seq(kw("OFFSET"), ratio)))))
        return out

    def warehouse_primaries(self, name_alias: Expr, table_alias: Expr) -> list[Expr]:
        """ClickHouse's parametrised views ``v(x = 1)`` and ``VALUES ((1, 'a'), (2, 'b'))``;
        Snowflake's stages ``@ns.stage/path (PATTERN => 'p') AS t(a)`` and ``'@stage'``."""
        kw, ref, punct = self.keyword, self.ref, self.punct
        out: list[Expr] = []
        places: list[Expr] = []
        if self.has("stage_reference"):
            places.append(Ref(_STAGE))
        if self.has("string_table"):
            places.append(Ref("STRING"))
        if places:
            value = seq(punct("=>"), Ref("STRING"))
            formats = seq(kw("FILE_FORMAT"), punct("=>"), alt(Ref("STRING"), ref("table_name")))
            option = alt(formats, seq(kw("PATTERN"), value))
            options = opt(self.parens(self.separated(option)))
            out.append(seq(alt(*places), options, opt(table_alias)))
        if self.has("view_parameters"):
            param = seq(ref("ident"), punct("="), ref("expr"))
            args = self.parens(self.separated(param))
            suffix = self.warehouse_table_suffix()
            out.append(seq(ref("table_name"), args, opt(name_alias), *suffix))
        if self.has("values_rows"):
            several = Repeat(seq(punct(","), ref("expr")), 1)
            row = alt(ref("expr"), self.parens(ref("expr"), several))
            out.append(seq(kw("VALUES"), self.parens(self.separated(row)), opt(name_alias)))
        return out

    def prewhere(self) -> list[Expr]:
        """ClickHouse's ``PREWHERE`` condition, between FROM and WHERE."""
        if not self.has("prewhere"):
            return []
        return [opt(seq(self.keyword("PREWHERE"), self.ref("condition")))]

    def warehouse_ctes(self) -> list[Expr]:
        """ClickHouse's ``WITH 1 AS x`` / ``WITH (SELECT ...) AS x``: a named value."""
        if not self.has("cte_expression"):
            return []
        return [seq(self.ref("expr"), self.keyword("AS"), self.ref("ident"))]

    # -- expressions -----------------------------------------------------------------------
    def interval_amounts(self) -> list[Expr]:
        """``INTERVAL t.days DAY``, ``INTERVAL (x + 1) DAY``, ``INTERVAL 1 DAY``."""
        out: list[Expr] = []
        if self.has("interval_paren"):
            out.append(self.parens(self.ref("expr")))
        if self.has("interval_number_read") and not self.has("interval_number"):
            out.append(Ref("INTEGER"))
        return out

    def query_parameters(self) -> list[Expr]:
        """ClickHouse's ``{name: Type}`` (with ``placeholders=True``)."""
        if not (self.options.placeholders and self.has("query_parameter")):
            return []
        if not set(self.tables.types) - self.options.exclude_types:
            return []
        punct = self.punct
        return [seq(punct("{"), Ref("IDENT"), punct(":"), self.ref("data_type"), punct("}"))]

    # -- predicates --------------------------------------------------------------------------
    def warehouse_predicates(self, in_list: Expr) -> list[tuple[str, Expr]]:
        """ClickHouse's ``x GLOBAL [NOT] IN (...)``."""
        kw = self.keyword
        out: list[tuple[str, Expr]] = []
        if self.has("global_in"):
            out.append(("GLOBAL", seq(kw("GLOBAL", "IN"), in_list)))
        if self.has("global_not_in"):
            out.append(("GLOBAL", seq(kw("GLOBAL", "NOT", "IN"), in_list)))
        return out

    def warehouse_star_modifiers(self) -> list[Expr]:
        """ClickHouse's ``* APPLY(sum) APPLY(toString)``, Snowflake's ``* RENAME (a AS b)``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("star_rename"):
            renamed = seq(ref("column_ref"), kw("AS"), ref("ident"))
            out.append(seq(kw("RENAME"), self.parens(self.separated(renamed))))
        if self.has("star_apply"):
            out.append(Repeat(seq(kw("APPLY"), self.parens(ref("apply_name"))), 1))
        return out

    def order_fill(self) -> list[Expr]:
        """ClickHouse's ``ORDER BY a WITH FILL [FROM x] [TO y] [STEP z]``."""
        if not self.has("with_fill"):
            return []
        kw, ref = self.keyword, self.ref
        bounds = [opt(seq(kw(word), ref("bitwise"))) for word in ("FROM", "TO", "STEP")]
        if self.has("interpolate"):
            column = seq(ref("ident"), opt(seq(kw("AS"), ref("expr"))))
            bounds.append(opt(seq(kw("INTERPOLATE"), self.parens(self.separated(column)))))
        return [opt(seq(kw("WITH", "FILL"), *bounds))]

    def warehouse_in_lists(self) -> list[Expr]:
        """ClickHouse's ``x IN ['a', 'b']`` (sqlglot writes ``IN ('a', 'b')``), BigQuery's
        ``x IN UNNEST(a)``."""
        punct = self.punct
        out: list[Expr] = []
        if self.has("in_array_read"):
            out.append(seq(punct("["), self.separated(self.ref("expr")), punct("]")))
        if self.has("in_unnest"):
            out.append(seq(self.keyword("UNNEST"), self.parens(self.ref("expr"))))
        return out

"""Expressions by sqlglot's precedence levels, from OR down to primaries and literals.

The levels (disjunction, conjunction, NOT, equality, comparison, range predicates,
bitwise/concatenation, term, factor, unary, postfix) are sqlglot's, so the tree the grammar
describes is the tree sqlglot builds.
"""

from __future__ import annotations

from typedgen.frontends.sql.postgres_mysql import PgMysqlRules
from typedgen.frontends.sql.rules import alt, empty, opt, seq, star
from typedgen.frontends.sql.warehouse import WarehouseRules
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["ExpressionRules"]


class ExpressionRules(WarehouseRules, PgMysqlRules):
    """Conditions, operators, primaries and literals."""

    def expressions(self) -> None:
        ref, kw, punct = self.ref, self.keyword, self.punct
        if self.has("bare_condition"):
            # MySQL's XOR binds between OR and AND: the same texts as another OR.
            words = [kw("OR"), *([kw("XOR")] if self.has("xor") else [])]
            if self.has("or_symbol"):  # MySQL's a || b (written back as OR)
                words.append(punct("||"))
            ors = words[0] if len(words) == 1 else alt(*words)
            self.rule("expr", seq(ref("conjunction"), star(seq(ors, ref("conjunction")))))
            self.rule("condition", ref("expr"))
        else:
            # Where sqlglot writes a bare value used as a condition as ``x <> 0`` and a
            # predicate used as a value as a CASE (T-SQL has no boolean values), values and
            # conditions are apart: conditions are made of predicates, values have none.
            self.rule("expr", ref("bitwise"))
            self.rule("condition", seq(ref("bool_and"), star(seq(kw("OR"), ref("bool_and")))))
            self.rule("bool_and", seq(ref("bool_not"), star(seq(kw("AND"), ref("bool_not")))))
            self.rule("bool_not", alt(seq(kw("NOT"), ref("bool_not")), ref("bool_atom")))
        ands = alt(kw("AND"), punct("&&")) if self.has("and_symbol") else kw("AND")
        self.rule("conjunction", seq(ref("negation"), star(seq(ands, ref("negation")))))
        # Where sqlglot writes NOT over an IN or IS predicate with parentheses (ClickHouse:
        # NOT a IN (1) comes back as NOT (a IN (1)), another tree), NOT takes no such operand.
        bare_not = self.has("not_in_bare") and self.has("not_is_bare")
        not_operand = ref("negation") if bare_not else ref("not_operand")
        self.rule(
            "negation",
            alt(seq(kw("NOT"), not_operand), ref("equality"), *self.vendor_conditions()),
        )
        eq_ops = [punct("="), punct("<>"), punct("!=")]
        if self.has("nullsafe_eq"):
            eq_ops.append(punct("<=>"))
        if self.has("caret_neq"):  # Oracle's a ^= b, written back as <>
            eq_ops.append(punct("^="))
        # sqlglot reads ``x NOT IN (...)`` as NOT(x IN (...)) and writes it back as
        # ``NOT x IN (...)``, which means something else as an operand: negated predicates
        # stand alone, as a whole condition.
        cmp_ops = alt(punct("<"), punct(">"), punct("<="), punct(">="))
        # The right operand of a comparison may be ``ALL (SELECT ...)``/``ANY (SELECT ...)``
        # where those round-trip (only there: Spark reads ``1 < ANY (SELECT 1) + 1`` as a
        # lambda).
        quantified = [
            seq(kw(word), self.parens(ref("query")))
            for feature, word in (("all_subquery", "ALL"), ("any_subquery", "ANY"))
            if self.has(feature)
        ]
        if self.has("any_array"):  # PostgreSQL: 1 = ANY (array)
            quantified.append(seq(kw("ANY"), self.parens(ref("expr"))))
        self.rule("operand", alt(ref("predicate"), *quantified))
        self.rule("comparison_rhs", seq(ref("operand"), star(seq(cmp_ops, ref("operand")))))
        # DuckDB's JSON_EXTRACT(c, 'p') = 1 (written (c -> 'p') = 1): such a call stands first
        # in an operator only (operator_head), never bare as an operand.
        head = self.operator_head()
        eq_heads = (
            [] if head is None else [seq(head, Repeat(seq(alt(*eq_ops), ref("comparison_rhs")), 1))]
        )
        cmp_heads = [] if head is None else [seq(head, Repeat(seq(cmp_ops, ref("operand")), 1))]
        self.rule(
            "equality",
            alt(
                seq(ref("comparison"), star(seq(alt(*eq_ops), ref("comparison_rhs")))),
                ref("negated"),
                *eq_heads,
            ),
        )
        self.rule(
            "comparison",
            alt(seq(ref("predicate"), star(seq(cmp_ops, ref("operand")))), *cmp_heads),
        )
        if not self.has("bare_condition"):
            self.rule(
                "bool_atom",
                alt(
                    seq(ref("comparison"), Repeat(seq(alt(*eq_ops), ref("comparison_rhs")), 1)),
                    seq(ref("predicate"), Repeat(seq(cmp_ops, ref("operand")), 1)),
                    seq(ref("bitwise"), ref("predicate_steps")),
                    ref("negated"),
                    seq(kw("EXISTS"), self.parens(ref("query"))),
                    self.parens(ref("condition")),
                ),
            )
        self.predicates()
        if not bare_not:
            # The last operand too: where IS binds below = (ClickHouse), a = 1 IS NULL is an
            # IS over the equality.
            operand_safe = alt(ref("predicate_safe"), *quantified)
            to_cmp = star(seq(cmp_ops, ref("operand")))
            comparison_safe = alt(
                ref("predicate_safe"),
                seq(ref("predicate"), to_cmp, cmp_ops, operand_safe),
            )
            rhs_safe = alt(operand_safe, seq(ref("operand"), to_cmp, cmp_ops, operand_safe))
            to_eq = star(seq(alt(*eq_ops), ref("comparison_rhs")))
            equality_safe = alt(
                seq(ref("comparison"), to_eq, alt(*eq_ops), rhs_safe),
                comparison_safe,
            )
            self.rule("not_operand", alt(seq(kw("NOT"), ref("not_operand")), equality_safe))
        self.operators()
        self.primaries()

    def predicates(self) -> None:
        ref, kw = self.ref, self.keyword
        like_ops = [("LIKE", kw("LIKE"))]
        if self.has("ilike"):
            like_ops.append(("ILIKE", kw("ILIKE")))
        if self.has("similar_to"):
            like_ops.append(("SIMILAR TO", self.phrase("SIMILAR", "TO")))
        escape = opt(seq(kw("ESCAPE"), Ref("STRING"))) if self.has("like_escape") else empty()
        in_list = self.parens(alt(ref("query"), self.separated(ref("expr"))))
        in_list = alt(in_list, *self.warehouse_in_lists())
        tests: list[Expr] = [kw("NULL")]
        if self.has("is_true"):
            tests += [kw("TRUE"), kw("FALSE")]
        if self.has("distinct_from"):
            tests.append(seq(kw("DISTINCT"), kw("FROM"), ref("bitwise")))
        if self.has("is_value") and self.has("is_not_value"):
            tests.append(ref("bitwise"))  # SQLite: a IS [NOT] b, a null-safe equality
        # Each suffix with the word it starts with (see ``range_words`` below).
        ranges: list[tuple[str, Expr]] = [
            ("BETWEEN", seq(kw("BETWEEN"), ref("bitwise"), kw("AND"), ref("bitwise"))),
            ("IN", seq(kw("IN"), in_list)),
            *((w, seq(op, ref("bitwise"), escape)) for w, op in like_ops),
        ]
        for feature, word in (("like_any", "ANY"), ("like_all", "ALL")):
            if self.has(feature):
                any_list = seq(kw(word), self.parens(self.separated(ref("expr"))))
                if self.has(feature + "_escape"):
                    any_list = seq(any_list, escape)  # LIKE ALL ('a', 'b') ESCAPE '#'
                ranges += [(w, seq(op, any_list)) for w, op in like_ops]
        if self.has("match"):
            ranges.append(("MATCH", seq(kw("MATCH"), ref("bitwise"))))
        extra: list[tuple[str, Expr]] = []
        for feature, word in (("regexp", "REGEXP"), ("rlike", "RLIKE"), ("glob", "GLOB")):
            if self.has(feature):
                extra.append((word, seq(kw(word), ref("bitwise"))))
        for feature, word in (("isnull_op", "ISNULL"), ("notnull_op", "NOTNULL")):
            if self.has(feature):
                extra.append((word, kw(word)))
        if self.has("not_null_op"):
            extra.append(("NOT", kw("NOT", "NULL")))
        extra += self.warehouse_predicates(in_list)
        symbols = [("contains_ops", "@>"), ("contains_ops", "<@"), ("overlap_op", "&&")]
        for feature, sym in symbols:
            if self.has(feature):
                extra.append((sym, seq(self.punct(sym), ref("bitwise"))))
        extra += self.vendor_predicates() + self.pg_mysql_predicates()
        suffixes = [*ranges, ("IS", seq(kw("IS"), alt(*tests))), *extra]
        self.rule("predicate_suffix", alt(*(e for _, e in suffixes)))
        # NOT IN and IS NOT only where sqlglot writes NOT over IN and IS bare.
        range_exprs = [e for w, e in ranges if w != "IN" or self.has("not_in_bare")]
        negations = [seq(kw("NOT"), alt(*range_exprs))]
        if self.has("not_is_bare"):
            negations.append(seq(kw("IS"), kw("NOT"), alt(*tests)))
        self.rule("negated_suffix", alt(*negations))
        # A negated range followed by another range predicate is parenthesised by sqlglot's
        # parser (``x NOT IN (1) IS TRUE`` reads as ``(NOT x IN (1)) IS TRUE``), so it may go
        # on before a word of sqlglot's RANGE_PARSERS (or NOT); one that ends the chain is a
        # NOT and stands alone (``negated``).
        chained_words = [(w, e) for w, e in suffixes if w in self.tables.range_words or w == "NOT"]
        self.rule("chained_suffix", alt(*(e for _, e in chained_words)))
        step = alt(
            ref("predicate_suffix"),
            seq(Repeat(ref("negated_suffix"), 1), ref("chained_suffix")),
        )
        self.rule("predicate_steps", Repeat(step, 1))
        predicates: list[Expr] = [seq(ref("bitwise"), opt(ref("predicate_steps")))]
        negated_heads: list[Expr] = []
        head = self.operator_head()
        if head is not None:
            # First in IN, IS, LIKE and ILIKE (not BETWEEN: see tables._operator_heads).
            firsts = [e for w, e in suffixes if w in {"IN", "IS", "LIKE", "ILIKE"}]
            predicates.append(seq(head, alt(*firsts), star(step)))
            nots = [
                e
                for w, e in ranges
                if w in {"LIKE", "ILIKE"} or (w == "IN" and self.has("not_in_bare"))
            ]
            negations_first = [seq(kw("NOT"), alt(*nots))] if nots else []
            if self.has("not_is_bare"):
                negations_first.append(seq(kw("IS"), kw("NOT"), alt(*tests)))
            if negations_first:
                negated_heads.append(seq(head, alt(*negations_first), star(ref("negated_suffix"))))
        self.rule("predicate", alt(*predicates))
        # A predicate whose last step is no IN or IS test (what NOT may take bare above).
        is_tests = {"IN", "IS", "NOT", "ISNULL", "NOTNULL"}
        suffix_other = [e for w, e in suffixes if w not in is_tests]
        chained_other = [e for w, e in chained_words if w not in is_tests]
        last: list[Expr] = []
        if suffix_other:
            last.append(alt(*suffix_other))
        if chained_other:
            last.append(seq(Repeat(ref("negated_suffix"), 1), alt(*chained_other)))
        safe_tail = opt(seq(star(step), alt(*last))) if last else empty()
        self.rule("predicate_safe", seq(ref("bitwise"), safe_tail))
        self.rule(
            "negated",
            alt(seq(ref("predicate"), Repeat(ref("negated_suffix"), 1)), *negated_heads),
        )

    def operators(self) -> None:
        ref, punct = self.ref, self.punct
        bit_ops = [
            punct(sym)
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
        head = self.operator_head()  # JSON_EXTRACT(c, 'p') + 1: first in an operator only
        if bit_ops:
            bit_step = seq(alt(*bit_ops), ref("term"))
            bit_heads = [] if head is None else [seq(head, Repeat(bit_step, 1))]
            self.rule("bitwise", alt(seq(ref("term"), star(bit_step)), *bit_heads))
        else:
            self.rule("bitwise", ref("term"))
        arithmetic: list[Expr] = [punct("*"), punct("/")]
        arithmetic += [punct("%")] if self.has("mod_operator") else []
        factor_ops = [*arithmetic, *self.distance_operators()]
        term_steps: list[Expr] = [seq(alt(punct("+"), punct("-")), ref("factor"))]
        collations: list[Expr] = []
        if self.has("collate") or self.has("collate_quoted"):
            collations.append(ref("ident"))
        if self.has("collate_string"):
            collations.append(Ref("STRING"))
        if collations:
            # sqlglot reads COLLATE at the level of + and - (Parser.TERM).
            term_steps.append(seq(self.keyword("COLLATE"), alt(*collations)))
        term_heads = [] if head is None else [seq(head, Repeat(alt(*term_steps), 1))]
        self.rule("term", alt(seq(ref("factor"), star(alt(*term_steps))), *term_heads))
        first: Expr = ref("unary")
        if self.has("at_time_zone"):
            # sqlglot reads AT TIME ZONE after the first operand of * and / only (a * b AT
            # TIME ZONE 'x' is refused), the zone a unary operand.
            first = seq(first, star(seq(self.keyword("AT", "TIME", "ZONE"), ref("unary"))))
        factor_heads: list[Expr] = []
        if head is not None:  # * / % only (as probed)
            factor_heads.append(seq(head, Repeat(seq(alt(*arithmetic), ref("unary")), 1)))
        self.rule(
            "factor", alt(seq(first, star(seq(alt(*factor_ops), ref("unary")))), *factor_heads)
        )
        signs = [punct("-"), punct("+")] + ([punct("~")] if self.has("bit_not") else [])
        self.rule(
            "unary", alt(seq(alt(*signs), ref("unary")), ref("postfix"), *self.duckdb_unary())
        )
        cast_op = (
            self.options.cast_operator
            if self.options.cast_operator is not None
            else self.has("cast_operator")
        )
        postfix: list[Expr] = []
        subscripts: list[Expr] = []  # what DuckDB's writer parenthesises a call under
        if cast_op and self.has_types():
            postfix.append(seq(punct("::"), ref("data_type")))
        for features, sym in (
            (("json_arrow", "json_arrow_path"), "->"),
            (("json_arrow_text", "json_arrow_path"), "->>"),
        ):
            if any(self.has(f) for f in features):
                postfix.append(seq(punct(sym), ref("primary")))
        closed: list[Expr] = []  # the subscripts with a start (after a bare type word)
        if self.has("subscript"):
            subscripts.append(seq(punct("["), ref("expr"), punct("]")))
            if self.tables.type_index:  # DuckDB reads bigint[1] as a type, BIGINT[1]
                closed.append(subscripts[-1])
            if self.has("slice"):  # a[1:2], and a[:2], a[1:] where those round-trip
                subscripts.append(self.slices())
                closed.append(self.slices(open_start=False))
        subscripts += self.duckdb_postfix()
        closed += self.duckdb_postfix(open_start=False)
        closed = [*postfix, *closed]
        casts = list(postfix[:1]) if cast_op and self.has_types() else []  # DATE 'x'::TEXT
        postfix += subscripts
        postfix += self.bigquery_postfix()
        postfix += self.variant_paths()
        if postfix:
            base = "primary_base" if self.split_primary() else "primary"
            postfixes = [seq(ref(base), star(alt(*postfix)))]
            if self.open_slices():  # bigint[1:2], never bigint[:2] (an array type)
                postfixes.append(seq(ref("bare_type_word"), star(alt(*closed))))
            if self.split_primary() and self.literal_forms()[1]:
                # DATE 'x' takes casts only: sqlglot reads DATE 'x'[1] as CAST('x'[1] AS DATE)
                # and BigQuery JSON '{}' -> 'a' as JSON ('{}' -> 'a').
                postfixes.append(seq(ref("typed_literal"), star(alt(*casts))))
            if head is not None and subscripts:  # JSON_EXTRACT(c, 'p')[1]
                postfixes.append(seq(head, alt(*subscripts), star(alt(*postfix))))
            self.rule("postfix", alt(*postfixes))
        else:
            self.rule("postfix", ref("primary"))

    def split_primary(self) -> bool:
        """Whether some primaries take no subscript, or only some: where a slice may leave out
        its start, a bare type word (``bigint[:2]`` reads as an array type); a typed literal
        (sqlglot reads ``DATE 'x'[1]`` as ``CAST('x'[1] AS DATE)``). ``primary_base`` is
        then the primaries any subscript may follow."""
        return self.has("subscript") and (self.open_slices() or bool(self.literal_forms()[1]))

    def literal_forms(self) -> tuple[list[Expr], list[Expr]]:
        """The literals: plain ones, and typed ones (``DATE 'x'``, ``JSON '{}'``)."""
        kw = self.keyword
        literals: list[Expr] = [Ref("INTEGER"), Ref("DECIMAL"), Ref("STRING"), kw("NULL")]
        if self.has("booleans"):
            literals += [kw("TRUE"), kw("FALSE")]
        for i, (kind, _, _) in enumerate(self.tables.string_forms):
            uescape = kind == "unicode" and self.has("uescape")  # U&'d!0061' UESCAPE '!'
            string: Expr = Ref(f"PSTRING_{i}")
            if uescape:
                string = seq(string, opt(seq(kw("UESCAPE"), Ref("STRING"))))
            literals.append(string)
        literals += self.duckdb_literals()
        typed: list[Expr] = []
        if self.has("date_literal"):
            typed.append(seq(kw("DATE"), Ref("STRING")))
        if self.has("timestamp_literal"):
            typed.append(seq(kw("TIMESTAMP"), Ref("STRING")))
        typed += self.typed_literals()
        return literals, typed

    def has_types(self) -> bool:
        """Whether any data type is left for ``CAST`` once the caller's exclusions apply."""
        return bool(set(self.tables.types) - self.options.exclude_types)

    def primaries(self) -> None:
        ref, kw = self.ref, self.keyword
        types = self.has_types()
        cast_body = self.parens(ref("expr"), kw("AS"), ref("data_type"))
        cast_types: Expr = ref("data_type")
        if self.has("type_collate"):
            # Spark's CAST(a AS STRING COLLATE UTF8_BINARY): the collation is the type's.
            cast_types = alt(cast_types, seq(ref("data_type"), kw("COLLATE"), ref("ident")))
        if self.has("cast_format") and self.tables.format_types - self.options.exclude_types:
            # BigQuery's CAST(x AS STRING FORMAT 'YYYY'), for the types that take it.
            formatted = seq(ref("format_type"), kw("FORMAT"), self.format_value())
            cast_types = alt(cast_types, formatted)
        if fields := self.cast_field_forms():  # Snowflake's OBJECT(...) ADD FIELDS
            cast_types = alt(cast_types, *fields)
        # Where a slice may leave out its start, a bare type word is a column of its own
        # (bare_type_word: no such slice after it); ``primary`` still takes it.
        split, typed_columns = self.split_primary(), self.open_slices()
        primaries: list[Expr] = [
            ref("value_literal" if split else "literal"),
            ref("untyped_column" if typed_columns else "column_ref"),
        ]
        if self.callable_functions() or (self.options.anonymous_calls and self.has("anonymous")):
            primaries.append(ref("call"))  # functions=[] (or none the dialect knows): no calls
        primaries += [self.parens(ref("expr")), self.parens(ref("query"))]
        primaries += self.quoted_calls()  # BigQuery's `p.d.f`(a)
        casts: list[Expr] = []
        if types:
            casts.append(seq(kw("CAST"), self.parens(ref("expr"), kw("AS"), cast_types)))
        if self.has("try_cast") and types:
            casts.append(seq(kw("TRY_CAST"), cast_body))
        # Written with the type last (SingleStore's a :> INT), a cast takes no slice without
        # a start, as a bare type word does not.
        typed_casts = typed_columns and not self.has("cast_open_slice")
        primaries += [] if typed_casts else casts
        if self.has("exists"):
            primaries.append(seq(kw("EXISTS"), self.parens(ref("query"))))
        if self.has("case"):
            when = seq(kw("WHEN"), ref("condition"), kw("THEN"), ref("expr"))
            primaries.append(
                seq(
                    kw("CASE"),
                    opt(ref("expr")),
                    Repeat(when, 1),
                    opt(seq(kw("ELSE"), ref("expr"))),
                    kw("END"),
                )
            )
        if self.has("extract") and self.tables.extract_units:
            units = alt(*(kw(u) for u in self.tables.extract_units), *self.week_units())
            primaries.append(seq(kw("EXTRACT"), self.parens(units, kw("FROM"), ref("expr"))))
            primaries += self.date_part_calls()
        interval_units = self.tables.interval_units
        if self.has("interval_read"):  # PostgreSQL's INTERVAL '1' HOUR ('1 HOUR' written)
            interval_units = self.tables.interval_units_read
        if (self.has("interval") or self.has("interval_read")) and interval_units:
            units = alt(*(kw(u) for u in interval_units))
            amount: list[Expr] = [Ref("STRING")]
            if self.has("interval_number"):
                amount.append(Ref("INTEGER"))
            if self.has("interval_column"):
                amount.append(ref("column_ref"))  # MySQL's DATE_ADD(a, INTERVAL n DAY)
            amount += self.interval_amounts()
            amount += self.interval_terms()  # MySQL: INTERVAL 2 * 2 MONTH
            primaries.append(seq(kw("INTERVAL"), alt(*amount), units))
        if self.has("interval_bare"):
            primaries.append(seq(kw("INTERVAL"), Ref("STRING")))
        primaries += self.collections()
        primaries += self.special_calls()
        primaries += self.vendor_primaries()
        primaries += self.bigquery_primaries()
        primaries += self.tsql_oracle_primaries()
        primaries += self.tsql_mysql_primaries()
        primaries += self.placeholders()
        primaries += self.model_attributes()
        primaries += self.query_parameters()
        primaries += self.duckdb_primaries()
        # Functions written without parentheses, where they round-trip (sqlglot's
        # NO_PAREN_FUNCTIONS: 'WHERE placed > CURRENT_DATE').
        niladic = ("current_date", "current_time", "current_timestamp", "current_user")
        primaries += [kw(word.upper()) for word in niladic if self.has(word)]
        # Words read by their text as a call without parentheses (Oracle's SYSDATE).
        primaries += [kw(word) for word in self.tables.niladic_words]
        literals, typed = self.literal_forms()
        self.rule("literal", alt(*literals, *typed))
        if split:
            self.rule("primary_base", alt(*primaries))
            heads: list[Expr] = []
            plain = literals
            if typed_columns:
                # NULL is a type word too (NULL[:2] fails to parse); bare_type_word is made
                # with the names (CallRules.type_word_rules).
                plain = [e for e in literals if e != kw("NULL")]
                self.type_heads = [kw("NULL"), *(casts if typed_casts else [])]
                heads.append(ref("bare_type_word"))
            if typed:
                self.rule("typed_literal", alt(*typed))
                heads.append(ref("typed_literal"))
            self.rule("value_literal", alt(*plain))
            self.rule("primary", alt(ref("primary_base"), *heads))
        else:
            self.rule("primary", alt(*primaries))
        self.calls()
        self.window()

    def collections(self) -> list[Expr]:
        """Array and struct values: ``[1, 2]``, ``ARRAY[1, 2]``, ``ARRAY(SELECT ...)``,
        ``{'a': 1}``."""
        ref, punct = self.ref, self.punct
        items = self.separated(ref("expr"))
        out: list[Expr] = []
        if self.has("array_literal"):
            out.append(seq(punct("["), items, punct("]")))
        if self.has("array_constructor"):
            out.append(seq(self.keyword("ARRAY"), punct("["), items, punct("]")))
        if self.has("array_subquery"):
            out.append(seq(self.keyword("ARRAY"), self.parens(ref("query"))))
        if self.has("struct_literal"):
            member = seq(Ref("STRING"), punct(":"), ref("expr"))
            out.append(seq(punct("{"), self.separated(member), punct("}")))
        return out + self.warehouse_collections()

    def special_calls(self) -> list[Expr]:
        """Functions with syntax of their own: ``TRIM(BOTH x FROM y)``,
        ``SUBSTRING(x FROM 1 FOR 2)``, ``POSITION(x IN y)``."""
        ref, kw = self.ref, self.keyword
        out: list[Expr] = []
        trims: list[Expr] = []
        if self.has("trim_from"):
            trims.append(seq(ref("expr"), kw("FROM"), ref("expr")))
        for feature, word in (
            ("trim_both", "BOTH"),
            ("trim_leading", "LEADING"),
            ("trim_trailing", "TRAILING"),
        ):
            if self.has(feature):
                trims.append(seq(kw(word), ref("expr"), kw("FROM"), ref("expr")))
        trims += self.trim_side_forms()
        if trims:
            out.append(seq(kw("TRIM"), self.parens(alt(*trims))))
        substrings: list[Expr] = []
        if self.has("substring_from"):
            substrings.append(seq(ref("expr"), kw("FROM"), ref("expr"), kw("FOR"), ref("expr")))
        if self.has("substring_from_only"):
            substrings.append(seq(ref("expr"), kw("FROM"), ref("expr")))
        if substrings:
            out.append(seq(kw("SUBSTRING"), self.parens(alt(*substrings))))
        if self.has("position_in"):
            # sqlglot reads the needle as a bitwise expression, so IN ends it.
            args = seq(ref("bitwise"), kw("IN"), ref("bitwise"))
            out.append(seq(kw("POSITION"), self.parens(args)))
        overlays: list[Expr] = []
        if self.has("overlay") or self.has("overlay_from"):  # (keywords only where offered)
            placing = seq(ref("expr"), kw("PLACING"), ref("expr"), kw("FROM"), ref("expr"))
            if self.has("overlay"):
                overlays.append(seq(placing, kw("FOR"), ref("expr")))
            if self.has("overlay_from"):
                overlays.append(placing)
        if overlays:
            out.append(seq(kw("OVERLAY"), self.parens(alt(*overlays))))
        if self.has("listagg_overflow") and self.has("listagg_truncate"):
            # LISTAGG([DISTINCT] a, ',' ON OVERFLOW ERROR | TRUNCATE ['...'] [WITH[OUT] COUNT])
            # WITHIN GROUP (ORDER BY ...): without WITHIN GROUP sqlglot drops the overflow
            # clause (the shorter tree round-trips, so only the written text shows it).
            count = opt(seq(alt(kw("WITH"), kw("WITHOUT")), kw("COUNT")))
            truncate = seq(kw("TRUNCATE"), opt(Ref("STRING")), count)
            overflow = seq(kw("ON", "OVERFLOW"), alt(kw("ERROR"), truncate))
            args = seq(opt(kw("DISTINCT")), ref("expr"), self.punct(","), Ref("STRING"), overflow)
            within = seq(self.phrase("WITHIN", "GROUP"), self.parens(ref("order_by")))
            out.append(seq(kw("LISTAGG"), self.parens(args), within))
        if self.has("xmlelement"):
            # XMLELEMENT(NAME x, XMLATTRIBUTES(a AS b, c), content...): sqlglot reads the
            # content as bitwise expressions.
            content: Expr = ref("bitwise")
            if self.has("xmlattributes"):
                attribute = seq(ref("expr"), opt(seq(kw("AS"), ref("ident"))))
                attributes = seq(kw("XMLATTRIBUTES"), self.parens(self.separated(attribute)))
                content = alt(content, attributes)
            args = seq(kw("NAME"), ref("ident"), star(seq(self.punct(","), content)))
            out.append(seq(kw("XMLELEMENT"), self.parens(args)))
        return out

    def placeholders(self) -> list[Expr]:
        """Query parameters: ``?``, ``$1``, ``:name``, ``@name`` (only when asked for)."""
        out: list[Expr] = []
        if not self.options.placeholders:
            return out
        if self.has("qmark_placeholder"):
            out.append(self.punct("?"))
        for feature, terminal in (
            ("dollar_placeholder", "DOLLAR_PARAM"),
            ("at_variable", "AT_PARAM"),
        ):
            if self.has(feature):
                self.params_used.add(terminal)
                out.append(Ref(terminal))
        if self.has("colon_placeholder"):
            # ":" and the name are two tokens for sqlglot, and the name must be no keyword
            # (Snowflake reads SELECT :And as a path): ":" then a plain identifier.
            out.append(seq(self.punct(":"), Ref("IDENT")))
        return out + self.warehouse_placeholders() + self.pct_placeholders()

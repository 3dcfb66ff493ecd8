"""Function calls by probed arity, window specifications, data types, and name classes.

Words are grouped by the roles they play (:mod:`.lexicon`); this family turns the groups into
the rules that use them: one call form per (arity, aggregate) group, one data-type form per
parameter pattern, and the ``ident``/``table_alias``/... classes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from typedgen.frontends.sql.lexicon import Role
from typedgen.frontends.sql.rules import alt, empty, opt, seq, star
from typedgen.frontends.sql.tables import Arity, Function
from typedgen.frontends.sql.warehouse import WarehouseRules
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["CallRules", "is_word"]


def _orders(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Every order of every non-empty subset of ``names``."""
    return [
        order
        for k in range(1, len(names) + 1)
        for subset in itertools.combinations(names, k)
        for order in itertools.permutations(subset)
    ]


def is_word(name: str) -> bool:
    """Whether ``name`` can be written unquoted (an ASCII word)."""
    return (
        bool(name)
        and name.isascii()
        and (name[0].isalpha() or name[0] == "_")
        and all(c.isalnum() or c == "_" for c in name)
    )


class CallRules(WarehouseRules):
    """Calls, windows, types and the role classes of words."""

    def callable_functions(self) -> tuple[Function, ...]:
        """The dialect's functions that ``functions=`` (when given) names."""
        funcs = self.tables.functions
        if self.options.functions is not None:
            funcs = tuple(f for f in funcs if f.name in self.options.functions)
        return tuple(funcs)

    def calls(self) -> None:
        funcs = self.callable_functions()
        for func in funcs:
            self.lex.function(
                func.name,
                func.arity,
                func.aggregate,
                func.distinct_many,
                func.order_by,
                func.aliased_args,
                tuple((form, n) for form, n in func.last_args if self.has(form)),
                func.operator_counts,
                func.operator_heads,
            )
        if self.has("variadic"):
            self.keyword("VARIADIC")  # (registered before the lexicon is built)
        if self.has("respect_nulls_arg"):
            self.keyword("RESPECT", "IGNORE", "NULLS")
        # COUNT(*) is COUNT's own syntax: COUNT gets its own terminal, not its arity group's.
        self.filter_clause = (
            opt(
                seq(
                    self.keyword("FILTER"),
                    self.parens(self.filter_where(), self.ref("condition")),
                )
            )
            if self.has("filter")
            else empty()
        )
        self.distinct = self.keyword("DISTINCT")
        # Keywords of the call tails are registered now: the lexicon is built before the
        # call rule (which needs the word groups) is made.
        self.over_clause = self.over_tail()
        self.keep_tail = self.keep_clause()
        if self.has("ignore_nulls_inside") and not self.has("nulls_inside_calls"):
            # BigQuery: ARRAY_AGG(x IGNORE NULLS), the single argument of an aggregate (DuckDB:
            # only the window functions of duckdb_probes.nulls_calls, duckdb_calls.py).
            self.nulls_inside = opt(self.keyword("IGNORE", "NULLS"))
        if self.has("within_group") or self.has("within_group_mode"):
            order_by = self.parens(self.ref("order_by"))
            self.within_group = opt(seq(self.phrase("WITHIN", "GROUP"), order_by))
        has_count = any(f.name == "COUNT" for f in funcs)
        self.count_star = self.has("count_star") and has_count
        self.count_many = self.has("count_distinct_many") and has_count
        if self.count_star or self.count_many:
            self.keyword("COUNT")
        format_types = self.tables.format_types if self.has("cast_format") else frozenset()
        for word, params in self.tables.types.items():
            if word in self.options.exclude_types:
                continue
            formats = word in format_types
            if " " in word and not self.options.comments:
                # DOUBLE PRECISION: sqlglot reads any whitespace between the words (not a
                # comment), so without comments the words are keywords in sequence.
                self.type_phrases[word] = (self.keyword(*word.split()), params, formats)
            else:  # one terminal, single spaces only
                self.lex.data_type(word, params, formats=formats)
        # Words of the fixed syntax that are also functions keep their own terminal; the
        # lexicon knows their arity as well.
        self.named_calls()

    def named_calls(self) -> None:
        """Calls with named arguments (``SEARCH(a, b, ANALYZER => 'x')``; as a table only,
        ``FLATTEN(INPUT => x)``), from :mod:`.named`'s probes: a listed name at most once, in
        any order (sqlglot keeps the last of a repeated name); any identifier where the
        builder keeps every name."""
        ref = self.ref
        wanted = self.options.functions
        for call in self.tables.named_calls:
            if wanted is not None and call.name not in wanted:
                continue
            if not self.callable_functions():
                continue
            value = seq(self.punct("=>"), ref("expr"))
            if call.names is None:
                # Keywords as names (FLATTEN(OUTER => TRUE)) only for checking, as elsewhere.
                words = call.keywords if self.lex.keyword_names else ()
                name: Expr = alt(ref("ident"), *(self.keyword(w) for w in words))
                named = self.separated(seq(name, value))
            else:
                items = {n: seq(self.keyword(n), value) for n in call.names}
                named = alt(
                    *(
                        seq(
                            *(
                                seq(self.punct(","), items[n]) if i else items[n]
                                for i, n in enumerate(order)
                            )
                        )
                        for order in (call.orders or _orders(call.names))
                    )
                )
            forms = [
                seq(*(seq(ref("expr"), self.punct(",")) for _ in range(n)), named)
                for n in call.positional
            ]
            core = seq(self.keyword(call.name), self.parens(alt(*forms)))
            (self.named_scalar if call.scalar else self.named_table).append(core)

    def window(self) -> None:
        ref, kw = self.ref, self.keyword
        spec: list[Expr] = []
        if self.has("window_ref_spec"):
            spec.append(opt(ref("ident")))
        spec += [
            opt(seq(self.phrase("PARTITION", "BY"), self.separated(ref("expr")))),
            opt(ref("order_by")),
        ]
        if self.has("window_frame"):
            bound = alt(
                kw("UNBOUNDED", "PRECEDING"),
                kw("UNBOUNDED", "FOLLOWING"),
                kw("CURRENT", "ROW"),
                seq(Ref("INTEGER"), kw("PRECEDING")),
                seq(Ref("INTEGER"), kw("FOLLOWING")),
            )
            if self.has("frame_expr"):
                # ROWS BETWEEN a + 1 PRECEDING, RANGE BETWEEN INTERVAL '1' DAY PRECEDING
                offset = alt(kw("PRECEDING"), kw("FOLLOWING"))
                bound = alt(bound, seq(ref("bitwise"), offset))
            units = [kw("ROWS"), kw("RANGE"), *([kw("GROUPS")] if self.has("frame_groups") else [])]
            frame = seq(
                alt(*units),
                alt(bound, seq(kw("BETWEEN"), bound, kw("AND"), bound)),
            )
            spec.append(opt(frame))
        self.rule("window_spec", self.parens(*spec))
        target: Expr = ref("window_spec")
        if self.has("named_window"):
            target = alt(target, ref("ident"))
        self.rule("over", seq(kw("OVER"), target))

    def role_rules(self, classes: dict[str, list[str]], by_role: dict[Role, list[str]]) -> None:
        for name, terminals in classes.items():
            if name.startswith("schema_") or name == "type_ident":
                continue
            self.rule(name, alt(*(Ref(t) for t in self.with_quoted(terminals))))
        if self.open_slices():
            self.type_word_rules(classes)
        bare = alt(*(Ref(t) for t in classes["ident"]))  # the names, unquoted
        if self.has("table_hint"):
            # A hint is a bare word: sqlglot writes WITH ("< b") unquoted, which does not parse.
            self.rule("hint_name", bare)
        if self.has("star_apply"):
            # So is ClickHouse's APPLY(f): APPLY("{ a") is written APPLY({ a), and APPLY("f")
            # as APPLY(f), another identifier (unquoted).
            self.rule("apply_name", bare)
        if self.options.anonymous_calls and self.has("named_argument"):
            # And a named argument's name (f("a b" => 1) is written f(a b => 1)); a keyword
            # that names things is one too (MAKE_INTERVAL(years => 1)).
            self.rule("argument_name", bare)
        self.call_rule(by_role)
        self.type_rule(by_role)
        self.path_key_rule()
        if self.options.schema:
            self.rule(
                "schema_table",
                alt(*(Ref(t) for t in classes["schema_table"]), *self.quoted_names("tables")),
            )
            self.rule(
                "schema_column",
                alt(*(Ref(t) for t in classes["schema_column"]), *self.quoted_names("columns")),
            )

    def call_rule(self, by_role: dict[Role, list[str]]) -> None:
        args_of: dict[
            tuple[
                Arity,
                bool,
                tuple[int, ...],
                tuple[int, ...],
                bool,
                tuple[tuple[str, tuple[int, ...]], ...],
                tuple[int, ...],
                tuple[int, ...],
            ],
            list[str],
        ] = {}
        for role, terminals in by_role.items():
            if role.function is not None:
                key = (
                    role.function,
                    role.aggregate,
                    role.distinct_many,
                    role.order_by,
                    role.aliased_args,
                    role.last_args,
                    role.operator_counts,
                    role.operator_heads,
                )
                args_of.setdefault(key, []).extend(terminals)
        ref = self.ref
        over, within = self.over_clause, self.within_group
        plain: list[Expr] = []  # name(args): calls as table functions take these
        tails: list[Expr] = []  # with what may follow a call in an expression
        operators: list[Expr] = []  # GLOB(a, b), written b GLOB a: plain operands only
        heads: list[Expr] = []  # those that may stand first in another operator
        for (arity, aggregate, many, ordered, aliased, last_args, ops, hds), terminals in sorted(
            args_of.items(), key=lambda kv: str(kv[0])
        ):
            names = alt(*(Ref(t) for t in sorted(terminals)))
            if ops:
                plain_call = {
                    n: seq(names, self.parens(self.separated_n(ref("primary"), n))) for n in ops
                }
                operators += [plain_call[n] for n in ops]
                heads += [plain_call[n] for n in hds]
                arity = Arity(tuple(n for n in arity.counts if n not in ops), arity.rest)
            forms: list[Expr] = []
            if arity.counts or arity.rest is not None:
                forms.append(self.arguments(arity, aggregate, many, ordered, aliased))
            forms += self.last_arguments(last_args) if last_args else []
            if not forms:
                continue
            args = alt(*forms)
            core = seq(names, self.punct("("), args, self.punct(")"))
            plain.append(core)
            tail: list[Expr] = [over]
            if aggregate:
                keep = [self.keep_tail] if self.has("keep") else []  # Oracle's KEEP (...)
                tail = [within, self.filter_clause, *keep, over]
            tails.append(seq(core, *tail))
        if self.count_star:
            core = seq(Ref(self.lex.keyword_name("COUNT")), self.parens(self.punct("*")))
            tails.append(seq(core, self.filter_clause, over))
        if self.count_many:
            # COUNT(DISTINCT a, b): distinct rows of several values.
            several = seq(self.distinct, ref("expr"), Repeat(seq(self.punct(","), ref("expr")), 1))
            core = seq(Ref(self.lex.keyword_name("COUNT")), self.parens(several))
            tails.append(seq(core, self.filter_clause, over))
        if self.options.anonymous_calls and self.has("anonymous"):
            # sqlglot parses any other name(args) as an anonymous function (a UDF, or one it
            # does not model): only with functions="any", since a small model otherwise
            # invents functions the database does not have.
            arg: Expr = alt(ref("expr"), *self.star_arguments())
            if self.has("named_argument"):
                arg = alt(arg, seq(ref("argument_name"), self.punct("=>"), ref("expr")))
            if self.has("walrus_argument"):  # DuckDB's my_udf(a := 1)
                arg = alt(arg, seq(ref("ident"), self.punct(":="), ref("expr")))
            args = self.separated(arg)
            if self.has("variadic"):  # MLEAST(VARIADIC ARRAY[1, 2]): the last argument
                args = alt(args, seq(star(seq(arg, self.punct(","))), self.last_form("variadic")))
            core = seq(Ref("IDENT"), self.punct("("), opt(args), self.punct(")"))
            plain.append(core)
            tails.append(seq(core, within, over))
        plain += self.named_scalar
        tails += self.named_scalar
        tails += self.warehouse_calls()
        if operators:
            self.rule("operator_call", alt(*operators))
        if heads:
            self.rule("operator_head", alt(*heads))
        if tails:
            self.rule("call", alt(*tails))
            self.rule("function_call", alt(*plain) if plain else tails[0])
            # What FROM calls: a table-only call (FLATTEN(INPUT => x)) besides the others.
            self.rule("table_call", alt(Ref("function_call"), *self.named_table))

    def type_word_rules(self, classes: dict[str, list[str]]) -> None:
        """Where a slice may leave out its start, bare type words (``bigint``, a schema's
        column ``text``) are columns apart: ``untyped_column`` is ``column_ref`` without them,
        ``bare_type_word`` them with ``type_heads`` (NULL...), which take no such slice
        (sqlglot reads ``bigint[:2]`` as an array type)."""
        ref = self.ref
        if self.options.schema is None:
            typed = classes["type_ident"]
            plain = [t for t in classes["ident"] if t not in set(typed)]
            member, parts, more = self.column_pieces
            untyped = [
                seq(alt(*(Ref(t) for t in self.with_quoted(plain))), Repeat(member, 0, parts))
            ]
            if typed:
                untyped.append(seq(alt(*(Ref(t) for t in typed)), Repeat(member, 1, parts)))
            untyped += more
        else:
            typed = classes["schema_type_column"]
            plain = [t for t in classes["schema_column"] if t not in set(typed)]
            prefix = Repeat(seq(ref("ident"), self.punct(".")), 1, 2)
            untyped = [seq(prefix, ref("schema_column")), *(Ref(t) for t in plain)]
            untyped += self.quoted_names("columns")
            if self.options.quoted_values and self.tables.identifier_quotes:
                untyped.append(Ref("QIDENT"))
        self.rule("untyped_column", alt(*untyped))
        self.rule("bare_type_word", alt(*(Ref(t) for t in typed), *self.type_heads))

    def separated_n(self, item: Expr, n: int) -> Expr:
        """``n`` of ``item``, comma-separated."""
        return seq(item, *(seq(self.punct(","), item) for _ in range(n - 1))) if n else empty()

    def operator_head(self) -> Expr | None:
        """A call sqlglot writes as an operator that may stand first in another operator
        (DuckDB's ``JSON_EXTRACT(c, 'p') = 1``, written ``(c -> 'p') = 1``), where the dialect
        has one; None elsewhere. Only the forms ``tables._operator_heads`` probes take it."""
        if not self.has("bare_condition"):
            return None
        if not any(f.operator_heads for f in self.callable_functions()):
            return None
        return self.ref("operator_head")

    def operator_items(self) -> list[Expr]:
        """Select items of a call sqlglot writes as an operator (``GLOB(a, b)``, written ``b
        GLOB a``), where the dialect has one: a whole item, so that no operator around it can
        take its operands apart once written."""
        if not any(f.operator_counts for f in self.callable_functions()):
            return []
        return [seq(self.ref("operator_call"), opt(self.ref("alias")))]

    def last_arguments(self, last_args: tuple[tuple[str, tuple[int, ...]], ...]) -> list[Expr]:
        """Argument lists whose last argument is a special form (see
        ``arguments.LAST_ARGUMENTS``), at the counts probed for it."""
        ref = self.ref
        return [
            seq(*(seq(ref("expr"), self.punct(",")) for _ in range(n - 1)), self.last_form(form))
            for form, counts in last_args
            for n in counts
        ]

    def last_form(self, form: str) -> Expr:
        """A lambda, ``x -> x + 1`` or ``(x, i) -> x + i`` (sqlglot reads the body as any
        expression), or ``VARIADIC x`` (PostgreSQL: an array spread over the parameters)."""
        ref = self.ref
        if form == "variadic":  # sqlglot reads a bitwise operand (VARIADIC b = c is refused)
            return seq(self.keyword("VARIADIC"), ref("bitwise"))
        if form == "respect_nulls_arg":  # PERCENTILE_CONT(x, 0.5 RESPECT NULLS)
            nulls = alt(self.keyword("RESPECT", "NULLS"), self.keyword("IGNORE", "NULLS"))
            return seq(ref("expr"), nulls)
        if "lambda" not in self.rules:
            params = alt(ref("ident"), self.parens(self.separated(ref("ident"))))
            self.rule("lambda", seq(params, self.punct("->"), ref("expr")))
        return ref("lambda")

    def over_tail(self) -> Expr:
        """``OVER (...)`` or ``OVER w`` after a call, with ``IGNORE NULLS`` before it where the
        dialect writes it there (only before OVER: a window function)."""
        ref, kw = self.ref, self.keyword
        window: Expr = ref("over")
        nulls = [
            kw(word, "NULLS")
            for feature, word in (("ignore_nulls", "IGNORE"), ("respect_nulls", "RESPECT"))
            if self.has(feature)
        ]
        if nulls:
            window = seq(opt(alt(*nulls)), window)
        return opt(window)

    def type_rule(self, by_role: dict[Role, list[str]]) -> None:
        """``data_type``, and ``format_type``: the types ``CAST(x AS t FORMAT 'f')`` takes."""
        types: dict[tuple[tuple[int, ...], bool], list[str]] = {}
        for role, terminals in by_role.items():
            if role.type_params:
                types.setdefault((role.type_params, role.type_format), []).extend(terminals)
        number = Ref("INTEGER")
        named: dict[tuple[tuple[int, ...], bool], list[Expr]] = {
            key: [Ref(t) for t in sorted(terminals)] for key, terminals in types.items()
        }
        for phrase, params, formats in self.type_phrases.values():
            named.setdefault((params, formats), []).append(phrase)
        data_types: list[Expr] = []
        format_types: list[Expr] = []
        for (params, formats), refs in sorted(named.items()):
            names = alt(*refs)
            suffixes: list[Expr] = []
            if 0 in params:
                suffixes.append(empty())
            if 1 in params:
                suffixes.append(self.parens(number))
            if 2 in params:
                suffixes.append(self.parens(number, self.punct(","), number))
            data_types.append(seq(names, alt(*suffixes)))
            if formats:
                format_types.append(data_types[-1])
        data_types += self.warehouse_types() + self.object_types() + self.nested_types()
        data_types += self.length_types()
        if data_types:
            self.rule("data_type", alt(*data_types))
        if format_types:
            self.rule("format_type", alt(*format_types))

    def arguments(
        self,
        arity: Arity,
        aggregate: bool,
        many: tuple[int, ...] = (),
        ordered: tuple[int, ...] = (),
        aliased: bool = False,
    ) -> Expr:
        """The argument lists of one arity group (``DISTINCT`` first for an aggregate of one
        argument, or of the counts in ``many``; ``ORDER BY`` last after the counts in
        ``ordered``; each argument optionally ``AS name`` where ``aliased``)."""
        expr: Expr = self.ref("expr")
        if self.lambdas() or self.star_arguments():
            expr = alt(expr, *self.lambdas(), *self.star_arguments())
        if aliased:
            expr = seq(expr, opt(seq(self.keyword("AS"), self.ref("as_name"))))
        first = seq(self.distinct, expr) if aggregate else None

        def order(n: int) -> Expr:
            return opt(self.ref("order_by")) if n in ordered else empty()

        forms: list[Expr] = [
            seq(self.n_arguments(n, expr, first, many), order(n)) for n in arity.counts
        ]
        if arity.rest is not None:
            head = self.n_arguments(arity.rest, expr, first, many)
            forms.append(seq(head, star(seq(self.punct(","), expr)), order(arity.rest)))
        return alt(*forms)

    def n_arguments(
        self, n: int, expr: Expr, first: Expr | None, many: tuple[int, ...] = ()
    ) -> Expr:
        if n == 0:
            return empty()
        distinct = first is not None and (n == 1 or n in many)
        head = alt(expr, first) if first is not None and distinct else expr
        if first is not None and n == 1:
            head = seq(head, self.nulls_inside)
        return seq(head, *(seq(self.punct(","), expr) for _ in range(n - 1)))

    def with_quoted(self, terminals: Iterable[str]) -> list[str]:
        # A quoted schema name lexes as its own terminal (it outranks QIDENT), so wherever a
        # quoted name may go, the schema's quoted names may go too.
        if self.options.schema is not None:
            self.quoted_names("tables")
            self.quoted_names("columns")
        quoted = ["QIDENT"] if self.tables.identifier_quotes else []
        return [*terminals, *quoted, *self.quoted.values()]

    def quoted_names(self, kind: str) -> list[Expr]:
        assert self.options.schema is not None
        names: Sequence[str] = getattr(self.options.schema, kind)
        out: list[Expr] = []
        for name in names:
            for open_, close in self.tables.identifier_quotes:
                if close in name or "\n" in name:
                    continue
                out.append(Ref(self.quoted_terminal(f"{open_}{name}{close}")))
        return out

    def quoted_terminal(self, text: str) -> str:
        name = self.quoted.get(text)
        if name is None:
            name = self.quoted[text] = f"QNAME_{len(self.quoted)}"
        return name

    def names(self) -> None:
        """Table, column and column-reference rules (a schema's names when there is one)."""
        ref = self.ref
        if self.options.schema is None:
            # Some keywords name a table only in FROM (current_date), or only after a dot
            # (t.null): the first part and the later parts are apart.
            member = seq(self.punct("."), ref("member_name"))
            plain_table = alt(ref("table_word"), seq(ref("ident"), Repeat(member, 1)))
            if bigquery := self.bigquery_table_names(member):  # a.b.25, `a.com:p.d.t`
                plain_table = alt(plain_table, *bigquery)
            self.rule("table_name", alt(plain_table, *self.more_table_names()))  # T-SQL's #t
            self.rule("column_name", ref("ident"))
            parts = 3 if self.has("column_four_parts") else 2  # T-SQL: db.s.t.a
            reference = seq(ref("ident"), Repeat(member, 0, parts))
            more = [*self.temp_columns(), *self.dollar_columns()]
            more += self.numeric_paths(member, parts)  # BigQuery's t.144
            self.rule("column_ref", alt(reference, *more))
            self.column_pieces = (member, parts, more)  # for type_word_rules
            return
        for table in self.options.schema.tables:
            if is_word(table):
                self.lex.schema_name(table, table=True)
        for column in self.options.schema.columns:
            if is_word(column):
                self.lex.schema_name(column, column=True)
        table_names: list[Expr] = [ref("schema_table")]
        if self.options.ctes_in_schema:
            table_names.append(ref("ident"))
        self.rule("table_name", alt(*table_names))
        self.rule("column_name", ref("schema_column"))
        qualified: Expr = seq(
            Repeat(seq(ref("ident"), self.punct(".")), 0, 2), ref("schema_column")
        )
        quoted_values = self.options.quoted_values and self.tables.identifier_quotes
        if quoted_values:
            qualified = alt(qualified, Ref("QIDENT"))
        self.rule("column_ref", qualified)

"""Query clauses: WITH, set operations, SELECT, FROM and joins, GROUP BY, ORDER BY, limits."""

from __future__ import annotations

from typedgen.frontends.sql.postgres_mysql import PgMysqlRules
from typedgen.frontends.sql.rules import alt, empty, opt, seq, star
from typedgen.frontends.sql.warehouse import WarehouseRules
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["QueryRules"]


class QueryRules(WarehouseRules, PgMysqlRules):
    """The rules of a query, from ``WITH`` to the limit."""

    def query(self) -> Ref:
        """The query rules; returns the statement-level query (WITH may be top-level only)."""
        with_clause: Expr = empty()
        if not self.options.schema or self.options.ctes_in_schema:
            recursive = opt(self.keyword("RECURSIVE")) if self.has("recursive") else empty()
            materialized: Expr = empty()
            if self.has("cte_materialized"):  # PostgreSQL: AS [NOT] MATERIALIZED (...)
                materialized = opt(seq(opt(self.keyword("NOT")), self.keyword("MATERIALIZED")))
            cte_body: Expr = seq(self.keyword("AS"), materialized, self.parens(self.ref("query")))
            if self.has("cte_columns"):
                columns = self.parens(self.separated(self.ref("ident")))
                if self.has("cte_unaliased"):
                    cte_body = seq(opt(columns), *self.cte_keys(), cte_body)
                else:
                    # T-SQL: sqlglot names a CTE's unnamed columns when it writes the query
                    # back (SELECT a AS a), so a CTE names them: a column list, or AS names.
                    named = seq(self.keyword("AS"), self.parens(self.ref("cte_select")))
                    cte_body = alt(seq(columns, cte_body), named)
            ctes = [*self.warehouse_ctes(), *self.duckdb_ctes(cte_body)]
            cte = self.rule("cte", alt(seq(self.ref("cte_name"), cte_body), *ctes))
            with_clause = opt(seq(self.keyword("WITH"), recursive, self.separated(cte)))
        set_ops = []
        for feature, words in (
            ("union", ("UNION",)),
            ("union_all", ("UNION", "ALL")),
            ("union_distinct", ("UNION", "DISTINCT")),
            ("intersect", ("INTERSECT",)),
            ("intersect_distinct", ("INTERSECT", "DISTINCT")),
            ("intersect_all", ("INTERSECT", "ALL")),
            ("except", ("EXCEPT",)),
            ("except_distinct", ("EXCEPT", "DISTINCT")),
            ("except_all", ("EXCEPT", "ALL")),
            ("minus", ("MINUS",)),
        ):
            if self.has(feature):
                set_ops.append(self.keyword(*words))
        set_ops += self.warehouse_set_ops()
        operands: list[Expr] = [self.ref("select_core")]
        if self.has("paren_set_operand") or self.has("paren_set_first"):
            operands.append(self.parens(self.ref("query")))
        operand = self.rule("set_operand", alt(*operands))
        body: Expr = operand
        if set_ops:
            body = seq(operand, star(seq(alt(*set_ops), operand)))
        if set_ops and self.has("limited_set_operand"):  # SELECT ... LIMIT 1 UNION SELECT ...
            first = alt(operand, seq(self.ref("select_core"), self.limit_tail()))
            body = seq(star(seq(first, alt(*set_ops))), operand)
        tail = seq(self.limit_tail(), self.query_suffixes())
        self.select_core()
        self.select_into_statement(with_clause, tail)
        if "cte_select" in self.rules:
            # A derived table's query, where sqlglot names its unnamed columns when it writes
            # it back (T-SQL): the named SELECT of a CTE, or a set operation (never named).
            derived: list[Expr] = [seq(self.ref("cte_select"), tail)]
            if set_ops:
                ops = Repeat(seq(alt(*set_ops), operand), 1)
                derived.append(seq(operand, ops, tail))
            self.rule("derived_query", alt(*derived))
        if self.has("scalar_subquery_order"):  # T-SQL: (SELECT TOP 5 a ... ORDER BY a)
            self.rule("ordered_query", seq(body, tail))
        nested_with = self.has("nested_with")
        nested_order = self.has("subquery_order")
        if nested_with and nested_order:
            self.rule("query", seq(with_clause, body, tail))
            return self.ref("query")
        # Where sqlglot rewrites a nested WITH (hoisted) or an ORDER BY in a subquery (T-SQL
        # allows neither), those stay at the top level.
        unordered = self.limit_forms(ordered=False)
        nested_tail = (
            tail
            if nested_order
            else seq(opt(alt(*unordered)) if unordered else empty(), self.query_suffixes())
        )
        self.rule("query", seq(with_clause if nested_with else empty(), body, nested_tail))
        return self.rule("top_query", seq(with_clause, body, tail))

    def limit_tail(self) -> Expr:
        """ORDER BY and the dialect's limit forms (some only after an ORDER BY)."""
        unordered = self.limit_forms(ordered=False)
        ordered = self.limit_forms(ordered=True)
        order_by = self.ref("order_by")
        tails: list[Expr] = [seq(order_by, opt(alt(*ordered)) if ordered else empty())]
        tails.append(alt(*unordered) if unordered else empty())
        return alt(*tails, empty())

    def limit_forms(self, *, ordered: bool) -> list[Expr]:
        number = Ref("INTEGER")
        forms: list[Expr] = []
        rows = alt(self.keyword("ROW"), self.keyword("ROWS"))
        prefer_fetch = self.tables.top or self.tables.limit_fetch == "FETCH"
        if not prefer_fetch and self.has("limit"):
            count: Expr = number
            if self.has("limit_subquery"):
                count = alt(number, self.parens(self.ref("query")))  # LIMIT (SELECT 1)
            offset = opt(seq(self.keyword("OFFSET"), count)) if self.has("offset") else empty()
            forms.append(seq(self.keyword("LIMIT"), count, offset))
            if self.has("limit_by"):
                # ClickHouse's LIMIT n BY a, b: n rows per group.
                by = seq(self.keyword("BY"), self.separated(self.ref("expr")))
                forms.append(seq(self.keyword("LIMIT"), number, by))
            if self.has("offset_only"):
                forms.append(seq(self.keyword("OFFSET"), count))
            forms += self.warehouse_limits() + self.limit_null()
        if not (prefer_fetch or self.tables.limit_fetch == "ALL"):
            return forms
        suffix = "_ordered" if ordered else ""
        percent: Expr = empty()
        ends: list[Expr] = [self.keyword("ONLY")]
        if ordered and self.has("fetch_percent"):
            percent = opt(self.keyword("PERCENT"))
        if ordered and self.has("fetch_with_ties"):
            ends.append(self.keyword("WITH", "TIES"))  # ties need an order
        fetch = seq(
            self.keyword("FETCH"),
            alt(self.keyword("FIRST"), self.keyword("NEXT")),
            number,
            percent,
            rows,
            alt(*ends),
        )
        if self.has("fetch" + suffix) or (ordered and self.has("fetch")):
            forms.append(seq(self.keyword("OFFSET"), number, rows, opt(fetch)))
        if self.has("fetch_only" + suffix) or (ordered and self.has("fetch_only")):
            forms.append(fetch)
        return forms

    def select_core(self) -> None:
        kw, ref = self.keyword, self.ref
        top: Expr = empty()
        if self.tables.top and self.has("top"):
            counts: list[Expr] = [Ref("INTEGER"), self.parens(Ref("INTEGER"))]
            if self.has("top_expr"):  # TOP (a + 1), TOP (SELECT 1)
                counts.append(self.parens(ref("expr")))
            if self.has("top_subquery"):
                counts.append(self.parens(ref("query")))
            count = alt(*counts)
            if self.has("top_percent"):
                count = seq(count, opt(kw("PERCENT")))
            if self.has("top_ties"):
                count = seq(count, opt(kw("WITH", "TIES")))
            top = opt(seq(kw("TOP"), count))
        value_item = self.rule(
            "value_item",
            alt(
                seq(ref("expr"), opt(ref("alias"))),
                *self.operator_items(),
                *self.select_values(),
                *self.prefix_aliases(),
                *self.assign_aliases(),
            ),
        )
        mods = self.star_modifiers()
        qualified = seq(ref("ident"), self.punct("."), self.punct("*"))
        qualified_mods = self.has("qualified_star_modifiers")
        item = self.rule(
            "select_item",
            alt(
                seq(self.punct("*"), seq(*(opt(m) for m in mods))),
                seq(qualified, seq(*(opt(m) for m in mods))) if qualified_mods else qualified,
                value_item,
            ),
        )
        self.rule(
            "alias",
            alt(seq(kw("AS"), ref("as_name")), ref("column_alias"), *self.alias_forms()),
        )
        # ``*`` needs a FROM: ``SELECT * EXCEPT ...`` is a column exclusion in some dialects.
        items_from = seq(
            self.separated(item),
            kw("FROM"),
            ref("from_items"),
            *self.match_recognize(),
            *self.prewhere(),
        )
        where = seq(kw("WHERE"), ref("condition"))
        bare: list[Expr] = [self.separated(value_item)]
        star_where: Expr | None = None
        if self.has("star_bare_union") and mods:
            # Without FROM, a star is followed by a modifier or WHERE (a bare ``*`` would take
            # a set operation's EXCEPT as its own): SELECT * EXCEPT (a), SELECT * WHERE b.
            modified = [
                seq(self.punct("*"), self.modifiers_from(mods, i)) for i in range(len(mods))
            ]
            if qualified_mods:
                modified += [seq(qualified, self.modifiers_from(mods, i)) for i in range(len(mods))]
            last = alt(value_item, *modified)
            bare.append(seq(star(seq(item, self.punct(","))), last))
            # (A WHERE of its own: the optional WHERE below must not follow it, SELECT * WHERE
            # b WHERE c is "multiple WHERE clauses" for sqlglot.)
            star_where = seq(self.separated(item), where)
        clauses: list[Expr] = [
            alt(items_from, *bare),
            opt(where),
            *self.connect_by(),
            opt(seq(self.phrase("GROUP", "BY"), ref("group_by"), self.group_by_suffix())),
            opt(seq(kw("HAVING"), ref("condition"))),
        ]
        window = qualify = None
        if self.has("named_window"):
            named = seq(ref("ident"), kw("AS"), ref("window_spec"))
            window = seq(kw("WINDOW"), self.separated(named))
            clauses.append(opt(window))
        if self.has("qualify"):
            qualify = seq(kw("QUALIFY"), ref("condition"))
            clauses.append(opt(qualify))
        if window and qualify and self.has("qualify_window"):  # BigQuery: QUALIFY, WINDOW
            clauses[-2:] = [alt(seq(opt(window), opt(qualify)), seq(qualify, window))]
        clauses += self.using_sample()
        distinct: Expr = kw("DISTINCT")
        if self.has("distinct_on"):
            distinct = seq(distinct, opt(seq(kw("ON"), self.parens(self.separated(ref("expr"))))))
        for feature, word in (("distinctrow", "DISTINCTROW"), ("unique_select", "UNIQUE")):
            if self.has(feature):  # MySQL's DISTINCTROW, Oracle's UNIQUE: written DISTINCT
                distinct = alt(distinct, kw(word))
        head: list[Expr] = [kw("SELECT"), opt(distinct)]
        if self.tables.operation_modifiers:  # MySQL: SELECT HIGH_PRIORITY SQL_NO_CACHE ...
            head.append(star(alt(*(kw(w) for w in self.tables.operation_modifiers))))
        lead = clauses[:2]  # the items, then WHERE
        if star_where is not None:
            lead = [alt(seq(*lead), star_where)]
        forms = [seq(*head, top, *self.select_as(), *lead, *clauses[2:])]
        forms += self.from_first(seq(*head), self.separated(item), clauses[1:])
        self.rule("select_core", alt(*forms))
        self.select_into_core([*head, top], self.separated(item), clauses[1:])
        if self.has("cte_columns") and not self.has("cte_unaliased"):
            # Where sqlglot names a CTE's unnamed columns when it writes the query back
            # (T-SQL), a CTE body without a column list names every value (AS name).
            named_item = seq(ref("expr"), kw("AS"), ref("ident"))
            if self.has("cte_column_named"):  # SELECT c, written c AS c: the same tree
                named_item = alt(named_item, ref("column_name"))
            star_item = alt(self.punct("*"), seq(ref("ident"), self.punct("."), self.punct("*")))
            named_items = self.separated(alt(star_item, named_item))
            named_clauses = [
                alt(seq(named_items, kw("FROM"), ref("from_items")), named_items),
                *clauses[1:],
            ]
            self.rule("cte_select", seq(kw("SELECT"), opt(distinct), top, *named_clauses))
        self.from_clause()
        order_item = self.rule(
            "order_item", seq(ref("group_item"), self.direction(), *self.order_fill())
        )
        order = alt(self.phrase("ORDER", "BY"), *self.order_phrases())
        self.rule("order_by", seq(order, self.separated(order_item)))
        # Output-column aliases may be named in GROUP BY and ORDER BY; in schema-aware mode
        # they are not schema columns, so name them here.
        group_item = [ref("expr")]
        if self.options.schema:
            group_item.append(ref("ident"))
        self.rule("group_item", alt(*group_item))
        grouping: list[Expr] = []
        exprs = self.parens(self.separated(ref("expr")))
        for feature, word in (("rollup", "ROLLUP"), ("cube", "CUBE")):
            if self.has(feature):
                grouping.append(seq(kw(word), exprs))
        if self.has("grouping_sets"):
            group_set = self.parens(opt(self.separated(ref("expr"))))
            if self.has("grouping_sets_bare"):
                # GROUPING SETS (a, (a, b), CUBE (c), GROUPING SETS (d))
                group_set = alt(group_set, ref("grouping"))
            grouping.append(
                seq(self.phrase("GROUPING", "SETS"), self.parens(self.separated(group_set)))
            )
        self.rule("grouping", alt(ref("group_item"), *grouping))
        group_by: Expr = self.separated(ref("grouping"))
        if self.has("group_by_all"):
            group_by = alt(group_by, kw("ALL"))
        self.rule("group_by", group_by)

    def direction(self) -> Expr:
        """``[ASC|DESC] [NULLS FIRST|LAST]``: each NULLS placement only after the direction it
        round-trips with (where it is the default, sqlglot drops it: another tree)."""
        kw = self.keyword

        def nulls(*pairs: tuple[str, str]) -> Expr:
            words = [kw("NULLS", word) for feature, word in pairs if self.has(feature)]
            return opt(alt(*words)) if words else empty()

        plain = nulls(("nulls_first", "FIRST"), ("nulls_last_plain", "LAST"))
        asc = nulls(("nulls_first_asc", "FIRST"), ("nulls_last_asc", "LAST"))
        desc = nulls(("nulls_first_desc", "FIRST"), ("nulls_last", "LAST"))
        return alt(plain, seq(kw("ASC"), asc), seq(kw("DESC"), desc))

    def star_modifiers(self) -> list[Expr]:
        """``* EXCEPT (a)``, ``* EXCLUDE (t.a)``, ``* REPLACE (x AS a)``, where the dialect has
        them, in the order they may follow one another."""
        kw, ref = self.keyword, self.ref
        names = self.parens(self.separated(ref("column_ref")))
        out: list[Expr] = []
        for feature, word in (("star_except", "EXCEPT"), ("star_exclude", "EXCLUDE")):
            if self.has(feature) and self.has(feature + "_bare"):
                out.append(seq(kw(word), alt(names, ref("column_ref"))))  # * EXCLUDE a
            elif self.has(feature):
                out.append(seq(kw(word), names))
        if self.has("star_replace"):
            replaced = seq(ref("expr"), kw("AS"), ref("ident"))
            out.append(seq(kw("REPLACE"), self.parens(self.separated(replaced))))
        return out + self.warehouse_star_modifiers()

    @staticmethod
    def modifiers_from(mods: list[Expr], first: int) -> Expr:
        """The star modifiers from ``mods[first]`` on, that one present."""
        return seq(mods[first], *(opt(m) for m in mods[first + 1 :]))

    def from_clause(self) -> None:
        kw, ref = self.keyword, self.ref
        columns = self.parens(self.separated(ref("ident")))
        name_alias: Expr = alt(seq(kw("AS"), ref("ident")), ref("table_alias"))
        table_alias = name_alias
        if self.has("table_alias_columns"):
            table_alias = seq(table_alias, opt(columns))
        derived_alias = seq(opt(kw("AS")), ref("ident"))
        if self.has("table_alias_columns"):
            derived_alias = seq(derived_alias, opt(columns))
        if self.has("derived_no_alias"):
            derived_alias = opt(derived_alias)
        derived = seq(self.parens(ref("query")), derived_alias, *self.sample_suffix())
        if self.has("cte_columns") and not self.has("cte_unaliased"):
            # T-SQL names a derived table's unnamed columns when it writes it back, unless the
            # alias names them: (SELECT a AS a FROM t) AS s, (SELECT a FROM t) AS s(b).
            bare_alias = seq(opt(kw("AS")), ref("ident"))
            derived_forms = [seq(self.parens(ref("derived_query")), bare_alias)]
            if self.has("table_alias_columns"):
                derived_forms.append(seq(self.parens(ref("query")), bare_alias, columns))
            derived = alt(*derived_forms)
        named: list[Expr] = [seq(opt(table_alias), self.table_hints())]
        sample = self.duckdb_sample()
        if sample is not None:  # t [AS a] TABLESAMPLE RESERVOIR (20%), (...) AS s TABLESAMPLE
            named.append(seq(opt(table_alias), sample))
            derived = seq(derived, opt(sample))
        named += self.table_samples()
        named += self.vendor_samples(table_alias)
        pivots = self.pivots()
        if pivots and self.has("pivot_chain"):
            pivots = [Repeat(alt(*pivots), 1)]  # PIVOT(...) PIVOT(...)
        named += pivots
        table_forms: list[Expr] = [alt(*named)]
        historical = self.historical()
        if historical is not None and (self.has("historical_at") or self.has("historical_before")):
            table_forms = [seq(opt(alt(historical, *self.changes_clause())), alt(*named))]
        if historical is not None and self.has("historical_after_alias"):
            # DuckDB: t AS a AT (VERSION => 1), the clause after the alias.
            table_forms.append(seq(table_alias, historical, self.table_hints()))
        table_forms += self.system_time(table_alias)
        table = seq(ref("table_name"), alt(*table_forms))
        primaries: list[Expr] = [table, derived]
        primaries += self.table_functions(name_alias, columns)
        primaries += self.ml_table_functions(name_alias) + self.table_valued_calls(name_alias)
        if pivots and self.has("derived_pivot"):
            primaries.append(seq(self.parens(ref("query")), alt(*pivots)))  # (SELECT ...) PIVOT
        if pivots and self.has("derived_alias_pivot"):  # BigQuery: (SELECT ...) AS a PIVOT
            aliased = seq(self.parens(ref("query")), kw("AS"), ref("ident"))
            primaries.append(seq(aliased, alt(*pivots)))
        primaries += self.vendor_tables(name_alias, columns)
        primaries += self.warehouse_primaries(name_alias, table_alias)
        primaries += self.duckdb_tables(name_alias)
        if self.has("paren_table") and self.has("paren_table_bare"):
            # (t1 JOIN t2 ON ...) AS s: a named table or another such group first (Spark
            # writes a parenthesised UNNEST back as EXPLODE, T-SQL names a subquery's columns).
            first = alt(table, ref("paren_table"))
            self.rule("paren_table", self.parens(first, star(ref("join"))))
            primaries.append(seq(ref("paren_table"), opt(name_alias)))
        primary = self.rule("table_primary", alt(*primaries))
        condition = alt(seq(kw("ON"), ref("condition")))
        if self.has("using"):
            condition = alt(condition, seq(kw("USING"), self.parens(self.separated(ref("ident")))))
            if self.has("using_bare"):  # ClickHouse: USING a, b
                condition = alt(condition, seq(kw("USING"), self.separated(ref("ident"))))
        outer = opt(kw("OUTER"))
        sides = [seq(kw("LEFT"), outer)]
        if self.has("right_join"):
            sides.append(seq(kw("RIGHT"), outer))
        if self.has("full_join"):
            sides.append(seq(kw("FULL"), outer))
        # A JOIN without a condition only where it comes back as one: BigQuery and ClickHouse
        # write it as a comma join, DuckDB an INNER JOIN (another tree).
        if not self.has("join_bare"):
            inner = seq(opt(kw("INNER")), kw("JOIN"), primary, condition)
        elif not self.has("inner_bare"):
            bare = seq(kw("JOIN"), primary, opt(condition))
            inner = alt(bare, seq(kw("INNER", "JOIN"), primary, condition))
        else:
            inner = seq(opt(kw("INNER")), kw("JOIN"), primary, opt(condition))
        joins: list[Expr] = [
            inner,
            seq(alt(*sides), kw("JOIN"), primary, condition),
        ]
        lateral = self.lateral(derived_alias, name_alias)
        if self.has("cross_join"):
            joins.append(seq(kw("CROSS"), kw("JOIN"), primary))
            if lateral is not None and self.has("join_lateral"):
                joins.append(seq(kw("CROSS"), kw("JOIN"), lateral))
        for feature, words in (
            ("semi_join", ("SEMI",)),
            ("anti_join", ("ANTI",)),
            ("left_semi_join", ("LEFT", "SEMI")),
            ("left_anti_join", ("LEFT", "ANTI")),
            ("right_semi_join", ("RIGHT", "SEMI")),
            ("right_anti_join", ("RIGHT", "ANTI")),
        ):
            if self.has(feature):
                joins.append(seq(kw(*words), kw("JOIN"), primary, condition))
        joins += self.warehouse_joins(primary, condition)
        if self.has("natural_join"):
            joins.append(seq(kw("NATURAL"), opt(alt(*sides)), kw("JOIN"), primary))
        applied = alt(primary, seq(self.parens(ref("query")), derived_alias))  # not named
        for feature, word in (("cross_apply", "CROSS"), ("outer_apply", "OUTER")):
            if self.has(feature):
                joins.append(seq(kw(word), kw("APPLY"), applied))
        if self.has("array_join"):
            # ClickHouse: ARRAY JOIN a, [1, 2] AS b (each array unrolled into rows).
            arrays = self.separated(seq(ref("expr"), opt(seq(kw("AS"), ref("ident")))))
            side = opt(kw("LEFT")) if self.has("left_array_join") else empty()
            joins.append(seq(side, kw("ARRAY"), kw("JOIN"), arrays))
        joins += self.vendor_joins(primary, condition)
        joins += self.duckdb_joins(primary, condition)
        join = self.rule("join", alt(*joins))
        item_forms: list[Expr] = [seq(primary, star(join))]
        if pivots and self.has("pivot_after_join"):  # Oracle: a JOIN b ON ... PIVOT(...)
            item_forms.append(seq(primary, Repeat(join, 1), alt(*pivots)))
        self.rule("table_item", alt(*item_forms))
        later: Expr = ref("table_item")
        if lateral is not None:
            later = alt(later, seq(lateral, star(join)))
        views: Expr = empty()
        if self.has("lateral_view") and "call" in self.rules_wanted():
            # Hive's LATERAL VIEW [OUTER] EXPLODE(a) t AS x, y, after the FROM items.
            outer_word = opt(kw("OUTER")) if self.has("lateral_view_outer") else empty()
            view_alias = seq(kw("AS"), self.separated(ref("ident")))
            view = seq(
                kw("LATERAL", "VIEW"),
                outer_word,
                ref("function_call"),
                alt(seq(ref("ident"), opt(view_alias)), view_alias),
            )
            views = star(view)
        items = seq(ref("table_item"), star(seq(self.punct(","), later)), views)
        dashed = self.dashed_items(join)  # BigQuery's FROM my-project.d.t
        self.rule("from_items", alt(items, *dashed))

    def table_hints(self) -> Expr:
        """T-SQL's ``WITH (NOLOCK)``, SQLite's ``INDEXED BY i`` / ``NOT INDEXED``."""
        kw, ref = self.keyword, self.ref
        hints: list[Expr] = []
        if self.has("table_hint"):
            hint = alt(ref("hint_name"), *self.hint_items())
            hints.append(seq(kw("WITH"), self.parens(self.separated(hint))))
        if self.has("indexed_by"):
            index = seq(ref("ident"), Repeat(seq(self.punct("."), ref("ident")), 0, 2))
            hints.append(seq(kw("INDEXED"), kw("BY"), index))  # INDEXED BY s.i
            hints.append(kw("NOT", "INDEXED"))
        out: Expr = opt(alt(*hints)) if hints else empty()
        if self.has("index_hint"):
            # MySQL: USE INDEX (i) IGNORE INDEX FOR ORDER BY (j) FORCE INDEX (k), repeated.
            names = self.separated(ref("ident"))
            names = opt(names) if self.has("index_hint_empty") else names
            target: Expr = empty()
            if self.has("index_hint_for"):
                purposes = alt(kw("JOIN"), self.phrase("ORDER", "BY"), self.phrase("GROUP", "BY"))
                target = opt(seq(kw("FOR"), purposes))
            verbs = alt(kw("USE"), kw("IGNORE"), kw("FORCE"))
            out = seq(out, star(seq(verbs, kw("INDEX"), target, self.parens(names))))
        tail = self.warehouse_table_suffix()
        return seq(out, *tail) if tail else out

    def historical(self) -> Expr | None:
        """Snowflake's time travel, ``AT (TIMESTAMP => x)`` / ``BEFORE (STATEMENT => 'id')``,
        with the kinds of sqlglot's ``HISTORICAL_DATA_KIND`` that round-trip."""
        kw = self.keyword
        words = [
            word
            for feature, word in (("historical_at", "AT"), ("historical_before", "BEFORE"))
            if self.has(feature) or (word == "AT" and self.has("historical_after_alias"))
        ]
        if not words or not self.tables.historical_kinds:
            return None  # (no keyword registered: the words stay plain names)
        prefixes = [kw(word) for word in words]
        kinds = [kw(kind) for kind in self.tables.historical_kinds]
        body = self.parens(alt(*kinds), self.punct("=>"), self.ref("bitwise"))
        return seq(alt(*prefixes), body)

    def system_time(self, table_alias: Expr) -> list[Expr]:
        """Temporal tables (sqlglot's ``VERSION_PHRASES``): T-SQL's ``t FOR SYSTEM_TIME AS OF x
        AS a`` (and ``FROM x TO y``, ``BETWEEN x AND y``, ``CONTAINED IN (x, y)``, ``ALL``),
        BigQuery's ``t AS a FOR SYSTEM_TIME AS OF x``, each form where its probe
        round-trips (keywords are registered only for the forms offered)."""
        kw, ref = self.keyword, self.ref
        value = ref("bitwise")
        forms: list[Expr] = []
        if self.has("system_time_as_of"):
            forms.append(seq(kw("AS", "OF"), value))
        if self.has("system_time_from_to"):
            forms.append(seq(kw("FROM"), value, kw("TO"), value))
        if self.has("system_time_between"):
            forms.append(seq(kw("BETWEEN"), value, kw("AND"), value))
        if self.has("system_time_contained"):
            pair = self.parens(value, self.punct(","), value)
            forms.append(seq(kw("CONTAINED", "IN"), pair))
        if self.has("system_time_all"):
            forms.append(kw("ALL"))
        out: list[Expr] = []
        if forms:
            version = seq(kw("FOR", "SYSTEM_TIME"), alt(*forms))
            out.append(seq(version, opt(seq(kw("AS"), ref("ident"))), self.table_hints()))
        if self.has("system_time_after_alias"):
            spaced = [kw("FOR", "SYSTEM", "TIME")] if self.has("system_time_spaced") else []
            version = seq(alt(kw("FOR", "SYSTEM_TIME"), *spaced), kw("AS", "OF"), value)
            out.append(seq(opt(table_alias), version))
        return out

    def using_sample(self) -> list[Expr]:
        """DuckDB's ``USING SAMPLE 10%``, ``USING SAMPLE 10 PERCENT (bernoulli, 7)``,
        ``USING SAMPLE SYSTEM (10%) REPEATABLE (7)``, ``USING SAMPLE RESERVOIR (50 ROWS)``:
        sqlglot writes every form back as ``method (size unit)``; a method other than
        RESERVOIR with ROWS comes back as RESERVOIR, so it is not offered."""
        if not self.has("using_sample"):
            return []
        kw, punct = self.keyword, self.punct
        size = alt(Ref("INTEGER"), Ref("DECIMAL"))
        percent = alt(punct("%"), kw("PERCENT"))
        methods = alt(kw("BERNOULLI"), kw("SYSTEM"), kw("RESERVOIR"))
        seed = self.parens(Ref("INTEGER"))
        forms = [
            seq(size, opt(alt(percent, kw("ROWS")))),
            seq(size, percent, self.parens(methods, opt(seq(punct(","), Ref("INTEGER"))))),
            seq(methods, self.parens(size, percent), opt(seq(kw("REPEATABLE"), seed))),
            seq(
                kw("RESERVOIR"),
                self.parens(size, opt(kw("ROWS"))),
                opt(seq(kw("REPEATABLE"), seed)),
            ),
        ]
        return [opt(seq(kw("USING", "SAMPLE"), alt(*forms)))]

    def connect_by(self) -> list[Expr]:
        """Hierarchical queries: ``[START WITH c] CONNECT BY [NOCYCLE] PRIOR a = b [AND ...]``
        (``START WITH`` before or after; sqlglot writes it first). ``PRIOR`` is read only in
        the ``CONNECT BY`` condition: here on either side of ``=``, in ``AND``-ed terms."""
        if not self.has("connect_by"):
            return []
        kw, ref = self.keyword, self.ref
        prior = seq(kw("PRIOR"), ref("bitwise"))
        term = alt(
            seq(prior, self.punct("="), ref("bitwise")),
            seq(ref("bitwise"), self.punct("="), prior),
        )
        connect = seq(term, star(seq(kw("AND"), term)))
        nocycle = opt(kw("NOCYCLE")) if self.has("connect_by_nocycle") else empty()
        start = seq(kw("START", "WITH"), ref("condition"))
        body = seq(self.phrase("CONNECT", "BY"), nocycle, connect)
        return [opt(alt(seq(opt(start), body), seq(body, start)))]

    def group_by_suffix(self) -> Expr:
        """ClickHouse's ``GROUP BY a WITH TOTALS``."""
        return opt(self.keyword("WITH", "TOTALS")) if self.has("with_totals") else empty()

    def query_suffixes(self) -> Expr:
        """What may follow the limit: locking clauses (``FOR UPDATE OF t SKIP LOCKED``),
        T-SQL's ``FOR XML PATH`` / ``FOR JSON AUTO``, ClickHouse's ``SETTINGS x = 1`` and
        ``FORMAT JSONEachRow``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        if self.has("for_update") or self.has("for_share"):
            modes = [
                kw("FOR", word)
                for feature, word in (("for_update", "UPDATE"), ("for_share", "SHARE"))
                if self.has(feature)
            ]
            lock: Expr = alt(*modes)
            if self.has("for_update_of"):
                lock = seq(lock, opt(seq(kw("OF"), self.separated(ref("table_name")))))
            waits = [
                words
                for feature, words in (
                    ("for_update_nowait", kw("NOWAIT")),
                    ("for_update_skip_locked", kw("SKIP", "LOCKED")),
                )
                if self.has(feature)
            ]
            if waits:
                lock = seq(lock, opt(alt(*waits)))
            out.append(Repeat(lock, 1) if self.has("for_update_many") else lock)
        for_clause = self.for_clause()
        if for_clause is not None:
            out.append(for_clause)
        suffix: Expr = opt(alt(*out)) if out else empty()
        options = self.query_options()
        if options is not None:  # T-SQL's OPTION(...), after FOR XML
            suffix = seq(suffix, opt(options))
        if self.has("settings"):
            setting = seq(ref("ident"), self.punct("="), ref("expr"))
            suffix = seq(suffix, opt(seq(kw("SETTINGS"), self.separated(setting))))
        if self.has("format_clause"):
            suffix = seq(suffix, opt(seq(kw("FORMAT"), ref("ident"))))
        return suffix

    def for_clause(self) -> Expr | None:
        """T-SQL's ``FOR XML``/``FOR JSON`` with the options of sqlglot's own tables."""
        kw = self.keyword
        kinds: list[Expr] = []
        for feature, kind, options in (
            ("for_xml", "XML", self.tables.for_xml_options),
            ("for_json", "JSON", self.tables.for_json_options),
        ):
            if not self.has(feature) or not options:
                continue
            forms: list[Expr] = []
            for word, follows in options:
                if follows:
                    forms.append(seq(kw(word), opt(alt(*(kw(f) for f in follows)))))
                else:
                    forms.append(kw(word))
            named = self.tables.for_named_options
            forms += [seq(kw(word), opt(self.parens(Ref("STRING")))) for word in named]
            kinds.append(seq(kw("FOR"), kw(kind), self.separated(alt(*forms))))
        kinds += self.for_browse()
        return alt(*kinds) if kinds else None

    def lateral(self, derived_alias: Expr, name_alias: Expr) -> Expr | None:
        """``LATERAL (SELECT ...) AS s`` and ``LATERAL f(x) AS s`` (after a comma)."""
        kw, ref = self.keyword, self.ref
        forms: list[Expr] = []
        if self.has("lateral_subquery"):
            forms.append(seq(kw("LATERAL"), self.parens(ref("query")), derived_alias))
        if self.has("lateral_function") and "call" in self.rules_wanted():
            forms.append(seq(kw("LATERAL"), ref("table_call"), opt(name_alias)))
            forms += self.lateral_column_forms()
            if self.has("lateral_ordinality"):
                columns = opt(self.parens(self.separated(ref("ident"))))
                ordinality = seq(kw("WITH", "ORDINALITY"), opt(seq(name_alias, columns)))
                forms.append(seq(kw("LATERAL"), ref("table_call"), ordinality))
        return alt(*forms) if forms else None

    def rules_wanted(self) -> set[str]:
        """Rules that will exist: ``call`` only where some function may be called."""
        calls = bool(self.callable_functions()) or (
            self.options.anonymous_calls and self.has("anonymous")
        )
        return {"call"} if calls else set()

    def table_functions(self, name_alias: Expr, columns: Expr) -> list[Expr]:
        """``f(x) AS s``, ``UNNEST(a) [WITH ORDINALITY] AS u(x)``, ``TABLE(f(x))``,
        ``(VALUES (1, 2)) AS t(a, b)``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        calls = "call" in self.rules_wanted()
        if calls and self.has("table_function"):
            function_alias = name_alias
            if self.has("table_function_columns"):
                function_alias = seq(function_alias, opt(self.function_alias_columns(columns)))
            named = opt(function_alias) if self.has("table_function_bare") else function_alias
            out.append(seq(ref("table_call"), named))
        if self.has("unnest"):
            unnest = seq(kw("UNNEST"), self.parens(self.separated(ref("expr"))))
            alias: Expr = seq(kw("AS"), ref("ident"))
            if self.has("unnest_columns"):
                alias = seq(alias, opt(columns))
            tails: list[Expr] = [opt(alias)]
            if self.has("unnest_ordinality"):
                tails.append(seq(kw("WITH", "ORDINALITY"), opt(alias)))
            if self.has("unnest_offset"):
                as_name = seq(kw("AS"), ref("ident"))
                offset_name = as_name
                if self.has("unnest_offset_bare"):  # WITH OFFSET o (written AS o)
                    offset_name = alt(as_name, ref("ident"))
                tails.append(seq(opt(as_name), kw("WITH", "OFFSET"), opt(offset_name)))
            out.append(seq(unnest, alt(*tails)))
        if calls and self.has("table_of"):
            of_alias = name_alias
            if self.has("table_of_columns"):
                of_alias = seq(of_alias, opt(columns))
            out.append(seq(kw("TABLE"), self.parens(ref("table_call")), opt(of_alias)))
        if self.has("values_table"):
            rows = self.separated(self.parens(self.separated(ref("expr"))))
            values = self.parens(kw("VALUES"), rows)
            out.append(seq(values, kw("AS"), ref("ident"), columns))
        return out + self.json_tables(name_alias, columns)

    def table_samples(self) -> list[Expr]:
        """``TABLESAMPLE SYSTEM (50)`` and the dialect's other sample forms (after a table)."""
        kw = self.keyword
        number = alt(Ref("INTEGER"), Ref("DECIMAL"))
        out: list[Expr] = []
        for feature, words, unit in (
            ("tablesample_system", ("TABLESAMPLE", "SYSTEM"), None),
            ("tablesample_bernoulli", ("TABLESAMPLE", "BERNOULLI"), None),
            ("tablesample_percent", ("TABLESAMPLE",), "PERCENT"),
            ("tablesample_system_percent", ("TABLESAMPLE", "SYSTEM"), "PERCENT"),
            ("tablesample_rows", ("TABLESAMPLE",), "ROWS"),
            ("tablesample_plain", ("TABLESAMPLE",), None),
            ("sample", ("SAMPLE",), None),
        ):
            if self.has(feature):
                size = seq(number, kw(unit)) if unit else number
                sample = seq(kw(*words), self.parens(size))
                if len(words) == 2 and self.has("tablesample_repeatable"):
                    sample = seq(sample, opt(seq(kw("REPEATABLE"), self.parens(Ref("INTEGER")))))
                out.append(sample)
        if self.has("tablesample_bucket"):
            bucket = seq(kw("BUCKET"), Ref("INTEGER"), kw("OUT", "OF"), Ref("INTEGER"))
            if self.has("tablesample_bucket_on"):
                bucket = seq(bucket, opt(seq(kw("ON"), self.ref("expr"))))
            out.append(seq(kw("TABLESAMPLE"), self.parens(bucket)))
        return out

    def pivots(self) -> list[Expr]:
        """``PIVOT(SUM(a) FOR b IN ('x', 'y'))`` and ``UNPIVOT(a FOR b IN (c, d))``."""
        kw, ref = self.keyword, self.ref
        out: list[Expr] = []
        alias = opt(seq(kw("AS"), ref("ident")))
        if self.has("pivot") and "call" in self.rules_wanted():
            value = seq(ref("expr"), opt(seq(kw("AS"), ref("ident"))))
            aggregation: Expr = ref("call")
            if self.has("pivot_any_value"):  # Spark: PIVOT(SUM(a) AS s, 'x' AS y FOR ...)
                aggregation = alt(aggregation, ref("expr"))
            comma, group, in_names = self.pivot_tails()
            agg_alias = seq(kw("AS"), ref("ident"))
            if self.has("pivot_agg_alias_bare"):  # PIVOT(SUM(b) d FOR ...), written AS d
                agg_alias = alt(agg_alias, ref("ident"))
            body = seq(
                self.separated(seq(aggregation, opt(agg_alias))),
                comma,
                kw("FOR"),
                ref("column_ref") if self.has("pivot_qualified") else ref("ident"),
                kw("IN"),
                alt(self.parens(self.separated(value)), *self.pivot_in_lists(), *in_names),
                group,
            )
            pivot_alias = self.pivot_alias("pivot")
            if pivot_alias is None:
                pivot_alias = alias if self.has("pivot_alias") else empty()
            out.append(seq(kw("PIVOT"), self.parens(body), pivot_alias))
        if self.has("unpivot"):
            body = seq(
                ref("ident"),
                kw("FOR"),
                ref("ident"),
                kw("IN"),
                self.parens(self.separated(self.unpivot_column())),
            )
            body = alt(body, *self.unpivot_groups())
            unpivot_alias = self.pivot_alias("unpivot")
            if unpivot_alias is None:
                unpivot_alias = alias if self.has("unpivot_alias") else empty()
            nulls = self.unpivot_nulls()
            out.append(seq(kw("UNPIVOT"), nulls, self.parens(body), unpivot_alias))
        return out

"""BigQuery's ML and AI table functions: ``ML.PREDICT(MODEL m, TABLE t, STRUCT(0.5 AS x))``,
``ML.FORECAST(MODEL m, STRUCT(2 AS horizon))``, ``AI.GENERATE_TEXT(MODEL m, (SELECT ...))``;
and the table functions of a table and named arguments, ``GAP_FILL(TABLE t, ts_column => 'a',
bucket_width => INTERVAL '1' MINUTE)``, ``VECTOR_SEARCH(TABLE t, 'c', TABLE q, top_k => 2)``;
and ``UNPIVOT`` of column groups, ``UNPIVOT((a, b) FOR s IN ((q1, q2) AS 'h1', ...))``.

The functions are those of the dialect's ``FUNCTION_PARSERS`` read by sqlglot's ML parsers
(``_parse_ml``, ``_parse_generate``...); each takes, after ``MODEL name``, the argument shapes
that round-trip for it behind ``ML.`` or ``AI.`` in ``FROM`` (a table, a query, a parameter
struct; a prompt string for the ``GENERATE_*`` ones). Probed once per dialect.
"""

from __future__ import annotations

import functools

from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["MlTableRules", "ml_functions"]

_TABLE_CALLS = {
    "gap_fill": ("", "GAP_FILL", "GapFill"),
    "vector_search": ("", "VECTOR_SEARCH", "VectorSearch"),
    "features_at_time": ("ML", "FEATURES_AT_TIME", "FeaturesAtTime"),
    "ai_forecast": ("AI", "FORECAST", "AIForecast"),
}
"""Table functions of a table then named arguments, by feature: the prefix, the name and
sqlglot's class (whose argument names are the names offered)."""

_PARSERS = frozenset({"_parse_ml", "_parse_generate", "_parse_translate", "_parse_forecast"})
_SHAPES = {
    "table": "TABLE t",
    "table_struct": "TABLE t, STRUCT(1 AS a)",
    "query": "(SELECT 1)",
    "query_struct": "(SELECT 1), STRUCT(1 AS a)",
    "struct": "STRUCT(1 AS a)",
}
_PROMPTS = {"prompt": "'x'", "prompt_struct": "'x', STRUCT(1 AS a)"}


@functools.cache
def ml_functions(dialect: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(prefix, name, shapes) of each ML/AI table function that round-trips in ``dialect``."""
    import sqlglot
    from sqlglot.dialects.dialect import Dialect

    from typedgen.frontends.sql.trees import same_tree

    def round_trips(sql: str) -> bool:
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
            return same_tree(sqlglot.parse_one(tree.sql(dialect), read=dialect), tree)
        except Exception:  # sqlglot raises several error types on what it cannot read
            return False

    parsers = Dialect.get_or_raise(dialect).parser_class.FUNCTION_PARSERS
    out = []
    for name, parse in sorted(parsers.items()):
        code = getattr(parse, "__code__", None)
        used = set(code.co_names) if code is not None else set()
        if not used & _PARSERS:
            continue
        shapes = dict(_SHAPES)
        if "_parse_generate" in used:
            shapes |= _PROMPTS
        for prefix in ("ML", "AI"):
            kept = tuple(
                shape
                for shape, args in shapes.items()
                if round_trips(f"SELECT * FROM {prefix}.{name}(MODEL m, {args})")
            )
            if kept:
                out.append((prefix, name, kept))
    return tuple(out)


class MlTableRules(RuleBuilder):
    """``ML.name(MODEL m, ...) [AS a]`` in ``FROM``."""

    def ml_table_functions(self, name_alias: Expr) -> list[Expr]:
        if not self.has("ml_functions"):
            return []
        kw, punct, ref = self.keyword, self.punct, self.ref
        field = seq(ref("expr"), opt(seq(kw("AS"), ref("ident"))))
        struct = seq(kw("STRUCT"), self.parens(opt(self.separated(field))))
        table = seq(kw("TABLE"), ref("table_name"))
        query = self.parens(ref("query"))
        comma = punct(",")
        shapes: dict[str, Expr] = {
            "table": table,
            "table_struct": seq(table, comma, struct),
            "query": query,
            "query_struct": seq(query, comma, struct),
            "struct": struct,
            "prompt": Ref("STRING"),
            "prompt_struct": seq(Ref("STRING"), comma, struct),
        }
        out: list[Expr] = []
        for prefix, name, kept in ml_functions(self.tables.name):
            args = seq(kw("MODEL"), ref("table_name"), comma, alt(*(shapes[s] for s in kept)))
            call = seq(kw(prefix), punct("."), kw(name), self.parens(args))
            out.append(seq(call, opt(name_alias)))
        return out

    def _source(self) -> Expr:
        """``TABLE name`` or ``(query)``."""
        return alt(
            seq(self.keyword("TABLE"), self.ref("table_name")), self.parens(self.ref("query"))
        )

    def table_valued_calls(self, name_alias: Expr) -> list[Expr]:
        """``GAP_FILL(TABLE t, ts_column => x, bucket_width => y[, ...])``: sqlglot fills its
        arguments by position, so two to six named ones (any of the class's names, which it
        writes back as given); ``VECTOR_SEARCH(TABLE t, 'c', TABLE q[, 'qc'][, top_k => 2])``,
        ``ML.FEATURES_AT_TIME(TABLE t, num_rows => 1)``, ``AI.FORECAST(TABLE t, horizon => 3)``:
        the names after the plain ones, each setting its own argument."""
        from sqlglot import exp

        kw, punct, ref = self.keyword, self.punct, self.ref
        comma = punct(",")
        out: list[Expr] = []
        for feature, (prefix, name, cls) in _TABLE_CALLS.items():
            if not self.has(feature):
                continue
            keys = list(getattr(exp, cls).arg_types)
            head = seq(kw(prefix), punct("."), kw(name)) if prefix else kw(name)
            if feature in ("features_at_time", "ai_forecast"):
                # Each name sets its own argument (sqlglot: expr.set(name, value)).
                named = alt(*(seq(kw(k.upper()), punct("=>"), ref("expr")) for k in keys[1:]))
                args = seq(self._source(), star(seq(comma, named)))
            elif feature == "gap_fill":
                named = alt(*(seq(kw(k.upper()), punct("=>"), ref("expr")) for k in keys[1:]))
                args = seq(self._source(), *(seq(comma, named) for _ in range(2)))
                args = seq(args, Repeat(seq(comma, named), 0, len(keys) - 3))
            else:
                plain = seq(self._source(), comma, ref("bitwise"), comma, self._source())
                named = alt(*(seq(kw(k.upper()), punct("=>"), ref("expr")) for k in keys[3:]))
                args = seq(plain, opt(seq(comma, Ref("STRING"))), star(seq(comma, named)))
            out.append(seq(head, self.parens(args), opt(name_alias)))
        return out

    def unpivot_groups(self) -> list[Expr]:
        """``UNPIVOT((a, b) FOR s IN ((q1, q2) AS 'h1', (q3, q4) AS 'h2'))``: columns unpivoted
        in groups (the body inside ``UNPIVOT(...)``)."""
        if not self.has("unpivot_groups"):
            return []
        kw, ref = self.keyword, self.ref
        names = self.parens(self.separated(ref("ident")))
        group = self.parens(self.separated(ref("column_ref")))
        if self.has("unpivot_in_alias"):
            group = seq(group, opt(seq(kw("AS"), alt(Ref("INTEGER"), Ref("STRING")))))
        groups = self.parens(self.separated(group))
        out = [seq(names, kw("FOR"), ref("ident"), kw("IN"), groups)]
        if self.has("unpivot_one_group"):  # UNPIVOT((c) FOR n IN (v1, v2)): one column
            columns = self.parens(self.separated(self.unpivot_column()))
            one = self.parens(ref("ident"))
            out.append(seq(one, kw("FOR"), ref("ident"), kw("IN"), columns))
        return out

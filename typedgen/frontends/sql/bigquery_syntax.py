"""BigQuery's call and subscript syntax (each on where its probe in :mod:`.bigquery_probes`
round-trips and the dialect class includes it; the entries are probed there):

- ``DATE_SUB(x, INTERVAL 2 DAY)``, ``TIMESTAMP_ADD(x, INTERVAL n MINUTE)``: the functions that
  add or subtract a unit, whose second argument is an interval (``INTERVAL 2 DAY`` is written
  back ``INTERVAL '2' DAY``, the same tree);
- ``a[OFFSET(1)]``, ``a[SAFE_ORDINAL(1)]``: sqlglot's ``BRACKET_OFFSETS``, read as a subscript
  with its base and safety;
- ``AI.EMBED('x')``, ``AI.GENERATE_BOOL(MODEL m, 'prompt')``: the functions sqlglot reads
  behind ``AI.``;
- ``ML.RESIZE_IMAGE(x, 1, 2, TRUE)``, ``d.my_udf(a)``: a user function qualified by its
  dataset (and project), with ``functions="any"`` as other user functions; sqlglot reads a dot
  then an anonymous call.
"""

from __future__ import annotations

from typedgen.frontends.sql.bigquery_probes import (
    bracket_offsets,
    interval_calls,
    named_parser_calls,
    prefixed_functions,
    week_days,
)
from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["BigQuerySyntaxRules"]


class BigQuerySyntaxRules(RuleBuilder):
    """Hooks for BigQuery's constructs; each returns nothing where the dialect lacks it."""

    def _offered(self, name: str) -> bool:
        return self.options.functions is None or name in self.options.functions

    def bigquery_primaries(self) -> list[Expr]:
        """Values: interval arithmetic calls, ``AI.`` calls and qualified user functions."""
        out = self.interval_calls() + self.prefixed_calls() + self.qualified_udfs()
        out += self.named_argument_calls()
        if self.has("tuple_value"):  # (1, 'a'): a tuple (BigQuery's struct constructor)
            expr = self.ref("expr")
            out.append(self.parens(expr, Repeat(seq(self.punct(","), expr), 1)))
        return out

    def named_argument_calls(self) -> list[Expr]:
        """``MAKE_INTERVAL(1, 2, minute => 5, day => 3)``: positional arguments, then names
        of the class's later arguments (any order; sqlglot writes them in its own)."""
        if not self.has("named_parser_args"):
            return []
        kw, punct, ref = self.keyword, self.punct, self.ref
        comma = punct(",")
        out: list[Expr] = []
        for name, names, most in named_parser_calls(self.tables.name):
            if not self._offered(name):
                continue
            named = alt(*(seq(kw(n.upper()), punct("=>"), ref("expr")) for n in names))
            named_list = seq(named, Repeat(seq(comma, named), 0, len(names) - 1))
            forms = [seq(Repeat(seq(ref("expr"), comma), n, n), named_list) for n in range(most)]
            out.append(seq(kw(name), self.parens(alt(*forms))))
        return out

    def week_units(self) -> list[Expr]:
        """``WEEK(MONDAY)``: a week starting on a day, as a date part of ``EXTRACT``."""
        if not self.has("week_start"):
            return []
        days = week_days(self.tables.name)
        if not days:
            return []
        kw = self.keyword
        return [seq(kw("WEEK"), self.parens(alt(*(kw(d) for d in days))))]

    def format_value(self) -> Expr:
        """What follows ``FORMAT`` in a cast: a string, ``('YYYY')`` (written bare), then
        ``AT TIME ZONE 'zone'``."""
        value: Expr = Ref("STRING")
        if self.has("cast_format_paren"):
            value = alt(value, self.parens(Ref("STRING")))
        if self.has("cast_format_zone"):
            value = seq(value, opt(seq(self.keyword("AT", "TIME", "ZONE"), Ref("STRING"))))
        return value

    def interval_calls(self) -> list[Expr]:
        """``NAME(x, INTERVAL n unit)``, with the units and amounts probed for each name."""
        if not self.has("interval_calls"):
            return []
        kw, ref = self.keyword, self.ref
        kinds: dict[str, Expr] = {
            "string": Ref("STRING"),
            "number": Ref("INTEGER"),
            "column": ref("column_ref"),
        }
        out: list[Expr] = []
        for name, units, amounts in interval_calls(self.tables.name):
            if not self._offered(name):
                continue
            amount = alt(*(kinds[a] for a in amounts))
            interval = seq(kw("INTERVAL"), amount, alt(*(kw(u) for u in units)))
            out.append(seq(kw(name), self.parens(ref("expr"), self.punct(","), interval)))
        return out

    def prefixed_calls(self) -> list[Expr]:
        """``AI.EMBED('x')`` (the function's own arguments), ``AI.GENERATE_BOOL(MODEL m,
        'prompt'[, STRUCT(...)])``."""
        if not self.has("prefixed_calls"):
            return []
        kw, punct, ref = self.keyword, self.punct, self.ref
        funcs = {f.name: f for f in self.callable_functions()}
        field = seq(ref("expr"), opt(seq(kw("AS"), ref("ident"))))
        struct = seq(kw("STRUCT"), self.parens(opt(self.separated(field))))
        model = seq(kw("MODEL"), ref("table_name"), punct(","), Ref("STRING"))
        shapes = {"prompt": model, "prompt_struct": seq(model, punct(","), struct)}
        out: list[Expr] = []
        for name, kind in prefixed_functions(self.tables.name, "AI"):
            if not self._offered(name):
                continue
            head = seq(kw("AI"), punct("."), kw(name))
            if kind == "plain":
                func = funcs.get(name)
                if func is None:
                    continue
                args = self.arguments(func.arity, func.aggregate)  # type: ignore[attr-defined]
                out.append(seq(head, self.parens(args)))
            else:
                out.append(seq(head, self.parens(shapes[kind])))
        return out

    def qualified_udfs(self) -> list[Expr]:
        """``ML.RESIZE_IMAGE(x, 1)``, ``p.d.f(a)``: a user function behind one or two names."""
        if not (
            self.options.anonymous_calls and self.has("anonymous") and self.has("qualified_udf")
        ):
            return []
        ref, dot = self.ref, self.punct(".")
        names = Repeat(seq(ref("ident"), dot), 1, 2)
        args = opt(self.separated(ref("expr")))
        return [seq(names, Ref("IDENT"), self.parens(args))]

    def bigquery_postfix(self) -> list[Expr]:
        """``[OFFSET(1)]``, ``[SAFE_ORDINAL(i + 1)]`` after a value."""
        if not self.has("subscript"):
            return []
        kw, punct = self.keyword, self.punct
        words = bracket_offsets(self.tables.name) if self.has("bracket_offsets") else ()
        out: list[Expr] = []
        if words:
            word = alt(*(kw(w) for w in words))
            out.append(seq(punct("["), word, self.parens(self.ref("expr")), punct("]")))
        if self.has("subscript_field"):
            # a[0].b, a[OFFSET(1)].c.d: fields of a subscript's struct.
            fields = Repeat(seq(punct("."), self.ref("ident")), 1)
            plain = seq(punct("["), self.ref("expr"), punct("]"))
            out += [seq(subscript, fields) for subscript in (plain, *out)]
        return out

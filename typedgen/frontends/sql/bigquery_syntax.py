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
    nested_types,
    prefixed_functions,
    week_days,
)
from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.nodes import Expr, Ref, Repeat

__all__ = ["BigQuerySyntaxRules"]


class BigQuerySyntaxRules(RuleBuilder):
    """Hooks for BigQuery's constructs; each returns nothing where the dialect lacks it."""

    def bigquery_primaries(self) -> list[Expr]:
        """Values: interval arithmetic calls, ``AI.`` calls and qualified user functions."""
        out = self.interval_calls() + self.prefixed_calls() + self.qualified_udfs()
        out += self.named_argument_calls()
        out += self.typed_constructors()
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
            if not self.offers(name):
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
            if not self.offers(name):
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
            if not self.offers(name):
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

    # -- types of types --------------------------------------------------------------------
    _NESTED_DEPTH = 3
    """How many types of types may close together (``>>>``; deeper ones with spaces)."""

    def _nested(self) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
        if not self.has("nested_types"):
            return {}, ()
        skip = self.options.exclude_types
        words = tuple(
            w for w, params in sorted(self.tables.types.items()) if 0 in params and w not in skip
        )
        made, inner = nested_types(self.tables.name, words)
        return {w: s for w, s in made.items() if w not in skip}, inner

    def _closers(self, k: int) -> Expr:
        """``k`` closing ``>``: a ``>>`` token closes two (sqlglot's tokenizer reads one)."""
        punct = self.punct
        if k == 0:
            return seq()
        if k == 1:
            return punct(">")
        return alt(seq(punct(">"), self._closers(k - 1)), seq(punct(">>"), self._closers(k - 2)))

    def _open(self, word: str, shapes: tuple[str, ...], inside: Expr) -> Expr:
        """``W<`` then its last type ``inside`` (not closed): ``ARRAY<T``, ``STRUCT<a T, b T``."""
        punct, ref = self.punct, self.ref
        forms: list[Expr] = []
        if "element" in shapes:
            forms.append(inside)
        if "fields" in shapes:
            field = seq(opt(ref("ident")), ref("bq_closed_type"))
            forms.append(seq(star(seq(field, punct(","))), opt(ref("ident")), inside))
        return seq(self.keyword(word), punct("<"), alt(*forms))

    def nested_type_rules(self) -> None:
        """``bq_nested_type``: a closed type of types; its words registered now (before the
        lexicon is built). ``bq_open_k``: one with ``k`` closing ``>`` left."""
        made, inner = self._nested()
        if not made or not inner or "bq_nested_type" in self.rules:
            return
        plain = alt(*(self.type_word(w) for w in inner))  # type: ignore[attr-defined]
        depth = self._NESTED_DEPTH
        for k in range(1, depth + 1):
            inside = self.ref("bq_closed_type") if k == 1 else self.ref(f"bq_open_{k - 1}")
            self.rule(f"bq_open_{k}", alt(*(self._open(w, s, inside) for w, s in made.items())))
        closed = [seq(self.ref(f"bq_open_{k}"), self._closers(k)) for k in range(1, depth + 1)]
        self.rule("bq_nested_type", alt(*closed))
        self.rule("bq_closed_type", alt(plain, self.ref("bq_nested_type")))

    def nested_types(self) -> list[Expr]:
        """The types of types ``CAST`` takes (``data_type``'s alternatives)."""
        return [self.ref("bq_nested_type")] if "bq_nested_type" in self.rules else []

    def typed_constructors(self) -> list[Expr]:
        """``ARRAY<INT64>[1, 2]``, ``STRUCT<a INT64>(1, 'x')``: a value of a type of types."""
        self.nested_type_rules()
        if not (self.has("typed_constructors") and "bq_nested_type" in self.rules):
            return []
        made, _ = self._nested()
        ref, punct = self.ref, self.punct
        values = opt(self.separated(ref("expr")))
        out: list[Expr] = []
        for word, shapes in made.items():
            bodies = []
            if "brackets" in shapes:
                bodies.append(seq(punct("["), values, punct("]")))
            if "parens" in shapes:  # (a struct of no field has no typed constructor)
                bodies.append(self.parens(self.separated(ref("expr"))))
            if not bodies:
                continue
            depth = self._NESTED_DEPTH
            inner = [ref("bq_closed_type")] + [ref(f"bq_open_{k}") for k in range(1, depth)]
            typed = alt(
                *(
                    seq(self._open(word, shapes, inside), self._closers(k + 1))
                    for k, inside in enumerate(inner)
                )
            )
            out.append(seq(typed, alt(*bodies)))
        return out

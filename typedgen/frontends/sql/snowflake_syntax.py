"""Snowflake's own table, type and call syntax (each on where its probe in
:mod:`.warehouse_probes` round-trips and the dialect class includes it):

- ``t CHANGES (INFORMATION => DEFAULT) AT (TIMESTAMP => x) [END (TIMESTAMP => y)]``;
- ``OBJECT(a INT NOT NULL, b VARCHAR)`` types, ``CAST(x AS OBJECT(...) ADD FIELDS)``;
- ``LIMIT NULL [OFFSET n]``;
- a staged file's columns ``t.$1``, ``$1.a`` (with ``placeholders=True``, as ``$1`` is);
- a model's methods ``m!PREDICT(INPUT_DATA => {*})`` and attributes ``m!name`` (with
  ``functions="any"``: their names are the model's, not sqlglot's).
"""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq
from typedgen.ir.nodes import Expr, Ref

__all__ = ["SnowflakeRules"]

_INFORMATION = ("DEFAULT", "APPEND_ONLY")
"""What a ``CHANGES`` clause records (sqlglot reads any word; these are Snowflake's)."""


class SnowflakeRules(RuleBuilder):
    """Hooks for Snowflake's constructs; each returns nothing where the dialect lacks it."""

    def changes_clause(self) -> list[Expr]:
        """``CHANGES (INFORMATION => x) AT|BEFORE (kind => v) [END (kind => v)]`` after a
        table name (in place of a plain ``AT``/``BEFORE``)."""
        kinds = self.tables.historical_kinds
        if not (self.has("changes") and kinds):
            return []
        kw, punct = self.keyword, self.punct
        body = self.parens(alt(*(kw(k) for k in kinds)), punct("=>"), self.ref("bitwise"))
        info = self.parens(kw("INFORMATION"), punct("=>"), alt(*(kw(w) for w in _INFORMATION)))
        at = seq(alt(kw("AT"), kw("BEFORE")), body)
        return [seq(kw("CHANGES"), info, at, opt(seq(kw("END"), body)))]

    def object_types(self) -> list[Expr]:
        """``OBJECT(a INT NOT NULL, b OBJECT(c VARCHAR))``: named fields of types."""
        if not self.has("object_type"):
            return []
        field = seq(self.ref("ident"), self.ref("data_type"), opt(self.keyword("NOT", "NULL")))
        form = seq(self.keyword("OBJECT"), self.parens(self.separated(field)))
        self.rule("object_type", form)
        return [self.ref("object_type")]

    def cast_field_forms(self) -> list[Expr]:
        """``CAST(x AS OBJECT(a INT) ADD FIELDS)`` (or ``RENAME FIELDS``)."""
        if not (self.has("object_fields") and self.object_types()):
            return []
        kw = self.keyword
        return [seq(self.ref("object_type"), alt(kw("ADD"), kw("RENAME")), kw("FIELDS"))]

    def limit_null(self) -> list[Expr]:
        """``LIMIT NULL [OFFSET n]``: no limit."""
        if not self.has("limit_null"):
            return []
        kw = self.keyword
        return [seq(kw("LIMIT", "NULL"), opt(seq(kw("OFFSET"), Ref("INTEGER"))))]

    def dollar_columns(self) -> list[Expr]:
        """A staged file's columns: ``t.$1``, ``$1.a``."""
        if not (self.options.placeholders and self.has("dollar_column")):
            return []
        if not self.has("dollar_placeholder"):
            return []
        self.params_used.add("DOLLAR_PARAM")
        dot, ref = self.punct("."), self.ref
        return [
            seq(ref("ident"), dot, Ref("DOLLAR_PARAM")),
            seq(Ref("DOLLAR_PARAM"), dot, ref("ident")),
        ]

    def model_attributes(self) -> list[Expr]:
        """``m!PREDICT(INPUT_DATA => {*}, x)`` and ``m!name``."""
        if not (self.options.anonymous_calls and self.has("model_attribute")):
            return []
        ref, punct = self.ref, self.punct
        arg = alt(ref("expr"), seq(Ref("IDENT"), punct("=>"), ref("expr")))
        call = opt(self.parens(opt(self.separated(arg))))
        return [seq(ref("column_ref"), punct("!"), Ref("IDENT"), call)]

"""Calls of a date part: Snowflake's ``DATE_PART(part FROM x)``, with the parts ``EXTRACT``
takes (``tables.extract_units``; the words probed are ``trees.date_part_words``)."""

from __future__ import annotations

from typedgen.frontends.sql.rules import RuleBuilder, alt, seq
from typedgen.ir.nodes import Expr

__all__ = ["DatePartRules"]


class DatePartRules(RuleBuilder):
    """Calls of a date part besides ``EXTRACT(part FROM x)``."""

    def date_part_calls(self) -> list[Expr]:
        """Snowflake's ``DATE_PART(part FROM x)`` (sqlglot writes ``DATE_PART(part, x)``)."""
        units = self.tables.extract_units
        if not (self.has("date_part_from") and units):
            return []
        kw = self.keyword
        unit = alt(*(kw(u) for u in units))
        return [seq(kw("DATE_PART"), self.parens(unit, kw("FROM"), self.ref("expr")))]

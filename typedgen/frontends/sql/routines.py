"""Inline SQL routines: Trino's ``WITH FUNCTION f(a INTEGER) RETURNS INTEGER ... SELECT f(1)``.

A query may start with routine declarations, each a function written in Trino's SQL routine
language: a ``RETURN expr`` body, or a ``BEGIN ... END`` block of ``DECLARE``, ``SET``,
``RETURN``, ``IF``/``ELSEIF``/``ELSE``, simple and searched ``CASE ... END CASE``, ``WHILE``,
``LOOP`` and ``REPEAT`` (optionally labelled ``lbl:``), ``LEAVE`` and ``ITERATE``, with the
characteristics ``COMMENT``, ``LANGUAGE SQL``, ``[NOT] DETERMINISTIC``, ``RETURNS NULL ON NULL
INPUT``, ``CALLED ON NULL INPUT``, ``SECURITY DEFINER|INVOKER`` and ``WITH (k = v, ...)``.

Each piece is on where its probe (:data:`ROUTINE_PROBES`) round-trips: sqlglot reads routines
in Trino and the dialects built on it (Athena, Dune) and nowhere else. A routine is a declared
function, called as a user-defined one (``name(args)``, sqlglot's anonymous call), so routines
are offered only where such calls are (``functions="any"``): elsewhere a routine could never be
called, and a call to a name no routine declares stays refused. A grammar cannot tie a call to
a declaration, so any user-defined name stays callable there, as it is without routines. The
routine's parameters are names a schema does not know: routines are off in schema-aware mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typedgen.ir.nodes import Alt, Expr, Ref, Repeat, Seq

if TYPE_CHECKING:
    from typedgen.frontends.sql.rules import RuleBuilder as _Rules
else:  # the rules module imports the tables, which import these probes
    _Rules = object

__all__ = ["ROUTINE_PROBES", "RoutineRules"]

_F = "WITH FUNCTION f(a INTEGER, b VARCHAR) RETURNS INTEGER"
_CALL = "SELECT f(1, 'x')"

ROUTINE_PROBES: dict[str, str] = {
    "routine": f"{_F} RETURN a + 1 {_CALL}",
    "routine_list": f"{_F} RETURN 1, FUNCTION g() RETURNS INTEGER RETURN 2 SELECT f(1, 'x') + g()",
    "routine_cte": f"{_F} RETURN 1 WITH t AS (SELECT 1 AS a) SELECT f(a, 'x') FROM t",
    "routine_block": f"{_F} BEGIN DECLARE x, y INTEGER DEFAULT 1; DECLARE z VARCHAR;"
    f" SET x = a + y; BEGIN RETURN x; END; END {_CALL}",
    "routine_if": f"{_F} BEGIN IF a = 0 THEN RETURN 1; ELSEIF a = 1 THEN RETURN 2; ELSE"
    f" RETURN 3; END IF; END {_CALL}",
    "routine_case": f"{_F} BEGIN CASE a WHEN 0 THEN RETURN 1; ELSE RETURN 2; END CASE;"
    f" CASE WHEN a = 1 THEN RETURN 3; END CASE; END {_CALL}",
    "routine_while": f"{_F} BEGIN x: WHILE a < 10 DO SET a = a + 1; ITERATE x; END WHILE;"
    f" WHILE a < 1 DO LEAVE x; END WHILE; END {_CALL}",
    "routine_loop": f"{_F} BEGIN y: LOOP LEAVE y; END LOOP; LOOP RETURN a; END LOOP; END {_CALL}",
    "routine_repeat": f"{_F} BEGIN z: REPEAT ITERATE z; UNTIL a > 1 END REPEAT; REPEAT SET"
    f" a = 2; UNTIL TRUE END REPEAT; END {_CALL}",
    "routine_comment": f"{_F} COMMENT 'x' RETURN 1 {_CALL}",
    "routine_language": f"{_F} LANGUAGE SQL RETURN 1 {_CALL}",
    "routine_deterministic": f"{_F} DETERMINISTIC NOT DETERMINISTIC RETURN 1 {_CALL}",
    "routine_null_input": f"{_F} RETURNS NULL ON NULL INPUT CALLED ON NULL INPUT RETURN 1 {_CALL}",
    "routine_security": f"{_F} SECURITY DEFINER SECURITY INVOKER RETURN 1 {_CALL}",
    "routine_properties": f"{_F} LANGUAGE SQL WITH (a = 1, b = 'x', c = 1.5) RETURN 1 {_CALL}",
}
"""Each piece of the routine language with the SQL that must round-trip for it to be on."""


def _seq(*items: Expr) -> Expr:
    return Seq(tuple(items))


def _alt(*items: Expr) -> Expr:
    return items[0] if len(items) == 1 else Alt(tuple(items))


def _opt(item: Expr) -> Expr:
    return Repeat(item, 0, 1)


class RoutineRules(_Rules):
    """``WITH FUNCTION ...`` before a query."""

    def routines_offered(self) -> bool:
        """Routines where the probes round-trip, calls to user-defined names are offered, and
        no schema limits the names (a routine's parameters are names of its own)."""
        return (
            self.has("routine")
            and self.has("routine_cte")
            and self.options.anonymous_calls
            and self.has("anonymous")
            and self.options.schema is None
            and bool(set(self.tables.types) - self.options.exclude_types)
        )

    def with_routines(self, query: Ref) -> Ref:
        """``WITH FUNCTION f(a T) RETURNS T [characteristics] body [, FUNCTION ...] query``
        (the query may have a ``WITH`` of its own), or the query alone."""
        if not self.routines_offered():
            return query
        kw, ref = self.keyword, self.ref
        param = _seq(ref("ident"), ref("data_type"))
        params = self.parens(_opt(self.separated(param)))
        body = _alt(_seq(kw("RETURN"), ref("expr")), *self._routine_block())
        head = _seq(kw("FUNCTION"), Ref("IDENT"), params, kw("RETURNS"), ref("data_type"))
        routine = self.rule("routine", _seq(head, *self._characteristics(), body))
        routines = self.separated(routine) if self.has("routine_list") else routine
        return self.rule("routine_query", _alt(_seq(kw("WITH"), routines, query), query))

    def _characteristics(self) -> list[Expr]:
        kw = self.keyword
        forms: list[Expr] = []
        if self.has("routine_comment"):
            forms.append(_seq(kw("COMMENT"), Ref("STRING")))
        if self.has("routine_language"):
            forms.append(kw("LANGUAGE", "SQL"))
        if self.has("routine_deterministic"):
            forms.append(_seq(_opt(kw("NOT")), kw("DETERMINISTIC")))
        if self.has("routine_null_input"):
            forms.append(kw("RETURNS", "NULL", "ON", "NULL", "INPUT"))
            forms.append(kw("CALLED", "ON", "NULL", "INPUT"))
        if self.has("routine_security"):
            forms.append(_seq(kw("SECURITY"), _alt(kw("DEFINER"), kw("INVOKER"))))
        out: list[Expr] = [Repeat(_alt(*forms))] if forms else []
        if self.has("routine_properties"):
            # WITH (k = v, ...) last: sqlglot writes it after the other characteristics.
            value = _alt(Ref("STRING"), Ref("INTEGER"), Ref("DECIMAL"))
            # A key is a plain word: sqlglot drops a quoted key's quotes.
            prop = _seq(Ref("IDENT"), self.punct("="), value)
            out.append(_opt(_seq(kw("WITH"), self.parens(self.separated(prop)))))
        return out

    def _routine_block(self) -> list[Expr]:
        """``BEGIN [DECLARE ...;]... [statement;]... END`` and the statements inside."""
        if not self.has("routine_block"):
            return []
        kw, ref, punct = self.keyword, self.ref, self.punct
        stmt = ref("routine_statement")
        end = punct(";")
        listed = Repeat(_seq(stmt, end), 1)  # one or more, each closed by ";"
        label = _opt(_seq(ref("ident"), punct(":")))
        statements: list[Expr] = [
            _seq(kw("RETURN"), ref("expr")),
            _seq(kw("SET"), ref("ident"), punct("="), ref("expr")),
            ref("routine_block"),
        ]
        if self.has("routine_if"):
            branch = _seq(ref("expr"), kw("THEN"), listed)
            statements.append(
                _seq(
                    kw("IF"),
                    branch,
                    Repeat(_seq(kw("ELSEIF"), branch)),
                    _opt(_seq(kw("ELSE"), listed)),
                    kw("END", "IF"),
                )
            )
        if self.has("routine_case"):
            whens = Repeat(_seq(kw("WHEN"), ref("expr"), kw("THEN"), listed), 1)
            tail = _seq(whens, _opt(_seq(kw("ELSE"), listed)), kw("END", "CASE"))
            statements.append(_seq(kw("CASE"), _opt(ref("expr")), tail))
        loops = False
        if self.has("routine_while"):
            loops = True
            body = _seq(kw("DO"), listed, kw("END", "WHILE"))
            statements.append(_seq(label, kw("WHILE"), ref("expr"), body))
        if self.has("routine_loop"):
            loops = True
            statements.append(_seq(label, kw("LOOP"), listed, kw("END", "LOOP")))
        if self.has("routine_repeat"):
            loops = True
            until = _seq(kw("UNTIL"), ref("expr"), kw("END", "REPEAT"))
            statements.append(_seq(label, kw("REPEAT"), listed, until))
        if loops:
            statements.append(_seq(_alt(kw("LEAVE"), kw("ITERATE")), ref("ident")))
        self.rule("routine_statement", _alt(*statements))
        names = self.separated(ref("ident"))
        default = _opt(_seq(kw("DEFAULT"), ref("bitwise")))
        declare = _seq(kw("DECLARE"), names, ref("data_type"), default, end)
        block = _seq(kw("BEGIN"), Repeat(declare), Repeat(_seq(stmt, end)), kw("END"))
        return [self.rule("routine_block", block)]

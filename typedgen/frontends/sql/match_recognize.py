"""Row pattern recognition: ``FROM t MATCH_RECOGNIZE (...) [AS] m`` (Trino, Oracle, Snowflake).

``MATCH_RECOGNIZE ([PARTITION BY ...] [ORDER BY ...] [MEASURES [FINAL|RUNNING] expr AS name, ...]
[ONE ROW PER MATCH | ALL ROWS PER MATCH [SHOW EMPTY MATCHES | OMIT EMPTY MATCHES | WITH
UNMATCHED ROWS]] [AFTER MATCH SKIP PAST LAST ROW | TO NEXT ROW | TO FIRST|LAST v] PATTERN
(pattern) DEFINE v AS condition, ...)`` after the ``FROM`` items, each piece where its probe
(:data:`MATCH_RECOGNIZE_PROBES`) round-trips. The pattern is a row-pattern regular expression:
variables, concatenation, ``|``, groups, the quantifiers ``* + ? {n} {n,} {,m} {n,m}`` (each
optionally reluctant, ``*?``), the anchors ``^`` and ``$``, and ``PERMUTE(a, b)``; sqlglot keeps
it as text. ``SUBSET`` is left out: sqlglot does not read it.

sqlglot reads a measure's leading ``FINAL``/``RUNNING`` by its text, so a measure can never
start with a column of that name: the two words name nothing where the construct is on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typedgen.ir.nodes import Alt, Expr, Ref, Repeat, Seq

if TYPE_CHECKING:
    from typedgen.frontends.sql.rules import RuleBuilder as _Rules
else:  # the rules module imports the tables, which import these probes
    _Rules = object

__all__ = ["MATCH_RECOGNIZE_PROBES", "MATCH_RECOGNIZE_READ", "MatchRecognizeRules"]

NAVIGATION = {
    "PREV": ("a.c", "a.c + 1, 2"),
    "NEXT": ("c", "c, 1"),
    "FIRST": ("c", "c, 2"),
    "LAST": ("a.c", "c, 1"),
    "CLASSIFIER": ("", "a"),
    "MATCH_NUMBER": ("", ""),
}
"""The functions of row pattern navigation, each with the arguments its probe passes."""

_M = "SELECT * FROM t MATCH_RECOGNIZE ("
_END = "PATTERN (a) DEFINE a AS b > 1)"

MATCH_RECOGNIZE_PROBES: dict[str, str] = {
    "match_recognize": _M + "PARTITION BY a, b ORDER BY c DESC MEASURES FIRST(c, 2) AS x,"
    " LAST(u.c) AS y PATTERN (u d) DEFINE u AS u.c > PREV(u.c), d AS c < 1) m",
    "match_recognize_as": _M + _END + " AS m",
    "match_recognize_frames": _M + "MEASURES FINAL LAST(c) AS x, RUNNING FIRST(c) AS y " + _END,
    "match_recognize_rows": _M + "ONE ROW PER MATCH " + _END,
    "match_recognize_all_rows": _M + "ALL ROWS PER MATCH SHOW EMPTY MATCHES " + _END,
    "match_recognize_skip": _M + "AFTER MATCH SKIP TO LAST a " + _END,
    "match_recognize_quantifiers": _M + "PATTERN (a*? (b+ | c?) d{2} e{1,} f{,3}?? g{1,3})"
    " DEFINE a AS TRUE)",
    "match_recognize_anchors": _M + "PATTERN (^ a $) DEFINE a AS TRUE)",
    "match_recognize_permute": _M + "PATTERN (PERMUTE(a, b) c) DEFINE a AS TRUE)",
    # The navigation functions, in a measure and in a definition.
    **{
        f"match_recognize_{name.lower()}": _M + f"MEASURES {name}({one}) AS x, {name}({two})"
        f" AS y PATTERN (a) DEFINE a AS b > {name}({two}) + 1)"
        for name, (one, two) in NAVIGATION.items()
    },
}
"""Each piece of ``MATCH_RECOGNIZE`` with the SQL that must round-trip for it to be on."""

MATCH_RECOGNIZE_READ: frozenset[str] = frozenset({"match_recognize_as"})
"""``) AS m`` comes back as ``) m``: the same tree."""

FRAME_WORDS = ("FINAL", "RUNNING")


def _seq(*items: Expr) -> Expr:
    return Seq(tuple(items))


def _alt(*items: Expr) -> Expr:
    return items[0] if len(items) == 1 else Alt(tuple(items))


def _opt(item: Expr) -> Expr:
    return Repeat(item, 0, 1)


class MatchRecognizeRules(_Rules):
    """``MATCH_RECOGNIZE (...)`` after the ``FROM`` items."""

    def match_recognize(self) -> list[Expr]:
        """The clause (optional), or nothing where the dialect lacks it."""
        if not self.has("match_recognize"):
            return []
        kw, ref, punct = self.keyword, self.ref, self.punct
        value = self._navigated()
        measure = _seq(_alt(ref("expr"), value) if value else ref("expr"), kw("AS"), ref("ident"))
        if self.has("match_recognize_frames"):
            measure = _seq(_opt(_alt(*(kw(w) for w in FRAME_WORDS))), measure)
        for word in FRAME_WORDS:  # read by their text before any measure: never names
            self.lex.unnamed.add(word)
        parts: list[Expr] = [
            _opt(_seq(self.phrase("PARTITION", "BY"), self.separated(ref("expr")))),
            _opt(ref("order_by")),
            _opt(_seq(kw("MEASURES"), self.separated(measure))),
        ]
        rows: list[Expr] = []
        if self.has("match_recognize_rows"):
            rows.append(kw("ONE", "ROW", "PER", "MATCH"))
        if self.has("match_recognize_all_rows"):
            empty_rows = _alt(kw("SHOW", "EMPTY", "MATCHES"), kw("OMIT", "EMPTY", "MATCHES"))
            unmatched = kw("WITH", "UNMATCHED", "ROWS")
            rows.append(_seq(kw("ALL", "ROWS", "PER", "MATCH"), _opt(_alt(empty_rows, unmatched))))
        if rows:
            parts.append(_opt(_alt(*rows)))
        if self.has("match_recognize_skip"):
            # sqlglot keeps the variable's text: an unquoted word only.
            to = _seq(kw("TO"), _alt(kw("FIRST"), kw("LAST")), Ref("IDENT"))
            where = _alt(kw("PAST", "LAST", "ROW"), kw("TO", "NEXT", "ROW"), to)
            parts.append(_opt(_seq(kw("AFTER", "MATCH", "SKIP"), where)))
        condition: Expr = ref("expr")
        if value is not None:
            # A comparison of navigated values, joined by AND / OR (no negated predicate as
            # an operand: sqlglot writes `a NOT IN (b) = c` as another tree).
            cmp = _alt(*(punct(op) for op in ("=", "<>", "!=", "<", ">", "<=", ">=")))
            compared = _seq(value, _opt(_seq(cmp, value)))
            joined = _seq(compared, Repeat(_seq(_alt(kw("AND"), kw("OR")), compared)))
            condition = _alt(condition, joined)
        define = _seq(ref("ident"), kw("AS"), condition)
        parts += [
            kw("PATTERN"),
            self.parens(self._row_pattern()),
            kw("DEFINE"),
            self.separated(define),
        ]
        alias: list[Expr] = [ref("table_alias")]
        if self.has("match_recognize_as"):
            alias.append(_seq(kw("AS"), ref("ident")))
        clause = _seq(kw("MATCH_RECOGNIZE"), self.parens(*parts), _opt(_alt(*alias)))
        return [_opt(self.rule("match_recognize", clause))]

    def _navigated(self) -> Expr | None:
        """A value of a measure or definition besides any expression (where a navigation
        function round-trips): arithmetic over values and navigation calls (``PREV(a.c, 2)``,
        ``FIRST(c)``, ``CLASSIFIER()``, ``MATCH_NUMBER()``), which exist only here; None
        where no navigation function round-trips."""
        kw, ref, punct = self.keyword, self.ref, self.punct
        calls: list[Expr] = []
        for name in NAVIGATION:
            if not self.has(f"match_recognize_{name.lower()}"):
                continue
            if name == "MATCH_NUMBER":
                args: Expr = _seq()
            elif name == "CLASSIFIER":
                args = _opt(ref("ident"))
            else:
                args = _seq(ref("expr"), _opt(_seq(punct(","), Ref("INTEGER"))))
            calls.append(_seq(kw(name), self.parens(args)))
        if not calls:
            return None
        operand = _alt(*calls, ref("bitwise"))
        ops = _alt(*(punct(op) for op in ("+", "-", "*", "/")))
        arithmetic = _seq(operand, Repeat(_seq(ops, operand)))
        return self.rule("navigated", arithmetic)

    def _row_pattern(self) -> Expr:
        """A row-pattern regular expression (its own rule, ``row_pattern``)."""
        punct, ref = self.punct, self.ref
        primaries: list[Expr] = [ref("ident"), self.parens(ref("row_pattern"))]
        if self.has("match_recognize_anchors"):
            primaries += [punct("^"), punct("$")]
        if self.has("match_recognize_permute"):
            variables = self.separated(ref("ident"))
            primaries.append(_seq(self.keyword("PERMUTE"), self.parens(variables)))
        term: Expr = _alt(*primaries)
        if self.has("match_recognize_quantifiers"):
            number = Ref("INTEGER")
            bounds = _alt(
                number,
                _seq(number, punct(","), _opt(number)),
                _seq(punct(","), number),
            )
            quantifier = _alt(
                punct("*"), punct("+"), punct("?"), _seq(punct("{"), bounds, punct("}"))
            )
            term = _seq(term, _opt(_seq(quantifier, _opt(punct("?")))))
        concatenation = Repeat(term, 1)
        self.rule("row_pattern", _seq(concatenation, Repeat(_seq(punct("|"), concatenation))))
        return ref("row_pattern")

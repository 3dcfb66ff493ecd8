"""Terminals: punctuation, numbers, strings, quoted names, whitespace, and reserved text.

Every terminal is basic-lexed (longest match among all terminals, as sqlglot's tokenizer does).
Text that sqlglot would read as something the grammar does not offer (comment openers,
operators of other dialects, digits glued to letters) lexes as a *reserved* terminal and is
refused.
"""

from __future__ import annotations

from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import PUNCT, RuleBuilder, alt, opt, seq, star
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import CharClass, Expr, Intersect, Lit, Repeat

__all__ = ["TerminalRules"]

_DIGIT = CharClass(((ord("0"), ord("9")),))
_WORDISH = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_"))))
_MAX_INT_DIGITS = 18
_MAX_WS = 100
_CONTROLS = "".join(chr(c) for c in range(32) if c != 9) + "\x7f"
"""Control characters (all but tab) are refused inside strings and quoted names."""


class TerminalRules(RuleBuilder):
    """The lexical rules that are not words."""

    def terminal(self, name: str, body: Expr, priority: int = 1) -> Rule:
        return basic_terminal(name, body, self.origin.at(name), priority)

    def fixed_terminals(self) -> list[Rule]:
        out = [self.terminal(PUNCT[s], Lit.text(s)) for s in sorted(self.punct_used)]
        digits = Repeat(_DIGIT, 1)
        exponent = seq(CharClass.of("eE"), opt(CharClass.of("+-")), digits)
        # Integers that fit in 64 bits (LIMIT, TOP, type sizes take only these); other numbers
        # are DECIMAL. The two never match the same text, so either may come where both may.
        out.append(self.terminal("INTEGER", Repeat(_DIGIT, 1, _MAX_INT_DIGITS), 2))
        decimal = alt(
            seq(digits, Lit.text("."), digits, opt(exponent)),
            seq(digits, exponent),
            Repeat(_DIGIT, _MAX_INT_DIGITS + 1),
        )
        out.append(self.terminal("DECIMAL", decimal, 2))
        out.append(self.terminal("STRING", self.string()))
        # Whitespace runs are bounded (length, line breaks); the reserved terminal below makes
        # a longer run refused rather than split into two runs.
        blank = CharClass.of(" \t\r")
        runs = seq(star(blank), Repeat(seq(Lit.text("\n"), star(blank)), 0, 3))
        bounded = Intersect((Repeat(CharClass.of(" \t\r\n"), 1, _MAX_WS), runs))
        out.append(self.terminal("WS", bounded))
        quoted = self.quoted_identifier()
        if quoted is not None:
            out.append(self.terminal("QIDENT", quoted))
        for text, name in self.quoted.items():
            out.append(self.terminal(name, Lit.text(text), 2))
        return out

    def string(self) -> Expr:
        forms: list[Expr] = []
        id_quotes = {q for pair in self.tables.identifier_quotes for q in pair}
        for q in self.tables.string_quotes:
            if q in id_quotes:
                continue  # read as an identifier delimiter (T-SQL's "x")
            excluded = q + _CONTROLS
            parts: list[Expr] = []
            if self.tables.backslash_escapes:
                excluded += "\\"
                parts.append(seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)))
            parts.append(CharClass.of(excluded, negated=True))
            parts.append(Lit.text(q + q))
            forms.append(seq(Lit.text(q), star(alt(*parts)), Lit.text(q)))
        return alt(*forms)

    def quoted_identifier(self) -> Expr | None:
        forms: list[Expr] = []
        for open_, close in self.tables.identifier_quotes:
            body = Repeat(CharClass.of(close + open_ + "\\" + _CONTROLS + "\t", negated=True), 1)
            forms.append(seq(Lit.text(open_), body, Lit.text(close)))
        return alt(*forms) if forms else None

    def reserved_terminals(self) -> list[Rule]:
        out = []
        used = set(self.punct_used)
        for i, opener in enumerate(sorted(set(self.tables.comments))):
            body = seq(Lit.text(opener), star(CharClass.of("", negated=True)))
            out.append(self.terminal(f"RESERVED_COMMENT_{i}", body, 3))
        symbols = sorted(
            w
            for w in self.tables.symbols
            if len(w) >= 2 and w not in used and w not in self.tables.comments
        )
        if symbols:
            body = alt(*(Lit.text(s) for s in symbols))
            out.append(self.terminal("RESERVED_SYMBOL", body, 3))
        # Runs of whitespace are bounded: a longer run, or a fourth line break, lexes as this
        # reserved terminal (it outranks WS) and is refused, so the model cannot pad forever.
        blank = CharClass.of(" \t\r")
        newline = seq(star(blank), Lit.text("\n"))
        long_ws = alt(
            Repeat(CharClass.of(" \t\r\n"), _MAX_WS + 1),
            seq(newline, newline, newline, newline, star(CharClass.of(" \t\r\n"))),
        )
        out.append(self.terminal("RESERVED_WHITESPACE", long_ws, 3))
        word_after_digits = seq(
            Repeat(_DIGIT, 1),
            opt(seq(Lit.text("."), Repeat(_DIGIT, 1))),
            _WORDISH,
            star(alt(_WORDISH, _DIGIT)),
        )
        out.append(self.terminal("RESERVED_NUMBER_WORD", word_after_digits, 0))
        return out

"""Names that begin with a digit: MySQL's ``12abc``, ``1e5x``, ``0xz`` (ClickHouse, Hive,
Spark, Doris, StarRocks, SingleStore alike).

Where a dialect sets sqlglot's ``IDENTIFIERS_CAN_START_WITH_DIGIT``, its tokenizer reads a
number that runs into a letter on as one word, to the next whitespace or single-character
token: ``1e5x``, ``1e-5x``, ``1.5x``, ``12abc$`` are each one name, not a number and an alias.
Some digit-led words stay numbers all the same: ``1e5`` and ``1e`` (an exponent), ClickHouse's
``1_000`` (``NUMBERS_CAN_BE_UNDERSCORE_SEPARATED``), Hive's and Spark's ``1L`` or ``2BD``
(``NUMERIC_LITERALS``: a typed number); ``0x...`` and ``0b...`` go to the hex and bit
scanners where the dialect has those strings (a body that is no number makes the word a
quoted name: ``0xz`` comes back as `` `0xz` ``), and without hex strings ``0xz`` is ``0``
then ``xz``.

Two terminals follow from that (:class:`DigitNameRules`), in every such dialect:

- ``RESERVED_DIGIT_WORD``: the whole glued word, refused, so that no shorter cut of it is read
  (``1e-5x`` is no ``1e-5 AS x`` there);
- ``DIGIT_IDENT``: the names among them of letters, digits and ``_`` only, less the numbers
  above, wherever an unquoted name may go; in the checking language only. A model that writes
  ``1e5x`` or ``0b2`` almost always meant a number, so generation offers no such name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.rules import RuleBuilder, alt, opt, seq, star
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import CharClass, Complement, Expr, Intersect, Lit, Repeat

__all__ = ["DigitLexing", "DigitNameRules", "digit_lexing"]

DIGIT_IDENT = "DIGIT_IDENT"
RESERVED_DIGIT_WORD = "RESERVED_DIGIT_WORD"
DIGIT_PROBE = "SELECT 1a, t.2b_c, 0e1x FROM t"
"""Digit-led names in a column, after a dot and beside a number's exponent."""

_DIGIT = CharClass.of("0123456789")
_WORD = CharClass(((48, 57), (65, 90), (95, 95), (97, 122)))
_LETTER = CharClass(((65, 90), (95, 95), (97, 122)))
_WHITESPACE = " \t\n\r\x0b\x0c"


@dataclass(frozen=True)
class DigitLexing:
    """How the dialect's tokenizer reads a word that begins with a digit."""

    stops: str
    """The ASCII characters that end a glued word (whitespace, single-character tokens)."""
    hex_prefix: bool
    """``0x...`` goes to the hex scanner (a hex number, else a quoted name)."""
    bit_prefix: bool
    """``0b...`` goes to the bit scanner (a bit number, else a quoted name)."""
    underscores: bool
    """``1_000`` is a number."""
    suffixes: tuple[str, ...]
    """Typed numbers: a number glued to one of these (any case) is a number (``1L``)."""


@functools.cache
def digit_lexing(dialect: str) -> DigitLexing | None:
    """The dialect's reading of digit-led words, where its tokenizer has them (sqlglot's
    ``IDENTIFIERS_CAN_START_WITH_DIGIT``) and :data:`DIGIT_PROBE` reads them as names."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if not dialect:
        return None
    d = sqlglot.Dialect.get_or_raise(dialect)
    if not getattr(d, "IDENTIFIERS_CAN_START_WITH_DIGIT", False):
        return None
    try:
        tree = sqlglot.parse_one(DIGIT_PROBE, read=d)
        again = sqlglot.parse_one(tree.sql(dialect=d), read=d)
    except SqlglotError:
        return None
    names = [c.name for c in tree.expressions if isinstance(c, exp.Column)]
    if names != ["1a", "2b_c", "0e1x"] or again != tree:
        return None
    tok = d.tokenizer_class
    singles = {c for c in tok.SINGLE_TOKENS if len(c) == 1 and ord(c) < 128}
    keywords = tok.KEYWORDS
    suffixes = tuple(
        sorted(k for k, v in tok.NUMERIC_LITERALS.items() if keywords.get(v) is not None)
    )
    return DigitLexing(
        stops="".join(sorted(singles | set(_WHITESPACE))),
        hex_prefix=bool(tok.HEX_STRINGS),
        bit_prefix=bool(tok.BIT_STRINGS),
        underscores=bool(getattr(d, "NUMBERS_CAN_BE_UNDERSCORE_SEPARATED", False)),
        suffixes=suffixes,
    )


def _ci(text: str) -> Expr:
    return seq(*(CharClass.of(c.upper() + c.lower()) if c.isalpha() else Lit.text(c) for c in text))


def glued_word(lexing: DigitLexing) -> Expr:
    """A digit-led word as the tokenizer glues it: a number's start (digits, a decimal part,
    an exponent with its sign), then a letter, ``_`` or any non-ASCII byte, then anything up
    to whitespace or a single-character token."""
    digits = Repeat(_DIGIT, 1)
    start = seq(
        digits,
        opt(seq(Lit.text("."), star(_DIGIT))),
        opt(seq(CharClass.of("eE"), CharClass.of("+-"), digits)),
    )
    head = CharClass(((65, 90), (95, 95), (97, 122), (128, 255)))
    rest = CharClass.of("\x00" + lexing.stops, negated=True)
    return seq(start, head, star(rest))


def digit_name(lexing: DigitLexing) -> Expr:
    """The names of :func:`glued_word` over letters, digits and ``_`` that are no number."""
    digits = Repeat(_DIGIT, 1)
    general: Expr = seq(digits, _LETTER, star(_WORD))
    # 0x... is a hex word, or 0 then a name, never a name of this shape; so is 0b... where
    # the dialect has bit strings.
    prefixes = "xX" + ("bB" if lexing.bit_prefix else "")
    general = Intersect(
        (general, Complement(seq(Lit.text("0"), CharClass.of(prefixes), star(_WORD))))
    )
    part = seq(digits, star(seq(Lit.text("_"), digits))) if lexing.underscores else digits
    number = seq(part, opt(seq(CharClass.of("eE"), opt(part))))
    numbers = [number] + [seq(number, _ci(s)) for s in lexing.suffixes]
    forms: list[Expr] = [Intersect((general, Complement(alt(*numbers))))]
    # 0x... and 0b... where the scanners take them: a quoted name unless Python's int()
    # reads the word as a number of that base (0x1F, 0x_1, 0b1_0).
    for on, letters, body in (
        (lexing.hex_prefix, "xX", "0123456789abcdefABCDEF"),
        (lexing.bit_prefix, "bB", "01"),
    ):
        if on:
            head = seq(Lit.text("0"), CharClass.of(letters))
            run = Repeat(CharClass.of(body), 1)
            valid = seq(head, opt(Lit.text("_")), run, star(seq(Lit.text("_"), run)))
            forms.append(Intersect((seq(head, star(_WORD)), Complement(valid))))
    return alt(*forms)


class DigitNameRules(RuleBuilder):
    """The terminals of digit-led words (see the module's docstring)."""

    def digit_reserved(self) -> list[Rule]:
        """The glued word, refused whole (a shorter cut would be another reading)."""
        lexing = digit_lexing(self.tables.name)
        if lexing is None:
            return []
        origin = self.origin.at(RESERVED_DIGIT_WORD)
        return [basic_terminal(RESERVED_DIGIT_WORD, glued_word(lexing), origin, priority=0)]

    def digit_name_terminals(self, classes: dict[str, list[str]]) -> list[Rule]:
        """``DIGIT_IDENT``, in every class ``IDENT`` is in; for checking only."""
        lexing = digit_lexing(self.tables.name)
        if lexing is None or self.options.whitespace != "check":
            return []
        for members in classes.values():
            if "IDENT" in members:
                members.append(DIGIT_IDENT)
        origin = self.origin.at(DIGIT_IDENT)
        return [basic_terminal(DIGIT_IDENT, digit_name(lexing), origin, priority=1)]

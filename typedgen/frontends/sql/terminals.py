"""Terminals: punctuation, numbers, strings, quoted names, whitespace, and reserved text.

Every terminal is basic-lexed (longest match among all terminals, as sqlglot's tokenizer does).
Text that sqlglot would read as something the grammar does not offer (comment openers,
operators of other dialects, digits glued to letters) lexes as a *reserved* terminal and is
refused.
"""

from __future__ import annotations

from typedgen.frontends.sql.identifiers import word_chars, word_tail
from typedgen.frontends.sql.lexicon import basic_terminal
from typedgen.frontends.sql.postgres_mysql import PgMysqlRules
from typedgen.frontends.sql.rules import PUNCT, alt, empty, opt, seq, star
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import CharClass, Expr, Intersect, Lit, Repeat

__all__ = ["TerminalRules"]

_DIGIT = CharClass(((ord("0"), ord("9")),))
_WORDISH = CharClass(((ord("A"), ord("Z")), (ord("a"), ord("z")), (ord("_"), ord("_"))))
_MAX_INT_DIGITS = 18
_MAX_WS = 100
"""Checking mode: at most this many whitespace characters between two lexemes (3 line breaks)."""
_MAX_GEN_BLANKS = 8
"""Generation mode: spaces and tabs on one line, before a line break or without one."""
_MAX_GEN_INDENT = 16
"""Generation mode: spaces and tabs after the (one) line break: the next line's indentation.
With :data:`_MAX_GEN_BLANKS`, a run takes at most 25 characters (``\r`` only before ``\n``; a
blank line only at the end, ``END_GAP``). A small model that cannot end where it wants (after
a name that can only be a qualifier, ``category_id``, before its ``.``) spent its budget on
runs of 31 tabs under the earlier bound of 32 characters, about five tokens a run."""
_MAX_COMMENT = 256
"""Characters of one comment's text, when comments are on."""
_CONTROLS = "".join(chr(c) for c in range(32) if c != 9) + "\x7f"
"""Control characters (all but tab) are refused inside strings and quoted names."""


def _but(char: Expr, excluded: str) -> Expr:
    return Intersect((char, CharClass.of(excluded, negated=True)))


def _line_comment_text(char: Expr) -> Expr:
    """Text over ``char`` without ``*/`` (sqlglot writes a line comment back as ``/* */``)."""
    stars = Repeat(Lit.text("*"), 1)
    return seq(star(alt(_but(char, "*"), seq(stars, _but(char, "*/")))), opt(stars))


def _block_comment_text(char: Expr) -> Expr:
    """Text over ``char`` without ``*/`` or ``/*``, not ending in ``/`` (it would open one
    with the closer's ``*``)."""
    runs = alt(Repeat(Lit.text("*"), 1), Repeat(Lit.text("/"), 1))
    return seq(
        star(alt(_but(char, "*/"), seq(runs, _but(char, "*/")))),
        opt(Repeat(Lit.text("*"), 1)),
    )


def _dollar_body() -> Expr:
    """The inside of ``$$...$$``: no ``$$``, not ending in ``$``, no control characters."""
    char = CharClass.of(_CONTROLS.replace("\n", "") + "$", negated=True)
    return seq(star(alt(char, seq(Lit.text("$"), char))))


class TerminalRules(PgMysqlRules):
    """The lexical rules that are not words."""

    def terminal(self, name: str, body: Expr, priority: int = 1) -> Rule:
        return basic_terminal(name, body, self.origin.at(name), priority)

    def commented(self) -> bool:
        """Comments are on and the dialect has some."""
        return bool(self.options.comments and self.tables.comments)

    def symbol_body(self, symbol: str) -> Expr:
        """A symbol's text. With comments on, ``;`` takes the whitespace after it, so that
        ``RESERVED_COMMENT_AFTER_END`` (a comment after the closing ``;``, which sqlglot reads
        as a statement of its own) is the longer match and is refused; a ``;`` inside a
        routine's body is the same lexeme, so no comment may follow it either."""
        if symbol == ";" and self.commented():
            return seq(Lit.text(";"), opt(self.whitespace()))
        return Lit.text(symbol)

    def fixed_terminals(self) -> list[Rule]:
        out = [self.terminal(PUNCT[s], self.symbol_body(s)) for s in sorted(self.punct_used)]
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
        for i, (kind, opener, closer) in enumerate(self.tables.string_forms):
            out.append(self.terminal(f"PSTRING_{i}", self.prefixed_string(kind, opener, closer), 2))
        word = seq(_WORDISH, star(word_tail(self.tables.name)))
        params = {
            "DOLLAR_PARAM": seq(Lit.text("$"), Repeat(_DIGIT, 1, 9)),
            "AT_PARAM": seq(Lit.text("@"), word),
            "DOLLAR_NAME": seq(Lit.text("$"), word),
        }
        used = sorted(self.params_used & set(params))
        out.extend(self.terminal(name, params[name], 2) for name in used)
        out.extend(self.pg_mysql_terminals())
        out.append(self.terminal("WS", self.whitespace()))
        gap = self.end_gap()
        if gap is not None:
            out.append(gap)
        if self.commented():
            # Comments are lexemes of their own (ignored like WS): a gap that took both would
            # have to give back a "-" when "-b" follows " -" (the lexer does not back up).
            out.append(self.terminal("COMMENT", alt(*self.comment_forms(bounded=True))))
        quoted = self.quoted_identifier()
        if quoted is not None:
            out.append(self.terminal("QIDENT", quoted))
        for text, name in self.quoted.items():
            out.append(self.terminal(name, Lit.text(text), 2))
        return out

    def whitespace(self) -> Expr:
        """One bounded run of whitespace, by the caller's whitespace mode.

        A lone ``\r`` is allowed only for checking without comments: with comments on, some
        dialects end a line comment at ``\r`` and others (MySQL, SQLite) only at ``\n``."""
        newline = seq(opt(Lit.text("\r")), Lit.text("\n"))
        blank = CharClass.of(" \t")
        if self.options.whitespace == "check":
            if not self.options.comments:
                blank, newline = CharClass.of(" \t\r"), Lit.text("\n")
            runs = seq(star(blank), Repeat(seq(newline, star(blank)), 0, 3))
            return Intersect((Repeat(CharClass.of(" \t\r\n"), 1, _MAX_WS), runs))
        line = Repeat(blank, 0, _MAX_GEN_BLANKS)
        return alt(
            Repeat(blank, 1, _MAX_GEN_BLANKS),
            seq(line, newline, Repeat(blank, 0, _MAX_GEN_INDENT)),
        )

    def end_gap(self) -> Rule | None:
        """Generation: a blank line, which only the end of the statement may take (the words
        of a statement are at most one line break apart). A model that writes a blank line
        after a complete query means to stop there, and there it stops: before, the gap was
        whitespace between two words, and the model went on to write its explanation into the
        query (``\\n\\n.\\n\\nCUSTOMER_ID``) until the budget ran out. Its blanks are bounded
        as WS's are: unbounded, a model that wanted to close a code fence after the query wrote
        a line break and then tabs by the hundred, each run a start of the blank line that
        never came. ``None`` when checking."""
        if self.options.whitespace == "check":
            return None
        newline = seq(opt(Lit.text("\r")), Lit.text("\n"))
        blank = CharClass.of(" \t")
        line, indent = Repeat(blank, 0, _MAX_GEN_BLANKS), Repeat(blank, 0, _MAX_GEN_INDENT)
        return self.terminal("END_GAP", seq(line, newline, indent, newline))

    def comment_forms(self, *, bounded: bool, whole_line: bool = False) -> list[Expr]:
        """The dialect's comments: ``--``, ``#``, ``//`` to the line end, ``/* */``; each at
        most :data:`_MAX_COMMENT` characters when ``bounded``. ``whole_line``: the line
        comments only, each as sqlglot reads it, to the line's end whatever it holds."""
        text = CharClass.of(_CONTROLS, negated=True)
        limit = _MAX_COMMENT if bounded else None
        forms: list[Expr] = []
        for opener in sorted(set(self.tables.comments)):
            if opener == "/*" and whole_line:
                continue
            if opener == "/*":
                # No "*/" inside (it closes), no "/*" (some dialects nest comments).
                char = alt(text, CharClass.of("\n"))
                body = _block_comment_text(char)
                if limit is not None:
                    body = Intersect((Repeat(char, 0, limit), body))
                forms.append(seq(Lit.text("/*"), body, Lit.text("*/")))
            else:
                # Up to the line end; sqlglot writes it back as /* ... */, so no "*/" inside.
                body = _line_comment_text(text)
                if whole_line:
                    body = star(CharClass.of("\r\n", negated=True))
                elif limit is not None:
                    body = Intersect((Repeat(text, 0, limit), body))
                # A longer symbol wins over the comment opener: ClickHouse lexes "#>" and
                # "#>>" (JSON paths) before a "#" comment, so "#> x" is no comment there.
                longer = "".join(
                    sorted(
                        {
                            s[len(opener)]
                            for s in self.tables.symbols
                            if s.startswith(opener) and len(s) > len(opener)
                        }
                    )
                )
                if longer:
                    anything = star(CharClass.of("", negated=True))
                    head_char = CharClass.of(longer, negated=True)
                    body = Intersect((body, alt(empty(), seq(head_char, anything))))
                head: Expr = Lit.text(opener)
                if opener == "--" and self.tables.dash_comment_space:
                    head = seq(head, CharClass.of(" \t"))  # MySQL: "-- x", not "--x"
                forms.append(seq(head, body))
        return forms

    def string(self) -> Expr:
        forms: list[Expr] = []
        id_quotes = {q for pair in self.tables.identifier_quotes for q in pair}
        for q in self.tables.string_quotes:
            if q in id_quotes:
                continue  # read as an identifier delimiter (T-SQL's "x")
            forms.append(seq(Lit.text(q), self.string_body(q), Lit.text(q)))
        forms += self.triple_quoted_strings(self.tables.backslash_escapes)  # BigQuery's """a"""
        return alt(*forms)

    def string_body(self, q: str) -> Expr:
        """The inside of a ``q``-quoted string: doubled quotes, backslash escapes where the
        dialect has them, no control characters but tab."""
        excluded = q + _CONTROLS
        parts: list[Expr] = []
        if self.tables.backslash_escapes:
            excluded += "\\"
            parts.append(seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)))
        parts.append(CharClass.of(excluded, negated=True))
        if q in self.tables.quote_escapes:
            parts.append(Lit.text(q + q))
        return star(alt(*parts))

    def prefixed_string(self, kind: str, opener: str, closer: str) -> Expr:
        """``X'CC'``, ``B'01'``, ``E'a\\n'``, ``R'a'``, ``U&'a'``, ``$$a$$``: the body each
        kind allows (a body the kind refuses lexes as reserved, below)."""
        head = seq(
            *(CharClass.of(c.upper() + c.lower()) if c.isalpha() else Lit.text(c) for c in opener)
        )
        plain = CharClass.of(closer + _CONTROLS + "\\", negated=True)
        backslash = "\\" if self.tables.backslash_escapes else ""
        unicode_plain = CharClass.of(closer + _CONTROLS + backslash, negated=True)
        bodies: dict[str, Expr] = {
            "hex": star(CharClass.of("0123456789abcdefABCDEF")),
            "bit": star(CharClass.of("01")),
            "escape": star(
                alt(
                    plain,
                    Lit.text(closer * 2),
                    seq(Lit.text("\\"), CharClass.of(_CONTROLS, negated=True)),
                )
            ),
            "raw": star(plain),
            # U&'\FE01': a backslash starts a Unicode escape, and ends nothing, unless the
            # dialect's strings take backslash escapes (Redshift)
            "unicode": star(alt(unicode_plain, Lit.text(closer * 2))),
            "national": self.string_body(closer),
            "dollar": _dollar_body(),
            "hex_number": Repeat(CharClass.of("0123456789abcdefABCDEF"), 1),
            "bit_number": Repeat(CharClass.of("01"), 1),  # MySQL's 0b1011
        }
        form = seq(head, bodies[kind], Lit.text(closer))
        triple = self.triple_prefixed(kind, head, closer)  # BigQuery's r"""a"b"""
        return alt(form, *triple) if triple else form

    def quoted_identifier(self) -> Expr | None:
        forms: list[Expr] = []
        for open_, close in self.tables.identifier_quotes:
            body = Repeat(CharClass.of(close + open_ + "\\" + _CONTROLS + "\t", negated=True), 1)
            forms.append(seq(Lit.text(open_), body, Lit.text(close)))
        return alt(*forms) if forms else None

    def reserved_terminals(self) -> list[Rule]:
        out = []
        used = set(self.punct_used)
        comments = set(self.tables.comments) if not self.options.comments else set()
        for i, opener in enumerate(sorted(comments)):
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
        # Any other run of whitespace lexes as this terminal, which WS outranks on equal
        # length: a run longer than WS allows, or a lone "\r" in generation mode, is refused
        # rather than split into two runs; so is a comment longer than COMMENT allows.
        any_ws = Repeat(CharClass.of(" \t\r\n"), 1)
        out.append(self.terminal("RESERVED_WHITESPACE", any_ws, 0))
        if self.commented():
            long_comment = alt(*self.comment_forms(bounded=False))
            out.append(self.terminal("RESERVED_LONG_COMMENT", long_comment, 0))
            # A line comment ends at the line's end for sqlglot: one that holds "*/" (which
            # COMMENT stops before, sqlglot writing it back as /* */) or a control character
            # is refused whole, not ended early (SELECT a--x*/+1 is SELECT a for sqlglot).
            lines = self.comment_forms(bounded=False, whole_line=True)
            if lines:
                out.append(self.terminal("RESERVED_LINE_COMMENT", alt(*lines), 0))
            if self.options.terminator:
                # Nothing may follow the closing ";" (see symbol_body): sqlglot reads a comment
                # there as a statement of its own (SELECT 1; -- c is two statements).
                openers = alt(*(Lit.text(o) for o in sorted(set(self.tables.comments))))
                blanks = star(CharClass.of(" \t\r\n"))
                rest = star(CharClass.of("", negated=True))
                after_end = seq(Lit.text(";"), blanks, openers, rest)
                out.append(self.terminal("RESERVED_COMMENT_AFTER_END", after_end, 0))
        word_after_digits = seq(
            Repeat(_DIGIT, 1),
            opt(seq(Lit.text("."), Repeat(_DIGIT, 1))),
            _WORDISH,
            star(alt(_WORDISH, _DIGIT)),
        )
        out.append(self.terminal("RESERVED_NUMBER_WORD", word_after_digits, 0))
        # sqlglot's tokenizer takes a sign after an exponent's digits as part of the number
        # when a digit follows (1e5+3 is one literal, '1e5+3'). The lexer does not back up,
        # so the number and the sign are refused whatever follows (1e5-x too): a space
        # before the operator (1e5 + 3) is the spelling taken.
        signed_on = seq(
            Repeat(_DIGIT, 1),
            opt(seq(Lit.text("."), Repeat(_DIGIT, 1))),
            CharClass.of("eE"),
            Repeat(_DIGIT, 1),
            CharClass.of("+-"),
        )
        out.append(self.terminal("RESERVED_EXPONENT_SIGN", signed_on, 0))
        # A prefixed string whose body its kind refuses (X'zz') is still one token for sqlglot.
        for i, (kind, opener, closer) in enumerate(self.tables.string_forms):
            if kind in ("hex_number", "bit_number"):
                continue  # 0xz, 0b12 lex as RESERVED_NUMBER_WORD
            head = seq(
                *(
                    CharClass.of(c.upper() + c.lower()) if c.isalpha() else Lit.text(c)
                    for c in opener
                )
            )
            body = star(CharClass.of(closer, negated=True)) if closer != "$$" else _dollar_body()
            out.append(self.terminal(f"RESERVED_PSTRING_{i}", seq(head, body, Lit.text(closer)), 1))
            if kind == "dollar":  # SELECT$$a$$ is one word for PostgreSQL's tokenizer
                word_char = alt(_WORDISH, _DIGIT)
                tail = star(alt(word_char, Lit.text("$")))
                glued = seq(Repeat(word_char, 1), Lit.text("$"), tail)
                out.append(self.terminal("RESERVED_GLUED_DOLLAR", glued, 3))
        # Parameters glued to more word characters ($1a) are one token for sqlglot too, and so
        # is a word with a parameter glued to it (SELECT$1: sqlglot reads "$" on in a word).
        sigils = "".join(
            c
            for c, t in (("$", "DOLLAR_PARAM"), ("$", "DOLLAR_NAME"), ("@", "AT_PARAM"))
            if t in self.params_used
        )
        if sigils:
            word_char = alt(_WORDISH, _DIGIT)
            glued = seq(CharClass.of(sigils), Repeat(word_char, 1))
            out.append(self.terminal("RESERVED_PARAM", glued, 1))
        # Where sqlglot reads the sigil on in a word (T-SQL's and Oracle's a@b), that is a name.
        sigils = "".join(c for c in sigils if c not in word_chars(self.tables.name))
        if sigils:
            word_char = alt(_WORDISH, _DIGIT)
            after_word = seq(
                Repeat(word_char, 1),
                CharClass.of(sigils),
                Repeat(alt(word_char, CharClass.of(sigils)), 1),
            )
            out.append(self.terminal("RESERVED_GLUED_PARAM", after_word, 3))
        return out + self.pg_mysql_reserved()

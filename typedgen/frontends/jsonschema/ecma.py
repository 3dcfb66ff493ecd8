"""JSON Schema ``pattern`` keywords (ECMA-262 regular expressions) lowered to the IR, exactly.

A JSON Schema ``pattern`` is matched the way ECMA-262's ``RegExp.prototype.test`` matches: the
regex may match anywhere in the string unless anchored, and draft 2020-12 asks for Unicode-mode
(``u`` flag) semantics. :func:`pattern_expr` gives the language of every string in which the
pattern finds a match. It reads the ECMA syntax with its own small parser, so nothing is silently
reinterpreted with Python's rules (``$`` before a final newline, ``{,n}``, ``[]`` ...).

Anchors are exact wherever they sit: each sub-pattern is lowered to four languages, split by
whether a match uses ``^``, ``$``, both or neither (an anchor that cannot hold, as in ``a^b``,
simply leaves no match). Character sets go through
:func:`~typedgen.frontends.regex.regex_to_expr` with ``flavor="ecma"``, which owns the ECMA
meaning of ``\\d \\w \\s`` and ``.``; ``\\p{...}`` sets come from :mod:`unicodedata`.

Refused with :class:`UnsupportedFeatureError`, naming the column: look-arounds, ``\\b``/``\\B``,
back-references, pattern modifiers, and Unicode properties :mod:`unicodedata` has no data for
(scripts, most binary properties). Invalid syntax raises :class:`GrammarError`. A few Annex B
(non-Unicode mode) spellings that validators commonly accept -- punctuation identity escapes such
as ``\\-`` or ``\\_``, and a ``{``, ``}`` or ``]`` that is not syntax -- are read as the literal
character, but only in patterns whose meaning is the same with and without the ``u`` flag.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from typedgen.errors import ErrorCode, GrammarError, UnsupportedFeatureError
from typedgen.frontends.regex import regex_to_expr
from typedgen.ir.nodes import (
    MAX_CODEPOINT,
    SURROGATES,
    Alt,
    CharClass,
    Expr,
    Lit,
    Repeat,
    Seq,
    complement_ranges,
    normalize_ranges,
)
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify

__all__ = ["pattern_expr"]

_Ranges = tuple[tuple[int, int], ...]
_DEFAULT_ORIGIN = Origin("<pattern>")
_BRACED = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_MODIFIERS = re.compile(r"\(\?[A-Za-z]*(?:-[A-Za-z]*)?[:)]")
_HEX = frozenset("0123456789abcdefABCDEF")
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_MAX_ANCHORED_COPIES = 16
"""How far a bounded repetition of an anchored group is unrolled before it is refused."""

# -- Unicode property tables ------------------------------------------------------------------

# General_Category values with their aliases (PropertyValueAliases.txt) -> the two-letter values.
_GC_ROWS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("C", "Other"), ("Cc", "Cf", "Cn", "Co", "Cs")),
    (("Cc", "Control", "cntrl"), ("Cc",)),
    (("Cf", "Format"), ("Cf",)),
    (("Cn", "Unassigned"), ("Cn",)),
    (("Co", "Private_Use"), ("Co",)),
    (("Cs", "Surrogate"), ("Cs",)),
    (("L", "Letter"), ("Ll", "Lm", "Lo", "Lt", "Lu")),
    (("LC", "Cased_Letter"), ("Ll", "Lt", "Lu")),
    (("Ll", "Lowercase_Letter"), ("Ll",)),
    (("Lm", "Modifier_Letter"), ("Lm",)),
    (("Lo", "Other_Letter"), ("Lo",)),
    (("Lt", "Titlecase_Letter"), ("Lt",)),
    (("Lu", "Uppercase_Letter"), ("Lu",)),
    (("M", "Mark", "Combining_Mark"), ("Mc", "Me", "Mn")),
    (("Mc", "Spacing_Mark"), ("Mc",)),
    (("Me", "Enclosing_Mark"), ("Me",)),
    (("Mn", "Nonspacing_Mark"), ("Mn",)),
    (("N", "Number"), ("Nd", "Nl", "No")),
    (("Nd", "Decimal_Number", "digit"), ("Nd",)),
    (("Nl", "Letter_Number"), ("Nl",)),
    (("No", "Other_Number"), ("No",)),
    (("P", "Punctuation", "punct"), ("Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps")),
    (("Pc", "Connector_Punctuation"), ("Pc",)),
    (("Pd", "Dash_Punctuation"), ("Pd",)),
    (("Pe", "Close_Punctuation"), ("Pe",)),
    (("Pf", "Final_Punctuation"), ("Pf",)),
    (("Pi", "Initial_Punctuation"), ("Pi",)),
    (("Po", "Other_Punctuation"), ("Po",)),
    (("Ps", "Open_Punctuation"), ("Ps",)),
    (("S", "Symbol"), ("Sc", "Sk", "Sm", "So")),
    (("Sc", "Currency_Symbol"), ("Sc",)),
    (("Sk", "Modifier_Symbol"), ("Sk",)),
    (("Sm", "Math_Symbol"), ("Sm",)),
    (("So", "Other_Symbol"), ("So",)),
    (("Z", "Separator"), ("Zl", "Zp", "Zs")),
    (("Zl", "Line_Separator"), ("Zl",)),
    (("Zp", "Paragraph_Separator"), ("Zp",)),
    (("Zs", "Space_Separator"), ("Zs",)),
)
_GC: dict[str, tuple[str, ...]] = {name: cats for names, cats in _GC_ROWS for name in names}

# Binary properties whose code points are fixed lists (stable across Unicode versions) or follow
# from the General_Category; the rest of ECMA-262's binary properties are refused by name.
_WHITE_SPACE: _Ranges = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0x85, 0x85),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
_FIXED_BINARY: dict[str, _Ranges] = {
    "Any": ((0, MAX_CODEPOINT),),
    "ASCII": ((0, 0x7F),),
    "ASCII_Hex_Digit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
    "Hex_Digit": (
        (0x30, 0x39),
        (0x41, 0x46),
        (0x61, 0x66),
        (0xFF10, 0xFF19),
        (0xFF21, 0xFF26),
        (0xFF41, 0xFF46),
    ),
    "White_Space": _WHITE_SPACE,
    "Join_Control": ((0x200C, 0x200D),),
    "Regional_Indicator": ((0x1F1E6, 0x1F1FF),),
    "Pattern_White_Space": (
        (0x09, 0x0D),
        (0x20, 0x20),
        (0x85, 0x85),
        (0x200E, 0x200F),
        (0x2028, 0x2029),
    ),
    "Noncharacter_Code_Point": (
        (0xFDD0, 0xFDEF),
        *((plane << 16 | 0xFFFE, plane << 16 | 0xFFFF) for plane in range(17)),
    ),
}
_BINARY_ALIASES = {
    "AHex": "ASCII_Hex_Digit",
    "Hex": "Hex_Digit",
    "space": "White_Space",
    "Join_C": "Join_Control",
    "RI": "Regional_Indicator",
    "Pat_WS": "Pattern_White_Space",
    "NChar": "Noncharacter_Code_Point",
}
_UNSUPPORTED_BINARY = frozenset(
    """
    Alphabetic Alpha Bidi_Control Bidi_C Bidi_Mirrored Bidi_M Case_Ignorable CI Cased
    Changes_When_Casefolded CWCF Changes_When_Casemapped CWCM Changes_When_Lowercased CWL
    Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT Changes_When_Uppercased CWU
    Dash Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia Emoji Emoji_Component EComp
    Emoji_Modifier EMod Emoji_Modifier_Base EBase Emoji_Presentation EPres Extended_Pictographic
    ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext IDS_Binary_Operator IDSB
    IDS_Trinary_Operator IDST ID_Continue IDC ID_Start IDS Ideographic Ideo
    Logical_Order_Exception LOE Lowercase Lower Math Pattern_Syntax Pat_Syn Quotation_Mark QMark
    Radical Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation Term Unified_Ideograph
    UIdeo Uppercase Upper Variation_Selector VS XID_Continue XIDC XID_Start XIDS
    """.split()
)


@functools.cache
def _categories() -> dict[str, _Ranges]:
    """Every General_Category value -> its code points, from :mod:`unicodedata`, in one pass."""
    found: dict[str, list[tuple[int, int]]] = {}
    current, start = "", 0
    for cp in range(MAX_CODEPOINT + 2):
        cat = unicodedata.category(chr(cp)) if cp <= MAX_CODEPOINT else ""
        if cat != current:
            if current:
                found.setdefault(current, []).append((start, cp - 1))
            current, start = cat, cp
    return {cat: tuple(ranges) for cat, ranges in found.items()}


def _category_ranges(cats: Iterable[str]) -> _Ranges:
    table = _categories()
    return normalize_ranges(r for cat in cats for r in table.get(cat, ()))


# -- languages and their anchor-split parts ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lang:
    """A non-empty language as an IR expression, and whether it holds the empty string."""

    expr: Expr
    nullable: bool


class _Parts(NamedTuple):
    """What a sub-pattern matches, split by the anchors a match uses (``None``: no match).

    A ``^`` must come before every character the sub-pattern consumes, a ``$`` after all of
    them; how the surrounding pattern must then look is the caller's business.
    """

    plain: _Lang | None
    start: _Lang | None
    end: _Lang | None
    both: _Lang | None

    @property
    def anchored(self) -> bool:
        return self.start is not None or self.end is not None or self.both is not None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 80 else repr(pattern[:77] + "...")


def _class_item(cp: int) -> str:
    return f"\\U{cp:08x}"


def _ranges_text(ranges: _Ranges) -> str:
    return "".join(
        _class_item(lo) if lo == hi else f"{_class_item(lo)}-{_class_item(hi)}" for lo, hi in ranges
    )


@functools.lru_cache(maxsize=1024)
def _set_expr(text: str, origin: Origin | None) -> Expr:
    """One character set, written as a Python class, lowered with ECMA's ``\\d \\w \\s .``."""
    return regex_to_expr(text, flavor="ecma", origin=origin)


def _is_surrogate(cp: int) -> bool:
    return SURROGATES[0] <= cp <= SURROGATES[1]


class _Reader:
    """A recursive-descent reader of ECMA-262 pattern syntax that builds the parts as it goes."""

    def __init__(self, pattern: str, origin: Origin | None) -> None:
        self.text = pattern
        self.i = 0
        self.user_origin = origin
        self.origin = origin or _DEFAULT_ORIGIN
        self.eps = _Lang(Lit(b"", origin=self.origin), True)
        self.unit = _Parts(self.eps, None, None, None)
        # Annex B spellings read leniently, and constructs whose meaning needs the u flag: a
        # pattern may use one kind or the other, never both.
        self.annex_b: list[tuple[int, str]] = []
        self.unicode_only: list[tuple[int, str]] = []

    # errors ----------------------------------------------------------------------------------
    def _where(self, pos: int) -> tuple[str, Origin]:
        line, col = _line_col(self.text, pos)
        at = f"column {col}" if line == 1 else f"line {line}, column {col}"
        return at, self.user_origin or Origin(_DEFAULT_ORIGIN.source, line, col)

    def syntax(self, pos: int, what: str, hint: str | None = None) -> GrammarError:
        at, origin = self._where(pos)
        return GrammarError(
            f"invalid ECMA-262 pattern: {what} ({at}): pattern {_shown(self.text)}",
            code="regex-syntax",
            origin=origin,
            hint=hint or "JSON Schema patterns are ECMA-262 regular expressions (Unicode mode)",
        )

    def refuse(self, pos: int, code: ErrorCode, what: str, hint: str) -> UnsupportedFeatureError:
        at, origin = self._where(pos)
        return UnsupportedFeatureError(
            f"{what} ({at}): pattern {_shown(self.text)}", code=code, origin=origin, hint=hint
        )

    # language algebra ------------------------------------------------------------------------
    def cat(self, *xs: _Lang | None) -> _Lang | None:
        items: list[Expr] = []
        for x in xs:
            if x is None:
                return None
            items.extend(x.expr.items if isinstance(x.expr, Seq) else (x.expr,))
        nullable = all(x is not None and x.nullable for x in xs)
        return _Lang(Seq(tuple(items), origin=self.origin), nullable)

    def union(self, *xs: _Lang | None) -> _Lang | None:
        live = [x for x in xs if x is not None]
        if len(live) <= 1:
            return live[0] if live else None
        alts = tuple(x.expr for x in live)
        return _Lang(Alt(alts, origin=self.origin), any(x.nullable for x in live))

    def eps_if(self, *xs: _Lang | None) -> _Lang | None:
        """The empty string, where one of ``xs`` holds it (a part that must consume nothing)."""
        return self.eps if any(x is not None and x.nullable for x in xs) else None

    def rep(self, x: _Lang | None, lo: int, hi: int | None) -> _Lang | None:
        if x is None or hi == 0:
            return self.eps if lo == 0 else None
        return _Lang(Repeat(x.expr, lo, hi, origin=self.origin), lo == 0 or x.nullable)

    def seq(self, a: _Parts, b: _Parts) -> _Parts:
        """``a`` then ``b``: a ``^`` in ``b`` needs ``a`` empty, a ``$`` in ``a`` ``b`` empty."""
        if a is self.unit:
            return b
        return _Parts(
            plain=self.cat(a.plain, b.plain),
            start=self.union(
                self.cat(a.start, b.plain), self.cat(self.eps_if(a.plain, a.start), b.start)
            ),
            end=self.union(self.cat(a.plain, b.end), self.cat(a.end, self.eps_if(b.plain, b.end))),
            both=self.union(
                self.cat(self.eps_if(a.plain, a.start), b.both),
                self.cat(a.start, b.end),
                self.cat(a.both, self.eps_if(b.plain, b.end)),
                self.cat(self.eps_if(a.end, a.both), self.eps_if(b.start, b.both)),
            ),
        )

    def seq_all(self, terms: list[_Parts]) -> _Parts:
        """A whole alternative; runs of anchor-free terms become one flat sequence."""
        acc = self.unit
        run: list[_Lang | None] = []
        for term in [*terms, None]:
            if term is not None and not term.anchored:
                run.append(term.plain)
                continue
            if run:
                acc = self.seq(acc, _Parts(self.cat(*run), None, None, None))
                run = []
            if term is not None:
                acc = self.seq(acc, term)
        return acc

    def alt(self, alts: list[_Parts]) -> _Parts:
        return _Parts(*(self.union(*(p[k] for p in alts)) for k in range(4)))

    def star(self, p: _Parts) -> _Parts:
        """``p*``: iterations before a ``^`` and after a ``$`` must all be empty."""
        plain = self.rep(p.plain, 0, None)
        return _Parts(
            plain=plain,
            start=self.cat(p.start, plain),
            end=self.cat(plain, p.end),
            both=self.union(
                p.both,
                self.cat(p.start, plain, p.end),
                self.cat(self.eps_if(p.end), self.eps_if(p.start)),
            ),
        )

    def repeat(self, p: _Parts, lo: int, hi: int | None, pos: int) -> _Parts:
        plain = self.rep(p.plain, lo, hi)
        if not p.anchored:
            return _Parts(plain, None, None, None)
        if lo + (hi - lo if hi is not None else 1) > _MAX_ANCHORED_COPIES:
            raise self.refuse(
                pos,
                "regex-anchor",
                f"a repeated group holding an anchor is unrolled up to {_MAX_ANCHORED_COPIES} "
                "times; this repetition needs more",
                "move the anchor out of the repeated group, or write the repetition out",
            )
        acc = self.unit
        for _ in range(lo):
            acc = self.seq(acc, p)
        if hi is None:
            acc = self.seq(acc, self.star(p))
        else:
            optional = _Parts(self.union(p.plain, self.eps), p.start, p.end, p.both)
            for _ in range(hi - lo):
                acc = self.seq(acc, optional)
        return _Parts(plain, acc.start, acc.end, acc.both)

    def chars(self, expr: Expr) -> _Parts:
        if (isinstance(expr, Alt) and not expr.items) or (
            isinstance(expr, CharClass) and expr.is_empty()
        ):
            return _Parts(None, None, None, None)
        return _Parts(_Lang(expr, False), None, None, None)

    def literal(self, cp: int, pos: int) -> _Parts:
        if cp > 0xFFFF or _is_surrogate(cp):
            self.unicode_only.append((pos, "a character outside the BMP or a surrogate"))
        if _is_surrogate(cp):  # no UTF-8 encoding: a lone surrogate matches no valid text
            return _Parts(None, None, None, None)
        return self.chars(Lit(chr(cp).encode("utf-8"), origin=self.origin))

    def char_set(self, items: list[str], negated: bool) -> _Parts:
        body = "".join(items)
        if not body:
            everything = ((0, MAX_CODEPOINT),) if negated else ()
            return self.chars(CharClass(everything, origin=self.origin))
        return self.chars(_set_expr(f"[{'^' if negated else ''}{body}]", self.origin))

    # the pattern -----------------------------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.text[j] if j < len(self.text) else ""

    def parse(self) -> Expr:
        parts, _ = self.disjunction()
        if self.i < len(self.text):  # only an unmatched ')' stops the top-level disjunction
            raise self.syntax(self.i, "unmatched ')'")
        if self.annex_b and self.unicode_only:
            pos, what = self.annex_b[0]
            other_pos, other = self.unicode_only[0]
            other_at, _ = self._where(other_pos)
            raise self.syntax(
                pos,
                f"{what} is not valid in Unicode mode, and the pattern also uses {other} "
                f"({other_at}), whose meaning depends on that mode",
                "escape only syntax characters (^$\\.*+?()[]{}|/) and write '{', '}' and ']' as "
                "'\\{', '\\}' and '\\]'",
            )
        return self.search(parts)

    def search(self, parts: _Parts) -> Expr:
        """Search semantics: unanchored sides may have any text around the match."""
        anything = Repeat(CharClass(((0, MAX_CODEPOINT),), origin=self.origin), origin=self.origin)
        if any(x is not None and x.nullable for x in parts[:3]):
            return anything
        around = _Lang(anything, True)
        found = self.union(
            self.cat(around, parts.plain, around),
            self.cat(parts.start, around),
            self.cat(around, parts.end),
            parts.both,
        )
        return simplify(found.expr if found is not None else Alt((), origin=self.origin))

    def disjunction(self) -> tuple[_Parts, frozenset[str]]:
        alts: list[_Parts] = []
        names: set[str] = set()
        while True:
            parts, found = self.alternative()
            alts.append(parts)
            names |= found  # the same name may recur in different alternatives (ES2025)
            if self.peek() != "|":
                return self.alt(alts), frozenset(names)
            self.i += 1

    def alternative(self) -> tuple[_Parts, frozenset[str]]:
        terms: list[_Parts] = []
        names: set[str] = set()
        while self.i < len(self.text) and self.text[self.i] not in "|)":
            start = self.i
            term, found = self.term()
            if names & found:
                raise self.syntax(start, f"duplicate group name {min(names & found)!r}")
            names |= found
            terms.append(term)
        return self.seq_all(terms), frozenset(names)

    def quantifier_ahead(self) -> bool:
        return self.peek() in ("*", "+", "?") or bool(
            self.peek() == "{" and _BRACED.match(self.text, self.i)
        )

    def term(self) -> tuple[_Parts, frozenset[str]]:
        start, c = self.i, self.text[self.i]
        if c in "^$":
            self.i += 1
            if self.quantifier_ahead():
                raise self.syntax(self.i, f"nothing to repeat: the anchor {c!r} is quantified")
            anchor = _Parts(None, self.eps, None, None)
            return (anchor if c == "^" else _Parts(None, None, self.eps, None)), frozenset()
        names: frozenset[str] = frozenset()
        if c == "(":
            atom, names = self.group()
        elif c == "[":
            atom = self.char_class()
        elif c == "\\":
            atom = self.atom_escape()
        elif c == ".":
            self.i += 1
            self.unicode_only.append((start, "'.'"))
            atom = self.chars(_set_expr(".", self.origin))
        elif c in "*+?" or (c == "{" and _BRACED.match(self.text, start)):
            raise self.syntax(start, "nothing to repeat")
        else:
            if c in "{}]":
                self.annex_b.append((start, f"a literal {c!r}"))
            atom = self.literal(self.source_char(), start)
        if self.quantifier_ahead():
            lo, hi = self.quantifier()
            if self.quantifier_ahead():
                raise self.syntax(self.i, "nothing to repeat: a quantifier follows a quantifier")
            atom = self.repeat(atom, lo, hi, start)
        return atom, names

    def quantifier(self) -> tuple[int, int | None]:
        c, pos = self.peek(), self.i
        if c == "{":
            m = _BRACED.match(self.text, pos)
            assert m is not None
            lo = int(m[1])
            hi = lo if m[2] is None else int(m[3]) if m[3] else None
            if hi is not None and hi < lo:
                raise self.syntax(pos, f"numbers out of order in {m[0]}")
            self.i = m.end()
        else:
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        if self.peek() == "?":  # lazy: the same language
            self.i += 1
        return lo, hi

    def source_char(self) -> int:
        """One pattern character; a surrogate pair written as two characters is one."""
        c = self.text[self.i]
        self.i += 1
        nxt = self.peek()
        if "\ud800" <= c <= "\udbff" and nxt and "\udc00" <= nxt <= "\udfff":
            self.i += 1
            return 0x10000 + ((ord(c) - 0xD800) << 10) + (ord(nxt) - 0xDC00)
        return ord(c)

    def group(self) -> tuple[_Parts, frozenset[str]]:
        start, text = self.i, self.text
        name = None
        if text.startswith(("(?=", "(?!", "(?<=", "(?<!"), start):
            raise self.refuse(
                start,
                "regex-lookaround",
                "look-ahead and look-behind assertions are not supported",
                "rewrite the pattern without the assertion (character classes often do it)",
            )
        if text.startswith("(?:", start):
            self.i = start + 3
        elif text.startswith("(?<", start):
            name = self.group_name(start)
        elif text.startswith("(?", start):
            if _MODIFIERS.match(text, start):
                raise self.refuse(
                    start,
                    "regex-modifiers",
                    "pattern modifiers such as (?i:...) are not supported",
                    "spell out the alternatives, e.g. [Aa] for a case-insensitive 'a'",
                )
            raise self.syntax(
                start,
                "invalid group: '(?' must start (?:, (?<name> or a look-around",
                "named groups are written (?<name>...) in ECMA-262, not (?P<name>...)",
            )
        else:
            self.i = start + 1
        inner, names = self.disjunction()
        if self.peek() != ")":
            raise self.syntax(start, "missing ')' for the group opened here")
        self.i += 1
        if name is not None:
            if name in names:
                raise self.syntax(start, f"duplicate group name {name!r}")
            names |= {name}
        return inner, names

    def group_name(self, start: int) -> str:
        end = self.text.find(">", start + 3)
        name = self.text[start + 3 : end] if end >= 0 else ""
        first_ok = name[:1] in ("$", "_") or name[:1].isidentifier()
        rest_ok = all(("a" + ch).isidentifier() or ch in "$\u200c\u200d" for ch in name[1:])
        if not name or not first_ok or not rest_ok:
            raise self.syntax(start, "invalid capture group name")
        self.i = end + 1
        return name

    def atom_escape(self) -> _Parts:
        start = self.i
        c = self.peek(1)
        if c in ("b", "B"):
            raise self.refuse(
                start,
                "regex-word-boundary",
                r"word boundaries \b and \B are not supported",
                "spell out the characters allowed on each side",
            )
        if (c.isascii() and c.isdigit() and c != "0") or (c == "k" and self.peek(2) == "<"):
            raise self.refuse(
                start,
                "regex-backreference",
                "back-references are not supported",
                "a back-reference is not regular; spell out the alternatives it may repeat",
            )
        item = self.escape(in_class=False)
        if isinstance(item, int):
            return self.literal(item, start)
        return self.char_set([item], False)

    def escape(self, in_class: bool) -> int | str:
        """The escape at ``self.i`` (a backslash): a code point, or a Python class item."""
        start = self.i
        self.i += 1
        if self.i >= len(self.text):
            raise self.syntax(start, "'\\' at the end of the pattern")
        c = self.text[self.i]
        self.i += 1
        if c in "dwsDWS":
            if c in "DWS":
                self.unicode_only.append((start, f"'\\{c}'"))
            return "\\" + c
        if c in "pP":
            return _ranges_text(self.property(start, negated=c == "P"))
        if c in _CONTROL:
            return _CONTROL[c]
        if c == "c":
            letter = self.peek()
            if not (letter.isascii() and letter.isalpha()):
                raise self.syntax(start, "'\\c' must be followed by a letter A-Z or a-z")
            self.i += 1
            return ord(letter) % 32
        if c == "0":
            if self.peek().isdigit() and self.peek().isascii():
                raise self.syntax(start, "octal escapes are not allowed", r"write \xHH or \uHHHH")
            return 0
        if c == "x":
            digits = self.text[self.i : self.i + 2]
            if len(digits) != 2 or not set(digits) <= _HEX:
                raise self.syntax(start, r"'\x' must be followed by two hex digits")
            self.i += 2
            return int(digits, 16)
        if c == "u":
            return self.unicode_escape(start)
        if in_class and c == "b":
            return 0x08
        if c in _SYNTAX or (in_class and c == "-"):
            return ord(c)
        if c.isascii() and c.isalnum():
            raise self.syntax(
                start,
                f"'\\{c}' is not an ECMA-262 escape",
                r"\A, \Z, \z and \h are Python or PCRE; use ^ and $, or spell out the class",
            )
        self.annex_b.append((start, f"the escape '\\{c}'"))
        self.i -= 1
        return self.source_char()

    def unicode_escape(self, start: int) -> int:
        text = self.text
        if self.peek() == "{":
            end = text.find("}", self.i)
            digits = text[self.i + 1 : end] if end >= 0 else ""
            if not digits or not set(digits) <= _HEX or int(digits, 16) > MAX_CODEPOINT:
                raise self.syntax(start, r"'\u{...}' needs a code point 0..10FFFF in hex")
            self.i = end + 1
            self.unicode_only.append((start, r"'\u{...}'"))
            return int(digits, 16)
        digits = text[self.i : self.i + 4]
        if len(digits) != 4 or not set(digits) <= _HEX:
            raise self.syntax(start, r"'\u' must be followed by four hex digits or {...}")
        self.i += 4
        cp = int(digits, 16)
        low = text[self.i + 2 : self.i + 6]
        if (
            0xD800 <= cp <= 0xDBFF
            and text.startswith("\\u", self.i)
            and len(low) == 4
            and set(low) <= _HEX
            and 0xDC00 <= int(low, 16) <= 0xDFFF
        ):  # a surrogate pair spelled as two escapes is one character in Unicode mode
            self.i += 6
            return 0x10000 + ((cp - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        return cp

    def property(self, start: int, negated: bool) -> _Ranges:
        end = self.text.find("}", self.i) if self.peek() == "{" else -1
        if end < 0:
            raise self.syntax(start, r"'\p' and '\P' must be followed by {Property}")
        body = self.text[self.i + 1 : end]
        self.i = end + 1
        self.unicode_only.append((start, f"'\\p{{{body}}}'"))
        key, eq, value = body.partition("=")
        cats: tuple[str, ...] | None = None
        if eq and key in ("General_Category", "gc"):
            cats = _GC.get(value)
        elif eq and key in ("Script", "sc", "Script_Extensions", "scx"):
            raise self.refuse(
                start,
                "regex-unicode-property",
                f"the Unicode property {body!r} is not supported (no script data in unicodedata)",
                "write the script's code point ranges as a class, e.g. [\\u0370-\\u03ff]",
            )
        elif not eq:
            cats = _GC.get(body)
            fixed = _FIXED_BINARY.get(_BINARY_ALIASES.get(body, body))
            if fixed is not None:
                ranges = normalize_ranges(fixed)
                return complement_ranges(ranges) if negated else ranges
            if body == "Assigned":
                cats = tuple(sorted(set(_categories()) - {"Cn"}))
            elif body in _UNSUPPORTED_BINARY:
                raise self.refuse(
                    start,
                    "regex-unicode-property",
                    f"the Unicode property {body!r} is not supported (no data in unicodedata)",
                    "supported: General_Category values, Any, ASCII, Assigned, ASCII_Hex_Digit, "
                    "Hex_Digit, White_Space, Join_Control, Regional_Indicator, "
                    "Pattern_White_Space, Noncharacter_Code_Point",
                )
        if cats is None:
            raise self.syntax(start, f"unknown Unicode property {body!r}")
        ranges = _category_ranges(cats)
        return complement_ranges(ranges) if negated else ranges

    def char_class(self) -> _Parts:
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        if negated:
            self.i += 1
            self.unicode_only.append((start, "a negated class"))
        items: list[str] = []
        while True:
            if self.i >= len(self.text):
                raise self.syntax(start, "missing ']' for the character class opened here")
            if self.text[self.i] == "]":
                self.i += 1
                return self.char_set(items, negated)
            first_pos = self.i
            first = self.class_atom()
            if self.peek() != "-" or self.peek(1) in ("]", ""):
                items.append(self.class_text(first, first_pos))
                continue
            self.i += 1
            last = self.class_atom()
            if isinstance(first, str) or isinstance(last, str):
                raise self.syntax(first_pos, "a class escape such as \\d cannot end a range")
            if first > last:
                raise self.syntax(first_pos, "range out of order in character class")
            if last > 0xFFFF or (first <= SURROGATES[1] and last >= SURROGATES[0]):
                self.unicode_only.append((first_pos, "a range outside the BMP or on surrogates"))
            items.append(f"{_class_item(first)}-{_class_item(last)}")

    def class_atom(self) -> int | str:
        if self.peek() == "\\":
            return self.escape(in_class=True)
        return self.source_char()

    def class_text(self, item: int | str, pos: int) -> str:
        if isinstance(item, str):
            return item
        if item > 0xFFFF or _is_surrogate(item):
            self.unicode_only.append((pos, "a character outside the BMP or a surrogate"))
        return _class_item(item)


def pattern_expr(pattern: str, *, origin: Origin | None = None) -> Expr:
    """The strings in which the ECMA-262 regex ``pattern`` finds a match (JSON Schema ``pattern``).

    The language is over characters (the caller adds JSON string escaping). ``origin`` names
    where the pattern came from; errors carry it, with the column in the message.
    """
    if not isinstance(pattern, str):
        where = origin or _DEFAULT_ORIGIN
        message = f"a JSON Schema pattern must be a string, not {type(pattern).__name__}"
        raise GrammarError(message, code="regex-type", origin=where, hint="quote the pattern")
    try:
        return _Reader(pattern, origin).parse()
    except RecursionError:
        raise UnsupportedFeatureError(
            f"the pattern nests groups too deeply: pattern {_shown(pattern)}",
            code="regex-nesting",
            origin=origin or _DEFAULT_ORIGIN,
            hint="flatten the nested groups",
        ) from None

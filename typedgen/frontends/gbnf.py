"""llama.cpp GBNF grammars lowered to the IR.

The syntax is llama.cpp's (``llama_grammar_parser`` in ``src/llama-grammar.cpp``), newline rules
included: a rule ends at the end of its line, except right after ``::=`` or ``|`` and anywhere
inside parentheses. Rules are character-level context-free rules over code points, so they
become plain (non-lexical) IR rules; literals are UTF-8 :class:`Lit`, classes :class:`CharClass`.

Where llama.cpp is silent or accidental, typedgen chooses the reading that keeps the written
language: ``{m,n}`` is kept exact (llama.cpp turns a maximum above 2000 into "unbounded"), and
``[]``, ``[^]`` and inverted ranges such as ``[z-a]`` (which llama.cpp accepts as matching the
empty string or nothing) are errors. Rule names may also contain ``_`` (as in XGrammar's EBNF),
which llama.cpp rejects. llama.cpp's load-time limits (at most 2000 repetitions, no left
recursion) are not imposed here: the language is well defined and the compiler's budget decides.
A rule defined twice takes its last definition, as in llama.cpp; unused rules are dropped; token
references (``<think>``, ``<[123]>``, ``!<...>``) are refused.
"""

from __future__ import annotations

import bisect
import difflib

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir.grammar import Grammar, Rule, register_format
from typedgen.ir.nodes import MAX_CODEPOINT, SURROGATES, Alt, CharClass, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes import prune_unreachable, simplify

__all__ = ["gbnf_grammar"]

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_SIMPLE_ESCAPES = {
    "t": "\t",
    "r": "\r",
    "n": "\n",
    "\\": "\\",
    '"': '"',
    "[": "[",
    "]": "]",
    "-": "-",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_ESCAPE_HINT = r"GBNF escapes are \n \r \t \\ \" \[ \] \- \xHH \uHHHH \UHHHHHHHH"
_REPEAT_HINT = "repetitions are {m}, {m,} or {m,n}; write {0,n} for at most n"
_CONTINUE_HINT = (
    "a GBNF rule ends at the end of its line: end the previous line with '|', or wrap the "
    "alternatives in parentheses to spread them over several lines"
)


class _Parser:
    """A recursive-descent reading of GBNF that follows llama.cpp's parser step by step."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.line_starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n" or (ch == "\r" and text[i + 1 : i + 2] != "\n"):
                self.line_starts.append(i + 1)
        self.rules: dict[str, Rule] = {}
        self.refs: list[Ref] = []

    # positions and errors -----------------------------------------------------------------
    def origin(self, pos: int) -> Origin:
        line = bisect.bisect_right(self.line_starts, pos)
        return Origin(self.source, line, pos - self.line_starts[line - 1] + 1)

    def error(self, message: str, pos: int, hint: str | None = None) -> GrammarError:
        return GrammarError(message, code="gbnf-syntax", origin=self.origin(pos), hint=hint)

    def found(self, pos: int) -> str:
        return repr(self.text[pos]) if pos < len(self.text) else "the end of the grammar"

    def peek(self, pos: int) -> str:
        return self.text[pos] if pos < len(self.text) else ""

    def space(self, pos: int, newline_ok: bool) -> int:
        text, n = self.text, len(self.text)
        while pos < n:
            ch = text[pos]
            if ch == "#":
                while pos < n and text[pos] not in "\r\n":
                    pos += 1
            elif ch in " \t" or (newline_ok and ch in "\r\n"):
                pos += 1
            else:
                break
        return pos

    def name_end(self, pos: int) -> int:
        while pos < len(self.text) and self.text[pos] in _NAME_CHARS:
            pos += 1
        return pos

    # rules ----------------------------------------------------------------------------------
    def parse(self) -> None:
        pos = self.space(0, True)
        while pos < len(self.text):
            pos = self.rule(pos)

    def rule(self, pos: int) -> int:
        end = self.name_end(pos)
        if end == pos:
            hint = _CONTINUE_HINT if self.text[pos] == "|" else "a rule looks like: name ::= body"
            raise self.error(f"expected a rule name, found {self.found(pos)}", pos, hint)
        name = self.text[pos:end]
        after = self.space(end, False)
        if not self.text.startswith("::=", after):
            raise self.error(
                f"expected '::=' after the rule name {name!r}, found {self.found(after)}",
                after,
                "a rule looks like: name ::= body (names are letters, digits, '-' and '_')",
            )
        body, at = self.alternates(self.space(after + 3, True), nested=False)
        ch = self.peek(at)
        if ch == "\r":
            at += 2 if self.peek(at + 1) == "\n" else 1
        elif ch == "\n":
            at += 1
        elif ch:
            hint = "this ')' has no matching '('" if ch == ")" else _CONTINUE_HINT
            raise self.error(f"unexpected {self.found(at)} in the body of rule {name!r}", at, hint)
        self.rules[name] = Rule(name, simplify(body), origin=self.origin(pos))
        return self.space(at, True)

    def alternates(self, pos: int, *, nested: bool) -> tuple[Expr, int]:
        start = pos
        first, pos = self.sequence(pos, nested)
        items = [first]
        while self.peek(pos) == "|":
            item, pos = self.sequence(self.space(pos + 1, True), nested)
            items.append(item)
        if len(items) == 1:
            return first, pos
        return Alt(tuple(items), origin=self.origin(start)), pos

    def sequence(self, pos: int, nested: bool) -> tuple[Expr, int]:
        text = self.text
        start = pos
        items: list[Expr] = []
        last: int | None = None  # index of the item a postfix operator applies to
        while pos < len(text):
            ch = text[pos]
            here = pos
            item: Expr | None = None
            if ch == '"':
                codepoints, pos = self.literal(pos)
                if codepoints:
                    data = "".join(map(chr, codepoints)).encode("utf-8")
                    item = Lit(data, origin=self.origin(here))
            elif ch == "[":
                item, pos = self.char_class(pos)
            elif ch == ".":
                item = CharClass((), negated=True, origin=self.origin(here))
                pos += 1
            elif ch in _NAME_CHARS:
                end = self.name_end(pos)
                item = Ref(text[pos:end], origin=self.origin(here))
                self.refs.append(item)
                pos = end
            elif ch == "(":
                item, pos = self.group(pos)
            elif ch in "<!":
                raise UnsupportedFeatureError(
                    "llama.cpp token references (<token>, <[id]>, !<...>) are not supported",
                    code="gbnf-token",
                    origin=self.origin(here),
                    hint="token references depend on one tokenizer; write the text as a literal",
                )
            elif ch in "*+?{":
                lo, hi, pos = self.quantifier(pos, nested)
                if last is None:
                    raise self.error(
                        f"{ch!r} has nothing to repeat",
                        here,
                        "put the repeated item (a literal, class, name or group) right before it",
                    )
                items[last] = Repeat(items[last], lo, hi, origin=self.origin(here))
                continue
            else:
                break
            pos = self.space(pos, nested)
            if item is None:
                last = None  # llama.cpp: an empty literal leaves nothing to repeat
            else:
                items.append(item)
                last = len(items) - 1
        if len(items) == 1:
            return items[0], pos
        return Seq(tuple(items), origin=self.origin(start)), pos

    def group(self, pos: int) -> tuple[Expr, int]:
        inner = self.space(pos + 1, True)
        if self.peek(inner) == "=":
            raise UnsupportedFeatureError(
                "XGrammar look-ahead assertions (= ...) are not part of GBNF",
                code="gbnf-lookahead",
                origin=self.origin(pos),
                hint="remove the assertion; it only restricts what may follow the rule",
            )
        body, end = self.alternates(inner, nested=True)
        if self.peek(end) != ")":
            if end >= len(self.text):
                raise self.error("this '(' is never closed", pos, "add the missing ')'")
            raise self.error(
                f"expected ')' or '|' inside parentheses, found {self.found(end)}",
                end,
                "inside ( ) only literals, classes, names, groups and * + ? {m,n} may appear",
            )
        return body, end + 1

    def quantifier(self, pos: int, nested: bool) -> tuple[int, int | None, int]:
        ch = self.text[pos]
        if ch != "{":
            bounds: dict[str, tuple[int, int | None]] = {
                "*": (0, None),
                "+": (1, None),
                "?": (0, 1),
            }
            return (*bounds[ch], self.space(pos + 1, nested))
        p = self.space(pos + 1, nested)
        lo_text, p = self.integer(p, "after '{'")
        lo = int(lo_text)
        hi: int | None = lo
        p = self.space(p, nested)
        if self.peek(p) == ",":
            p = self.space(p + 1, nested)
            hi = None
            if self.peek(p) in _DIGITS and self.peek(p):
                hi_text, p = self.integer(p, "after ','")
                hi = int(hi_text)
                p = self.space(p, nested)
            if self.peek(p) != "}":
                found = self.found(p)
                raise self.error(
                    f"expected '}}' to close the repetition, found {found}", p, _REPEAT_HINT
                )
        elif self.peek(p) != "}":
            found = self.found(p)
            raise self.error(
                f"expected ',' or '}}' in the repetition, found {found}", p, _REPEAT_HINT
            )
        if hi is not None and hi < lo:
            message = f"repetition {{{lo},{hi}}}: the maximum is smaller than the minimum"
            raise self.error(message, pos, "write {min,max} with min <= max")
        return lo, hi, self.space(p + 1, nested)

    def integer(self, pos: int, where: str) -> tuple[str, int]:
        end = pos
        while end < len(self.text) and self.text[end] in _DIGITS:
            end += 1
        if end == pos:
            raise self.error(
                f"expected a number {where}, found {self.found(pos)}",
                pos,
                _REPEAT_HINT,
            )
        return self.text[pos:end], end

    # characters ----------------------------------------------------------------------------
    def char(self, pos: int) -> tuple[int, int]:
        text = self.text
        if text[pos] != "\\":
            return ord(text[pos]), pos + 1
        esc = self.peek(pos + 1)
        if esc in _HEX_ESCAPES:
            size = _HEX_ESCAPES[esc]
            digits = text[pos + 2 : pos + 2 + size]
            if len(digits) != size or not set(digits) <= _HEX:
                raise self.error(f"expected {size} hex digits after \\{esc}", pos, _ESCAPE_HINT)
            value = int(digits, 16)
            if value > MAX_CODEPOINT:
                raise self.error(f"\\{esc}{digits} is beyond U+10FFFF", pos, _ESCAPE_HINT)
            return value, pos + 2 + size
        if esc in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[esc]), pos + 2
        if not esc:
            raise self.error("the grammar ends inside an escape", pos, _ESCAPE_HINT)
        raise self.error(f"unknown escape \\{esc}", pos, _ESCAPE_HINT)

    def literal(self, pos: int) -> tuple[list[int], int]:
        p = pos + 1
        codepoints: list[int] = []
        while True:
            if p >= len(self.text):
                raise self.error("this string literal is never closed", pos, 'add the closing "')
            if self.text[p] == '"':
                return codepoints, p + 1
            at = p
            cp, p = self.char(p)
            if SURROGATES[0] <= cp <= SURROGATES[1]:
                raise GrammarError(
                    f"U+{cp:04X} is a surrogate, which UTF-8 text never contains",
                    code="gbnf-surrogate",
                    origin=self.origin(at),
                    hint="write the character itself, or \\U0001XXXX for one beyond U+FFFF",
                )
            codepoints.append(cp)

    def char_class(self, pos: int) -> tuple[CharClass, int]:
        p = pos + 1
        negated = self.peek(p) == "^"
        if negated:
            p += 1
        ranges: list[tuple[int, int]] = []
        while True:
            if p >= len(self.text):
                raise self.error("this character class is never closed", pos, "add the closing ]")
            if self.text[p] == "]":
                break
            at = p
            lo, p = self.char(p)
            hi = lo
            if self.peek(p) == "-" and self.peek(p + 1) != "]":
                if p + 1 >= len(self.text):
                    raise self.error("this character class is never closed", pos, "add ]")
                hi, p = self.char(p + 1)
            if hi < lo:
                raise GrammarError(
                    f"character range {self.text[at:p]} is inverted",
                    code="gbnf-bad-range",
                    origin=self.origin(at),
                    hint="write the smaller end first (llama.cpp would silently match nothing)",
                )
            ranges.append((lo, hi))
        if not ranges:
            raise GrammarError(
                f"empty character class {self.text[pos : p + 1]}",
                code="gbnf-empty-class",
                origin=self.origin(pos),
                hint='llama.cpp reads it as the empty string; write "" for that, . for any '
                "character, or list the characters",
            )
        return CharClass(tuple(ranges), negated, origin=self.origin(pos)), p + 1

    # the grammar ---------------------------------------------------------------------------
    def grammar(self, start: str) -> Grammar:
        names = list(self.rules)
        for ref in self.refs:
            if ref.name not in self.rules:
                close = difflib.get_close_matches(ref.name, names, n=1)
                raise GrammarError(
                    f"undefined rule {ref.name!r}",
                    code="undefined-rule",
                    origin=ref.origin,
                    hint=f"did you mean {close[0]!r}?" if close else "define it: name ::= ...",
                )
        if start not in self.rules:
            close = difflib.get_close_matches(start, names, n=1)
            raise GrammarError(
                f"the grammar has no start rule {start!r}",
                code="undefined-start",
                origin=Origin(self.source),
                hint=f"did you mean {close[0]!r}?"
                if close
                else f"define it ({start} ::= ...) or pass start=...",
            )
        rules = prune_unreachable(self.rules.values(), [start])
        return Grammar(rules, start, origin=Origin(self.source))


def gbnf_grammar(text: str, *, start: str = "root", source: str = "<gbnf>") -> Grammar:
    """Parse llama.cpp GBNF text; ``source`` names the document in every error and origin."""
    parser = _Parser(text, source)
    parser.parse()
    return parser.grammar(start)


register_format("gbnf", gbnf_grammar)

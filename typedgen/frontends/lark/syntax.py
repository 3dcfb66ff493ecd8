"""Lark grammar text -> a small syntax tree with positions.

The tokenizer mirrors lark's own meta-lexer (``lark.load_grammar.TERMINALS``, tried in the order
lark's basic lexer tries them, first match wins), and the parser mirrors lark's meta-grammar
(``lark.load_grammar.RULES``), so exactly the texts lark accepts are accepted, with positions for
every name and literal. Two llguidance extensions are parsed as well, because the IR supports
them: ``&`` (intersection, looser than sequence, tighter than ``|``) and prefix ``~``
(complement), and the repetition ranges ``x{m}``, ``x{m,}``, ``x{,n}``, ``x{m,n}``. Other
llguidance syntax (``%json``, ``%regex``, ``<special>`` tokens, ``name::param``, ...) is refused
with :class:`~typedgen.errors.UnsupportedFeatureError` naming the construct.
"""

from __future__ import annotations

import re
from ast import literal_eval
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from typedgen.errors import ErrorCode, GrammarError, UnsupportedFeatureError
from typedgen.frontends.lark.tree import (
    CharRange,
    Choice,
    Declare,
    Definition,
    Ignore,
    Import,
    Intersection,
    Literal,
    Name,
    Negation,
    Node,
    Repetition,
    Sequence,
    Statement,
    TemplateUse,
    children,
    is_terminal_name,
)
from typedgen.ir.origin import Origin

__all__ = [
    "CharRange",
    "Choice",
    "Declare",
    "Definition",
    "Ignore",
    "Import",
    "Intersection",
    "Literal",
    "Name",
    "Negation",
    "Node",
    "Repetition",
    "Sequence",
    "Statement",
    "TemplateUse",
    "children",
    "eval_escaping",
    "is_terminal_name",
    "parse_lark",
]

RE_FLAGS = "imslux"

# Lark's meta-terminals in the order its basic lexer tries them (first match wins), plus ``&``.
_TOKENS: tuple[tuple[str, str], ...] = (
    ("REGEXP", r"/(?!/)(\\/|\\\\|[^/])*?/[" + RE_FLAGS + "]*"),
    ("STRING", r'"(\\"|\\\\|[^"\n])*?"i?'),
    ("COMMENT", r"\s*//[^\n]*|\s*#[^\n]*"),
    ("RULE", r"_?[a-z][_a-z0-9]*"),
    ("TERMINAL", r"_?[A-Z][_A-Z0-9]*"),
    ("_NL_OR", r"(\r?\n)+\s*\|"),
    ("_NL", r"(\r?\n)+\s*"),
    ("BACKSLASH", r"\\[ ]*\n"),
    ("NUMBER", r"[+-]?\d+"),
    ("WS", r"[ \t]+"),
    ("_OVERRIDE", r"%override"),
    ("_DECLARE", r"%declare"),
    ("_EXTEND", r"%extend"),
    ("_IGNORE", r"%ignore"),
    ("_IMPORT", r"%import"),
    ("RULE_MODIFIERS", r"(!|![?]?|[?]!?)(?=[_a-z])"),
    ("_DOTDOT", r"\.\."),
    ("_TO", r"->"),
    ("OP", r"[+*]|[?](?![a-z_])"),
    ("_DOT", r"\.(?!\.)"),
    ("_LBRA", r"\["),
    ("_LBRACE", r"\{"),
    ("_LPAR", r"\("),
    ("_OR", r"\|"),
    ("_RBRA", r"\]"),
    ("_RBRACE", r"\}"),
    ("_RPAR", r"\)"),
    ("TILDE", r"~"),
    ("_COLON", r":"),
    ("_COMMA", r","),
    ("_AMP", r"&"),
)
_SCANNER = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _TOKENS))
_SKIPPED = frozenset({"WS", "COMMENT", "BACKSLASH"})
_ATTRIBUTES = re.compile(r"[ \t]*[!?]*_?[A-Za-z][_A-Za-z0-9]*[ \t]*\[[^\]\n]*\][ \t]*:")
_DESCRIBE = {
    "_NL": "end of line",
    "_NL_OR": "'|' on a new line",
    "_COLON": "':'",
    "_COMMA": "','",
    "_DOT": "'.'",
    "_DOTDOT": "'..'",
    "_TO": "'->'",
    "_OR": "'|'",
    "_LPAR": "'('",
    "_RPAR": "')'",
    "_LBRA": "'['",
    "_RBRA": "']'",
    "_LBRACE": "'{'",
    "_RBRACE": "'}'",
    "_AMP": "'&'",
    "TILDE": "'~'",
    "$END": "end of input",
}
_LLGUIDANCE_DIRECTIVES: dict[str, tuple[str, ErrorCode]] = {
    "json": ("embedded JSON schemas (%json {...})", "llguidance-json"),
    "regex": ("extended regexes (%regex {...})", "llguidance-regex"),
    "lark": ("nested grammars (%lark {...})", "llguidance-lark"),
    "llguidance": ("llguidance options (%llguidance {...})", "llguidance-llguidance"),
    "if": ("conditions on parametric rules (%if ...)", "llguidance-if"),
}


# -- literals ------------------------------------------------------------------------------


def eval_escaping(text: str, origin: Origin | None = None) -> str:
    """Unescape a literal's body exactly as lark's ``eval_escaping`` does.

    ``\\n \\t \\r \\f \\xNN \\uNNNN \\UNNNNNNNN`` become characters; every other escape is kept
    as backslash + character (so regex escapes such as ``\\d`` survive), and ``\\"`` becomes ``"``.
    """
    out: list[str] = []
    chars = iter(text)
    for ch in chars:
        out.append(ch)
        if ch == "\\":
            try:
                nxt = next(chars)
            except StopIteration:
                raise GrammarError(
                    f"literal ends with a lone backslash: {text!r}",
                    code="lark-bad-escape",
                    origin=origin,
                    hint="escape the backslash as \\\\",
                ) from None
            if nxt == "\\":
                out.append("\\\\")
            elif nxt not in "Uuxnftr":
                out.append("\\")
            out.append(nxt)
    joined = "".join(out).replace('\\"', '"').replace("'", "\\'")
    try:
        value = literal_eval(f"u'''{joined}'''")
    except (SyntaxError, ValueError) as exc:
        raise GrammarError(
            f"bad escape in literal {text!r}: {exc}",
            code="lark-bad-escape",
            origin=origin,
            hint="lark literals take Python escapes: \\n \\t \\xNN \\uNNNN \\UNNNNNNNN",
        ) from None
    assert isinstance(value, str)
    return value


def _literal(raw: str, kind: TypingLiteral["str", "re"], origin: Origin) -> Literal:
    flag_start = max(raw.rfind("/"), raw.rfind('"')) + 1
    flags = raw[flag_start:]
    body = raw[: flag_start - 1][1:]
    if kind == "str" and "\n" in raw:
        raise GrammarError(
            "string literals cannot contain newlines",
            code="lark-syntax",
            origin=origin,
            hint='write the newline as \\n, or close the string with "',
        )
    if kind == "re" and "\n" in raw and "x" not in flags:
        raise GrammarError(
            "regular expressions can contain newlines only with the x (verbose) flag",
            code="lark-syntax",
            origin=origin,
            hint="write the newline as \\n, close the regexp with /, or add the x flag",
        )
    value = eval_escaping(body, origin)
    if value == "":
        raise GrammarError(
            f"empty terminals are not allowed ({raw})",
            code="lark-empty-literal",
            origin=origin,
            hint='lark has no empty literal; use an empty alternative ("a" | ) or [x]',
        )
    if kind == "str":
        value = value.replace("\\\\", "\\")
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            raise GrammarError(
                f"string literal {raw} holds a lone surrogate, which has no UTF-8 encoding",
                code="lark-surrogate",
                origin=origin,
                hint="write the character itself, or its \\U escape",
            )
    return Literal(kind, value, flags, raw, origin)


# -- tokenizer -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Token:
    type: str
    value: str
    origin: Origin


class _Text:
    """Offsets -> 1-based line/column origins."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def origin(self, offset: int) -> Origin:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Origin(self.source, lo + 1, offset - self.starts[lo] + 1)


# llguidance-only syntax, by its first characters (the longest prefixes first).
_LLGUIDANCE_SYNTAX: tuple[tuple[str, tuple[str, ErrorCode, str]], ...] = (
    (
        "<[",
        (
            "token-id ranges (<[...]>)",
            "llguidance-token-ids",
            "typedgen grammars are over text; token ids are not part of the language",
        ),
    ),
    (
        "<",
        (
            "special tokens (<...>)",
            "llguidance-special-token",
            "special tokens are never generated as text; drop them from the grammar",
        ),
    ),
    (
        "@",
        (
            "grammar references (@name)",
            "llguidance-grammar-ref",
            "inline the referenced grammar, or use %import",
        ),
    ),
)


def _refuse_unknown(text: str, pos: int, origin: Origin) -> None:
    """Raise the most helpful error for input no lark token matches."""
    directive = re.match(r"%([A-Za-z_]\w*)", text[pos:])
    if directive:
        word = directive.group(1)
        if word in _LLGUIDANCE_DIRECTIVES:
            what, code = _LLGUIDANCE_DIRECTIVES[word]
            raise UnsupportedFeatureError(
                f"%{word}: llguidance's {what} are not supported",
                code=code,
                origin=origin,
                hint="write the construct as plain Lark rules and terminals",
            )
        raise GrammarError(
            f"unknown directive %{word}",
            code="lark-syntax",
            origin=origin,
            hint="lark knows %ignore, %import, %override, %extend and %declare",
        )
    for prefix, (what, code, hint) in _LLGUIDANCE_SYNTAX:
        if text.startswith(prefix, pos):
            raise UnsupportedFeatureError(
                f"llguidance {what} are not supported", code=code, origin=origin, hint=hint
            )
    snippet = text[pos : pos + 20].split("\n")[0]
    raise GrammarError(
        f"unexpected input {snippet!r}",
        code="lark-syntax",
        origin=origin,
        hint='Lark has rules (name: ...), terminals (NAME: ...), "strings", /regexps/ and'
        " %directives; comments start with //",
    )


def _tokenize(text: str, lines: _Text) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    n = len(text)
    while pos < n:
        if (not tokens or tokens[-1].type == "_NL") and _ATTRIBUTES.match(text, pos):
            raise UnsupportedFeatureError(
                "llguidance attributes after a rule name ([stop=...], [capture], [lazy], ...) "
                "are not supported",
                code="llguidance-attributes",
                origin=lines.origin(text.index("[", pos)),
                hint="remove the [...] between the name and the colon",
            )
        if text.startswith("::", pos):
            raise UnsupportedFeatureError(
                "llguidance parametric rules (name::param) are not supported",
                code="llguidance-parametric",
                origin=lines.origin(pos),
                hint="expand the parameter values into separate rules",
            )
        match = _SCANNER.match(text, pos)
        if match is None or match.end() == pos:
            _refuse_unknown(text, pos, lines.origin(pos))
            raise AssertionError("unreachable")  # pragma: no cover
        kind = match.lastgroup
        assert kind is not None
        if kind not in _SKIPPED:
            tokens.append(_Token(kind, match.group(), lines.origin(pos)))
        pos = match.end()
    tokens.append(_Token("$END", "", lines.origin(n)))
    return tokens


# -- parser --------------------------------------------------------------------------------

_EXPR_START = frozenset({"_LPAR", "_LBRA", "TERMINAL", "RULE", "STRING", "REGEXP", "TILDE"})


class _Parser:
    """Recursive descent over lark's meta-grammar (plus ``&``, prefix ``~`` and ``{m,n}``)."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.i = 0

    # token helpers
    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def next(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def accept(self, kind: str) -> _Token | None:
        if self.peek().type == kind:
            return self.next()
        return None

    def expect(self, kind: str, what: str | None = None, hint: str | None = None) -> _Token:
        tok = self.peek()
        if tok.type != kind:
            self.fail(what or _DESCRIBE.get(kind, kind), hint)
        return self.next()

    def fail(self, expected: str, hint: str | None = None) -> None:
        tok = self.peek()
        got = _DESCRIBE.get(tok.type) or f"{tok.value!r}"
        if tok.type == "OP" or tok.type == "RULE_MODIFIERS":
            hint = hint or "an operator (? * +) follows an atom, and only one per atom"
        if tok.type == "_COLON":
            hint = hint or "a colon only follows the name of a new rule or terminal"
        raise GrammarError(
            f"expected {expected}, got {got}",
            code="lark-syntax",
            origin=tok.origin,
            hint=hint or f"the grammar needs {expected} here",
        )

    # statements
    def parse(self) -> list[Statement]:
        out: list[Statement] = []
        while True:
            tok = self.peek()
            kind = tok.type
            if kind == "$END":
                return out
            if kind == "_NL":
                self.next()
            elif kind in ("RULE", "RULE_MODIFIERS", "TERMINAL"):
                out.append(self.definition(""))
            elif kind in ("_OVERRIDE", "_EXTEND"):
                self.next()
                directive = "override" if kind == "_OVERRIDE" else "extend"
                if self.peek().type not in ("RULE", "RULE_MODIFIERS", "TERMINAL"):
                    self.fail(f"a rule or terminal definition after %{directive}")
                out.append(self.definition(directive))
            elif kind == "_IGNORE":
                self.next()
                if self.peek().type not in _EXPR_START:
                    self.fail("a terminal or literal to ignore")
                body = self.expansions()
                self.expect("_NL")
                out.append(Ignore(body, tok.origin))
            elif kind == "_IMPORT":
                out.append(self.import_statement())
            elif kind == "_DECLARE":
                self.next()
                names = []
                while self.peek().type in ("RULE", "TERMINAL"):
                    name = self.next()
                    names.append(Name(name.value, name.origin, name.type == "TERMINAL"))
                if not names:
                    self.fail("names to declare")
                self.expect("_NL")
                out.append(Declare(tuple(names), tok.origin))
            else:
                self.fail(
                    "a rule or terminal definition or a directive",
                    hint="every line is `name: ...`, `NAME: ...` or a %directive",
                )

    def definition(self, directive: str) -> Definition:
        modifiers = ""
        if self.peek().type == "RULE_MODIFIERS":
            modifiers = self.next().value
            if self.peek().type != "RULE":
                self.fail("a rule name after the modifier")
        name_tok = self.next()
        is_term = name_tok.type == "TERMINAL"
        params: list[str] = []
        if self.peek().type == "_LBRACE":
            if is_term:
                raise GrammarError(
                    f"terminal {name_tok.value} cannot have template parameters",
                    code="lark-syntax",
                    origin=self.peek().origin,
                    hint="only rules (lower-case names) can be templates",
                )
            self.next()
            params.append(self.expect("RULE", "a template parameter name").value)
            while self.accept("_COMMA"):
                params.append(self.expect("RULE", "a template parameter name").value)
            self.expect("_RBRACE")
        priority: int | None = None
        if self.accept("_DOT"):
            priority = int(self.expect("NUMBER", "a priority number").value)
        if self.peek().type == "_LBRA":
            raise UnsupportedFeatureError(
                f"llguidance attributes on {name_tok.value!r} ([stop=...], [lazy], ...) are "
                "not supported",
                code="llguidance-attributes",
                origin=self.peek().origin,
                hint="remove the [...] after the name",
            )
        self.expect("_COLON", "':' after the name", hint="a definition is `name: expansion`")
        body = self.expansions()
        self.expect("_NL", "'|', an operator or the end of the line")
        return Definition(
            name_tok.value,
            is_term,
            tuple(params),
            modifiers,
            priority,
            body,
            name_tok.origin,
            directive,
        )

    def import_statement(self) -> Import:
        start = self.next()
        relative = self.accept("_DOT") is not None
        path = [self.import_name()]
        while self.accept("_DOT"):
            path.append(self.import_name())
        names: list[tuple[str, str]] = []
        if self.accept("_LPAR"):
            names.append(self.pair(self.import_name()))
            while self.accept("_COMMA"):
                names.append(self.pair(self.import_name()))
            self.expect("_RPAR")
            self.expect("_NL")
            return Import(tuple(path), relative, tuple(names), start.origin)
        if len(path) == 1:
            raise GrammarError(
                f"nothing was imported from grammar {path[0]!r}",
                code="lark-syntax",
                origin=start.origin,
                hint=f"write %import {path[0]}.NAME or %import {path[0]} (NAME, ...)",
            )
        name = path.pop()
        alias = name
        if self.accept("_TO"):
            alias = self.import_name()
        self.expect("_NL")
        if is_terminal_name(name) != is_terminal_name(alias):
            raise GrammarError(
                f"cannot import {name} as {alias}: a terminal and a rule name",
                code="lark-import-alias",
                origin=start.origin,
                hint="terminals (upper case) and rules (lower case) keep their kind",
            )
        return Import(tuple(path), relative, ((name, alias),), start.origin)

    def import_name(self) -> str:
        tok = self.peek()
        if tok.type not in ("RULE", "TERMINAL"):
            self.fail("a name to import")
        return self.next().value

    @staticmethod
    def pair(name: str) -> tuple[str, str]:
        return (name, name)

    # expressions
    def expansions(self) -> Choice:
        origin = self.peek().origin
        alts: list[Node] = []
        aliases: list[Name | None] = []
        while True:
            alt = self.intersection()
            alias: Name | None = None
            if self.accept("_TO"):
                tok = self.expect("RULE", "a rule name (lower case) after '->'")
                alias = Name(tok.value, tok.origin, False)
            alts.append(alt)
            aliases.append(alias)
            if self.peek().type not in ("_OR", "_NL_OR"):
                return Choice(tuple(alts), tuple(aliases), origin)
            self.next()

    def intersection(self) -> Node:
        origin = self.peek().origin
        items = [self.expansion()]
        while self.accept("_AMP"):
            items.append(self.expansion())
        return items[0] if len(items) == 1 else Intersection(tuple(items), origin)

    def expansion(self) -> Sequence:
        origin = self.peek().origin
        items: list[Node] = []
        while self.peek().type in _EXPR_START:
            items.append(self.expr())
        return Sequence(tuple(items), origin)

    def expr(self) -> Node:
        origin = self.peek().origin
        if self.accept("TILDE"):
            atom: Node = Negation(self.atom(), origin)
        else:
            atom = self.atom()
        tok = self.peek()
        if tok.type == "OP":
            self.next()
            lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}[tok.value]
            return Repetition(atom, lo, hi, tok.value, tok.origin)
        if tok.type == "TILDE" and self.peek(1).type == "NUMBER":
            self.next()
            lo = int(self.next().value)
            top: int | None = lo
            if self.accept("_DOTDOT"):
                top = int(self.expect("NUMBER", "the upper bound after '..'").value)
            return self.checked(atom, lo, top, "~", tok.origin)
        if tok.type == "_LBRACE":
            return self.braced_repeat(atom)
        return atom

    def braced_repeat(self, atom: Node) -> Repetition:
        """llguidance's ``x{m}``, ``x{m,}``, ``x{,n}``, ``x{m,n}``."""
        tok = self.next()
        lo = 0
        hi: int | None
        if self.peek().type == "NUMBER":
            lo = int(self.next().value)
        if self.accept("_COMMA"):
            hi = int(self.next().value) if self.peek().type == "NUMBER" else None
        else:
            hi = lo
        self.expect("_RBRACE", "'}' closing the repetition range")
        return self.checked(atom, lo, hi, "{}", tok.origin)

    @staticmethod
    def checked(atom: Node, lo: int, hi: int | None, op: str, origin: Origin) -> Repetition:
        if lo < 0:
            raise GrammarError(
                f"bad repetition range: range start must be >= 0, got {lo}",
                code="bad-repeat",
                origin=origin,
                hint="counts start at 0",
            )
        if hi is not None and hi < lo:
            raise GrammarError(
                f"bad repetition range {lo}..{hi}: range end must be >= start",
                code="bad-repeat",
                origin=origin,
                hint="write the smaller count first",
            )
        return Repetition(atom, lo, hi, op, origin)

    def atom(self) -> Node:
        tok = self.peek()
        if tok.type == "_LPAR":
            self.next()
            inner = self.expansions()
            self.expect("_RPAR", "')' or '|'")
            return inner
        if tok.type == "_LBRA":
            self.next()
            inner = self.expansions()
            self.expect("_RBRA", "']' or '|'")
            return Repetition(inner, 0, 1, "[]", tok.origin)
        return self.value()

    def value(self, expected: str = "a name, a literal, '(' or '['") -> Node:
        tok = self.peek()
        if tok.type == "STRING":
            self.next()
            if self.accept("_DOTDOT"):
                end = self.expect("STRING", "a string after '..'")
                return _char_range(tok, end)
            return _literal(tok.value, "str", tok.origin)
        if tok.type == "REGEXP":
            self.next()
            return _literal(tok.value, "re", tok.origin)
        if tok.type == "TERMINAL":
            self.next()
            return Name(tok.value, tok.origin, True)
        if tok.type == "RULE":
            self.next()
            name = Name(tok.value, tok.origin, False)
            if self.peek().type == "_LBRACE" and self.peek(1).type not in ("NUMBER", "_COMMA"):
                self.next()
                arg = "a name or a literal (a template argument is one value)"
                args = [self.value(arg)]
                while self.accept("_COMMA"):
                    args.append(self.value(arg))
                self.expect("_RBRACE", "',' or '}' in the template arguments")
                return TemplateUse(name, tuple(args), tok.origin)
            return name
        self.fail(expected)
        raise AssertionError("unreachable")  # pragma: no cover


def _char_range(start: _Token, end: _Token) -> CharRange:
    values = []
    for tok, which in ((start, "start"), (end, "end")):
        if tok.value.endswith("i"):
            raise GrammarError(
                f"range {which} cannot take the i flag",
                code="lark-bad-range",
                origin=tok.origin,
                hint='spell both cases: ("a".."z" | "A".."Z")',
            )
        raw = tok.value[1:-1]
        value = eval_escaping(raw, tok.origin)
        if len(value) != 1:
            raise GrammarError(
                f"range {which} must be a single character, got {tok.value}",
                code="lark-bad-range",
                origin=tok.origin,
                hint='a range is "a".."z": one character on each side',
            )
        values.append((value, raw))
    (lo, raw_lo), (hi, raw_hi) = values
    if ord(lo) > ord(hi):
        raise GrammarError(
            f"invalid range order: {start.value}..{end.value}",
            code="lark-bad-range",
            origin=start.origin,
            hint="put the smaller character first",
        )
    return CharRange(lo, hi, raw_lo, raw_hi, start.origin)


def parse_lark(text: str, source: str = "<lark>") -> list[Statement]:
    """Parse Lark grammar text into statements; syntax errors carry line and column."""
    full = text + "\n"
    tokens = _tokenize(full, _Text(full, source))
    return _Parser(tokens).parse()

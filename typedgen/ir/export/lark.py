"""The Lark writer: ``Grammar.to_lark()`` (lark's syntax, or llguidance's dialect of it).

See :mod:`typedgen.ir.export` for what is kept and what is approximated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir.analysis import nullable
from typedgen.ir.export.common import (
    ALT,
    AND,
    EPS,
    SEQ,
    UNARY,
    VOID,
    Names,
    check_text,
    clean,
    cleaned,
    code,
    header,
    origin_text,
    printable,
    reserved_of,
    token_modes,
    without_boolean,
)
from typedgen.ir.nodes import (
    Alt,
    CharClass,
    Complement,
    Expr,
    Intersect,
    Lit,
    Ref,
    Repeat,
    Seq,
)
from typedgen.ir.rules import Lexing, Rule

if TYPE_CHECKING:
    from typedgen.ir.grammar import Grammar

__all__ = ["DIALECTS", "LARK_LEXERS", "export_lark"]

DIALECTS = ("lark", "llguidance")
"""The Lark dialects ``to_lark`` writes: lark itself, or llguidance's extension of it."""

LARK_LEXERS: Mapping[str, Lexing] = {
    "dynamic_complete": Lexing.FREE,
    "dynamic": Lexing.FREE,
    "contextual": Lexing.CONTEXTUAL,
    "basic": Lexing.BASIC,
}
"""lark's lexer names and the lexing mode each gives every terminal on import."""


_LARK_STRING_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\f": "\\f",
}
_LARK_CLASS_SPECIAL = frozenset("\\]^-[&|~/")


def _lark_string(data: bytes) -> str:
    out = ['"']
    for ch in data.decode("utf-8"):
        cp = ord(ch)
        if ch in _LARK_STRING_ESCAPES:
            out.append(_LARK_STRING_ESCAPES[ch])
        elif printable(cp) or cp > 0xFFFF:
            # llguidance's strings have no \U escape; characters beyond the BMP stay raw.
            out.append(ch)
        else:
            out.append(code(cp))
    out.append('"')
    return "".join(out)


def _regex_char(cp: int) -> str:
    ch = chr(cp)
    if ch in _LARK_CLASS_SPECIAL:
        return "\\" + ch
    if ch in "\n\r\t\f":
        return _LARK_STRING_ESCAPES[ch]
    return ch if printable(cp) else code(cp)


def _lark_class(node: CharClass) -> str:
    if node.negated and not node.ranges:
        return "/[\\s\\S]/"
    parts = []
    for lo, hi in node.ranges:
        if lo == hi:
            parts.append(_regex_char(lo))
        elif hi == lo + 1:
            parts.append(_regex_char(lo) + _regex_char(hi))
        else:
            parts.append(f"{_regex_char(lo)}-{_regex_char(hi)}")
    return ("/[^" if node.negated else "/[") + "".join(parts) + "]/"


def _lark_rule_name(name: str) -> str:
    base = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    if not base or not base[0].isalpha():
        base = "r_" + base if base else "r"
    return base


def _lark_term_name(name: str) -> str:
    base = re.sub(r"[^A-Z0-9_]+", "_", name.upper()).strip("_")
    if not base or not base[0].isalpha():
        base = "T_" + base if base else "T"
    return base


class _LarkPrinter:
    def __init__(self, names: Mapping[str, str], llguidance: bool) -> None:
        self.names = names
        self.llguidance = llguidance

    def wrap(self, e: Expr, context: int) -> str:
        text, prec = self.expr(e)
        return f"({text})" if prec < context else text

    def expr(self, e: Expr) -> tuple[str, int]:
        match e:
            case Lit():
                return _lark_string(e.data), UNARY
            case CharClass():
                return _lark_class(e), UNARY
            case Ref():
                return self.names[e.name], UNARY
            case Alt():
                if not e.items:
                    return "/[^\\s\\S]/", UNARY  # pragma: no cover - cleaned away before printing
                return " | ".join(self.wrap(i, AND) for i in e.items), ALT
            case Seq():
                return " ".join(self.wrap(i, UNARY) for i in e.items), SEQ
            case Intersect():
                # llguidance only; every operand in parentheses unless atomic.
                return " & ".join(self.wrap(i, UNARY) for i in e.items), AND
            case Complement():
                inner = self.wrap(e.item, UNARY)
                if isinstance(e.item, Repeat | Complement) and not inner.startswith("("):
                    inner = f"({inner})"
                return "~" + inner, UNARY
            case Repeat():
                inner = self.wrap(e.item, UNARY)
                if isinstance(e.item, Repeat | Complement) and not inner.startswith("("):
                    inner = f"({inner})"
                lo, hi = e.min, e.max
                if hi is None:
                    if lo == 0:
                        return inner + "*", UNARY
                    if lo == 1:
                        return inner + "+", UNARY
                    if self.llguidance:
                        return f"{inner}{{{lo},}}", UNARY
                    return f"{inner}~{lo} {inner}*", SEQ
                if lo == 0 and hi == 1:
                    return inner + "?", UNARY
                if lo == hi:
                    return f"{inner}~{lo}", UNARY
                return f"{inner}~{lo}..{hi}", UNARY
            case _:
                assert_never(e)

    def body(self, head: str, e: Expr) -> str:
        if e == EPS:
            return f"{head}:"
        if isinstance(e, Alt):
            alts = [self.wrap(i, AND) for i in e.items]
            line = f"{head}: " + " | ".join(alts)
            if len(line) <= 100:
                return line
            pad = " " * max(len(head) - 1, 1)
            return f"{head}: " + f"\n{pad} | ".join(alts)
        return f"{head}: {self.wrap(e, ALT)}"


class _NonEmpty:
    """lark refuses terminals that match the empty string: such a terminal ``T`` is written as
    its non-empty part and every use as ``T?`` (the compiler splits it the same way)."""

    def __init__(self, rules: Mapping[str, Rule]) -> None:
        self.rules = rules
        self.memo: dict[str, bool] = {}
        self.nullable_terms = {
            name
            for name, rule in rules.items()
            if rule.lexical and nullable(Ref(name), self.body, self.memo)
        }

    def body(self, name: str) -> Expr:
        return self.rules[name].body

    def nullable(self, e: Expr) -> bool:
        return nullable(e, self.body, self.memo)

    def fix(self, e: Expr) -> Expr:
        """``e`` with every nullable terminal ``T`` written ``T?``."""
        if isinstance(e, Ref):
            if e.name in self.nullable_terms:
                return Repeat(e, 0, 1, origin=e.origin)
            return e
        if isinstance(e, Seq | Alt | Intersect):
            return replace(e, items=tuple(self.fix(i) for i in e.items))
        if isinstance(e, Repeat | Complement):
            return replace(e, item=self.fix(e.item))
        return e

    def part(self, e: Expr) -> Expr:
        """The non-empty strings of ``e``, with nullable terminals written ``T?``."""
        if not self.nullable(e):
            return self.fix(e)
        match e:
            case Lit():
                return VOID
            case Ref():
                return e  # the terminal itself is written as its non-empty part
            case Seq():
                # Every item is nullable: a non-empty first item then anything, or an empty one.
                head, rest = e.items[0], e.items[1:]
                if not rest:
                    return self.part(head)
                tail = rest[0] if len(rest) == 1 else Seq(rest)
                return Alt((Seq((self.part(head), self.fix(tail))), self.part(tail)))
            case Alt():
                return Alt(tuple(self.part(i) for i in e.items))
            case Repeat():
                if not self.nullable(e.item):
                    return Repeat(self.fix(e.item), 1, e.max, origin=e.origin)
                rest_max = None if e.max is None else e.max - 1
                return Seq((self.part(e.item), Repeat(self.fix(e.item), 0, rest_max)))
            case Intersect():
                return Intersect((self.part(e.items[0]), *(self.fix(i) for i in e.items[1:])))
            case Complement():
                anything = Repeat(CharClass((), negated=True), 1, None)
                return Intersect((self.fix(e), anything))
            case CharClass():
                raise AssertionError("a class is never nullable: returned above")
            case _:
                assert_never(e)


def _lexer_for(modes: Mapping[Lexing, str], grammar: Grammar, lexer: str | None) -> str:
    """The lark lexer to declare; refuses mixed lexing unless the caller named one."""
    if lexer is not None:
        if lexer not in LARK_LEXERS:
            raise GrammarError(
                f"unknown lark lexer {lexer!r}",
                code="export-lexer",
                origin=grammar.origin,
                hint=f"use one of {', '.join(LARK_LEXERS)}",
            )
        return lexer
    kinds = set(modes)
    if kinds <= {Lexing.FREE}:
        return "dynamic_complete"
    if len(kinds) == 1:
        return next(iter(kinds)).value
    described = ", ".join(f"{m.value} ({name})" for m, name in sorted(modes.items()))
    raise UnsupportedFeatureError(
        f"the grammar mixes lexing modes ({described}); lark lexes every terminal the same way",
        code="export-lexing",
        origin=grammar.origin,
        hint="pass lexer='contextual' (or 'basic', 'dynamic_complete') to export with every "
        "terminal lexed that way, an approximation the header comment states",
    )


_LARK_LOAD = {
    "dynamic_complete": 'parser="earley", lexer="dynamic_complete"',
    "dynamic": 'parser="earley", lexer="dynamic_complete"',
    "contextual": 'parser="lalr", lexer="contextual"',
    "basic": 'parser="lalr", lexer="basic"',
}
_LARK_MEANING = {
    "dynamic_complete": "scannerless: a terminal may end wherever its pattern matches",
    "dynamic": "scannerless: a terminal may end wherever its pattern matches",
    "contextual": "longest match among the terminals the parser expects",
    "basic": "longest match among all terminals",
}


def export_lark(grammar: Grammar, *, dialect: str = "lark", lexer: str | None = None) -> str:
    """Lark grammar text with the language of ``grammar`` (see the module docstring)."""
    if dialect not in DIALECTS:
        raise GrammarError(
            f"unknown Lark dialect {dialect!r}",
            code="export-dialect",
            hint="use 'lark' or 'llguidance'",
        )
    llg = dialect == "llguidance"
    if llg and lexer is not None:
        raise GrammarError(
            "llguidance has no lexer option: it always lexes like lark's contextual lexer",
            code="export-lexer",
            hint="leave lexer unset with dialect='llguidance'",
        )
    check_text(grammar)
    modes = token_modes(grammar)
    chosen = "contextual" if llg else _lexer_for(modes, grammar, lexer)
    rules = dict(grammar.rules)
    if not llg:
        rules = without_boolean(rules)
    reserved = reserved_of(grammar)

    # Terminals that match the empty string: non-empty part, used as T?.
    ne = _NonEmpty(rules)
    fixed: dict[str, Rule] = {}
    for name, rule in rules.items():
        if name in ne.nullable_terms:
            fixed[name] = replace(rule, body=ne.part(rule.body))
        else:
            fixed[name] = replace(rule, body=ne.fix(rule.body))
    lexical_start = grammar.rules[grammar.start].lexical
    roots = [*grammar.ignore, *reserved]
    if lexical_start:
        rules, void = cleaned(fixed, [grammar.start, *roots], None)
    else:
        rules, void = cleaned(fixed, roots, grammar.start)
    ignore = [n for n in grammar.ignore if n in rules]
    reserved = tuple(n for n in reserved if n in rules)
    guard_reserved = bool(reserved) and not llg

    # Names: lark's start rule is "start"; a wrapper when the start is a terminal or when
    # reserved terminals need an alternative that keeps them in the lexer.
    names: dict[str, str] = {}
    taken = Names("_")
    taken.take("start")
    wrapper: Expr | None = None
    if lexical_start:
        wrapper = clean(ne.fix(Ref(grammar.start)), void)
    elif guard_reserved or (llg and ignore):
        wrapper = Ref(grammar.start)
    else:
        names[grammar.start] = "start"
    if llg and ignore and wrapper is not None:
        # llguidance skips ignored text only between lexemes, lark also before and after.
        skip = Repeat(Alt(tuple(Ref(n) for n in ignore)) if len(ignore) > 1 else Ref(ignore[0]))
        wrapper = clean(Seq((skip, wrapper, skip)), set())
    for name, rule in rules.items():
        if name in names:
            continue
        if rule.lexical:
            base = ("_" if rule.shape.filtered else "") + _lark_term_name(name)
        else:
            base = ("_" if rule.shape.inline and name != grammar.start else "") + (
                _lark_rule_name(name)
            )
        names[name] = taken.take(base)
    guard = taken.take("_RESERVED_GUARD") if guard_reserved else ""

    printer = _LarkPrinter(names, llg)
    lines: list[str] = []
    if wrapper is not None:
        text = printer.body("start", wrapper)
        if guard_reserved:
            # Keep the reserved terminals in lark's lexer: an alternative that never matches.
            alts = " | ".join(names[n] for n in reserved)
            text += f" | {guard} ({alts})"
        lines.append(text)
    for name, rule in rules.items():
        if rule.lexical:
            continue
        shape = rule.shape
        prefix = ("!" if shape.keep_tokens else "") + (
            "?" if shape.expand_single and not names[name].startswith("_") else ""
        )
        lines.append(printer.body(prefix + names[name], rule.body))
    dropped_priorities = []
    for name, rule in rules.items():
        if not rule.lexical:
            continue
        head = names[name]
        if rule.priority and not llg:
            head += f".{rule.priority}"
        elif rule.priority:
            dropped_priorities.append(name)
        lines.append(printer.body(head, rule.body))
    if guard_reserved:
        lines.append(f"{guard}: /[^\\s\\S]/")
    lines.extend(f"%ignore {names[n]}" for n in ignore)

    notes = [
        f"{'llguidance ' if llg else ''}Lark grammar exported by typedgen{origin_text(grammar)}."
    ]
    kinds = set(modes) or {Lexing.FREE}
    if llg:
        notes.append(
            "llguidance lexes every terminal by longest match among those the parser expects "
            '(lark\'s lexer="contextual").'
        )
        if Lexing.FREE in kinds:
            notes.append(
                "Approximation: some terminals of the grammar are free (they may end wherever "
                "they match); where such a lexeme could run on into the next one, llguidance "
                "refuses text the grammar accepts."
            )
        if Lexing.BASIC in kinds:
            notes.append(
                "Approximation: the grammar lexes basic (longest match among all terminals); "
                "llguidance accepts text where the longer match belongs to a terminal the parser "
                "does not expect there, which the grammar refuses."
            )
    else:
        notes.append(
            f"Terminals: {_LARK_MEANING[chosen]}. Load with Lark(text, {_LARK_LOAD[chosen]}) "
            f'or typedgen\'s Grammar.from_lark(text, lexer="{chosen}").'
        )
        if kinds != {LARK_LEXERS[chosen]} and not (
            kinds <= {Lexing.FREE} and LARK_LEXERS[chosen] is Lexing.FREE
        ):
            notes.append(
                "Approximation: the grammar's terminals are lexed "
                + ", ".join(f"{m.value} (e.g. {n})" for m, n in sorted(modes.items()))
                + f"; here all are lexed {chosen}."
            )
    if dropped_priorities:
        notes.append(
            "llguidance has no terminal priorities; dropped from "
            + ", ".join(names[n] for n in dropped_priorities)
            + " (where several terminals match the same text, any may be taken)."
        )
    if reserved and llg:
        notes.append(
            "Reserved terminals cannot be written for llguidance: text that lexes as "
            + ", ".join(names[n] for n in reserved)
            + " is read as other terminals."
        )
    elif reserved:
        notes.append(
            "Reserved terminals stay in lark's lexer through an alternative that never matches."
        )
    return header(notes, "//") + "\n" + "\n".join(lines) + "\n"

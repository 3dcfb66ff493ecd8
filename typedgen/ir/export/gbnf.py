"""The GBNF writer: ``Grammar.to_gbnf()`` (llama.cpp's GBNF, also read by XGrammar).

See :mod:`typedgen.ir.export` for what is kept and what is approximated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from typedgen.errors import GrammarError
from typedgen.ir.analysis import closure, referenced_names
from typedgen.ir.export.common import (
    ALT,
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

__all__ = ["write_gbnf"]


_GBNF_STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_GBNF_CLASS_ESCAPES = {
    "\\": "\\\\",
    "]": "\\]",
    "[": "\\[",
    "-": "\\-",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _gbnf_string(data: bytes) -> str:
    out = ['"']
    for ch in data.decode("utf-8"):
        cp = ord(ch)
        if ch in _GBNF_STRING_ESCAPES:
            out.append(_GBNF_STRING_ESCAPES[ch])
        else:
            out.append(ch if printable(cp) else code(cp))
    out.append('"')
    return "".join(out)


def _gbnf_char(cp: int, first: bool) -> str:
    ch = chr(cp)
    if ch in _GBNF_CLASS_ESCAPES:
        return _GBNF_CLASS_ESCAPES[ch]
    if ch == "^" and first:
        return "\\x5e"
    return ch if printable(cp) else code(cp)


def _gbnf_class(node: CharClass) -> str:
    negated, ranges = node.negated, node.ranges
    if negated and not ranges:
        negated, ranges = False, node.codepoints()
    parts: list[str] = []
    for lo, hi in ranges:
        first = not parts
        if lo == hi:
            parts.append(_gbnf_char(lo, first))
        elif hi == lo + 1:
            parts.append(_gbnf_char(lo, first) + _gbnf_char(hi, False))
        else:
            parts.append(f"{_gbnf_char(lo, first)}-{_gbnf_char(hi, False)}")
    return ("[^" if negated else "[") + "".join(parts) + "]"


def _gbnf_name(name: str) -> str:
    base = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")
    if not base or not base[0].isalpha():
        base = "r-" + base if base else "r"
    return base


class _GbnfPrinter:
    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names

    def wrap(self, e: Expr, context: int) -> str:
        text, prec = self.expr(e)
        return f"({text})" if prec < context else text

    def expr(self, e: Expr) -> tuple[str, int]:
        match e:
            case Lit():
                return _gbnf_string(e.data), UNARY
            case CharClass():
                return _gbnf_class(e), UNARY
            case Ref():
                return self.names[e.name], UNARY
            case Alt():
                return " | ".join(self.wrap(i, SEQ) for i in e.items), ALT
            case Seq():
                return " ".join(self.wrap(i, UNARY) for i in e.items), SEQ
            case Repeat():
                inner = self.wrap(e.item, UNARY)
                if isinstance(e.item, Repeat) and not inner.startswith("("):
                    inner = f"({inner})"
                lo, hi = e.min, e.max
                if hi is None:
                    suffix = "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
                elif lo == 0 and hi == 1:
                    suffix = "?"
                elif lo == hi:
                    suffix = f"{{{lo}}}"
                else:
                    suffix = f"{{{lo},{hi}}}"
                return inner + suffix, UNARY
            case Intersect() | Complement():
                raise AssertionError("'&' and '~' are rewritten away before printing")
            case _:
                assert_never(e)

    def body(self, head: str, e: Expr) -> str:
        if e == EPS:
            return f'{head} ::= ""'
        if isinstance(e, Alt):
            alts = [self.wrap(i, SEQ) for i in e.items]
            line = f"{head} ::= " + " | ".join(alts)
            if len(line) <= 100:
                return line
            pad = " " * (len(head) + 5)
            return f"{head} ::= " + f" |\n{pad}".join(alts)
        return f"{head} ::= {self.wrap(e, ALT)}"


def _split_repeats(e: Expr, limit: int) -> Expr:
    """Repetition counts above llama.cpp's limit as nested groups (same language)."""
    if isinstance(e, Seq):
        items: list[Expr] = []
        for item in e.items:
            new = _split_repeats(item, limit)
            items.extend(new.items if isinstance(new, Seq) else (new,))
        return replace(e, items=tuple(items))
    if isinstance(e, Alt):
        return replace(e, items=tuple(_split_repeats(i, limit) for i in e.items))
    if not isinstance(e, Repeat):
        return e
    return _bounded(_split_repeats(e.item, limit), e.min, e.max, limit)


def _bounded(item: Expr, lo: int, hi: int | None, limit: int) -> Expr:
    if lo <= limit and (hi is None or hi <= limit):
        return item if lo == hi == 1 else Repeat(item, lo, hi)
    parts: list[Expr]
    if hi is None:  # x{m,} = x{m} x*
        parts = [_bounded(item, lo, lo, limit), Repeat(item, 0, None)]
    elif lo and lo != hi:  # x{m,n} = x{m} x{0,n-m}
        parts = [_bounded(item, lo, lo, limit), _bounded(item, 0, hi - lo, limit)]
    else:  # x{k} = (x{L}){q} x{r};  x{0,k} = (x{0,L}){0,q} x{0,r}
        q, r = divmod(hi, limit)
        chunk = Repeat(item, lo and limit, limit)
        parts = [_bounded(chunk, lo and q, q, limit)]
        if r:
            parts.append(_bounded(item, lo and r, r, limit))
    flat: list[Expr] = []
    for part in parts:
        flat.extend(part.items if isinstance(part, Seq) else (part,))
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def _without_left_recursion(name: str, body: Expr) -> Expr:
    """``A ::= A x | A y | b`` as ``A ::= b (x | y)*``: llama.cpp refuses left recursion."""
    alts = body.items if isinstance(body, Alt) else (body,)
    base: list[Expr] = []
    tails: list[Expr] = []
    for alt in alts:
        if alt == Ref(name):
            continue  # A -> A adds nothing
        if isinstance(alt, Seq) and alt.items[0] == Ref(name):
            rest = alt.items[1:]
            tails.append(rest[0] if len(rest) == 1 else Seq(rest))
        else:
            base.append(alt)
    if len(base) == len(alts) or not base:
        return body
    head = base[0] if len(base) == 1 else Alt(tuple(base))
    tail = tails[0] if len(tails) == 1 else Alt(tuple(tails))
    return Seq((head, Repeat(tail, 0, None)), origin=body.origin)


def _with_ignored(e: Expr, rules: Mapping[str, Rule], ig: Ref) -> Expr:
    """``e`` with the ignored terminals allowed after every lexeme."""
    match e:
        case Ref():
            return Seq((e, ig)) if rules[e.name].lexical else e
        case Lit() | CharClass():
            return Seq((e, ig)) if e != EPS else e
        case Seq():
            items: list[Expr] = []
            for item in e.items:
                new = _with_ignored(item, rules, ig)
                items.extend(new.items if isinstance(new, Seq) else (new,))
            return replace(e, items=tuple(items))
        case Alt():
            return replace(e, items=tuple(_with_ignored(i, rules, ig) for i in e.items))
        case Repeat():
            return replace(e, item=_with_ignored(e.item, rules, ig))
        case Intersect() | Complement():
            raise AssertionError("'&' and '~' are rewritten away before GBNF")
        case _:
            assert_never(e)


def _loop_body(e: Expr) -> Expr:
    """Inside ``(...)*``, ``x+`` and ``x*`` may be written ``x``: fewer nested loops."""
    if isinstance(e, Repeat) and e.max is None and e.min <= 1:
        return e.item
    return e


def write_gbnf(grammar: Grammar, *, max_repeat: int) -> str:
    """llama.cpp GBNF text with the language of ``grammar``; counts above ``max_repeat`` split."""
    check_text(grammar)
    modes = token_modes(grammar)
    rules = without_boolean(dict(grammar.rules))
    rules, _ = cleaned(rules, grammar.ignore, grammar.start)
    rules = {
        name: rule
        if rule.lexical
        else replace(rule, body=clean(_without_left_recursion(name, rule.body), set()))
        for name, rule in rules.items()
    }
    ignore = [n for n in grammar.ignore if n in rules]

    names: dict[str, str] = {}
    taken = Names("-")
    taken.take("root")
    if not ignore:
        names[grammar.start] = "root"
    for name in rules:
        if name not in names:
            names[name] = taken.take(_gbnf_name(name))
    out_rules: dict[str, Expr] = {}
    if ignore:
        ig_name = taken.take("ignored")
        ig_key = "%ignored"  # never an IR rule name
        ig = Ref(ig_key)
        names[ig_key] = ig_name
        loop = [_loop_body(rules[n].body) for n in ignore]
        ig_body = clean(Repeat(loop[0] if len(loop) == 1 else Alt(tuple(loop)), 0, None), set())
        out_rules["root"] = Seq((ig, _with_ignored(Ref(grammar.start), rules, ig)))
        for name, rule in rules.items():
            body = rule.body if rule.lexical else _with_ignored(rule.body, rules, ig)
            out_rules[names[name]] = body
        out_rules[ig_name] = ig_body
    else:
        out_rules["root"] = rules[grammar.start].body
        out_rules.update(
            (names[name], rule.body) for name, rule in rules.items() if name != grammar.start
        )
    # Ignored terminals inlined into the loop may have become unused.
    seen = closure(
        ["root"], lambda head: (names[n.name] for n in referenced_names(out_rules[head]))
    )

    printer = _GbnfPrinter(names)
    lines = []
    for head, body in out_rules.items():
        if head not in seen:
            continue
        body = _split_repeats(body, max_repeat)
        if body == VOID:  # pragma: no cover - cleaned away
            raise GrammarError(f"rule {head!r} matches nothing", code="empty-language")
        lines.append(printer.body(head, body))

    notes = [f"GBNF grammar exported by typedgen{origin_text(grammar)}."]
    kinds = set(modes) or {Lexing.FREE}
    if kinds <= {Lexing.FREE}:
        notes.append("Scannerless, as the grammar: the language is exactly the grammar's.")
    else:
        notes.append(
            "GBNF is scannerless: the grammar's longest-match lexing ("
            + ", ".join(sorted(m.value for m in kinds - {Lexing.FREE}))
            + ") cannot be written, so this accepts every split of the text into terminals, "
            "which includes all the grammar accepts and possibly more (terminal priorities and "
            "reserved terminals have no effect)."
        )
    if ignore:
        ignored = ", ".join(ignore)
        notes.append(f"Ignored terminals ({ignored}) may appear after every terminal and first.")
    return header(notes, "#") + "\n" + "\n".join(lines) + "\n"

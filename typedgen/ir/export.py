"""Exporting a grammar as Lark or GBNF text, so that other engines can serve it too.

``Grammar.to_lark()`` writes lark's own syntax (or, with ``dialect="llguidance"``, llguidance's
Lark dialect); ``Grammar.to_gbnf()`` writes llama.cpp's GBNF. Both keep the language of the IR
grammar, and say in a header comment where the target format forces an approximation:

* **Lark.** Rules become lark rules, terminals lark terminals with their priority and tree shape
  (``_rule``, ``?rule``, ``!rule``, ``_TERM``), ``%ignore`` stays. Lark picks one lexer for the
  whole grammar, so the export names the one that matches the terminals' :class:`Lexing`
  (``dynamic_complete`` for free terminals, ``contextual``, ``basic``) and refuses a grammar that
  mixes modes unless ``lexer=`` accepts the approximation. ``&``/``~`` have no lark syntax: an
  equivalent plain regular expression is computed (see :mod:`typedgen.ir.passes.boolean`);
  llguidance's dialect writes them as they are but has no terminal priorities.
* **GBNF.** Scannerless: terminals become ordinary rules, ignored terminals are made explicit
  (``ignored`` after every lexeme and at the start), direct left recursion (which llama.cpp
  refuses) becomes repetition, repetition counts stay under llama.cpp's limit of 2000. The text
  denotes the grammar's language exactly when its terminals are free; longest-match lexing
  (``contextual``/``basic``) cannot be written in GBNF, so for such grammars it denotes the free
  reading, which accepts every text the grammar accepts and possibly more.

Names are mapped deterministically and without collisions to what each format allows. Output is
deterministic (golden-tested). Literals that are not valid UTF-8 have no representation in these
text formats and are refused with a :class:`~typedgen.errors.GrammarError` naming the rule.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import replace

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir.grammar import Grammar, Lexing, Rule
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
    walk,
)
from typedgen.ir.passes.boolean import plain_regular
from typedgen.ir.passes.rewrite import prune_unreachable
from typedgen.ir.printer import _code_escape, _printable

__all__ = ["DIALECTS", "GBNF_MAX_REPEAT", "LARK_LEXERS", "export_gbnf", "export_lark"]

DIALECTS = ("lark", "llguidance")
"""The Lark dialects ``to_lark`` writes: lark itself, or llguidance's extension of it."""

LARK_LEXERS: Mapping[str, Lexing] = {
    "dynamic_complete": Lexing.FREE,
    "dynamic": Lexing.FREE,
    "contextual": Lexing.CONTEXTUAL,
    "basic": Lexing.BASIC,
}
"""lark's lexer names and the lexing mode each gives every terminal on import."""

GBNF_MAX_REPEAT = 2000
"""llama.cpp refuses repetition counts above this; larger ones are written as nested groups."""

_VOID = Alt(())
_EPS = Lit(b"")
_ALT, _AND, _SEQ, _UNARY = range(4)


# -- shared preparation --------------------------------------------------------------------------
def _check_text(grammar: Grammar) -> None:
    """Refuse literals that are not UTF-8: lark and GBNF describe text, not bytes."""
    for rule in grammar.rules.values():
        for node in walk(rule.body):
            if isinstance(node, Lit):
                try:
                    node.data.decode("utf-8")
                except UnicodeDecodeError:
                    raise GrammarError(
                        f"rule {rule.name!r} has the literal {node.data!r}, which is not valid "
                        "UTF-8; lark and GBNF literals are text",
                        code="export-bytes",
                        origin=node.origin or rule.origin,
                        hint="only grammars over UTF-8 text can be exported",
                    ) from None


def _without_boolean(rules: dict[str, Rule]) -> dict[str, Rule]:
    """Terminals with every ``&``/``~`` replaced by an equivalent plain expression."""

    def resolve(name: str) -> Expr:
        return rules[name].body

    out = dict(rules)
    for name, rule in rules.items():
        if not rule.lexical or not any(
            isinstance(n, Intersect | Complement) for n in walk(rule.body)
        ):
            continue

        def rewrite(e: Expr, rule: Rule = rule) -> Expr:
            if isinstance(e, Intersect | Complement):
                return plain_regular(e, resolve, rule=rule.name, origin=e.origin or rule.origin)
            if isinstance(e, Seq | Alt):
                return replace(e, items=tuple(rewrite(i) for i in e.items))
            if isinstance(e, Repeat):
                return replace(e, item=rewrite(e.item))
            return e

        out[name] = replace(rule, body=rewrite(rule.body))
    return out


def _token_modes(grammar: Grammar) -> dict[Lexing, str]:
    """The lexing modes of the lexemes the parser sees, each with one terminal (or rule) using it.

    Lexemes are terminals used by rules, ignored, reserved or started from, and literals and
    classes written inside rules (which the compiler lexes freely).
    """
    rules = grammar.rules
    modes: dict[Lexing, str] = {}
    start = rules[grammar.start]
    if start.lexical:
        modes.setdefault(start.lexing, start.name)
    for rule in rules.values():
        if rule.lexical:
            continue
        for node in walk(rule.body):
            if isinstance(node, Ref) and rules[node.name].lexical:
                modes.setdefault(rules[node.name].lexing, node.name)
            elif isinstance(node, CharClass) or (isinstance(node, Lit) and node.data):
                modes.setdefault(Lexing.FREE, f"{rule.name} (a literal or class inside it)")
    for name in (*grammar.ignore, *_reserved(grammar)):
        modes.setdefault(rules[name].lexing, name)
    return modes


def _reserved(grammar: Grammar) -> tuple[str, ...]:
    return tuple(getattr(grammar, "reserved", ()))


def _clean(e: Expr, void: set[str]) -> Expr:
    """Drop empty languages and empty strings: ``ε | x`` becomes ``x?``, ``%void`` disappears.

    Adjacent literals are *not* merged: inside rules each literal is its own lexeme.
    """
    if isinstance(e, Lit):
        return e
    if isinstance(e, CharClass):
        return _VOID if e.is_empty() else e
    if isinstance(e, Ref):
        return _VOID if e.name in void else e
    if isinstance(e, Seq):
        items: list[Expr] = []
        for item in e.items:
            c = _clean(item, void)
            if c == _VOID:
                return _VOID
            if c == _EPS:
                continue
            items.extend(c.items if isinstance(c, Seq) else (c,))
        if not items:
            return _EPS
        return items[0] if len(items) == 1 else Seq(tuple(items), origin=e.origin)
    if isinstance(e, Alt):
        alts: list[Expr] = []
        has_eps = False
        for item in e.items:
            c = _clean(item, void)
            if c == _VOID:
                continue
            if c == _EPS:
                has_eps = True
                continue
            for part in c.items if isinstance(c, Alt) else (c,):
                if part not in alts:
                    alts.append(part)
        if not alts:
            return _EPS if has_eps else _VOID
        core = alts[0] if len(alts) == 1 else Alt(tuple(alts), origin=e.origin)
        if has_eps:
            if isinstance(core, Repeat) and core.min <= 1:
                return Repeat(core.item, 0, core.max, origin=e.origin)
            return Repeat(core, 0, 1, origin=e.origin)
        return core
    if isinstance(e, Repeat):
        item = _clean(e.item, void)
        if e.max == 0 or item == _EPS:
            return _EPS
        if item == _VOID:
            return _EPS if e.min == 0 else _VOID
        if e.min == 1 and e.max == 1:
            return item
        if isinstance(item, Repeat) and item.min == 0 and item.max == 1 and e.min == 0:
            return Repeat(item.item, 0, e.max, origin=e.origin)
        return Repeat(item, e.min, e.max, origin=e.origin)
    if isinstance(e, Intersect):
        parts = [_clean(i, void) for i in e.items]
        if _VOID in parts:
            return _VOID
        return parts[0] if len(parts) == 1 else Intersect(tuple(parts), origin=e.origin)
    if isinstance(e, Complement):
        return Complement(_clean(e.item, void), origin=e.origin)
    raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover


def _cleaned(
    rules: dict[str, Rule], roots: Iterable[str], start: str | None
) -> tuple[dict[str, Rule], set[str]]:
    """Every body cleaned; rules that match nothing dropped with every use of them.

    Returns the kept rules (those reachable from ``start`` and ``roots``) and the dropped names;
    a ``start`` that matches nothing is an error.
    """
    void: set[str] = set()
    while True:
        grew = False
        for name, rule in rules.items():
            if name not in void and _clean(rule.body, void) == _VOID:
                void.add(name)
                grew = True
        if not grew:
            break
    if start is not None and start in void:
        rule = rules[start]
        raise GrammarError(
            f"the start rule {start!r} matches nothing",
            code="empty-language",
            origin=rule.origin,
        )
    kept = [
        replace(rule, body=_clean(rule.body, void))
        for name, rule in rules.items()
        if name not in void
    ]
    wanted = [n for n in (*([start] if start is not None else []), *roots) if n not in void]
    return {r.name: r for r in prune_unreachable(kept, wanted)}, void


class _Names:
    """Collision-free names: the first taker of a name keeps it, later ones get a suffix."""

    def __init__(self, sep: str) -> None:
        self.sep = sep
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        name = base
        n = 2
        while name in self.used:
            name = f"{base}{self.sep}{n}"
            n += 1
        self.used.add(name)
        return name


# The canonical printer's notions of a printable code point and of its escape.
_code = _code_escape


def _header(notes: list[str], mark: str) -> str:
    """The notes as a comment block, wrapped at 99 columns."""
    out = []
    for note in notes:
        out.extend(textwrap.wrap(note, 97, break_long_words=False, break_on_hyphens=False))
    return "".join(f"{mark} {line}\n" for line in out)


def _origin_text(grammar: Grammar) -> str:
    return f" from {grammar.origin}" if grammar.origin is not None else ""


# -- Lark ----------------------------------------------------------------------------------------
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
        elif _printable(cp) or cp > 0xFFFF:
            # llguidance's strings have no \U escape; characters beyond the BMP stay raw.
            out.append(ch)
        else:
            out.append(_code(cp))
    out.append('"')
    return "".join(out)


def _regex_char(cp: int) -> str:
    ch = chr(cp)
    if ch in _LARK_CLASS_SPECIAL:
        return "\\" + ch
    if ch in "\n\r\t\f":
        return _LARK_STRING_ESCAPES[ch]
    return ch if _printable(cp) else _code(cp)


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
        if isinstance(e, Lit):
            return _lark_string(e.data), _UNARY
        if isinstance(e, CharClass):
            return _lark_class(e), _UNARY
        if isinstance(e, Ref):
            return self.names[e.name], _UNARY
        if isinstance(e, Alt):
            if not e.items:
                return "/[^\\s\\S]/", _UNARY  # pragma: no cover - cleaned away before printing
            return " | ".join(self.wrap(i, _AND) for i in e.items), _ALT
        if isinstance(e, Seq):
            return " ".join(self.wrap(i, _UNARY) for i in e.items), _SEQ
        if isinstance(e, Intersect):
            # llguidance only; every operand in parentheses unless atomic.
            return " & ".join(self.wrap(i, _UNARY) for i in e.items), _AND
        if isinstance(e, Complement):
            inner = self.wrap(e.item, _UNARY)
            if isinstance(e.item, Repeat | Complement) and not inner.startswith("("):
                inner = f"({inner})"
            return "~" + inner, _UNARY
        if isinstance(e, Repeat):
            inner = self.wrap(e.item, _UNARY)
            if isinstance(e.item, Repeat | Complement) and not inner.startswith("("):
                inner = f"({inner})"
            lo, hi = e.min, e.max
            if hi is None:
                if lo == 0:
                    return inner + "*", _UNARY
                if lo == 1:
                    return inner + "+", _UNARY
                if self.llguidance:
                    return f"{inner}{{{lo},}}", _UNARY
                return f"{inner}~{lo} {inner}*", _SEQ
            if lo == 0 and hi == 1:
                return inner + "?", _UNARY
            if lo == hi:
                return f"{inner}~{lo}", _UNARY
            return f"{inner}~{lo}..{hi}", _UNARY
        raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover

    def body(self, head: str, e: Expr) -> str:
        if e == _EPS:
            return f"{head}:"
        if isinstance(e, Alt):
            alts = [self.wrap(i, _AND) for i in e.items]
            line = f"{head}: " + " | ".join(alts)
            if len(line) <= 100:
                return line
            pad = " " * max(len(head) - 1, 1)
            return f"{head}: " + f"\n{pad} | ".join(alts)
        return f"{head}: {self.wrap(e, _ALT)}"


def _nullable(e: Expr, rules: Mapping[str, Rule], memo: dict[str, bool]) -> bool:
    if isinstance(e, Lit):
        return not e.data
    if isinstance(e, CharClass):
        return False
    if isinstance(e, Ref):
        if e.name not in memo:
            memo[e.name] = False  # terminals are not recursive; rules are never asked
            memo[e.name] = _nullable(rules[e.name].body, rules, memo)
        return memo[e.name]
    if isinstance(e, Seq | Intersect):
        return all(_nullable(i, rules, memo) for i in e.items)
    if isinstance(e, Alt):
        return any(_nullable(i, rules, memo) for i in e.items)
    if isinstance(e, Repeat):
        return e.min == 0 or _nullable(e.item, rules, memo)
    if isinstance(e, Complement):
        return not _nullable(e.item, rules, memo)
    raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover


class _NonEmpty:
    """lark refuses terminals that match the empty string: such a terminal ``T`` is written as
    its non-empty part and every use as ``T?`` (the compiler splits it the same way)."""

    def __init__(self, rules: Mapping[str, Rule]) -> None:
        self.rules = rules
        self.memo: dict[str, bool] = {}
        self.nullable_terms = {
            name
            for name, rule in rules.items()
            if rule.lexical and _nullable(Ref(name), rules, self.memo)
        }

    def nullable(self, e: Expr) -> bool:
        return _nullable(e, self.rules, self.memo)

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
        if isinstance(e, Lit):
            return _VOID
        if isinstance(e, Ref):
            return e  # the terminal itself is written as its non-empty part
        if isinstance(e, Seq):
            # Every item is nullable: a non-empty first item then anything, or an empty one.
            head, rest = e.items[0], e.items[1:]
            if not rest:
                return self.part(head)
            tail = rest[0] if len(rest) == 1 else Seq(rest)
            return Alt((Seq((self.part(head), self.fix(tail))), self.part(tail)))
        if isinstance(e, Alt):
            return Alt(tuple(self.part(i) for i in e.items))
        if isinstance(e, Repeat):
            if not self.nullable(e.item):
                return Repeat(self.fix(e.item), 1, e.max, origin=e.origin)
            rest_max = None if e.max is None else e.max - 1
            return Seq((self.part(e.item), Repeat(self.fix(e.item), 0, rest_max)))
        if isinstance(e, Intersect):
            return Intersect((self.part(e.items[0]), *(self.fix(i) for i in e.items[1:])))
        if isinstance(e, Complement):
            anything = Repeat(CharClass((), negated=True), 1, None)
            return Intersect((self.fix(e), anything))
        raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover


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
    _check_text(grammar)
    modes = _token_modes(grammar)
    chosen = "contextual" if llg else _lexer_for(modes, grammar, lexer)
    rules = dict(grammar.rules)
    if not llg:
        rules = _without_boolean(rules)
    reserved = _reserved(grammar)

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
        rules, void = _cleaned(fixed, [grammar.start, *roots], None)
    else:
        rules, void = _cleaned(fixed, roots, grammar.start)
    ignore = [n for n in grammar.ignore if n in rules]
    reserved = tuple(n for n in reserved if n in rules)
    guard_reserved = bool(reserved) and not llg

    # Names: lark's start rule is "start"; a wrapper when the start is a terminal or when
    # reserved terminals need an alternative that keeps them in the lexer.
    names: dict[str, str] = {}
    taken = _Names("_")
    taken.take("start")
    wrapper: Expr | None = None
    if lexical_start:
        wrapper = _clean(ne.fix(Ref(grammar.start)), void)
    elif guard_reserved or (llg and ignore):
        wrapper = Ref(grammar.start)
    else:
        names[grammar.start] = "start"
    if llg and ignore and wrapper is not None:
        # llguidance skips ignored text only between lexemes, lark also before and after.
        skip = Repeat(Alt(tuple(Ref(n) for n in ignore)) if len(ignore) > 1 else Ref(ignore[0]))
        wrapper = _clean(Seq((skip, wrapper, skip)), set())
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
        f"{'llguidance ' if llg else ''}Lark grammar exported by typedgen{_origin_text(grammar)}."
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
    return _header(notes, "//") + "\n" + "\n".join(lines) + "\n"


# -- GBNF ----------------------------------------------------------------------------------------
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
            out.append(ch if _printable(cp) else _code(cp))
    out.append('"')
    return "".join(out)


def _gbnf_char(cp: int, first: bool) -> str:
    ch = chr(cp)
    if ch in _GBNF_CLASS_ESCAPES:
        return _GBNF_CLASS_ESCAPES[ch]
    if ch == "^" and first:
        return "\\x5e"
    return ch if _printable(cp) else _code(cp)


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
        if isinstance(e, Lit):
            return _gbnf_string(e.data), _UNARY
        if isinstance(e, CharClass):
            return _gbnf_class(e), _UNARY
        if isinstance(e, Ref):
            return self.names[e.name], _UNARY
        if isinstance(e, Alt):
            return " | ".join(self.wrap(i, _SEQ) for i in e.items), _ALT
        if isinstance(e, Seq):
            return " ".join(self.wrap(i, _UNARY) for i in e.items), _SEQ
        if isinstance(e, Repeat):
            inner = self.wrap(e.item, _UNARY)
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
            return inner + suffix, _UNARY
        raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover

    def body(self, head: str, e: Expr) -> str:
        if e == _EPS:
            return f'{head} ::= ""'
        if isinstance(e, Alt):
            alts = [self.wrap(i, _SEQ) for i in e.items]
            line = f"{head} ::= " + " | ".join(alts)
            if len(line) <= 100:
                return line
            pad = " " * (len(head) + 5)
            return f"{head} ::= " + f" |\n{pad}".join(alts)
        return f"{head} ::= {self.wrap(e, _ALT)}"


def _split_repeats(e: Expr) -> Expr:
    """Repetition counts above llama.cpp's limit as nested groups (same language)."""
    if isinstance(e, Seq):
        items: list[Expr] = []
        for item in e.items:
            new = _split_repeats(item)
            items.extend(new.items if isinstance(new, Seq) else (new,))
        return replace(e, items=tuple(items))
    if isinstance(e, Alt):
        return replace(e, items=tuple(_split_repeats(i) for i in e.items))
    if not isinstance(e, Repeat):
        return e
    return _bounded(_split_repeats(e.item), e.min, e.max)


def _bounded(item: Expr, lo: int, hi: int | None) -> Expr:
    limit = GBNF_MAX_REPEAT
    if lo <= limit and (hi is None or hi <= limit):
        return item if lo == hi == 1 else Repeat(item, lo, hi)
    parts: list[Expr]
    if hi is None:  # x{m,} = x{m} x*
        parts = [_bounded(item, lo, lo), Repeat(item, 0, None)]
    elif lo and lo != hi:  # x{m,n} = x{m} x{0,n-m}
        parts = [_bounded(item, lo, lo), _bounded(item, 0, hi - lo)]
    else:  # x{k} = (x{L}){q} x{r};  x{0,k} = (x{0,L}){0,q} x{0,r}
        q, r = divmod(hi, limit)
        chunk = Repeat(item, lo and limit, limit)
        parts = [_bounded(chunk, lo and q, q)]
        if r:
            parts.append(_bounded(item, lo and r, r))
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
    if isinstance(e, Ref):
        return Seq((e, ig)) if rules[e.name].lexical else e
    if isinstance(e, Lit | CharClass):
        return Seq((e, ig)) if e != _EPS else e
    if isinstance(e, Seq):
        items: list[Expr] = []
        for item in e.items:
            new = _with_ignored(item, rules, ig)
            items.extend(new.items if isinstance(new, Seq) else (new,))
        return replace(e, items=tuple(items))
    if isinstance(e, Alt):
        return replace(e, items=tuple(_with_ignored(i, rules, ig) for i in e.items))
    if isinstance(e, Repeat):
        return replace(e, item=_with_ignored(e.item, rules, ig))
    raise TypeError(f"unknown IR node {type(e).__name__}")  # pragma: no cover


def _loop_body(e: Expr) -> Expr:
    """Inside ``(...)*``, ``x+`` and ``x*`` may be written ``x``: fewer nested loops."""
    if isinstance(e, Repeat) and e.max is None and e.min <= 1:
        return e.item
    return e


def export_gbnf(grammar: Grammar) -> str:
    """llama.cpp GBNF text with the language of ``grammar`` (see the module docstring)."""
    _check_text(grammar)
    modes = _token_modes(grammar)
    rules = _without_boolean(dict(grammar.rules))
    rules, _ = _cleaned(rules, grammar.ignore, grammar.start)
    rules = {
        name: rule
        if rule.lexical
        else replace(rule, body=_clean(_without_left_recursion(name, rule.body), set()))
        for name, rule in rules.items()
    }
    ignore = [n for n in grammar.ignore if n in rules]

    names: dict[str, str] = {}
    taken = _Names("-")
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
        ig_body = _clean(Repeat(loop[0] if len(loop) == 1 else Alt(tuple(loop)), 0, None), set())
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
    seen: set[str] = set()
    stack = ["root"]
    while stack:
        head = stack.pop()
        if head in seen:
            continue
        seen.add(head)
        stack.extend(names[n.name] for n in walk(out_rules[head]) if isinstance(n, Ref))

    printer = _GbnfPrinter(names)
    lines = []
    for head, body in out_rules.items():
        if head not in seen:
            continue
        body = _split_repeats(body)
        if body == _VOID:  # pragma: no cover - cleaned away
            raise GrammarError(f"rule {head!r} matches nothing", code="empty-language")
        lines.append(printer.body(head, body))

    notes = [f"GBNF grammar exported by typedgen{_origin_text(grammar)}."]
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
    return _header(notes, "#") + "\n" + "\n".join(lines) + "\n"

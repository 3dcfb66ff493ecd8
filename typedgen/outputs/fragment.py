"""An output type as lark's parser sees it when a DSL embeds it: a *fragment*.

typedgen's own IR takes an embedded type's grammar as it is (spliced by the Lark frontend).
lark's parser, which builds a DSL's tree at bind time, needs the embedded part in lark's syntax.
Regular kinds (choices, enums, regexes) are written as terminals, DSL classes and ``Lark``
grammars bring their own text, JSON kinds use a complete JSON grammar (the value's syntax; the
embedded binder then checks the schema), and anything else is exported from its IR
(``Grammar.to_lark()``). Only the span of the embedded text comes from lark's tree: the value
itself is made by the embedded type's own binder. See docs/internals/architecture.md section 4.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from typedgen.errors import UnsupportedFeatureError
from typedgen.ir.grammar import Grammar

__all__ = [
    "JSON_FRAGMENT",
    "Fragment",
    "choice_pattern",
    "exported_fragment",
    "lark_literal",
    "regex_pattern",
    "terminal_fragment",
]


@dataclass(frozen=True)
class Fragment:
    """An embedded type as a lark grammar module: its text, start rule and import folders."""

    text: str
    start: str
    import_paths: tuple[Path, ...] = ()
    modules: tuple[tuple[str, str], ...] = ()
    """Further virtual modules the text imports (a nested DSL's own embeds)."""


def lark_literal(text: str) -> str:
    """``text`` as a lark string literal."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def choice_pattern(words: Iterable[str]) -> str:
    """A lark terminal body matching exactly one of ``words``."""
    # Longest first: lark joins a terminal's alternatives into one regex, where order decides.
    ordered = sorted(dict.fromkeys(words), key=lambda w: (-len(w), w))
    return " | ".join(lark_literal(w) for w in ordered)


_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))


def regex_pattern(pattern: str, flags: int) -> str:
    """A lark terminal body for a Python regex that must match the whole text."""
    for anchor in ("^", "\\A"):
        if pattern.startswith(anchor):
            pattern = pattern[len(anchor) :]
    for anchor in ("$", "\\Z"):
        if pattern.endswith(anchor) and not pattern.endswith("\\" + anchor):
            pattern = pattern[: -len(anchor)]
    letters = "".join(letter for flag, letter in _FLAGS if flags & flag)
    body = re.sub(r"(?<!\\)((?:\\\\)*)/", r"\1\\/", pattern)
    return f"/(?:{body})/{letters}"


def terminal_fragment(pattern: str) -> Fragment:
    """A module whose start rule is one terminal with body ``pattern``."""
    return Fragment(f"start: VALUE\nVALUE: {pattern}\n", "start")


JSON_FRAGMENT = Fragment(
    r"""
?value: object | array | STRING | NUMBER | TRUE | FALSE | NULL
object: "{" _W? "}" | "{" _W? pair (_W? "," _W? pair)* _W? "}"
pair: STRING _W? ":" _W? value
array: "[" _W? "]" | "[" _W? value (_W? "," _W? value)* _W? "]"
STRING: /"(?:[^"\\\n\r]|\\.)*"/
NUMBER: /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/
TRUE: "true"
FALSE: "false"
NULL: "null"
_W: /[ \t\n\r]+/
""",
    "value",
)
"""Any JSON value: what lark needs to find an embedded JSON output (its binder checks the rest)."""


def exported_fragment(ir: Grammar) -> Fragment:
    """Any IR grammar as a lark module (the default for kinds without a lark text of their own)."""
    grammar = _for_lark(ir)
    # The host parser is Earley with a dynamic lexer whatever the export's header says, so
    # mixed lexing modes need no refusal here: only the embedded span is taken from lark.
    try:
        text = grammar.to_lark(lexer="dynamic_complete")
    except UnsupportedFeatureError:
        text = _without_boolean(grammar).to_lark(lexer="dynamic_complete")
    return Fragment(text, "start")


def _for_lark(grammar: Grammar) -> Grammar:
    """``grammar`` as lark imports it: ignored terminals written out, reserved ones dropped.

    lark drops an imported module's ``%ignore``; typedgen's IR keeps the embedded part's
    ignored text inside it (see :func:`typedgen.frontends.lark.embeds.with_explicit_ignores`).
    """
    from typedgen.frontends.lark.embeds import with_explicit_ignores
    from typedgen.ir.passes.rewrite import prune_unreachable

    if not grammar.ignore and not grammar.reserved:
        return grammar
    rules = list(grammar)
    if grammar.ignore:
        rules = with_explicit_ignores(rules, list(grammar.ignore))
    return Grammar(prune_unreachable(rules, [grammar.start]), grammar.start, origin=grammar.origin)


def _without_boolean(grammar: Grammar) -> Grammar:
    """A superset of ``grammar`` without ``&``/``~`` (``a & ~b`` becomes ``a``).

    For terminals whose exact plain regex is too large to write (SQL identifiers that exclude
    keywords). lark only locates the embedded text with it; the embedded binder checks it.
    """
    from dataclasses import replace

    from typedgen.ir.nodes import CharClass, Complement, Expr, Intersect, Repeat
    from typedgen.ir.passes.rewrite import transform

    anything = Repeat(CharClass(((0, 0x10FFFF),)), 0, None)

    def widen(node: Expr) -> Expr:
        if isinstance(node, Complement):
            return anything
        if isinstance(node, Intersect):
            plain = [item for item in node.items if item != anything]
            return plain[0] if plain else anything
        return node

    rules = [replace(rule, body=transform(rule.body, widen)) for rule in grammar]
    return Grammar(rules, grammar.start, origin=grammar.origin)

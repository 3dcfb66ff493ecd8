"""What may fill a DSL's hole, and how each kind appears to lark's parser at bind time.

An embed (``embeds = {"env": Env}`` or ``with_params(OBJECT=["cup", "ball"])``) is any typedgen
output type. Shorthands: a list (tuple, set) of strings is ``Choice(...)``; an ``Enum`` class is
the choice of its values, written bare (not as JSON strings) and bound to its members.

typedgen's own IR takes the embedded type's grammar as it is (``grammar_of``, spliced by the Lark
frontend). lark's parser, which builds the tree at bind time, needs the embedded part in lark's
syntax: a *fragment*. Choices and regexes are written as terminals, other DSL classes and
``Lark`` grammars bring their own text, JSON types (Pydantic, JSON Schema) use a complete JSON
grammar (the value's syntax; the embedded binder then checks the schema), and anything else is
exported from its IR (``Grammar.to_lark()``). Only the span of the embedded text comes from
lark's tree: the value itself is made by the embedded type's own binder.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from typedgen.errors import BindingError, GrammarError, UnsupportedFeatureError
from typedgen.ir.grammar import Grammar
from typedgen.types import Choice, Lark, Regex

__all__ = ["EnumWords", "Fragment", "lark_literal", "normalize", "terminal_pattern"]


@dataclass(frozen=True)
class EnumWords:
    """An ``Enum`` class as the bare words of its values; binds to the member."""

    enum: type[enum.Enum]

    def words(self) -> tuple[str, ...]:
        return tuple(str(member.value) for member in self.enum)

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_choice(self.words())

    def __typedgen_bind__(self, text: str) -> object:
        for member in self.enum:
            if str(member.value) == text:
                return member
        raise BindingError(f"{text!r} is not a value of {self.enum.__name__}", code="enum-value")


def normalize(value: object, where: str) -> object:
    """The output type an embed value stands for (shorthands expanded)."""
    if isinstance(value, str | bytes):
        raise GrammarError(
            f"{where}: a bare string is ambiguous as an embedded type",
            code="dsl-embed",
            hint="pass a list of allowed strings, typedgen.Choice(...), typedgen.Regex(...) or"
            " typedgen.Lark(...)",
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else list(value)
        if not items or not all(isinstance(item, str) for item in items):
            raise GrammarError(
                f"{where}: a list embeds as a choice and needs at least one string, all strings",
                code="dsl-embed",
                hint="pass e.g. ['cup', 'ball']",
            )
        return Choice(*items)
    if isinstance(value, type) and issubclass(value, enum.Enum):
        if not list(value):
            raise GrammarError(f"{where}: enum {value.__name__} has no members", code="dsl-embed")
        return EnumWords(value)
    return value


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


def _choice_pattern(words: Iterable[str]) -> str:
    # Longest first: lark joins a terminal's alternatives into one regex, where order decides.
    ordered = sorted(dict.fromkeys(words), key=lambda w: (-len(w), w))
    return " | ".join(lark_literal(w) for w in ordered)


_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))


def _regex_pattern(regex: Regex) -> str:
    pattern = regex.pattern
    for anchor in ("^", "\\A"):
        if pattern.startswith(anchor):
            pattern = pattern[len(anchor) :]
    for anchor in ("$", "\\Z"):
        if pattern.endswith(anchor) and not pattern.endswith("\\" + anchor):
            pattern = pattern[: -len(anchor)]
    flags = "".join(letter for flag, letter in _FLAGS if regex.flags & flag)
    body = re.sub(r"(?<!\\)((?:\\\\)*)/", r"\1\\/", pattern)
    return f"/(?:{body})/{flags}"


def terminal_pattern(output_type: object) -> str | None:
    """A lark terminal body for a regular embed, or ``None`` when it has none."""
    if isinstance(output_type, Choice):
        return _choice_pattern(output_type.options)
    if isinstance(output_type, EnumWords):
        return _choice_pattern(output_type.words())
    if isinstance(output_type, Regex):
        return _regex_pattern(output_type)
    return None


_JSON = r"""
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
"""


@dataclass(frozen=True)
class Fragment:
    """An embedded type as a lark grammar module: its text, start rule and import folders."""

    text: str
    start: str
    import_paths: tuple[Path, ...] = ()
    modules: tuple[tuple[str, str], ...] = ()
    """Further virtual modules the text imports (a nested DSL's own embeds)."""


def fragment(
    output_type: object, module_prefix: str, grammar: Callable[[], Grammar] | None = None
) -> Fragment:
    """The lark module for a rule embed (see the module docstring).

    ``grammar`` gives the embedded type's IR when it is already known (for the export).
    """
    from typedgen.binding import is_json_output
    from typedgen.dsl.base import DSL

    if isinstance(output_type, type) and issubclass(output_type, DSL):
        return output_type.__dsl_spec__.lark_source(module_prefix)
    pattern = terminal_pattern(output_type)
    if pattern is not None:
        return Fragment(f"start: VALUE\nVALUE: {pattern}\n", "start")
    if isinstance(output_type, Lark):
        if isinstance(output_type.grammar, Path):
            text = output_type.grammar.read_text(encoding="utf-8")
            return Fragment(text, output_type.start, (output_type.grammar.parent,))
        return Fragment(output_type.grammar, output_type.start)
    if is_json_output(output_type):
        return Fragment(_JSON, "value")
    if grammar is None:
        from typedgen.types import grammar_of

        return _exported(grammar_of(output_type))
    return _exported(grammar())


def _exported(ir: Grammar) -> Fragment:
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

"""The canonical text of a grammar.

One rule per line, start rule and ignores as directives, attributes only when they differ from
the defaults::

    %start root
    %ignore WS
    root ::= expr ("=" expr)*
    @token WS ::= [\\t\\n ]+
    @token(priority=2, lexing=contextual) IF ::= "if"

Bodies use ``|`` (alternation), ``&`` (intersection, terminals only), juxtaposition (sequence),
postfix ``* + ? {m} {m,} {m,n}``, prefix ``~`` (complement), ``"..."`` literals (``\\xNN`` is a raw
byte, ``\\uXXXX``/``\\UXXXXXXXX`` a code point), ``[...]`` / ``[^...]`` classes and ``%void`` for
the empty language. Golden files pin this format.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, assert_never

from typedgen.ir.nodes import Alt, CharClass, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq
from typedgen.ir.rules import Lexing, Rule, TreeShape

if TYPE_CHECKING:  # the grammar imports this module to print itself
    from typedgen.ir.grammar import Grammar

__all__ = ["print_expr", "print_grammar", "print_rule"]

_ALT, _AND, _SEQ, _UNARY = range(4)
_SIMPLE_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord("\\"): "\\\\"}


def _printable(cp: int) -> bool:
    if cp < 0x20 or cp == 0x7F:
        return False
    if cp < 0x7F:
        return True
    category = unicodedata.category(chr(cp))
    return category[0] not in "CZ"


def _code_escape(cp: int) -> str:
    if cp < 0x80:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _lit_text(data: bytes) -> str:
    out = ['"']
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            if b in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[b])
            elif b == ord('"'):
                out.append('\\"')
            elif _printable(b):
                out.append(chr(b))
            else:
                out.append(f"\\x{b:02x}")
            i += 1
            continue
        width = 2 if 0xC0 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF8 else 0
        chunk = data[i : i + width] if width else b""
        try:
            ch = chunk.decode("utf-8") if len(chunk) == width and width else ""
        except UnicodeDecodeError:
            ch = ""
        if ch:
            cp = ord(ch)
            out.append(ch if _printable(cp) else _code_escape(cp))
            i += width
        else:
            out.append(f"\\x{b:02x}")
            i += 1
    out.append('"')
    return "".join(out)


def _class_char(cp: int) -> str:
    if cp in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[cp]
    if chr(cp) in "]-^[":
        return "\\" + chr(cp)
    return chr(cp) if _printable(cp) else _code_escape(cp)


def _class_text(node: CharClass) -> str:
    parts = []
    for lo, hi in node.ranges:
        if lo == hi:
            parts.append(_class_char(lo))
        elif hi == lo + 1:
            parts.append(_class_char(lo) + _class_char(hi))
        else:
            parts.append(f"{_class_char(lo)}-{_class_char(hi)}")
    return ("[^" if node.negated else "[") + "".join(parts) + "]"


def _repeat_suffix(node: Repeat) -> str:
    lo, hi = node.min, node.max
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if lo == 0 and hi == 1:
        return "?"
    if lo == hi:
        return f"{{{lo}}}"
    return f"{{{lo},{hi}}}"


def _children(node: Expr) -> tuple[tuple[Expr, ...], int] | None:
    """The operands of an inner node and the precedence they are printed in (None: a leaf)."""
    if isinstance(node, Alt) and node.items:
        return node.items, _AND
    if isinstance(node, Intersect):
        return node.items, _SEQ
    if isinstance(node, Seq) and node.items:
        return node.items, _UNARY
    if isinstance(node, Repeat | Complement):
        return (node.item,), _UNARY
    return None


def _leaf(node: Expr) -> str:
    match node:
        case Lit():
            return _lit_text(node.data)
        case CharClass():
            return _class_text(node)
        case Ref():
            return node.name
        case Alt():
            return "%void"
        case Seq():
            return '""'
        case Repeat() | Intersect() | Complement():
            raise AssertionError("inner nodes are printed by _join")
        case _:
            assert_never(node)


def _join(node: Expr, parts: list[str], context: int) -> str:
    if isinstance(node, Repeat | Complement):
        inner = f"({parts[0]})" if isinstance(node.item, Repeat | Complement) else parts[0]
        return inner + _repeat_suffix(node) if isinstance(node, Repeat) else "~" + inner
    if isinstance(node, Alt):
        text, prec = " | ".join(parts), _ALT
    elif isinstance(node, Intersect):
        text, prec = " & ".join(parts), _AND
    else:
        text, prec = " ".join(parts), _SEQ
    return f"({text})" if prec < context else text


def _expr(node: Expr, context: int) -> str:
    """Post-order over an explicit stack: deep IR (a bound of hundreds of digits nests hundreds
    of levels) prints without running into Python's recursion limit."""
    stack: list[tuple[Expr, int, bool]] = [(node, context, False)]
    done: list[str] = []
    while stack:
        item, ctx, expanded = stack.pop()
        kids = _children(item)
        if kids is None:
            done.append(_leaf(item))
        elif not expanded:
            stack.append((item, ctx, True))
            operands, prec = kids
            stack.extend((child, prec, False) for child in reversed(operands))
        else:
            n = len(kids[0])
            parts = done[-n:]
            del done[-n:]
            done.append(_join(item, parts, ctx))
    return done[0]


def print_expr(node: Expr) -> str:
    """The canonical text of one expression."""
    return _expr(node, _ALT)


def _attributes(rule: Rule) -> str:
    attrs = []
    if rule.priority:
        attrs.append(f"priority={rule.priority}")
    if rule.lexical and rule.lexing is not Lexing.FREE:
        attrs.append(f"lexing={rule.lexing.value}")
    shape = rule.shape
    if shape != TreeShape():
        attrs.extend(
            name
            for name in ("inline", "expand_single", "keep_tokens", "filtered")
            if getattr(shape, name)
        )
    kind = "@token" if rule.lexical else "@rule" if attrs else ""
    if attrs:
        return f"{kind}({', '.join(attrs)}) "
    return f"{kind} " if kind else ""


def print_rule(rule: Rule) -> str:
    """The canonical line of one rule."""
    return f"{_attributes(rule)}{rule.name} ::= {print_expr(rule.body)}"


def print_grammar(grammar: Grammar) -> str:
    """The canonical text of a grammar (ends with a newline)."""
    lines = [f"%start {grammar.start}"]
    lines.extend(f"%ignore {name}" for name in grammar.ignore)
    lines.extend(f"%reserve {name}" for name in grammar.reserved)
    lines.extend(
        f"%deferred {_lit_text(d.path.encode())} {_lit_text(d.keyword.encode())}"
        f" {_lit_text(d.reason.encode())}"
        for d in grammar.deferred
    )
    lines.extend(print_rule(rule) for rule in grammar.rules.values())
    return "\n".join(lines) + "\n"

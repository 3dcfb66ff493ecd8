"""JSON string encoding of character-level languages.

Schema keywords about strings (``pattern``, ``format``, ``minLength``...) speak of the *decoded*
characters; the grammar speaks of the JSON text. :func:`encode` maps a character-level IR
expression to the expression of its JSON encodings, with one canonical encoding per string (the
one ``json.dumps(s, ensure_ascii=False)`` writes): every character raw in UTF-8 except ``"`` and
``\\`` (escaped as ``\\"`` and ``\\\\``) and U+0000..U+001F (``\\b \\f \\n \\r \\t``, otherwise
``\\u00XX`` in lower-case hex). Because the encoding is a bijection onto its image, intersections
and complements commute with it, so ``pattern`` and length bounds combine exactly. Surrogates
never appear: they have no UTF-8 form and are never written as ``\\uD8XX``.
"""

from __future__ import annotations

import functools

from typedgen.ir.nodes import (
    MAX_CODEPOINT,
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
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify

__all__ = ["ANY_CHAR", "encode", "encode_text", "encoded_any", "length_expr"]

ANY_CHAR = CharClass(((0, MAX_CODEPOINT),))
"""Any Unicode scalar value (a character of a decoded JSON string)."""

_SHORT = {
    0x22: '\\"',
    0x5C: "\\\\",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
}
_SPECIAL = ((0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C))


def _escape(cp: int) -> str:
    return _SHORT.get(cp) or f"\\u{cp:04x}"


def encode_text(text: str) -> bytes:
    """The canonical JSON encoding of ``text`` (without quotes)."""
    return "".join(_escape(ord(c)) if ord(c) < 0x20 or c in '"\\' else c for c in text).encode()


def _raw_part(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for lo, hi in ranges:
        start = lo
        for s_lo, s_hi in _SPECIAL:
            if s_hi < start or s_lo > hi:
                continue
            if s_lo > start:
                out.append((start, s_lo - 1))
            start = max(start, s_hi + 1)
        if start <= hi:
            out.append((start, hi))
    return tuple(out)


def _encode_class(node: CharClass) -> Expr:
    points = node.codepoints()
    items: list[Expr] = []
    raw = _raw_part(points)
    if raw:
        items.append(CharClass(raw, origin=node.origin))
    by_high: dict[int, list[str]] = {}
    for lo, hi in points:
        for s_lo, s_hi in _SPECIAL:
            for cp in range(max(lo, s_lo), min(hi, s_hi) + 1):
                if cp in _SHORT:
                    items.append(Lit(_SHORT[cp].encode(), origin=node.origin))
                else:
                    by_high.setdefault(cp >> 4, []).append(f"{cp & 15:x}")
    for high, lows in by_high.items():
        tail = CharClass.of("".join(lows), origin=node.origin)
        items.append(Seq((Lit(f"\\u00{high:x}".encode()), tail), origin=node.origin))
    return items[0] if len(items) == 1 else Alt(tuple(items), origin=node.origin)


@functools.cache
def encoded_any() -> Expr:
    """Every canonical JSON string body (any decoded string)."""
    return Repeat(_encode_class(ANY_CHAR), 0, None)


def _encode(node: Expr) -> Expr:
    if isinstance(node, Lit):
        return Lit(encode_text(node.data.decode("utf-8")), origin=node.origin)
    if isinstance(node, CharClass):
        return _encode_class(node)
    if isinstance(node, Seq):
        return Seq(tuple(_encode(i) for i in node.items), origin=node.origin)
    if isinstance(node, Alt):
        return Alt(tuple(_encode(i) for i in node.items), origin=node.origin)
    if isinstance(node, Repeat):
        return Repeat(_encode(node.item), node.min, node.max, origin=node.origin)
    if isinstance(node, Intersect):
        return Intersect(tuple(_encode(i) for i in node.items), origin=node.origin)
    if isinstance(node, Complement):
        inner = _encode(node.item)
        return Intersect((encoded_any(), Complement(inner)), origin=node.origin)
    if isinstance(node, Ref):  # pragma: no cover - character languages have no rules
        raise TypeError("a character-level language cannot reference rules")
    raise TypeError(f"unexpected IR node {type(node).__name__}")  # pragma: no cover


def encode(chars: Expr) -> Expr:
    """The JSON string bodies (no quotes) whose decoded text is in ``chars``."""
    return simplify(_encode(chars))


def length_expr(lo: int, hi: int | None, *, origin: Origin | None = None) -> Expr:
    """Decoded strings of ``lo..hi`` characters (code points, as JSON Schema counts)."""
    return Repeat(ANY_CHAR, lo, hi, origin=origin)

"""``not``: the negations a grammar can state exactly, as exclusions on the merged schema.

A keyword that only constrains one type is satisfied by every instance of the other types, so
its negation also fixes the type: ``not {"multipleOf": 8}`` means "a number that is not a
multiple of 8", ``not {"required": ["a"]}`` "an object without ``a``". The supported forms:

- ``not {}`` / ``not true``: nothing is valid; ``not false``: no constraint;
- ``not {"type": ...}``: those types removed;
- ``not {"enum": [...]}`` / ``not {"const": ...}``: scalar values removed (every spelling of a
  number: bounded or excluded numbers are written without exponent);
- ``not {"required": [name]}``: an object without that property;
- ``not {"multipleOf": k}``: a number that is not a multiple of the integer ``k``;
- ``not {"pattern": p}``: a string that ``p`` does not match;
- ``not {"anyOf": [A, B, ...]}``: each of ``not A``, ``not B``...; ``not {"not": A}``: ``A``
  (both unfolded by the caller, which can merge schemas).

The node records them in its ``x_*`` fields and ``forbid``. Anything else raises
:class:`Unsupported` for the caller to refuse by name.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from typedgen.frontends.jsonschema.keywords import ANNOTATIONS, JSON_TYPES
from typedgen.frontends.jsonschema.node import Node
from typedgen.frontends.regex import regex_to_expr
from typedgen.ir.nodes import Alt, Complement, Expr, Intersect

__all__ = [
    "Unsupported",
    "apply_not",
    "excluded_numbers",
    "negatable",
    "unexponented",
    "unexponented_integers",
]

_NUMERIC = {"integer", "number"}


class Unsupported(Exception):
    """A negation the grammar cannot state; the message says which form."""


def _restrict(out: Node, types: set[str]) -> None:
    allowed = out.type_set() & types
    out.types = sorted(allowed)


def apply_not(out: Node, negated: Node | bool) -> None:
    """Fold ``not negated`` (a merged node or a bool) into ``out``."""
    if negated is False:
        return
    if negated is True:
        out.never = True
        return
    keys = negated.present() - ANNOTATIONS - {"unknown keywords"}
    if not keys:
        out.never = True
    elif keys == {"type"}:
        excluded = Node(types=negated.types).type_set()
        out.types = (
            sorted(set(JSON_TYPES) - excluded)
            if out.types is None
            else sorted(out.type_set() - excluded)
        )
        if "integer" in excluded and "number" not in excluded:
            out.types = sorted(out.type_set() - {"integer"} | {"number"} & out.type_set())
            out.x_integer = True
    elif keys == {"enum"}:
        values = negated.enum or []
        for value in values:
            if isinstance(value, dict | list):
                raise Unsupported("not with object or array values")
        out.extend("x_values", values)
    elif keys == {"required"} and len(negated.required or []) == 1:
        _restrict(out, {"object"})
        out.add("forbid", (negated.required or [])[0])
    elif len(keys) == 1 and next(iter(keys)) in _BOUND_NEGATIONS:
        keyword = next(iter(keys))
        flipped, kind, shift = _BOUND_NEGATIONS[keyword]
        bound = negated.bounds[keyword]
        if kind in ("string", "array", "object"):
            if flipped.startswith("max") and bound + shift < 0:
                out.never = True
                return
            _restrict(out, {kind})
            _tighten(out, flipped, bound + shift)
        else:
            _restrict(out, _NUMERIC)
            _tighten(out, flipped, bound)
    elif keys == {"pattern"}:
        _restrict(out, {"string"})
        out.extend("x_patterns", negated.patterns or [])
    elif keys == {"multipleOf"} and isinstance(negated.multiple_of, int):
        _restrict(out, _NUMERIC)
        out.add("x_multiples", negated.multiple_of)
    else:
        raise Unsupported(f"not with {', '.join(sorted(keys))}")


_BOUND_NEGATIONS: dict[str, tuple[str, str, int]] = {
    "minimum": ("exclusiveMaximum", "number", 0),
    "maximum": ("exclusiveMinimum", "number", 0),
    "exclusiveMinimum": ("maximum", "number", 0),
    "exclusiveMaximum": ("minimum", "number", 0),
    "minLength": ("maxLength", "string", -1),
    "maxLength": ("minLength", "string", 1),
    "minItems": ("maxItems", "array", -1),
    "maxItems": ("minItems", "array", 1),
    "minProperties": ("maxProperties", "object", -1),
    "maxProperties": ("minProperties", "object", 1),
}
"""``not {keyword: n}``: the opposite bound, on the keyword's own type."""


def _tighten(out: Node, keyword: str, value: Any) -> None:
    bounds = out.bounds
    if keyword not in bounds:
        bounds[keyword] = value
        return
    lower = keyword.startswith(("min", "exclusiveMin"))
    bounds[keyword] = max(bounds[keyword], value) if lower else min(bounds[keyword], value)


_NEGATABLE = frozenset({"type", "required", "pattern", *_BOUND_NEGATIONS})


def negatable(schema: Any) -> bool:
    """Whether ``not schema`` can be stated exactly (a conservative check on the raw schema)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or {"$ref", "allOf", "anyOf", "oneOf", "if"} & set(schema):
        return False
    for key, value in schema.items():
        if key in ANNOTATIONS or key in _NEGATABLE or key == "not":
            continue
        if key in ("enum", "const"):
            values = value if key == "enum" else [value]
            if not isinstance(values, list) or any(isinstance(v, dict | list) for v in values):
                return False
        elif key == "multipleOf":
            if not isinstance(value, int) or isinstance(value, bool):
                return False
        elif key == "properties":
            if not isinstance(value, dict) or not all(negatable(v) for v in value.values()):
                return False
        else:
            return False
    return True


def unexponented() -> Expr:
    """JSON numbers without exponent and without a negative zero: one spelling per value
    up to trailing fraction zeros."""
    return Intersect(
        (
            regex_to_expr(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?"),
            Complement(regex_to_expr(r"-0(\.0+)?")),
        )
    )


def unexponented_integers() -> Expr:
    """Every spelling without exponent of an integral value."""
    return regex_to_expr(r"-?(0|[1-9][0-9]*)(\.0+)?")


def _spellings(value: int | float) -> str:
    dec = Decimal(str(value))
    if dec == dec.to_integral_value():
        return re.escape(str(int(dec))) + r"(\.0+)?"
    text = format(dec.normalize(), "f")
    return re.escape(text) + "0*"


def excluded_numbers(values: list[Any], integer_texts: bool) -> Expr | None:
    """Every spelling (without exponent) of the numeric ``values``; ``None`` when there are none."""
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if not numbers:
        return None
    if integer_texts:
        numbers = [v for v in numbers if float(v).is_integer()]
        if not numbers:
            return None
    return Alt(tuple(regex_to_expr(_spellings(v)) for v in numbers))

"""``allOf`` as intersection: typed nodes merged keyword by keyword into one node.

A keyword that keeps one value keeps the tighter one (``type`` as the intersection, ``minimum``
as the larger bound, ``required`` as the union, ``multipleOf`` as the lcm); keywords of which
several values must all hold are kept as lists (``pattern``, ``format``, ``anyOf`` groups,
``not``...). Subschemas that meet on one property or item position are merged lazily, as
``{"allOf": [a, b]}``, so recursion through ``$ref`` never unfolds here.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from typedgen.errors import UnsupportedSchemaError
from typedgen.frontends.jsonschema.node import (
    _NON_OBJECT,
    MISSING,
    Node,
    merge_enum,
    merge_required,
)

__all__ = ["MAX_EVALUATING_BRANCHES", "exclusive_group", "merge"]

MAX_EVALUATING_BRANCHES = 4
"""Most anyOf branches next to ``unevaluated*`` (each set of them becomes a branch: 15)."""


def _lcm(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a * b // math.gcd(a, b)
    return None


def _tighter(keyword: str, a: Any, b: Any) -> Any:
    larger = Decimal(str(a)) > Decimal(str(b))
    if keyword.startswith(("min", "exclusiveMin")):
        return a if larger else b
    return b if larger else a


def _all_of(a: Any, b: Any) -> Any:
    if a is True or a == {}:
        return b
    if b is True or b == {}:
        return a
    if a is False or b is False:
        return False
    return {"allOf": [a, b]}


def _side(node: Node, key: str, path: str) -> Any:
    """What one allOf branch asks of property ``key`` (its patterns are applied later)."""
    if key in (node.properties or {}):
        return (node.properties or {})[key]
    extra = True if node.additional is MISSING else node.additional
    if node.pattern_properties:
        if extra is True:
            return True  # the branch's patterns stay in the merged schema and apply by name
        raise UnsupportedSchemaError(
            f"allOf combines properties with closed patternProperties of another branch ({key!r})",
            keyword="allOf",
            path=path,
            hint="move the patternProperties into the branch that names the properties",
        )
    return extra


def _has_object_keys(node: Node) -> bool:
    return (
        node.properties is not None
        or node.pattern_properties is not None
        or node.additional is not MISSING
    )


def _merge_objects(out: Node, nxt: Node, path: str) -> None:
    if not _has_object_keys(nxt):
        return
    if not _has_object_keys(out):
        if nxt.properties is not None:
            out.properties = nxt.properties
        if nxt.pattern_properties is not None:
            out.pattern_properties = nxt.pattern_properties
        if nxt.additional is not MISSING:
            out.additional = nxt.additional
        return
    props: dict[str, Any] = {}
    for key in [*(out.properties or {}), *(nxt.properties or {})]:
        if key not in props:
            props[key] = _all_of(_side(out, key, path), _side(nxt, key, path))
    pats_a, pats_b = out.pattern_properties, nxt.pattern_properties
    open_a = out.additional is MISSING or out.additional is True
    open_b = nxt.additional is MISSING or nxt.additional is True
    if (
        (pats_a and not open_b)
        or (pats_b and not open_a)
        or (pats_a and pats_b and not (open_a and open_b))
    ):
        raise UnsupportedSchemaError(
            "allOf combines patternProperties with additionalProperties of another branch",
            keyword="allOf",
            path=path,
            hint="put both in the same branch",
        )
    union = dict(pats_a or {})
    for pattern, sub in (pats_b or {}).items():
        union[pattern] = _all_of(union[pattern], sub) if pattern in union else sub
    had_extra = out.additional is not MISSING or nxt.additional is not MISSING
    extra = _all_of(
        True if out.additional is MISSING else out.additional,
        True if nxt.additional is MISSING else nxt.additional,
    )
    out.properties = props
    if union:
        out.pattern_properties = union
    if had_extra:  # present means every key is evaluated (unevaluatedProperties is moot)
        out.additional = extra


def _item_at(node: Node, i: int) -> Any:
    prefix = node.prefix_items or []
    return prefix[i] if i < len(prefix) else (True if node.items is MISSING else node.items)


def _merge_arrays(out: Node, nxt: Node) -> None:
    if nxt.prefix_items is None and nxt.items is MISSING:
        return
    if out.prefix_items is None and out.items is MISSING:
        if nxt.prefix_items is not None:
            out.prefix_items = nxt.prefix_items
        if nxt.items is not MISSING:
            out.items = nxt.items
        return
    n = max(len(out.prefix_items or []), len(nxt.prefix_items or []))
    prefix = [_all_of(_item_at(out, i), _item_at(nxt, i)) for i in range(n)]
    had_items = out.items is not MISSING or nxt.items is not MISSING
    items = _all_of(
        True if out.items is MISSING else out.items, True if nxt.items is MISSING else nxt.items
    )
    if prefix:
        out.prefix_items = prefix
    if had_items:
        out.items = items


def _merge_types(out: Node, new: list[str]) -> None:
    if out.types is None:
        out.types = sorted(set(new))
        return
    both = set()
    for t in out.types:
        for u in new:
            if t == u or {t, u} == {"integer", "number"}:
                both.add("integer" if "integer" in (t, u) else t)
    out.types = sorted(both)


def _multiple(out: Node, value: Any) -> None:
    old = out.multiple_of
    combined = value if old is None else _lcm(old, value)
    if old is not None and combined is None:
        out.add("refused", ("multipleOf", "fractional divisors"))
        return
    out.multiple_of = combined


_LISTS = (
    "patterns",
    "formats",
    "any_ofs",
    "one_ofs",
    "nots",
    "contains",
    "property_names",
    "refused",
    "other",
    "x_values",
    "x_multiples",
    "forbid",
    "x_patterns",
    "neg_props",
)


def _merge_node(out: Node, nxt: Node, path: str) -> None:
    _merge_objects(out, nxt, path)
    _merge_arrays(out, nxt)
    if nxt.types is not None:
        _merge_types(out, nxt.types)
    if nxt.enum is not None:
        merge_enum(out, nxt.enum)
    for keyword, value in nxt.bounds.items():
        bounds = out.bounds
        bounds[keyword] = (
            value if keyword not in bounds else _tighter(keyword, bounds[keyword], value)
        )
    if nxt.required is not None:
        merge_required(out, nxt.required)
    if nxt.unique_items is not None:
        out.unique_items = bool(out.unique_items or nxt.unique_items)
    if nxt.multiple_of is not None:
        _multiple(out, nxt.multiple_of)
    if nxt.unevaluated is not MISSING:
        out.unevaluated = (
            nxt.unevaluated
            if out.unevaluated is MISSING
            else _all_of(out.unevaluated, nxt.unevaluated)
        )
    if nxt.unevaluated_items is not MISSING:
        out.unevaluated_items = (
            nxt.unevaluated_items
            if out.unevaluated_items is MISSING
            else _all_of(out.unevaluated_items, nxt.unevaluated_items)
        )
    for name in _LISTS:
        values = getattr(nxt, name)
        if values is not None:
            out.extend(name, values)
    for keyword, value in nxt.annotations.items():
        out.annotations.setdefault(keyword, value)
    for keyword, value in nxt.unknown.items():
        out.unknown.setdefault(keyword, value)
    out.never = out.never or nxt.never
    out.x_integer = out.x_integer or nxt.x_integer


def merge(nodes: list[Node], path: str) -> Node:
    """One node equivalent to all ``nodes`` (their intersection)."""
    out = Node()
    for node in nodes:
        _merge_node(out, node, path)
    return out


def exclusive_group(options: list[Any]) -> bool:
    """Whether an anyOf group is one that :func:`.node.parse` writes with exclusive branches:
    the two sides of if/then/else, or the cases of a dependency."""
    if len(options) == 2 and all(isinstance(o, dict) and "allOf" in o for o in options):
        first, second = options[0]["allOf"], options[1]["allOf"]
        return bool(first) and bool(second) and second[0] == {"not": first[0]}
    return bool(options) and options[0] == {"type": _NON_OBJECT}

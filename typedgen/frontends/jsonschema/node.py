"""Typed schema nodes: a schema object's constraints, parsed once, merged as an intersection.

:func:`parse` reads one schema object keyword by keyword, as :mod:`.keywords` classifies them:
older drafts' spellings in 2020-12 terms (array ``items``, boolean ``exclusiveMinimum``),
``if``/``then``/``else`` and the dependency keywords as ``anyOf`` groups, annotations aside,
unknown keywords recorded by name. :mod:`.merge` intersects nodes (``allOf``, ``$ref`` with
siblings); :mod:`.negation` folds ``not`` into a node as exclusions. Subschemas stay raw (dicts
or booleans): they are parsed when the lowering reaches them, so recursion never unfolds here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from typedgen.frontends.jsonschema.keywords import ANNOTATIONS, JSON_TYPES

__all__ = [
    "COMBINING",
    "MISSING",
    "PARSED",
    "Node",
    "is_historic",
    "parse",
    "value_key",
    "value_types",
]


class _Missing:
    """The value of a keyword that is absent (``None`` and ``False`` are schema values)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

_NON_OBJECT = ["null", "boolean", "number", "string", "array"]


@dataclass(slots=True)
class Node:
    """One schema object's constraints, or the intersection of several (a merged schema).

    Subschemas (property values, items, branches, negations) are raw dicts or booleans. A list
    field is ``None`` when no keyword put anything there; each entry of a list field must hold
    (several ``pattern``s, ``anyOf`` groups, ``not``s...). The ``x_*`` fields, ``forbid`` and
    ``neg_props`` are what a folded ``not`` excludes (see :mod:`.negation`).
    """

    types: list[str] | None = None
    enum: list[Any] | None = None
    properties: dict[str, Any] | None = None
    pattern_properties: dict[str, Any] | None = None
    additional: Any = MISSING
    prefix_items: list[Any] | None = None
    items: Any = MISSING
    required: list[str] | None = None
    bounds: dict[str, Any] = field(default_factory=dict)
    """``minimum`` ... ``maxContains``, by keyword (the tighter value after a merge)."""
    unique_items: bool | None = None
    multiple_of: Any = None
    unevaluated: Any = MISSING
    unevaluated_items: Any = MISSING
    patterns: list[Any] | None = None
    formats: list[Any] | None = None
    any_ofs: list[list[Any]] | None = None
    one_ofs: list[list[Any]] | None = None
    nots: list[Any] | None = None
    contains: list[Any] | None = None
    property_names: list[Any] | None = None
    refused: list[tuple[str, str]] | None = None
    """Keywords a merge cannot keep exactly, with why (refused when the node is lowered)."""
    other: list[str] | None = None
    """Keywords without an effect here, by name: unknown ones (annotations), refused ones,
    ``then``/``else`` without ``if``, and private-looking ``_`` keys."""
    unknown: dict[str, Any] = field(default_factory=dict)
    """The values of unknown keywords (a ``not`` of one cannot be stated)."""
    annotations: dict[str, Any] = field(default_factory=dict)
    never: bool = False
    x_values: list[Any] | None = None
    x_integer: bool = False
    x_multiples: list[Any] | None = None
    forbid: list[str] | None = None
    x_patterns: list[Any] | None = None
    neg_props: list[str] | None = None

    def copy(self, **changes: Any) -> Node:
        """A shallow copy (lists shared, as a dict copy would share them) with ``changes``."""
        out = replace(self, **changes)
        if "bounds" not in changes:
            out.bounds = dict(self.bounds)
        if "annotations" not in changes:
            out.annotations = dict(self.annotations)
        if "unknown" not in changes:
            out.unknown = dict(self.unknown)
        return out

    def present(self) -> set[str]:
        """The keywords (and folded exclusions) this node constrains with, by name."""
        out: set[str] = set(self.bounds)
        for name, value in self._named():
            if value is not None and value is not MISSING:
                out.add(name)
        out.update(self.unknown)
        out.update(self.annotations)
        return out

    def _named(self) -> list[tuple[str, Any]]:
        return [
            ("type", self.types),
            ("enum", self.enum),
            ("properties", self.properties),
            ("patternProperties", self.pattern_properties),
            ("additionalProperties", self.additional),
            ("prefixItems", self.prefix_items),
            ("items", self.items),
            ("required", self.required),
            ("uniqueItems", self.unique_items),
            ("multipleOf", self.multiple_of),
            ("unevaluatedProperties", self.unevaluated),
            ("unevaluatedItems", self.unevaluated_items),
            ("pattern", self.patterns),
            ("format", self.formats),
            ("anyOf", self.any_ofs),
            ("oneOf", self.one_ofs),
            ("not", self.nots),
            ("contains", self.contains),
            ("propertyNames", self.property_names),
            ("refused keywords", self.refused),
            ("unknown keywords", self.other),
            ("false", self.never or None),
            ("not enum", self.x_values),
            ("not integer", self.x_integer or None),
            ("not multipleOf", self.x_multiples),
            ("not required", self.forbid),
            ("not pattern", self.x_patterns),
            ("negated properties", self.neg_props),
        ]

    def type_set(self, *, with_enum: bool = True) -> set[str]:
        """The types the node allows: ``number`` includes ``integer``; an enum narrows them."""
        types = set(JSON_TYPES) if self.types is None else set(self.types)
        if "number" in types:
            types.add("integer")
        if with_enum and self.enum is not None:
            allowed: set[str] = set()
            for value in self.enum:
                allowed |= value_types(value)
            types &= allowed
        return types

    def add(self, name: str, value: Any) -> None:
        """Append ``value`` to the list field ``name`` (created on first use)."""
        current = getattr(self, name)
        if current is None:
            current = []
            setattr(self, name, current)
        current.append(value)

    def extend(self, name: str, values: list[Any]) -> None:
        """Extend the list field ``name`` in place (created on first use, even when empty)."""
        current = getattr(self, name)
        if current is None:
            current = []
            setattr(self, name, current)
        current.extend(values)


def value_key(value: Any) -> str:
    """JSON equality as a string key: ``1 == 1.0``, ``true != 1``, key order irrelevant."""
    return json.dumps(_normal(value), sort_keys=True, separators=(",", ":"))


def _normal(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    return value


def value_types(value: Any) -> set[str]:
    """The JSON Schema types a value belongs to."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    if isinstance(value, list):
        return {"array"}
    return {"object"}


def merge_enum(out: Node, values: list[Any]) -> None:
    """``enum`` / ``const`` intersected with what ``out`` already allows (its order kept)."""
    if out.enum is None:
        out.enum = list(values)
        return
    keys = {value_key(v) for v in values}
    out.enum = [v for v in out.enum if value_key(v) in keys]


def merge_required(out: Node, names: list[str]) -> None:
    merged = list(out.required or [])
    merged.extend(v for v in names if v not in merged)
    out.required = merged


def is_historic(dialect: object) -> bool:
    """Whether ``$schema`` names a draft before 2020-12 (whose keywords differ)."""
    return (
        isinstance(dialect, str)
        and "json-schema.org" in dialect
        and "2020-12" not in dialect
        and "next" not in dialect
    )


def _normalized(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Older drafts' spellings in 2020-12 terms; ``_`` keys set aside (their order matters:
    ``enum``/``const`` intersect in it, ``anyOf`` and dependency groups keep it)."""
    out = {k: v for k, v in schema.items() if not k.startswith("_")}
    if is_historic(out.get("$schema")):
        for keyword in ("prefixItems", "$dynamicRef", "$dynamicAnchor"):
            out.pop(keyword, None)  # not keywords of the draft the resource declares
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
    else:
        out.pop("additionalItems", None)
    for excl, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(excl), bool):
            flag = out.pop(excl)
            if flag and bound in out:
                out[excl] = out.pop(bound)
    return out


def _dependency_group(name: str, then: Any) -> list[Any]:
    """``if name is present then ...`` as an anyOf group (non-objects pass vacuously)."""
    present: Any = (
        {"required": [name, *then]}
        if isinstance(then, list)
        else {"allOf": [{"required": [name]}, then]}
    )
    return [{"type": _NON_OBJECT}, {"not": {"required": [name]}}, present]


def _dependent(node: Node, value: Any) -> None:
    if isinstance(value, dict):
        node.extend("any_ofs", [_dependency_group(name, then) for name, then in value.items()])


def _types(node: Node, value: Any) -> None:
    node.types = sorted({value} if isinstance(value, str) else set(value))


def _bound(name: str) -> Callable[[Node, Any], None]:
    def step(node: Node, value: Any) -> None:
        node.bounds[name] = value

    return step


def _listed(name: str) -> Callable[[Node, Any], None]:
    def step(node: Node, value: Any) -> None:
        node.add(name, value)

    return step


def _set(name: str) -> Callable[[Node, Any], None]:
    def step(node: Node, value: Any) -> None:
        setattr(node, name, value)

    return step


_PARSERS: dict[str, Callable[[Node, Any], None]] = {
    "type": _types,
    "enum": lambda node, value: merge_enum(node, list(value)),
    "const": lambda node, value: merge_enum(node, [value]),
    "required": lambda node, value: merge_required(node, value),
    "uniqueItems": lambda node, value: setattr(node, "unique_items", bool(value)),
    "multipleOf": _set("multiple_of"),
    "unevaluatedProperties": _set("unevaluated"),
    "unevaluatedItems": _set("unevaluated_items"),
    "properties": _set("properties"),
    "patternProperties": _set("pattern_properties"),
    "additionalProperties": _set("additional"),
    "prefixItems": _set("prefix_items"),
    "items": _set("items"),
    "dependentRequired": _dependent,
    "dependentSchemas": _dependent,
    "dependencies": _dependent,
    "pattern": _listed("patterns"),
    "format": _listed("formats"),
    "anyOf": _listed("any_ofs"),
    "oneOf": _listed("one_ofs"),
    "propertyNames": _listed("property_names"),
    "not": _listed("nots"),
    "contains": _listed("contains"),
    **{
        name: _bound(name)
        for name in (
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
            "minContains",
            "maxContains",
        )
    },
}
"""How each keyword of :data:`.keywords.KEYWORDS` with a value of its own becomes part of a
node; ``$ref``, ``allOf`` and ``if``/``then``/``else`` are the lowering's (they combine
schemas)."""
COMBINING = frozenset({"$ref", "allOf", "if", "then", "else", "additionalItems"})
"""Enforced keywords without a parser: they combine schemas, or :func:`_normalized` rewrites
them (draft 7's ``additionalItems``)."""
PARSED = frozenset(_PARSERS)


def parse(schema: Mapping[str, Any]) -> Node:
    """The node of one schema object's own keywords (``$ref`` and ``allOf`` are left to the
    caller, which merges their targets with it)."""
    own = _normalized({k: v for k, v in schema.items() if k not in ("$ref", "allOf")})
    node = Node()
    if "if" in own:  # if/then/else: (if and then) or (not if and else)
        cond = own["if"]
        node.add(
            "any_ofs",
            [
                {"allOf": [cond, own.get("then", True)]},
                {"allOf": [{"not": cond}, own.get("else", True)]},
            ],
        )
        own = {k: v for k, v in own.items() if k not in ("if", "then", "else")}
    for keyword, value in own.items():
        step = _PARSERS.get(keyword)
        if step is not None:
            step(node, value)
        elif keyword in ANNOTATIONS:
            node.annotations.setdefault(keyword, value)
        else:  # unknown, refused, or then/else without if
            node.add("other", keyword)
            node.unknown.setdefault(keyword, value)
    odd = [k for k in schema if k.startswith("_")]
    if odd:
        node.extend("other", odd)
    return node

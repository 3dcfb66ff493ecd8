"""``allOf`` as intersection: subschemas merged keyword by keyword into one schema.

The merged schema uses the JSON Schema keywords where a keyword keeps one value (``type`` as a
list, ``minimum`` as the tighter bound, ``required`` as the union) and private list keywords
where several values must all hold (``_patterns``, ``_formats``, ``_multipleOf``, ``_anyOfs``,
``_oneOfs``, ``_refused``). Subschemas that meet on one property or item position are merged
lazily, as ``{"allOf": [a, b]}``, so recursion through ``$ref`` never unfolds here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from typedgen.errors import UnsupportedSchemaError

__all__ = [
    "ANNOTATIONS",
    "JSON_TYPES",
    "MAX_EVALUATING_BRANCHES",
    "exclusive_group",
    "merge",
    "type_set",
    "value_key",
    "value_types",
]

JSON_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")

ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "examples",
        "example",
        "default",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "$vocabulary",
        "$defs",
        "definitions",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "discriminator",
        "$dynamicAnchor",
        "$recursiveAnchor",
    }
)
"""Keywords that never constrain the text (``contentEncoding`` is an annotation in 2020-12)."""

_LISTED = ("not", "contains")  # kept as lists: each occurrence applies
_NON_OBJECT = ["null", "boolean", "number", "string", "array"]


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


def type_set(schema: Mapping[str, Any]) -> set[str]:
    """The types a (merged) schema allows: ``number`` includes ``integer``."""
    declared = schema.get("type")
    if declared is None:
        types = set(JSON_TYPES)
    else:
        types = {declared} if isinstance(declared, str) else set(declared)
    if "number" in types:
        types.add("integer")
    if "enum" in schema:
        allowed: set[str] = set()
        for value in schema["enum"]:
            allowed |= value_types(value)
        types &= allowed
    return types


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


def _side(schema: Mapping[str, Any], key: str, path: str) -> Any:
    """What one allOf branch asks of property ``key`` (its patterns are applied later)."""
    if key in schema.get("properties", {}):
        return schema["properties"][key]
    extra = schema.get("additionalProperties", True)
    if schema.get("patternProperties"):
        if extra is True:
            return True  # the branch's patterns stay in the merged schema and apply by name
        raise UnsupportedSchemaError(
            f"allOf combines properties with closed patternProperties of another branch ({key!r})",
            keyword="allOf",
            path=path,
            hint="move the patternProperties into the branch that names the properties",
        )
    return extra


def _merge_objects(out: dict[str, Any], nxt: Mapping[str, Any], path: str) -> None:
    keys = ("properties", "patternProperties", "additionalProperties")
    if not any(k in nxt for k in keys):
        return
    if not any(k in out for k in keys):
        for k in keys:
            if k in nxt:
                out[k] = nxt[k]
        return
    props: dict[str, Any] = {}
    for key in [*out.get("properties", {}), *nxt.get("properties", {})]:
        if key not in props:
            props[key] = _all_of(_side(out, key, path), _side(nxt, key, path))
    pats_a, pats_b = out.get("patternProperties"), nxt.get("patternProperties")
    open_a = out.get("additionalProperties", True) is True
    open_b = nxt.get("additionalProperties", True) is True
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
    had_extra = "additionalProperties" in out or "additionalProperties" in nxt
    extra = _all_of(out.get("additionalProperties", True), nxt.get("additionalProperties", True))
    out["properties"] = props
    if union:
        out["patternProperties"] = union
    if had_extra:  # present means every key is evaluated (unevaluatedProperties is moot)
        out["additionalProperties"] = extra


def _item_at(schema: Mapping[str, Any], i: int) -> Any:
    prefix = schema.get("prefixItems", [])
    return prefix[i] if i < len(prefix) else schema.get("items", True)


def _merge_arrays(out: dict[str, Any], nxt: Mapping[str, Any]) -> None:
    if "prefixItems" not in nxt and "items" not in nxt:
        return
    if "prefixItems" not in out and "items" not in out:
        for k in ("prefixItems", "items"):
            if k in nxt:
                out[k] = nxt[k]
        return
    n = max(len(out.get("prefixItems", [])), len(nxt.get("prefixItems", [])))
    prefix = [_all_of(_item_at(out, i), _item_at(nxt, i)) for i in range(n)]
    had_items = "items" in out or "items" in nxt
    items = _all_of(out.get("items", True), nxt.get("items", True))
    if prefix:
        out["prefixItems"] = prefix
    if had_items:
        out["items"] = items


def _merge_types(out: dict[str, Any], declared: Any) -> None:
    new = {declared} if isinstance(declared, str) else set(declared)
    if "type" not in out:
        out["type"] = sorted(new)
        return
    old = set(out["type"])
    both = set()
    for t in old:
        for u in new:
            if t == u or {t, u} == {"integer", "number"}:
                both.add("integer" if "integer" in (t, u) else t)
    out["type"] = sorted(both)


def _merge_enum(out: dict[str, Any], values: list[Any]) -> None:
    if "enum" not in out:
        out["enum"] = list(values)
        return
    keys = {value_key(v) for v in values}
    out["enum"] = [v for v in out["enum"] if value_key(v) in keys]


_Step = Callable[[dict[str, Any], Any, str, str], None]


def _bound(out: dict[str, Any], value: Any, keyword: str, _path: str) -> None:
    out[keyword] = value if keyword not in out else _tighter(keyword, out[keyword], value)


def _append(name: str) -> _Step:
    def step(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
        out.setdefault(name, []).append(value)

    return step


def _required(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
    merged = list(out.get("required", []))
    merged.extend(v for v in value if v not in merged)
    out["required"] = merged


def _unique(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
    out["uniqueItems"] = bool(out.get("uniqueItems", False) or value)


def _multiple(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
    old = out.get("_multipleOf")
    combined = value if old is None else _lcm(old, value)
    if old is not None and combined is None:
        out.setdefault("_refused", []).append(("multipleOf", "fractional divisors"))
        return
    out["_multipleOf"] = combined


MAX_EVALUATING_BRANCHES = 4
"""Most anyOf branches next to ``unevaluated*`` (each set of them becomes a branch: 15)."""


def exclusive_group(options: list[Any]) -> bool:
    """Whether an anyOf group is one that :func:`merge` writes with exclusive branches: the
    two sides of if/then/else, or the cases of a dependency."""
    if len(options) == 2 and all(isinstance(o, dict) and "allOf" in o for o in options):
        first, second = options[0]["allOf"], options[1]["allOf"]
        return bool(first) and bool(second) and second[0] == {"not": first[0]}
    return bool(options) and options[0] == {"type": _NON_OBJECT}


def _dependency_group(name: str, then: Any) -> list[Any]:
    """``if name is present then ...`` as an anyOf group (non-objects pass vacuously)."""
    present: Any = (
        {"required": [name, *then]}
        if isinstance(then, list)
        else {"allOf": [{"required": [name]}, then]}
    )
    return [{"type": _NON_OBJECT}, {"not": {"required": [name]}}, present]


def _dependent(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
    if isinstance(value, dict):
        groups = out.setdefault("_anyOfs", [])
        groups.extend(_dependency_group(name, then) for name, then in value.items())


def _unevaluated(name: str) -> _Step:
    def step(out: dict[str, Any], value: Any, _keyword: str, _path: str) -> None:
        out[name] = _all_of(out[name], value) if name in out else value

    return step


_PRIVATE_STEPS = {
    "_multipleOf": "multipleOf",
    "_unevaluated": "unevaluatedProperties",
    "_unevaluatedItems": "unevaluatedItems",
}
"""Private keywords of merged schemas that hold one value, merged like their public one."""

_STEPS: dict[str, _Step] = {
    "unevaluatedProperties": _unevaluated("_unevaluated"),
    "unevaluatedItems": _unevaluated("_unevaluatedItems"),
    "dependentRequired": _dependent,
    "dependentSchemas": _dependent,
    "dependencies": _dependent,
    **dict.fromkeys(
        (
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
        ),
        _bound,
    ),
    "type": lambda out, value, _k, _p: _merge_types(out, value),
    "enum": lambda out, value, _k, _p: _merge_enum(out, list(value)),
    "const": lambda out, value, _k, _p: _merge_enum(out, [value]),
    "required": _required,
    "uniqueItems": _unique,
    "multipleOf": _multiple,
    "pattern": _append("_patterns"),
    "format": _append("_formats"),
    "anyOf": _append("_anyOfs"),
    "oneOf": _append("_oneOfs"),
    "propertyNames": _append("_propertyNames"),
    **{k: _append(f"_{k}") for k in _LISTED},
}


def merge(atoms: list[Mapping[str, Any]], path: str) -> dict[str, Any]:
    """One schema equivalent to all ``atoms`` (dict schemas without ``allOf`` or ``$ref``)."""
    out: dict[str, Any] = {}
    for atom in atoms:
        if "if" in atom:  # if/then/else: (if and then) or (not if and else)
            cond = atom["if"]
            out.setdefault("_anyOfs", []).append(
                [
                    {"allOf": [cond, atom.get("then", True)]},
                    {"allOf": [{"not": cond}, atom.get("else", True)]},
                ]
            )
            atom = {k: v for k, v in atom.items() if k not in ("if", "then", "else")}
        _merge_objects(out, atom, path)
        _merge_arrays(out, atom)
        for keyword, value in atom.items():
            step = _STEPS.get(_PRIVATE_STEPS.get(keyword, keyword))
            if step is not None:
                step(out, value, keyword, path)
            elif keyword.startswith("_") or keyword in (
                "properties",
                "patternProperties",
                "additionalProperties",
                "prefixItems",
                "items",
            ):
                if keyword.startswith("_"):
                    out.setdefault(keyword, []).extend(value)
            elif keyword in ANNOTATIONS:
                out.setdefault(keyword, value)
            else:
                out.setdefault("_other", []).append(keyword)
                out.setdefault(keyword, value)
    return out

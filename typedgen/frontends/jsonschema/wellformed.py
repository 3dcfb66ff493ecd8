"""The shape of every keyword the lowering reads, checked before anything reads it.

Which check each keyword gets is the registry's ``shape`` (:mod:`.keywords`).

The lowering, the merge and the resolver take a keyword's value for what the meta-schema says
it is (``properties`` an object of schemas, ``required`` an array of strings, ``minItems`` a
non-negative integer). A schema that breaks the meta-schema would otherwise surface as a
``TypeError`` deep inside a merge; here it is a :class:`SchemaError` (``schema-malformed``)
naming the keyword and its JSON pointer. Keywords typedgen does not read are left alone, and
unknown keywords are the lowering's business (they are annotations).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from typedgen.errors import SchemaError
from typedgen.frontends.jsonschema.keywords import JSON_TYPES, KEYWORDS

__all__ = ["SchemaShapes"]

_META = "see the JSON Schema meta-schema (json-schema.org/draft/2020-12/schema)"


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, allow_nan=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _is_schema(value: Any) -> bool:
    return isinstance(value, dict | bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


class SchemaShapes:
    """Checks schema objects once each (by identity), their subschemas with them."""

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._keep: list[Any] = []

    def check(self, schema: Any, path: str) -> None:
        """Check ``schema`` and every subschema under it; raise on the first malformed one."""
        stack: list[tuple[Any, str]] = [(schema, path)]
        while stack:
            node, where = stack.pop()
            if not isinstance(node, dict) or id(node) in self._seen:
                continue
            self._seen.add(id(node))
            self._keep.append(node)
            stack.extend(self._children(node, where))

    def _fail(self, keyword: str, path: str, message: str, hint: str = _META) -> SchemaError:
        return SchemaError(
            f"{keyword} {message}", keyword=keyword, path=path, code="schema-malformed", hint=hint
        )

    def _children(self, schema: dict[Any, Any], path: str) -> list[tuple[Any, str]]:
        """Check one schema object's keywords; return its subschemas with their pointers."""
        out: list[tuple[Any, str]] = []
        for key in schema:
            if not isinstance(key, str):
                raise self._fail(
                    _shown(key), path, "is not a string key", "JSON object keys are strings"
                )
        for key, value in schema.items():
            at = f"{path}/{_escape(key)}"
            check = _CHECKS.get(key)
            if check is not None:
                out.extend(check(self, key, value, path, at))
        return out

    # -- one check per kind of keyword -----------------------------------------------------------

    def schema(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not _is_schema(value):
            raise self._fail(
                key, path, f"must be a schema (an object or a boolean), not {_shown(value)}"
            )
        return [(value, at)]

    def schema_array(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, list) or not value:
            raise self._fail(
                key, path, f"must be a non-empty array of schemas, not {_shown(value)}"
            )
        return [self._item(key, sub, path, f"{at}/{i}") for i, sub in enumerate(value)]

    def _item(self, key: str, sub: Any, path: str, at: str) -> tuple[Any, str]:
        if not _is_schema(sub):
            raise self._fail(key, path, f"holds {_shown(sub)} at {at}, which is not a schema")
        return sub, at

    def items(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if isinstance(value, list):  # the tuple form of drafts 4-2019
            return [self._item(key, sub, path, f"{at}/{i}") for i, sub in enumerate(value)]
        return self.schema(key, value, path, at)

    def prefix_items(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, list):
            raise self._fail(key, path, f"must be an array of schemas, not {_shown(value)}")
        return [self._item(key, sub, path, f"{at}/{i}") for i, sub in enumerate(value)]

    def schema_map(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, dict):
            raise self._fail(key, path, f"must be an object of schemas, not {_shown(value)}")
        out = []
        for name, sub in value.items():
            if not isinstance(name, str):
                raise self._fail(key, path, f"has the key {_shown(name)}, which is not a string")
            out.append(self._item(key, sub, path, f"{at}/{_escape(name)}"))
        return out

    def dependencies(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, dict):
            raise self._fail(key, path, f"must be an object, not {_shown(value)}")
        out = []
        for name, sub in value.items():
            if not isinstance(name, str):
                raise self._fail(key, path, f"has the key {_shown(name)}, which is not a string")
            if isinstance(sub, list):
                self.strings(key, sub, path, at)
            else:
                out.append(self._item(key, sub, path, f"{at}/{_escape(name)}"))
        return out

    def dependent_required(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, dict):
            raise self._fail(key, path, f"must be an object of string arrays, not {_shown(value)}")
        for name, names in value.items():
            if not isinstance(name, str):
                raise self._fail(key, path, f"has the key {_shown(name)}, which is not a string")
            self.strings(key, names, path, at)
        return []

    def strings(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._fail(key, path, f"must be an array of strings, not {_shown(value)}")
        return []

    def type(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        names = [value] if isinstance(value, str) else value
        hint = f"one of {', '.join(JSON_TYPES)}, or a non-empty array of them"
        if not isinstance(names, list) or not names:
            raise self._fail(
                key, path, f"must be a type name or an array of them, not {_shown(value)}", hint
            )
        for name in names:
            if name not in JSON_TYPES:
                shown = repr(name) if isinstance(name, str) else _shown(name)
                raise self._fail(key, path, f"names an unknown type {shown}", hint)
        return []

    def count(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not _is_number(value) or not _finite(value) or value < 0 or value != int(value):
            raise self._fail(key, path, f"must be a non-negative integer, not {_shown(value)}")
        return []

    def bound(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not _is_number(value) or not _finite(value):
            raise self._fail(key, path, f"must be a finite number, not {_shown(value)}")
        return []

    def exclusive(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if isinstance(value, bool):  # draft 4's flag on minimum / maximum
            return []
        return self.bound(key, value, path, at)

    def multiple_of(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        self.bound(key, value, path, at)
        if value <= 0:
            raise self._fail(key, path, f"must be greater than 0, not {_shown(value)}")
        return []

    def string(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, str):
            raise self._fail(key, path, f"must be a string, not {_shown(value)}")
        return []

    def boolean(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, bool):
            raise self._fail(key, path, f"must be a boolean, not {_shown(value)}")
        return []

    def enum(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        if not isinstance(value, list):
            raise self._fail(key, path, f"must be an array, not {_shown(value)}")
        for item in value:
            self.json_value(key, item, path)
        return []

    def const(self, key: str, value: Any, path: str, at: str) -> list[tuple[Any, str]]:
        self.json_value(key, value, path)
        return []

    def json_value(self, key: str, value: Any, path: str) -> None:
        """A value the grammar must spell: JSON only (finite numbers, string keys, a tree)."""
        stack: list[tuple[Any, bool]] = [(value, False)]
        on_path: set[int] = set()  # a shared list is fine; one that contains itself is not
        while stack:
            item, leaving = stack.pop()
            if leaving:
                on_path.discard(id(item))
                continue
            if isinstance(item, dict | list | tuple):
                if id(item) in on_path:
                    raise self._fail(
                        key, path, "holds a value that contains itself", "JSON values are trees"
                    )
                on_path.add(id(item))
                stack.append((item, True))
            if isinstance(item, dict):
                for name in item:
                    if not isinstance(name, str):
                        raise self._fail(
                            key,
                            path,
                            f"holds an object with the key {_shown(name)}",
                            "JSON keys are strings",
                        )
                stack.extend((v, False) for v in item.values())
            elif isinstance(item, list | tuple):
                stack.extend((v, False) for v in item)
            elif isinstance(item, float) and not math.isfinite(item):
                raise self._fail(
                    key, path, f"holds {item!r}, which JSON cannot spell", "use finite numbers"
                )
            elif item is not None and not isinstance(item, str | int | float | bool):
                raise self._fail(key, path, f"holds a {type(item).__name__}, not a JSON value")


_Check = Callable[[SchemaShapes, str, Any, str, str], list[tuple[Any, str]]]

_CHECKS: dict[str, _Check] = {
    name: getattr(SchemaShapes, keyword.shape)
    for name, keyword in KEYWORDS.items()
    if keyword.shape is not None
}
"""The check of each keyword, as the registry (:mod:`.keywords`) names its shape."""

"""Malformed keyword values are SchemaErrors naming the keyword and its path, never a TypeError.

Every case here is an input the JSON Schema fuzzer (``tests/fuzz``) found escaping as a
``TypeError``, ``AttributeError`` or ``ValueError`` from deep inside the merge or the lowering.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

import typedgen
from typedgen.errors import SchemaError

MALFORMED: list[tuple[Any, str, str]] = [
    ({"properties": None}, "properties", "#"),
    ({"properties": [[], {"a": 1}]}, "properties", "#"),
    ({"properties": {1: {}}}, "properties", "#"),
    ({"prefixItems": False, "additionalItems": None}, "prefixItems", "#"),
    ({"anyOf": False}, "anyOf", "#"),
    ({"enum": False}, "enum", "#"),
    ({"format": []}, "format", "#"),
    ({"propertyNames": None}, "propertyNames", "#"),
    ({"additionalProperties": {"type": False}}, "type", "#/additionalProperties"),
    ({"type": "object", "required": [[]]}, "required", "#"),
    ({"anyOf": [{"type": "object", "required": [-2]}]}, "required", "#/anyOf/0"),
    ({"anyOf": [{"type": "object", "required": False}]}, "required", "#/anyOf/0"),
    ({"type": []}, "type", "#"),
    ({"minItems": float("nan")}, "minItems", "#"),
    ({"maxLength": 2.5}, "maxLength", "#"),
    ({"multipleOf": 0}, "multipleOf", "#"),
    ({"minimum": "1"}, "minimum", "#"),
    ({"uniqueItems": 1}, "uniqueItems", "#"),
    ({"$ref": 5}, "$ref", "#"),
    ({"const": float("inf")}, "const", "#"),
    ({"enum": [{"a": float("nan")}]}, "enum", "#"),
    ({"dependentRequired": {"a": "b"}}, "dependentRequired", "#"),
    ({"dependencies": {"a": 3}}, "dependencies", "#"),
    ({"$defs": {"a": 3}, "$ref": "#/$defs/a"}, "$defs", "#"),
    ({"items": {"properties": {"x": {"allOf": []}}}}, "allOf", "#/items/properties/x"),
]


@pytest.mark.parametrize(("schema", "keyword", "path"), MALFORMED, ids=lambda v: repr(v)[:40])
def test_malformed_keyword_names_keyword_and_path(schema: Any, keyword: str, path: str) -> None:
    with pytest.raises(SchemaError) as info:
        typedgen.grammar_of(typedgen.JsonSchema(schema))
    err = info.value
    assert err.code == "schema-malformed"
    assert (err.keyword, err.path) == (keyword, path)
    assert err.hint


def test_json_text_with_a_non_finite_number() -> None:
    # json.loads reads Infinity; JSON cannot spell it, so the grammar could not either.
    with pytest.raises(SchemaError, match="enum") as info:
        typedgen.grammar_of(typedgen.JsonSchema('{"enum": [Infinity]}'))
    assert info.value.code == "schema-malformed"


WELL_FORMED: list[Any] = [
    {"exclusiveMinimum": True, "minimum": 0, "type": "number"},  # draft 4
    {"items": [{"type": "integer"}, {}], "additionalItems": False},  # draft 4-2019 tuples
    {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}},  # draft 7
    {"minItems": 2.0, "type": "array"},  # an integer-valued number is a count
    {"type": ["string", "null"], "enum": ["a", None]},
    {"unknownKeyword": {"type": 5}},  # not a keyword typedgen reads: left alone
    {"properties": {"$ref": {"type": "string"}}},  # a property named $ref is no reference
]


@pytest.mark.parametrize("schema", WELL_FORMED, ids=lambda v: repr(v)[:40])
def test_meta_schema_valid_spellings_still_lower(schema: Any) -> None:
    typedgen.grammar_of(typedgen.JsonSchema(schema))


def test_a_cyclic_python_dict_is_checked_once() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = {"$ref": "#"}
    schema["$defs"] = {"me": schema}  # the dict contains itself
    typedgen.grammar_of(typedgen.JsonSchema(schema))


def test_a_const_that_contains_itself() -> None:
    loop: list[Any] = []
    loop.append(loop)
    shared = [1]
    typedgen.grammar_of(typedgen.JsonSchema({"enum": [shared, [shared]]}))  # shared is fine
    with pytest.raises(SchemaError, match="contains itself"):
        typedgen.grammar_of(typedgen.JsonSchema({"const": loop}))


def test_a_refused_schema_restores_the_recursion_limit() -> None:
    # The lowering raises the limit while it runs; a schema refused before the run (a malformed
    # keyword) left it raised, which hypothesis noticed in the fuzz smoke test.
    limit = sys.getrecursionlimit()
    with pytest.raises(SchemaError):
        typedgen.grammar_of(typedgen.JsonSchema({"properties": None}))
    assert sys.getrecursionlimit() == limit

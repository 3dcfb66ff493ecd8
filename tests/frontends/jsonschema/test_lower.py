"""``Grammar.from_json_schema``: keyword by keyword, against jsonschema as the oracle.

Each case lists instances; the grammar must accept (byte by byte, complete) exactly those that
``jsonschema`` says are valid, written as typedgen writes JSON (compact, keys in schema order).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests._support import byte_vocabulary
from typedgen import compile as tg_compile
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import SchemaError, UnsupportedSchemaError
from typedgen.ir import Grammar

VOCAB = byte_vocabulary()


def compiled(schema: Any, **options: Any) -> CompiledGrammar:
    return tg_compile(Grammar.from_json_schema(schema, **options), VOCAB, cache=False)


def accepts(comp: CompiledGrammar, text: str) -> bool:
    m = comp.matcher()
    return m.accept_bytes(text.encode("utf-8")) and m.is_complete()


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def valid(schema: Any, value: Any) -> bool:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return bool(cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value))


CASES: list[tuple[str, Any, list[Any]]] = [
    ("null", {"type": "null"}, [None, 0, "null", False]),
    ("boolean", {"type": "boolean"}, [True, False, 0, None]),
    ("integer", {"type": "integer"}, [0, -5, 12345678901234567890, 1.5, "1"]),
    ("int range", {"type": "integer", "minimum": -3, "exclusiveMaximum": 10}, [-4, -3, 0, 9, 10]),
    ("number range", {"type": "number", "minimum": 0.5, "maximum": 2}, [0.4, 0.5, 1, 2, 2.01]),
    ("multipleOf", {"type": "integer", "multipleOf": 3, "maximum": 12}, [0, 3, 4, 12, 15, -3]),
    ("string", {"type": "string"}, ["", "a", 'q"uote', "back\\slash", "nl\n", "é𝄞", 1]),
    ("lengths", {"type": "string", "minLength": 2, "maxLength": 3}, ["a", "ab", "abc", "abcd"]),
    ("length chars", {"type": "string", "maxLength": 2}, ["éé", "𝄞𝄞", "𝄞𝄞𝄞"]),
    (
        "long maxLength",
        {"type": "string", "minLength": 130, "maxLength": 600},
        ["a" * 129, "a" * 130, "é" * 256, "𝄞" * 600, "a" * 601, 'q"' * 300],
    ),
    ("pattern", {"type": "string", "pattern": "^[a-z]+\\d$"}, ["ab1", "ab", "1", "AB1"]),
    ("pattern search", {"type": "string", "pattern": "x"}, ["x", "axb", "ab"]),
    ("format date", {"type": "string", "format": "date"}, ["2024-02-29", "2023-02-29", "x"]),
    ("enum", {"enum": ["a", 1, None, [1, 2], {"k": True}]}, ["a", 1, None, [1, 2], {"k": True}, 2]),
    ("const", {"const": "fixed"}, ["fixed", "other"]),
    ("type list", {"type": ["string", "null"]}, ["x", None, 1]),
    (
        "object",
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        [{"a": 1}, {"a": 1, "b": "x"}, {"b": "x"}, {}, {"a": 1, "c": 2}, {"a": "1"}],
    ),
    (
        "additionalProperties schema",
        {"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
        [{"a": "s", "z": 1}, {"z": "s"}, {}, {"a": 1, "y": 2, "z": 3}],
    ),
    (
        "patternProperties",
        {
            "type": "object",
            "patternProperties": {"^x_": {"type": "integer"}},
            "additionalProperties": False,
        },
        [{"x_a": 1}, {"x_a": "s"}, {"y": 1}, {}],
    ),
    (
        "propertyNames",
        {"type": "object", "propertyNames": {"maxLength": 2}},
        [{"ab": 1}, {"abc": 1}, {}],
    ),
    (
        "min/maxProperties",
        {
            "type": "object",
            "properties": {"a": {}, "b": {}, "c": {}},
            "additionalProperties": False,
            "minProperties": 1,
            "maxProperties": 2,
        },
        [{}, {"a": 1}, {"a": 1, "c": 2}, {"a": 1, "b": 2, "c": 3}],
    ),
    (
        "array",
        {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
        [[], [1], [1, 2, 3], [1, 2, 3, 4], ["a"]],
    ),
    (
        "prefixItems",
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
        [["a", 1], ["a"], [], ["a", 1, 2], [1, "a"]],
    ),
    (
        "anyOf",
        {"anyOf": [{"type": "string", "maxLength": 1}, {"type": "integer", "minimum": 5}]},
        ["a", "ab", 5, 4],
    ),
    (
        "oneOf disjoint",
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        ["a", 1, None],
    ),
    ("oneOf overlap", {"oneOf": [{"type": "integer"}, {"minimum": 0}]}, [-1, 0, 1, 0.5, -0.5, "a"]),
    (
        "oneOf required",
        {
            "type": "object",
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
            "properties": {"a": {}, "b": {}},
        },
        [{"a": 1}, {"b": 1}, {"a": 1, "b": 2}, {}],
    ),
    (
        "allOf",
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"a": {"minimum": 2}, "b": {"type": "string"}}},
            ]
        },
        [{"a": 2}, {"a": 1}, {"a": 2, "b": "x"}, {"a": 2, "b": 1}, {"b": "x"}],
    ),
    (
        "allOf closes",
        {
            "allOf": [
                {"properties": {"a": {"type": "integer"}}},
                {"properties": {"b": {}}, "additionalProperties": False},
            ],
            "type": "object",
        },
        [{"b": 1}, {"a": 1}, {}],
    ),
    (
        "recursion",
        {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "v": {"type": "integer"},
                        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    },
                    "required": ["v"],
                    "additionalProperties": False,
                }
            },
            "$ref": "#/$defs/node",
        },
        [{"v": 1}, {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}, {"v": 1, "kids": [{}]}],
    ),
    ("not type", {"not": {"type": ["string", "object"]}}, [1, "a", None, {}, [1], 1.5]),
    ("not integer", {"type": "number", "not": {"type": "integer"}}, [1, 1.5, 2.0, -0.25]),
    ("not enum", {"not": {"enum": ["a", 1, None]}}, ["a", "b", 1, 1.0, 2, None, True]),
    ("not const number", {"type": "number", "not": {"const": 2.5}}, [2.5, 2.50, 2.6, 2]),
    ("not multipleOf", {"not": {"multipleOf": 3}}, [3, 4, 6.0, 7.5, "a", None]),
    ("not required", {"not": {"required": ["a"]}}, [{"a": 1}, {"b": 1}, {}, 1, "x"]),
    ("not pattern", {"not": {"pattern": "^a"}}, ["abc", "bc", 1, None]),
    ("not not", {"not": {"not": {"type": "integer", "minimum": 2}}}, [1, 2, 3, "a"]),
    ("not anyOf", {"not": {"anyOf": [{"type": "string"}, {"const": 1}]}}, ["a", 1, 2, None]),
    (
        "allOf patternProperties",
        {
            "type": "object",
            "allOf": [
                {"patternProperties": {"^a": {"type": "integer"}}},
                {"patternProperties": {"b$": {"minimum": 5}}},
            ],
        },
        [{"ab": 5}, {"ab": 4}, {"a": "s"}, {"b": 1}, {"zb": 9, "ay": 1}],
    ),
    (
        "if/then/else",
        {
            "type": "object",
            "properties": {"k": {"enum": ["a", "b"]}, "x": {"type": "integer"}},
            "if": {"properties": {"k": {"const": "a"}}},
            "then": {"required": ["x"]},
            "else": {"required": ["y"]},
        },
        [{"k": "a", "x": 1}, {"k": "a"}, {"k": "b", "y": 1}, {"k": "b"}, {"y": 2}, {}],
    ),
    (
        "dependentRequired",
        {"dependentRequired": {"a": ["b"]}},
        [{"a": 1}, {"a": 1, "b": 2}, {"b": 1}, {}, 1, "s"],
    ),
    (
        "dependentSchemas",
        {"dependentSchemas": {"a": {"properties": {"b": {"type": "integer"}}}}},
        [{"b": 2, "a": 1}, {"b": "x", "a": 1}, {"b": "x"}, [], None],
    ),
    (
        "dependencies (draft 7)",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
        },
        [{"a": 1, "b": 1}, {"a": 1}, {"c": 1}, {"c": 1, "d": 1}, {}],
    ),
    (
        "not several keywords",
        {"not": {"type": "integer", "minimum": 3}},
        [1, 2, 3, 4, 2.5, 3.5, "s", None],
    ),
    ("not property", {"not": {"properties": {"p": {"const": 1}}}}, [{"p": 1}, {"p": 2}, {}, 5]),
    ("not bounds", {"not": {"maxLength": 2}}, ["ab", "abc", 1, None]),
    ("contains", {"contains": {"const": 1}}, [[1], [2, 1], [2], [], "s"]),
    (
        "minContains",
        {"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxItems": 3},
        [[1, 2], [1, "a", 2], [1, "a"], [1, 2, 3, 4], []],
    ),
    (
        "maxContains",
        {"type": "array", "contains": {"type": "integer"}, "maxContains": 1, "items": {}},
        [[1], [1, "a"], [1, 2], ["a"], []],
    ),
    ("minContains 0", {"type": "array", "contains": {"const": 1}, "minContains": 0}, [[], [2]]),
    (
        "maxContains 0",
        {"type": "array", "contains": {"const": 1}, "minContains": 0, "maxContains": 0},
        [[], [2], [1], [2, 1]],
    ),
    (
        "unevaluatedProperties",
        {
            "type": "object",
            "properties": {"a": {}},
            "allOf": [{"properties": {"b": {}}}],
            "unevaluatedProperties": False,
        },
        [{"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {}],
    ),
    (
        "unevaluatedProperties anyOf",
        {
            "type": "object",
            "anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}],
            "unevaluatedProperties": {"type": "string"},
        },
        [{"a": 1}, {"a": 1, "z": "s"}, {"a": 1, "z": 2}],
    ),
    (
        "unevaluatedItems",
        {"prefixItems": [{"type": "integer"}], "unevaluatedItems": False},
        [[1], [1, 2], [], ["a"]],
    ),
    ("not {}", {"anyOf": [{"not": {}}, {"type": "null"}]}, [None, 1, "a"]),
    ("true", True, [1, "a", None, {"a": [1, {"b": None}]}, []]),
    ("empty", {}, [1, "a", {"k": []}]),
]


@pytest.mark.parametrize(("name", "schema", "values"), CASES, ids=[c[0] for c in CASES])
def test_matches_jsonschema(name: str, schema: Any, values: list[Any]) -> None:
    comp = compiled(schema)
    for value in values:
        text = dumps(value)
        assert accepts(comp, text) == valid(schema, value), (name, text)


def test_pretty_layout_accepts_indented_and_spaced_output() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "integer"}}, "b": {}},
    }
    comp = compiled(schema, whitespace="pretty")
    value = {"a": [1, 2], "b": {"c": [True]}}
    for text in (json.dumps(value), json.dumps(value, indent=2), dumps(value)):
        assert accepts(comp, text), text
    assert not accepts(comp, '{"a":  [1]}')  # two spaces after ':'
    assert not accepts(comp, '{\n\n"a":[1]}')  # two newlines
    assert not accepts(compiled(schema), json.dumps(value))  # compact has no spaces


def test_whitespace_is_bounded() -> None:
    comp = compiled({"type": "array", "items": {"type": "integer"}}, whitespace="pretty")
    assert accepts(comp, "[\n" + " " * 40 + "1]")
    assert not accepts(comp, "[\n" + " " * 41 + "1]")


def test_strings_use_json_escapes_only() -> None:
    comp = compiled({"type": "string"})
    assert accepts(comp, '"\\u0001\\n\\t\\"\\\\"')
    for bad in ('"\x01"', '"\\x41"', '"\\ud800"', '"\n"', '"\\u00"'):
        assert not accepts(comp, bad), bad


def test_refused_keywords_name_keyword_and_path() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array", "uniqueItems": True}}}
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema(schema)
    assert info.value.keyword == "uniqueItems"
    assert info.value.path == "#/properties/tags"
    assert "strict=False" in (info.value.hint or "")


def test_relaxed_mode_records_deferred_checks() -> None:
    schema = {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}
    grammar = Grammar.from_json_schema(schema, strict=False)
    assert [(d.path, d.keyword) for d in grammar.deferred] == [("#", "uniqueItems")]
    assert "%deferred" in str(grammar)
    comp = tg_compile(grammar, VOCAB, cache=False)
    assert comp.deferred == grammar.deferred
    assert accepts(comp, "[1,1]")  # left to the validator, as recorded


def test_overlapping_one_of_is_refused_when_the_others_cannot_be_excluded() -> None:
    schema = {"oneOf": [{"type": "string", "pattern": "a"}, {"type": "string", "format": "email"}]}
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema(schema)
    assert info.value.keyword == "oneOf"


def test_discriminated_one_of_is_exact() -> None:
    schema = {
        "oneOf": [
            {
                "properties": {"k": {"const": "a"}, "x": {"type": "integer"}},
                "required": ["k"],
                "additionalProperties": False,
            },
            {
                "properties": {"k": {"const": "b"}, "y": {"type": "string"}},
                "required": ["k"],
                "additionalProperties": False,
            },
        ],
        "type": "object",
    }
    comp = compiled(schema)
    assert accepts(comp, '{"k":"a","x":1}')
    assert not accepts(comp, '{"k":"a","y":"s"}')


def test_unsatisfiable_schema_is_an_error() -> None:
    with pytest.raises(SchemaError) as info:
        Grammar.from_json_schema({"type": "integer", "minimum": 5, "maximum": 1})
    assert info.value.code == "schema-unsatisfiable"


def test_unresolvable_ref_names_the_uri() -> None:
    with pytest.raises(SchemaError) as info:
        Grammar.from_json_schema({"$ref": "https://example.com/other.json"})
    assert info.value.keyword == "$ref"
    assert "resources=" in (info.value.hint or "")


def test_resources_resolve_remote_refs() -> None:
    other = {"type": "integer", "minimum": 3}
    schema = {"$ref": "https://example.com/other.json"}
    comp = compiled(schema, resources={"https://example.com/other.json": other})
    assert accepts(comp, "3")
    assert not accepts(comp, "2")


def test_malformed_schema_is_a_schema_error() -> None:
    with pytest.raises(SchemaError) as info:
        Grammar.from_json_schema({"type": "float"})
    assert info.value.keyword == "type"


def test_long_strings_token_by_token(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    """Chunked long strings: tokens may span chunk boundaries."""
    comp = tg_compile(Grammar.from_json_schema({"type": "string", "maxLength": 700}), smollm2_vocab)
    words = "the quick brown fox jumps over the lazy dog, naïve café — 𝄞 ".split(" ")
    for length in (0, 127, 128, 129, 650, 700, 701):
        text = ""
        i = 0
        while len(text) < length:
            text += words[i % len(words)] + " "
            i += 1
        text = text[:length]
        m = comp.matcher()
        tokens = smollm2_tokenizer.encode(
            json.dumps(text, ensure_ascii=False), add_special_tokens=False
        )
        ok = all(m.accept_token(t) for t in tokens) and m.is_complete()
        assert ok == (length <= 700), length


def test_explain_raises_on_a_malformed_schema() -> None:
    # Refusals are listed, but a schema that is not a schema is an error, as when compiling.
    from typedgen import explain

    with pytest.raises(SchemaError, match="unknown type 'nonsense'"):
        explain({"type": "nonsense"})
    listed = explain({"type": "array", "uniqueItems": True})
    assert [v.keyword for v in listed.refused] == ["uniqueItems"]

"""``extra_keys="declared"`` (the default of ``JsonSchema`` and raw schema dicts in ``generate``):
an object that declares properties and says nothing about others takes only the declared ones.

The language is a subset of the valid instances (jsonschema, the oracle, validates every text
accepted here), and objects the schema opens or that need more members stay open.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import typedgen
from typedgen.grammar_check import check_sample, compile_for_check
from typedgen.outputs import adapter_for


def _accepts(schema: Any, text: str, extra_keys: str) -> bool:
    output = typedgen.JsonSchema(schema, extra_keys=extra_keys)
    compiled = compile_for_check(adapter_for(output).grammar(output))
    return check_sample(compiled, text.encode(), "sample").accepted


SHAPE = {
    "type": "object",
    "properties": {
        "dimensions": {
            "type": "object",
            "properties": {"base": {"type": "number"}, "radius": {"type": "number"}},
        },
        "shape": {"type": "string"},
    },
    "required": ["shape", "dimensions"],
}

# (schema, text, accepted with "declared"); every text is valid, and accepted with "schema".
CASES: list[tuple[Any, str, bool]] = [
    (SHAPE, '{"dimensions":{"radius":1},"shape":"c"}', True),
    (SHAPE, '{"dimensions":{"radius":1,"r":2},"shape":"c"}', False),
    (SHAPE, '{"dimensions":{},"shape":"c","x":1}', False),
    # required names count as declared
    ({"properties": {"a": {}}, "required": ["a", "b"]}, '{"a":1,"b":2}', True),
    ({"properties": {"a": {}}, "required": ["a", "b"]}, '{"a":1,"b":2,"c":3}', False),
    # the schema says something about other members: as it says
    ({"properties": {"a": {}}, "additionalProperties": True}, '{"a":1,"z":2}', True),
    ({"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}, '{"z":2}', True),
    ({"properties": {"a": {}}, "patternProperties": {"^x": {}}}, '{"a":1,"xy":2}', True),
    ({"properties": {"a": {}}, "unevaluatedProperties": True}, '{"a":1,"z":2}', True),
    # nothing declared: a free-form object stays open
    ({"type": "object"}, '{"k":[1]}', True),
    # as many members needed as declared: closed
    ({"properties": {"a": {}, "b": {}}, "minProperties": 2}, '{"a":1,"b":2}', True),
    # allOf merges its branches' properties; anyOf branches are merged with the rest
    ({"allOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}, '{"a":1,"b":2}', True),
    ({"allOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}, '{"a":1,"c":2}', False),
    (
        {"properties": {"a": {}}, "anyOf": [{"properties": {"b": {}}, "required": ["b"]}]},
        '{"a":1,"b":2}',
        True,
    ),
]


@pytest.mark.parametrize(("schema", "text", "declared"), CASES)
def test_declared_closes_only_silent_objects(schema: Any, text: str, declared: bool) -> None:
    jsonschema.validate(json.loads(text), schema)  # the texts are valid instances
    assert _accepts(schema, text, "schema")
    assert _accepts(schema, text, "declared") == declared


def test_default_and_option_check() -> None:
    assert typedgen.JsonSchema({}).extra_keys == "declared"
    grammar = typedgen.ir.Grammar.from_json_schema(SHAPE)  # exact by default
    compiled = compile_for_check(grammar)
    assert check_sample(compiled, b'{"dimensions":{"q":1},"shape":"c"}', "sample").accepted
    with pytest.raises(typedgen.OptionError) as err:
        typedgen.ir.Grammar.from_json_schema(SHAPE, extra_keys="closed")
    assert err.value.code == "option-value"


def test_more_members_than_declared_stay_open() -> None:
    """Closing would leave no instance; without it the grammar refuses minProperties (the names
    of further members cannot be kept distinct), and with strict=False leaves it to jsonschema."""
    schema = {"properties": {"a": {}}, "minProperties": 2}
    output = typedgen.JsonSchema(schema, strict=False)
    compiled = compile_for_check(adapter_for(output).grammar(output))
    assert check_sample(compiled, b'{"a":1,"z":2}', "sample").accepted


def test_declared_is_reported() -> None:
    """``explain`` says where an object was closed, with the schema path, as ``generate`` lowers
    it; the plain dict too."""
    for output in (typedgen.JsonSchema(SHAPE), SHAPE):
        text = str(typedgen.explain(output))
        assert "extra_keys='declared'" in text and "#/properties/dimensions" in text
    exact = typedgen.JsonSchema(SHAPE, extra_keys="schema")
    assert "extra_keys" not in str(typedgen.explain(exact))

"""Bounds on string lengths the grammar counts; above them the keyword is refused by name."""

from __future__ import annotations

import time

import pytest

from typedgen.errors import UnsupportedSchemaError
from typedgen.frontends.jsonschema.scalars import MAX_COUNTED_LENGTH
from typedgen.ir import Grammar


def test_huge_max_length_is_refused_by_name_at_once() -> None:
    """Found by the JSON Schema fuzzer: ``maxLength: 2**31`` made one rule per 128 characters."""
    start = time.perf_counter()
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema({"properties": {"s": {"type": "string", "maxLength": 2**31}}})
    assert info.value.keyword == "maxLength" and info.value.path == "#/properties/s"
    assert info.value.hint is not None and "strict=False" in info.value.hint
    relaxed = Grammar.from_json_schema(
        {"type": "string", "minLength": 2**40, "maxLength": 2**63 - 1}, strict=False
    )
    assert {d.keyword for d in relaxed.deferred} == {"maxLength", "minLength"}
    assert time.perf_counter() - start < 60  # a hang detector, not a timing assertion


def test_max_length_up_to_the_limit_is_counted() -> None:
    grammar = Grammar.from_json_schema({"type": "string", "maxLength": MAX_COUNTED_LENGTH})
    assert not grammar.deferred

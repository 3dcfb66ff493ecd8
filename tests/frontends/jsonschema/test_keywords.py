"""The keyword registry: the parse, the shape check, ``explain`` and the docs agree with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import typedgen
from tests._support import REPO, evaldata_items
from tests.conformance.jsonschema_runner import options_for, remotes
from typedgen.frontends.jsonschema import reference
from typedgen.frontends.jsonschema.keywords import (
    ANNOTATIONS,
    KEYWORDS,
    ROWS,
    SCHEMA_ARRAYS,
    SCHEMA_MAPS,
    SCHEMA_SINGLES,
)
from typedgen.frontends.jsonschema.lower import Verdict, lower_schema
from typedgen.frontends.jsonschema.node import COMBINING, PARSED, Node, parse
from typedgen.frontends.jsonschema.wellformed import _CHECKS, SchemaShapes

PAGE = REPO / "docs" / "json-schema.md"


def test_every_keyword_that_constrains_has_a_parser() -> None:
    constraining = {k for k, kw in KEYWORDS.items() if kw.status != "annotation"}
    refused_outright = {k for k, kw in KEYWORDS.items() if kw.status == "refused"}
    assert PARSED | COMBINING == constraining - refused_outright | {"uniqueItems"}
    assert not (PARSED | COMBINING) & ANNOTATIONS


def test_entries_say_why_and_where() -> None:
    rows_used = {kw.row for kw in KEYWORDS.values() if kw.row}
    assert rows_used == set(ROWS)  # every documented row names keywords, and only real rows
    for name, keyword in KEYWORDS.items():
        if keyword.status == "enforced":
            assert keyword.row in ROWS, name
            assert not keyword.reason, name
        else:
            assert keyword.reason and not keyword.row and not keyword.limits, name
        if keyword.shape is not None:
            assert _CHECKS[name] is getattr(SchemaShapes, keyword.shape)
    assert SCHEMA_SINGLES & SCHEMA_ARRAYS == {"items"}  # a schema, or draft 7's array of them
    assert "properties" in SCHEMA_MAPS and "$defs" in SCHEMA_MAPS


def test_parse_reads_each_keyword_once_into_typed_fields() -> None:
    node = parse(
        {
            "type": "integer",
            "minimum": 1,
            "pattern": "a",
            "title": "t",
            "x-custom": 1,
            "_private": 2,
            "if": {"minimum": 5},
            "then": {"multipleOf": 5},
            "anyOf": [{"maximum": 3}, {"maximum": 9}],
        }
    )
    assert node.types == ["integer"] and node.bounds == {"minimum": 1}
    assert node.patterns == ["a"] and node.annotations == {"title": "t"}
    assert node.other == ["x-custom", "_private"] and node.unknown == {"x-custom": 1}
    assert node.any_ofs is not None and len(node.any_ofs) == 2  # if/then/else first, then anyOf
    assert node.any_ofs[0][0] == {"allOf": [{"minimum": 5}, {"multipleOf": 5}]}
    # Draft 4 and 7 spellings are read in 2020-12 terms.
    old = parse({"items": [{"type": "string"}], "additionalItems": False, "minimum": 3,
                 "exclusiveMinimum": True})  # fmt: skip
    assert old.prefix_items == [{"type": "string"}] and old.items is False
    assert old.bounds == {"exclusiveMinimum": 3}
    assert parse({"then": {}}).other == ["then"]  # no effect without if
    assert isinstance(parse({}), Node) and parse({}).present() == set()


def test_docs_page_is_written_from_the_registry() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert reference.render(page) == page, (
        "docs/json-schema.md is stale: run python -m typedgen.frontends.jsonschema.reference"
    )
    for name, keyword in KEYWORDS.items():
        if keyword.status != "enforced" or keyword.limits:
            assert f"`{name}`" in page, name


def _consistent(verdict: Verdict) -> str | None:
    """Why ``verdict`` contradicts the registry, or ``None``."""
    keyword = verdict.keyword.split(":")[0]  # "format: foo" deferred to Pydantic
    if keyword in ("true", "false"):
        return None
    entry = KEYWORDS.get(keyword)
    if entry is None:
        return None if verdict.status == "ignored" else "an unknown keyword that is not ignored"
    if verdict.status == "grammar" and entry.status != "enforced":
        return f"enforced, but the registry says {entry.status}"
    if verdict.status in ("refused", "validator") and entry.status != "refused":
        if not entry.limits:
            return "refused, but the registry lists no limit of it"
    if verdict.status == "ignored" and entry.status == "refused":
        return "ignored, but the registry refuses it"
    return None


CASES: list[Any] = [
    {"type": "array", "uniqueItems": True, "items": {"multipleOf": 0.1}},
    {"$dynamicRef": "#x", "title": "t", "x-unknown": 1},
    {"allOf": [{"$dynamicRef": "#x"}], "propertyDependencies": {}},
    {"type": "object", "patternProperties": {f"^{c}": {} for c in "abcde"}},
    {"not": {"minItems": 1, "uniqueItems": True}},
    {"oneOf": [{"type": "integer"}, {"minimum": 1}, {"multipleOf": 0.5}]},
    {"type": "string", "format": "no-such-format", "maxLength": 2_000_000, "minLength": 600},
    {"allOf": [{"unevaluatedProperties": False}], "anyOf": [{}, {}, {}, {}, {}]},
    {"type": "array", "contains": {}, "prefixItems": [{}], "unevaluatedItems": False},
    {"enum": [[1]], "minItems": 1, "then": {}, "contentEncoding": "base64"},
]


@pytest.mark.parametrize("schema", CASES)
def test_explain_agrees_with_the_registry(schema: Any) -> None:
    verdicts = typedgen.explain(schema).verdicts
    wrong = [(v, why) for v in verdicts if (why := _consistent(v)) is not None]
    assert not wrong
    assert verdicts  # each case has something to say


def test_explain_lists_annotations_and_unknown_keywords() -> None:
    text = str(typedgen.explain({"type": "string", "title": "Name", "x-ui": "wide"}))
    assert "title: ignored (no constraint) (an annotation: constrains nothing)" in text
    assert "x-ui: ignored (no constraint) (not a keyword of draft 2020-12" in text
    refused = typedgen.explain({"$defs": {"a": {"propertyDependencies": {}}}, "$ref": "#/$defs/a"})
    assert [(v.keyword, v.detail) for v in refused.refused] == [
        ("propertyDependencies", KEYWORDS["propertyDependencies"].reason)
    ]


def test_conformance_verdicts_agree_with_the_registry() -> None:
    """Over the JSON-Schema-Test-Suite: every keyword's fate is one the registry states."""
    resources = remotes()
    wrong: list[tuple[str, Verdict, str]] = []
    for item in evaldata_items("json_schema_test_suite"):
        options = options_for(item)
        try:
            lowered = lower_schema(item["schema"], explain=True, resources=resources, **options)
        except typedgen.TypedgenError:
            continue  # malformed schemas raise, as when compiling
        wrong.extend(
            (item["name"], v, why) for v in lowered.verdicts if (why := _consistent(v)) is not None
        )
    assert not wrong, wrong[:10]


def test_reference_main_checks_and_writes(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{reference.BEGIN}\nstale\n{reference.END}\nend\n", encoding="utf-8")
    assert reference.main([str(page), "--check"]) == 1
    assert reference.main([str(page)]) == 0
    assert reference.main([str(page), "--check"]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("\nend\n") and "stale" not in text
    with pytest.raises(ValueError, match="one keyword block"):
        reference.render("no markers")

"""What ``instructions_for`` tells the model, per kind, and the bound on its length.

Oracles: ``jsonschema`` (the schema shown still accepts and rejects what the model's schema
does), sqlglot (the DDL shown parses back to the schema's tables and columns), and the text of
the declarations themselves (options, docstrings, examples).
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

import typedgen
from typedgen.frontends.jsonschema.pydantic import pydantic_schema
from typedgen.outputs import INSTRUCTIONS_LIMIT
from typedgen.outputs.instructions import bounded, leading_comment

HEADER = "Answer with JSON that follows this JSON Schema:\n"


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Reading(BaseModel):
    """One thermometer reading."""

    place: str = Field(max_length=30, description="the town the reading was taken in")
    unit: Unit
    degrees: int = Field(ge=-90, le=60, title="Temperature")


def _shown_schema(text: str) -> Any:
    assert text.startswith(HEADER)
    return json.loads(text.removeprefix(HEADER))


def test_json_outputs_show_the_schema_compactly() -> None:
    text = typedgen.instructions_for(Reading)
    assert text is not None and "\n" not in text.removeprefix(HEADER)
    shown = _shown_schema(text)
    assert shown["title"] == "Reading" and shown["description"] == "One thermometer reading."
    place = shown["properties"]["place"]
    assert place["description"] == "the town the reading was taken in"
    assert "title" not in place  # "Place" only repeats the name
    assert shown["properties"]["degrees"]["title"] == "Temperature"  # a chosen title stays
    assert shown["$defs"]["Unit"]["enum"] == ["celsius", "fahrenheit"]
    assert "additionalProperties" not in json.dumps(shown)
    # The schema shown accepts and rejects what the generation schema does.
    full = pydantic_schema(Reading)
    good = {"place": "Oslo", "unit": "celsius", "degrees": -3}
    for instance in (good, {**good, "unit": "kelvin"}, {**good, "degrees": 99}, {"place": "x"}):
        expected = jsonschema.Draft202012Validator(full).is_valid(instance)
        assert jsonschema.Draft202012Validator(shown).is_valid(instance) is expected


def test_reasoning_fields_lose_typedgens_own_keys() -> None:
    class Answer(BaseModel):
        thinking: typedgen.Reasoning[50]
        value: int

    shown = _shown_schema(typedgen.instructions_for(Answer) or "")
    assert list(shown["properties"]) == ["thinking", "value"]
    assert "x-typedgen" not in json.dumps(shown)


def test_schema_dicts_and_markers_show_the_schema_as_given() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    assert _shown_schema(typedgen.instructions_for(schema) or "") == schema
    marker = typedgen.JsonSchema(schema, strict=False)
    assert typedgen.instructions_for(marker) == typedgen.instructions_for(schema)
    assert typedgen.instructions_for(True) == "Answer with one JSON value."


def _wide_schema(fields: int, description: str) -> dict[str, Any]:
    props = {
        f"field_{i}": {"type": "string", "description": f"{description} {i}", "maxLength": 20}
        for i in range(fields)
    }
    return {"type": "object", "properties": props, "required": sorted(props)}


def test_a_long_schema_loses_its_annotations_first() -> None:
    schema = _wide_schema(40, "a rather long description of what goes into field number")
    full = HEADER + json.dumps(schema, separators=(",", ":"))
    assert len(full) > INSTRUCTIONS_LIMIT
    text = typedgen.instructions_for(schema) or ""
    assert len(text) <= INSTRUCTIONS_LIMIT
    shown = _shown_schema(text)  # whole: it fits without the descriptions
    assert "description" not in json.dumps(shown)
    assert shown["required"] == schema["required"]


def test_a_huge_schema_is_cut_and_says_so() -> None:
    schema = _wide_schema(400, "x")
    text = typedgen.instructions_for(schema) or ""
    assert len(text) <= INSTRUCTIONS_LIMIT
    body, note = text.rsplit("\n", 1)
    lean = json.dumps(_without_descriptions(schema), separators=(",", ":"))
    assert (HEADER + lean).startswith(body)
    assert note == f"... ({len(HEADER + lean) - len(body)} more characters not shown)"
    longer = typedgen.instructions_for(schema, limit=100_000) or ""
    assert json.loads(longer.removeprefix(HEADER)) == schema  # the bound is the caller's


def _without_descriptions(schema: dict[str, Any]) -> dict[str, Any]:
    props = {
        name: {k: v for k, v in node.items() if k != "description"}
        for name, node in schema["properties"].items()
    }
    return {**schema, "properties": props}


def test_choices_list_their_options_within_the_bound() -> None:
    text = typedgen.instructions_for(typedgen.Choice("red", "green", "blue"))
    assert text == "Answer with exactly one of these options:\nred\ngreen\nblue"
    quoted = typedgen.instructions_for(typedgen.Choice("a b", " padded", "two\nlines"))
    assert quoted is not None
    assert quoted.splitlines()[1:] == ['"a b"', '" padded"', '"two\\nlines"']
    many = [f"option-{i:05d}" for i in range(5000)]
    text = typedgen.instructions_for(typedgen.Choice(many)) or ""
    lines = text.splitlines()
    assert len(text) <= INSTRUCTIONS_LIMIT and lines[1:-1] == many[: len(lines) - 2]
    assert lines[-1].startswith("... (") and lines[-1].endswith(" more characters not shown)")


def test_enums_embedded_in_a_dsl_list_their_values() -> None:
    from typedgen.types import EnumWords

    text = typedgen.instructions_for(EnumWords(Unit))
    assert text == "Answer with exactly one of these options:\ncelsius\nfahrenheit"


DDL = """
CREATE TABLE singer (singer_id INT, name TEXT, "order" INT);
CREATE TABLE concert (concert_id INT, singer_id INT, year INT);
"""


def test_sql_shows_the_dialect_and_the_schemas_ddl() -> None:
    sql = typedgen.Sql("sqlite", schema=DDL, statements=("select", "insert"), functions=["count"])
    text = typedgen.instructions_for(sql) or ""
    head, functions, tables, *ddl = text.splitlines()
    assert head == "Answer with one sqlite SQL statement (SELECT or INSERT only), nothing else."
    assert functions == "Functions you may call: COUNT."
    assert tables == "The database has these tables:"
    found: dict[str, list[str]] = {}
    for statement in sqlglot.parse("\n".join(ddl), read="sqlite"):
        assert statement is not None
        schema = statement.this
        found[schema.this.name] = [c.name for c in schema.expressions]
    assert found == {
        "singer": ["singer_id", "name", "order"],
        "concert": ["concert_id", "singer_id", "year"],
    }
    plain = typedgen.instructions_for(typedgen.Sql("postgres"))
    assert plain == "Answer with one postgres SQL statement (SELECT only), nothing else."


def test_a_schema_with_many_tables_keeps_whole_tables() -> None:
    tables = {f"table_{i}": {f"column_{j}": "INT" for j in range(8)} for i in range(60)}
    text = typedgen.instructions_for(typedgen.Sql("sqlite", schema=tables)) or ""
    assert len(text) <= INSTRUCTIONS_LIMIT
    *shown, note = text.splitlines()
    creates = [line for line in shown if line.startswith("CREATE TABLE")]
    assert 0 < len(creates) < 60 and all(line.endswith(");") for line in creates)
    assert note.endswith("more characters not shown)")


class Robot(typedgen.DSL):
    """Robot commands: `move N` steps forward or `turn left|right`, separated by `; `."""

    grammar = r"""
        start: command ("; " command)*
        command: "move " INT -> move
               | "turn " SIDE -> turn
        SIDE: "left" | "right"
        %import common.INT
    """
    examples = ("move 3; turn left", "turn right")


def test_dsl_classes_show_their_docstring_and_examples() -> None:
    text = typedgen.instructions_for(Robot)
    assert text == (
        "Answer in the Robot language.\n\n"
        "Robot commands: `move N` steps forward or `turn left|right`, separated by `; `.\n\n"
        "Example:\nmove 3; turn left\n\nExample:\nturn right"
    )
    sub = Robot.with_params(SIDE=["left"])
    assert (typedgen.instructions_for(sub) or "").startswith("Answer in the Robot language.")

    class Bare(typedgen.DSL):
        grammar = 'start: "x"'

    assert typedgen.instructions_for(Bare) is None  # DSL's own docstring is not Bare's


@pytest.mark.parametrize("examples", ["move 3", [b"move 3"], 3])
def test_dsl_examples_must_be_a_list_of_texts(examples: object) -> None:
    with pytest.raises(typedgen.OptionError) as raised:
        type("Wrong", (typedgen.DSL,), {"grammar": 'start: "x"', "examples": examples})
    assert raised.value.code == "output-examples"
    assert "examples" in str(raised.value)


def test_a_rule_method_cannot_be_called_examples() -> None:
    with pytest.raises(typedgen.GrammarError) as raised:

        class Clash(typedgen.DSL):
            grammar = 'start: examples\nexamples: "x"'

            def examples(self, children: list[Any]) -> str:  # type: ignore[override]
                return "x"

    assert raised.value.code == "dsl-reserved-name"


def test_grammars_show_their_leading_comment_and_examples(tmp_path: Path) -> None:
    lark_file = tmp_path / "greeting.lark"
    lark_file.write_text(
        "// A greeting: hello or hi,\n// then a name.\n//\n// Details nobody needs.\n"
        'start: ("hello" | "hi") " " NAME\nNAME: /[A-Z][a-z]+/\n',
        encoding="utf-8",
    )
    text = typedgen.instructions_for(typedgen.Lark(lark_file, examples=["hello Ada"]))
    assert text == (
        "Answer in this format:\n\nA greeting: hello or hi, then a name.\n\nExample:\nhello Ada"
    )
    gbnf = typedgen.Gbnf('# Yes or no.\nroot ::= "yes" | "no"\n')
    assert typedgen.instructions_for(gbnf) == "Answer in this format:\n\nYes or no."
    assert typedgen.instructions_for(typedgen.Lark('start: "a"')) is None
    only_examples = typedgen.Lark('start: "a"+', examples=["aaa"])
    assert typedgen.instructions_for(only_examples) == (
        "Answer in the format of these examples.\n\nExample:\naaa"
    )
    assert typedgen.instructions_for(typedgen.Regex(r"\d{4}", examples=["1969"])) == (
        "Answer with text that matches this regular expression in full:\n\\d{4}\n\nExample:\n1969"
    )
    assert typedgen.instructions_for(typedgen.ir.Grammar.from_lark('start: "a"')) is None


@pytest.mark.parametrize("marker", [typedgen.Lark, typedgen.Gbnf, typedgen.Regex])
def test_marker_examples_must_be_texts(marker: Any) -> None:
    with pytest.raises(typedgen.OptionError) as raised:
        marker("x", examples="x")
    assert raised.value.code == "output-examples"
    assert marker("x", examples=["a", "b"]).examples == ("a", "b")  # stored as a tuple
    hash(marker("x", examples=["a"]))


def test_the_limit_is_checked() -> None:
    for limit in (0, 99, True, 2.5):
        with pytest.raises(typedgen.OptionError) as raised:
            typedgen.instructions_for(Reading, limit=limit)  # type: ignore[arg-type]
        assert raised.value.code == "option-value"


def test_leading_comment_is_the_first_paragraph() -> None:
    assert leading_comment("\n// one\n//two\n//\n// three\nstart: x", "//") == "one two"
    assert leading_comment("start: x // not a docstring", "//") is None


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n", max_size=600), st.integers(min_value=100, max_value=400))
def test_bounded_text_fits_and_keeps_a_prefix(text: str, limit: int) -> None:
    found = bounded(text, limit)
    assert len(found) <= limit
    if len(text) <= limit:
        assert found == text
    else:
        kept, note = found.rsplit("\n", 1)
        assert text.startswith(kept)
        assert note == f"... ({len(text) - len(kept)} more characters not shown)"

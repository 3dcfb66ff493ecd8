"""typedgen.generate end to end on the real default model (SmolLM2-135M-Instruct).

Each output is checked by an independent oracle: Pydantic validation of the JSON text,
``jsonschema``, ``re.fullmatch``, lark's own parser.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from pathlib import Path

import lark
import pytest
from pydantic import BaseModel, Field

import typedgen
from typedgen.models import LoadedModel

pytestmark = pytest.mark.model
GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"


class Address(BaseModel):
    city: str = Field(max_length=30)
    country: str = Field(max_length=30)


class Person(BaseModel):
    name: str = Field(max_length=40)
    age: int = Field(ge=0, le=120)
    address: Address
    hobbies: list[str] = Field(max_length=3)


class Link(BaseModel):
    value: int = Field(ge=0, le=99)
    next: Link | None = None


class Mood(Enum):
    HAPPY = "happy"
    SAD = "sad"
    ANGRY = "angry"


def test_nested_pydantic_model(loaded: LoadedModel) -> None:
    person = typedgen.generate(
        Person, "Describe Marie Curie: name, age at death, city and country, hobbies.", model=loaded
    )
    assert isinstance(person, Person) and isinstance(person.address, Address)
    Person.model_validate_json(person.model_dump_json())


def test_recursive_model(loaded: LoadedModel) -> None:
    head = typedgen.generate(
        Link,
        'Copy this linked list as JSON: {"value": 1, "next": {"value": 2, "next": null}}',
        model=loaded,
        max_tokens=200,
    )
    assert isinstance(head, Link)
    assert head.next is None or isinstance(head.next, Link)


def test_enum(loaded: LoadedModel) -> None:
    mood = typedgen.generate(Mood, "'I won the lottery!' What is the mood?", model=loaded)
    assert isinstance(mood, Mood)


def test_regex(loaded: LoadedModel) -> None:
    pattern = r"\d{4}-\d{2}-\d{2}"
    text = typedgen.generate(typedgen.Regex(pattern), "When did Apollo 11 land?", model=loaded)
    assert re.fullmatch(pattern, text)


WEATHER_GBNF = r"""
root ::= "{\"city\": \"" city "\", \"temp_c\": " temp ", \"sky\": \"" sky "\"}"
city ::= [A-Z] [a-z]{1,15}
temp ::= "-"? [0-9] [0-9]?
sky ::= "clear" | "cloudy" | "rain" | "snow"
"""


def test_gbnf_grammar(loaded: LoadedModel) -> None:
    text = typedgen.generate(
        typedgen.Gbnf(WEATHER_GBNF), "Weather report for Oslo in winter, as JSON.", model=loaded
    )
    value = json.loads(text)  # the grammar spells a JSON object; json is an independent oracle
    assert set(value) == {"city", "temp_c", "sky"} and isinstance(value["temp_c"], int)
    assert value["sky"] in {"clear", "cloudy", "rain", "snow"}


def test_lark_grammar_checked_by_lark(loaded: LoadedModel) -> None:
    source = (GRAMMARS / "calc.lark").read_text()
    text = typedgen.generate(
        typedgen.Lark(source),
        "Write the arithmetic expression 2 + 3 * 4.",
        model=loaded,
        max_tokens=24,
    )
    lark.Lark(source, parser="lalr").parse(text)


class Answer(BaseModel):
    reasoning: typedgen.Reasoning[300]
    answer: int = Field(ge=0, le=1000)


def test_reasoning_and_a_failing_then_passing_validator(loaded: LoadedModel) -> None:
    seen: list[int] = []

    def reject_first(value: Answer) -> None:
        seen.append(value.answer)
        if len(seen) == 1:
            raise ValueError("check your arithmetic and answer again")

    details = typedgen.generate(
        Answer,
        "What is 12 + 30? Think first.",
        model=loaded,
        validators=[reject_first],
        return_details=True,
    )
    assert isinstance(details.value, Answer)
    assert len(details.attempts) == 2 and not details.attempts[0].ok
    assert details.attempts[0].error == "ValueError: check your arithmetic and answer again"
    assert details.reasoning == details.value.reasoning


def test_reasoning_scratchpad_before_any_type(loaded: LoadedModel) -> None:
    details = typedgen.generate(
        Mood,
        "'My dog died.' What is the mood?",
        model=loaded,
        reasoning=200,
        return_details=True,
    )
    assert isinstance(details.value, Mood)
    assert details.reasoning is not None and len(details.reasoning) <= 200


class Review(BaseModel):
    """A product review, summarised."""

    product: str = Field(max_length=30, description="what was reviewed")
    mood: Mood
    stars: int = Field(ge=1, le=5)


def test_instructions_reach_the_real_chat_template(loaded: LoadedModel) -> None:
    from typedgen.prompts import encode_messages, takes_system

    prompt = "Review: 'The kettle broke after two days. Awful.'"
    told = typedgen.instructions_for(Review)
    assert told is not None and takes_system(loaded.tokenizer)
    told_schema = json.loads(told.split("\n", 1)[1])
    assert told_schema["$defs"]["Mood"]["enum"] == ["happy", "sad", "angry"]
    default = typedgen.generate(Review, prompt, model=loaded, return_details=True)
    by_hand = typedgen.generate(
        Review, prompt, model=loaded, return_details=True, instructions=False, system=told
    )
    conversation = [{"role": "system", "content": told}, {"role": "user", "content": prompt}]
    assert default.prompt_tokens == len(encode_messages(loaded.tokenizer, conversation))
    assert (default.text, default.value) == (by_hand.text, by_hand.value)
    Review.model_validate_json(default.text)  # Pydantic is the oracle of the JSON text
    rendered = loaded.tokenizer.apply_chat_template(conversation, tokenize=False)
    assert told in rendered and "named SmolLM" not in rendered  # it replaces the default system

"""The instructions in the prompt, on the tiny model: where they go, and the switches.

Each placement is checked against the same conversation written out by hand: greedy decoding of
the tiny model is a function of the prompt tokens, so equal texts and equal prompt-token counts
mean the generator sent exactly that conversation through the real SmolLM2 chat template.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import BaseModel, Field

import typedgen
from typedgen.models import LoadedModel
from typedgen.prompts import encode_messages, takes_system, with_instructions

# A template without a system role, as some model families ship (it refuses the role).
NO_SYSTEM_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class Pet(BaseModel):
    """A pet and its age."""

    name: str = Field(max_length=8)
    age: int = Field(ge=0, le=30)


def _run(model: LoadedModel, prompt: Any, **options: Any) -> typedgen.Details:
    details = typedgen.Generator(Pet, model)(prompt, max_tokens=40, return_details=True, **options)
    assert isinstance(details.value, Pet)
    return details


def _same(a: typedgen.Details, b: typedgen.Details) -> bool:
    return a.text == b.text and a.prompt_tokens == b.prompt_tokens


def test_instructions_go_into_the_system_message(tiny: LoadedModel) -> None:
    told = typedgen.instructions_for(Pet)
    assert told is not None and '"title":"Pet"' in told
    default = _run(tiny, "my cat")
    by_hand = _run(tiny, "my cat", instructions=False, system=told)
    assert _same(default, by_hand)
    expected = encode_messages(
        tiny.tokenizer,
        [{"role": "system", "content": told}, {"role": "user", "content": "my cat"}],
    )
    assert default.prompt_tokens == len(expected)
    plain = _run(tiny, "my cat", instructions=False)
    assert plain.prompt_tokens < default.prompt_tokens


def test_a_given_system_message_is_kept_and_extended(tiny: LoadedModel) -> None:
    told = typedgen.instructions_for(Pet)
    both = _run(tiny, "my cat", system="Be brief.")
    assert _same(both, _run(tiny, "my cat", instructions=False, system=f"Be brief.\n\n{told}"))
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "my cat"}]
    assert _same(_run(tiny, chat), both)


def test_instructions_text_replaces_the_description(tiny: LoadedModel) -> None:
    mine = "Reply with the pet's name and age as JSON."
    assert _same(
        _run(tiny, "my cat", instructions=mine),
        _run(tiny, "my cat", instructions=False, system=mine),
    )
    generator = typedgen.Generator(Pet, tiny, instructions=False)  # a constructor default too
    assert generator("my cat", max_tokens=40, return_details=True).prompt_tokens == (
        _run(tiny, "my cat", instructions=False).prompt_tokens
    )
    assert _same(_run(tiny, "my cat", instructions=""), _run(tiny, "my cat", instructions=False))


def test_without_a_system_role_they_lead_the_user_turn(tiny: LoadedModel) -> None:
    tokenizer = copy.deepcopy(tiny.tokenizer)
    tokenizer.chat_template = NO_SYSTEM_TEMPLATE
    assert takes_system(tiny.tokenizer) and not takes_system(tokenizer)
    model = LoadedModel(tiny.model, tokenizer, tiny.vocabulary, tiny.device, "tiny-no-system")
    told = typedgen.instructions_for(Pet)
    default = _run(model, "my cat")
    assert _same(default, _run(model, f"{told}\n\nmy cat", instructions=False))
    with pytest.raises(Exception, match="System role not supported"):
        _run(model, "my cat", system="Be brief.")  # the template's own refusal, as before


def test_batches_and_streams_carry_them_too(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(Pet, tiny, max_tokens=40)
    prompts = ["my cat", "a dog called Rex"]
    assert generator.batch(prompts) == [generator(p) for p in prompts]
    off = [generator(p, instructions=False, return_details=True) for p in prompts]
    on = generator.batch(prompts, return_details=True)
    assert all(a.prompt_tokens > b.prompt_tokens for a, b in zip(on, off, strict=True))
    events = list(generator.stream("my cat"))
    assert events[-1].value == generator("my cat")


@pytest.mark.parametrize("value", [None, 1, ["text"]])
def test_the_option_is_checked(tiny: LoadedModel, value: object) -> None:
    with pytest.raises(typedgen.OptionError) as raised:
        typedgen.Generator(Pet, tiny, instructions=value)
    assert raised.value.code == "option-value"


def test_placement_rules() -> None:
    user = [{"role": "user", "content": "q"}]
    assert with_instructions(user, "I", True) == [{"role": "system", "content": "I"}, *user]
    system = [{"role": "system", "content": "S"}, *user]
    assert with_instructions(system, "I", True)[0] == {"role": "system", "content": "S\n\nI"}
    assert with_instructions(user, "I", False) == [{"role": "user", "content": "I\n\nq"}]
    turns = [{"role": "assistant", "content": "a"}, *user, {"role": "user", "content": "r"}]
    assert with_instructions(turns, "I", False)[1] == {"role": "user", "content": "I\n\nq"}


class Steps(typedgen.DSL):
    """Robot steps."""

    grammar = 'start: STEP ("; " STEP)*\nSTEP: "left" | "right"'
    examples = ("left; right", "left, right")


def test_examples_the_grammar_refuses_are_refused(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.OptionError) as raised:
        typedgen.Generator(Steps, tiny)("walk", max_tokens=8)
    assert raised.value.code == "output-examples"
    assert "example 2" in str(raised.value) and "'left, right'" in str(raised.value)
    assert "1:5" in str(raised.value)  # where the example leaves the grammar
    off = typedgen.Generator(Steps, tiny, instructions=False)("walk", max_tokens=8)
    assert off.data == "start"  # lark's tree (no methods): nothing shown, nothing checked
    lark_type = typedgen.Lark('start: "a"+', examples=["aaa", "ab"])
    with pytest.raises(typedgen.OptionError, match="example 2"):
        typedgen.generate(lark_type, "a's", model=tiny, max_tokens=4)
    ok = typedgen.Regex("[ab]{2}", examples=["ab"])
    assert typedgen.generate(ok, "two letters", model=tiny, reasoning=20, max_tokens=40) in {
        "aa",
        "ab",
        "ba",
        "bb",
    }  # checked against the answer's grammar, not the scratchpad in front of it

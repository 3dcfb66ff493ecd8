"""Generator on the tiny model: beams, streaming, validators and retries, reasoning, binding."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from enum import Enum
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field, field_validator

import typedgen
from tests.decoding.test_loop import SCHEMA
from typedgen.models import LoadedModel


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Item(BaseModel):
    sku: str = Field(max_length=6)
    qty: int = Field(ge=1, le=9)


class Order(BaseModel):
    note: typedgen.Reasoning[30]
    color: Color
    items: list[Item] = Field(max_length=2)
    express: bool


def test_greedy_and_one_beam_agree(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(SCHEMA, tiny)
    greedy = generator("order", return_details=True)
    beam = generator("order", num_beams=1, return_details=True)
    assert beam.text == greedy.text


@pytest.mark.parametrize("beams", [2, 4])
def test_beam_outputs_validate(tiny: LoadedModel, beams: int) -> None:
    value = typedgen.Generator(SCHEMA, tiny)("order", num_beams=beams)
    jsonschema.validate(value, SCHEMA)


def test_stream_agrees_with_a_call(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(Order, tiny)
    events = list(generator.stream("an order"))
    final = events[-1]
    assert final.done and isinstance(final.value, Order)
    text = "".join(e.delta for e in events)
    assert text == generator("an order", return_details=True).text
    assert final.value == generator("an order")
    # Partial objects only ever gain complete fields, and those fields keep their value.
    seen: dict[str, Any] = {}
    for event in events[:-1]:
        if event.partial is None:
            continue
        fields = {k: getattr(event.partial, k) for k in event.partial.model_fields_set}
        assert set(seen) <= set(fields) | {"items"}
        for key, value in seen.items():
            if key != "items":
                assert fields[key] == value
        seen = fields
    assert isinstance(seen.get("color"), Color)  # validated field by field on the way


def test_stream_of_plain_text_has_no_partials(tiny: LoadedModel) -> None:
    events = list(typedgen.Generator(typedgen.Regex(r"[a-z]{3,6}"), tiny).stream("word"))
    assert all(e.partial is None for e in events)
    assert re.fullmatch(r"[a-z]{3,6}", events[-1].value)


def test_batch_agrees_with_calls(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(Order, tiny)
    prompts = ["first", "second prompt, longer than the first"]
    assert generator.batch(prompts) == [generator(p) for p in prompts]


class _RejectsFirst:
    """A validator rejecting the first ``n`` values it sees."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0

    def __call__(self, value: object) -> str | None:
        self.calls += 1
        return "try again" if self.calls <= self.n else None


def test_batch_retries_failed_rows_as_one_batch(
    tiny: LoadedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typedgen import generation

    sizes: list[int] = []

    class Counted(generation.Decoder):
        def __init__(self, model: Any, compiled: Any, prompts: Any, options: Any) -> None:
            sizes.append(len(prompts))
            super().__init__(model, compiled, prompts, options)

    monkeypatch.setattr(generation, "Decoder", Counted)
    generator = typedgen.Generator(SCHEMA, tiny)
    prompts = ["first", "second", "third"]
    results = generator.batch(prompts, validators=[_RejectsFirst(3)], return_details=True)
    assert sizes == [3, 3]  # one batch, then every rejected row again in one batch
    for details in results:
        assert [a.error for a in details.attempts] == ["try again", None]
        jsonschema.validate(details.value, SCHEMA)


def test_batch_raises_the_first_failed_prompt_after_every_row(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(SCHEMA, tiny)
    with pytest.raises(typedgen.ValidationFailed) as info:
        generator.batch(["a", "b"], validators=[lambda v: False], max_retries=1)
    assert len(info.value.attempts) == 2
    assert any("prompt 0 of the batch (2 failed)" in note for note in info.value.__notes__)


def test_a_retry_that_runs_out_of_tokens_keeps_the_earlier_attempts(tiny: LoadedModel) -> None:
    # Every value is rejected; an attempt either writes "isin" (rejected; the tiny model's
    # greedy choice) or starts "ecec" and runs out of tokens (retries sample). Some prompt has
    # rejected attempts before the one that runs out.
    generator = typedgen.Generator(typedgen.Regex("isin|ecec[a-z]{40}"), tiny)
    kept: typedgen.IncompleteOutputError | None = None
    for prompt in "abcdefghijklmnop":
        try:
            generator(prompt, max_tokens=5, validators=[lambda v: False], max_retries=3)
        except typedgen.IncompleteOutputError as exc:
            if len(exc.attempts) > 1:
                kept = exc
                break
        except typedgen.ValidationFailed:
            continue
    assert kept is not None, "no prompt ran out of tokens after a rejected attempt"
    attempts = kept.attempts
    assert all(a.text == "isin" for a in attempts[:-1])
    assert all(a.error == "validator <lambda> rejected the value" for a in attempts[:-1])
    assert attempts[-1].text == kept.partial_text and not attempts[-1].ok
    assert (attempts[-1].error or "").startswith("IncompleteOutputError: max_tokens=5")
    # Without earlier attempts the error still carries the one that failed.
    long = typedgen.Generator(typedgen.Regex("[a-z]{200}"), tiny)
    with pytest.raises(typedgen.IncompleteOutputError) as first:
        long("x", max_tokens=5)
    assert [a.text for a in first.value.attempts] == [first.value.partial_text]


def test_pydantic_types_bind(tiny: LoadedModel) -> None:
    order = typedgen.generate(Order, "an order", model=tiny)
    assert isinstance(order, Order) and isinstance(order.color, Color)
    assert typedgen.generate(Color, "a color", model=tiny) in set(Color)
    assert typedgen.generate(Literal["yes", "no"], "?", model=tiny) in {"yes", "no"}
    small = Annotated[list[Annotated[int, Field(ge=0, le=99)]], Field(max_length=3)]
    numbers = typedgen.generate(small, "numbers", model=tiny)
    assert isinstance(numbers, list) and len(numbers) <= 3


def test_details(tiny: LoadedModel) -> None:
    details = typedgen.generate(Order, "an order", model=tiny, return_details=True)
    assert isinstance(details, typedgen.Details)
    assert details.reasoning == details.value.note  # the Reasoning field
    assert details.sampled_tokens > 0 and details.forced_tokens > 0
    assert details.prompt_tokens > 0 and details.seconds > 0
    assert len(details.attempts) == 1 and details.attempts[0].ok
    assert json.loads(details.text) == details.value.model_dump(mode="json")


def test_reasoning_scratchpad(tiny: LoadedModel) -> None:
    details = typedgen.generate(
        Color, "a color", model=tiny, reasoning=40, return_details=True, max_tokens=80
    )
    assert details.text.startswith("Reasoning: ")
    assert "\nAnswer: " in details.text
    assert details.reasoning is not None and len(details.reasoning) <= 40
    assert "\n" not in details.reasoning
    assert details.value in set(Color)


def test_fenced_reasoning(tiny: LoadedModel) -> None:
    """``reasoning="fenced"``: free text, then the output in a code block tagged by its kind; the
    prompt says so, and the value binds from the block alone."""
    generator = typedgen.Generator(Color, tiny, reasoning=typedgen.Scratchpad("fenced", 24))
    details = generator("a color", return_details=True, max_tokens=80)
    reasoning, block = details.text.split("```json\n")
    assert details.reasoning == reasoning and len(reasoning.replace("`", "")) <= 24
    assert block.endswith("\n```") and details.value in set(Color)
    assert json.loads(block.removesuffix("\n```")) == details.value.value
    told = generator._conversation("a color", generator._settings)
    assert "a ```json code block" in told[0]["content"] + told[-1]["content"]
    quiet = generator._conversation("a color", replace(generator._settings, instructions=False))
    assert "code block" not in json.dumps(quiet)
    # Streaming parses partial objects from the block on, up to its closing fence.
    fenced_order = typedgen.Generator(Order, tiny, reasoning=typedgen.Scratchpad("fenced", 20))
    events = list(fenced_order.stream("an order", max_tokens=120))
    assert events[-1].done and isinstance(events[-1].value, Order)
    partials = [e.partial for e in events[:-1] if e.partial is not None]
    assert partials and isinstance(getattr(partials[-1], "color", None), Color)
    sql = typedgen.Generator(typedgen.Sql("sqlite"), tiny, reasoning="fenced")
    assert sql.scratchpad is not None and sql.scratchpad.answer_mark == "```sql\n"


def test_failing_then_passing_validator(tiny: LoadedModel) -> None:
    calls: list[str] = []

    def first_fails(value: object) -> None:
        calls.append(repr(value))
        if len(calls) == 1:
            raise ValueError("try again")

    details = typedgen.generate(
        SCHEMA, "a person", model=tiny, validators=[first_fails], return_details=True
    )
    assert len(details.attempts) == 2
    assert details.attempts[0].error == "ValueError: try again"
    assert details.attempts[1].ok
    jsonschema.validate(details.value, SCHEMA)


def test_validator_verdicts_and_exhausted_retries(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.ValidationFailed) as info:
        typedgen.generate(SCHEMA, "x", model=tiny, validators=[lambda v: False], max_retries=1)
    attempts = info.value.attempts
    assert len(attempts) == 2
    assert all(a.error == "validator <lambda> rejected the value" for a in attempts)
    with pytest.raises(typedgen.ValidationFailed, match="too young"):
        typedgen.generate(
            SCHEMA, "x", model=tiny, validators=[lambda v: "too young"], max_retries=0
        )


class Strict(BaseModel):
    word: str = Field(max_length=4)

    @field_validator("word")
    @classmethod
    def never(cls, value: str) -> str:
        raise ValueError("no word is good enough")


def test_pydantic_validators_run_at_binding(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.ValidationFailed) as info:
        typedgen.generate(Strict, "x", model=tiny, max_retries=1)
    assert len(info.value.attempts) == 2
    assert "no word is good enough" in (info.value.attempts[0].error or "")


def test_chat_messages_and_system_prompt(tiny: LoadedModel) -> None:
    messages = [{"role": "user", "content": "a person"}]
    generator = typedgen.Generator(SCHEMA, tiny)
    assert generator(messages) == generator("a person")
    assert isinstance(generator("a person", system="Answer in JSON."), dict)
    with pytest.raises(typedgen.OptionError, match="role") as bad:
        generator([{"content": "no role"}])
    assert bad.value.code == "prompt-messages"


def test_unknown_option_is_refused(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.UnknownOptionError, match="temprature") as unknown:
        typedgen.Generator(SCHEMA, tiny)("x", temprature=0.5)
    assert isinstance(unknown.value, TypeError) and "temperature" in (unknown.value.hint or "")
    with pytest.raises(typedgen.OptionError, match="beam") as conflict:
        next(typedgen.Generator(SCHEMA, tiny).stream("x", num_beams=2))
    assert conflict.value.code == "option-conflict"


def test_lenient_schema_checks_deferred_keywords_after_decoding(tiny: LoadedModel) -> None:
    schema = {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3, "uniqueItems": True}
    with pytest.raises(typedgen.UnsupportedSchemaError, match="uniqueItems"):
        typedgen.Generator(schema, tiny)
    lenient = typedgen.JsonSchema(schema, strict=False)
    outcomes = []
    repaired = []
    for seed in range(6):
        try:
            value = typedgen.generate(
                lenient, "letters", model=tiny, temperature=1.0, seed=seed, max_retries=0, repairs=0
            )
        except typedgen.ValidationFailed as failed:
            assert "non-unique" in (failed.attempts[0].error or "")
            outcomes.append("rejected")
            # Repair at the failing path (jsonschema names the array) fixes it in place.
            details = typedgen.generate(
                lenient,
                "letters",
                model=tiny,
                temperature=1.0,
                seed=seed,
                max_retries=0,
                return_details=True,
            )
            assert len(set(details.value)) == len(details.value)
            assert details.repairs and details.repairs[0].place == "/"
            assert len(details.attempts) == 1
            repaired.append(details)
        else:
            assert len(set(value)) == len(value)
            outcomes.append("ok")
    assert "rejected" in outcomes  # the random model does repeat itself; jsonschema catches it
    assert repaired


def test_lark_tree_where_asked(tiny: LoadedModel) -> None:
    from tests.decoding.test_loop import CALC

    lark = pytest.importorskip("lark")
    text = typedgen.generate(typedgen.Lark(CALC), "sum", model=tiny)
    tree = typedgen.generate(typedgen.Lark(CALC, tree=True), "sum", model=tiny)
    assert isinstance(text, str)
    assert isinstance(tree, lark.Tree) and tree.data == "start"
    assert tree == lark.Lark(CALC, parser="earley").parse(text)  # the same text, parsed by lark

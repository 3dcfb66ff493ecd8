"""The API around a generation (issue 14): Details on errors with token counts summed over
attempts, constrain=False, sampled retries, the generate cache, the plain-prompt warning, and the
CPU thread choice."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest

import typedgen
from typedgen import generation
from typedgen.models import LoadedModel, choose_threads
from typedgen.prompts import unconstrained_answer

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}},
    "required": ["n"],
    "additionalProperties": False,
}


def test_incomplete_output_carries_details(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.IncompleteOutputError) as raised:
        typedgen.Generator({"type": "string", "minLength": 200}, tiny)("x", max_tokens=4)
    details = raised.value.details
    assert isinstance(details, typedgen.Details)
    assert details.value is None and len(details.attempts) == 1
    assert details.sampled_tokens + details.forced_tokens == 4
    assert details.text == raised.value.partial_text and details.forward_passes >= 1


def test_validation_failed_sums_tokens_over_attempts(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.ValidationFailed) as raised:
        typedgen.Generator(SCHEMA, tiny)("x", validators=[lambda v: False], max_retries=2)
    details = raised.value.details
    assert len(details.attempts) == 3
    assert details.sampled_tokens == sum(a.sampled_tokens for a in details.attempts)
    assert details.sampled_tokens > details.attempts[-1].sampled_tokens > 0
    assert details.forced_tokens == sum(a.forced_tokens for a in details.attempts)


def test_greedy_retries_sample(tiny: LoadedModel) -> None:
    generator = typedgen.Generator({"type": "string", "maxLength": 12}, tiny, max_retries=2)
    with pytest.raises(typedgen.ValidationFailed) as sampled:
        generator("x", validators=[lambda v: False], seed=1)
    texts = [a.text for a in sampled.value.attempts]
    assert len(set(texts)) > 1
    with pytest.raises(typedgen.ValidationFailed) as greedy:
        generator("x", validators=[lambda v: False], retry_temperature=0.0)
    assert len({a.text for a in greedy.value.attempts}) == 1  # what greedy retries used to do


def test_unconstrained_mode_uses_the_same_prompt(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(typedgen.Regex(r"[\s\S]*"), tiny, max_tokens=12)
    free = generator("Say something", constrain=False, return_details=True)
    assert free.constrained is False and free.value == free.text.strip()
    # A JSON type bound from unconstrained text: the tiny model writes no JSON, so binding fails
    # and the failure says what the model wrote.
    with pytest.raises((typedgen.ValidationFailed, typedgen.IncompleteOutputError)) as raised:
        typedgen.Generator(SCHEMA, tiny, max_tokens=12)("x", constrain=False, max_retries=0)
    assert raised.value.details.constrained is False


def test_unconstrained_answer_takes_the_fenced_block() -> None:
    assert unconstrained_answer('Sure!\n```json\n{"n": 1}\n```\nDone') == '{"n": 1}'
    assert unconstrained_answer("```\nSELECT 1\n```") == "SELECT 1"
    assert unconstrained_answer('  {"n": 2} \n') == '{"n": 2}'


def test_generate_reuses_a_generator(tiny: LoadedModel) -> None:
    first = generation._cached_generator(SCHEMA, tiny, False)
    again = generation._cached_generator(json.loads(json.dumps(SCHEMA)), tiny, False)
    assert first is again
    assert generation._cached_generator(SCHEMA, tiny, True) is not first
    value = typedgen.generate(SCHEMA, "x", model=tiny)
    assert value == first("x")


def test_plain_prompt_warns_once(tiny: LoadedModel) -> None:
    tokenizer = copy.deepcopy(tiny.tokenizer)
    tokenizer.chat_template = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generation.encode_messages(tokenizer, [{"role": "user", "content": "hi"}])
        generation.encode_messages(tokenizer, [{"role": "user", "content": "hi"}])
    found = [w for w in caught if issubclass(w.category, typedgen.PromptWarning)]
    assert len(found) == 1 and "no chat template" in str(found[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        generation.encode_messages(tiny.tokenizer, [{"role": "user", "content": "hi"}])


def test_thread_choice(monkeypatch: Any) -> None:
    import os

    monkeypatch.setenv("TYPEDGEN_THREADS", "3")
    assert choose_threads() == 3
    monkeypatch.setenv("TYPEDGEN_THREADS", "many")
    with pytest.raises(typedgen.OptionError):
        choose_threads()
    monkeypatch.delenv("TYPEDGEN_THREADS")
    cores = len(os.sched_getaffinity(0))
    chosen = choose_threads()
    assert 1 <= chosen <= max(1, cores // 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (float(cores), 0.0, 0.0))
    assert choose_threads() == 1  # every core busy: one thread

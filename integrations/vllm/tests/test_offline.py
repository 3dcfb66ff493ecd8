"""typedgen inside a real vLLM engine (offline ``LLM``) on SmolLM2-135M-Instruct, CPU build.

Every constrained output must bind and validate; the tokens vLLM produced are replayed through
an independent typedgen matcher (each accepted, the text complete at the end), so a processor
that masked the wrong row or lagged a token behind fails here even when the text happens to
parse.
"""

from __future__ import annotations

from typing import Any

import pytest

vllm = pytest.importorskip("vllm")

import typedgen  # noqa: E402
from outputs import (  # noqa: E402
    CITY_PROMPTS,
    ROBOT_PROMPTS,
    SQL,
    SQL_PROMPTS,
    City,
    Robot,
    check_city,
    check_robot,
    check_sql,
)

import typedgen_vllm  # noqa: E402
from typedgen_vllm.processor import vocabulary_for  # noqa: E402


def _replay(llm: Any, output_type: object, token_ids: list[int]) -> None:
    vocab = vocabulary_for(llm.llm_engine.vllm_config)
    matcher = typedgen.compile(output_type, vocab).matcher()
    for i, token in enumerate(token_ids):
        assert matcher.accept_token(token), f"token {i} ({token}) is outside the grammar"
    assert matcher.is_complete()


def _chat(llm: Any, prompts: list[Any], params: list[Any]) -> list[Any]:
    conversations = [[{"role": "user", "content": p}] if isinstance(p, str) else p for p in prompts]
    return list(llm.chat(conversations, params, use_tqdm=False))


def test_pydantic(llm: Any) -> None:
    results = typedgen_vllm.generate(llm, City, CITY_PROMPTS, return_details=True)
    assert len(results) == len(CITY_PROMPTS)
    for result in results:
        check_city(result.value)
        assert City.model_validate_json(result.text) == result.value


def test_sql(llm: Any) -> None:
    values = typedgen_vllm.generate(llm, SQL, SQL_PROMPTS, max_tokens=200, on_max_tokens="retry")
    assert len(values) == len(SQL_PROMPTS)
    for value in values:
        check_sql(value)


def test_dsl(llm: Any) -> None:
    for value in typedgen_vllm.generate(llm, Robot, ROBOT_PROMPTS, max_tokens=60):
        check_robot(value)


def test_batch_of_eight_mixed(llm: Any) -> None:
    """Eight requests in one engine batch: three grammars, a choice, and one unconstrained row."""

    def check_choice(value: object) -> None:
        assert value in ("yes", "no"), value

    kinds: list[tuple[object | None, Any, Any]] = [
        (City, CITY_PROMPTS[0], check_city),
        (SQL, SQL_PROMPTS[0], check_sql),
        (Robot, ROBOT_PROMPTS[0], check_robot),
        (City, CITY_PROMPTS[1], check_city),
        (typedgen.Choice("yes", "no"), "Is Paris in France? Answer yes or no.", check_choice),
        (SQL, SQL_PROMPTS[1], check_sql),
        (None, "Say hello.", None),
        (City, CITY_PROMPTS[2], check_city),
    ]
    params = []
    for output_type, _, _ in kinds:
        extra = typedgen_vllm.constraint(output_type) if output_type is not None else None
        params.append(vllm.SamplingParams(temperature=0, max_tokens=200, extra_args=extra))
    outputs = _chat(llm, [p for _, p, _ in kinds], params)
    for (output_type, _, check), output in zip(kinds, outputs, strict=True):
        completion = output.outputs[0]
        if output_type is None:
            assert completion.text  # unconstrained: left alone
            continue
        assert completion.finish_reason == "stop", completion
        check(typedgen_vllm.bind(output_type, completion.text))
        _replay(llm, output_type, list(completion.token_ids))


def test_sampling_stays_in_the_grammar(llm: Any) -> None:
    params = vllm.SamplingParams(
        temperature=1.0, seed=7, n=4, max_tokens=200, extra_args=typedgen_vllm.constraint(City)
    )
    (output,) = _chat(llm, [CITY_PROMPTS[0]], [params])
    assert len(output.outputs) == 4
    for completion in output.outputs:
        if completion.finish_reason == "stop":
            check_city(City.model_validate_json(completion.text))
        _replay_prefix(llm, City, list(completion.token_ids), completion.finish_reason)


def _replay_prefix(llm: Any, output_type: object, tokens: list[int], finish: str | None) -> None:
    vocab = vocabulary_for(llm.llm_engine.vllm_config)
    matcher = typedgen.compile(output_type, vocab).matcher()
    for token in tokens:
        assert matcher.accept_token(token)
    assert matcher.is_complete() or finish == "length"


def test_validators_retry_with_feedback(llm: Any) -> None:
    seen: list[City] = []

    def not_first(city: City) -> None:
        seen.append(city)
        if len(seen) == 1:
            raise ValueError("population_millions must be the metropolitan figure")

    (result,) = typedgen_vllm.generate(
        llm, City, CITY_PROMPTS[:1], validators=[not_first], return_details=True
    )
    assert len(result.attempts) == 2
    assert result.attempts[0].error is not None and "metropolitan" in result.attempts[0].error
    check_city(result.value)


def test_validation_failed_carries_attempts(llm: Any) -> None:
    with pytest.raises(typedgen.ValidationFailed) as info:
        typedgen_vllm.generate(
            llm, City, CITY_PROMPTS[:1], validators=[lambda c: "never good"], max_retries=1
        )
    assert len(info.value.attempts) == 2


def test_max_tokens_raises_incomplete(llm: Any) -> None:
    with pytest.raises(typedgen.IncompleteOutputError) as info:
        typedgen_vllm.generate(llm, City, CITY_PROMPTS[:1], max_tokens=3)
    assert info.value.partial_text.startswith("{")


def test_max_tokens_retry_counts_attempts(llm: Any) -> None:
    with pytest.raises(typedgen.ValidationFailed) as info:
        typedgen_vllm.generate(
            llm, City, CITY_PROMPTS[:1], max_tokens=3, on_max_tokens="retry", max_retries=1
        )
    assert [a.error for a in info.value.attempts] == [
        "the answer was cut off at max_tokens; write a shorter one"
    ] * 2


def test_malformed_constraint_is_refused_at_admission(llm: Any) -> None:
    params = vllm.SamplingParams(max_tokens=5, extra_args={"typedgen": "tg1:not-a-grammar"})
    from vllm.exceptions import VLLMValidationError

    with pytest.raises((ValueError, VLLMValidationError), match="malformed serialised grammar"):
        _chat(llm, ["hi"], [params])


@pytest.mark.parametrize("output_type", [City, Robot], ids=["pydantic", "dsl"])
def test_export_to_vllm_structured_outputs(llm: Any, output_type: object) -> None:
    """Without the plugin: the grammar exported to vLLM's own xgrammar backend, bound here."""
    export = typedgen_vllm.structured_outputs(output_type, backend="xgrammar")
    assert "grammar" in export.params
    assert export.exact == (output_type is City)  # the DSL lexes by longest match: a superset
    prompts = CITY_PROMPTS[:2] if output_type is City else ROBOT_PROMPTS
    values = typedgen_vllm.generate(llm, output_type, prompts, backend="xgrammar", max_tokens=60)
    for value in values:
        (check_city if output_type is City else check_robot)(value)

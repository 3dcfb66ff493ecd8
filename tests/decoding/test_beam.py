"""Beam search honours the loop's options: ``on_max_tokens`` and jump-forward (issue 17, item 5)."""

from __future__ import annotations

import jsonschema
import pytest

import typedgen
from tests.decoding.test_loop import SCHEMA, UNBOUNDED, WIDE
from typedgen.models import LoadedModel


@pytest.mark.parametrize("max_tokens", [16, 24, 40])
def test_beams_finish_within_the_budget(tiny: LoadedModel, max_tokens: int) -> None:
    generator = typedgen.Generator(UNBOUNDED, tiny, num_beams=2)
    with pytest.raises(typedgen.IncompleteOutputError):  # the random model never stops the name
        generator("x", max_tokens=max_tokens)
    details = generator("x", max_tokens=max_tokens, on_max_tokens="finish", return_details=True)
    jsonschema.validate(details.value, UNBOUNDED)
    assert details.closed_early
    assert details.sampled_tokens + details.forced_tokens <= max_tokens


def test_beams_finish_when_the_completion_is_longer_than_the_usual_window(
    tiny: LoadedModel,
) -> None:
    # WIDE takes 182 tokens to close from the start: the search starts that much earlier.
    generator = typedgen.Generator(WIDE, tiny, num_beams=2, loop_guard=False)
    details = generator("x", max_tokens=200, on_max_tokens="finish", return_details=True)
    jsonschema.validate(details.value, WIDE)
    assert details.closed_early
    assert details.sampled_tokens + details.forced_tokens <= 200


@pytest.mark.parametrize("beams", [1, 3])
def test_beams_jump_forward(tiny: LoadedModel, beams: int) -> None:
    generator = typedgen.Generator(SCHEMA, tiny, num_beams=beams)
    forced = generator("order", return_details=True)
    plain = generator("order", jump_forward="off", return_details=True)
    for details in (forced, plain):
        jsonschema.validate(details.value, SCHEMA)
    assert plain.forced_tokens == 0
    assert forced.forced_tokens > 0  # the fixed keys were written without sampling
    assert forced.sampled_tokens < plain.sampled_tokens
    # "exact" promises plain decoding's output; beams give exactly that.
    exact = generator("order", jump_forward="exact", return_details=True)
    assert exact.text == plain.text


def test_one_beam_is_greedy_with_every_jump_mode(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(SCHEMA, tiny)
    for mode in ("force", "off"):
        greedy = generator("order", jump_forward=mode, return_details=True)
        beam = generator("order", jump_forward=mode, num_beams=1, return_details=True)
        assert beam.text == greedy.text, mode
        assert (beam.sampled_tokens, beam.forced_tokens) == (
            greedy.sampled_tokens,
            greedy.forced_tokens,
        ), mode

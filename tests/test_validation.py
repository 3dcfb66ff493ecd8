"""attempt_of: the attempt a retry loop records (the integrations' loops use it)."""

from __future__ import annotations

import pydantic
import pytest

from typedgen.outputs import binder_for
from typedgen.reasoning import ANSWER_MARK, REASONING_MARK
from typedgen.validation import attempt_of


class Point(pydantic.BaseModel):
    x: int
    y: int


def test_a_value_that_binds_and_validates() -> None:
    attempt = attempt_of(binder_for(Point), Point, '{"x":1,"y":2}', False, [])
    assert attempt.ok and attempt.value == Point(x=1, y=2) and attempt.reasoning is None


def test_a_rejection_is_the_attempts_error() -> None:
    bad = attempt_of(binder_for(Point), Point, '{"x":1}', False, [])
    assert not bad.ok and bad.value is None and "y" in (bad.error or "")
    refused = attempt_of(
        binder_for(Point), Point, '{"x":1,"y":2}', False, [lambda p: p.x > 5 or "x too small"]
    )
    assert not refused.ok and refused.error and "x too small" in refused.error


def test_the_scratchpad_is_split_off() -> None:
    text = f'{REASONING_MARK}some thoughts{ANSWER_MARK}{{"x":3,"y":4}}'
    attempt = attempt_of(binder_for(Point), Point, text, True, [])
    assert attempt.reasoning == "some thoughts" and attempt.value == Point(x=3, y=4)


def test_a_bug_in_binding_is_raised_not_retried() -> None:
    def broken(text: str) -> object:
        raise TypeError("a bug, not a verdict on the output")

    with pytest.raises(TypeError):
        attempt_of(broken, Point, "{}", False, [])

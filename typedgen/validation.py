"""Semantic validators and the retry policy.

A validator is any callable taking the bound value: it fails by raising (``ValueError``,
``AssertionError``, a Pydantic ``ValidationError``...) or by returning ``False`` or a message
string; ``None`` and ``True`` pass. Binding errors (Pydantic validators, ``jsonschema`` checks of
keywords the grammar deferred) count as validation failures too. On failure the attempt and its
error are fed back to the model as one more conversation turn, up to ``max_retries`` times;
then :class:`~typedgen.errors.ValidationFailed` carries every attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Attempt", "Validator", "check", "feedback", "validation_errors"]

Validator = Callable[[Any], object]


@dataclass(frozen=True)
class Attempt:
    """One decode: its full text, the value it bound to (if any) and why it failed (if it did)."""

    text: str
    value: Any = None
    error: str | None = None
    reasoning: str | None = None
    sampled_tokens: int = 0
    forced_tokens: int = 0
    closed_early: bool = False
    """``on_max_tokens="finish"`` closed the text with the grammar's shortest completion."""

    @property
    def ok(self) -> bool:
        return self.error is None


def validation_errors() -> tuple[type[BaseException], ...]:
    """The exception types that mean "valid syntax, wrong value" (retryable)."""
    errors: list[type[BaseException]] = [ValueError, AssertionError, TypeError]
    try:
        from pydantic import ValidationError

        errors.append(ValidationError)
    except ImportError:  # pragma: no cover - pydantic is a dependency
        pass
    return tuple(errors)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def check(value: Any, validators: Sequence[Validator]) -> str | None:
    """Run ``validators`` in order; the first failure's message, or ``None`` when all pass."""
    for validator in validators:
        try:
            verdict = validator(value)
        except validation_errors() as exc:
            return _describe(exc)
        if verdict is False:
            name = getattr(validator, "__name__", type(validator).__name__)
            return f"validator {name} rejected the value"
        if isinstance(verdict, str) and verdict:
            return verdict
    return None


def feedback(text: str, error: str) -> list[dict[str, str]]:
    """The conversation turns that show the model its rejected answer and why."""
    return [
        {"role": "assistant", "content": text},
        {
            "role": "user",
            "content": f"That answer was rejected: {error}\nAnswer again, correcting this.",
        },
    ]

"""Semantic validators and the retry policy.

A validator is any callable taking the bound value: it rejects the value by raising
``ValueError``, ``AssertionError`` or a Pydantic ``ValidationError``, or by returning ``False`` or
a message string; ``None`` and ``True`` pass. Binding errors (Pydantic validators, ``jsonschema``
checks of keywords the grammar deferred, SQL schema checks, DSL methods) count as rejections too.
On a rejection the attempt and its error are fed back to the model as one more conversation
turn, up to ``max_retries`` times; then :class:`~typedgen.errors.ValidationFailed` carries every
attempt.

Only a *verdict on the model's output* is retried (:func:`is_verdict`). Anything else is a bug,
in typedgen or in a validator, and retrying would only hide it behind a misleading
``ValidationFailed`` after burning the retry budget; it is raised at once, unchanged, with a note
saying where it came from:

- a :class:`~typedgen.errors.TypedgenError` other than a
  :class:`~typedgen.errors.BindingError` (a ``GrammarError`` is a ``ValueError``, but it means a
  grammar is wrong, not the model);
- ``TypeError``, ``KeyError``, ``AttributeError``, ``IndexError``, ``NameError``... (a validator
  that indexes a missing key or calls something wrongly is broken, not rejecting);
- anything that is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from typedgen.errors import BindingError, TypedgenError

__all__ = [
    "Attempt",
    "Validator",
    "check",
    "describe",
    "feedback",
    "first_failure",
    "is_verdict",
    "not_a_verdict",
    "validation_errors",
]

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
    loops: tuple[Any, ...] = ()
    """Degenerate loops the loop guard met (``typedgen.LoopEvent``)."""
    repairs: tuple[Any, ...] = ()
    """Choices excluded by repairs at the faulty place (``typedgen.Repair``), in order."""
    repeated_keys: tuple[Any, ...] = ()
    """JSON object keys about to be written twice (``typedgen.KeyEvent``), in order."""
    cause: BaseException | None = field(default=None, repr=False, compare=False)
    """The exception behind ``error`` (for locating the fault); ``None`` for a plain message."""

    @property
    def ok(self) -> bool:
        return self.error is None


def validation_errors() -> tuple[type[BaseException], ...]:
    """The exception types that may mean "valid syntax, wrong value" (see :func:`is_verdict`)."""
    errors: list[type[BaseException]] = [ValueError, AssertionError]
    try:
        from pydantic import ValidationError

        errors.append(ValidationError)
    except ImportError:  # pragma: no cover - pydantic is a dependency
        pass
    return tuple(errors)


def is_verdict(exc: BaseException) -> bool:
    """Whether ``exc`` rejects the model's output (retry with feedback) rather than being a bug.

    A :class:`~typedgen.errors.BindingError` is a verdict; any other typedgen error is not, even
    where it is also a ``ValueError``; otherwise ``ValueError``, ``AssertionError`` and Pydantic's
    ``ValidationError`` are.
    """
    if isinstance(exc, TypedgenError):
        return isinstance(exc, BindingError)
    return isinstance(exc, validation_errors())


def describe(exc: BaseException) -> str:
    """The one-line form of an error as the model (and ``Attempt.error``) sees it."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def not_a_verdict(exc: BaseException, where: str) -> None:
    """Mark ``exc`` (about to propagate) as raised by ``where``, and why it was not retried."""
    exc.add_note(
        f"typedgen: raised by {where}; not retried, since only a BindingError, ValueError,"
        " AssertionError or pydantic ValidationError rejects the model's output"
    )


def check(value: Any, validators: Sequence[Validator]) -> str | None:
    """Run ``validators`` in order; the first failure's message, or ``None`` when all pass.

    Exceptions that are not verdicts (:func:`is_verdict`) propagate at once.
    """
    failure = first_failure(value, validators)
    return None if failure is None else failure[0]


def first_failure(
    value: Any, validators: Sequence[Validator]
) -> tuple[str, BaseException | None] | None:
    """Like :func:`check`, with the rejecting exception (``None`` for a returned verdict)."""
    for validator in validators:
        try:
            verdict = validator(value)
        except Exception as exc:
            if not is_verdict(exc):
                name = getattr(validator, "__name__", type(validator).__name__)
                not_a_verdict(exc, f"validator {name}")
                raise
            return describe(exc), exc
        if verdict is False:
            name = getattr(validator, "__name__", type(validator).__name__)
            return f"validator {name} rejected the value", None
        if isinstance(verdict, str) and verdict:
            return verdict, None
    return None


def attempt_of(
    bind: Callable[[str], Any],
    output_type: object,
    text: str,
    reasoning: bool | int,
    validators: Sequence[Validator],
) -> Attempt:
    """The attempt a retry loop records for ``text``: bound to ``output_type`` by ``bind`` (the
    answer after the scratchpad when ``reasoning``), then checked by ``validators``.

    A binding failure that is a verdict on the model's output becomes the attempt's error; any
    other exception (a bug, a misconfiguration) is raised at once, with a note saying where.
    """
    from typedgen import reasoning as scratch

    thoughts: str | None = None
    answer = text
    if reasoning:
        thoughts, answer = scratch.split(text)
    try:
        value = bind(answer)
    except Exception as exc:
        if not is_verdict(exc):
            name = getattr(output_type, "__name__", type(output_type).__name__)
            not_a_verdict(exc, f"binding the output to {name}")
            raise
        return Attempt(text, None, describe(exc), thoughts)
    return Attempt(text, value, check(value, validators), thoughts)


def feedback(text: str, error: str) -> list[dict[str, str]]:
    """The conversation turns that show the model its rejected answer and why."""
    return [
        {"role": "assistant", "content": text},
        {
            "role": "user",
            "content": f"That answer was rejected: {error}\nAnswer again, correcting this.",
        },
    ]

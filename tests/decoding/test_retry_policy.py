"""The retry loop feeds back only verdicts on the model's output; bugs are raised at once.

A verdict: a validator's ``False``/message/``ValueError``/``AssertionError``/Pydantic
``ValidationError``, or a ``BindingError`` (or ``ValueError``) from binding the text. Anything
else (``TypeError``, ``KeyError``, a ``GrammarError`` although it is a ``ValueError``...) is a bug
in typedgen or in the validator, and a retry would only hide it behind ``ValidationFailed``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field, TypeAdapter, field_validator

import typedgen
from tests.decoding.test_loop import SCHEMA
from typedgen.ir import Grammar
from typedgen.models import LoadedModel

Call = Callable[..., Any]


def _call(tiny: LoadedModel, output_type: object, **options: Any) -> Any:
    return typedgen.Generator(output_type, tiny)("a person", max_retries=2, **options)


def _stream(tiny: LoadedModel, output_type: object, **options: Any) -> Any:
    events = list(typedgen.Generator(output_type, tiny).stream("x", max_retries=2, **options))
    return events[-1].value


def _batch(tiny: LoadedModel, output_type: object, **options: Any) -> Any:
    return typedgen.Generator(output_type, tiny).batch(["x", "y"], max_retries=2, **options)[0]


PATHS = [_call, _stream, _batch]


class _Counted:
    """A validator that raises ``error`` every time, counting its calls."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.calls = 0
        self.__name__ = f"raises_{type(error).__name__}"

    def __call__(self, value: object) -> None:
        self.calls += 1
        raise self.error


def _a_grammar_error() -> typedgen.GrammarError:
    try:
        typedgen.grammar_of(typedgen.Lark("start: missing"))
    except typedgen.GrammarError as exc:
        return exc
    raise AssertionError("the grammar should be refused")


def _pydantic_error() -> Exception:
    try:
        TypeAdapter(int).validate_python("not a number")
    except ValueError as exc:
        return exc
    raise AssertionError("pydantic should refuse")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "error",
    [ValueError("too young"), AssertionError("age must be even"), _pydantic_error()],
    ids=["ValueError", "AssertionError", "ValidationError"],
)
def test_validator_verdicts_are_fed_back(
    tiny: LoadedModel, path: Call, error: BaseException
) -> None:
    validator = _Counted(error)
    with pytest.raises(typedgen.ValidationFailed) as failed:
        path(tiny, SCHEMA, validators=[validator])
    attempts = failed.value.attempts
    assert len(attempts) == 3  # the first try and max_retries=2 more, each shown its error
    assert validator.calls >= 3  # batch: the other row's validation counts too
    assert all(a.error and a.error.startswith(type(error).__name__) for a in attempts)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "error",
    [
        TypeError("'<' not supported between 'str' and 'int'"),
        KeyError("nickname"),
        AttributeError("'dict' object has no attribute 'age'"),
        _a_grammar_error(),
        typedgen.OptionError("a typedgen error from the validator's own call"),
    ],
    ids=["TypeError", "KeyError", "AttributeError", "GrammarError", "OptionError"],
)
def test_broken_validators_raise_at_once(
    tiny: LoadedModel, path: Call, error: BaseException
) -> None:
    validator = _Counted(error)
    with pytest.raises(type(error)) as raised:
        path(tiny, SCHEMA, validators=[validator])
    assert raised.value is error
    assert not isinstance(raised.value, typedgen.ValidationFailed)
    assert validator.calls == 1  # never retried
    notes = getattr(raised.value, "__notes__", [])
    assert any("validator raises_" in n and "not retried" in n for n in notes)


class _YesNo:
    """An output type through the protocol hooks whose binder raises what it is given."""

    def __init__(self, error: BaseException | None) -> None:
        self.error = error
        self.calls = 0

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_choice(["yes", "no"])

    def __typedgen_bind__(self, text: str) -> object:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return text == "yes"


@pytest.mark.parametrize(
    "error",
    [typedgen.BindingError("not a valid answer"), ValueError("not a valid answer")],
    ids=["BindingError", "ValueError"],
)
def test_binding_verdicts_are_fed_back(tiny: LoadedModel, error: BaseException) -> None:
    output = _YesNo(error)
    with pytest.raises(typedgen.ValidationFailed) as failed:
        _call(tiny, output)
    assert output.calls == 3
    assert all("not a valid answer" in (a.error or "") for a in failed.value.attempts)


@pytest.mark.parametrize(
    "error",
    [TypeError("binder bug"), _a_grammar_error(), RuntimeError("binder bug")],
    ids=["TypeError", "GrammarError", "RuntimeError"],
)
def test_binding_bugs_raise_at_once(tiny: LoadedModel, error: BaseException) -> None:
    output = _YesNo(error)
    with pytest.raises(type(error)) as raised:
        _call(tiny, output)
    assert raised.value is error and output.calls == 1
    assert any("binding the output to _YesNo" in n for n in raised.value.__notes__)
    assert isinstance(_call(tiny, _YesNo(None)), bool)  # the same type binds when it can


class Buggy(BaseModel):
    name: str = Field(max_length=6)

    @field_validator("name")
    @classmethod
    def compare(cls, value: str) -> str:
        if value < 3:  # type: ignore[operator]  # the bug: str < int is a TypeError
            raise ValueError("too short")
        return value


def test_a_buggy_pydantic_validator_raises_at_once(tiny: LoadedModel) -> None:
    with pytest.raises(TypeError, match="not supported"):
        _call(tiny, Buggy)


class Sums(typedgen.DSL):
    grammar = r"""
    start: NUMBER ("+" NUMBER)~0..2
    NUMBER: /[1-9][0-9]?/
    """

    def start(self, children: list[int]) -> int:
        return sum(children)

    def NUMBER(self, token: str) -> int:
        raise ValueError(f"{token} is not wanted")


class BrokenSums(Sums):
    def NUMBER(self, token: str) -> int:
        return token.nonexistent  # type: ignore[attr-defined,no-any-return]


def test_dsl_method_verdicts_retry_and_bugs_raise(tiny: LoadedModel) -> None:
    with pytest.raises(typedgen.ValidationFailed) as failed:
        _call(tiny, Sums)
    assert len(failed.value.attempts) == 3
    assert all("DSLValueError" in (a.error or "") for a in failed.value.attempts)
    with pytest.raises(AttributeError) as raised:
        _call(tiny, BrokenSums)
    assert any("BrokenSums.NUMBER" in n for n in raised.value.__notes__)

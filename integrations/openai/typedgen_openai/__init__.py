"""Typed results from any OpenAI-compatible server, with typedgen's retry policy.

The server enforces what it can (see ``mode``); the client always binds the answer with
typedgen's binder for the output type (a Pydantic instance, a sqlglot ``Expression``, DSL
objects...) and runs the validators, feeding a rejected answer back as one more turn, up to
``max_retries`` times, as :func:`typedgen.generate` does.

Modes:

- ``"typedgen"`` — a vLLM server with ``typedgen-vllm`` installed: the serialised grammar travels
  in ``vllm_xargs`` and typedgen's engine masks every token (exact).
- ``"vllm-grammar"`` — any vLLM server: the grammar exported as GBNF (xgrammar) or llguidance
  Lark (``backend="guidance"``) in ``structured_outputs``; approximations as in
  ``typedgen_vllm.structured_outputs``.
- ``"json-schema"`` — any server that implements OpenAI's ``response_format`` with
  ``json_schema`` (OpenAI, vLLM, SGLang, llama.cpp's server...): JSON outputs only; the server
  reads the schema its own way.
- ``"none"`` — nothing is sent; the binder and retries alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import typedgen
from typedgen import reasoning as _scratch
from typedgen.errors import IncompleteOutputError, OptionError, ValidationFailed
from typedgen.ir import serial
from typedgen.outputs import binder_for, is_json_output
from typedgen.prompts import Prompt, messages_of
from typedgen.validation import Attempt, Validator, attempt_of, feedback

__all__ = ["Mode", "Result", "generate", "request_options"]

__version__ = "0.1.0"

Mode = Literal["typedgen", "vllm-grammar", "json-schema", "none"]


@dataclass(frozen=True)
class Result:
    """The value with the text it came from and every attempt (``return_details=True``)."""

    value: Any
    text: str
    reasoning: str | None
    attempts: tuple[Attempt, ...]


def _schema_of(output_type: object) -> Any:
    if isinstance(output_type, typedgen.JsonSchema):
        return output_type.schema
    if isinstance(output_type, dict | bool):
        return output_type
    from typedgen.frontends.jsonschema.pydantic import pydantic_schema

    return pydantic_schema(output_type)


def request_options(
    output_type: object,
    mode: Mode = "typedgen",
    *,
    backend: Literal["xgrammar", "guidance"] = "xgrammar",
    reasoning: bool | int = False,
) -> dict[str, Any]:
    """Keyword arguments for ``client.chat.completions.create`` that carry the constraint."""
    grammar = typedgen.grammar_of(output_type)
    if reasoning:
        bound = _scratch.DEFAULT_SCRATCH_CHARS if reasoning is True else int(reasoning)
        grammar = _scratch.with_scratchpad(grammar, bound)
    if mode == "typedgen":
        return {"extra_body": {"vllm_xargs": {"typedgen": serial.dumps(grammar)}}}
    if mode == "vllm-grammar":
        text = grammar.to_gbnf() if backend == "xgrammar" else grammar.to_lark(dialect="llguidance")
        return {"extra_body": {"structured_outputs": {"grammar": text}}}
    if mode == "json-schema":
        if reasoning or not is_json_output(output_type):
            raise OptionError(
                "json-schema mode carries JSON outputs only (no scratchpad)",
                code="option-conflict",
                hint="use mode='typedgen' or 'vllm-grammar' for SQL, DSLs, grammars or reasoning",
            )
        name = re.sub(r"[^A-Za-z0-9_-]", "_", getattr(output_type, "__name__", "output"))[:64]
        schema = {"name": name or "output", "schema": _schema_of(output_type)}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}
    if mode == "none":
        return {}
    raise OptionError(
        f"unknown mode {mode!r}",
        code="option-value",
        hint="use 'typedgen', 'vllm-grammar', 'json-schema' or 'none'",
    )


def generate(
    client: Any,
    output_type: object,
    prompt: Prompt,
    *,
    model: str,
    mode: Mode = "typedgen",
    backend: Literal["xgrammar", "guidance"] = "xgrammar",
    reasoning: bool | int = False,
    validators: Sequence[Validator] = (),
    max_retries: int = 2,
    system: str | None = None,
    return_details: bool = False,
    **create: Any,
) -> Any:
    """A typed value for ``prompt`` from ``client`` (an ``openai.OpenAI``) and ``model``.

    ``create`` goes to ``client.chat.completions.create`` (defaults: ``temperature=0``,
    ``max_tokens=512``). Raises :class:`~typedgen.IncompleteOutputError` when the answer was cut
    at ``max_tokens`` and :class:`~typedgen.ValidationFailed` when every attempt is rejected.
    """
    options = {"temperature": 0, "max_tokens": 512, **create}
    extra = request_options(output_type, mode, backend=backend, reasoning=reasoning)
    if "extra_body" in extra and "extra_body" in options:
        extra["extra_body"] = {**options.pop("extra_body"), **extra["extra_body"]}
    options.update(extra)
    bind = binder_for(output_type)
    messages = messages_of(prompt, system)
    attempts: list[Attempt] = []
    while True:
        response = client.chat.completions.create(model=model, messages=messages, **options)
        choice = response.choices[0]
        text = choice.message.content or ""
        if choice.finish_reason == "length":
            raise IncompleteOutputError(
                "max_tokens ran out before the output was complete",
                partial_text=text,
                hint="raise max_tokens, or ask for a shorter answer",
            )
        attempt = attempt_of(bind, output_type, text, reasoning, validators)
        attempts.append(attempt)
        if attempt.ok:
            result = Result(attempt.value, text, attempt.reasoning, tuple(attempts))
            return result if return_details else result.value
        if len(attempts) > max_retries:
            raise ValidationFailed(
                f"{len(attempts)} attempt(s) failed validation; last error: {attempt.error}",
                attempts=attempts,
                hint="raise max_retries, relax the validator, or use a constraining mode",
            )
        messages = messages + feedback(text, attempt.error or "")

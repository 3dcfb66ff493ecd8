"""Decoded text -> typed objects.

Output types bind through a protocol, ``__typedgen_bind__(text) -> object`` (the markers and DSL
classes implement it), then a short registry: Pydantic types validate the JSON (their validators
run here), raw JSON Schema dicts are parsed and checked by ``jsonschema``, and plain grammars
return the text. A binder raises :class:`BindingError` (or the validator's own error) when the
text, although in the grammar's language, is not a valid value; the retry policy feeds that
error back to the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from typedgen.errors import BindingError
from typedgen.ir.grammar import Grammar

__all__ = [
    "BINDINGS",
    "Binder",
    "Binding",
    "BindingError",
    "binder_for",
    "is_json_output",
    "schema_binder",
]

Binder = Callable[[str], object]


@dataclass(frozen=True)
class Binding:
    """A family of output types and how text becomes their values."""

    name: str
    accepts: Callable[[object], bool]
    binder: Callable[[object], Binder]
    json: bool = False
    """Whether the text is JSON (streaming then offers partial objects)."""


def schema_binder(schema: object) -> Binder:
    """Parse JSON text and check it against ``schema`` with ``jsonschema``."""

    def bind(text: str) -> object:
        value = json.loads(text)
        try:
            import jsonschema
        except ImportError:  # pragma: no cover - jsonschema is a dependency
            return value
        cls: Any = jsonschema.validators.validator_for(schema)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            raise BindingError(
                f"the value fails the JSON Schema at '/{where}': {error.message}",
                code="schema-validation",
            )
        return value

    return bind


def _pydantic_binder(output_type: object) -> Binder:
    from pydantic import BaseModel, TypeAdapter

    if isinstance(output_type, type) and issubclass(output_type, BaseModel):
        return output_type.model_validate_json
    adapter: Any = TypeAdapter(output_type)  # type: ignore[arg-type]
    validate: Binder = adapter.validate_json
    return validate


def _accepts_schema(output_type: object) -> bool:
    return isinstance(output_type, dict | bool)


def _accepts_pydantic(output_type: object) -> bool:
    from typedgen.frontends.jsonschema.pydantic import accepts_pydantic

    return accepts_pydantic(output_type)


BINDINGS: list[Binding] = [
    Binding("json-schema", _accepts_schema, schema_binder, json=True),
    Binding("pydantic", _accepts_pydantic, _pydantic_binder, json=True),
]
"""Consulted in order after the ``__typedgen_bind__`` hook; text is returned as ``str`` else."""


def _text(text: str) -> object:
    return text


def binder_for(output_type: object) -> Binder:
    """How decoded text becomes a value of ``output_type``."""
    if isinstance(output_type, Grammar):
        return _text
    hook = getattr(output_type, "__typedgen_bind__", None)
    if callable(hook):
        bind: Binder = hook
        return bind
    for binding in BINDINGS:
        if binding.accepts(output_type):
            return binding.binder(output_type)
    return _text


def is_json_output(output_type: object) -> bool:
    """Whether ``output_type`` is generated as JSON (Pydantic types and JSON Schema dicts)."""
    if getattr(output_type, "__typedgen_json__", False):
        return True
    if isinstance(output_type, Grammar) or hasattr(output_type, "__typedgen_bind__"):
        return False
    return any(b.json and b.accepts(output_type) for b in BINDINGS)

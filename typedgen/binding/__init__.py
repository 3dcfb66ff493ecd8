"""Decoded text -> typed objects: the binders the output adapters hand out.

Which binder an output type gets is its adapter's choice (:mod:`typedgen.outputs`): Pydantic
types validate the JSON (their validators run here), raw JSON Schema dicts are parsed and
checked by ``jsonschema``, SQL is parsed by sqlglot (:mod:`typedgen.binding.sql`), and plain
grammars return the text. A binder raises :class:`BindingError` (or the validator's own error)
when the text, although in the grammar's language, is not a valid value; the retry policy feeds
that error back to the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from typedgen.errors import BindingError

__all__ = ["Binder", "BindingError", "pydantic_binder", "schema_binder"]

Binder = Callable[[str], object]


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
            failure = BindingError(
                f"the value fails the JSON Schema at '/{where}': {error.message}",
                code="schema-validation",
            )
            failure.json_path = tuple(error.absolute_path)  # type: ignore[attr-defined]  # repair
            raise failure
        return value

    return bind


def pydantic_binder(output_type: object) -> Binder:
    """Pydantic's JSON validation for a model or any ``TypeAdapter``-able type."""
    from pydantic import BaseModel, TypeAdapter

    if isinstance(output_type, type) and issubclass(output_type, BaseModel):
        return output_type.model_validate_json
    adapter: Any = TypeAdapter(output_type)  # type: ignore[arg-type]
    validate: Binder = adapter.validate_json
    return validate

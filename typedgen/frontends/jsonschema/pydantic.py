"""Pydantic models and ``TypeAdapter``-able types, through their JSON Schema, to the IR.

Pydantic writes the schema (``TypeAdapter(tp).json_schema(mode="validation")``); three
adjustments make it a better generation target without loosening validation:

- objects that came from models without ``extra="allow"`` get ``additionalProperties: false``
  (extra keys would be ignored by Pydantic, so generating them only wastes tokens);
- a discriminated union's tag property is required in every branch (Pydantic needs it anyway),
  which also makes the ``oneOf`` provably disjoint;
- ``typedgen.Reasoning`` fields are moved to the front, so the model thinks before it commits.

``uniqueItems`` (``set``, ``frozenset``) and formats the grammar does not know are left to
Pydantic's own validation, which runs when the text is bound to the type.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Annotated, Any

from typedgen.errors import OptionError, SchemaError

__all__ = [
    "DEFAULT_REASONING_CHARS",
    "REASONING_KEY",
    "Reasoning",
    "ReasoningLimit",
    "accepts_pydantic",
    "pydantic_schema",
]

REASONING_KEY = "x-typedgen-reasoning"
DEFAULT_REASONING_CHARS = 1000


class ReasoningLimit:
    """The bound of a :class:`Reasoning` field, in characters (``Reasoning[2000]``)."""

    __slots__ = ("max_chars",)

    def __init__(self, max_chars: int) -> None:
        if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
            raise OptionError(
                f"Reasoning needs a positive character bound, not {max_chars!r}",
                code="reasoning-bound",
                hint="write Reasoning (1000 characters) or Reasoning[n] with an int n >= 1",
            )
        self.max_chars = max_chars

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = dict(handler(core_schema))
        schema.update({"type": "string", "maxLength": self.max_chars, REASONING_KEY: True})
        return schema

    def __repr__(self) -> str:
        return f"ReasoningLimit({self.max_chars})"


class Reasoning(str):
    """A bounded free-text field the model writes first, before the structured fields.

    ``reasoning: typedgen.Reasoning`` allows up to 1000 characters; ``typedgen.Reasoning[4000]``
    sets another bound. The value is a plain ``str``.
    """

    __slots__ = ()

    def __class_getitem__(cls, max_chars: int) -> Any:
        return Annotated[str, ReasoningLimit(max_chars)]

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.str_schema(max_length=DEFAULT_REASONING_CHARS)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = dict(handler(core_schema))
        schema[REASONING_KEY] = True
        return schema


def accepts_pydantic(output_type: object) -> bool:
    """Whether ``output_type`` looks like something Pydantic builds a schema for."""
    if isinstance(output_type, type):
        if issubclass(output_type, enum.Enum) or output_type in (int, float, str, bool):
            return True
        return bool(
            hasattr(output_type, "model_json_schema")
            or hasattr(output_type, "__dataclass_fields__")
            or typing.is_typeddict(output_type)
            or hasattr(output_type, "__pydantic_core_schema__")
        )
    return typing.get_origin(output_type) is not None or isinstance(output_type, types.UnionType)


def _model_objects(schema: Any) -> None:
    """Close model objects to extra keys; put reasoning fields first."""
    if isinstance(schema, list):
        for item in schema:
            _model_objects(item)
        return
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        if "additionalProperties" not in schema and schema.get("type") == "object":
            schema["additionalProperties"] = False
        first = [k for k, v in props.items() if isinstance(v, dict) and v.get(REASONING_KEY)]
        if first:
            schema["properties"] = {
                **{k: props[k] for k in first},
                **{k: v for k, v in props.items() if k not in first},
            }
    disc = schema.get("discriminator")
    if isinstance(disc, dict) and isinstance(disc.get("propertyName"), str):
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list):
                name = disc["propertyName"]
                schema[key] = [{"allOf": [b], "required": [name]} for b in schema[key]]
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(value, dict):
                for sub in value.values():
                    _model_objects(sub)
        elif key not in ("enum", "const", "default", "examples"):
            _model_objects(value)


def pydantic_schema(output_type: object) -> dict[str, Any]:
    """The validation JSON Schema Pydantic gives ``output_type``, adjusted for generation."""
    from pydantic import TypeAdapter
    from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

    name = getattr(output_type, "__name__", None) or repr(output_type)
    try:
        adapter: Any = TypeAdapter(output_type)  # type: ignore[arg-type]
        schema: dict[str, Any] = adapter.json_schema(mode="validation")
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise SchemaError(
            f"Pydantic cannot build a JSON Schema for {name}: {exc}",
            keyword="type",
            path="#",
            code="schema-pydantic",
            hint="use types Pydantic can serialise, or pass a JSON Schema dict",
        ) from None
    _model_objects(schema)
    return schema

"""``typedgen.explain(output_type)``: how each constraint of a declaration is honoured.

The verdicts come from the JSON Schema lowering run in explain mode; what it says of a keyword
without an effect (annotations, unknown keywords) or refused outright is the keyword registry's
entry (:mod:`typedgen.frontends.jsonschema.keywords`), the same one docs/json-schema.md is
written from, and tests hold every verdict to the registry's status for that keyword.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from typedgen.frontends.jsonschema.lower import Verdict, lower_schema
from typedgen.frontends.jsonschema.pydantic import pydantic_schema
from typedgen.outputs import adapter_for
from typedgen.types import JsonSchema

__all__ = ["Explanation", "explain"]

_LABELS = {
    "grammar": "enforced by the grammar",
    "validator": "checked after decoding",
    "refused": "REFUSED",
    "ignored": "ignored (no constraint)",
}


@dataclass(frozen=True)
class Explanation:
    """Every schema node's keywords with their fate: grammar, validator, refused or ignored."""

    subject: str
    verdicts: tuple[Verdict, ...]

    @property
    def refused(self) -> list[Verdict]:
        """The keywords strict mode refuses (compiling raises on the first of them)."""
        return [v for v in self.verdicts if v.status == "refused"]

    @property
    def deferred(self) -> list[Verdict]:
        """The keywords left to a validator after decoding."""
        return [v for v in self.verdicts if v.status == "validator"]

    def __str__(self) -> str:
        lines = [f"{self.subject}:"]
        seen: set[tuple[str, str, str]] = set()
        width = max((len(v.path) for v in self.verdicts), default=1)
        for v in self.verdicts:
            key = (v.path, v.keyword, v.status)
            if key in seen:
                continue
            seen.add(key)
            detail = f" ({v.detail})" if v.detail else ""
            lines.append(f"  {v.path:<{width}}  {v.keyword}: {_LABELS[v.status]}{detail}")
        return "\n".join(lines)


def _schema_of(output_type: object) -> tuple[Any, str | None, str, dict[str, Any]] | None:
    """(schema, validator, name, lowering options) as ``generate`` lowers ``output_type``."""
    kind = adapter_for(output_type).name
    if kind == "json-schema":  # a plain schema generates as JsonSchema(schema)
        output_type = JsonSchema(output_type)
    if isinstance(output_type, JsonSchema):
        options = {
            "spellings": output_type.spellings,
            "key_order": output_type.key_order,
            "formats": output_type.formats,
            "extra_keys": output_type.extra_keys,
            "whitespace": output_type.whitespace,
        }
        return output_type.schema, None, "JSON Schema", options
    if kind == "pydantic":
        name = getattr(output_type, "__name__", None) or repr(output_type)
        return pydantic_schema(output_type), "Pydantic", name, {"spellings": "canonical"}
    return None


def explain(output_type: object) -> Explanation:
    """For every schema node of ``output_type``: enforced, checked after decoding, or refused.

    Unlike compiling, this never stops at the first refusal: it lists them all. A malformed
    schema raises :class:`~typedgen.errors.SchemaError`, as compiling does. Grammar-text output
    types (Lark, GBNF, regex, choice) are enforced by their grammar in full.
    """
    found = _schema_of(output_type)
    if found is None:
        grammar = adapter_for(output_type).grammar(output_type)
        whole = Verdict("#", "grammar", "grammar", f"{len(grammar)} rules, exactly")
        return Explanation(type(output_type).__name__, (whole,))
    schema, validator, name, options = found
    lowered = lower_schema(schema, explain=True, validator=validator, source=name, **options)
    return Explanation(name, tuple(lowered.verdicts))

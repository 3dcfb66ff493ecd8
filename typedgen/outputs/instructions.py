"""The expected output, described for the model in a few lines (the adapters' instructions).

A constrained model learns the shape only from the mask unless the prompt says it; small models
write better values when they are told (JSONSchemaBench; dottxt's "Say What You Mean"). Each
adapter describes its kind with these helpers; :data:`LIMIT` bounds the text so that a huge
schema cannot flood a small model's context:

- a JSON Schema longer than the bound loses its annotations first (``title``, ``description``,
  ``examples``, ``default``, ``$comment``), and is then cut;
- any other text keeps whole lines while they fit; the rest is replaced by one line saying how
  many characters were cut (the choices after the last one shown, the tables after the last
  ``CREATE TABLE`` shown, the examples after the last one shown).

The output is constrained to the whole type either way; only the description is shortened.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from typing import Any

__all__ = [
    "LIMIT",
    "bounded",
    "described",
    "docstring",
    "json_instructions",
    "leading_comment",
    "options_instructions",
]

LIMIT = 3000
"""Characters: roughly 750-1000 tokens of SmolLM2's tokenizer, an eighth of its context."""

_ANNOTATIONS = frozenset({"title", "description", "examples", "default", "$comment"})
_NOISE = frozenset({"$schema", "$id"})
_FIRST = ("title", "description", "type")


def bounded(text: str, limit: int = LIMIT) -> str:
    """``text`` in at most ``limit`` characters, then a line saying how much is cut.

    Whole lines are kept while they fit (a list stays a list of whole items); when that leaves
    less than half the room used (a long line, such as a one-line JSON Schema), the next line
    is cut inside.
    """
    if len(text) <= limit:
        return text
    room = limit - len(_cut_note(len(text))) - 1  # the note's count only shrinks from here
    used = start = 0  # text[:used] is whole lines
    for line in text.split("\n"):
        if start + len(line) > room:
            break
        used = start + len(line)
        start = used + 1
    if used < room // 2:
        used = room
    return f"{text[:used]}\n{_cut_note(len(text) - used)}"


def _cut_note(characters: int) -> str:
    return f"... ({characters} more characters not shown)"


def json_instructions(schema: object, limit: int = LIMIT) -> str:
    """The JSON Schema in one compact line, with titles, descriptions and enum values."""
    head = "Answer with JSON that follows this JSON Schema:\n"
    if schema is True or schema == {}:
        return "Answer with one JSON value."
    full = head + _dumps(_compact(schema, keep_annotations=True))
    if len(full) <= limit:
        return full
    lean = head + _dumps(_compact(schema, keep_annotations=False))
    return bounded(lean, limit)


def _dumps(schema: object) -> str:
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False, default=str)


def _compact(node: Any, *, keep_annotations: bool, name: str | None = None) -> Any:
    """``node`` without what a model need not read: typedgen's own ``x-`` keys, ``$schema``,
    ``additionalProperties: false`` and titles that only repeat a property's name."""
    if isinstance(node, list):
        return [_compact(item, keep_annotations=keep_annotations) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if not isinstance(key, str):
            out[key] = value
        elif key in _NOISE or key.startswith("x-"):
            continue
        elif key in _ANNOTATIONS and not keep_annotations:
            continue
        elif key == "additionalProperties" and value is False:
            continue
        elif key == "title" and name is not None and _repeats(value, name):
            continue
        elif key in ("properties", "$defs", "definitions", "patternProperties"):
            if isinstance(value, dict):
                out[key] = {
                    k: _compact(v, keep_annotations=keep_annotations, name=str(k))
                    for k, v in value.items()
                }
            else:
                out[key] = value
        elif key in ("enum", "const", "default", "examples"):
            out[key] = value
        else:
            out[key] = _compact(value, keep_annotations=keep_annotations)
    first = {k: out.pop(k) for k in _FIRST if k in out}
    return {**first, **out}


def _repeats(title: object, name: str) -> bool:
    """Pydantic's automatic title (``population_millions`` -> ``Population Millions``)."""
    if not isinstance(title, str):
        return False
    plain = name.replace("_", " ").strip().lower()
    return title.strip().lower() in (plain, name.lower())


def options_instructions(options: Sequence[str], limit: int = LIMIT) -> str:
    """Exactly one of ``options``, one per line (JSON-quoted when one needs it)."""
    quote = any(o != o.strip() or "\n" in o or not o for o in options)
    shown = [json.dumps(o, ensure_ascii=False) if quote else o for o in options]
    return bounded("Answer with exactly one of these options:\n" + "\n".join(shown), limit)


def described(
    header: str | None, doc: str | None, examples: Sequence[str], limit: int = LIMIT
) -> str | None:
    """A header line, a description and examples (``None`` when there is no doc and no example)."""
    if not doc and not examples:
        return None
    parts = [p for p in (header, doc) if p]
    parts.extend(f"Example:\n{example}" for example in examples)
    return bounded("\n\n".join(parts), limit)


def leading_comment(text: str, marker: str) -> str | None:
    """The first paragraph of a grammar's leading comment (its docstring, as it were)."""
    lines: list[str] = []
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        if not line and not lines:
            continue
        if not line.startswith(marker):
            break
        body = line[len(marker) :].strip()
        if not body:
            if lines:
                break
            continue
        lines.append(body)
    return " ".join(lines) or None


def docstring(cls: type, stop: type) -> str | None:
    """The nearest docstring of ``cls`` or a base class below ``stop`` (not ``stop``'s own)."""
    for klass in cls.__mro__:
        if klass is stop or klass is object:
            return None
        doc = vars(klass).get("__doc__")
        if isinstance(doc, str) and doc.strip():
            return inspect.cleandoc(doc)
    return None

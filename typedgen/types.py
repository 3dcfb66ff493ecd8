"""Output-type markers: ``Lark``, ``Gbnf``, ``Regex``, ``Choice``, ``JsonSchema``.

They are plain data: what each means (its grammar, binder, instructions for the prompt...) is
its adapter's business, in :mod:`typedgen.outputs` (docs/internals/architecture.md section 4).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typedgen.errors import OptionError

__all__ = [
    "Choice",
    "EnumWords",
    "Gbnf",
    "JsonSchema",
    "Lark",
    "Regex",
    "examples_of",
    "read_grammar",
]


def examples_of(examples: object, where: str) -> tuple[str, ...]:
    """``examples`` as a tuple of strings, or an error naming ``where``."""
    if isinstance(examples, str | bytes) or not isinstance(examples, Iterable):
        raise OptionError(
            f"{where}: examples must be a list of strings, not {type(examples).__name__}",
            code="output-examples",
            hint='pass e.g. examples=["move 3; turn left"] (a one-element list for one example)',
        )
    found = tuple(examples)
    wrong = [e for e in found if not isinstance(e, str)]
    if wrong:
        raise OptionError(
            f"{where}: examples must be strings, not {type(wrong[0]).__name__}",
            code="output-examples",
            hint="write each example as the text the model should produce",
        )
    return found


def read_grammar(text_or_path: str | Path) -> tuple[str, str]:
    """A grammar's text and the source name its errors cite."""
    if isinstance(text_or_path, Path):
        return text_or_path.read_text(encoding="utf-8"), str(text_or_path)
    return text_or_path, "<text>"


@dataclass(frozen=True)
class Lark:
    """A Lark grammar (text, or a ``Path`` to a ``.lark`` file) as an output type.

    The value is the generated text, or with ``tree=True`` the ``lark.Tree`` that lark's own
    Earley parser builds from it (an independent check that the text is in the language).
    ``examples`` (texts of the language) are shown to the model with the first paragraph of the
    grammar's leading ``//`` comment (see docs/generation.md, "Instructions").
    """

    grammar: str | Path
    start: str = "start"
    lexer: str = "contextual"
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    tree: bool = False
    examples: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "examples", examples_of(self.examples, "Lark"))


@dataclass(frozen=True)
class Gbnf:
    """A llama.cpp GBNF grammar (text or ``Path``) as an output type.

    ``examples`` are shown to the model with the first paragraph of the leading ``#`` comment.
    """

    grammar: str | Path
    start: str = "root"
    examples: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "examples", examples_of(self.examples, "Gbnf"))


@dataclass(frozen=True)
class Regex:
    """Text fully matched by a Python regular expression (``examples`` are shown to the model)."""

    pattern: str
    flags: int = 0
    examples: Sequence[str] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "examples", examples_of(self.examples, "Regex"))


@dataclass(frozen=True, init=False)
class Choice:
    """Exactly one of the given strings."""

    options: tuple[str, ...]

    def __init__(self, *options: str | Sequence[str]) -> None:
        flat: list[str] = []
        for option in options:
            if isinstance(option, str):
                flat.append(option)
            else:
                flat.extend(option)
        object.__setattr__(self, "options", tuple(flat))


@dataclass(frozen=True, eq=False)
class JsonSchema:
    """A JSON Schema with lowering options; the value is the parsed JSON, checked by ``jsonschema``.

    ``strict=False`` leaves keywords the grammar cannot enforce (``uniqueItems``...) to that
    check, so a violating output is retried with the error fed back instead of being refused at
    compile time. A plain schema ``dict`` is ``JsonSchema(schema)``. ``spellings`` is
    ``"canonical"`` here (one conventional text per value: what a model should write and every
    parser reads alike), where ``Grammar.from_json_schema`` defaults to ``"all"``; likewise
    ``extra_keys`` is ``"declared"`` here (an object that declares properties and says nothing of
    others takes only the declared ones; ``"schema"`` allows others as JSON Schema does);
    ``key_order`` and ``formats`` are as there (see docs/json-schema.md).
    """

    schema: Any
    strict: bool = True
    whitespace: str = "compact"
    spellings: str = "canonical"
    key_order: str = "schema"
    formats: str = "assert"
    extra_keys: str = "declared"


@dataclass(frozen=True)
class EnumWords:
    """An ``Enum`` class as the bare words of its values (a DSL embed); binds to the member."""

    enum: type[enum.Enum]

    def words(self) -> tuple[str, ...]:
        return tuple(str(member.value) for member in self.enum)

"""The typedgen error tree.

Every error carries a stable ``code``, the ``origin`` of the offending place (a grammar line and
column, a schema path, a SQL dialect rule) when one is known, and a ``hint`` saying what to do::

    TypedgenError
     ├── GrammarError          bad grammar text or IR (syntax, undefined rule, empty language, ...)
     │    ├── UnsupportedFeatureError   a construct typedgen refuses explicitly
     │    └── SchemaError               a JSON Schema keyword is malformed or refused
     │         └── UnsupportedSchemaError   (also an UnsupportedFeatureError)
     ├── CompileError          the grammar cannot be compiled (budget exceeded, lexer too large)
     │    └── CompileBudgetError
     ├── VocabularyError       a tokenizer cannot be turned into exact token bytes
     └── GenerationError       decoding did not produce a valid result; carries the partial text
          ├── DecodeError            the grammar allowed no token (a dead end; an engine bug)
          ├── IncompleteOutputError  max_tokens ran out before the grammar could finish
          └── ValidationFailed       every attempt failed a semantic validator

Errors that stem from bad user input also subclass :class:`ValueError`, so existing ``except``
clauses keep working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typedgen.ir.origin import Origin

__all__ = [
    "CompileBudgetError",
    "CompileError",
    "DecodeError",
    "GenerationError",
    "GrammarError",
    "IncompleteOutputError",
    "SchemaError",
    "TypedgenError",
    "UnsupportedFeatureError",
    "UnsupportedSchemaError",
    "ValidationFailed",
    "VocabularyError",
]


class TypedgenError(Exception):
    """Base class of every error typedgen raises on purpose."""

    default_code = "typedgen-error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        origin: Origin | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.code = code or self.default_code
        self.origin = origin
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.origin}: " if self.origin is not None else ""
        text = f"{where}{self.message} [{self.code}]"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class GrammarError(TypedgenError, ValueError):
    """The grammar (text or IR) is malformed: syntax, undefined or empty rules, bad ranges."""

    default_code = "grammar"


class UnsupportedFeatureError(GrammarError):
    """A construct that typedgen refuses explicitly rather than dropping silently."""

    default_code = "unsupported"


class CompileError(TypedgenError):
    """A valid grammar could not be compiled for a vocabulary."""

    default_code = "compile"


class CompileBudgetError(CompileError):
    """Compilation stopped because a stated budget (states, rules, time) ran out."""

    default_code = "compile-budget"


class VocabularyError(TypedgenError, ValueError):
    """A tokenizer's tokens cannot be mapped to exact bytes."""

    default_code = "vocabulary"


class SchemaError(GrammarError):
    """A JSON Schema (or Pydantic type) cannot be lowered: names the keyword and the schema path."""

    default_code = "schema"

    def __init__(
        self,
        message: str,
        *,
        keyword: str,
        path: str,
        code: str | None = None,
        origin: Origin | None = None,
        hint: str | None = None,
    ) -> None:
        self.keyword = keyword
        self.path = path
        super().__init__(message, code=code, origin=origin, hint=hint)


class UnsupportedSchemaError(SchemaError, UnsupportedFeatureError):
    """A JSON Schema keyword that typedgen cannot enforce exactly, refused in strict mode."""

    default_code = "schema-unsupported"


class GenerationError(TypedgenError):
    """Decoding did not produce a valid result; ``partial_text`` is what was generated."""

    default_code = "generation"

    def __init__(
        self,
        message: str,
        *,
        partial_text: str = "",
        code: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.partial_text = partial_text
        super().__init__(message, code=code, hint=hint)


class DecodeError(GenerationError):
    """The grammar allowed no next token although the text was not complete (a dead end)."""

    default_code = "dead-end"


class IncompleteOutputError(GenerationError):
    """``max_tokens`` ran out before the text was a full sentence of the grammar.

    ``expected`` describes what the grammar still allows next (the bytes it accepts).
    """

    default_code = "max-tokens"

    def __init__(
        self,
        message: str,
        *,
        partial_text: str = "",
        expected: str = "",
        hint: str | None = None,
    ) -> None:
        self.expected = expected
        super().__init__(message, partial_text=partial_text, hint=hint)


class ValidationFailed(GenerationError):
    """Every attempt decoded validly but failed a semantic validator.

    ``attempts`` holds each attempt (its text and error), oldest first.
    """

    default_code = "validation-failed"

    def __init__(self, message: str, *, attempts: list[Any], hint: str | None = None) -> None:
        self.attempts = list(attempts)
        last = self.attempts[-1].text if self.attempts else ""
        super().__init__(message, partial_text=last, hint=hint)

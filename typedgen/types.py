"""Output-type markers for grammars given as text: ``Lark``, ``Gbnf``, ``Regex``, ``Choice``.

Each marker knows its grammar through ``__typedgen_grammar__()``, the protocol every output type
may implement (the analogue of pydantic's ``__get_pydantic_core_schema__``), so
:func:`typedgen.grammar_of` needs no ``if/elif`` over types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from typedgen.errors import GrammarError
from typedgen.ir.grammar import Grammar

__all__ = [
    "OUTPUT_KINDS",
    "Choice",
    "Gbnf",
    "GrammarSource",
    "JsonSchema",
    "Lark",
    "OutputKind",
    "Regex",
    "grammar_of",
]


@runtime_checkable
class GrammarSource(Protocol):
    """Anything that can state its own grammar."""

    def __typedgen_grammar__(self) -> Grammar: ...


def _read(text_or_path: str | Path) -> tuple[str, str]:
    if isinstance(text_or_path, Path):
        return text_or_path.read_text(encoding="utf-8"), str(text_or_path)
    return text_or_path, "<text>"


@dataclass(frozen=True)
class Lark:
    """A Lark grammar (text, or a ``Path`` to a ``.lark`` file) as an output type.

    The value is the generated text, or with ``tree=True`` the ``lark.Tree`` that lark's own
    Earley parser builds from it (an independent check that the text is in the language).
    """

    grammar: str | Path
    start: str = "start"
    lexer: str = "contextual"
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    tree: bool = False

    def __typedgen_bind__(self, text: str) -> object:
        if not self.tree:
            return text
        import lark

        source, _ = _read(self.grammar)
        extra: dict[str, Any] = {}
        if isinstance(self.grammar, Path):
            extra["import_paths"] = [self.grammar.parent]
        parser = lark.Lark(source, start=self.start, parser="earley", **extra)
        return parser.parse(text)

    def __typedgen_grammar__(self) -> Grammar:
        text, source = _read(self.grammar)
        options = dict(self.options)
        if isinstance(self.grammar, Path):
            options.setdefault("import_paths", [self.grammar.parent])
        return Grammar.from_lark(text, start=self.start, lexer=self.lexer, source=source, **options)


@dataclass(frozen=True)
class Gbnf:
    """A llama.cpp GBNF grammar (text or ``Path``) as an output type."""

    grammar: str | Path
    start: str = "root"

    def __typedgen_grammar__(self) -> Grammar:
        text, source = _read(self.grammar)
        return Grammar.from_gbnf(text, start=self.start, source=source)


@dataclass(frozen=True)
class Regex:
    """Text fully matched by a Python regular expression."""

    pattern: str
    flags: int = 0

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_regex(self.pattern, flags=self.flags)


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

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_choice(self.options)


@dataclass(frozen=True, eq=False)
class JsonSchema:
    """A JSON Schema with lowering options; the value is the parsed JSON, checked by ``jsonschema``.

    ``strict=False`` leaves keywords the grammar cannot enforce (``uniqueItems``...) to that
    check, so a violating output is retried with the error fed back instead of being refused at
    compile time. A plain schema ``dict`` is ``JsonSchema(schema)``. ``spellings`` is
    ``"canonical"`` here (one conventional text per value: what a model should write and every
    parser reads alike), where ``Grammar.from_json_schema`` defaults to ``"all"``; ``key_order``
    and ``formats`` are as there (see docs/json-schema.md).
    """

    schema: Any
    strict: bool = True
    whitespace: str = "compact"
    spellings: str = "canonical"
    key_order: str = "schema"
    formats: str = "assert"
    __typedgen_json__ = True

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_json_schema(
            self.schema,
            strict=self.strict,
            whitespace=self.whitespace,
            spellings=self.spellings,
            key_order=self.key_order,
            formats=self.formats,
        )

    def __typedgen_bind__(self, text: str) -> object:
        from typedgen.binding import schema_binder

        return schema_binder(self.schema)(text)


@dataclass(frozen=True)
class OutputKind:
    """A family of output types that are not markers: how to recognise and lower them."""

    name: str
    accepts: Callable[[object], bool]
    grammar: Callable[[object], Grammar]


def _is_schema(output_type: object) -> bool:
    return isinstance(output_type, dict | bool)


def _schema_grammar(output_type: object) -> Grammar:
    return JsonSchema(output_type).__typedgen_grammar__()


def _pydantic_accepts(output_type: object) -> bool:
    from typedgen.frontends.jsonschema.pydantic import accepts_pydantic

    return accepts_pydantic(output_type)


def _pydantic_grammar(output_type: object) -> Grammar:
    from typedgen.frontends.jsonschema.lower import lower_schema
    from typedgen.frontends.jsonschema.pydantic import pydantic_schema

    name = getattr(output_type, "__name__", None) or repr(output_type)
    lowered = lower_schema(
        pydantic_schema(output_type), source=name, validator="Pydantic", spellings="canonical"
    )
    assert lowered.grammar is not None
    return lowered.grammar


OUTPUT_KINDS: list[OutputKind] = [
    OutputKind("json-schema", _is_schema, _schema_grammar),
    OutputKind("pydantic", _pydantic_accepts, _pydantic_grammar),
]
"""Consulted in order by :func:`grammar_of` after the ``__typedgen_grammar__`` hook."""


def grammar_of(output_type: object) -> Grammar:
    """The IR grammar of an output type; no model or vocabulary needed.

    Grammars, objects with ``__typedgen_grammar__`` (``Lark``, ``Gbnf``, ``Regex``, ``Choice``,
    ``Sql``...), JSON Schema dicts, and Pydantic models or ``TypeAdapter``-able types
    (``Literal``, ``Enum``, ``list[...]``, ``Annotated[...]``).
    """
    if isinstance(output_type, Grammar):
        return output_type
    hook = getattr(output_type, "__typedgen_grammar__", None)
    if callable(hook):
        grammar = hook()
        if not isinstance(grammar, Grammar):
            raise GrammarError(
                f"{type(output_type).__name__}.__typedgen_grammar__ returned"
                f" {type(grammar).__name__}, not a typedgen.ir.Grammar",
                code="output-type-hook",
                hint="return a typedgen.ir.Grammar, e.g. Grammar.from_lark(text)",
            )
        return grammar
    for kind in OUTPUT_KINDS:
        if kind.accepts(output_type):
            return kind.grammar(output_type)
    if isinstance(output_type, str):
        raise GrammarError(
            "a bare string is ambiguous as an output type",
            code="ambiguous-output-type",
            hint="wrap it: typedgen.Lark(text), typedgen.Gbnf(text), typedgen.Regex(pattern)"
            " or typedgen.Choice(...)",
        )
    raise GrammarError(
        f"cannot derive a grammar from {output_type!r}",
        code="unsupported-output-type",
        hint="pass a Pydantic model or type, a JSON Schema dict, a typedgen.ir.Grammar,"
        " Lark(...), Gbnf(...), Regex(...), Choice(...), or an object with"
        " __typedgen_grammar__()",
    )

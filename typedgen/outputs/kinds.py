"""The built-in adapters: one per kind of output type typedgen knows.

Each answers every facet of :class:`~typedgen.outputs.adapter.OutputAdapter` for its kind, so
what a kind means lives in one class (docs/internals/architecture.md section 4). The order the
registry consults them in is :data:`BUILTIN`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typedgen.binding import Binder, BindingError, pydantic_binder, schema_binder
from typedgen.errors import GrammarError
from typedgen.frontends.sql.spec import Sql, sql_grammar
from typedgen.ir.grammar import Grammar
from typedgen.outputs import instructions as text
from typedgen.outputs.adapter import OutputAdapter, text_binder
from typedgen.outputs.fragment import Fragment, choice_pattern, regex_pattern
from typedgen.types import (
    Choice,
    EnumWords,
    Gbnf,
    JsonSchema,
    Lark,
    Regex,
    examples_of,
    read_grammar,
)

__all__ = [
    "BUILTIN",
    "ChoiceAdapter",
    "EnumWordsAdapter",
    "GbnfAdapter",
    "GrammarAdapter",
    "HookAdapter",
    "JsonSchemaAdapter",
    "LarkAdapter",
    "PydanticAdapter",
    "RegexAdapter",
    "SchemaDictAdapter",
    "SqlAdapter",
]


class GrammarAdapter(OutputAdapter):
    """A ``typedgen.ir.Grammar`` itself: the value is the text."""

    name = "grammar"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Grammar)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Grammar)
        return output_type


# -- grammar text ---------------------------------------------------------------------------------


class LarkAdapter(OutputAdapter):
    """``Lark(...)``: the text, or lark's own tree of it (``tree=True``)."""

    name = "lark"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Lark)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Lark)
        source_text, source = read_grammar(output_type.grammar)
        options = dict(output_type.options)
        if isinstance(output_type.grammar, Path):
            options.setdefault("import_paths", [output_type.grammar.parent])
        return Grammar.from_lark(
            source_text,
            start=output_type.start,
            lexer=output_type.lexer,
            source=source,
            **options,
        )

    def binder(self, output_type: object) -> Binder:
        assert isinstance(output_type, Lark)
        if not output_type.tree:
            return text_binder
        marker = output_type

        def bind(value_text: str) -> object:
            import lark

            source_text, _ = read_grammar(marker.grammar)
            extra: dict[str, Any] = {}
            if isinstance(marker.grammar, Path):
                extra["import_paths"] = [marker.grammar.parent]
            parser = lark.Lark(source_text, start=marker.start, parser="earley", **extra)
            return parser.parse(value_text)

        return bind

    def fragment(
        self, output_type: object, module_prefix: str, grammar: Callable[[], Grammar]
    ) -> Fragment:
        assert isinstance(output_type, Lark)
        if isinstance(output_type.grammar, Path):
            source_text = output_type.grammar.read_text(encoding="utf-8")
            return Fragment(source_text, output_type.start, (output_type.grammar.parent,))
        return Fragment(output_type.grammar, output_type.start)

    def examples(self, output_type: object) -> tuple[str, ...]:
        assert isinstance(output_type, Lark)
        return tuple(output_type.examples)

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, Lark)
        source_text, _ = read_grammar(output_type.grammar)
        doc = text.leading_comment(source_text, "//")
        return text.described(_format_header(doc), doc, self.examples(output_type), limit)


class GbnfAdapter(OutputAdapter):
    """``Gbnf(...)``: llama.cpp's grammar format; the value is the text."""

    name = "gbnf"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Gbnf)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Gbnf)
        source_text, source = read_grammar(output_type.grammar)
        return Grammar.from_gbnf(source_text, start=output_type.start, source=source)

    def examples(self, output_type: object) -> tuple[str, ...]:
        assert isinstance(output_type, Gbnf)
        return tuple(output_type.examples)

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, Gbnf)
        source_text, _ = read_grammar(output_type.grammar)
        doc = text.leading_comment(source_text, "#")
        return text.described(_format_header(doc), doc, self.examples(output_type), limit)


def _format_header(doc: str | None) -> str:
    return "Answer in this format:" if doc else "Answer in the format of these examples."


class RegexAdapter(OutputAdapter):
    """``Regex(...)``: text fully matched by the pattern."""

    name = "regex"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Regex)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Regex)
        return Grammar.from_regex(output_type.pattern, flags=output_type.flags)

    def examples(self, output_type: object) -> tuple[str, ...]:
        assert isinstance(output_type, Regex)
        return tuple(output_type.examples)

    def lark_terminal(self, output_type: object) -> str | None:
        assert isinstance(output_type, Regex)
        return regex_pattern(output_type.pattern, output_type.flags)

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, Regex)
        header = "Answer with text that matches this regular expression in full:\n"
        header += output_type.pattern
        found = text.described(header, None, self.examples(output_type), limit)
        return found if found is not None else text.bounded(header, limit)


class ChoiceAdapter(OutputAdapter):
    """``Choice(...)``: exactly one of the strings."""

    name = "choice"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Choice)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Choice)
        return Grammar.from_choice(output_type.options)

    def lark_terminal(self, output_type: object) -> str | None:
        assert isinstance(output_type, Choice)
        return choice_pattern(output_type.options)

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, Choice)
        return text.options_instructions(output_type.options, limit)


class EnumWordsAdapter(OutputAdapter):
    """An ``Enum`` embedded in a DSL: the bare words of its values, bound to the member."""

    name = "enum-words"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, EnumWords)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, EnumWords)
        return Grammar.from_choice(output_type.words())

    def binder(self, output_type: object) -> Binder:
        assert isinstance(output_type, EnumWords)
        members: type[enum.Enum] = output_type.enum

        def bind(value_text: str) -> object:
            for member in members:
                if str(member.value) == value_text:
                    return member
            raise BindingError(
                f"{value_text!r} is not a value of {members.__name__}", code="enum-value"
            )

        return bind

    def lark_terminal(self, output_type: object) -> str | None:
        assert isinstance(output_type, EnumWords)
        return choice_pattern(output_type.words())

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, EnumWords)
        return text.options_instructions(output_type.words(), limit)


# -- SQL ----------------------------------------------------------------------------------------


class SqlAdapter(OutputAdapter):
    """``Sql(...)``: one statement of the dialect, parsed by sqlglot (and checked on the schema)."""

    name = "sql"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, Sql)

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, Sql)
        return sql_grammar(output_type)

    def binder(self, output_type: object) -> Binder:
        assert isinstance(output_type, Sql)
        return output_type.parse

    def fence_tag(self, output_type: object) -> str:
        return "sql"

    def instructions(self, output_type: object, limit: int) -> str | None:
        assert isinstance(output_type, Sql)
        kinds = " or ".join(s.replace("_", " ").upper() for s in output_type.statements)
        lines = [
            f"Answer with one {output_type.dialect_class.name} SQL statement ({kinds} only),"
            " nothing else."
        ]
        if output_type.functions is not None:
            lines.append("Functions you may call: " + ", ".join(output_type.functions) + ".")
        if output_type.schema is not None:
            lines.append("The database has these tables:")
            lines.append(output_type.schema.describe(output_type.dialect))
        return text.bounded("\n".join(lines), limit)


# -- JSON ---------------------------------------------------------------------------------------


class _JsonAdapter(OutputAdapter):
    """What the JSON kinds share: JSON text, reasoning keys and instructions from the schema."""

    def schema(self, output_type: object) -> Any:
        raise NotImplementedError

    def is_json(self, output_type: object) -> bool:
        return True

    def fence_tag(self, output_type: object) -> str:
        return "json"

    def reasoning_keys(self, output_type: object) -> tuple[str, ...]:
        from typedgen.frontends.jsonschema.pydantic import REASONING_KEY

        schema = self.schema(output_type)
        props = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(props, dict):
            return ()
        return tuple(k for k, v in props.items() if isinstance(v, dict) and v.get(REASONING_KEY))

    def instructions(self, output_type: object, limit: int) -> str | None:
        schema = self.schema(output_type)
        if isinstance(schema, str):  # JsonSchema(text): shown as parsed when it parses
            try:
                schema = json.loads(schema)
            except ValueError:
                return text.bounded(
                    f"Answer with JSON that follows this JSON Schema:\n{schema}", limit
                )
        return text.json_instructions(schema, limit)


class JsonSchemaAdapter(_JsonAdapter):
    """``JsonSchema(...)``: the schema with lowering options; checked by ``jsonschema``."""

    name = "json-schema-options"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, JsonSchema)

    def schema(self, output_type: object) -> Any:
        assert isinstance(output_type, JsonSchema)
        return output_type.schema

    def grammar(self, output_type: object) -> Grammar:
        assert isinstance(output_type, JsonSchema)
        return Grammar.from_json_schema(
            output_type.schema,
            strict=output_type.strict,
            whitespace=output_type.whitespace,
            spellings=output_type.spellings,
            key_order=output_type.key_order,
            formats=output_type.formats,
            extra_keys=output_type.extra_keys,
        )

    def binder(self, output_type: object) -> Binder:
        return schema_binder(self.schema(output_type))


class SchemaDictAdapter(_JsonAdapter):
    """A raw JSON Schema (a ``dict``, or ``True``/``False``): ``JsonSchema(schema)``."""

    name = "json-schema"

    def accepts(self, output_type: object) -> bool:
        return isinstance(output_type, dict | bool)

    def schema(self, output_type: object) -> Any:
        return output_type

    def grammar(self, output_type: object) -> Grammar:
        return JsonSchemaAdapter().grammar(JsonSchema(output_type))

    def binder(self, output_type: object) -> Binder:
        return schema_binder(output_type)


class PydanticAdapter(_JsonAdapter):
    """Pydantic models and ``TypeAdapter``-able types; their validators run when binding."""

    name = "pydantic"

    def accepts(self, output_type: object) -> bool:
        from typedgen.frontends.jsonschema.pydantic import accepts_pydantic

        return accepts_pydantic(output_type)

    def schema(self, output_type: object) -> Any:
        from typedgen.frontends.jsonschema.pydantic import pydantic_schema

        return pydantic_schema(output_type)

    def grammar(self, output_type: object) -> Grammar:
        from typedgen.frontends.jsonschema.lower import lower_schema

        name = getattr(output_type, "__name__", None) or repr(output_type)
        lowered = lower_schema(
            self.schema(output_type), source=name, validator="Pydantic", spellings="canonical"
        )
        assert lowered.grammar is not None
        return lowered.grammar

    def binder(self, output_type: object) -> Binder:
        return pydantic_binder(output_type)


# -- types that state their own facets ----------------------------------------------------------


class HookAdapter(OutputAdapter):
    """Any object with ``__typedgen_grammar__()``; optional hooks supply the other facets.

    ``__typedgen_bind__(text)`` (the value; default the text), ``__typedgen_json__`` (a bool),
    ``__typedgen_reasoning_keys__`` (a tuple of JSON keys), ``__typedgen_lark_terminal__`` (a
    lark terminal body), ``__typedgen_fragment__(module_prefix)`` (a ``Fragment``),
    ``__typedgen_instructions__()`` (text for the prompt, or ``None``), and
    ``__typedgen_examples__`` (texts the instructions show, checked by ``generate``). DSL
    classes are hook types; so are third-party types that own their facets (see
    docs/generation.md).
    """

    name = "hooks"

    def accepts(self, output_type: object) -> bool:
        return callable(getattr(output_type, "__typedgen_grammar__", None))

    def grammar(self, output_type: object) -> Grammar:
        grammar = getattr(output_type, "__typedgen_grammar__")()  # noqa: B009
        if not isinstance(grammar, Grammar):
            raise GrammarError(
                f"{_type_name(output_type)}.__typedgen_grammar__ returned"
                f" {type(grammar).__name__}, not a typedgen.ir.Grammar",
                code="output-type-hook",
                hint="return a typedgen.ir.Grammar, e.g. Grammar.from_lark(text)",
            )
        return grammar

    def binder(self, output_type: object) -> Binder:
        hook = getattr(output_type, "__typedgen_bind__", None)
        if callable(hook):
            bind: Binder = hook
            return bind
        return text_binder

    def is_json(self, output_type: object) -> bool:
        return bool(getattr(output_type, "__typedgen_json__", False))

    def reasoning_keys(self, output_type: object) -> tuple[str, ...]:
        keys = getattr(output_type, "__typedgen_reasoning_keys__", ())
        if isinstance(keys, list):
            keys = tuple(keys)
        if not isinstance(keys, tuple) or not all(isinstance(k, str) for k in keys):
            raise _hook_error(output_type, "__typedgen_reasoning_keys__", keys, "tuple of str")
        return keys

    def lark_terminal(self, output_type: object) -> str | None:
        found = getattr(output_type, "__typedgen_lark_terminal__", None)
        if found is None or isinstance(found, str):
            return found
        raise _hook_error(output_type, "__typedgen_lark_terminal__", found, "str")

    def fragment(
        self, output_type: object, module_prefix: str, grammar: Callable[[], Grammar]
    ) -> Fragment:
        hook = getattr(output_type, "__typedgen_fragment__", None)
        if not callable(hook):
            return super().fragment(output_type, module_prefix, grammar)
        found = hook(module_prefix)
        if isinstance(found, Fragment):
            return found
        raise _hook_error(output_type, "__typedgen_fragment__", found, "Fragment")

    def examples(self, output_type: object) -> tuple[str, ...]:
        found = getattr(output_type, "__typedgen_examples__", ())
        if callable(found):
            found = found()
        return examples_of(found, f"{_type_name(output_type)}.__typedgen_examples__")

    def instructions(self, output_type: object, limit: int) -> str | None:
        hook = getattr(output_type, "__typedgen_instructions__", None)
        if not callable(hook):
            return None
        found = hook()
        if found is None or isinstance(found, str):
            return found
        raise _hook_error(output_type, "__typedgen_instructions__", found, "str or None")


def _hook_error(output_type: object, hook: str, value: object, wanted: str) -> GrammarError:
    return GrammarError(
        f"{_type_name(output_type)}.{hook} gave {type(value).__name__}, not {wanted}",
        code="output-type-hook",
        hint=f"see the output-type hooks in docs/generation.md ({hook})",
    )


def _type_name(output_type: object) -> str:
    name = getattr(output_type, "__name__", None)
    return name if isinstance(name, str) else type(output_type).__name__


BUILTIN: tuple[OutputAdapter, ...] = (
    GrammarAdapter(),
    LarkAdapter(),
    GbnfAdapter(),
    RegexAdapter(),
    ChoiceAdapter(),
    EnumWordsAdapter(),
    JsonSchemaAdapter(),
    SqlAdapter(),
    HookAdapter(),
    SchemaDictAdapter(),
    PydanticAdapter(),
)
"""Consulted in this order, after the adapters registered by :func:`register_adapter`."""

"""The one table of output adapters, and the lookups the rest of typedgen makes through it.

Adapters registered with :func:`register_adapter` come first (the latest first), then the
built-in ones in :data:`typedgen.outputs.kinds.BUILTIN`; the first that accepts an output type
handles it. See docs/internals/architecture.md section 4.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from typedgen.errors import GrammarError, OptionError
from typedgen.outputs.adapter import OutputAdapter
from typedgen.outputs.instructions import LIMIT, bounded
from typedgen.outputs.kinds import BUILTIN

if TYPE_CHECKING:
    from typedgen.binding import Binder
    from typedgen.ir.grammar import Grammar
    from typedgen.outputs.fragment import Fragment

__all__ = [
    "adapter_for",
    "adapters",
    "binder_for",
    "fragment_for",
    "grammar_of",
    "instructions_for",
    "is_json_output",
    "lark_terminal_for",
    "reasoning_keys_for",
    "register_adapter",
    "unregister_adapter",
]

_registered: list[OutputAdapter] = []
_lock = threading.Lock()


def register_adapter(adapter: OutputAdapter) -> OutputAdapter:
    """Add ``adapter`` to the table, ahead of the built-in ones and of earlier registrations.

    Registering the same adapter again moves it to the front. Returns ``adapter``.
    """
    if not isinstance(adapter, OutputAdapter):
        raise OptionError(
            f"register_adapter wants an OutputAdapter instance, not {type(adapter).__name__}",
            code="option-value",
            hint="subclass typedgen.OutputAdapter, implement accepts() and grammar(), and"
            " register an instance",
        )
    with _lock:
        if adapter in _registered:
            _registered.remove(adapter)
        _registered.insert(0, adapter)
    return adapter


def unregister_adapter(adapter: OutputAdapter) -> None:
    """Take ``adapter`` out of the table again (a no-op when it is not there)."""
    with _lock:
        if adapter in _registered:
            _registered.remove(adapter)


def adapters() -> tuple[OutputAdapter, ...]:
    """The table, in the order it is consulted."""
    with _lock:
        return (*_registered, *BUILTIN)


def adapter_for(output_type: object) -> OutputAdapter:
    """The adapter that handles ``output_type``, or an error saying what would work."""
    for adapter in adapters():
        if adapter.accepts(output_type):
            return adapter
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
        " Lark(...), Gbnf(...), Regex(...), Choice(...), Sql(...), a DSL class, an object with"
        " __typedgen_grammar__(), or register an OutputAdapter",
    )


def grammar_of(output_type: object) -> Grammar:
    """The IR grammar of an output type; no model or vocabulary needed.

    Grammars, the markers (``Lark``, ``Gbnf``, ``Regex``, ``Choice``, ``JsonSchema``, ``Sql``),
    DSL classes, JSON Schema dicts, Pydantic models or ``TypeAdapter``-able types (``Literal``,
    ``Enum``, ``list[...]``, ``Annotated[...]``), objects with ``__typedgen_grammar__()``, and
    whatever a registered adapter accepts.
    """
    return adapter_for(output_type).grammar(output_type)


def binder_for(output_type: object) -> Binder:
    """How decoded text becomes a value of ``output_type``."""
    return adapter_for(output_type).binder(output_type)


def is_json_output(output_type: object) -> bool:
    """Whether ``output_type`` is generated as JSON (streaming then parses partial objects)."""
    return adapter_for(output_type).is_json(output_type)


def reasoning_keys_for(output_type: object) -> tuple[str, ...]:
    """The top-level JSON keys of ``output_type`` that hold reasoning (``typedgen.Reasoning``)."""
    return adapter_for(output_type).reasoning_keys(output_type)


def lark_terminal_for(output_type: object) -> str | None:
    """A lark terminal body for ``output_type`` when it is regular enough to be one."""
    return adapter_for(output_type).lark_terminal(output_type)


def fragment_for(
    output_type: object, module_prefix: str, grammar: Callable[[], Grammar] | None = None
) -> Fragment:
    """``output_type`` as a lark module for a DSL that embeds it (``grammar``: its IR, if known)."""
    adapter = adapter_for(output_type)
    if grammar is None:

        def grammar() -> Grammar:
            return adapter.grammar(output_type)

    return adapter.fragment(output_type, module_prefix, grammar)


def instructions_for(output_type: object, *, limit: int = LIMIT) -> str | None:
    """What ``generate`` tells the model about ``output_type`` (``None``: nothing to tell).

    For JSON outputs the schema (compact, with titles, descriptions and enum values), for SQL
    the dialect and the schema's DDL, for DSL classes and grammars their docstring and examples,
    for choices the options. At most ``limit`` characters (see docs/generation.md,
    "Instructions", for what is cut first).
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 100:
        raise OptionError(
            f"the instructions' limit must be an int of at least 100 characters, not {limit!r}",
            code="option-value",
            hint=f"the default is {LIMIT}",
        )
    found = adapter_for(output_type).instructions(output_type, limit)
    if found is None or not found.strip():
        return None
    return bounded(found.strip(), limit)

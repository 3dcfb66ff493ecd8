"""``OutputAdapter``: everything typedgen needs to know about one kind of output type.

An output type (a Pydantic model, a JSON Schema, ``Sql(...)``, a DSL class, ``Choice(...)``...)
is handled by exactly one adapter, the first in the registry (:mod:`typedgen.outputs.registry`)
that accepts it. The adapter answers every question the rest of typedgen asks about the type:
its grammar, how text becomes its value, whether that text is JSON (streaming then parses
partial objects), which JSON keys hold reasoning, how lark's parser sees it inside a DSL, and what
to tell the model about it in the prompt. See docs/internals/architecture.md section 4.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from typedgen.binding import Binder
from typedgen.outputs.fragment import JSON_FRAGMENT, Fragment, exported_fragment, terminal_fragment

if TYPE_CHECKING:
    from typedgen.ir.grammar import Grammar

__all__ = ["Binder", "OutputAdapter", "text_binder"]


def text_binder(text: str) -> object:
    """The value of a plain grammar: the text itself."""
    return text


class OutputAdapter(ABC):
    """One kind of output type: its grammar, binder, JSON-ness, reasoning keys, lark fragment, and
    instructions for the prompt.

    Subclass it, implement :meth:`accepts` and :meth:`grammar` (the rest have defaults that suit
    a plain-text grammar), and register an instance with :func:`typedgen.register_adapter`.
    Every method receives the output type it is asked about; an adapter keeps no per-type state.
    """

    name: ClassVar[str] = "output"
    """A short name for messages and docs (``"pydantic"``, ``"sql"``...)."""

    @abstractmethod
    def accepts(self, output_type: object) -> bool:
        """Whether this adapter handles ``output_type`` (cheap; never raises)."""

    @abstractmethod
    def grammar(self, output_type: object) -> Grammar:
        """The IR grammar of the output's text; no model or vocabulary needed."""

    def binder(self, output_type: object) -> Binder:
        """How decoded text becomes the value (default: the text itself)."""
        return text_binder

    def is_json(self, output_type: object) -> bool:
        """Whether the text is JSON: streaming then offers partial objects."""
        return False

    def fence_tag(self, output_type: object) -> str:
        """The language of a Markdown code block holding the output (``reasoning="fenced"``)."""
        return ""

    def reasoning_keys(self, output_type: object) -> tuple[str, ...]:
        """Top-level JSON keys holding the model's reasoning (``typedgen.Reasoning`` fields)."""
        return ()

    def lark_terminal(self, output_type: object) -> str | None:
        """A lark terminal body for a regular kind (it may then fill a DSL's terminal)."""
        return None

    def fragment(
        self, output_type: object, module_prefix: str, grammar: Callable[[], Grammar]
    ) -> Fragment:
        """The output as a lark module, for a DSL that embeds it in a rule.

        ``grammar`` returns the type's IR (already computed by the DSL, so it is not rebuilt);
        ``module_prefix`` names further modules a nested DSL needs. The default: the lark
        terminal when there is one, any JSON value for JSON kinds, else the IR exported.
        """
        pattern = self.lark_terminal(output_type)
        if pattern is not None:
            return terminal_fragment(pattern)
        if self.is_json(output_type):
            return JSON_FRAGMENT
        return exported_fragment(grammar())

    def examples(self, output_type: object) -> tuple[str, ...]:
        """Texts of the language that the instructions show (``generate`` checks each one
        against the grammar before it shows it)."""
        return ()

    def instructions(self, output_type: object, limit: int) -> str | None:
        """What the prompt tells the model about the expected output, at most ``limit``
        characters (``None``: nothing worth saying). The registry cuts longer text."""
        return None

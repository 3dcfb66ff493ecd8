"""Output types: one adapter per kind, registered in one table.

Every question typedgen asks about an output type (its grammar, its binder, whether its text is
JSON, its reasoning keys, its lark fragment inside a DSL, its instructions for the prompt) is
answered by the adapter that accepts it (:func:`adapter_for`). Third parties add kinds with
:func:`register_adapter`, or give their own classes ``__typedgen_grammar__()`` and the optional
hooks of :class:`~typedgen.outputs.kinds.HookAdapter`. See docs/internals/architecture.md
section 4.
"""

from typedgen.outputs.adapter import OutputAdapter, text_binder
from typedgen.outputs.fragment import Fragment
from typedgen.outputs.instructions import LIMIT as INSTRUCTIONS_LIMIT
from typedgen.outputs.registry import (
    adapter_for,
    adapters,
    binder_for,
    fragment_for,
    grammar_of,
    instructions_for,
    is_json_output,
    lark_terminal_for,
    reasoning_keys_for,
    register_adapter,
    unregister_adapter,
)

__all__ = [
    "INSTRUCTIONS_LIMIT",
    "Fragment",
    "OutputAdapter",
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
    "text_binder",
    "unregister_adapter",
]

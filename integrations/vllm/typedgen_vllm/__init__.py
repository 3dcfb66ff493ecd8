"""typedgen inside vLLM.

- :func:`constraint` — what goes into ``SamplingParams(extra_args=...)`` (offline) or the
  request's ``vllm_xargs`` (OpenAI-compatible server): a typedgen grammar as request data.
- :class:`TypedgenLogitsProcessor` — the logits processor that enforces it, registered under the
  ``vllm.logits_processors`` entry point (installing this package is all a server needs).
- :func:`generate` — typed values from a ``vllm.LLM`` with typedgen's binders, validators and
  retries.
- :func:`structured_outputs` / :func:`bind` — for servers without the plugin: the grammar in
  vLLM's own structured-outputs formats, and client-side binding of the answer.

Importing this package does not import vLLM; the processor module does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from typedgen_vllm.constraint import KEY, constraint
from typedgen_vllm.export import Export, bind, structured_outputs
from typedgen_vllm.generate import Result, generate
from typedgen_vllm.models import bundled_model_folder, vllm_folder

if TYPE_CHECKING:
    from typedgen_vllm.processor import TypedgenLogitsProcessor

__all__ = [
    "KEY",
    "Export",
    "Result",
    "TypedgenLogitsProcessor",
    "bind",
    "bundled_model_folder",
    "constraint",
    "generate",
    "structured_outputs",
    "vllm_folder",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "TypedgenLogitsProcessor":
        from typedgen_vllm.processor import TypedgenLogitsProcessor

        return TypedgenLogitsProcessor
    raise AttributeError(f"module 'typedgen_vllm' has no attribute {name!r}")

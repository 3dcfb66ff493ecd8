"""typedgen as an SGLang grammar backend: ``--grammar-backend typedgen``.

Installing this package registers the backend through SGLang's general-plugin entry point
(``sglang.srt.plugins``), which SGLang runs early in every process; :func:`register` does the
same by hand. Every SGLang constraint is then served by typedgen's engine:

- ``json_schema`` — typedgen's JSON Schema frontend (every keyword enforced exactly or refused
  by name; a refused schema fails the request with typedgen's error);
- ``regex`` — Python ``re`` syntax, exact;
- ``ebnf`` — GBNF text, or a serialised typedgen grammar (``typedgen_sglang.ebnf(output_type)``,
  the ``tg1:`` wire format of :mod:`typedgen.ir.serial`) for Pydantic models, SQL dialects, DSL
  classes and any other typedgen output type.

Masks use SGLang's (and XGrammar's) layout, int32 rows of ``ceil(V/32)`` words, so a batch is
filled by one :func:`typedgen.fill_batch` call and applied by SGLang's own kernels on CUDA.
Jump-forward uses typedgen's forced bytes. SGLang needs CUDA; without it only this module's
import-level pieces can be tested (see tests/).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import typedgen
from typedgen import reasoning as _scratch
from typedgen.ir import Grammar, serial

__all__ = ["BACKEND", "ebnf", "register"]

__version__ = "0.1.0"

BACKEND = "typedgen"
"""The name to pass as ``--grammar-backend``."""


def ebnf(output_type: object, *, reasoning: bool | int = False) -> str:
    """The request's ``ebnf`` value that carries any typedgen output type exactly."""
    grammar = typedgen.grammar_of(output_type)
    if reasoning:
        bound = _scratch.DEFAULT_SCRATCH_CHARS if reasoning is True else int(reasoning)
        grammar = _scratch.with_scratchpad(grammar, bound)
    return serial.dumps(grammar)


def grammar_of_key(key_type: str, key_string: str) -> Grammar:
    """The typedgen grammar for one of SGLang's constraint keys (``json``, ``regex``, ``ebnf``)."""
    if key_type == "json":
        return typedgen.grammar_of(typedgen.JsonSchema(json.loads(key_string)))
    if key_type == "regex":
        return Grammar.from_regex(key_string)
    if key_type in ("ebnf", "full_assistant_ebnf"):
        if key_string.startswith("tg1:"):
            return serial.loads(key_string)
        return Grammar.from_gbnf(key_string)
    raise typedgen.OptionError(
        f"the typedgen backend does not serve {key_type!r} constraints",
        code="option-value",
        hint="send json_schema, regex or ebnf (typedgen_sglang.ebnf(output_type) for any type)",
    )


def register() -> None:
    """Register the backend with SGLang (the plugin entry point calls this in every process)."""
    from sglang.srt.constrained.base_grammar_backend import register_grammar_backend

    try:
        from sglang.srt.server_args import GRAMMAR_BACKEND_CHOICES, add_grammar_backend_choices

        if BACKEND not in GRAMMAR_BACKEND_CHOICES:
            add_grammar_backend_choices([BACKEND])
    except ImportError:  # older SGLang: no choice list to extend
        pass
    register_grammar_backend(BACKEND, _create_backend)


def _create_backend(
    server_args: Any, tokenizer: Any, vocab_size: int, eos_token_ids: Sequence[int] | None
) -> Any:
    from typedgen_sglang.backend import TypedgenGrammarBackend

    return TypedgenGrammarBackend(tokenizer, vocab_size, eos_token_ids)

"""What travels with a request: a typedgen grammar as request data, and its compiled form in the
worker.

The client turns an output type into its IR grammar and serialises it with
:mod:`typedgen.ir.serial` (plain JSON, compressed, never pickle: a server must not unpickle what
clients send). The value sits under one key, ``"typedgen"``, in ``SamplingParams.extra_args``
(offline) or ``vllm_xargs`` (OpenAI-compatible server), whose values must be strings or
numbers. The worker parses each distinct payload once and compiles it once per vocabulary.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import typedgen
from typedgen import reasoning as _scratch
from typedgen.errors import OptionError
from typedgen.ir import serial

if TYPE_CHECKING:
    from typedgen import CompiledGrammar, Vocabulary
    from typedgen.ir import Grammar

__all__ = ["KEY", "GrammarCache", "constraint", "grammar_for", "payload_of"]

KEY = "typedgen"
"""The ``extra_args`` / ``vllm_xargs`` key that carries a typedgen constraint."""


def grammar_for(output_type: object, *, reasoning: bool | int = False) -> Grammar:
    """The grammar a request is constrained by (with a scratchpad first when ``reasoning``)."""
    grammar = typedgen.grammar_of(output_type)
    if reasoning:
        bound = _scratch.DEFAULT_SCRATCH_CHARS if reasoning is True else int(reasoning)
        grammar = _scratch.with_scratchpad(grammar, bound)
    return grammar


def constraint(output_type: object, *, reasoning: bool | int = False) -> dict[str, str]:
    """``{"typedgen": "<serialised grammar>"}``: merge it into ``SamplingParams.extra_args``
    (offline ``LLM``) or the request's ``vllm_xargs`` (OpenAI-compatible server).

    ``output_type`` is anything :func:`typedgen.grammar_of` accepts (Pydantic models, JSON
    Schema dicts, ``Sql``, DSL classes, ``Lark``/``Gbnf``/``Regex``/``Choice``, grammars).
    """
    return {KEY: serial.dumps(grammar_for(output_type, reasoning=reasoning))}


def payload_of(extra_args: Mapping[str, Any] | None) -> str | None:
    """The request's typedgen payload, ``None`` when it has none; refuses a malformed value."""
    if not extra_args or KEY not in extra_args:
        return None
    value = extra_args[KEY]
    if not isinstance(value, str):
        raise OptionError(
            f"extra_args[{KEY!r}] must be a string, not {type(value).__name__}",
            code="option-value",
            hint="pass typedgen_vllm.constraint(output_type) as extra_args (or vllm_xargs)",
        )
    return value


class GrammarCache:
    """Parsed grammars and compiled grammars, keyed by the payload's hash; bounded LRUs.

    One per process: vLLM's frontend uses it to validate requests, the worker to compile them.
    Compiling goes through :func:`typedgen.compile`, whose own memory and disk caches make a
    grammar compiled by an earlier process (or another worker) cheap to load.
    """

    def __init__(self, max_grammars: int = 256) -> None:
        self._max = max_grammars
        self._grammars: OrderedDict[str, Grammar] = OrderedDict()
        self._compiled: OrderedDict[tuple[str, str], CompiledGrammar] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(payload: str) -> str:
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def grammar(self, payload: str) -> Grammar:
        """The grammar of a payload (a :class:`~typedgen.GrammarError` if malformed)."""
        key = self.key(payload)
        with self._lock:
            found = self._grammars.get(key)
            if found is not None:
                self._grammars.move_to_end(key)
                return found
        grammar = serial.loads(payload)
        with self._lock:
            self._grammars[key] = grammar
            while len(self._grammars) > self._max:
                self._grammars.popitem(last=False)
        return grammar

    def compiled(self, payload: str, vocabulary: Vocabulary) -> CompiledGrammar:
        """The payload's grammar compiled for ``vocabulary`` (once per pair)."""
        key = (self.key(payload), vocabulary.fingerprint)
        with self._lock:
            found = self._compiled.get(key)
            if found is not None:
                self._compiled.move_to_end(key)
                return found
        compiled = typedgen.compile(self.grammar(payload), vocabulary)
        with self._lock:
            self._compiled[key] = compiled
            while len(self._compiled) > self._max:
                self._compiled.popitem(last=False)
        return compiled

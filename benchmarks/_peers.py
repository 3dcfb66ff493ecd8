"""Adapters that give every engine the same small interface for mask_bench.py.

An adapter is built once per vocabulary (that is the per-vocabulary preprocessing, timed by the
caller) and then: ``compile(fmt, text) -> handle`` (timed as grammar compile), ``matcher(handle)``
(a fresh matcher for one pass; may reuse the handle's state, see each adapter), ``fill(m, bitmask)``
(write the allowed-token bitmask, a ``(1, ceil(V/32))`` int32 array; timed as mask),
``accept(m, token) -> bool`` (timed as accept), ``is_complete(m) -> bool``.

Peer engines are imported lazily, so a missing one only disables its rows.
"""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import numpy as np
import numpy.typing as npt

Bitmask = npt.NDArray[np.int32]


class Adapter:
    name = "?"
    #: whether ``accept`` is a real step (LMFE folds accepting into the next mask call)
    has_accept = True

    def compile(self, fmt: str, text: str | None, **options: Any) -> Any:
        raise NotImplementedError

    def matcher(self, handle: Any, pass_no: int) -> Any:
        raise NotImplementedError

    def fill(self, m: Any, bitmask: Bitmask) -> None:
        raise NotImplementedError

    def accept(self, m: Any, token: int) -> bool:
        raise NotImplementedError

    def is_complete(self, m: Any) -> bool:
        raise NotImplementedError

    def settings(self) -> dict[str, Any]:
        return {}


# -- llguidance -----------------------------------------------------------------------------------
class LLGuidanceAdapter(Adapter):
    """llguidance: ``LLMatcher`` construction compiles the grammar (lexer DFA built lazily, in
    state shared by copies); each pass runs on a ``deep_copy()`` of that pristine matcher
    (``reset()`` would do too, but cannot leave the error state after a rejected token)."""

    name = "llguidance"

    def __init__(self, hf_tokenizer: Any) -> None:
        import llguidance
        import llguidance.hf
        import llguidance.numpy

        self._llg = llguidance
        self._fill = llguidance.numpy.fill_next_token_bitmask
        self.tokenizer = llguidance.hf.from_tokenizer(hf_tokenizer)

    def compile(self, fmt: str, text: str | None, **options: Any) -> Any:
        llg = self._llg
        if fmt == "builtin-json":
            grammar = llg.LLMatcher.grammar_from_json_schema(
                {}, defaults={"whitespace_flexible": True}
            )
        else:
            grammar = llg.grammar_from(fmt, text or "")
        m = llg.LLMatcher(self.tokenizer, grammar, log_level=0)
        if m.is_error():
            raise RuntimeError(f"llguidance rejected the grammar: {m.get_error()}")
        return m

    def matcher(self, handle: Any, pass_no: int) -> Any:
        return handle.deep_copy()

    def fill(self, m: Any, bitmask: Bitmask) -> None:
        self._fill(m, bitmask, 0)

    def accept(self, m: Any, token: int) -> bool:
        return bool(m.consume_token(token))

    def is_complete(self, m: Any) -> bool:
        return bool(m.is_accepting())

    def error(self, m: Any) -> str | None:
        # llguidance appends its state and the whole grammar; the first line is the message.
        return m.get_error().splitlines()[0] if m.is_error() else None

    def settings(self) -> dict[str, Any]:
        return {"version": self._llg.__version__, "slices": "default (general_slices)"}


# -- xgrammar -------------------------------------------------------------------------------------
class XGrammarAdapter(Adapter):
    """xgrammar: ``GrammarCompiler(max_threads=1, cache_enabled=False)``, eager mask-cache
    compilation (``enable_dynamic_compilation=False``, the default); a fresh ``GrammarMatcher``
    per pass."""

    name = "xgrammar"

    def __init__(self, hf_tokenizer: Any, vocab_size: int, max_threads: int = 1) -> None:
        import xgrammar

        self._xgr = xgrammar
        self.max_threads = max_threads
        self.info = xgrammar.TokenizerInfo.from_huggingface(hf_tokenizer, vocab_size=vocab_size)
        self.compiler = xgrammar.GrammarCompiler(
            self.info, max_threads=max_threads, cache_enabled=False
        )

    def compile(self, fmt: str, text: str | None, **options: Any) -> Any:
        xgr = self._xgr
        if fmt == "builtin-json":
            grammar = xgr.Grammar.builtin_json_grammar()
        elif fmt == "gbnf":
            grammar = xgr.Grammar.from_ebnf(text or "")
        elif fmt == "lark":
            grammar = xgr.Grammar.from_lark(text or "")
        elif fmt == "json_schema":
            grammar = xgr.Grammar.from_json_schema(
                text or "{}", any_whitespace=False, separators=(",", ":")
            )
        else:
            raise ValueError(f"xgrammar: unsupported format {fmt}")
        return self.compiler.compile_grammar(grammar)

    def matcher(self, handle: Any, pass_no: int) -> Any:
        return self._xgr.GrammarMatcher(handle)

    def fill(self, m: Any, bitmask: Bitmask) -> None:
        m.fill_next_token_bitmask(bitmask, 0)

    def accept(self, m: Any, token: int) -> bool:
        return bool(m.accept_token(token))

    def is_complete(self, m: Any) -> bool:
        return bool(m.is_completed())

    def settings(self) -> dict[str, Any]:
        return {
            "version": importlib.metadata.version("xgrammar"),
            "max_threads": self.max_threads,
            "cache_enabled": False,
            "enable_dynamic_compilation": False,
            "vocab_type": str(self.info.vocab_type),
        }


# -- lm-format-enforcer ---------------------------------------------------------------------------
class _LMFEState:
    __slots__ = ("allowed", "enforcer", "prefix")

    def __init__(self, enforcer: Any) -> None:
        self.enforcer = enforcer
        self.prefix: list[int] = []
        self.allowed: list[int] = []


def _shim_transformers_for_lmfe() -> None:
    """lm-format-enforcer 0.11 imports ``PreTrainedTokenizerBase`` from
    ``transformers.tokenization_utils``, which transformers 5 no longer exports; put it back."""
    import transformers
    import transformers.tokenization_utils as legacy

    if not hasattr(legacy, "PreTrainedTokenizerBase"):
        legacy.PreTrainedTokenizerBase = transformers.PreTrainedTokenizerBase


class LMFEAdapter(Adapter):
    """lm-format-enforcer: no CFG support; JSON via ``JsonSchemaParser`` with the schema ``{}``.
    Its API is ``TokenEnforcer.get_allowed_tokens(prefix) -> TokenList``, which also applies the
    previous token, so 'mask' time includes accepting and 'accept' is only a list append. The
    list is converted into the bitmask outside the timed region. A fresh ``TokenEnforcer`` per
    pass (it memoises by prefix, so re-running the same prefixes would measure dict look-ups)."""

    name = "lmfe"
    has_accept = False

    def __init__(self, hf_tokenizer: Any, vocab_size: int) -> None:
        _shim_transformers_for_lmfe()
        from lmformatenforcer.integrations.transformers import build_token_enforcer_tokenizer_data

        self.data = build_token_enforcer_tokenizer_data(hf_tokenizer, vocab_size=vocab_size)
        eos = self.data.eos_token_id
        self.eos_ids = set(eos) if isinstance(eos, list) else {eos}

    def compile(self, fmt: str, text: str | None, **options: Any) -> Any:
        if fmt != "json-schema":
            raise ValueError("lmfe only runs JSON Schema")
        return json.loads(text) if text else {}

    def matcher(self, handle: Any, pass_no: int) -> Any:
        from lmformatenforcer import JsonSchemaParser, TokenEnforcer

        return _LMFEState(TokenEnforcer(self.data, JsonSchemaParser(handle)))

    def fill(self, m: _LMFEState, bitmask: Bitmask) -> None:
        # A TokenList; its .allowed_tokens is the list of ids (converted to bits by
        # to_bitmask(), outside the timed region).
        m.allowed = m.enforcer.get_allowed_tokens(m.prefix).allowed_tokens

    def to_bitmask(self, m: _LMFEState, bitmask: Bitmask) -> None:
        ids = np.asarray(m.allowed, dtype=np.int64)
        words = np.zeros(bitmask.shape[1], dtype=np.uint32)
        if ids.size:
            np.bitwise_or.at(words, ids >> 5, (np.uint32(1) << (ids & 31).astype(np.uint32)))
        bitmask[0] = words.view(np.int32)

    def accept(self, m: _LMFEState, token: int) -> bool:
        # LMFE has no accept step: a token outside the last allowed list is a rejection (LMFE
        # would switch to its ForceStopParser and every later mask would be meaningless).
        if token not in m.allowed:
            return False
        m.prefix.append(token)
        return True

    def is_complete(self, m: _LMFEState) -> bool:
        allowed = m.enforcer.get_allowed_tokens(m.prefix).allowed_tokens
        return any(e in allowed for e in self.eos_ids)

    def settings(self) -> dict[str, Any]:
        return {"version": importlib.metadata.version("lm-format-enforcer"), "use_bitmask": False}

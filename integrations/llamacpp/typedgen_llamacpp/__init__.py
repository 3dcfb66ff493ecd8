"""typedgen with llama-cpp-python: GGUF models constrained by typedgen's engine, typed values out.

- :func:`vocabulary` — the exact token bytes of a loaded ``llama_cpp.Llama`` (read from the GGUF
  vocabulary through llama.cpp itself: no Hugging Face tokenizer, no conversion), EOS being what
  llama.cpp ends a generation on (its end-of-generation tokens).
- :class:`LogitsProcessor` — a llama-cpp-python logits processor that sets every token the
  grammar refuses to ``-inf``; one per generation.
- :func:`generate` — a typed value through typedgen's binders, validators and retries.
- :func:`llama_grammar` — the grammar as llama.cpp's own GBNF ``grammar=``, only where GBNF says
  exactly the same language (every terminal lexed freely); otherwise a clear error (or, with
  ``approximate=True``, the free reading, a superset the binder then checks).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import typedgen
from typedgen import reasoning as _scratch
from typedgen.errors import IncompleteOutputError, OptionError, UnsupportedFeatureError
from typedgen.ir import Grammar, Lexing
from typedgen.outputs import binder_for
from typedgen.prompts import Prompt, messages_of
from typedgen.validation import Attempt, Validator, attempt_of, feedback

__all__ = ["LogitsProcessor", "Result", "generate", "grammar_for", "llama_grammar", "vocabulary"]

__version__ = "0.1.0"

_VOCABS: dict[tuple[str, int], typedgen.Vocabulary] = {}
_LOCK = threading.Lock()
_PIECE = 256  # bytes; no GGUF token is longer (llama.cpp reports the size when it is)


def vocabulary(llama: Any) -> typedgen.Vocabulary:
    """Token id -> bytes for ``llama``'s model, cached per model file."""
    import llama_cpp

    n_vocab = int(llama.n_vocab())
    key = (str(getattr(llama, "model_path", id(llama))), n_vocab)
    with _LOCK:
        found = _VOCABS.get(key)
        if found is not None:
            return found
        vocab = llama._model.vocab
        buffer = ctypes.create_string_buffer(_PIECE)
        tokens: list[bytes] = []
        special: set[int] = set()
        eos: set[int] = set()
        for token in range(n_vocab):
            n = llama_cpp.llama_token_to_piece(vocab, token, buffer, _PIECE, 0, False)
            if n < 0:  # longer than the buffer: ask again with the size llama.cpp needs
                bigger = ctypes.create_string_buffer(-n)
                n = llama_cpp.llama_token_to_piece(vocab, token, bigger, -n, 0, False)
                piece = bigger.raw[:n]
            else:
                piece = buffer.raw[:n]
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                eos.add(token)
            if llama_cpp.llama_vocab_is_control(vocab, token) or not piece:
                special.add(token)
            tokens.append(piece)
        name = str(getattr(llama, "model_path", "llama.cpp")).rsplit("/", 1)[-1]
        found = typedgen.Vocabulary(
            tokens, size=n_vocab, special_ids=special, eos_ids=eos, name=name
        )
        _VOCABS[key] = found
        return found


def grammar_for(output_type: object, *, reasoning: bool | int = False) -> Grammar:
    """The grammar a generation is constrained by (a scratchpad first when ``reasoning``)."""
    grammar = typedgen.grammar_of(output_type)
    if reasoning:
        bound = _scratch.DEFAULT_SCRATCH_CHARS if reasoning is True else int(reasoning)
        grammar = _scratch.with_scratchpad(grammar, bound)
    return grammar


class LogitsProcessor:
    """Masks llama-cpp-python's scores to the tokens the grammar allows next.

    Pass it in ``logits_processor=llama_cpp.LogitsProcessorList([...])`` to ``create_completion``
    or ``create_chat_completion``. The prompt length is taken from the first call; every later
    call follows the newly sampled token. Build one per generation (or call :meth:`reset`).
    """

    def __init__(self, compiled: typedgen.CompiledGrammar) -> None:
        self.compiled = compiled
        self.matcher = compiled.matcher()
        self._prompt: int | None = None
        size = compiled.vocabulary.size
        self._words = np.zeros((size + 31) // 32, dtype=np.int32)
        self._out: npt.NDArray[np.single] | None = None
        self.refused = False
        """A token outside the grammar arrived (only EOS is allowed from then on)."""

    @classmethod
    def for_type(cls, output_type: object, llama: Any, **options: Any) -> LogitsProcessor:
        """Compile ``output_type`` for ``llama``'s vocabulary (cached) and wrap it."""
        grammar = grammar_for(output_type, **options)
        return cls(typedgen.compile(grammar, vocabulary(llama)))

    def reset(self) -> None:
        """Forget the generation, to reuse the processor for another prompt."""
        self.matcher.reset()
        self._prompt = None
        self.refused = False

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        if self._prompt is None:
            self._prompt = len(input_ids)
        matcher = self.matcher
        for token in input_ids[self._prompt + matcher.num_accepted :]:
            if self.refused or not matcher.accept_token(int(token)):
                self.refused = True
                break
        n = len(scores)
        out = self._out if self._out is not None and len(self._out) == n else None
        if out is None:
            out = self._out = np.empty(n, dtype=np.single)
        out.fill(-np.inf)
        if self.refused or matcher.is_terminated():
            eos = [i for i in self.compiled.vocabulary.eos_ids if i < n]
            out[eos] = scores[eos]
        else:
            matcher.fill_next_token_bitmask(self._words)
            allowed = np.unpackbits(self._words.view(np.uint8), count=n, bitorder="little")
            np.copyto(out, scores, where=allowed.view(np.bool_))
        return out


def llama_grammar(
    output_type: object, *, approximate: bool = False, reasoning: bool | int = False
) -> Any:
    """The grammar as a ``llama_cpp.LlamaGrammar`` (llama.cpp's own GBNF sampler).

    Exact only when every terminal is lexed freely (JSON, regexes, choices, GBNF); GBNF has no
    longest-match lexing, so a contextual or basic grammar (Lark DSLs, SQL) raises
    :class:`~typedgen.UnsupportedFeatureError` unless ``approximate=True`` accepts its free
    reading (a superset: the binder refuses what typedgen would not allow).
    """
    from llama_cpp import LlamaGrammar

    grammar = grammar_for(output_type, reasoning=reasoning)
    modes = sorted({r.lexing.value for r in grammar.terminals() if r.lexing is not Lexing.FREE})
    if modes and not approximate:
        raise UnsupportedFeatureError(
            f"GBNF cannot say this grammar exactly: its terminals are lexed by longest match"
            f" ({', '.join(modes)})",
            code="export-lexing",
            hint="use typedgen_llamacpp.LogitsProcessor (exact), or approximate=True to accept"
            " GBNF's free reading with a client-side check",
        )
    return LlamaGrammar.from_string(grammar.to_gbnf(), verbose=False)


@dataclass(frozen=True)
class Result:
    """The value with its text and every attempt (``return_details=True``)."""

    value: Any
    text: str
    reasoning: str | None
    attempts: tuple[Attempt, ...]
    completion_tokens: int


def generate(
    llama: Any,
    output_type: object,
    prompt: Prompt,
    *,
    via: str = "processor",
    reasoning: bool | int = False,
    validators: Sequence[Validator] = (),
    max_retries: int = 2,
    system: str | None = None,
    return_details: bool = False,
    **completion: Any,
) -> Any:
    """A typed value for ``prompt`` from ``llama`` (a ``llama_cpp.Llama``), chat template applied.

    ``via="processor"`` constrains with typedgen's engine (exact); ``via="grammar"`` hands
    llama.cpp its own GBNF sampler where that is exact (see :func:`llama_grammar`).
    ``completion`` goes to ``create_chat_completion`` (defaults: ``temperature=0``,
    ``max_tokens=512``). Raises :class:`~typedgen.IncompleteOutputError` at ``max_tokens`` and
    :class:`~typedgen.ValidationFailed` when every attempt is rejected.
    """
    from llama_cpp import LogitsProcessorList

    if via not in ("processor", "grammar"):
        raise OptionError(
            f"unknown via={via!r}", code="option-value", hint="use 'processor' or 'grammar'"
        )
    options: dict[str, Any] = {"temperature": 0.0, "max_tokens": 512, **completion}
    bind = binder_for(output_type)
    grammar = llama_grammar(output_type, reasoning=reasoning) if via == "grammar" else None
    compiled = (
        typedgen.compile(grammar_for(output_type, reasoning=reasoning), vocabulary(llama))
        if via == "processor"
        else None
    )
    messages = messages_of(prompt, system)
    attempts: list[Attempt] = []
    while True:
        if compiled is not None:
            options["logits_processor"] = LogitsProcessorList([LogitsProcessor(compiled)])
        else:
            options["grammar"] = grammar
        reply = llama.create_chat_completion(messages=messages, **options)
        choice = reply["choices"][0]
        text = choice["message"]["content"] or ""
        if choice["finish_reason"] == "length":
            raise IncompleteOutputError(
                "max_tokens ran out before the output was complete",
                partial_text=text,
                hint="raise max_tokens, or ask for a shorter answer",
            )
        attempt = attempt_of(bind, output_type, text, reasoning, validators)
        attempts.append(attempt)
        if attempt.ok:
            tokens = int(reply.get("usage", {}).get("completion_tokens", 0))
            result = Result(attempt.value, text, attempt.reasoning, tuple(attempts), tokens)
            return result if return_details else result.value
        if len(attempts) > max_retries:
            raise typedgen.ValidationFailed(
                f"{len(attempts)} attempt(s) failed validation; last error: {attempt.error}",
                attempts=attempts,
                hint="raise max_retries, relax the validator, or say more in the prompt",
            )
        messages = messages + feedback(text, attempt.error or "")

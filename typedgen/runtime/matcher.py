"""The per-sequence matcher: all request state lives here, nothing else is mutable.

A matcher is a stack of interned engine states, one per accepted token (or byte chunk), so
``rollback`` pops, ``fork`` copies a list of ints, and nothing on the hot path raises: a rejected
token returns ``False`` and leaves the state as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from typedgen.errors import OptionError
from typedgen.runtime.engine import DEAD

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.runtime.engines import EngineLike

__all__ = ["Matcher"]

_TERMINATED = -2
FREE_TEXT_WIDTH = 32
"""Bytes that must continue a lexeme for it to count as free text (letters alone are 52)."""
_WHITESPACE = frozenset(b" \t\r\n")


class Matcher:
    """Tracks one sequence through a compiled grammar: masks, acceptance, rollback, fork."""

    __slots__ = ("_compiled", "_engine", "_history")

    def __init__(
        self, engine: EngineLike, compiled: CompiledGrammar, history: list[int] | None = None
    ) -> None:
        self._engine = engine
        self._compiled = compiled
        self._history = history if history is not None else [engine.initial]

    @property
    def compiled(self) -> CompiledGrammar:
        """The compiled grammar this matcher runs."""
        return self._compiled

    # -- acceptance -------------------------------------------------------------------------------
    def accept_token(self, token_id: int) -> bool:
        """Advance by one token; ``False`` (state unchanged) if the grammar does not allow it.

        An EOS token is accepted exactly when :meth:`is_complete`; it terminates the matcher.
        """
        state = self._history[-1]
        if state == _TERMINATED:
            return False
        engine = self._engine
        if token_id in engine.eos_ids:
            if engine.is_complete(state):
                self._history.append(_TERMINATED)
                return True
            return False
        nxt = engine.advance_token(state, token_id)
        if nxt == DEAD:
            return False
        self._history.append(nxt)
        return True

    def accept_bytes(self, data: bytes) -> bool:
        """Advance by raw bytes (counts as one step for :meth:`rollback`); ``False`` if refused."""
        state = self._history[-1]
        if state == _TERMINATED:
            return False
        nxt = self._engine.advance_bytes(state, bytes(data))
        if nxt == DEAD:
            return False
        self._history.append(nxt)
        return True

    # -- masks ------------------------------------------------------------------------------------
    def fill_next_token_bitmask(self, bitmask: npt.NDArray[np.int32], index: int = 0) -> None:
        """Write the allowed-token bitmask (bit ``i`` of word ``i // 32`` = token ``i``).

        ``bitmask`` is an int32 array of ``ceil(vocab_size / 32)`` words (wider arrays are
        zero-filled past the vocabulary), or a 2-D batch of such rows, in which case row
        ``index`` is written.
        """
        row = bitmask[index] if bitmask.ndim == 2 else bitmask
        state = self._history[-1]
        if state == _TERMINATED:
            row[:] = 0
            return
        # A wider row (padded logits) allows nothing beyond the vocabulary.
        self._engine.fill(state, row)

    def allowed_token_ids(self) -> npt.NDArray[np.int64]:
        """The ids of the tokens allowed next (EOS included when complete)."""
        state = self._history[-1]
        if state == _TERMINATED:
            return np.zeros(0, dtype=np.int64)
        words = self._engine.mask(state)
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[: self._engine.vocab.size]).astype(np.int64)

    # -- status -----------------------------------------------------------------------------------
    def is_complete(self) -> bool:
        """Whether the text so far is a full sentence, so EOS is allowed (or was accepted)."""
        state = self._history[-1]
        return state == _TERMINATED or self._engine.is_complete(state)

    def is_terminated(self) -> bool:
        """Whether EOS has been accepted."""
        return self._history[-1] == _TERMINATED

    def is_dead(self) -> bool:
        """Whether no token can follow and the text is not complete: a dead end."""
        state = self._history[-1]
        if state == _TERMINATED or self._engine.is_complete(state):
            return False
        return not self._engine.mask_any(state)

    def only_whitespace_follows(self) -> bool:
        """Whether the text is complete and nothing but whitespace may follow it, two bytes deep
        (after SQL's closing ``;``), or nothing at all: anything more is trailing whitespace, so
        decoding ends there instead of spending tokens on it. Cheap where anything else may
        follow: one look at the allowed bytes. True once EOS is accepted."""
        if not self.is_complete():
            return False
        allowed = self.allowed_bytes()
        if not _WHITESPACE.issuperset(allowed):
            return False
        for b in allowed:
            probe = self.fork()
            if not probe.accept_bytes(bytes((b,))):  # pragma: no cover - b was allowed
                return False
            if not _WHITESPACE.issuperset(probe.allowed_bytes()):
                return False
        return True

    def forced_bytes(self) -> bytes:
        """The bytes the grammar forces next (for jump-forward decoding); may be empty."""
        state = self._history[-1]
        if state == _TERMINATED:
            return b""
        return self._engine.forced_bytes(state)

    def shortest_completion(self, limit: int = 2048) -> bytes | None:
        """Bytes that complete the text, short (closing bytes preferred), for finishing within a
        token budget: ``b""`` if complete, ``None`` if no search within ``limit`` states finds
        one."""
        state = self._history[-1]
        if state == _TERMINATED:
            return b""
        return self._engine.shortest_completion(state, limit)

    def in_free_text(self, min_width: int = FREE_TEXT_WIDTH) -> bool:
        """Whether the text ends inside free text: a lexeme in progress, with no other reading
        of where it began, that at least ``min_width`` distinct bytes continue (a string,
        identifier or comment body; not a number, keyword or punctuation).

        A property of the interned state, computed on demand (never on the per-token path); the
        loop guard asks it only when the tokens already repeat.
        """
        return self._text_kind(min_width) == 2

    def inside_lexeme(self, min_width: int = FREE_TEXT_WIDTH) -> bool:
        """Whether the text ends inside a lexeme that cannot end here (an escape in a string)
        or inside free text: no lexeme boundary at this point."""
        return self._text_kind(min_width) >= 1

    def _text_kind(self, min_width: int) -> int:
        state = self._history[-1]
        if state == _TERMINATED:
            return 0
        return self._engine.text_kind(state, min_width)

    def allowed_bytes(self) -> bytes:
        """Every byte that may come next, as a sorted byte string."""
        state = self._history[-1]
        if state == _TERMINATED:
            return b""
        return bytes(self._engine.allowed_bytes(state))

    # -- history ----------------------------------------------------------------------------------
    def rollback(self, n_tokens: int = 1) -> None:
        """Undo the last ``n_tokens`` accepted tokens (or byte chunks)."""
        if n_tokens < 0 or n_tokens >= len(self._history):
            raise OptionError(
                f"cannot roll back {n_tokens} steps: {len(self._history) - 1} were accepted",
                code="rollback-range",
                hint="roll back at most num_accepted steps",
            )
        if n_tokens:
            del self._history[-n_tokens:]

    def fork(self) -> Matcher:
        """An independent copy in the same state (for beams and speculative drafts)."""
        return Matcher(self._engine, self._compiled, list(self._history))

    def reset(self) -> None:
        """Back to the start, as if nothing was accepted."""
        del self._history[1:]

    @property
    def num_accepted(self) -> int:
        """How many tokens (or byte chunks) were accepted so far."""
        return len(self._history) - 1

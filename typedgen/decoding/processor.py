"""A transformers ``LogitsProcessor`` for users who call ``model.generate`` themselves.

transformers passes the whole sequence at every step and may reorder rows (beam search), so the
processor keys matchers by the tokens generated so far: a row's matcher is its parent's (one token
shorter) forked and advanced, whatever row the parent sat in. Matchers of sequences no longer
present are dropped after each step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from typedgen.decoding.sampling import apply_token_bitmask
from typedgen.runtime.batch import fill_batch

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.runtime.matcher import Matcher

__all__ = ["LogitsProcessor"]


class LogitsProcessor:
    """Masks ``scores`` so that every row stays a prefix of the grammar (batch- and beam-aware).

    Build one per ``generate`` call: ``model.generate(**inputs,
    logits_processor=LogitsProcessorList([typedgen.LogitsProcessor(compiled)]))``. The prompt
    length is taken from the first call (left padding keeps it the same for every row). Rows that
    already accepted EOS are left unmasked, so transformers can pad them.
    """

    def __init__(self, compiled: CompiledGrammar) -> None:
        self.compiled = compiled
        self._n_words = (compiled.vocabulary.size + 31) // 32
        self._prompt_length: int | None = None
        self._matchers: dict[tuple[int, ...], Matcher | None] = {}

    def reset(self) -> None:
        """Forget every sequence (to reuse the processor for another ``generate`` call)."""
        self._prompt_length = None
        self._matchers.clear()

    def _matcher(self, generated: tuple[int, ...]) -> Matcher | None:
        if generated in self._matchers:
            return self._matchers[generated]
        if not generated:
            found: Matcher | None = self.compiled.matcher()
        else:
            parent = self._matcher(generated[:-1])
            found = None
            if parent is not None and not parent.is_terminated():
                child = parent.fork()
                if child.accept_token(generated[-1]):
                    found = child
        self._matchers[generated] = found
        return found

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self._prompt_length is None:
            self._prompt_length = int(input_ids.shape[1])
        start = self._prompt_length
        keys = [tuple(row[start:]) for row in input_ids.tolist()]
        words = np.zeros((len(keys), self._n_words), dtype=np.int32)
        live: list[int] = []
        matchers: list[Matcher] = []
        for r, key in enumerate(keys):
            matcher = self._matcher(key)
            if matcher is None or matcher.is_terminated():
                continue  # finished (or stepped past EOS): transformers pads these rows
            matchers.append(matcher)
            live.append(r)
        fill_batch(matchers, words, live)  # one call, GIL released, rows on a thread pool
        wanted = set(keys)
        for key in [k for k in self._matchers if k not in wanted]:
            del self._matchers[key]
        return apply_token_bitmask(scores, words[live], live)

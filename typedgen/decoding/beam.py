"""Grammar-constrained beam search: one matcher per beam, forked and dropped with the beam.

Scores are sums of log-probabilities under the *masked, renormalised* distribution (what the
constrained model actually samples from), divided by ``length ** length_penalty`` when
hypotheses are compared. With one beam this is greedy decoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from typedgen.decoding.forward import Forward
from typedgen.decoding.loop import DecodeOptions, describe_expected, incomplete
from typedgen.decoding.sampling import allowed_ids
from typedgen.errors import DecodeError, GenerationError, OptionError
from typedgen.runtime.batch import fill_batch

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.models import LoadedModel
    from typedgen.runtime.matcher import Matcher

__all__ = ["BeamResult", "beam_search"]


@dataclass(eq=False)
class _Beam:
    score: float
    tokens: list[int]
    matcher: Matcher
    parent: int = 0


@dataclass
class BeamResult:
    """The best hypothesis: its text and tokens, or the error that ended the search."""

    text: str
    tokens: list[int] = field(default_factory=list)
    score: float = 0.0
    error: GenerationError | None = None

    @property
    def sampled(self) -> int:
        return len(self.tokens)


def beam_search(
    model: LoadedModel,
    compiled: CompiledGrammar,
    prompt: list[int],
    num_beams: int,
    options: DecodeOptions,
    length_penalty: float = 1.0,
) -> BeamResult:
    """Beam search under the grammar; finished hypotheses are those that chose EOS."""
    import torch

    if num_beams < 1:
        raise OptionError(f"num_beams must be >= 1, not {num_beams}", code="option-value")
    vocab = compiled.vocabulary
    n_words = (vocab.size + 31) // 32
    pad = next(iter(vocab.eos_ids), 0)
    forward = Forward(model.model, 1, model.device, pad)
    logits, _, offset = forward([prompt], [len(prompt) - 1])
    forward.advance(0, len(prompt))
    rows = logits[:, len(prompt) - 1 - offset]
    beams = [_Beam(0.0, [], compiled.matcher())]
    finished: list[tuple[float, list[int]]] = []

    def text(tokens: list[int]) -> str:
        return vocab.decode(tokens).decode("utf-8", errors="replace")

    def norm(score: float, length: int) -> float:
        return float(score / max(length, 1) ** length_penalty)

    for _ in range(options.max_tokens + 1):
        words = np.zeros((len(beams), n_words), dtype=np.int32)
        fill_batch([beam.matcher for beam in beams], words)
        candidates: list[tuple[float, int, int]] = []
        for b, beam in enumerate(beams):
            allowed = allowed_ids(words[b], min(vocab.size, rows.shape[-1]))
            if not allowed.shape[0]:
                continue
            index = torch.from_numpy(allowed).to(rows.device)
            values = rows[b].index_select(0, index).double().cpu().numpy()
            top = values.max()
            logp = values - (top + np.log(np.exp(values - top).sum()))
            # Highest first; equal scores keep the lower id first, as argmax would.
            order = np.argsort(-logp, kind="stable")[: 2 * num_beams]
            candidates.extend((beam.score + float(logp[k]), b, int(allowed[k])) for k in order)
        candidates.sort(key=lambda c: -c[0])
        fresh: list[_Beam] = []
        for score, b, token in candidates:
            parent = beams[b]
            if token in vocab.eos_ids:
                finished.append((norm(score, len(parent.tokens) + 1), parent.tokens))
                continue
            if len(parent.tokens) >= options.max_tokens:
                continue
            matcher = parent.matcher.fork()
            if matcher.accept_token(token):
                fresh.append(_Beam(score, [*parent.tokens, token], matcher, b))
            if len(fresh) == num_beams:
                break
        best_alive = max((norm(f.score, len(f.tokens)) for f in fresh), default=-np.inf)
        if not fresh or (len(finished) >= num_beams and max(s for s, _ in finished) >= best_alive):
            break
        beams = fresh
        forward.select([f.parent for f in fresh])
        logits, _, offset = forward([[f.tokens[-1]] for f in fresh], [0] * len(fresh))
        for i in range(len(fresh)):
            forward.advance(i, 1)
        rows = logits[:, -offset if offset else 0]
    if finished:
        score, tokens = max(finished, key=lambda f: f[0])
        return BeamResult(text(tokens), tokens, score)
    best = max(beams, key=lambda b: b.score)
    if best.matcher.is_complete():
        return BeamResult(text(best.tokens), best.tokens, best.score)
    error: GenerationError
    if len(best.tokens) >= options.max_tokens:
        error = incomplete(
            options.max_tokens, text(best.tokens), describe_expected(best.matcher, vocab)
        )
    else:
        error = DecodeError("every beam reached a dead end", partial_text=text(best.tokens))
    return BeamResult(text(best.tokens), best.tokens, best.score, error)

"""Grammar-constrained beam search: one matcher per beam, forked and dropped with the beam.

Scores are sums of log-probabilities under the *masked, renormalised* distribution (what the
constrained model actually samples from), divided by ``length ** length_penalty`` when
hypotheses are compared. With one beam this is greedy decoding.

The loop's options hold here too. ``jump_forward="force"`` appends the bytes the grammar forces
after each beam's token (canonical tokens, fed with it in the next pass, no score: nothing was
chosen); ``"exact"`` promises the output of plain decoding and beams give exactly that (no
drafts are verified, so it costs what ``"off"`` costs). ``on_max_tokens="finish"`` closes a beam
whose budget leaves room for little else with the grammar's shortest completion; such closed
hypotheses count only when no beam finished with EOS.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from typedgen.decoding.forward import Forward
from typedgen.decoding.loop import (
    CLOSE_WINDOW,
    DecodeOptions,
    Speller,
    closing_tokens,
    completion_need,
    describe_expected,
    incomplete,
)
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
    pending: list[int] = field(default_factory=list)
    """Tokens to feed in the next pass (the chosen token and any forced after it)."""
    sampled: int = 0
    forced: int = 0


@dataclass
class BeamResult:
    """The best hypothesis: its text and tokens, or the error that ended the search."""

    text: str
    tokens: list[int] = field(default_factory=list)
    score: float = 0.0
    error: GenerationError | None = None
    sampled: int = 0
    forced: int = 0
    closed: bool = False
    """Closed by ``on_max_tokens="finish"`` with the grammar's shortest completion."""


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
    speller = Speller(model.tokenizer, vocab)
    budget = options.max_tokens
    jump = options.jump_forward == "force"
    finish = options.on_max_tokens == "finish"
    forward = Forward(model.model, 1, model.device, pad)
    root = _Beam(0.0, [], compiled.matcher())
    # As for one sequence, completions are searched from the usual window plus the length of
    # the shortest completion (here measured once, from the start).
    window = CLOSE_WINDOW + completion_need(root.matcher, speller) if finish else CLOSE_WINDOW
    if jump:
        _jump(root, speller, budget)
    feed = prompt + root.pending
    logits, _, offset = forward([feed], [len(feed) - 1])
    forward.advance(0, len(feed))
    rows = logits[:, len(feed) - 1 - offset]
    beams = [root]
    finished: list[tuple[float, _Beam]] = []
    closed: list[tuple[float, _Beam]] = []

    def text(tokens: list[int]) -> str:
        return vocab.decode(tokens).decode("utf-8", errors="replace")

    def norm(score: float, length: int) -> float:
        return float(score / max(length, 1) ** length_penalty)

    for _ in range(budget + 1):
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
                done = _Beam(score, parent.tokens, parent.matcher, b, [], parent.sampled)
                done.forced = parent.forced
                finished.append((norm(score, len(parent.tokens) + 1), done))
                continue
            if len(parent.tokens) >= budget:
                continue
            matcher = parent.matcher.fork()
            if not matcher.accept_token(token):
                continue
            beam = _Beam(
                score,
                [*parent.tokens, token],
                matcher,
                b,
                [token],
                parent.sampled + 1,
                parent.forced,
            )
            if jump:
                _jump(beam, speller, budget)
            if finish and not matcher.is_complete():
                tail = closing_tokens(matcher, speller, budget - len(beam.tokens), window=window)
                if tail is not None and _accept_all(matcher, tail):
                    beam.tokens.extend(tail)
                    beam.forced += len(tail)
                    closed.append((norm(score, len(beam.tokens)), beam))
                    continue
            fresh.append(beam)
            if len(fresh) == num_beams:
                break
        best_alive = max((norm(f.score, len(f.tokens)) for f in fresh), default=-np.inf)
        if not fresh or (len(finished) >= num_beams and max(s for s, _ in finished) >= best_alive):
            break
        beams = fresh
        forward.select([f.parent for f in fresh])
        feeds = [f.pending for f in fresh]
        logits, _, offset = forward(feeds, [len(f) - 1 for f in feeds])
        for i, f in enumerate(feeds):
            forward.advance(i, len(f))
        last = torch.tensor([len(f) - 1 - offset for f in feeds], device=logits.device)
        rows = logits[torch.arange(len(feeds), device=logits.device), last]
    for pool, is_closed in ((finished, False), (closed, True)):
        if pool:
            _, best = max(pool, key=lambda f: f[0])
            return BeamResult(
                text(best.tokens),
                best.tokens,
                best.score,
                None,
                best.sampled,
                best.forced,
                is_closed,
            )
    best = max(beams, key=lambda b: b.score)
    result = BeamResult(text(best.tokens), best.tokens, best.score, None, best.sampled, best.forced)
    if best.matcher.is_complete():
        return result
    if len(best.tokens) >= budget:
        result.error = incomplete(budget, result.text, describe_expected(best.matcher, vocab))
    else:
        result.error = DecodeError("every beam reached a dead end", partial_text=result.text)
    return result


def _jump(beam: _Beam, speller: Speller, budget: int) -> None:
    """Append the bytes the grammar forces next, as the loop's ``"force"`` mode does: the
    beam's last token (not fed yet) is re-spelled together with them where the tokenizer
    spells the whole canonically, else their canonical tokens follow it (as far as they fit)."""
    matcher = beam.matcher
    forced = matcher.forced_bytes()
    room = budget - len(beam.tokens)
    if not forced or room <= 0:
        return
    if beam.tokens and beam.pending == beam.tokens[-1:]:
        last = beam.tokens[-1]
        whole = speller.vocab.tokens[last] + forced
        spelled = speller.draft(whole)
        if 1 < len(spelled) <= room + 1 and speller.vocab.decode(spelled) == whole:
            matcher.rollback(1)
            if _accept_all(matcher, spelled):
                beam.tokens[-1:] = spelled
                beam.pending = list(spelled)
                beam.forced += len(spelled) - 1
                return
            matcher.accept_token(last)
    kept = 0
    for token in speller.draft(forced)[:room]:
        if not matcher.accept_token(token):
            break
        beam.tokens.append(token)
        beam.pending.append(token)
        kept += 1
    beam.forced += kept


def _accept_all(matcher: Matcher, tokens: list[int]) -> bool:
    """Accept every token, or none (the matcher unchanged)."""
    for n, token in enumerate(tokens):
        if not matcher.accept_token(token):  # pragma: no cover - the completion is in the grammar
            matcher.rollback(n)
            return False
    return True

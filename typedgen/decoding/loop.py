"""The constrained decoding loop: KV cache, masks before sampling, overlap, jump-forward, batches.

Every step feeds each live row the tokens it has not fed yet (the prompt, at the start) and
takes the logits after them; the row's grammar mask is applied, a token is chosen, the matcher
accepts it. Jump-forward handles the bytes the grammar forces next (``{"name": "`` after ``{`` in
a fixed schema) in one of two ways:

- ``"force"`` (the default): the forced bytes are appended without sampling. They are tokenised
  canonically *together with the token just sampled* (which the model has not seen yet), so the
  model sees a natural tokenisation across the boundary, and a run of n forced tokens costs one
  forward pass. The text differs from plain decoding only where plain decoding would have spelled
  forced bytes with unnatural tokens (which then changes what the model writes next).
- ``"exact"``: the canonical tokens of the forced bytes are fed as a *draft*; the row then chooses
  position by position exactly as plain decoding would (same mask, same sampler, same random
  draw), keeping draft tokens while they agree, and at the first difference the rest of the
  draft becomes holes in the cache. The output is identical to plain decoding; only the number of
  passes drops (by as much as the model agrees with the canonical tokenisation).

The masks of step t are computed on a worker thread while the model computes step t's logits
(torch releases the GIL in its kernels) when that can run in parallel: on a GPU, or with a CPU
core that torch's threads leave free. Otherwise the worker would only steal cores from the
matrix products, and the masks are computed inline.
"""

from __future__ import annotations

import codecs
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from typedgen.decoding.forward import Forward
from typedgen.decoding.json_keys import KeyEvent, KeyTracker
from typedgen.decoding.loops import (
    DIGIT_RUN_BYTES,
    LoopEvent,
    LoopGuard,
    closing_bytes,
    digit_run,
    find_repetition,
    inside_free_text,
    long_run,
    run_eligible,
    run_start,
    tokens_spelling_prefix,
    trailing_digits,
)
from typedgen.decoding.sampling import SamplingParams, allowed_ids
from typedgen.errors import DecodeError, GenerationError, IncompleteOutputError, OptionError
from typedgen.runtime.batch import fill_batch

if TYPE_CHECKING:
    from typedgen.compiler.compiled import CompiledGrammar
    from typedgen.compiler.vocabulary import Vocabulary
    from typedgen.models import LoadedModel
    from typedgen.runtime.matcher import Matcher

__all__ = ["DecodeOptions", "Decoder", "Row", "Speller", "describe_expected", "incomplete"]

_EXECUTOR: ThreadPoolExecutor | None = None
_EXECUTOR_LOCK = threading.Lock()


def _should_overlap(model: LoadedModel) -> bool:
    """Overlap masks with the forward pass only where they truly run in parallel."""
    if not str(model.device).startswith("cpu"):
        return True
    import torch

    return (os.cpu_count() or 1) > torch.get_num_threads()


def _executor() -> ThreadPoolExecutor:
    """The one mask worker of the process (decoders on several threads queue their jobs)."""
    global _EXECUTOR
    with _EXECUTOR_LOCK:
        if _EXECUTOR is None:
            _EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="typedgen-mask")
        return _EXECUTOR


JUMP_MODES = ("force", "exact", "off")
CLOSE_WINDOW = 96
"""With ``on_max_tokens="finish"``, completions are searched only this close to the budget,
plus the length of the shortest completion itself (a large schema's required properties can
take more than the whole budget's usual window: see :meth:`Decoder._window`)."""
NEED_EVERY = 16
"""Tokens between two measures of a row's shortest completion outside the window."""
CLOSE_MARGIN = 4


@dataclass(frozen=True)
class DecodeOptions:
    """Loop settings shared by every row of a batch.

    ``jump_forward`` is ``"force"`` (or ``True``), ``"exact"``, or ``"off"`` (or ``False``);
    ``overlap=None`` decides by the hardware (see the module docstring).
    """

    max_tokens: int = 512
    sampling: SamplingParams = field(default_factory=SamplingParams)
    jump_forward: str | bool = "force"
    overlap: bool | None = None
    on_max_tokens: str = "raise"
    """``"raise"`` (``IncompleteOutputError``) or ``"finish"``: near the end of the budget, close
    the output with the grammar's shortest completion (truncating what was being written)."""
    loop_guard: LoopGuard | None = None
    """Stop degenerate loops inside free text (see :mod:`typedgen.decoding.loops`)."""
    unique_keys: bytes | None = None
    """For JSON output: the text right before the JSON (``b""`` when it starts at once); a key
    its object already holds is not written again (see :mod:`typedgen.decoding.json_keys`).
    ``None``: off."""

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise OptionError(
                f"max_tokens must be >= 1, not {self.max_tokens}",
                code="option-value",
                hint="max_tokens bounds the tokens of one attempt; the default is 512",
            )
        mode = self.jump_forward
        if mode is True:
            mode = "force"
        elif mode is False:
            mode = "off"
        if mode not in JUMP_MODES:
            raise OptionError(
                f"jump_forward must be one of {JUMP_MODES} or a bool, not {mode!r}",
                code="option-value",
            )
        object.__setattr__(self, "jump_forward", mode)
        if self.on_max_tokens not in ("raise", "finish"):
            raise OptionError(
                f"on_max_tokens must be 'raise' or 'finish', not {self.on_max_tokens!r}",
                code="option-value",
            )


@dataclass(frozen=True)
class _Steer:
    """The loop guard's decision for one position."""

    penalty: tuple[npt.NDArray[np.int64], float] | None = None
    only_first: frozenset[int] = frozenset()
    """Keep only tokens starting with one of these bytes (they end the lexeme)."""
    rewind_to: int | None = None


@dataclass(eq=False)
class Row:
    """One sequence: its matcher, what it generated, and how it ended."""

    matcher: Matcher
    prompt_tokens: int
    rng: np.random.Generator
    tokens: list[int] = field(default_factory=list)
    sampled: int = 0
    forced: int = 0
    done: bool = False
    closed: bool = False
    """Closed early by ``on_max_tokens="finish"`` with the grammar's shortest completion."""
    error: GenerationError | None = None
    pending: list[int] = field(default_factory=list)
    draft: list[int] = field(default_factory=list)
    prompt: list[int] = field(default_factory=list)
    loops: list[LoopEvent] = field(default_factory=list)
    """Loops the guard met, in order."""
    banned: dict[int, set[int]] = field(default_factory=dict)
    """Token ids excluded at a position (index into ``tokens``), set by :meth:`Decoder.rewind`."""
    close_at: int | None = None
    """The position where the loop guard makes the next token end the free-text lexeme."""
    strikes: int = 0
    """Positions of the current stretch at which the loop guard met a loop."""
    last_strike: int = -1
    not_loop: tuple[int, tuple[int, ...]] | None = None
    """The last repetition found outside free text (start, unit): growing it changes nothing."""
    rewound: int = 0
    """Tokens the loop guard has rolled back; at most ``max_tokens`` in all, so a row decodes
    at most twice its budget whatever the guard does."""
    need: tuple[int, int] | None = None
    """With ``on_max_tokens="finish"``: (position, tokens of the shortest completion there),
    measured every ``NEED_EVERY`` tokens."""
    keys: KeyTracker | None = None
    """The JSON object keys written so far (``DecodeOptions.unique_keys``)."""
    repeated_keys: list[KeyEvent] = field(default_factory=list)
    """Repeated object keys met, in order."""

    @property
    def finished(self) -> bool:
        """Ended with a complete sentence of the grammar."""
        return self.done and self.error is None


def describe_expected(matcher: Matcher, vocab: Vocabulary) -> str:
    """What the grammar allows next, for error messages: forced bytes or the allowed bytes."""
    forced = matcher.forced_bytes()
    if forced:
        return f"the grammar forces {forced.decode('utf-8', errors='replace')!r} next"
    allowed = matcher.allowed_bytes()
    if matcher.is_complete():
        return "the end of the output or more" if allowed else "the end of the output"
    if not allowed:
        return "nothing (the text is complete)" if matcher.is_complete() else "nothing"
    shown = ", ".join(repr(chr(b)) if b < 128 else f"0x{b:02x}" for b in allowed[:24])
    more = f" and {len(allowed) - 24} more" if len(allowed) > 24 else ""
    return f"one of the bytes {shown}{more}"


def incomplete(max_tokens: int, text: str, expected: str) -> IncompleteOutputError:
    """The error for a budget that ran out: the end of the text and what may come next."""
    tail = text if len(text) <= 80 else "..." + text[-77:]
    return IncompleteOutputError(
        f"max_tokens={max_tokens} ran out before the output was complete; it ends with"
        f" {tail!r} and {expected}",
        partial_text=text,
        expected=expected,
        hint="raise max_tokens, or bound the grammar (maxLength, maxItems, {m,n}, maximum)",
    )


class Speller:
    """Tokens for bytes the grammar chose (forced bytes, completions): the tokenizer's
    canonical spelling where it spells them exactly, memoised (shared by the loop and beams)."""

    def __init__(self, tokenizer: Any, vocab: Vocabulary) -> None:
        self.tokenizer = tokenizer
        self.vocab = vocab
        self._drafts: dict[bytes, list[int]] = {}
        self._byte_tokens: dict[int, int] | None = None

    def draft(self, forced: bytes) -> list[int]:
        """The canonical tokens of ``forced`` (of its longest prefix they spell exactly)."""
        found = self._drafts.get(forced)
        if found is not None:
            return found
        try:  # the complete characters at the front (none if it starts mid-character)
            text = codecs.getincrementaldecoder("utf-8")().decode(forced)
        except UnicodeDecodeError:
            text = ""
        tokens: list[int] = []
        if text:
            ids = self.tokenizer.encode(text, add_special_tokens=False)
            spelled = b""
            table, special = self.vocab.tokens, self.vocab.special_ids
            for t in ids:
                piece = table[t] if 0 <= t < len(table) else b""
                if not piece or t in special or not forced.startswith(spelled + piece):
                    break
                spelled += piece
                tokens.append(t)
        self._drafts[forced] = tokens
        return tokens

    def spell(self, data: bytes) -> list[int] | None:
        """Tokens spelling ``data`` exactly: canonical, else one single-byte token per byte."""
        canonical = self.draft(data)
        if self.vocab.decode(canonical) == data:
            return canonical
        if self._byte_tokens is None:
            self._byte_tokens = {}
            for t, piece in enumerate(self.vocab.tokens):
                if len(piece) == 1 and t not in self.vocab.special_ids:
                    self._byte_tokens.setdefault(piece[0], t)
        singles = [self._byte_tokens.get(b) for b in data]
        return None if any(t is None for t in singles) else [t for t in singles if t is not None]


def closing_tokens(
    matcher: Matcher,
    speller: Speller,
    room: int,
    *,
    now: bool = False,
    window: int = CLOSE_WINDOW,
) -> list[int] | None:
    """With ``on_max_tokens="finish"``: the tokens of the grammar's shortest completion once
    the budget (``room`` tokens left) leaves space for little else (``now``: whenever they
    fit), or ``None`` while the model may still write (or when no completion fits). Searched
    only within ``window`` tokens of the budget's end."""
    if room > window:
        return None
    tokens = completion_tokens(matcher, speller)
    # Leave the model every step that still leaves room for the closing tokens (plus a
    # margin: one sampled token may open something that lengthens the completion).
    if tokens is None or len(tokens) > room or (not now and len(tokens) + CLOSE_MARGIN < room):
        return None
    return tokens


def completion_tokens(matcher: Matcher, speller: Speller) -> list[int] | None:
    """The tokens of the grammar's shortest completion from here (``None``: none found)."""
    tail = matcher.shortest_completion()
    return None if tail is None else speller.spell(tail)


def completion_need(matcher: Matcher, speller: Speller) -> int:
    """How many tokens the grammar's shortest completion from here takes (0: none found)."""
    tokens = completion_tokens(matcher, speller)
    return 0 if tokens is None else len(tokens)


def overruns(
    matcher: Matcher, speller: Speller, room: int, token: int, window: int = CLOSE_WINDOW
) -> bool:
    """Whether taking ``token`` leaves a text whose shortest completion no longer fits in the
    ``room - 1`` tokens after it, while the text before it still closes within ``room``:
    then the row closes now instead (after SQL's ``wi`` the completion grows from 3 tokens to
    9, past what the margin allows for). Probed at every step of the last ``CLOSE_WINDOW``
    tokens: the growth can come from outside the margin (room 7, a 2-token completion, then
    9 tokens after the next one), and only with ``on_max_tokens="finish"``."""
    if room > window or closing_tokens(matcher, speller, room, now=True, window=window) is None:
        return False
    if not matcher.accept_token(token):
        return False
    try:
        spelled = completion_tokens(matcher, speller)
    finally:
        matcher.rollback(1)
    return spelled is None or len(spelled) > room - 1


class Decoder:
    """Runs one batch of prompts under one compiled grammar; iterate :meth:`steps`."""

    def __init__(
        self,
        model: LoadedModel,
        compiled: CompiledGrammar,
        prompts: list[list[int]],
        options: DecodeOptions,
    ) -> None:
        if not prompts or any(not p for p in prompts):
            raise OptionError(
                "every prompt must have at least one token",
                code="prompt-empty",
                hint="a tokenizer without a chat template or BOS token encodes '' to no tokens",
            )
        self.model = model
        self.compiled = compiled
        self.options = options
        self.vocab = compiled.vocabulary
        self.rows = [
            Row(
                compiled.matcher(), len(p), options.sampling.rng(i), pending=list(p), prompt=list(p)
            )
            for i, p in enumerate(prompts)
        ]
        if options.unique_keys is not None:
            for row in self.rows:
                row.keys = KeyTracker(self.vocab.tokens, options.unique_keys)
        self._first_byte: npt.NDArray[np.int16] | None = None
        self._loop_tokens: dict[bytes, npt.NDArray[np.int64]] = {}
        self._n_words = (self.vocab.size + 31) // 32
        pad = getattr(model.tokenizer, "pad_token_id", None)
        if pad is None:
            pad = next(iter(self.vocab.eos_ids), 0)
        self._forward = Forward(model.model, len(prompts), model.device, int(pad))
        self._speller = Speller(model.tokenizer, self.vocab)
        self._overlap = _should_overlap(model) if options.overlap is None else options.overlap
        self.forward_passes = 0
        self.mask_seconds = 0.0
        self.forward_seconds = 0.0

    # -- the loop ---------------------------------------------------------------------------------
    def steps(self) -> Iterator[list[tuple[int, bytes]]]:
        """Decode until every row is done; yields, per step, each row's new text bytes.

        With forced jump-forward the last token may be re-spelled together with the forced bytes;
        the text only ever grows, so the bytes are what is new.
        """
        first = [(i, self._plan(row)) for i, row in enumerate(self.rows)]
        if any(delta for _, delta in first):
            yield first
        while True:
            live = [i for i, row in enumerate(self.rows) if not row.done]
            if not live:
                return
            feeds = [[] if row.done else row.pending + row.draft for row in self.rows]
            need_from = [max(len(row.pending) - 1, 0) for row in self.rows]
            job = _executor().submit(self._masks, live) if self._overlap else None
            t0 = time.perf_counter()
            logits, first_slot, offset = self._forward(feeds, need_from)
            self.forward_seconds += time.perf_counter() - t0
            self.forward_passes += 1
            masks = job.result() if job is not None else self._masks(live)
            update: list[tuple[int, bytes]] = []
            for i in live:
                words, accepted = masks[i]
                new = self._commit(i, logits, first_slot, offset, words, accepted)
                delta = self.vocab.decode(new)
                if not self.rows[i].done:
                    delta += self._plan(self.rows[i])
                update.append((i, delta))
            yield update

    def run(self) -> list[Row]:
        """Decode to the end and return the rows."""
        for _ in self.steps():
            pass
        return self.rows

    # -- per row ----------------------------------------------------------------------------------
    def _masks(self, live: list[int]) -> dict[int, tuple[npt.NDArray[np.int32], int]]:
        """Each live row's masks after its committed text and after every draft prefix.

        The matcher accepts the draft as it goes (``accepted`` tokens of it); the commit rolls
        back whatever the model does not keep.
        """
        t0 = time.perf_counter()
        out: dict[int, tuple[npt.NDArray[np.int32], int]] = {}
        plain = [i for i in live if not self.rows[i].draft]
        if len(plain) > 1:
            # Rows without a draft: one batch fill (native rows on a thread pool, no GIL).
            batch = np.zeros((len(plain), self._n_words), dtype=np.int32)
            fill_batch([self.rows[i].matcher for i in plain], batch)
            for k, i in enumerate(plain):
                out[i] = (batch[k : k + 1], 0)
        for i in live:
            if i in out:
                continue
            row = self.rows[i]
            words = np.zeros((len(row.draft) + 1, self._n_words), dtype=np.int32)
            matcher = row.matcher
            matcher.fill_next_token_bitmask(words, 0)
            accepted = 0
            for j, token in enumerate(row.draft):
                if not matcher.accept_token(token):
                    break
                accepted += 1
                matcher.fill_next_token_bitmask(words, j + 1)
            out[i] = (words, accepted)
        self.mask_seconds += time.perf_counter() - t0
        return out

    def _commit(
        self,
        i: int,
        logits: Any,
        first_slot: int,
        offset: int,
        words: npt.NDArray[np.int32],
        accepted: int,
    ) -> list[int]:
        """Choose row ``i``'s tokens from this pass's logits; returns the tokens committed."""
        row = self.rows[i]
        sampling = self.options.sampling
        base = len(row.pending) - 1
        fed = len(row.pending) + len(row.draft)
        size = min(self.vocab.size, logits.shape[-1])
        new: list[int] = []
        kept_draft = 0
        chosen = -1
        dead = False
        steer = _Steer() if row.draft else self._steer(row)
        if steer.rewind_to is not None:
            self._rewind_now(i, accepted, first_slot, fed, steer.rewind_to)
            row.close_at = steer.rewind_to
            return []
        for j in range(accepted + 1):
            allowed = allowed_ids(words[j], size)
            penalty = None
            pools = [allowed]
            if j == 0:
                pools = [self._exclude(row, allowed, steer)]
                if steer.only_first:  # the allowed tokens without the loop guard's steer
                    pools.append(self._exclude(row, allowed, _Steer()))
                allowed = pools[0]
                penalty = steer.penalty
            if not allowed.shape[0]:
                dead = True
                break
            chosen = sampling.choose(logits[i, base + j - offset], allowed, row.rng, penalty)
            if j < accepted and chosen == row.draft[j]:
                kept_draft += 1
                new.append(chosen)
                continue
            if row.keys is not None:
                logit_row = logits[i, base + j - offset]
                chosen, back = self._unique_key(row, new, logit_row, pools, chosen, penalty)
                if back is not None:
                    self._rewind_now(i, accepted, first_slot, fed, back, row.tokens[back])
                    return []
            break
        # The matcher holds the accepted draft; keep the part the model agreed with.
        row.matcher.rollback(accepted - kept_draft)
        row.forced += kept_draft
        row.tokens.extend(new)
        self._forward.advance(i, len(row.pending) + kept_draft, first_slot)
        self._forward.hole(i, first_slot + len(row.pending) + kept_draft, first_slot + fed)
        row.pending = []
        row.draft = []
        if dead:
            self._fail_dead(row)
            return new
        if (
            self.options.on_max_tokens == "finish"
            and chosen not in self.vocab.eos_ids
            and not row.matcher.is_complete()
            and overruns(
                row.matcher,
                self._speller,
                self.options.max_tokens - len(row.tokens),
                chosen,
                self._window(row),
            )
        ):
            new.extend(self._close(row, now=True))
            new.extend(self._settle(row))
            return new
        if not row.matcher.accept_token(chosen):  # pragma: no cover - the mask allowed it
            self._fail_dead(row)
            return new
        if chosen in self.vocab.eos_ids:
            row.done = True
            return new
        row.sampled += 1
        row.tokens.append(chosen)
        new.append(chosen)
        row.pending = [chosen]
        new.extend(self._settle(row))
        return new

    # -- loops and exclusions -------------------------------------------------------------------
    def _steer(self, row: Row) -> _Steer:
        """What the loop guard does at the row's next position (nothing in most steps)."""
        guard = self.options.loop_guard
        position = len(row.tokens)
        if row.close_at is not None:
            if row.close_at == position:
                row.close_at = None
                closers = closing_bytes(row.matcher)
                if closers:
                    return _Steer(only_first=closers)
            row.close_at = None
        if guard is None:
            return _Steer()
        limit = guard.number_digits
        if limit and trailing_digits(row.tokens, self.vocab.tokens, limit) >= limit:
            # End the lexeme if the grammar lets it end; else leave the digits (a pattern's
            # `(\d+)\.` goes on to its `.`).
            closers = closing_bytes(row.matcher) or frozenset(
                b for b in row.matcher.allowed_bytes() if not 0x30 <= b <= 0x39
            )
            if closers:
                row.loops.append(LoopEvent(position, f"{limit} digits", 1, "closed"))
                return _Steer(only_first=closers)
        found = find_repetition(row.tokens, guard)
        if found is None:
            return _Steer()
        if row.not_loop == (found.start, found.unit):
            return _Steer()
        span_tokens = len(found.unit) * found.repeats
        span = self.vocab.decode(row.tokens[-span_tokens:])
        if len(span) < guard.min_bytes:
            return _Steer()
        digits = digit_run(span)
        if digits and len(span) < DIGIT_RUN_BYTES:
            return _Steer()
        unit = self.vocab.decode(list(found.unit))
        free = digits or inside_free_text(row.matcher, span, span_tokens)
        base = guard.repeats  # the repetitions at which the penalty starts
        if found.repeats < guard.repeats:  # a phrase seen twice: in free text only
            loop = free and not digits and len(unit) >= guard.phrase_bytes
        elif free or 0 < guard.structure_bytes <= len(unit):
            loop = True
        else:  # a short unit across lexemes: only a long run of it (``1, 1, 1, ...``)
            short = len(unit) < guard.structure_bytes  # structure_bytes=0: none across lexemes
            loop = short and long_run(unit, span, guard.run_bytes)
            base = run_start(unit, guard)
            if short and not loop and run_eligible(unit, guard.run_bytes):
                return _Steer()  # not yet: looked at again as the run grows
        if not loop:
            row.not_loop = (found.start, found.unit)
            return _Steer()
        shown = unit.decode("utf-8", errors="replace")
        stretch = guard.max_unit * guard.repeats
        row.strikes = row.strikes + 1 if position - row.last_strike <= stretch else 1
        row.last_strike = position
        # A penalty only moves a runaway number to another digit: close it at once.
        closing = free and (
            guard.action == "close"
            or (guard.action == "penalty+close" and (digits or row.strikes >= guard.close_after))
        )
        if closing:
            # Close where the lexeme can end: at the first unit's end, or later in the span
            # where a pattern still wants more (``\\d{6}`` after one of its digits).
            keep = self._close_point(row, found.start + len(found.unit))
            if keep is None and digits:
                # Nowhere in the span may the lexeme end: leave the digits (a pattern's
                # ``(\\d+)\\.`` goes on to its ``.``) rather than rewind to the same place.
                others = frozenset(b for b in row.matcher.allowed_bytes() if not 0x30 <= b <= 0x39)
                if others:
                    row.strikes = 0
                    row.loops.append(LoopEvent(found.start, shown, found.repeats, "closed"))
                    return _Steer(only_first=others)
            elif keep is not None and row.rewound + position - keep <= self.options.max_tokens:
                row.strikes = 0
                row.loops.append(LoopEvent(found.start, shown, found.repeats, "closed"))
                if keep == position:
                    return _Steer(only_first=closing_bytes(row.matcher))
                row.rewound += position - keep
                return _Steer(rewind_to=keep)
        if not row.loops or row.loops[-1].token_index != found.start:
            row.loops.append(LoopEvent(found.start, shown, found.repeats, "penalty"))
        else:
            row.loops[-1] = LoopEvent(found.start, shown, found.repeats, "penalty")
        ids = self._loop_tokens.get(unit)
        if ids is None:
            ids = self._loop_tokens[unit] = tokens_spelling_prefix(self.compiled.trie, unit)
        amount = guard.penalty * 2.0 ** (found.repeats - base)
        return _Steer(penalty=(ids, amount))

    def _close_point(self, row: Row, first: int) -> int | None:
        """The fewest tokens, from ``first`` up to all of the row's, after which the lexeme may
        end (:func:`closing_bytes` is not empty), or ``None``."""
        probe = row.matcher.fork()
        probe.rollback(probe.num_accepted - first)
        for k in range(first, len(row.tokens) + 1):
            if closing_bytes(probe):
                return k
            if k == len(row.tokens) or not probe.accept_token(row.tokens[k]):
                break
        return None

    def _exclude(
        self, row: Row, allowed: npt.NDArray[np.int64], steer: _Steer
    ) -> npt.NDArray[np.int64]:
        """``allowed`` less the tokens excluded at this position (never down to nothing)."""
        banned = row.banned.get(len(row.tokens))
        if banned:
            kept = allowed[~np.isin(allowed, np.fromiter(banned, dtype=np.int64))]
            if kept.shape[0]:
                allowed = kept
        if steer.only_first:
            if self._first_byte is None:
                from typedgen.compiler.trie import token_features

                self._first_byte = token_features(self.vocab).first_byte
            firsts = self._first_byte[allowed]
            kept = allowed[np.isin(firsts, np.fromiter(steer.only_first, dtype=np.int16))]
            if kept.shape[0]:
                allowed = kept
        return allowed

    def _unique_key(
        self,
        row: Row,
        new: list[int],
        logits: Any,
        pools: list[npt.NDArray[np.int64]],
        chosen: int,
        penalty: tuple[npt.NDArray[np.int64], float] | None,
    ) -> tuple[int, int | None]:
        """(``chosen`` or another token, or a position to roll back to) where ``chosen`` would
        close a key its object already holds.

        A repeated key is taken for the object's end: the row goes back to the comma before the
        key, which is excluded there, so the model closes the object or goes on otherwise (while
        the rollbacks stay within ``max_tokens`` in all, as the loop guard's). Where it cannot
        (the comma is in this token, a draft was kept, the budget is spent), the model chooses
        among the other tokens of the first pool that has any: the allowed tokens, then the
        same without the loop guard's steer (a looping key closed into a repeated one is closed
        into another). Kept, and reported, when no pool has another token.
        """
        assert row.keys is not None
        text = row.tokens + new
        ahead = row.matcher.num_accepted - len(text)  # draft tokens the matcher holds beyond

        def forced_after(token: int) -> bytes:
            probe = row.matcher.fork()
            if ahead > 0:
                probe.rollback(ahead)
            return probe.forced_bytes() if probe.accept_token(token) else b""

        excluded: list[int] = []
        while (found := row.keys.repeated(text, chosen, partial(forced_after, chosen))) is not None:
            back = found.comma_at
            dropped = len(text) - back
            if (
                not new
                and 0 <= back < len(text)
                and row.rewound + dropped <= self.options.max_tokens
            ):
                row.rewound += dropped
                row.repeated_keys.append(KeyEvent(len(text), found.key, "rolled back"))
                return chosen, back
            excluded.append(chosen)
            rest = next(
                (r for pool in pools if (r := pool[~np.isin(pool, excluded)]).shape[0]), None
            )
            if rest is None:
                row.repeated_keys.append(KeyEvent(len(text), found.key, "kept"))
                return chosen, None
            event = KeyEvent(len(text), found.key, "excluded")
            if not row.repeated_keys or row.repeated_keys[-1] != event:
                row.repeated_keys.append(event)
            chosen = self.options.sampling.choose(logits, rest, row.rng, penalty)
        return chosen, None

    def _rewind_now(
        self,
        i: int,
        accepted: int,
        first_slot: int,
        fed: int,
        keep: int,
        exclude: int | None = None,
    ) -> None:
        """Within a step: drop the draft the matcher holds and this pass's cache entries, then
        :meth:`rewind` row ``i`` to ``keep`` tokens."""
        row = self.rows[i]
        row.matcher.rollback(accepted)
        self._forward.advance(i, len(row.pending), first_slot)
        self._forward.hole(i, first_slot + len(row.pending), first_slot + fed)
        row.pending = []
        row.draft = []
        self.rewind(i, keep, exclude)

    def rewind(self, i: int, keep: int, exclude: int | None = None) -> None:
        """Roll row ``i`` back to its first ``keep`` tokens (matcher and KV cache), optionally
        excluding token ``exclude`` at that position, and let it decode again from there.

        The token before the cut is fed again (its logits were not kept), so a rewind costs one
        token of recomputation, not the prefix.
        """
        row = self.rows[i]
        if not 0 <= keep <= len(row.tokens):
            raise OptionError(
                f"cannot rewind to {keep} tokens: the row has {len(row.tokens)}",
                code="rollback-range",
            )
        extra = row.matcher.num_accepted - len(row.tokens)  # EOS, or an unfed draft
        row.matcher.rollback(len(row.tokens) - keep + extra)
        del row.tokens[keep:]
        context = row.prompt + row.tokens
        self._forward.rewind(i, len(context) - 1)
        row.pending = context[-1:]
        row.draft = []
        row.done = False
        row.closed = False
        row.error = None
        for position in [p for p in row.banned if p > keep]:
            del row.banned[position]  # excluded after another prefix
        if exclude is not None:
            row.banned.setdefault(keep, set()).add(exclude)

    def _settle(self, row: Row) -> list[int]:
        """End the row if only EOS can follow, or if its token budget is spent.

        With ``on_max_tokens="finish"`` a row whose budget is about to run out is closed with the
        shortest completion the grammar allows; the tokens so appended are returned.
        """
        matcher = row.matcher
        closing: list[int] = []
        if self.options.on_max_tokens == "finish" and not matcher.is_complete():
            closing = self._close(row)
        if matcher.is_complete() and (row.closed or matcher.only_whitespace_follows()):
            # Only EOS (or trailing whitespace) can follow, or we closed: plain decoding would
            # end here.
            row.done = True
        elif len(row.tokens) >= self.options.max_tokens:
            row.done = True
            if not matcher.is_complete():
                row.error = incomplete(
                    self.options.max_tokens, self.text(row), describe_expected(matcher, self.vocab)
                )
        return closing

    def _close(self, row: Row, *, now: bool = False) -> list[int]:
        """Append the grammar's shortest completion once the budget leaves room for little else
        (``now``: whenever it fits)."""
        tokens = closing_tokens(
            row.matcher,
            self._speller,
            self.options.max_tokens - len(row.tokens),
            now=now,
            window=self._window(row),
        )
        if tokens is None:
            return []
        for n, token in enumerate(tokens):
            if not row.matcher.accept_token(token):  # pragma: no cover - tail is in the grammar
                row.matcher.rollback(n)
                return []
        row.tokens.extend(tokens)
        row.forced += len(tokens)
        row.closed = True
        return tokens

    def _window(self, row: Row) -> int:
        """How close to the budget's end completions are searched for this row: the usual
        window plus the shortest completion's length, measured every ``NEED_EVERY`` tokens
        (so a schema whose required properties take 106 of 128 tokens closes in time)."""
        at = len(row.tokens)
        if row.need is None or at - row.need[0] >= NEED_EVERY or at < row.need[0]:
            row.need = (at, completion_need(row.matcher, self._speller))
        return CLOSE_WINDOW + row.need[1]

    def _fail_dead(self, row: Row) -> None:
        row.done = True
        row.error = DecodeError(
            "the grammar allows no next token although the output is incomplete",
            partial_text=self.text(row),
            hint="this is a typedgen bug or a vocabulary that cannot spell the grammar;"
            " please report the grammar and the partial text",
        )

    def _plan(self, row: Row) -> bytes:
        """Jump forward over the bytes the grammar forces next; returns the text bytes added.

        ``"exact"`` only sets the row's draft (nothing is added until the model agrees);
        ``"force"`` appends the forced bytes, re-spelling the last (not yet fed) token with them.
        """
        mode = self.options.jump_forward
        room = self.options.max_tokens - len(row.tokens)
        if mode == "off" or room <= 0:
            return b""
        matcher = row.matcher
        forced = matcher.forced_bytes()
        if not forced:
            return b""
        if mode == "exact":
            row.draft = self._draft(forced)[: room - 1]
            return b""
        if row.tokens and row.pending == row.tokens[-1:]:
            last = row.tokens[-1]
            whole = self.vocab.tokens[last] + forced
            spelled = self._draft(whole)
            if (
                1 < len(spelled) <= room + 1
                and self.vocab.decode(spelled) == whole
                and self._replace_last(row, spelled)
            ):
                return forced + self.vocab.decode(self._settle(row))
        tokens = self._draft(forced)[:room]
        kept = 0
        for token in tokens:
            if not matcher.accept_token(token):
                break
            kept += 1
        tokens = tokens[:kept]
        if not tokens:
            return b""
        row.tokens.extend(tokens)
        row.pending.extend(tokens)
        row.forced += len(tokens)
        return self.vocab.decode(tokens + self._settle(row))

    def _replace_last(self, row: Row, spelled: list[int]) -> bool:
        """Re-spell the row's last token and the forced bytes as ``spelled`` (False if refused)."""
        matcher = row.matcher
        last = row.tokens[-1]
        matcher.rollback(1)
        for n, token in enumerate(spelled):
            if not matcher.accept_token(token):
                matcher.rollback(n)
                matcher.accept_token(last)
                return False
        row.tokens[-1:] = spelled
        row.pending = list(spelled)
        row.forced += len(spelled) - 1
        return True

    def _draft(self, forced: bytes) -> list[int]:
        return self._speller.draft(forced)

    # -- results ----------------------------------------------------------------------------------
    def text(self, row: Row) -> str:
        """The row's generated text (invalid UTF-8 at a cut shown as U+FFFD)."""
        return self.vocab.decode(row.tokens).decode("utf-8", errors="replace")

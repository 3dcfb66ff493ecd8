"""Sampling settings and the masked choice of one token.

The grammar mask is applied to the raw logits first; temperature, top-k and top-p then act on the
allowed tokens only, so they never re-admit a token the grammar refused. Random draws come from a
per-sequence numpy generator, one uniform per sampled position, so a seeded row draws the same
numbers whatever else runs in its batch and however many positions a forward pass verifies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from typedgen.errors import OptionError

if TYPE_CHECKING:
    import torch

    Words = npt.NDArray[np.int32] | torch.Tensor
    """Packed bitmask rows: numpy, or a torch tensor."""

__all__ = ["SamplingParams", "allowed_ids", "apply_token_bitmask", "unpack_masks"]


@dataclass(frozen=True)
class SamplingParams:
    """How the next token is chosen among the allowed ones.

    ``temperature=0`` (the default) is greedy; ``top_k`` keeps the k most likely allowed tokens,
    ``top_p`` the smallest set whose probability reaches p; ``seed`` makes sampling repeatable.
    """

    temperature: float = 0.0
    top_k: int | None = None
    top_p: float | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not (self.temperature >= 0 and math.isfinite(self.temperature)):
            raise OptionError(
                f"temperature must be a finite number >= 0, not {self.temperature}",
                code="option-value",
                hint="0 is greedy decoding; 0.7 to 1.0 is the usual sampling range",
            )
        if self.top_k is not None and self.top_k < 1:
            raise OptionError(
                f"top_k must be >= 1, not {self.top_k}",
                code="option-value",
                hint="pass top_k=None to keep every allowed token",
            )
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise OptionError(
                f"top_p must be in (0, 1], not {self.top_p}",
                code="option-value",
                hint="pass top_p=None (or 1.0) to keep every allowed token",
            )

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def rng(self, row: int = 0) -> np.random.Generator:
        """The generator of batch row ``row`` (seeded rows are independent and repeatable)."""
        if self.seed is None:
            return np.random.default_rng()
        return np.random.default_rng([self.seed, row])

    def choose(
        self,
        logits: torch.Tensor,
        allowed: npt.NDArray[np.int64],
        rng: Any,
        penalty: tuple[npt.NDArray[np.int64], float] | None = None,
    ) -> int:
        """One of the ``allowed`` token ids (ascending, non-empty) given the row's ``logits``.

        Only the allowed entries are gathered, so a step costs the size of the mask, not of the
        vocabulary. Greedy ties go to the lowest id, as ``argmax`` over masked logits would.
        ``penalty`` (token ids, amount) lowers those tokens' logits first (the loop guard).
        """
        import torch

        index = torch.from_numpy(allowed).to(logits.device)
        values = logits.index_select(0, index).double().cpu().numpy()
        if penalty is not None and penalty[0].shape[0]:
            ids, amount = penalty
            at = np.searchsorted(allowed, ids)
            hit = at < allowed.shape[0]
            at = at[hit]
            at = at[allowed[at] == ids[hit]]
            values[at] -= amount
        if self.greedy or allowed.shape[0] == 1:
            return int(allowed[int(np.argmax(values))])
        scores = values / self.temperature
        if self.top_k is not None and self.top_k < scores.shape[0]:
            kth = np.partition(scores, -self.top_k)[-self.top_k]
            scores = np.where(scores < kth, -np.inf, scores)
        probs = np.exp(scores - scores.max())
        probs /= probs.sum()
        if self.top_p is not None and self.top_p < 1:
            order = np.argsort(-probs, kind="stable")
            before = np.cumsum(probs[order]) - probs[order]
            probs[order[before >= self.top_p]] = 0.0
        cdf = np.cumsum(probs)
        pick = int(np.searchsorted(cdf, float(rng.random()) * cdf[-1], side="right"))
        pick = min(pick, probs.shape[0] - 1)
        while probs[pick] <= 0 and pick > 0:  # never a zero-probability entry
            pick -= 1
        return int(allowed[pick])


def allowed_ids(words: npt.NDArray[np.int32], size: int) -> npt.NDArray[np.int64]:
    """The token ids set in one packed bitmask row (ascending)."""
    bits = np.unpackbits(words.view(np.uint8), bitorder="little", count=size)
    return np.flatnonzero(bits)


_SHIFTS: dict[Any, torch.Tensor] = {}


def unpack_masks(words: Words, width: int, device: Any) -> torch.Tensor:
    """``(n, ceil(V/32))`` packed int32 bitmasks as an ``(n, width)`` bool tensor on ``device``.

    ``words`` is a numpy array or a torch tensor (on the CPU or already on ``device``). Columns
    past the bitmask's ``32 * ceil(V/32)`` bits (logits padded wider than the vocabulary) are
    ``False``: never allowed.
    """
    import torch

    device = torch.device(device)
    if isinstance(words, torch.Tensor) and words.device.type == "cpu":
        words = words.numpy()
    n, n_bits = words.shape[0], 32 * words.shape[1]
    if device.type == "cpu":  # numpy unpacks bytes: no (n, V) int32 intermediate
        packed = np.ascontiguousarray(words, dtype=np.int32)
        bits = np.unpackbits(
            packed.view(np.uint8), axis=1, bitorder="little", count=min(width, n_bits)
        )
        flat = torch.from_numpy(bits.view(np.bool_))
    else:
        shifts = _SHIFTS.get(device)
        if shifts is None:
            shifts = _SHIFTS[device] = torch.arange(32, dtype=torch.int32, device=device)
        if isinstance(words, torch.Tensor):
            on_device = words.to(device, non_blocking=True)
        else:
            on_device = torch.from_numpy(np.ascontiguousarray(words)).to(device, non_blocking=True)
        flat = ((on_device.unsqueeze(-1) >> shifts) & 1).reshape(n, -1).bool()[:, :width]
    if flat.shape[1] >= width:
        return flat
    pad = torch.zeros(n, width - flat.shape[1], dtype=torch.bool, device=flat.device)
    return torch.cat([flat, pad], dim=1)


def apply_token_bitmask(
    logits: torch.Tensor, words: Words, rows: Sequence[int] | None = None
) -> torch.Tensor:
    """Set ``logits[rows[i], t]`` to ``-inf`` where bit ``t`` of ``words[i]`` is clear (in place).

    ``words`` is ``(len(rows), ceil(V/32))`` int32 (numpy, or a torch tensor on the CPU or the
    logits' device), as :func:`typedgen.fill_batch` fills it;
    ``rows`` defaults to ``0..len(words)-1``. Logits wider than the bitmask (a padded vocabulary)
    are refused past it. On a CPU tensor the bits are unpacked by numpy; elsewhere by torch on
    the device, so only the packed words travel. Returns ``logits``.
    """
    import torch

    n = words.shape[0]
    if rows is None:
        rows = range(n)
    if len(rows) != n:
        raise ValueError(f"{n} bitmask rows for {len(rows)} logits rows")
    if n == 0:
        return logits
    allowed = unpack_masks(words, logits.shape[-1], logits.device)
    if list(rows) == list(range(rows[0], rows[0] + n)):  # contiguous rows: a view, no copies
        logits[rows[0] : rows[0] + n].masked_fill_(~allowed, float("-inf"))
        return logits
    index = torch.tensor(list(rows), dtype=torch.long, device=logits.device)
    picked = logits.index_select(0, index)
    picked.masked_fill_(~allowed, float("-inf"))
    logits.index_copy_(0, index, picked)
    return logits

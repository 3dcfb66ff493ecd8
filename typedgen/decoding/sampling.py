"""Sampling settings and the masked choice of one token.

The grammar mask is applied to the raw logits first; temperature, top-k and top-p then act on the
allowed tokens only, so they never re-admit a token the grammar refused. Random draws come from a
per-sequence numpy generator, one uniform per sampled position, so a seeded row draws the same
numbers whatever else runs in its batch and however many positions a forward pass verifies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import torch

__all__ = ["SamplingParams", "masked", "unpack_masks"]


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
            raise ValueError(f"temperature must be a finite number >= 0, not {self.temperature}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be >= 1, not {self.top_k}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], not {self.top_p}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def rng(self, row: int = 0) -> np.random.Generator:
        """The generator of batch row ``row`` (seeded rows are independent and repeatable)."""
        if self.seed is None:
            return np.random.default_rng()
        return np.random.default_rng([self.seed, row])

    def choose(self, logits: torch.Tensor, rng: np.random.Generator) -> int:
        """One token from masked ``logits`` (1-D, disallowed entries ``-inf``)."""
        import torch

        if self.greedy:
            return int(torch.argmax(logits))
        scores = logits.float() / self.temperature
        if self.top_k is not None and self.top_k < scores.shape[0]:
            kth = torch.topk(scores, self.top_k).values[-1]
            scores = scores.masked_fill(scores < kth, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        if self.top_p is not None and self.top_p < 1:
            sorted_probs, order = torch.sort(probs, descending=True)
            before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
            sorted_probs = sorted_probs.masked_fill(before >= self.top_p, 0.0)
            probs = torch.zeros_like(probs).scatter_(0, order, sorted_probs)
        cdf = torch.cumsum(probs.double(), dim=-1)
        u = float(rng.random()) * float(cdf[-1])
        index = int(torch.searchsorted(cdf, torch.tensor([u], dtype=cdf.dtype), right=True)[0])
        index = min(index, probs.shape[0] - 1)
        # A zero-probability entry is never returned: step back to the nearest allowed one.
        while probs[index] <= 0 and index > 0:
            index -= 1
        return index


_SHIFTS: dict[Any, torch.Tensor] = {}


def unpack_masks(words: npt.NDArray[np.int32], width: int, device: Any) -> torch.Tensor:
    """``(n, ceil(V/32))`` packed int32 bitmasks as an ``(n, width)`` bool tensor on ``device``."""
    import torch

    shifts = _SHIFTS.get(device)
    if shifts is None:
        shifts = _SHIFTS[device] = torch.arange(32, dtype=torch.int32, device=device)
    packed = torch.from_numpy(words).to(device, non_blocking=True)
    bits = (packed.unsqueeze(-1) >> shifts) & 1
    flat = bits.reshape(packed.shape[0], -1).bool()
    if flat.shape[1] >= width:
        return flat[:, :width]
    pad = torch.zeros(flat.shape[0], width - flat.shape[1], dtype=torch.bool, device=device)
    return torch.cat([flat, pad], dim=1)


def masked(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """``logits`` with every disallowed entry set to ``-inf`` (in place)."""
    return logits.masked_fill_(~allowed, float("-inf"))

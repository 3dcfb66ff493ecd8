"""One forward pass of a transformers causal LM over a ragged batch, with a KV cache.

Rows may feed different numbers of tokens in one pass: a row's unused slots are *holes*, zeros in
the 2-D attention mask that later queries never see, and every row carries its own position ids.
Rejected draft tokens become holes the same way, so the cache is never cropped or copied.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["Forward"]


class Forward:
    """Calls ``model`` step after step, keeping its cache and the attention mask of every slot."""

    def __init__(self, model: Any, batch_size: int, device: Any, pad_id: int) -> None:
        import torch

        self.model = model
        self.device = device
        self.pad_id = pad_id
        params = inspect.signature(model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"
        self._keep = "logits_to_keep" in params
        self.cache: Any = None
        self.attention = torch.zeros(batch_size, 0, dtype=torch.long, device=device)
        self.positions = [0] * batch_size
        self.slots: list[list[int]] = [[] for _ in range(batch_size)]
        """Per row, the cache slots of the tokens it kept, in order (for :meth:`rewind`)."""

    def __call__(self, feeds: list[list[int]], need_from: list[int]) -> tuple[Any, int, int]:
        """Feed ``feeds[r]`` to row ``r``; returns (logits, first slot, logit offset).

        ``logits[r, j - offset]`` are the next-token logits after ``feeds[r][j]``, for every
        ``j >= need_from[r]``; earlier slots (the body of a prompt) get no logits computed. The
        fed tokens occupy cache slots ``first slot + j``.
        """
        import torch

        width = max(len(f) for f in feeds)
        batch = len(feeds)
        ids = torch.full((batch, width), self.pad_id, dtype=torch.long)
        step_mask = torch.zeros(batch, width, dtype=torch.long)
        pos = torch.zeros(batch, width, dtype=torch.long)
        for r, feed in enumerate(feeds):
            n = len(feed)
            base = self.positions[r]
            if n:
                ids[r, :n] = torch.tensor(feed, dtype=torch.long)
                step_mask[r, :n] = 1
            pos[r] = torch.arange(base, base + width)
        start = self.attention.shape[1]
        self.attention = torch.cat([self.attention, step_mask.to(self.device)], dim=1)
        kwargs: dict[str, Any] = {
            "input_ids": ids.to(self.device),
            "attention_mask": self.attention,
            "position_ids": pos.to(self.device),
            "use_cache": True,
            self._cache_arg: self.cache,
        }
        # Logits are needed after the last prompt token and after every draft token; a long
        # prompt's other positions would only cost a (prompt x vocabulary) matmul.
        first = min((k for k, f in zip(need_from, feeds, strict=True) if f), default=0)
        if self._keep and first > 0:
            kwargs["logits_to_keep"] = torch.arange(first, width, device=self.device)
            offset = first
        else:
            offset = 0
        with torch.inference_mode():
            out = self.model(**kwargs)
        self.cache = getattr(out, self._cache_arg, None)
        if self.cache is None:
            self.cache = out.past_key_values
        return out.logits, start, offset

    def advance(self, row: int, kept: int, first_slot: int | None = None) -> None:
        """Row ``row`` keeps ``kept`` of the tokens it just fed (the rest become holes); with
        ``first_slot`` (where the feed began) the kept slots are recorded for :meth:`rewind`."""
        self.positions[row] += kept
        if first_slot is not None:
            self.slots[row].extend(range(first_slot, first_slot + kept))

    def rewind(self, row: int, keep: int) -> None:
        """Row ``row`` keeps only its first ``keep`` recorded tokens: the later slots become holes
        and the next token fed takes position ``keep`` (the cache is never cropped or copied)."""
        slots = self.slots[row]
        if keep < len(slots):
            dropped = slots[keep:]
            self.attention[row, dropped] = 0
            del slots[keep:]
        self.positions[row] = keep

    def hole(self, row: int, start: int, stop: int) -> None:
        """Hide slots ``[start, stop)`` of ``row`` from every later query."""
        if stop > start:
            self.attention[row, start:stop] = 0

    def select(self, rows: list[int]) -> None:
        """Keep (and repeat) rows by index: beams fork and die between steps."""
        import torch

        index = torch.tensor(rows, dtype=torch.long, device=self.device)
        self.cache.reorder_cache(index)
        self.attention = self.attention.index_select(0, index)
        self.positions = [self.positions[r] for r in rows]
        self.slots = [list(self.slots[r]) for r in rows]

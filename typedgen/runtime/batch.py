"""One call that fills the bitmask rows of many matchers (the layout vLLM and SGLang use).

Rows of native matchers are filled by the native core on a small pool of threads with the
GIL released; rows of reference-engine matchers are filled one by one. Masks are the same
either way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from typedgen.compiler.backend import native_module
from typedgen.errors import OptionError
from typedgen.runtime.matcher import _TERMINATED, Matcher
from typedgen.runtime.native import NativeEngine

__all__ = ["default_threads", "fill_batch"]


def default_threads() -> int:
    """Threads for batch fills: the cores available, at most 8."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(8, n))


def fill_batch(
    matchers: Sequence[Matcher],
    bitmask: npt.NDArray[np.int32],
    rows: Sequence[int] | None = None,
    *,
    threads: int | None = None,
) -> None:
    """Write matcher ``i``'s next-token mask into row ``rows[i]`` (default ``i``) of the
    ``(n_rows, ceil(V/32))`` int32 ``bitmask``; a terminated matcher's row allows nothing."""
    hint = "pass an int32 array of shape (rows, ceil(V/32)) and one row index per matcher"
    if bitmask.ndim != 2:
        raise OptionError(
            f"fill_batch needs a 2-D (rows x words) bitmask, not {bitmask.ndim}-D",
            code="bitmask-shape",
            hint=hint,
        )
    targets = list(range(len(matchers))) if rows is None else [int(r) for r in rows]
    if len(targets) != len(matchers):
        raise OptionError(
            f"fill_batch: {len(targets)} row indices for {len(matchers)} matchers",
            code="bitmask-shape",
            hint=hint,
        )
    for r in targets:
        if not 0 <= r < bitmask.shape[0]:
            raise OptionError(
                f"bitmask row {r} outside [0, {bitmask.shape[0]})", code="bitmask-shape", hint=hint
            )
    direct = bitmask.dtype == np.int32 and bitmask.flags.c_contiguous and bitmask.flags.writeable
    handles, states, native_rows = [], [], []
    for m, r in zip(matchers, targets, strict=True):
        engine = m._engine
        if direct and isinstance(engine, NativeEngine):
            state = m._history[-1]
            handles.append(engine.handle)
            states.append(-1 if state == _TERMINATED else state)
            native_rows.append(r)
        else:
            m.fill_next_token_bitmask(bitmask, r)
    if handles:
        native_module().fill_batch(
            handles,
            np.asarray(states, dtype=np.int32),
            np.asarray(native_rows, dtype=np.int32),
            bitmask,
            default_threads() if threads is None else max(1, int(threads)),
        )

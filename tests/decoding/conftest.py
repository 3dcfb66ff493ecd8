"""A tiny randomly initialised model of SmolLM2's architecture with the real SmolLM2 tokenizer.

Float64 weights: jump-forward and batching compute the same logits through different kernel
shapes, and double precision keeps those differences far below any gap between two candidates.
"""

from __future__ import annotations

from typing import Any

import pytest

from typedgen.models import LoadedModel


def tiny_model(
    tokenizer: Any, vocabulary: Any, *, seed: int = 0, device: str = "cpu"
) -> LoadedModel:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=vocabulary.size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
    )
    model = transformers.LlamaForCausalLM(config).to(torch.float64).eval().to(device)
    return LoadedModel(model, tokenizer, vocabulary, device, "tiny-llama")


@pytest.fixture(scope="session")
def tiny(smollm2_tokenizer: Any, smollm2_vocab: Any) -> LoadedModel:
    return tiny_model(smollm2_tokenizer, smollm2_vocab)

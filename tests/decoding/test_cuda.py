"""The GPU path: runs where CUDA is present, skipped elsewhere."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

import typedgen
from tests.decoding.conftest import tiny_model
from tests.decoding.test_loop import SCHEMA

torch = pytest.importorskip("torch")
pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine"),
]


def test_tiny_model_on_cuda_matches_cpu(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    on_gpu = tiny_model(smollm2_tokenizer, smollm2_vocab, device="cuda")
    on_cpu = tiny_model(smollm2_tokenizer, smollm2_vocab)
    prompts = ["a person", "another person with a longer prompt"]
    gpu = typedgen.Generator(SCHEMA, on_gpu).batch(prompts)
    cpu = typedgen.Generator(SCHEMA, on_cpu).batch(prompts)
    assert gpu == cpu
    for value in gpu:
        jsonschema.validate(value, SCHEMA)


def test_default_model_on_cuda() -> None:
    model = typedgen.load_model(device="cuda")
    assert str(model.device).startswith("cuda")
    value = typedgen.generate(SCHEMA, "Describe a person as JSON.", model=model, max_tokens=200)
    jsonschema.validate(value, SCHEMA)

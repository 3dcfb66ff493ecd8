"""The tiny random model (real SmolLM2 tokenizer) for DSL classes run through ``generate``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.decoding.conftest import tiny_model
from typedgen.models import LoadedModel


@pytest.fixture(scope="session")
def tiny(smollm2_tokenizer: Any, smollm2_vocab: Any) -> LoadedModel:
    return tiny_model(smollm2_tokenizer, smollm2_vocab)

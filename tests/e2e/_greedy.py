"""The quickstart's greedy loop, used as the end-to-end harness (so the example is tested too)."""

from __future__ import annotations

import typedgen
from examples.quickstart import constrained_greedy as _greedy
from typedgen.models import LoadedModel


def constrained_greedy(
    loaded: LoadedModel, compiled: typedgen.CompiledGrammar, prompt: str, max_tokens: int = 64
) -> tuple[str, bool]:
    """Greedy decode under the grammar; returns (text, finished with EOS)."""
    result = _greedy(loaded, compiled, prompt, max_tokens)
    return result.text, result.finished

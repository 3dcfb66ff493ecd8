"""The second bundled model, Gemma 3 270M: loaded by name (converted once, then cached), with the
plain-text prompt warning (the GGUF has no chat template)."""

from __future__ import annotations

import pytest

import typedgen


def test_gemma_loads_by_name_and_generates() -> None:
    from typedgen._bundled import MissingBundledModelError

    try:
        model = typedgen.load_model("gemma-3-270m")
    except (MissingBundledModelError, ImportError) as exc:
        pytest.skip(f"Gemma 3 unavailable: {exc}")
    assert model.name == "Gemma-3-270M" and model.vocabulary.size == 262_144
    choice = typedgen.Choice(["Paris", "London", "Rome"])
    with pytest.warns(typedgen.PromptWarning, match="no chat template"):
        details = typedgen.generate(
            choice, "The capital of France is", model=model, return_details=True
        )
    assert details.value in {"Paris", "London", "Rome"} and details.text == details.value

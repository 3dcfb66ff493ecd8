"""The real default model, loaded once for every end-to-end test (skipped where it is absent)."""

from __future__ import annotations

import pytest

import typedgen
from typedgen.models import LoadedModel


@pytest.fixture(scope="session")
def loaded() -> LoadedModel:
    from typedgen._bundled import MissingBundledModelError

    try:
        return typedgen.load_model()
    except (MissingBundledModelError, ImportError) as exc:
        pytest.skip(f"default model unavailable: {exc}")

"""The native engine gives the Python reference engine's masks at every step.

A bounded, deterministic sample of every differential source (see tests/runtime/differential.py;
``python -m tests.runtime.differential`` runs them all). Sources whose evaldata is absent are
skipped with the path. A mismatch fails naming the grammar, the text so far and the first token
on which the engines differ.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests._support import EVALDATA
from tests.runtime.differential import SOURCES, run_source, sources
from typedgen.compiler.backend import _import_native
from typedgen.compiler.vocabulary import Vocabulary

pytestmark = pytest.mark.skipif(
    _import_native() is None, reason="the native core is not built (pip install -e . builds it)"
)

# How many sources of each set run in the suite (spread over the set, deterministically).
SAMPLE = {
    "benchmarks": 10,
    "library": 12,
    "llamacpp_grammar_integration": 6,
    "llamacpp_grammar_llguidance": 6,
    "lark_grammars": 4,
    "lark_parser_tests": 6,
    "llguidance_lark_tests": 6,
    "xgrammar_tests": 6,
    "gbnf_grammars": 6,
    "json_schema_test_suite": 8,
    "jsonschemabench": 6,
}
GEMMA_SETS = ("benchmarks", "library", "jsonschemabench")


def _spread(items: list[Any], n: int) -> list[Any]:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def _tokenizer(hf: Any) -> Any:
    def tokenize(text: str) -> list[int]:
        return list(hf(text, add_special_tokens=False)["input_ids"])

    return tokenize


@pytest.mark.parametrize("set_name", list(SOURCES))
def test_smollm2(set_name: str, smollm2_tokenizer: Any, smollm2_vocab: Vocabulary) -> None:
    items = sources(set_name)
    if not items:
        pytest.skip(f"no sources for {set_name} (evaldata at {EVALDATA} absent?)")
    steps = 0
    for source in _spread(items, SAMPLE[set_name]):
        steps += run_source(source, smollm2_vocab, _tokenizer(smollm2_tokenizer)).get("steps", 0)
    assert steps > 0 or set_name == "gbnf_grammars"  # compile-only sets still take walks


@pytest.mark.parametrize("set_name", GEMMA_SETS)
def test_gemma3(set_name: str, gemma3_tokenizer: Any, gemma3_vocab: Vocabulary) -> None:
    items = sources(set_name)
    if not items:
        pytest.skip(f"no sources for {set_name} (evaldata at {EVALDATA} absent?)")
    for source in _spread(items, max(2, SAMPLE[set_name] // 3)):
        run_source(source, gemma3_vocab, _tokenizer(gemma3_tokenizer), walks=1)


_WALK_GRAMMARS = ("benchmarks/json.gbnf", "benchmarks/arith.gbnf", "benchmarks/sql.lark")
_COMPILED: dict[tuple[str, str], Any] = {}


def _walk_pair(label: str, vocab: Vocabulary) -> Any:
    from tests.runtime.differential import Pair, compile_both

    key = (label, vocab.fingerprint)
    if key not in _COMPILED:
        (source,) = [s for s in sources("benchmarks") if s.label == label]
        both = compile_both(source.build(), vocab)
        assert both is not None
        _COMPILED[key] = both
    py, nat = _COMPILED[key]
    return Pair(f"{label} hypothesis walk", py, nat)


def _hypothesis_walk(data: Any, vocab: Vocabulary) -> None:
    import numpy as np
    from hypothesis import strategies as st

    pair = _walk_pair(data.draw(st.sampled_from(_WALK_GRAMMARS)), vocab)
    for _ in range(data.draw(st.integers(1, 20))):
        words = pair.check(forced=data.draw(st.booleans()))
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")[: vocab.size]
        allowed = [t for t in np.flatnonzero(bits).tolist() if t not in vocab.eos_ids]
        if not allowed:
            break
        short = [t for t in allowed if len(vocab.token_bytes(t)) <= 2]
        pool = short if short and data.draw(st.booleans()) else allowed
        assert pair.accept_token(pool[data.draw(st.integers(0, len(pool) - 1))])


def test_hypothesis_random_walks_smollm2(smollm2_vocab: Vocabulary) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(
        max_examples=30,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.data())
    def walk(data: Any) -> None:
        _hypothesis_walk(data, smollm2_vocab)

    walk()


def test_hypothesis_random_walks_gemma3(gemma3_vocab: Vocabulary) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(
        max_examples=10,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.data())
    def walk(data: Any) -> None:
        _hypothesis_walk(data, gemma3_vocab)

    walk()

"""Property tests of ``Grammar.from_json_schema`` on the real SmolLM2 vocabulary.

- Completeness: ``hypothesis-jsonschema`` draws valid instances of each schema; each, written as
  typedgen writes JSON (compact, keys in schema order), is accepted token by token in the
  tokenizer's own tokenization, and the matcher is complete at the end.
- Soundness: random walks through the masks end in texts that ``jsonschema`` validates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

import typedgen
from tests.conformance.jsonschema_runner import serialise
from tests.frontends.jsonschema._oracle import decimal_valid
from tests.frontends.jsonschema._walks import finished_walks
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.ir import Grammar

hypothesis_jsonschema = pytest.importorskip("hypothesis_jsonschema")


def _shim_many_more() -> None:
    """hypothesis-jsonschema 0.23 drives ``many`` with ``more()``, which newer Hypothesis
    replaced by iteration inside a context; give it the old method on top of the new protocol."""
    from hypothesis.internal.conjecture import utils as cu

    if hasattr(cu.many, "more"):
        return

    def more(self: Any) -> bool:
        if not hasattr(self, "_typedgen_iter"):
            self.__enter__()
            self._typedgen_iter = iter(self)
        try:
            next(self._typedgen_iter)
        except StopIteration:
            self.__exit__(None, None, None)
            return False
        return True

    cu.many.more = more  # type: ignore[attr-defined]


_shim_many_more()

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "schemas"

SCHEMAS: dict[str, Any] = {
    "scalars": {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": -50, "exclusiveMaximum": 1000},
            "x": {"type": "number", "minimum": 0.25, "maximum": 99.5},
            "s": {"type": "string", "maxLength": 12},
            "k": {"enum": ["red", "green", None, 3]},
            "b": {"type": "boolean"},
        },
        "required": ["n", "s"],
        "additionalProperties": False,
    },
    "arrays": {
        "type": "array",
        "prefixItems": [{"type": "string", "pattern": "^[a-z]{1,4}$"}],
        "items": {"type": "integer", "multipleOf": 5},
        "maxItems": 4,
    },
    "union": {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"type": "array", "items": {"type": "boolean"}, "maxItems": 3},
            {"type": "null"},
        ]
    },
    **{p.stem: json.loads(p.read_text()) for p in sorted(BENCH.glob("schema_*.json"))},
}

_COMPILED: dict[str, CompiledGrammar] = {}


def compiled(name: str, vocab: typedgen.Vocabulary) -> CompiledGrammar:
    if name not in _COMPILED:
        _COMPILED[name] = typedgen.compile(Grammar.from_json_schema(SCHEMAS[name]), vocab)
    return _COMPILED[name]


def is_valid(schema: Any, value: Any) -> bool:
    cls = jsonschema.Draft202012Validator
    return bool(cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value))


# hypothesis-jsonschema cannot draw from recursive schemas; the tree is covered by random walks.
DRAWABLE = sorted(n for n in SCHEMAS if n != "schema_3_tree")


@pytest.mark.parametrize("name", DRAWABLE)
def test_drawn_instances_are_accepted_token_by_token(
    name: str, smollm2_tokenizer: Any, smollm2_vocab: typedgen.Vocabulary
) -> None:
    schema = SCHEMAS[name]
    comp = compiled(name, smollm2_vocab)
    strategy = hypothesis_jsonschema.from_schema(schema)

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        derandomize=True,
    )
    @given(strategy)
    def check(value: Any) -> None:
        data = serialise(value, schema, "compact")
        if data is None or not is_valid(schema, value):
            return  # drawn values the format checker refuses are not valid instances
        text = data.decode("utf-8")
        if json.loads(text) != value:  # e.g. -0.0 or huge floats that do not round-trip
            return
        tokens = smollm2_tokenizer.encode(text, add_special_tokens=False)
        if b"".join(smollm2_vocab.token_bytes(t) for t in tokens) != data:
            return  # SmolLM2 lacks some byte values (e.g. 0xF1) and drops them when encoding
        m = comp.matcher()
        for i, token in enumerate(tokens):
            assert m.accept_token(token), (text, i)
        assert m.is_complete(), text

    check()


@pytest.mark.parametrize("name", ["scalars", "arrays", "union", "schema_3_tree"])
def test_random_walks_validate(name: str, smollm2_vocab: typedgen.Vocabulary) -> None:
    comp = compiled(name, smollm2_vocab)
    for text in finished_walks(comp, seed=2026, tries=30, limit=300):
        # Exact decimals: the grammar accepts exponent spellings (2E0849752873775) that a
        # float reading turns into inf.
        assert decimal_valid(SCHEMAS[name], text), text

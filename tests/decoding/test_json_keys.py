"""Unique JSON object keys: the tracker on real SmolLM2 tokens (json's own parser as the oracle
of which keys repeat), and the decoding loop excluding repeated keys on the tiny model."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import typedgen
from tests.decoding.conftest import tiny_model
from typedgen.decoding.json_keys import KeyTracker

TEXTS = [
    '{"a": 1, "b": {"a": 2}, "a": 3}',
    '{"a":1,"\\u0061":2}',
    '[{"a": 1}, {"a": 2}, {"b": [{"a": 1, "a": 2}]}]',
    '{"x": "a\\", \\"x\\": ", "x": 1, "y": "}", "y": [1, {"y": 2}]}',
    '{"description": "a", "description": "b", "description": "c"}',
    '{"": 1, " ": 2, "": 3}',
    '"just a string"',
    '{"k": {}, "l": [], "k": null}',
]
OPEN_INTS = {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 4}
TWO_KEYS = {
    "type": "object",
    "propertyNames": {"enum": ["a", "b"]},
    "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9},
}


def duplicates(text: str) -> list[str]:
    """The repeated keys of a JSON text, by json's parser (each repetition once)."""
    found: list[str] = []

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                found.append(key)
            seen.add(key)
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return found


def reported(tracker: KeyTracker, ids: list[int]) -> list[str]:
    return [k for n in range(len(ids)) if (k := tracker.repeated(ids[:n], ids[n])) is not None]


@pytest.mark.parametrize("text", TEXTS)
def test_tracker_finds_what_json_finds(
    text: str, smollm2_tokenizer: Any, smollm2_vocab: Any
) -> None:
    ids = smollm2_tokenizer.encode(text, add_special_tokens=False)
    assert smollm2_vocab.decode(ids) == text.encode()
    assert sorted(reported(KeyTracker(smollm2_vocab.tokens), ids)) == sorted(duplicates(text))


def test_tracker_starts_after_the_mark(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    # The scratchpad's free text may hold JSON-like text; only the answer after the mark counts.
    text = 'I think {"a": 1} is wrong.\n```json\n{"a": 1, "b": 2, "a": 3}\n```'
    ids = smollm2_tokenizer.encode(text, add_special_tokens=False)
    assert reported(KeyTracker(smollm2_vocab.tokens, b"```json\n"), ids) == ["a"]
    # Without the mark the first value is taken for the JSON, and text after it is ignored.
    assert reported(KeyTracker(smollm2_vocab.tokens), ids) == []


def test_tracker_follows_rollbacks(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    text = '{"alpha": 1, "beta": 2, "alpha": 3}'
    ids = smollm2_tokenizer.encode(text, add_special_tokens=False)
    other = smollm2_tokenizer.encode('{"gamma": 1, "alpha": 3}', add_special_tokens=False)
    tracker = KeyTracker(smollm2_vocab.tokens)
    assert reported(tracker, other) == []
    # The same tracker, rolled back to other prefixes, answers as a fresh one does.
    assert reported(tracker, ids) == ["alpha"]
    assert reported(tracker, other) == []


def test_forced_closing_quote_counts(smollm2_vocab: Any) -> None:
    tracker = KeyTracker(smollm2_vocab.tokens)
    pieces = {p: i for i, p in enumerate(smollm2_vocab.tokens)}
    prefix = [pieces[b'{"'], pieces[b"a"], pieces[b'":'], pieces[b"1"], pieces[b',"']]
    assert tracker.repeated(prefix, pieces[b"a"]) is None
    assert tracker.repeated(prefix, pieces[b"a"], lambda: b'":') == "a"
    assert tracker.repeated(prefix, pieces[b"b"], lambda: b'":') is None


def _keys_unique(text: str) -> bool:
    return not duplicates(text)


def test_generation_excludes_repeated_keys(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    # Seed 2's tiny model writes the empty key again and again without the exclusion.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=2)
    options = {"max_tokens": 60, "on_max_tokens": "finish"}
    off = typedgen.Generator(OPEN_INTS, tiny, unique_keys=False, **options)(
        "x", return_details=True
    )
    assert duplicates(off.text)
    assert off.repeated_keys == ()
    on = typedgen.Generator(OPEN_INTS, tiny, **options)("x", return_details=True)
    assert _keys_unique(on.text)
    jsonschema.validate(json.loads(on.text), OPEN_INTS)
    assert on.repeated_keys and all(e.action == "excluded" for e in on.repeated_keys)
    assert {e.key for e in on.repeated_keys} <= set(json.loads(on.text))
    assert on.attempts[-1].repeated_keys == on.repeated_keys


def test_a_forced_repetition_is_kept_and_reported(
    smollm2_tokenizer: Any, smollm2_vocab: Any
) -> None:
    # Keys from {"a", "b"}: once both are written, a third pair can only repeat one.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=0)
    generator = typedgen.Generator(TWO_KEYS, tiny, max_tokens=40, on_max_tokens="finish")
    details = generator("x", return_details=True)
    actions = [e.action for e in details.repeated_keys]
    assert actions[0] == "excluded" and "kept" in actions
    assert details.text.startswith('{"a":9,"b":')  # "a" excluded at the second key
    jsonschema.validate(details.value, TWO_KEYS)


def test_not_json_or_switched_off_means_no_tracker(tiny: Any) -> None:
    def options(output_type: object, **kw: Any) -> Any:
        generator = typedgen.Generator(output_type, tiny, **kw)
        return generator._options(generator._settings)

    assert options(OPEN_INTS).unique_keys == b""
    assert options(OPEN_INTS, unique_keys=False).unique_keys is None
    assert options(OPEN_INTS, constrain=False).unique_keys is None
    assert options(typedgen.Regex("[a-z]+")).unique_keys is None
    fenced = typedgen.Generator(OPEN_INTS, tiny, reasoning="fenced")
    assert fenced._options(fenced._settings).unique_keys == b"```json\n"

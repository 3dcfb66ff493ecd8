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
from typedgen.decoding.loop import DecodeOptions, Decoder
from typedgen.prompts import encode_messages

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
    found = (tracker.repeated(ids[:n], ids[n]) for n in range(len(ids)))
    return [r.key for r in found if r is not None]


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
    found = tracker.repeated(prefix, pieces[b"a"], lambda: b'":')
    assert found is not None and (found.key, found.comma_at) == ("a", 4)
    assert tracker.repeated(prefix, pieces[b"b"], lambda: b'":') is None


def test_generation_rolls_back_to_the_comma(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    # Seed 2's tiny model writes the empty key again and again without the guard.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=2)
    options: dict[str, Any] = {"max_tokens": 60, "on_max_tokens": "finish"}
    off_generator = typedgen.Generator(OPEN_INTS, tiny, unique_keys=False, **options)
    off = off_generator("x", return_details=True)
    assert duplicates(off.text)
    assert off.repeated_keys == ()
    on = typedgen.Generator(OPEN_INTS, tiny, **options)("x", return_details=True)
    assert not duplicates(on.text)
    jsonschema.validate(json.loads(on.text), OPEN_INTS)
    assert on.repeated_keys and all(e.action == "rolled back" for e in on.repeated_keys)
    assert {e.key for e in on.repeated_keys} <= set(json.loads(on.text))
    assert on.attempts[-1].repeated_keys == on.repeated_keys


def test_keys_from_an_enum(smollm2_tokenizer: Any, smollm2_vocab: Any) -> None:
    # Keys from {"a", "b"}, the closing quote forced after each: without the guard the tiny
    # model writes "a" eight times; with it, the comma before a repeated key is excluded.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=0)
    options: dict[str, Any] = {"max_tokens": 40, "on_max_tokens": "finish"}
    off = typedgen.Generator(TWO_KEYS, tiny, unique_keys=False, **options)("x")
    assert off == {"a": 0}  # json keeps the last of eight "a" keys: the 9s are lost
    details = typedgen.Generator(TWO_KEYS, tiny, **options)("x", return_details=True)
    assert not duplicates(details.text)
    assert set(details.value) == {"a", "b"}
    assert [e.action for e in details.repeated_keys] == ["rolled back"] * 3
    jsonschema.validate(details.value, TWO_KEYS)


def _decode(model: Any, schema: object, rewound: int, max_tokens: int = 40) -> Any:
    """One row decoded with ``rewound`` tokens of the rollback budget already spent."""
    compiled = typedgen.compile(schema, model.vocabulary)
    prompt = encode_messages(model.tokenizer, [{"role": "user", "content": "x"}])
    options = DecodeOptions(max_tokens=max_tokens, on_max_tokens="finish", unique_keys=b"")
    decoder = Decoder(model, compiled, [prompt], options)
    decoder.rows[0].rewound = rewound
    (row,) = decoder.run()
    return decoder.text(row), row


def test_without_rollback_budget_keys_are_excluded_then_kept(
    smollm2_tokenizer: Any, smollm2_vocab: Any
) -> None:
    # Keys from {"a", "b"} and no rollback left: "a" is excluded at the second key, so "b" is
    # written; at the third key both would repeat, so the repetition is written and reported.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=0)
    text, row = _decode(tiny, TWO_KEYS, rewound=60, max_tokens=60)
    actions = [e.action for e in row.repeated_keys]
    assert actions[:3] == ["excluded", "excluded", "kept"]
    assert text.startswith('{"a":9,"b":9,"b":')
    assert duplicates(text)
    assert row.rewound == 60  # nothing was rolled back


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


def test_a_stream_takes_back_what_was_rolled_back(
    smollm2_tokenizer: Any, smollm2_vocab: Any
) -> None:
    # The rollbacks of seed 2's repeated keys happen while streaming: each event's retract
    # and delta rebuild the text, which ends as the call's, and each event's text is it.
    tiny = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=2)
    generator = typedgen.Generator(OPEN_INTS, tiny, max_tokens=60, on_max_tokens="finish")
    events = list(generator.stream("x"))
    text = ""
    for event in events[:-1]:
        text = text[: len(text) - event.retract] + event.delta
        assert text == event.text
    assert any(e.retract for e in events)
    assert text == events[-1].text == generator("x", return_details=True).text
    assert not duplicates(text)

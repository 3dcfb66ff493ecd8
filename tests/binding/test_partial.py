"""Tests for the streaming JSON-prefix parser."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typedgen.binding.partial import PartialJSONParser, PartialValue, parse_partial_json


def _same(a: Any, b: Any) -> bool:
    """Equality that tells true from 1 and 1.0 from 1."""
    return json.dumps(a) == json.dumps(b)


def _contained(part: Any, whole: Any) -> bool:
    """``part`` is a possible partial view of ``whole``."""
    if isinstance(whole, dict):
        return isinstance(part, dict) and all(
            k in whole and _contained(v, whole[k]) for k, v in part.items()
        )
    if isinstance(whole, list):
        if not isinstance(part, list) or len(part) > len(whole):
            return False
        if not part:
            return True
        last = len(part) - 1
        return _same(part[:last], whole[:last]) and _contained(part[last], whole[last])
    return _same(part, whole)


def _value(text: str) -> Any:
    result = parse_partial_json(text)
    return None if result is None else result.value


# --- hand cases -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "  \n", '"ab', "12", "-", "1.5e", "tru", "n", "fals", '"a\\u00']
)
def test_nothing_yet(text: str) -> None:
    assert parse_partial_json(text) is None


def test_nested_objects() -> None:
    doc = '{"a": {"b": 1, "c": {"d": "x"}}, "e": true}'
    assert _value('{"a": {"b": 1') == {"a": {}}
    assert _value('{"a": {"b": 1,') == {"a": {"b": 1}}
    assert _value('{"a": {"b": 1, "c": {"d": "') == {"a": {"b": 1, "c": {}}}
    assert _value('{"a": {"b": 1, "c": {"d": "x"') == {"a": {"b": 1, "c": {"d": "x"}}}
    assert parse_partial_json(doc[:-1]) == PartialValue(
        {"a": {"b": 1, "c": {"d": "x"}}, "e": True}, False
    )
    assert parse_partial_json(doc) == PartialValue(json.loads(doc), True)


def test_unfinished_keys_and_scalars_are_omitted() -> None:
    assert _value("{") == {}
    assert _value('{"ke') == {}
    assert _value('{"key"') == {}
    assert _value('{"key":') == {}
    assert _value('{"key": "val') == {}
    assert _value('{"key": nu') == {}
    assert _value('{"key": 12') == {}
    assert _value('{"key": 12 ') == {"key": 12}
    assert _value('{"key": 12}') == {"key": 12}


def test_arrays_of_objects() -> None:
    assert _value("[") == []
    assert _value('[{"a": 1}, {"a"') == [{"a": 1}, {}]
    assert _value('[{"a": 1}, {"a": [2, 3') == [{"a": 1}, {"a": [2]}]
    assert _value("[[1, 2], [3") == [[1, 2], []]
    assert _value("[1, 2.5, -3e2, 4E+1, 0.5e-3, 0]") == [1, 2.5, -300.0, 40.0, 0.0005, 0]
    assert parse_partial_json("[]") == PartialValue([], True)
    assert parse_partial_json("{}") == PartialValue({}, True)


def test_numbers_wait_for_a_delimiter() -> None:
    assert _value("[1") == []
    assert _value("[1,") == [1]
    assert _value("[1]") == [1]
    assert _value("[1\n") == [1]
    assert _value("[-0.5e1") == []
    assert _value("[-0.5e10,") == [-5e9]
    assert _value("[123456789012345678901234567890]") == [123456789012345678901234567890]


def test_escapes() -> None:
    doc = r'{"k\"ey": "a\\b\/c\b\f\n\r\t\u00e9\ud83d\ude00"}'
    assert _value(doc) == json.loads(doc)
    assert _value(doc) == {'k"ey': "a\\b/c\b\f\n\r\t\u00e9\U0001f600"}
    # Cut inside the surrogate pair: the string is not closed, so the member is left out.
    assert _value(doc[: doc.index("ude00")]) == {}


def test_pretty_printed() -> None:
    value = {"name": "x", "items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]}
    text = json.dumps(value, indent=2)
    assert parse_partial_json(text) == PartialValue(value, True)
    assert _value(text[: text.index('"b"') + 3]) == {
        "name": "x",
        "items": [{"id": 1, "tags": ["a", "b"]}],
    }
    assert parse_partial_json("\n  " + text + "\n\n") == PartialValue(value, True)


def test_top_level_scalars() -> None:
    assert parse_partial_json('"ab"') == PartialValue("ab", True)
    assert parse_partial_json("true") == PartialValue(True, True)
    assert parse_partial_json(" null ") == PartialValue(None, True)
    assert parse_partial_json("12") is None  # may still become 123
    assert parse_partial_json("12 ") == PartialValue(12, True)
    assert parse_partial_json("12", final=True) == PartialValue(12, True)
    assert parse_partial_json("-1.5e3", final=True) == PartialValue(-1500.0, True)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("x", 0),
        ("[1,]", 3),
        ("{1", 1),
        ('{"a" 1', 5),
        ('{"a":1]', 6),
        ("[}", 1),
        ("01", 0),
        ("[01]", 1),
        ("[1.]", 1),
        ("[1.e5]", 1),
        ("[-]", 1),
        ("trux", 0),
        ("truex", 4),
        ('"a\\x"', 2),
        ('"a\x01"', 2),
        ("{} {}", 3),
        ("[1 2]", 3),
        ("[\u00a0]", 1),
        ("[\u0661]", 1),
    ],
)
def test_invalid_input_raises_with_offset(text: str, offset: int) -> None:
    with pytest.raises(ValueError, match=f"offset {offset}$"):
        parse_partial_json(text)


@pytest.mark.parametrize("text", ["", "  ", "[1", '{"a": 1', '"ab', "tru", "-"])
def test_final_requires_a_whole_document(text: str) -> None:
    with pytest.raises(ValueError, match="incomplete"):
        parse_partial_json(text, final=True)


def test_incremental_parser() -> None:
    parser = PartialJSONParser()
    assert parser.feed('{"a": [1') == PartialValue({"a": []}, False)
    first = parser.feed(", 2")
    assert first == PartialValue({"a": [1]}, False)
    second = parser.feed(', {"b": "x"}')
    assert second == PartialValue({"a": [1, 2, {"b": "x"}]}, False)
    assert first == PartialValue({"a": [1]}, False)  # snapshots do not change later
    assert parser.feed("]}") == PartialValue({"a": [1, 2, {"b": "x"}]}, True)
    assert parser.finish() == PartialValue({"a": [1, 2, {"b": "x"}]}, True)


def test_incremental_top_level_number_and_poisoning() -> None:
    parser = PartialJSONParser()
    assert parser.feed("4") is None
    assert parser.feed("2") is None
    assert parser.finish() == PartialValue(42, True)

    bad = PartialJSONParser()
    bad.feed("[1, ")
    with pytest.raises(ValueError, match="offset 4"):
        bad.feed("]")
    with pytest.raises(ValueError, match="offset 4"):
        bad.feed("2]")


def test_long_string_fed_in_small_deltas() -> None:
    body = "ab\\n\\u00e9" * 2000
    text = '{"s": "' + body + '"}'
    parser = PartialJSONParser()
    results = [parser.feed(text[i : i + 3]) for i in range(0, len(text), 3)]
    assert all(r is not None and r.value == {} for r in results[1:-1])
    assert results[-1] == PartialValue(json.loads(text), True)


# --- property: every prefix of every dump ----------------------------------------------------

_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def _dumps(value: Any) -> list[str]:
    return [
        json.dumps(value, separators=(",", ":")),
        json.dumps(value, indent=2),
        json.dumps(value, indent=2, ensure_ascii=False),
    ]


@settings(max_examples=150, deadline=None)
@given(_json_values)
def test_every_prefix_is_contained_and_monotone(value: Any) -> None:
    for text in _dumps(value):
        final = json.loads(text)
        incremental = PartialJSONParser()
        previous: PartialValue | None = None
        for end in range(len(text) + 1):
            result = parse_partial_json(text[:end])
            fed = incremental.feed(text[end - 1 : end] if end else "")
            assert fed == result
            if result is None:
                assert previous is None, (text, end)
                continue
            assert _contained(result.value, final), (text, end, result)
            if previous is not None:
                assert _contained(previous.value, result.value), (text, end, previous, result)
                assert result.complete or not previous.complete
            previous = result
        assert parse_partial_json(text, final=True) == PartialValue(final, True)
        assert _same(incremental.finish().value, final)
        if isinstance(final, (dict, list)):
            assert previous is not None and previous.complete and _same(previous.value, final)


@settings(max_examples=60, deadline=None)
@given(_json_values, st.lists(st.integers(min_value=1, max_value=7), min_size=1))
def test_arbitrary_chunking_matches_one_shot(value: Any, sizes: list[int]) -> None:
    text = json.dumps(value, indent=2)
    parser = PartialJSONParser()
    start, k = 0, 0
    while start < len(text):
        end = start + sizes[k % len(sizes)]
        assert parser.feed(text[start:end]) == parse_partial_json(text[:end])
        start, k = end, k + 1
    assert _same(parser.finish().value, json.loads(text))

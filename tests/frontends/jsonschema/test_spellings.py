"""Valid JSON is never pruned: every spelling a schema allows, any key order, format modes.

Each cause of a valid JSON-Schema-Test-Suite instance being rejected has a case here. The oracle
is ``jsonschema`` (the library) on the *decimal* value of each text: numbers are parsed with
``parse_float=Decimal`` and an integral ``Decimal`` counts as an integer, so ``1.0``, ``1e2`` and
``-0`` are judged as JSON Schema judges values, not as binary floats. Texts with an exponent and
a mantissa outside the stated domain (:data:`spellings.MAX_MANTISSA_DIGITS`) may be rejected;
every accepted text must be valid.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from decimal import Decimal
from typing import Any

import jsonschema
import pytest

import typedgen
from tests._support import EVALDATA, byte_vocabulary, read_items
from tests.conformance.jsonschema_runner import remotes
from typedgen import compile as tg_compile
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import OptionError, UnsupportedSchemaError
from typedgen.frontends.jsonschema import spellings
from typedgen.frontends.jsonschema.anyorder import MAX_ANY_ORDER
from typedgen.ir import Grammar

from ._oracle import decimal_valid

VOCAB = byte_vocabulary()
M = spellings.MAX_MANTISSA_DIGITS
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def compiled(schema: Any, **options: Any) -> CompiledGrammar:
    return tg_compile(Grammar.from_json_schema(schema, **options), VOCAB, cache=False)


def accepts(comp: CompiledGrammar, text: str) -> bool:
    m = comp.matcher()
    return m.accept_bytes(text.encode("utf-8")) and m.is_complete()


def valid(schema: Any, text: str) -> bool:
    return decimal_valid(schema, text)


def in_domain(text: str) -> bool:
    """Whether every number of ``text`` is one the languages decide (see :mod:`.spellings`)."""
    for m in re.finditer(r"-?([0-9]+)(?:\.([0-9]+))?[eE]", text):
        digits = m.group(1) + (m.group(2) or "")
        if digits.strip("0") == "":
            continue
        a = len(m.group(1)) - (len(digits) - len(digits.lstrip("0")))
        r = len(digits.rstrip("0")) - len(m.group(1))
        if not (-(M - 2) <= a <= M and -(M - 1) <= r <= M - 1):
            return False
    return True


def respellings(value: Decimal, rng: random.Random) -> list[str]:
    """Texts of one value: plain, with fraction zeros, with exponents, negative zero."""
    sign = "-" if value < 0 else ""
    mag = abs(value)
    plain = format(mag.normalize(), "f") if mag else "0"
    out = [sign + plain, sign + plain + ("0" if "." in plain else ".0")]
    for shift in (-3, -1, 1, 2, 5, rng.randint(-25, 25)):
        mant = format(mag.scaleb(-shift).normalize(), "f") if mag else "0"
        marker = rng.choice(["e", "E"])
        plus = "+" if shift >= 0 and rng.random() < 0.5 else ""
        out.append(f"{sign}{mant}{marker}{plus}{shift}")
        out.append(f"{sign}{mant}e{'-' if shift < 0 else ''}00{abs(shift)}")
    if not mag:
        out += ["-0", "-0.0", "-0e7", "0E-3"]
    return out


def number_texts(seed: int, anchors: list[str]) -> list[str]:
    """Values near the anchors (bounds, constants), each spelled many ways, and malformed texts."""
    rng = random.Random(seed)
    values: set[Decimal] = {Decimal(0), Decimal(1), Decimal("-1"), Decimal("0.5")}
    for anchor in anchors:
        a = Decimal(anchor)
        for delta in ("0", "1", "-1", "0.5", "-0.5", "0.001", "-0.001", "1e-30"):
            values.add(a + Decimal(delta))
        values.add(a * 10)
        values.add(a / 10)
    for _ in range(12):
        values.add(Decimal(rng.randint(-(10**6), 10**6)).scaleb(rng.randint(-4, 4)))
    texts = [t for v in sorted(values) for t in respellings(v, rng)]
    texts += ["1.", ".5", "01", "1e", "1e+", "+1", "--1", "1.0.0", "0x10", "1e2.5", "1 e2"]
    return texts


NUMBER_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("integer", {"type": "integer"}, []),
    ("integer range", {"type": "integer", "minimum": -3, "exclusiveMaximum": 10}, ["-3", "10"]),
    ("maximum 200", {"maximum": 200}, ["200"]),
    ("fractional bounds", {"exclusiveMinimum": 1.1, "maximum": 2.5}, ["1.1", "2.5"]),
    (
        "huge bounds",
        {"minimum": -1e40, "exclusiveMaximum": 972783798187987123879878123.18878137},
        ["-1e40", "972783798187987123879878123.18878137"],
    ),
    ("int32", {"type": "integer", "format": "int32"}, ["2147483647", "-2147483648"]),
    ("const 1", {"const": 1}, ["1"]),
    ("const -2.0", {"const": -2.0}, ["-2"]),
    ("const 0", {"const": 0}, ["0"]),
    ("enum", {"enum": [0.5, 300, "x"]}, ["0.5", "300"]),
    ("nested const", {"const": [1, {"a": 2.5}]}, []),
    ("not integer", {"type": "number", "not": {"type": "integer"}}, ["3"]),
    ("not const", {"type": "integer", "not": {"const": 4}}, ["4"]),
    ("multipleOf 5", {"type": "integer", "multipleOf": 5, "maximum": 1000}, ["1000", "5"]),
    ("multipleOf 3", {"multipleOf": 3}, ["300", "3"]),
    ("multipleOf 100", {"type": "number", "multipleOf": 100, "minimum": -500}, ["-500"]),
    ("multipleOf 7 bounded", {"multipleOf": 7, "minimum": 0, "maximum": 70}, ["70", "7"]),
]


@pytest.mark.parametrize(
    ("name", "schema", "anchors"), NUMBER_CASES, ids=[c[0] for c in NUMBER_CASES]
)
def test_every_spelling_of_a_valid_number_is_accepted(
    name: str, schema: dict[str, Any], anchors: list[str]
) -> None:
    comp = compiled(schema)
    if schema.get("format") == "int32":  # a range typedgen enforces; jsonschema has no int32
        schema = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
    texts = number_texts(sum(map(ord, name)), anchors)
    if name == "nested const":
        texts = ['[1,{"a":2.5}]', '[1.0,{"a":25e-1}]', '[1e0,{"a":0.25E1}]', '[1,{"a":2.51}]']
    unsound = [t for t in texts if accepts(comp, t) and not valid(schema, t)]
    pruned = [t for t in texts if in_domain(t) and valid(schema, t) and not accepts(comp, t)]
    assert not unsound, f"invalid texts accepted: {unsound[:8]}"
    assert not pruned, f"valid texts rejected: {pruned[:8]}"


def test_the_exponent_domain_is_the_only_limit() -> None:
    """A mantissa beyond 20 places of its point is rejected with an exponent, not without."""
    comp = compiled({"type": "integer", "maximum": 10})
    one = "0." + "0" * (M + 2) + "1e" + str(M + 3)
    assert valid({"type": "integer"}, one) and not accepts(comp, one)
    assert accepts(comp, "1" + "." + "0" * 300)  # without exponent, any length
    assert accepts(comp, "0.1e1") and accepts(comp, "1." + "0" * (M - 1) + "e0")


def test_draft_4_integers_have_no_fraction() -> None:
    """Draft 4 defines an integer as a number "without a fraction or exponent part" (jsonschema's
    Draft4Validator agrees: 1.0 is not an integer there); later drafts judge the value."""
    draft4 = "http://json-schema.org/draft-04/schema#"
    cases = [
        {"$schema": draft4, "type": "integer", "maximum": 30},
        {"$schema": draft4, "type": "integer", "enum": [1, 2.0]},
        {"$schema": draft4, "type": "integer", "multipleOf": 3},
        {"$schema": draft4, "type": "number", "not": {"type": "integer"}},
    ]
    texts = ["1", "1.0", "1e0", "-0", "2", "2.0", "3", "3e0", "2.5", "0.3e1", "-0.0"]
    for schema in cases:
        comp = compiled(schema)
        oracle = jsonschema.Draft4Validator(schema)
        wrong = [t for t in texts if accepts(comp, t) != oracle.is_valid(json.loads(t))]
        assert not wrong, (schema, wrong)


def test_canonical_keeps_one_spelling() -> None:
    comp = compiled({"type": "integer", "maximum": 200}, spellings="canonical")
    assert accepts(comp, "100")
    for text in ("100.0", "1e2", "-0", "1E+2"):
        assert not accepts(comp, text), text
    enum = compiled({"enum": [1, 2.5]}, spellings="canonical")
    assert accepts(enum, "1") and accepts(enum, "2.5") and not accepts(enum, "1.0")


def test_generation_paths_default_to_canonical() -> None:
    schema = {"type": "integer"}
    generated = tg_compile(typedgen.grammar_of(schema), VOCAB, cache=False)
    assert accepts(generated, "7") and not accepts(generated, "7.0")
    every = typedgen.grammar_of(typedgen.JsonSchema(schema, spellings="all"))
    marker = tg_compile(every, VOCAB, cache=False)
    assert accepts(marker, "7.0")


def test_multiple_of_out_of_reach_is_refused_by_name() -> None:
    """Divisors whose exponent spellings cannot be decided exactly: refused, never approximated."""
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema({"properties": {"n": {"multipleOf": 7}}})
    assert info.value.keyword == "multipleOf" and info.value.path == "#/properties/n"
    assert info.value.hint is not None and "canonical" in info.value.hint
    relaxed = Grammar.from_json_schema({"multipleOf": 7}, strict=False)
    assert [d.keyword for d in relaxed.deferred] == ["multipleOf"]
    canonical = compiled({"multipleOf": 7}, spellings="canonical")
    assert accepts(canonical, "14") and not accepts(canonical, "15")


def test_bad_option_values_are_option_errors() -> None:
    for option in ("spellings", "formats", "key_order"):
        with pytest.raises(OptionError) as info:
            Grammar.from_json_schema({}, **{option: "sometimes"})
        assert info.value.code == "option-value" and option in str(info.value)


# -- formats ---------------------------------------------------------------------------------

FORMAT_CASES: dict[str, tuple[list[str], list[str]]] = {
    "time": (
        [
            "23:59:60Z",
            "23:59:60+00:00",
            "01:29:60+01:30",
            "15:59:60-08:00",
            "00:29:60-23:30",
            "23:59:60.5z",
            "08:30:06Z",
        ],
        ["22:59:60Z", "23:58:60Z", "23:59:60+01:00", "23:59:60-00:30", "23:59:61Z", "24:00:00Z"],
    ),
    "date-time": (
        [
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60.123-08:00",
            "2016-12-31t23:59:60z",
            "2021-01-01T00:00:00.0000000000000000Z",
        ],
        ["1998-12-31T23:59:61Z", "1998-12-31T22:59:60Z", "2016-12-31T24:59:60+01:00"],
    ),
    "email": (
        [
            '"joe bloggs"@example.com',
            '"joe..bloggs"@example.com',
            '"joe@bloggs"@example.com',
            '"a\\"b"@example.com',
            "joe.bloggs@[127.0.0.1]",
            "joe.bloggs@[IPv6:::1]",
            "joe@localhost",
            "te~st@example.com",
        ],
        [
            "joe.bloggs@[127.0.0.300]",
            "te..st@example.com",
            "joe bloggs@example.com",
            '"unclosed@example.com',
            "joe@[::1]",
            "@example.com",
            "2962",
        ],
    ),
    "duration": (["P" + "9" * 80 + "D", "PT36H", "P01D"], ["PT1D", "P1Y2W", "P"]),
    "iri": (
        [
            "http://[2001:db8::1]",
            "http://[V1.fe]",
            "http://ƒøø.ßår/𐌀",
            "http://ƒøø.ßår/?q=\U000f0000",
        ],
        ["http://[::ffff:192.168.0.01]", "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334", "/abc"],
    ),
    "uri": (["http://[v1.fe]", "http://[V1.fe]"], ["http://[V1]", "//x"]),
    "relative-json-pointer": (["100", "120/foo/bar", "0#"], ["01/a", "-1/foo", "/foo"]),
    "uri-template": (
        ["{%41}", "{v:1000}", "a'b", "{+var}", ""],
        ["{v:10000}", "{v:01}", "{a..b}", "{}", "a b"],
    ),
}


@pytest.mark.parametrize("fmt", sorted(FORMAT_CASES))
def test_formats_accept_every_value_their_rfc_allows(fmt: str) -> None:
    good, bad = FORMAT_CASES[fmt]
    comp = compiled({"type": "string", "format": fmt})
    canonical = compiled({"type": "string", "format": fmt}, spellings="canonical")
    assert [s for s in good if not accepts(comp, json.dumps(s, ensure_ascii=False))] == []
    assert [s for s in bad if accepts(comp, json.dumps(s, ensure_ascii=False))] == []
    assert [s for s in bad if accepts(canonical, json.dumps(s, ensure_ascii=False))] == []


def test_canonical_time_fractions_have_at_most_nine_digits() -> None:
    """Canonical times keep nanoseconds at most (a small model wrote 16 zeros and more)."""
    for fmt, text in (("date-time", "2021-01-01T00:00:00.{}Z"), ("time", "00:00:00.{}+01:00")):
        canonical = compiled({"type": "string", "format": fmt}, spellings="canonical")
        assert accepts(canonical, json.dumps(text.format("123456789")))
        assert not accepts(canonical, json.dumps(text.format("1234567890")))


def _suite_format_items() -> list[dict[str, Any]]:
    if not (EVALDATA / "json_schema_test_suite").exists():
        pytest.skip("the JSON-Schema-Test-Suite is not in ../shared/evaldata")
    return [
        it
        for it in read_items("json_schema_test_suite")
        if it["name"].startswith("draft2020-12/optional/format/")
    ]


def test_suite_format_groups_are_exact_or_refused() -> None:
    """Against the suite's own labels, every optional format group: compiled and exact, or
    refused by name (``idn-hostname``, ``idn-email``, ``regex``)."""
    refused, wrong = set(), []
    for item in _suite_format_items():
        try:
            comp = compiled(item["schema"])
        except UnsupportedSchemaError as exc:
            assert exc.keyword == "format", exc
            refused.add(item["schema"].get("format"))
            continue
        for test in item["tests"]:
            text = json.dumps(test["data"], ensure_ascii=False)
            if accepts(comp, text) != test["valid"]:
                wrong.append((item["name"], text))
    assert not wrong, wrong[:8]
    assert refused - {"idn-hostname", "idn-email", "regex"} <= {"unknown"}  # unknown formats


def test_formats_refused_with_all_spellings_compile_canonically() -> None:
    for fmt in ("idn-hostname", "idn-email", "regex"):
        with pytest.raises(UnsupportedSchemaError) as info:
            Grammar.from_json_schema({"properties": {"h": {"format": fmt}}})
        assert info.value.keyword == "format" and info.value.path == "#/properties/h"
        comp = compiled({"format": fmt, "type": "string"}, spellings="canonical")
        assert accepts(comp, '"a"') or fmt == "idn-email"


def test_formats_annotate_ignores_format() -> None:
    comp = compiled({"type": "string", "format": "email"}, formats="annotate")
    assert accepts(comp, '"2962"')
    grammar = Grammar.from_json_schema({"format": "idn-hostname"}, formats="annotate")
    assert grammar.deferred == ()


# -- objects ---------------------------------------------------------------------------------

CLOSED = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def test_any_order_accepts_every_order_of_a_closed_object() -> None:
    comp = compiled(CLOSED, key_order="any")
    schema_order = compiled(CLOSED)
    members = {"a": "1", "b": '"x"', "c": "true"}
    for size in range(4):
        for keys in itertools.permutations(members, size):
            text = "{" + ",".join(f'"{k}":{members[k]}' for k in keys) + "}"
            assert accepts(comp, text) == valid(CLOSED, text), text
            if keys == tuple(sorted(keys)):
                assert accepts(schema_order, text) == valid(CLOSED, text), text
    for text in ('{"a":1,"a":2,"b":"x"}', '{"b":"x","a":1,"b":"y"}', '{"b":"x","a":1,"d":0}'):
        assert not accepts(comp, text), text


def test_any_order_counts_properties() -> None:
    schema = {**CLOSED, "required": [], "minProperties": 2, "maxProperties": 2}
    comp = compiled(schema, key_order="any")
    assert accepts(comp, '{"c":true,"a":1}') and not accepts(comp, '{"c":true}')
    assert not accepts(comp, '{"c":true,"a":1,"b":"x"}')


def test_any_order_is_refused_where_objects_are_not_bounded() -> None:
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema({"properties": {"o": {"properties": {"x": {}}}}}, key_order="any")
    assert info.value.keyword == "additionalProperties" and info.value.path == "#/properties/o"
    many: dict[str, Any] = {f"p{i}": {} for i in range(MAX_ANY_ORDER + 1)}
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema(
            {"properties": many, "additionalProperties": False}, key_order="any"
        )
    assert info.value.keyword == "properties"
    # Objects without declared properties already take any order.
    free = compiled({"type": "object"}, key_order="any")
    assert accepts(free, '{"b":1,"a":2}')


def test_any_order_grammar_stays_within_the_stated_bound() -> None:
    props = {f"p{i}": {"type": "integer"} for i in range(MAX_ANY_ORDER)}
    grammar = Grammar.from_json_schema(
        {"properties": props, "additionalProperties": False}, key_order="any"
    )
    assert len(grammar) <= 2**MAX_ANY_ORDER + 8
    comp = tg_compile(grammar, VOCAB, cache=False)
    keys = list(props)[::-1]
    assert accepts(comp, "{" + ",".join(f'"{k}":1' for k in keys) + "}")


def test_unevaluated_properties_see_every_matching_any_of_branch() -> None:
    schema = {
        "properties": {"foo": {"type": "string"}},
        "anyOf": [
            {"properties": {"bar": {"const": "bar"}}, "required": ["bar"]},
            {"properties": {"baz": {"const": "baz"}}, "required": ["baz"]},
            {"properties": {"quux": {"const": "quux"}}, "required": ["quux"]},
        ],
        "unevaluatedProperties": False,
    }
    comp = compiled(schema)
    values = {"foo": '"foo"', "bar": '"bar"', "baz": '"baz"', "quux": '"quux"'}
    for size in range(1, 5):
        for keys in itertools.combinations(values, size):
            text = "{" + ",".join(f'"{k}":{values[k]}' for k in keys) + "}"
            assert accepts(comp, text) == valid(schema, text), text
    assert not accepts(comp, '{"foo":"foo","bar":"bar","baz":"not-baz"}')


def test_unevaluated_properties_next_to_a_wide_any_of_is_refused() -> None:
    branches = [{"properties": {f"p{i}": {}}, "required": [f"p{i}"]} for i in range(5)]
    with pytest.raises(UnsupportedSchemaError) as info:
        Grammar.from_json_schema({"anyOf": branches, "unevaluatedProperties": False})
    assert info.value.keyword == "unevaluatedProperties"


def test_refs_to_historic_drafts_keep_their_keywords() -> None:
    schema = {
        "type": "array",
        "$ref": "http://localhost:1234/draft2019-09/ignore-prefixItems.json",
    }
    resources = remotes() or {
        "http://localhost:1234/draft2019-09/ignore-prefixItems.json": {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "prefixItems": [{"type": "string"}],
        }
    }
    comp = tg_compile(Grammar.from_json_schema(schema, resources=resources), VOCAB, cache=False)
    assert accepts(comp, "[1,2,3]") and accepts(comp, '["a"]')

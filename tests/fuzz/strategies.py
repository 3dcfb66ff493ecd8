"""Hypothesis strategies for the five fuzz targets, each a :class:`~tests.fuzz.harness.Case`.

Two kinds per target: structure-aware generation (a small model of the input language that
mostly produces near-valid inputs with nonsense mixed in, so the fuzzer gets past the parser into
the lowering and the compiler) and byte-level mutation of real inputs (the evaldata grammars and
schemas, the repository's own grammars), which finds what the model of the language misses.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests._support import EVALDATA, REPO
from tests.fuzz.harness import Case

# -- shared pieces --------------------------------------------------------------------------------

_INTERESTING_BYTES = b"\"'/\\()[]{}|*+?~:.,;%#!^$&-_=<>@\n\r\t 0123456789azAZ\x00\x7f\xc3\xa9\xff"
_HUGE = [2**31 - 1, 2**31, 2**32, 2**53, 2**53 + 1, 2**63 - 1, 2**64, 10**20, 10**100, 10**400]

names = st.sampled_from(["a", "b", "c", "x", "id", "", " ", "$ref", "a b", 'q"t', "é", "\x00"])
small_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from('ab"\\\n'),
    max_size=6,
)

numbers: st.SearchStrategy[Any] = st.one_of(
    st.integers(-3, 10),
    st.sampled_from(_HUGE),
    st.sampled_from([-(2**63), -(10**20), -1]),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from([0.5, 1e-300, 5e-324, 1e308, -0.0, 0.1, 1.0, 2.5, 1e-7, 1e20]),
    st.sampled_from([float("inf"), float("-inf"), float("nan")]),
)

json_scalars = st.one_of(st.none(), st.booleans(), numbers, small_text)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        small_text,
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(small_text, inner, max_size=3),
    max_leaves=5,
)
junk: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(small_text, inner, max_size=3),
    max_leaves=6,
)


def _mutate_bytes(data: bytes, draw: Any) -> bytes:
    """Byte-level mutations in the manner of AFL: flips, interesting bytes, splices, cuts."""
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, 7))
        n = len(buf)
        pos = draw(st.integers(0, max(0, n)))
        if op == 0 and n:
            i = min(pos, n - 1)
            buf[i] ^= 1 << draw(st.integers(0, 7))
        elif op == 1:
            buf[pos:pos] = bytes([draw(st.sampled_from(_INTERESTING_BYTES))])
        elif op == 2 and n:
            end = min(n, pos + draw(st.integers(1, 16)))
            del buf[pos:end]
        elif op == 3 and n:
            end = min(n, pos + draw(st.integers(1, 32)))
            chunk = buf[pos:end]
            at = draw(st.integers(0, n))
            buf[at:at] = chunk * draw(st.integers(1, 3))
        elif op == 4:
            del buf[pos:]
        elif op == 5 and n:
            i = min(pos, n - 1)
            buf[i] = draw(st.sampled_from(_INTERESTING_BYTES))
        elif op == 6:
            buf[pos:pos] = draw(st.binary(max_size=4))
        else:
            buf[pos:pos] = draw(
                st.sampled_from([b"99999999999", b"{1000}", b"\\", b"\\u", b"..", b"*"])
            )
    return bytes(buf)


class _Mood:
    """Whether one generated input is clean (well-formed pieces only) or noisy (one piece in six
    is nonsense, to probe the errors); clean inputs get past the parser into the compiler. It
    also collects the names a generated grammar uses, so that most get a definition."""

    def __init__(self, noisy: bool) -> None:
        self.noisy = noisy
        self.rules: set[str] = set()
        self.terms: set[str] = set()

    def pick(self, draw: Any, usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> Any:
        if self.noisy and draw(st.integers(0, 5)) == 0:
            return draw(odd)
        return draw(usual)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _read_items(name: str) -> list[dict[str, Any]]:
    path = EVALDATA / name / "items.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _files(folder: Path, pattern: str) -> list[str]:
    if not folder.exists():
        return []
    return [p.read_text(encoding="utf-8") for p in sorted(folder.rglob(pattern))]


# -- regular expressions --------------------------------------------------------------------------

_RE_ATOMS = [
    "a", "b", "Z", "0", ".", r"\d", r"\w", r"\s", r"\D", r"\W", r"\S", r"\.", r"\\", r"\n", r"\t",
    r"\x41", r"\u00e9", r"\U0001F600", r"\N{DIGIT ONE}", "é", "\U0001f600", " ", "-", "]", "}", "{",
    r"\/", "#", r"\0", r"\ud800", ",", "ab", "if",
]  # fmt: skip
_RE_ODD_ATOMS = [
    r"\b", r"\B", r"\A", r"\Z", "^", "$", r"\1", r"\12", r"\777", "\ud800", r"\p{L}", r"\cA",
    "\x00", "*", "(", ")", "[", "\\", r"\N{NOPE}", r"\u12", r"\x", r"\k<g>", "|",
]  # fmt: skip
_RE_CLASS_ITEMS = [
    "a", "z", "a-z", "0-9", r"\d", r"\w", r"\s", r"\W", "_", r"\]", r"\x00-\x7f", "é-ü", r"\-",
    r"\u0100-\uffff", r"\U00010000-\U0010ffff", ".", r"\b", r"\n", r"\[", "A-Z", "+*?",
]  # fmt: skip
_RE_ODD_CLASS = ["z-a", "[:alpha:]", "[", r"\d-z", "a-", r"\p{L}", "\ud800-\udfff", r"\777", "-\\"]
_RE_QUANTS = [
    "*",
    "+",
    "?",
    "*?",
    "+?",
    "??",
    "{3}",
    "{2,5}",
    "{,4}",
    "{2,}",
    "{0}",
    "{2,5}?",
    "{1,1}",
]
_RE_ODD_QUANTS = [
    "*+",
    "++",
    "?+",
    "{1000}",
    "{65535}",
    "{4294967295}",
    "{5,2}",
    "{999999999999}",
    "{,}",
    "**",
]
_RE_GROUPS = [
    "({})",
    "(?:{})",
    "(?i:{})",
    "(?-i:{})",
    "(?s:{})",
    "(?x:{})",
    "(?a:{})",
    "(?#c){}",
    "({})*",
]
_RE_ODD_GROUPS = [
    "(?={})", "(?!{})", "(?<={})", "(?<!{})", "(?>{})", "(?u:{})", "(?L:{})", "(?(1){}|b)",
    "(?P=g){}", "(?P<g>{})", "[{}]", "(?P<1>{})", "(?i-i:{})", "(?P<g>{})(?P<g>a)",
]  # fmt: skip
_RE_PREFIX = ["(?i)", "(?s)", "(?x)", "(?m)", "(?a)", "(?ix)", "(?u)"]
_RE_ODD_PREFIX = ["(?L)", "(?P<g>", "(?iL)", "(?", "(?z)"]


@st.composite
def regex_text(draw: Any, depth: int = 0, mood: _Mood | None = None) -> str:
    """A random pattern from the regex building blocks; clean ones are valid Python syntax."""
    if mood is None:
        mood = _Mood(draw(st.integers(0, 2)) == 0)
    parts = []
    if depth == 0 and draw(st.integers(0, 5)) == 0:
        parts.append(mood.pick(draw, st.sampled_from(_RE_PREFIX), st.sampled_from(_RE_ODD_PREFIX)))
    names = 0
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9))
        if kind <= 3 or depth >= 3:
            atom = mood.pick(draw, st.sampled_from(_RE_ATOMS), st.sampled_from(_RE_ODD_ATOMS))
        elif kind <= 5:
            item = st.sampled_from(_RE_CLASS_ITEMS)
            items = draw(
                st.lists(
                    mood.pick(draw, st.just(item), st.just(st.sampled_from(_RE_ODD_CLASS))),
                    min_size=1,
                    max_size=3,
                )
            )
            atom = "[" + ("^" if draw(st.booleans()) else "") + "".join(items) + "]"
        elif kind <= 8:
            inner = draw(regex_text(depth + 1, mood))
            group = mood.pick(draw, st.sampled_from(_RE_GROUPS), st.sampled_from(_RE_ODD_GROUPS))
            if group == "({})" and draw(st.integers(0, 3)) == 0:
                names += 1
                group = f"(?P<g{depth}_{names}>{{}})"
            atom = group.replace("{}", inner, 1)
        else:
            atom = draw(regex_text(depth + 1, mood)) + "|" + draw(regex_text(depth + 1, mood))
        if draw(st.integers(0, 2)) == 0:
            atom += mood.pick(draw, st.sampled_from(_RE_QUANTS), st.sampled_from(_RE_ODD_QUANTS))
        parts.append(atom)
    return "".join(parts)


_RE_CHARS = "ab.\\[]()^$*+?{}|-,:=!<>P0123456789dwsDWSbBAZxuUN"
raw_regex = st.text(alphabet=st.sampled_from(list(_RE_CHARS)), max_size=16)
any_regex = st.one_of(regex_text(), regex_text(), raw_regex)

_FLAG_VALUES = [0, 2, 4, 8, 16, 32, 64, 256, 1024]  # I L M S U X A, and one re does not know


@st.composite
def regex_cases(draw: Any) -> Case:
    pattern = draw(any_regex)
    flags = 0
    if draw(st.integers(0, 3)) == 0:
        for flag in draw(st.lists(st.sampled_from(_FLAG_VALUES), max_size=3)):
            flags |= flag
    return Case("regex", {"pattern": pattern, "flags": flags})


# -- JSON Schema ----------------------------------------------------------------------------------

_TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"]
_FORMATS = [
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex", "unknown-format", "", "int32", "byte",
]  # fmt: skip
_REFS = [
    "#", "#/$defs/a", "#/$defs/b", "#/definitions/a", "#/$defs/a/properties/x", "#/properties/a",
    "#/items", "#/items/0", "#/anyOf/0", "#/$defs/missing", "#a", "#/%24defs/a", "#/$defs/a~1b",
    "", "http://example.com/s.json", "other.json#/x", "urn:x", "#/$defs", "#/$defs/a/$ref", "#/-",
]  # fmt: skip
_SCHEMA_KEYS = [
    "properties", "additionalProperties", "unevaluatedProperties", "items", "additionalItems",
    "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems",
]  # fmt: skip
_LIST_KEYS = ["prefixItems", "anyOf", "oneOf", "allOf"]
_NUMBER_KEYS = [
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains",
    "maxContains",
]  # fmt: skip
_OTHER_KEYS = [
    "type", "required", "pattern", "patternProperties", "format", "enum", "const", "$ref",
    "$defs", "definitions", "$id", "$anchor", "$schema", "$dynamicRef", "$dynamicAnchor",
    "dependentRequired", "dependentSchemas", "dependencies", "uniqueItems", "contentEncoding",
    "contentMediaType", "default", "title", "description", "examples", "nullable", "$comment",
    "discriminator", "readOnly", "x-custom", "$recursiveRef", "$vocabulary",
]  # fmt: skip
_KEYWORDS = _SCHEMA_KEYS + _LIST_KEYS + _NUMBER_KEYS + _OTHER_KEYS


_COUNT_KEYS = frozenset(
    k
    for k in _NUMBER_KEYS
    if k.startswith(("minL", "maxL", "minI", "maxI", "minP", "maxP", "minC", "maxC"))
)
_COUNTS = st.one_of(
    st.integers(0, 6), st.sampled_from([0, 1, 2, 100, 1000, 2**16, 2**31 - 1, 2**31, 2**64])
)
_BOUNDS = st.one_of(
    st.integers(-100, 100), st.sampled_from([0.5, -2.5, 1e-7, 1e20, 1.5e300, 10**30, -(2**63)])
)
_MULTIPLES = st.sampled_from([1, 2, 3, 10, 0.5, 0.1, 0.01, 1e-9, 7, 2**40])


def _keyword_value(draw: Any, key: str, depth: int, mood: _Mood | None = None) -> Any:
    mood = mood or _Mood(True)
    sub = json_schemas(depth + 1, mood)
    if key == "properties":
        return draw(st.dictionaries(names, sub, max_size=3))
    if key == "items" and draw(st.integers(0, 3)) == 0:
        return draw(st.lists(sub, max_size=3))
    if key in _SCHEMA_KEYS:
        return draw(sub)
    if key in _LIST_KEYS:
        return draw(st.lists(sub, min_size=0 if mood.noisy else 1, max_size=3))
    if key in _COUNT_KEYS:
        return mood.pick(draw, _COUNTS, numbers)
    if key == "multipleOf":
        return mood.pick(draw, _MULTIPLES, numbers)
    if key in _NUMBER_KEYS:
        return mood.pick(draw, _BOUNDS, numbers)
    if key == "type":
        one = st.sampled_from(_TYPES)
        usual = one | st.lists(one, min_size=1, max_size=3, unique=True)
        return mood.pick(
            draw, usual, st.lists(one, max_size=4) | st.sampled_from(["any", "int", "Object"])
        )
    if key == "required":
        return draw(st.lists(names, max_size=4))
    if key == "pattern":
        return draw(any_regex)
    if key == "patternProperties":
        return draw(st.dictionaries(any_regex, sub, max_size=2))
    if key == "format":
        return draw(st.sampled_from(_FORMATS))
    if key == "enum":
        return draw(st.lists(mood.pick(draw, st.just(json_values), st.just(junk)), max_size=4))
    if key == "const":
        return draw(mood.pick(draw, st.just(json_values), st.just(junk)))
    if key in ("$ref", "$dynamicRef", "$recursiveRef"):
        return draw(st.sampled_from(_REFS))
    if key in ("$defs", "definitions"):
        return draw(st.dictionaries(st.sampled_from(["a", "b", "a/b", "~", ""]), sub, max_size=3))
    if key == "dependentRequired":
        return draw(st.dictionaries(names, st.lists(names, max_size=3), max_size=2))
    if key in ("dependentSchemas", "dependencies"):
        return draw(st.dictionaries(names, sub | st.lists(names, max_size=2), max_size=2))
    if key in ("uniqueItems", "nullable", "readOnly"):
        return draw(st.booleans())
    if key in ("$id", "$anchor", "$dynamicAnchor", "$schema"):
        return draw(
            st.sampled_from(
                [
                    "a",
                    "#a",
                    "http://example.com/s.json",
                    "https://json-schema.org/draft/2020-12/schema",
                    "http://json-schema.org/draft-04/schema#",
                    "http://json-schema.org/draft-07/schema#",
                    "",
                ]
            )
        )
    return draw(junk)


@st.composite
def json_schemas(draw: Any, depth: int = 0, mood: _Mood | None = None) -> Any:
    """A schema: a random keyword mix, well-typed values in a clean mood, some nonsense in a
    noisy one, cycles via $ref and $defs."""
    if mood is None:
        mood = _Mood(draw(st.integers(0, 2)) == 0)
    roll = draw(st.integers(0, 15))
    if roll == 0:
        return draw(st.booleans())
    if roll == 1 and mood.noisy:
        return draw(junk)
    if depth >= 3 or roll == 2:
        return {"type": draw(st.sampled_from(_TYPES))}
    keys = draw(st.lists(st.sampled_from(_KEYWORDS), max_size=5, unique=True))
    out: dict[str, Any] = {}
    for key in keys:
        if mood.noisy and draw(st.integers(0, 7)) == 0:
            out[key] = draw(junk)
        else:
            out[key] = _keyword_value(draw, key, depth, mood)
    if mood.noisy and draw(st.integers(0, 7)) == 0:
        out[draw(small_text)] = draw(junk)
    return out


@cache
def schema_seeds() -> list[Any]:
    """Real schemas: JSON-Schema-Test-Suite groups and jsonschemabench (a sample)."""
    seeds: list[Any] = [item["schema"] for item in _read_items("json_schema_test_suite")]
    bench = _read_items("jsonschemabench")
    for item in bench[::7]:
        schema = item["schema"]
        if isinstance(schema, str):
            try:
                schema = ast.literal_eval(schema)
            except (ValueError, SyntaxError):
                continue
        seeds.append(schema)
    return seeds or [{"type": "object", "properties": {"a": {"type": "integer"}}}]


def _mutate_json(value: Any, draw: Any, mood: _Mood, depth: int = 0) -> Any:
    """Replace, delete or add one keyword somewhere in a schema tree."""
    if isinstance(value, dict) and value and depth < 8 and draw(st.integers(0, 2)) != 0:
        key = draw(st.sampled_from(sorted(value, key=str)))
        out = dict(value)
        out[key] = _mutate_json(value[key], draw, mood, depth + 1)
        return out
    if isinstance(value, list) and value and depth < 8 and draw(st.integers(0, 2)) != 0:
        i = draw(st.integers(0, len(value) - 1))
        out_list = list(value)
        out_list[i] = _mutate_json(value[i], draw, mood, depth + 1)
        return out_list
    op = draw(st.integers(0 if mood.noisy else 1, 3))
    if op == 0:
        return draw(junk)
    if op == 1:
        return draw(json_schemas(2, mood))
    if isinstance(value, dict):
        out = dict(value)
        if op == 2 and out:
            del out[draw(st.sampled_from(sorted(out, key=str)))]
        else:
            key = draw(st.sampled_from(_KEYWORDS))
            out[key] = _keyword_value(draw, key, 2, mood)
        return out
    return draw(json_schemas(2, mood))


@st.composite
def mutated_schemas(draw: Any) -> Any:
    seeds = schema_seeds()
    schema = seeds[draw(st.integers(0, len(seeds) - 1))]
    mood = _Mood(draw(st.integers(0, 2)) == 0)
    for _ in range(draw(st.integers(1, 3))):
        schema = _mutate_json(schema, draw, mood)
    return schema


@st.composite
def jsonschema_cases(draw: Any) -> Case:
    schema = draw(st.one_of(json_schemas(), mutated_schemas(), mutated_schemas()))
    if draw(st.integers(0, 9)) == 0:
        text = json.dumps(schema)
        if draw(st.booleans()):
            text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
        schema = text
    # A bare dict or bool is an output type by itself; anything else needs the JsonSchema marker.
    wrap = draw(st.booleans()) or not isinstance(schema, dict | bool)
    args: dict[str, Any] = {"schema": schema, "wrap": wrap}
    if wrap:
        args["strict"] = draw(st.booleans())
        args["whitespace"] = draw(st.sampled_from(["compact", "pretty"]))
    return Case("jsonschema", args)


# -- Lark -----------------------------------------------------------------------------------------

_RULES = ["start", "a", "b", "expr", "_h", "item", "x"]
_TERMS = ["A", "B", "NUM", "SP", "_SEP", "STR"]
_ODD_NAMES = ["__X", "_", "A1_", "startX", "?start", "Start"]
_LIT_CHARS = ["a", "b", "0", " ", "-", "ab", "if", "\\n", "\\t", '\\"', "\\\\", "é", "{", "("]
_ODD_LIT = ["\\x41", "\\u00e9", "\\U0001F600", "\\u", "\\x", "\\", "\n", "'", "/", "\\0"]
_ODD_LIT += ["\\777", "\\ud800", "\ud800", "\\N{DIGIT ONE}", "\x00", "//"]
_LARK_COMMON = ["WS", "NUMBER", "INT", "ESCAPED_STRING", "CNAME", "WORD", "NEWLINE", "DIGIT"]
_TAME_RE = [
    "[a-z]+", "\\d+", "[0-9]*\\.[0-9]+", "\\w+", "\\s+", "a|b", "(ab)*c", "[^\\n]*", "x{2,4}",
    ".", "[\\u0100-\\uffff]", "(?i:ab)", "a*?b", "#[^\\n]*", "\\\\.", '"(?:[^"\\\\]|\\\\.)*"',
    "(?=a)a", "a(?!b)", "(?<=a)b", "[^\\W\\d]", "\\bx\\b", "a{0,1000}", "$", "^a",
]  # fmt: skip


@st.composite
def lark_literal(draw: Any, mood: _Mood) -> str:
    body = "".join(draw(st.lists(st.sampled_from(_LIT_CHARS), min_size=1, max_size=3)))
    body = mood.pick(
        draw, st.just(body), st.sampled_from(["", *_ODD_LIT]).map(lambda odd: odd + body)
    )
    return (
        '"'
        + body
        + '"'
        + mood.pick(draw, st.sampled_from(["", "", "i"]), st.sampled_from(["ii", "x", "s"]))
    )


@st.composite
def lark_regexp(draw: Any, mood: _Mood) -> str:
    body = mood.pick(draw, st.sampled_from(_TAME_RE), any_regex).replace("/", "\\/")
    flags = mood.pick(
        draw,
        st.sampled_from(["", "", "", "i", "s", "x"]),
        st.sampled_from(["m", "imsx", "l", "u", "q"]),
    )
    return "/" + body + "/" + flags


_LEAF_TERMS = ["D", "L"]
"""Terminals whose bodies name no other terminal, so terminal definitions never recurse."""


@st.composite
def lark_atom(draw: Any, mood: _Mood, terminal: bool, depth: int, leaf: bool = False) -> str:
    kind = draw(st.integers(0, 4 if leaf else 12))
    if kind <= 2:
        return draw(lark_literal(mood))
    if kind == 3:
        return draw(lark_regexp(mood))
    if kind == 4:
        a, b = mood.pick(
            draw,
            st.sampled_from([("a", "z"), ("0", "9"), ("A", "F")]),
            st.sampled_from(
                [
                    ("é", "ü"),
                    ("z", "a"),
                    ("ab", "c"),
                    ("", "a"),
                    ("\\x00", "\\U0010ffff"),
                    ("a", "\\ud800"),
                ]
            ),
        )
        return f'"{a}".."{b}"'
    if kind <= 6 and depth < 3:
        inner = draw(lark_expansions(mood, terminal, depth + 1, leaf=leaf))
        return draw(st.sampled_from(["({})", "[{}]", "({})"])).replace("{}", inner)
    if kind == 7 and not terminal and depth < 3:
        simple = st.one_of(lark_literal(mood), st.sampled_from(_RULES + _TERMS))
        args = mood.pick(
            draw,
            st.lists(simple, min_size=2, max_size=2),
            st.lists(lark_atom(mood, terminal, depth + 1), min_size=1, max_size=3),
        )
        mood.rules.add("_sep")
        mood.rules.update(a for a in args if a in _RULES)
        mood.terms.update(a for a in args if a in _TERMS)
        return "_sep{" + ", ".join(args) + "}"
    if kind == 8:
        name = draw(st.sampled_from(_LARK_COMMON))
        mood.terms.add(name)
        return name
    if kind == 9 and terminal and depth < 3:
        op = draw(st.sampled_from([" & ", " & ", " ~ "]))
        return draw(lark_atom(mood, True, depth + 1)) + op + draw(lark_atom(mood, True, depth + 1))
    if terminal:
        name = mood.pick(draw, st.sampled_from(_LEAF_TERMS), st.sampled_from(_TERMS + _ODD_NAMES))
        mood.terms.add(name)
    elif draw(st.booleans()):
        name = mood.pick(draw, st.sampled_from(_TERMS), st.sampled_from(_ODD_NAMES))
        mood.terms.add(name)
    else:
        name = mood.pick(draw, st.sampled_from(_RULES), st.sampled_from(_ODD_NAMES))
        mood.rules.add(name)
    return name


_LARK_OPS = ["", "", "", "", "?", "*", "+", "~3", "~1..2", "{2,3}"]
_ODD_OPS = ["~0..1000", "{3}", "~5..2", "{,2}", "**", "~99999999999", "{0}", "~0", "?+", "{1000}"]


@st.composite
def lark_expansions(
    draw: Any,
    mood: _Mood,
    terminal: bool,
    depth: int = 0,
    *,
    leaf: bool = False,
    alias: bool = True,
) -> str:
    alts = []
    for _ in range(draw(st.integers(1, 3))):
        items = []
        for _ in range(draw(st.integers(0 if depth and mood.noisy else 1, 3))):
            atom = draw(lark_atom(mood, terminal, depth, leaf))
            if " & " in atom or " ~ " in atom:
                atom = f"({atom})"
            items.append(
                atom + mood.pick(draw, st.sampled_from(_LARK_OPS), st.sampled_from(_ODD_OPS))
            )
        alt = " ".join(items)
        if (
            not terminal
            and items
            and ((alias and not depth) or mood.noisy)
            and draw(st.integers(0, 7)) == 0
        ):
            alt += " -> " + mood.pick(
                draw, st.sampled_from(["alias", "start"]), st.sampled_from(["_x", "A"])
            )
        alts.append(alt)
    return draw(st.sampled_from([" | ", " | ", "\n    | ", "|"])).join(alts)


_DIRECTIVES = [
    "%import common.WS", "%import common (INT, WS)", "%import common.NUMBER -> NUMERAL",
    "%import common.CNAME", "%import common.ESCAPED_STRING -> STR", "%ignore SP", "%ignore \" \"",
    "%ignore /\\s+/", "%ignore A", "%import common.WS",
]  # fmt: skip
_ODD_DIRECTIVES = [
    "%import common.expr", "%import .other.x", "%import nonexist.X", "%import lark.RULE",
    "%declare X", "%override a: b", "%extend a: B", "%foo x", '%ignore ""', "%ignore /a*/",
    "%ignore x", "%import common", "%override NUM: /0/", "%extend A: \"z\"",
]  # fmt: skip


@st.composite
def lark_definition(draw: Any, mood: _Mood, name: str) -> str:
    if name[0].isupper() or name.lstrip("_")[:1].isupper():
        prio = mood.pick(
            draw, st.sampled_from(["", "", ".2"]), st.sampled_from([".-3", ".99999999999", ".x"])
        )
        body = draw(lark_expansions(mood, True, leaf=name in _LEAF_TERMS))
        return f"{name}{prio}: {body}"
    mods = ["", "", "", "!"] if name.startswith("_") else ["", "", "", "?", "!"]
    mod = mood.pick(draw, st.sampled_from(mods), st.sampled_from(["!?", "?!", "??", "?"]))
    prio = mood.pick(
        draw, st.sampled_from(["", "", ".2"]), st.sampled_from([".-1", ".99999999999"])
    )
    head = "_sep{p, q}" if name == "_sep" else name
    if name == "_sep" and draw(st.booleans()):
        body = "p (q p)*"
    else:
        body = draw(lark_expansions(mood, False, alias=not name.startswith("_")))
    return f"{mod}{head}{prio}: {body}"


@st.composite
def generated_lark(draw: Any) -> str:
    mood = _Mood(draw(st.integers(0, 4)) < 2)
    statements: list[str] = []
    if not mood.noisy or draw(st.integers(0, 4)) != 0:
        statements.append(draw(lark_definition(mood, "start")))
    defined = {"start"}
    for name in draw(st.lists(st.sampled_from(_RULES + _TERMS), max_size=3, unique=True)):
        if name not in defined:
            statements.append(draw(lark_definition(mood, name)))
            defined.add(name)
    # Define what the bodies name (a few stay undefined on purpose: one draw in ten).
    while (mood.rules | mood.terms) - defined:  # the pools are finite, so this ends
        for name in sorted((mood.rules | mood.terms) - defined):
            defined.add(name)
            if name in _LARK_COMMON or (mood.noisy and draw(st.integers(0, 4)) == 0):
                continue
            statements.append(draw(lark_definition(mood, name)))
    if any(n in _LARK_COMMON for n in mood.terms):
        statements.append(
            "%import common (" + ", ".join(sorted(n for n in mood.terms if n in _LARK_COMMON)) + ")"
        )
    directives = st.lists(
        st.sampled_from(_DIRECTIVES + (_ODD_DIRECTIVES if mood.noisy else [])),
        max_size=2,
    )
    statements.extend(draw(directives))
    if draw(st.integers(0, 5)) == 0:
        statements.append("// " + draw(small_text))
    statements = draw(st.permutations(statements)) if draw(st.integers(0, 4)) == 0 else statements
    return "\n".join(statements) + draw(st.sampled_from(["\n", "", "\n\n"]))


@cache
def lark_seeds() -> list[str]:
    """Lark grammars from evaldata and from this repository."""
    seeds = _files(EVALDATA / "lark_grammars" / "files", "*.lark")
    seeds += _files(REPO / "tests" / "grammars", "*.lark")
    seeds += _files(REPO / "grammars", "*.lark")
    for item in _read_items("llguidance_lark_tests") + _read_items("lark_parser_tests"):
        if isinstance(item.get("grammar"), str):
            seeds.append(item["grammar"])
    return seeds or ['start: "a"+\n']


_RULE_NAME = re.compile(r"^[?!]*([a-z_][a-z_0-9]*)\s*(?:\.\-?\d+)?\s*:", re.M)


def _starts(text: str) -> list[str]:
    return list(dict.fromkeys(["start", *_RULE_NAME.findall(text)[:8]]))


@st.composite
def mutated_lark(draw: Any) -> tuple[str, str]:
    seeds = lark_seeds()
    text = seeds[draw(st.integers(0, len(seeds) - 1))]
    if draw(st.integers(0, 4)) == 0:
        text += "\n" + draw(lark_definition(_Mood(True), draw(st.sampled_from(_RULES + _TERMS))))
    if draw(st.integers(0, 5)) != 0:
        text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
    return text, draw(st.sampled_from(_starts(text)))


@st.composite
def lark_cases(draw: Any) -> Case:
    if draw(st.booleans()):
        text, start = draw(mutated_lark())
    else:
        text, start = draw(generated_lark()), "start"
        if draw(st.integers(0, 7)) == 0:
            text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
    lexer = draw(
        st.sampled_from(["contextual"] * 5 + ["basic", "basic", "dynamic", "dynamic_complete"])
    )
    return Case("lark", {"text": text, "start": start, "lexer": lexer})


# -- GBNF -----------------------------------------------------------------------------------------

_GBNF_RULES = ["root", "a", "b", "ws", "item-x", "x_y", "r2"]
_GBNF_LIT = [
    "a",
    "b",
    "0",
    " ",
    "\\n",
    "\\t",
    '\\"',
    "\\\\",
    "\\x41",
    "\\u00e9",
    "\\U0001F600",
    "é",
    "{",
]
_GBNF_LIT += ["[", "]", "\\[", "-", "#", "ab", "::="]
_GBNF_ODD_LIT = ["\\", "\\x", "\\uD800", "\\U00110000", "\\0", "\\q", "\\x4", "\n", '"']
_GBNF_CLASS = [
    "a",
    "z",
    "a-z",
    "0-9",
    "\\]",
    "\\-",
    "\\x00-\\x7f",
    "\\n",
    "é",
    "\\u0100-\\uffff",
    "A-Z",
]
_GBNF_CLASS += ["\\U00010000-\\U0010FFFF", "\\t", " ", "_", "\\\\"]
_GBNF_ODD_CLASS = ["\\^", "z-a", "-", "^", "[", "\\", "\\uD800-\\uDFFF", "\\x", "a-", "\\U00110000"]
_GBNF_OPS = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,}", "{2,}", "{0,3}", "{1,}"]
_GBNF_ODD_OPS = ["{3,1}", "{2000}", "{99999999999}", "{0}", "{,3}", "{", "**", "{-1}", "{1,2,3}"]


@st.composite
def gbnf_atom(draw: Any, mood: _Mood, depth: int) -> str:
    kind = draw(st.integers(0, 9))
    if kind <= 2:
        chars = draw(st.lists(st.sampled_from(_GBNF_LIT), min_size=1, max_size=3))
        chars.insert(0, mood.pick(draw, st.just(""), st.sampled_from(_GBNF_ODD_LIT)))
        return '"' + "".join(chars) + '"'
    if kind <= 4:
        items = [
            mood.pick(draw, st.sampled_from(_GBNF_CLASS), st.sampled_from(_GBNF_ODD_CLASS))
            for _ in range(draw(st.integers(1, 3)))
        ]
        return "[" + ("^" if draw(st.booleans()) else "") + "".join(items) + "]"
    if kind == 5:
        return "."
    if kind <= 7 and depth < 3:
        return "(" + draw(gbnf_alternatives(mood, depth + 1)) + ")"
    if kind == 8 and mood.noisy:
        return draw(st.sampled_from(["<think>", "<[123]>", "!<x>", "<|eot|>", "()", "[]", "[^]"]))
    name = mood.pick(draw, st.sampled_from(_GBNF_RULES), st.sampled_from(["9x", "a b", "A", "r-"]))
    mood.rules.add(name)
    return name


@st.composite
def gbnf_alternatives(draw: Any, mood: _Mood, depth: int = 0) -> str:
    alts = []
    for _ in range(draw(st.integers(1, 3))):
        items = [
            draw(gbnf_atom(mood, depth))
            + mood.pick(draw, st.sampled_from(_GBNF_OPS), st.sampled_from(_GBNF_ODD_OPS))
            for _ in range(draw(st.integers(0 if mood.noisy else 1, 3)))
        ]
        alts.append(" ".join(items))
    sep = st.sampled_from([" | ", " |\n  ", "|"])
    return draw(sep).join(alts)


@st.composite
def generated_gbnf(draw: Any) -> str:
    mood = _Mood(draw(st.integers(0, 4)) < 2)
    rules = []
    defined = set()
    if not mood.noisy or draw(st.integers(0, 4)) != 0:
        rules.append(f"root ::= {draw(gbnf_alternatives(mood))}")
        defined.add("root")
    while mood.rules - defined:  # the pool of names is finite, so this ends
        for name in sorted(mood.rules - defined):
            defined.add(name)
            if not mood.noisy or draw(st.integers(0, 4)) != 0:
                rules.append(f"{name} ::= {draw(gbnf_alternatives(mood))}")
    if draw(st.integers(0, 5)) == 0:
        rules.append("# " + draw(small_text).replace("\n", " "))
    if mood.noisy and draw(st.integers(0, 3)) == 0:
        rules.append(
            draw(st.sampled_from(["root ::= ", "::= a", "x ::= y ::= z", 'root ::= "a"', "a ::="]))
        )
    rules = draw(st.permutations(rules)) if draw(st.integers(0, 3)) == 0 else rules
    return "\n".join(rules) + draw(st.sampled_from(["\n", "", "\n\n"]))


@cache
def gbnf_seeds() -> list[str]:
    """GBNF grammars from evaldata (llama.cpp, XGrammar EBNF) and this repository."""
    seeds = _files(EVALDATA / "gbnf_grammars" / "files", "*.gbnf")
    seeds += _files(REPO / "tests" / "grammars", "*.gbnf")
    for name in (
        "llamacpp_grammar_integration",
        "xgrammar_tests",
        "llamacpp_json_schema_to_grammar",
    ):
        for item in _read_items(name):
            text = item.get("expected_grammar") or item.get("grammar")
            if item.get("kind") not in (None, "grammar", "ebnf") or not isinstance(text, str):
                continue
            seeds.append(text)
    return seeds or ['root ::= "a"+\n']


@st.composite
def gbnf_cases(draw: Any) -> Case:
    if draw(st.booleans()):
        seeds = gbnf_seeds()
        text = seeds[draw(st.integers(0, len(seeds) - 1))]
        if draw(st.integers(0, 5)) != 0:
            text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
    else:
        text = draw(generated_gbnf())
        if draw(st.integers(0, 5)) == 0:
            text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
    start = draw(st.sampled_from(["root"] * 8 + ["a", "missing"]))
    return Case("gbnf", {"text": text, "start": start})


# -- SQL schema DDL -------------------------------------------------------------------------------

_SQL_DIALECTS = ["sqlite", "sqlite", "postgres", "postgres", "mysql", "duckdb", "bigquery", "tsql"]
_SQL_DIALECTS += ["snowflake", "oracle", "clickhouse", "generic", "spark", "trino", "hive"]
_SQL_DIALECTS += ["prql", "nosuch", "Postgres"]
_SQL_PLAIN = ["t", "users", "orders", "x1", "_x", "name", "id", "price_usd", "Ünï", "ab" * 20]
_SQL_NAMES = [
    "order", "select", "from", "table", "a b", "1abc", "", "group", '"q"', 'a"b', "a'b", "a`b",
    "a]b", "x" * 70, "NULL", "count", "*", "a.b", "-", "\\", "\n", "\x00", "é" * 3, "a;b", "--",
]  # fmt: skip
_SQL_TYPES = ["INT", "INTEGER", "TEXT", "VARCHAR(255)", "DECIMAL(10, 2)", "REAL", "BOOLEAN", "DATE"]
_SQL_TYPES += ["TIMESTAMP", ""]
_SQL_ODD_TYPES = [
    "BLOB", "INT[]", "ARRAY<INT>", "STRUCT<a INT>", "JSON", "FOO", "NUMERIC(99999999999)",
    "DOUBLE PRECISION", "CHAR(0)", "ENUM('a', 'b')", "UUID", "SERIAL", "MAP<TEXT, INT>", "(",
]  # fmt: skip
_SQL_CONSTRAINTS = ["", "", "", "PRIMARY KEY", "NOT NULL", "UNIQUE", "DEFAULT 0", "DEFAULT 'x'"]
_SQL_ODD_CONSTRAINTS = [
    "REFERENCES t(a)", "CHECK (a > 0)", "AUTOINCREMENT", "COLLATE NOCASE",
    "GENERATED ALWAYS AS (1) STORED", "DEFAULT (", "NOT",
]  # fmt: skip
_BACKTICK_DIALECTS = frozenset({"mysql", "bigquery", "spark", "hive", "clickhouse", "databricks"})


@st.composite
def sql_name(draw: Any, mood: _Mood, dialect: str) -> str:
    """A name as the dialect quotes it (clean), or any odd name in any quotes (noisy)."""
    name = mood.pick(
        draw, st.sampled_from(_SQL_PLAIN), st.sampled_from(_SQL_NAMES) | st.text(max_size=5)
    )
    usual = "`" if dialect in _BACKTICK_DIALECTS else '"'
    quote = mood.pick(
        draw, st.sampled_from(["", "", "", usual]), st.sampled_from(['"', "`", "[", "'"])
    )
    if name not in _SQL_PLAIN and not mood.noisy:
        quote = usual
    if quote == '"':
        return '"' + name.replace('"', '""') + '"'
    if quote == "`":
        return "`" + name.replace("`", "``") + "`"
    if quote == "[":
        return "[" + name + "]"
    if quote == "'":
        return "'" + name + "'"
    return name


@st.composite
def sql_ddl(draw: Any, dialect: str) -> str:
    mood = _Mood(draw(st.integers(0, 2)) == 0)
    statements = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 9)) if mood.noisy else 0
        if kind <= 6:
            cols = []
            for _ in range(draw(st.integers(0 if mood.noisy else 1, 4))):
                kind_ = mood.pick(
                    draw, st.sampled_from(_SQL_TYPES), st.sampled_from(_SQL_ODD_TYPES)
                )
                extra = mood.pick(
                    draw, st.sampled_from(_SQL_CONSTRAINTS), st.sampled_from(_SQL_ODD_CONSTRAINTS)
                )
                cols.append(f"{draw(sql_name(mood, dialect))} {kind_} {extra}".strip())
            if mood.noisy and draw(st.integers(0, 4)) == 0:
                cols.append(
                    draw(st.sampled_from(["PRIMARY KEY (a)", "FOREIGN KEY (a) REFERENCES t(b)"]))
                )
            exists = mood.pick(
                draw, st.sampled_from(["", "", "IF NOT EXISTS "]), st.sampled_from(["TEMP ", "OR "])
            )
            table = draw(sql_name(mood, dialect))
            if draw(st.integers(0, 5)) == 0:
                table = f"{draw(sql_name(mood, dialect))}.{table}"
            temp = "TEMP " if exists == "TEMP " else ""
            exists = "" if temp else exists
            statements.append(f"CREATE {temp}TABLE {exists}{table} ({', '.join(cols)})")
        elif kind == 7:
            statements.append(f"CREATE VIEW v AS SELECT * FROM {draw(sql_name(mood, dialect))}")
        elif kind == 8:
            statements.append(
                draw(st.sampled_from(["INSERT INTO t VALUES (1)", "DROP TABLE t", "SELECT 1"]))
            )
        else:
            statements.append(
                draw(st.sampled_from(["-- comment", "/* c */", "garbage (", "'open"]))
            )
    text = draw(st.sampled_from([";\n", "; ", ";", "\n"])).join(statements)
    if mood.noisy and draw(st.integers(0, 2)) == 0:
        text = _decode(_mutate_bytes(text.encode("utf-8", "surrogatepass"), draw))
    return text


@cache
def ddl_seeds() -> list[str]:
    """CREATE TABLE texts for the Spider dev databases (evaldata ``spider_dev/tables.json``)."""
    path = EVALDATA / "spider_dev" / "tables.json"
    if not path.exists():
        return []
    out = []
    for db in json.loads(path.read_text(encoding="utf-8")):
        tables = db["table_names_original"]
        columns = db["column_names_original"]
        types = db["column_types"]
        if isinstance(tables, str):
            tables, columns, types = map(ast.literal_eval, (tables, columns, types))
        lines = []
        for t, table in enumerate(tables):
            cols = [f"{c} {types[i]}" for i, (owner, c) in enumerate(columns) if owner == t]
            lines.append(f"CREATE TABLE {table} ({', '.join(cols)});")
        out.append("\n".join(lines))
    return out


_SCHEMA_VALUES = st.dictionaries(
    st.sampled_from(_SQL_NAMES) | st.text(max_size=4),
    st.dictionaries(
        st.sampled_from(_SQL_NAMES) | st.text(max_size=4), st.sampled_from(_SQL_TYPES), max_size=3
    )
    | st.lists(st.sampled_from(_SQL_NAMES), max_size=3)
    | junk,
    max_size=3,
)


@st.composite
def sql_cases(draw: Any) -> Case:
    dialect = draw(st.sampled_from(_SQL_DIALECTS))
    roll = draw(st.integers(0, 9))
    schema: Any
    if roll <= 5:
        schema = draw(sql_ddl(dialect))
    elif roll <= 7:
        schema = draw(_SCHEMA_VALUES)
    elif roll == 8 and ddl_seeds():
        seeds = ddl_seeds()
        schema = seeds[draw(st.integers(0, len(seeds) - 1))]
        if draw(st.booleans()):
            schema = _decode(_mutate_bytes(schema.encode(), draw))
    else:
        schema = None
    kinds = st.sampled_from(["select", "insert", "update", "delete", "create_table"])
    statements = (
        ["select"] if draw(st.booleans()) else draw(st.lists(kinds, min_size=1, max_size=3))
    )
    args: dict[str, Any] = {
        "dialect": dialect,
        "schema": schema,
        "statements": statements,
        "ctes": draw(st.booleans()),
        "terminator": draw(st.booleans()),
    }
    if draw(st.integers(0, 4)) == 0:
        names = st.sampled_from(["COUNT", "max", "NOSUCH", "", "sum", "Lower", "a b", "COUNT("])
        args["functions"] = draw(st.lists(names, max_size=3))
    return Case("sql", args)


STRATEGIES: dict[str, st.SearchStrategy[Case]] = {
    "jsonschema": jsonschema_cases(),
    "lark": lark_cases(),
    "gbnf": gbnf_cases(),
    "regex": regex_cases(),
    "sql": sql_cases(),
}

"""JSON Schema ``pattern``: the IR language must be the strings an ECMA-262 engine finds a match in.

The oracle is ``regress`` (Rust's ECMA-262 engine) in Unicode mode; membership in the IR is
decided by the independent oracle of ``tests/frontends/_ir_match.py``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._support import evaldata_items
from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.frontends.jsonschema.ecma import pattern_expr
from typedgen.ir import Alt, CharClass, Expr, Lit, Origin, Repeat

from .._ir_match import matches

regress = pytest.importorskip("regress")

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE_ALPHABET = "abcxyzAZ019_-.@ \n\t\r/{}é𝄞\u2028\u00a0٣😀"


@cache
def _regex(pattern: str, flags: str) -> Any:
    return regress.Regex(pattern, flags)


def ecma_finds(pattern: str, text: str, flags: str = "u") -> bool:
    """Whether the ECMA-262 regex finds a match anywhere in ``text`` (``RegExp.test``)."""
    return _regex(pattern, flags).find(text) is not None


@cache
def _expr(pattern: str) -> Expr:
    return pattern_expr(pattern)


def disagreements(pattern: str, texts: list[str], flags: str = "u") -> list[str]:
    expr = _expr(pattern)
    return [t for t in texts if matches(expr, t) != ecma_finds(pattern, t, flags)]


def _alphabet(pattern: str) -> str:
    return "".join(sorted(set(BASE_ALPHABET) | {c for c in pattern if c != "\\"}))


# -- a corpus of patterns, against the engine on random text -----------------------------------

CORPUS = [
    "^[a-z]+$",
    "a",
    "^\\d{3}-\\d{4}$",
    "abc|^x",
    "^(?:a|b)*c",
    "[^a]",
    "\\p{Lu}",
    "^\\S+@\\S+$",
    "colou?r",
    "^$",
    "",
    "^[\\w.-]+$",
    "\\u00e9",
    "^\\p{L}+$",
    ".",
    "x$",
    # anchors away from the pattern's ends
    "^a|b$",
    "^(a|b)$",
    "(^a)",
    "(^a|b)c",
    "(?:^|,)x(?:,|$)",
    "a^b",
    "$^",
    "^",
    "$",
    "(^)*a",
    "(^a)*b",
    "(a|^)+b",
    "(a$|b)+",
    "(?:^a|b){2}",
    "(?:a$|b){1,3}c?",
    "^(?:(^a)|b$)+$",
    "((^)|x)y($|z)",
    # ECMA syntax that Python reads differently, or not at all
    "^[^]$",
    "[]|x",
    "^[]*$",
    "\\u{1D11E}",
    "^\\uD834\\uDD1E$",
    "\\cJ",
    "^[\\b]$",
    "\\/",
    "(?<year>\\d{4})-(?<m>\\d\\d)",
    "^.$",
    "^..$",
    "^\\s$",
    "\\P{L}",
    "^[^\\p{L}\\d]+$",
    "[\\p{Nd}\\p{Lu}]",
    "\\p{gc=Ll}",
    "\\p{General_Category=Decimal_Number}",
    "\\p{White_Space}",
    "^\\p{ASCII}*$",
    "\\x41|\\u0042",
    "^(?:a|b){2,3}?c",
    "^[\\-a]$",
    "😀+",
    "^[\\uD83D\\uDE00-\\uD83D\\uDE02]+$",
    "[\\u{1F600}-\\u{1F602}]",
    "^[😀-😂é]$",
    "\\0",
    "^\\D\\W$",
]


@pytest.mark.parametrize("pattern", CORPUS)
@EXAMPLES
@given(data=st.data())
def test_corpus_against_ecma(pattern: str, data: st.DataObject) -> None:
    texts = data.draw(st.lists(st.text(_alphabet(pattern), max_size=8), min_size=1, max_size=8))
    texts += ["", "a", "x", "\n", "é", pattern]
    assert disagreements(pattern, texts) == []


def test_anchors_lower_exactly() -> None:
    assert isinstance(pattern_expr("^$"), Lit)
    assert pattern_expr("a^b") == Alt(())
    any_text = Repeat(CharClass(((0, 0x10FFFF),)))
    for pattern in ("", "^", "$", "a*", "(^|a)", "x?$"):
        assert pattern_expr(pattern) == any_text, pattern


# Answers checked with V8 (node's RegExp with the u flag); regress gets the first one wrong.
KNOWN = [
    ("(?:(?:a+){2}){2}", "aaaa", True),
    ("(?:(?:a+){2}){2}", "aaa", False),
    ("$^", "", True),
    ("$^", "a", False),
    ("a^b", "a^b", False),
    ("^\\p{digit}+$", "٣٤", True),
    ("[^]", "\n", True),
    ("[]", "", False),
    ("(?:^|,)x(?:,|$)", "a,x,b", True),
    ("(?:^|,)x(?:,|$)", "ax", False),
    ("^\\uD83D\\uDE00$", "😀", True),
    ("^.$", "😀", True),
    ("x$", "x\n", False),
    ("^a", "\na", False),
    ("\\cJ", "\n", True),
    ("^[\\b]$", "\b", True),
    ("(^a|b)c", "xac", False),
    ("(^a|b)c", "acx", True),
]


@pytest.mark.parametrize(("pattern", "text", "found"), KNOWN)
def test_known_answers(pattern: str, text: str, found: bool) -> None:
    assert matches(pattern_expr(pattern), text) == found


# -- random patterns with anchors anywhere, against every short string --------------------------

SHORT_TEXTS = [
    "".join(t) for n in range(6) for t in itertools.product("ab", repeat=n) if t or n == 0
] + ["".join(t) for n in range(1, 4) for t in itertools.product("ab\n", repeat=n) if "\n" in t]


_Gen = tuple[str, int]
"""A pattern, and how deep its loops go: 0 none, 1 an unbounded loop, 2 a count around one."""


def _patterns() -> st.SearchStrategy[str]:
    """Small patterns over {a, b} with anchors anywhere.

    Two shapes stay out: unbounded loops nested in unbounded loops (the engine backtracks
    exponentially on ``((^)*a*)+``), and a count around a count around a loop, which regress
    gets wrong (``(?:(?:a+){2}){2}`` finds nothing in ``aaaa``; V8 finds it).
    """
    loops = ["*", "+", "{1,}", "*?"]
    counts = ["{2}", "{0,2}"]
    atoms = st.sampled_from(["a", "b", ".", "[ab]", "[^a]"])
    term = st.builds(
        lambda a, q: (a + q, int(q in loops)),
        atoms,
        st.sampled_from(["", "", "?", *counts, *loops]),
    )

    def quantified(inner: _Gen, q: str, capture: bool) -> _Gen:
        level = 1 if q in loops else 2 if q in counts and inner[1] else inner[1]
        return f"({'' if capture else '?:'}{inner[0]}){q}", max(level, inner[1])

    def group(inner: _Gen) -> st.SearchStrategy[_Gen]:
        allowed = [
            "",
            "?",
            "??",
            *(counts if inner[1] < 2 else []),
            *(loops if not inner[1] else []),
        ]
        return st.builds(quantified, st.just(inner), st.sampled_from(allowed), st.booleans())

    def joined(sep: str, parts: list[_Gen]) -> _Gen:
        return sep.join(p[0] for p in parts), max((p[1] for p in parts), default=0)

    def extend(inner: st.SearchStrategy[_Gen]) -> st.SearchStrategy[_Gen]:
        anchor = st.sampled_from([("^", 0), ("$", 0)])
        seq = st.lists(st.one_of(term, anchor, inner.flatmap(group)), max_size=3)
        return st.lists(seq.map(lambda xs: joined("", xs)), min_size=1, max_size=3).map(
            lambda xs: joined("|", xs)
        )

    leaves = st.sampled_from([("a", 0), ("^", 0), ("$", 0), ("b", 0)])
    return st.recursive(leaves, extend, max_leaves=8).map(lambda gen: gen[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_patterns())
def test_random_anchored_patterns_against_ecma(pattern: str) -> None:
    try:
        expr = pattern_expr(pattern)
    except UnsupportedFeatureError as exc:  # only a long unrolled anchored repetition
        assert exc.code == "regex-anchor"
        return
    wrong = [t for t in SHORT_TEXTS if matches(expr, t) != ecma_finds(pattern, t)]
    assert wrong == []


# -- Annex B spellings: read as literals when the u flag would not change the meaning ------------

ANNEX_B = ["\\-", "^a{,5}$", "\\_x", "}", "a]", "x{", "^\\d{3}\\-\\d{4}$", "[a-z]\\@", "{1"]


@pytest.mark.parametrize("pattern", ANNEX_B)
@EXAMPLES
@given(data=st.data())
def test_annex_b_literals_against_non_unicode_mode(pattern: str, data: st.DataObject) -> None:
    with pytest.raises(regress.RegressError):
        regress.Regex(pattern, "u")  # invalid in Unicode mode: the non-u reading is the meaning
    texts = data.draw(st.lists(st.text(_alphabet(pattern), max_size=8), min_size=1, max_size=8))
    texts += ["", pattern, pattern.replace("\\", ""), "a{,5}", "-", "_x", "123-4567"]
    assert disagreements(pattern, texts, flags="") == []


# -- Unicode properties against the engine's tables ----------------------------------------------

ALL_TEXT = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


def _one_char_set(prop: str) -> set[int]:
    """The code points of our lowering of the one-character ``prop``."""
    expr = pattern_expr(f"^{prop}$")
    if isinstance(expr, Lit):
        return {ord(expr.data.decode("utf-8"))}
    assert isinstance(expr, CharClass)
    return {cp for lo, hi in expr.codepoints() for cp in range(lo, hi + 1)}


def _engine_set(prop: str) -> set[int]:
    """The code points the engine matches with the one-character ``prop``."""
    data = ALL_TEXT.encode("utf-8")
    found: set[int] = set()
    for m in regress.Regex(f"{prop}+", "u").find_iter(ALL_TEXT):
        span = m.range()
        found.update(map(ord, data[span.start : span.stop].decode("utf-8")))
    return found


@cache
def _version_skew() -> frozenset[int]:
    """Code points whose General_Category differs between unicodedata and the engine's tables."""
    skew: set[int] = set()
    for cat in (
        "Cc Cf Cn Co Ll Lm Lo Lt Lu Mc Me Mn Nd Nl No Pc Pd Pe Pf Pi Po Ps Sc Sk Sm So Zl Zp Zs"
    ).split():
        skew |= _one_char_set(f"\\p{{{cat}}}") ^ _engine_set(f"\\p{{{cat}}}")
    return frozenset(skew)


@pytest.mark.parametrize(
    "prop",
    [
        "\\p{L}",
        "\\p{Letter}",
        "\\p{digit}",
        "\\p{Nd}",
        "\\p{punct}",
        "\\p{LC}",
        "\\p{Zs}",
        "\\p{M}",
        "\\p{S}",
        "\\P{Lu}",
        "\\p{Any}",
        "\\p{ASCII}",
        "\\p{Assigned}",
        "\\p{AHex}",
        "\\p{Hex_Digit}",
        "\\p{space}",
        "\\p{Join_C}",
        "\\p{RI}",
        "\\p{Pat_WS}",
        "\\p{NChar}",
        "\\s",
        "\\S",
        ".",
    ],
)
def test_property_sets_match_the_engine(prop: str) -> None:
    """Every code point, once: the \\p tables and ECMA's \\s and '.' against the engine's."""
    # Python's unicodedata may be older than the engine's tables: code points whose category
    # differs between the two Unicode versions are not compared.
    ours = _one_char_set(prop)
    skew = _version_skew()
    diff = sorted(cp for cp in ours ^ _engine_set(prop) if cp not in skew)
    assert diff == [], [hex(cp) for cp in diff[:20]]


# -- refusals and syntax errors name the column of the original pattern --------------------------

REFUSED = [
    ("(?=a)b", "regex-lookaround", 1),
    ("a(?!b)", "regex-lookaround", 2),
    ("(?<=a)b", "regex-lookaround", 1),
    ("x(?<!a)b", "regex-lookaround", 2),
    ("\\bword", "regex-word-boundary", 1),
    ("ab\\B", "regex-word-boundary", 3),
    ("(a)\\1", "regex-backreference", 4),
    ("(?<n>a)\\k<n>", "regex-backreference", 8),
    ("\\p{Script=Greek}", "regex-unicode-property", 1),
    ("x[\\p{sc=Latn}]", "regex-unicode-property", 3),
    ("^\\p{Alphabetic}$", "regex-unicode-property", 2),
    ("ab(?i:c)", "regex-modifiers", 3),
    ("(?:^a){1,40}", "regex-anchor", 1),
]


@pytest.mark.parametrize(("pattern", "code", "column"), REFUSED)
def test_unsupported_constructs_are_refused(pattern: str, code: str, column: int) -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        pattern_expr(pattern)
    err = info.value
    assert err.code == code
    assert f"(column {column})" in err.message and repr(pattern) in err.message
    assert err.origin == Origin("<pattern>", 1, column)
    assert err.hint


SYNTAX = [
    ("[b-a]", 2),
    ("a**", 3),
    ("a{2}{3}", 5),
    ("^*", 2),
    ("{2}", 1),
    ("*", 1),
    ("(ab", 1),
    ("ab)", 3),
    ("[ab", 1),
    ("a\\", 2),
    ("\\u{110000}", 1),
    ("\\x1", 1),
    ("\\u12", 1),
    ("x\\c1", 2),
    ("\\p{Foo}", 1),
    ("\\p{letter}", 1),
    ("\\p{L", 1),
    ("[\\d-z]", 2),
    ("x\\A", 2),
    ("\\01", 1),
    ("[\\1]", 2),
    ("(?P<n>a)", 1),
    ("(?<1a>x)", 1),
    ("(?<n>a)(?<n>b)", 8),
    ("\\-\\p{L}", 1),
    ("ab\\_.", 3),
    ("}😀", 1),
]


@pytest.mark.parametrize(("pattern", "column"), SYNTAX)
def test_syntax_errors_name_the_column(pattern: str, column: int) -> None:
    with pytest.raises(GrammarError) as info:
        pattern_expr(pattern)
    err = info.value
    assert type(err) is GrammarError and err.code == "regex-syntax"
    assert f"(column {column})" in err.message and repr(pattern) in err.message
    with pytest.raises(regress.RegressError):
        regress.Regex(pattern, "u")


def test_duplicate_names_in_different_alternatives_are_allowed() -> None:
    assert matches(pattern_expr("(?<n>a)|(?<n>b)"), "xb")


def test_errors_keep_the_callers_origin() -> None:
    where = Origin("schema.json", path="properties.code.pattern")
    with pytest.raises(UnsupportedFeatureError) as info:
        pattern_expr("ab(?=c)", origin=where)
    assert info.value.origin == where and "(column 3)" in info.value.message
    with pytest.raises(GrammarError) as syntax:
        pattern_expr("a\nb[", origin=where)
    assert syntax.value.origin == where and "(line 2, column 2)" in syntax.value.message


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        pattern_expr("(" * 2000 + "a" + ")" * 2000)
    assert info.value.code == "regex-nesting"


def test_non_string_pattern_is_rejected() -> None:
    with pytest.raises(GrammarError) as info:
        pattern_expr(3)  # type: ignore[arg-type]
    assert info.value.code == "regex-type"


# -- the JSON-Schema-Test-Suite's patterns --------------------------------------------------------


def _walk_patterns(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            if key == "patternProperties" and isinstance(value, dict):
                yield from value
            yield from _walk_patterns(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _walk_patterns(value)


def _walk_strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _walk_strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _walk_strings(value)


def _variants(texts: set[str], pattern: str) -> list[str]:
    out = set(texts) | {"", "\n", "x", "é", "𝄞"} | {c for c in pattern if c != "\\"}
    for t in texts:
        out |= {t + "x", "x" + t, t[1:], t[:-1], t * 2, "\n" + t, t + "\n", t[::-1]}
    return sorted(out)


def _suite_report() -> tuple[dict[str, str], list[str], int]:
    items = evaldata_items("json_schema_test_suite")
    texts: dict[str, set[str]] = {}
    label_errors: list[str] = []
    labels_checked = 0
    for item in items:
        found = list(_walk_patterns(item["schema"]))
        for pattern in found:
            bucket = texts.setdefault(pattern, set())
            for test in item["tests"]:
                bucket.update(_walk_strings(test["data"]))
        schema = item["schema"]
        if isinstance(schema, dict) and set(schema) <= {"$schema", "pattern", "type"} and found:
            for test in item["tests"]:  # the suite's own labels, where the pattern decides
                if isinstance(test["data"], str):
                    labels_checked += 1
                    ok = matches(pattern_expr(schema["pattern"]), test["data"])
                    if ok != test["valid"]:
                        label_errors.append(f"{item['name']}: {test['description']}")
    report: dict[str, str] = {}
    for pattern, bucket in sorted(texts.items()):
        try:
            wrong = disagreements(pattern, _variants(bucket, pattern))
        except UnsupportedFeatureError as exc:
            report[pattern] = f"refused ({exc.code})"
            continue
        report[pattern] = "agrees" if not wrong else f"DISAGREES on {wrong[:5]!r}"
    return report, label_errors, labels_checked


def test_json_schema_test_suite_patterns() -> None:
    report, label_errors, labels_checked = _suite_report()
    assert report, "no pattern found in the JSON-Schema-Test-Suite items"
    lines = [
        f"{status:>10}  {json.dumps(pattern, ensure_ascii=False)}"
        for pattern, status in report.items()
    ]
    print("\n".join(["JSON-Schema-Test-Suite patterns:", *lines]))
    print(f"{labels_checked} string labels of pattern-only schemas checked")
    assert all(status == "agrees" for status in report.values()), "\n".join(lines)
    assert labels_checked > 0 and label_errors == []

"""The regex frontend: the IR language must be exactly what ``re.fullmatch`` accepts."""

from __future__ import annotations

import importlib
import json
import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._support import EVALDATA, check_golden
from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.frontends.regex import regex_grammar, regex_to_expr
from typedgen.ir import CharClass, Expr, Grammar, Lexing, Lit, Origin, print_expr

from ._ir_match import char_set, matches

GOLDEN = Path(__file__).resolve().parent / "golden"

SUR_LO, SUR_HI = 0xD800, 0xDFFF
# Every Unicode scalar value once, in order: the input for whole-range comparisons.
ALL_TEXT = "".join(map(chr, range(SUR_LO))) + "".join(map(chr, range(SUR_HI + 1, 0x110000)))
BMP_TEXT = ALL_TEXT[: 0x10000 - 0x800]
PLANE1_TEXT = "".join(map(chr, range(0x10000, 0x20000)))

EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _index(cp: int) -> int:
    """Where code point ``cp`` (or the first scalar value after it) sits in ALL_TEXT."""
    if cp < SUR_LO:
        return cp
    return SUR_LO if cp <= SUR_HI else cp - 0x800


def _ir_set(expr: Expr) -> list[tuple[int, int]]:
    if isinstance(expr, Lit):
        cp = ord(expr.data.decode("utf-8"))
        return [(cp, cp)]
    if not isinstance(expr, CharClass):
        assert char_set(expr) == set()
        return []
    return list(expr.codepoints())


def _left_over(ranges: list[tuple[int, int]], lo: int, hi: int) -> str:
    """The scalar values in ``lo..hi`` *not* in ``ranges``, as one string, in order."""
    out = []
    nxt = lo
    for a, b in ranges:
        a, b = max(a, lo), min(b, hi)
        if a > b:
            continue
        if a > nxt:
            out.append(ALL_TEXT[_index(nxt) : _index(a)])
        nxt = b + 1
    if nxt <= hi:
        out.append(ALL_TEXT[_index(nxt) : _index(hi + 1)])
    return "".join(out)


def assert_same_chars(
    pattern: str, flags: int = 0, *, text: str = ALL_TEXT, lo: int = 0, hi: int = 0x10FFFF
) -> None:
    """A one-character pattern: its IR class is exactly the characters ``re`` matches.

    ``re.sub(pattern, "", text)`` removes precisely the characters ``c`` of ``text`` with
    ``re.fullmatch(pattern, c)``, so one C-speed pass checks every code point of ``text``.
    """
    expr = regex_to_expr(pattern, flags=flags)
    got = _left_over(_ir_set(expr), lo, hi)
    want = re.compile(pattern, flags).sub("", text)
    if got != want:
        ours = set(map(ord, text)) - set(map(ord, got))
        theirs = set(map(ord, text)) - set(map(ord, want))
        extra = sorted(ours - theirs)[:10]
        missing = sorted(theirs - ours)[:10]
        pytest.fail(
            f"{pattern!r} flags={flags:#x}: IR also matches {[hex(c) for c in extra]}, "
            f"misses {[hex(c) for c in missing]}"
        )


# -- categories, classes and '.' over every code point -------------------------------------

CATEGORY_PATTERNS = [r"\d", r"\w", r"\s", r"\D", r"\W", r"\S", r"[\d_]", r"[^\w\s]", "."]


@pytest.mark.parametrize("pattern", CATEGORY_PATTERNS)
@pytest.mark.parametrize("flags", [0, re.ASCII, re.DOTALL, re.IGNORECASE])
def test_categories_match_re_on_every_code_point(pattern: str, flags: int) -> None:
    assert_same_chars(pattern, flags)


@pytest.mark.parametrize("pattern", [r"(?a:\w)", r"(?a)\d", r"(?s:.)", r"(?i:[^\W\d])"])
def test_inline_flags_on_every_code_point(pattern: str) -> None:
    assert_same_chars(pattern)


CLASS_PATTERNS = [
    "[a-z]",
    "[^a-z]",
    "[A-Z0-9_]",
    "[\u0100-\u017f]",
    "[^\u0100-\u017f]",
    "[\u0370-\u03ff]",
    "[\u1f00-\u1fff]",
    "[k]",
    "[ks]",
    "[\u212a]",
    "[\u017f]",
    "[\u0345]",
    "[\u00df]",
    "[\u1e9e]",
    "[İı]",
    "[\\W]",
    "[a\\W]",
    "[^a\\d]",
    "[\U00010400x]",
    "[\U00010428x]",
    "[\U00010400-\U0001044f]",
    "[\uffff-\U00010401]",
    "[\u1f80-\U00010000]",
    "[\u0041-\u005a\U0001e900]",
    "[^\U00010400-\U0001044f]",
    "\U00010400",
    "[^k]",
    "[\u0131\u01c4-\U00069115\\s]",  # ŉ upper-cases (first char of "ʼN") into the range
    "[\u00df-\u00e0\U00010000]",
    "[\x00-\uffff]",
    "[-\\]a-c]",
]


@pytest.mark.parametrize("pattern", CLASS_PATTERNS)
@pytest.mark.parametrize("flags", [0, re.IGNORECASE, re.IGNORECASE | re.ASCII])
def test_classes_match_re_on_every_code_point(pattern: str, flags: int) -> None:
    assert_same_chars(pattern, flags)


_FOLD_POINTS = sorted(
    {c for k, v in importlib.import_module("re._casefix")._EXTRA_CASES.items() for c in (k, *v)}
    | {0x41, 0x5A, 0x61, 0x7A, 0xDF, 0x130, 0x149, 0x1C5, 0x212A, 0x1E9E, 0x10400, 0x1E922}
)


def _class_items() -> st.SearchStrategy[str]:
    point = st.one_of(
        st.sampled_from(_FOLD_POINTS),
        st.integers(0, 0x3000),
        st.integers(0, 0x10FFFF),
    )
    single = point.map(lambda c: f"\\U{c:08x}")
    span = st.tuples(point, st.integers(0, 400)).map(
        lambda t: f"\\U{t[0]:08x}-\\U{min(t[0] + t[1], 0x10FFFF):08x}"
    )
    category = st.sampled_from([r"\d", r"\w", r"\s", r"\W", r"\S", r"\D"])
    return st.one_of(single, span, category)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_class_items(), min_size=1, max_size=3),
    st.booleans(),
    st.sampled_from([re.IGNORECASE, re.IGNORECASE | re.ASCII, 0]),
)
def test_random_classes_on_every_code_point(items: list[str], negate: bool, flags: int) -> None:
    assert_same_chars("[" + "^" * negate + "".join(items) + "]", flags)


@cache
def _cased(lo: int, hi: int) -> list[int]:
    return [cp for cp in range(lo, hi + 1) if chr(cp).lower() != chr(cp).upper()]


def _fold_sample(lo: int, hi: int) -> list[int]:
    """The code points where case folding may do something, plus every 97th other one."""
    cased = set(_cased(lo, hi))
    iscased = importlib.import_module("_sre").unicode_iscased  # the predicate re's compiler uses
    cased |= {cp for cp in range(lo, hi + 1) if iscased(cp)}
    cased |= {cp for cp in range(lo, hi + 1, 97) if not SUR_LO <= cp <= SUR_HI}
    return sorted(cased)


def test_ignorecase_literals_on_the_bmp() -> None:
    # Every case-sensitive BMP literal, checked against every BMP character.
    for cp in _fold_sample(0, 0xFFFF):
        assert_same_chars(re.escape(chr(cp)), re.IGNORECASE, text=BMP_TEXT, hi=0xFFFF)


def test_ignorecase_literals_in_plane_1() -> None:
    for cp in _fold_sample(0x10000, 0x1FFFF):
        assert_same_chars(
            re.escape(chr(cp)), re.IGNORECASE, text=PLANE1_TEXT, lo=0x10000, hi=0x1FFFF
        )


def test_ignorecase_literal_examples() -> None:
    assert char_set(regex_to_expr("k", flags=re.I)) == {ord("k"), ord("K"), 0x212A}
    assert char_set(regex_to_expr("s", flags=re.I)) == {ord("s"), ord("S"), 0x17F}
    assert char_set(regex_to_expr("k", flags=re.I | re.A)) == {ord("k"), ord("K")}
    assert char_set(regex_to_expr("\u00df", flags=re.I)) == {0xDF, 0x1E9E}
    assert isinstance(regex_to_expr("1", flags=re.I), Lit)


# -- whole patterns against re.fullmatch ----------------------------------------------------

FULLMATCH_CASES: list[tuple[str, int, str]] = [
    # (pattern, flags, alphabet for random strings)
    ("abc", 0, "abc"),
    ("a|b|cd", 0, "abcd"),
    ("(a|b)*c", 0, "abc"),
    ("(?:ab|a)(?:bc|c)", 0, "abc"),
    ("a*?b+?c??", 0, "abc"),
    ("a{2}b{1,3}c{2,}d{,2}", 0, "abcd"),
    ("(a{0,2}b){2,3}", 0, "ab"),
    ("((a|b)c?)+", 0, "abc"),
    ("(a?)*", 0, "ab"),
    ("(a*)*b", 0, "ab"),
    ("(|a)+", 0, "ab"),
    ("(?:a?){3}b", 0, "ab"),
    (r"\d+(\.\d+)?", 0, "12.a٣"),
    (r"[+-]?(\d+|\d*\.\d+)([eE][+-]?\d+)?", 0, "1.e+-5"),
    (r"\w+@\w+\.\w{2,3}", 0, "ab@.c_é"),
    (r"\s*\S+\s*", 0, " a\t\n\u2003"),
    (".", 0, "a\n\r"),
    (".+", re.DOTALL, "a\n"),
    ("(?s:.)(?-s:.)", 0, "a\n"),
    ("(?i)hello", 0, "helloHELLO"),
    ("(?i:straße)", 0, "straßeSTRASSEẞ"),
    ("k(?i:k)k", 0, "kK\u212a"),
    ("(?i)[a-c]+x", 0, "abcABCxX"),
    ("(?x) a b # comment\n c", 0, "abc "),
    ("a b", re.VERBOSE, "ab "),
    ("[ab]{2}|c[^ab]", 0, "abcd"),
    ("日本語|[ぁ-ゟ]+", 0, "日本語ぁあ"),
    ("\U0001f600+", 0, "\U0001f600a"),
    ("^abc$", 0, "abc\n"),
    ("^abc$", re.MULTILINE, "abc\n"),
    (r"\Aab\Z", 0, "ab\n"),
    ("^a|b$", 0, "ab"),
    ("(^a|^b)c", 0, "abc"),
    ("(?:^)?a", 0, "a"),
    ("a$|$", 0, "a\n"),
    ("$^", 0, "a\n"),
    ("", 0, "a"),
    ("()", 0, "a"),
    ("a{0}", 0, "a"),
    ("(a|b){0,0}c", 0, "abc"),
    (r"\x41\u0042\U00000043\N{LATIN SMALL LETTER D}\101", 0, "ABCDa"),
    (r"[\x00-\x1f]", 0, "\x00\x1f "),
    ("(?P<x>a)(?P<y>b)?", 0, "ab"),
    ("a(?#comment)*", 0, "a"),
]


def _compare(pattern: str, flags: int, text: str) -> None:
    want = re.fullmatch(pattern, text, flags) is not None
    got = matches(regex_to_expr(pattern, flags=flags), text)
    assert got == want, f"{pattern!r} on {text!r}: IR says {got}, re says {want}"


@pytest.mark.parametrize(("pattern", "flags", "alphabet"), FULLMATCH_CASES)
def test_fixed_patterns_against_fullmatch(pattern: str, flags: int, alphabet: str) -> None:
    @EXAMPLES
    @given(
        st.one_of(
            st.text(alphabet=alphabet, max_size=8),
            st.from_regex(re.compile(pattern, flags), fullmatch=True).filter(lambda s: len(s) < 40),
        )
    )
    def check(text: str) -> None:
        _compare(pattern, flags, text)

    check()


def _atoms() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ["a", "b", "ab", ".", "[ab]", "[^a]", r"\d", r"\w", r"\s", "[a-c]", "()", "(?i:a)"]
    )


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        quantified = st.tuples(
            inner, st.sampled_from(["*", "+", "?", "{2}", "{1,2}", "{0,3}", "{2,}", "*?", "??"])
        ).map(lambda t: f"(?:{t[0]}){t[1]}")
        seq = st.lists(inner, min_size=2, max_size=3).map("".join)
        alt = st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(" + "|".join(xs) + ")")
        return st.one_of(quantified, seq, alt)

    return st.recursive(_atoms(), extend, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(_patterns(), st.lists(st.text(alphabet="ab1 A\n", max_size=6), min_size=1, max_size=8))
def test_random_patterns_against_fullmatch(pattern: str, texts: list[str]) -> None:
    for text in texts:
        _compare(pattern, 0, text)


@settings(max_examples=200, deadline=None)
@given(_patterns().flatmap(lambda p: st.tuples(st.just(p), st.from_regex(p, fullmatch=True))))
def test_random_patterns_accept_their_own_strings(case: tuple[str, str]) -> None:
    pattern, text = case
    assert len(text) > 200 or matches(regex_to_expr(pattern), text), (pattern, text)


# -- anchors -------------------------------------------------------------------------------


def test_dollar_is_a_no_op_at_the_end() -> None:
    # Python's $ also matches before a final newline, but never under fullmatch.
    assert re.fullmatch("a$", "a\n") is None
    expr = regex_to_expr("a$")
    assert print_expr(expr) == '"a"'
    assert not matches(expr, "a\n")
    assert print_expr(regex_to_expr("^(?:foo|bar)$")) == '"foo" | "bar"'
    assert print_expr(regex_to_expr(r"\A(?m:^)x$\Z")) == '"x"'


# -- refusals and errors -------------------------------------------------------------------

REFUSED = [
    (r"(a)\1", "regex-backreference", 4),
    (r"(?P<x>a)(?P=x)", "regex-backreference", 9),
    ("(a)" * 12 + r"\12", "regex-backreference", 37),
    (r"(?=a)a", "regex-lookaround", 1),
    (r"a(?!b)", "regex-lookaround", 2),
    (r"(?<=a)b", "regex-lookaround", 1),
    (r"x(?<!a)b", "regex-lookaround", 2),
    (r"(a)?(?(1)b|c)", "regex-conditional", 5),
    (r"(?>a*)a", "regex-atomic", 1),
    (r"ab*+", "regex-possessive", 3),
    (r"a{1,2}+", "regex-possessive", 2),
    (r"\bword\b", "regex-word-boundary", 1),
    (r"a\Bb", "regex-word-boundary", 2),
    (r"a^b", "regex-anchor", 2),
    (r"a$b", "regex-anchor", 2),
    (r"a$\n", "regex-anchor", 2),
    (r"(?m)a$\n^b", "regex-anchor", 6),
    (r"(^a)*", "regex-anchor", 2),
    (r"x(^a|b)", "regex-anchor", 3),
    (r"a*^b", "regex-anchor", 3),
    (r"(a\Z)+", "regex-anchor", 3),
    (r"(?x) a \n b ^ c", "regex-anchor", 13),
    (r"[\]^](?=x)", "regex-lookaround", 6),
    (r"(?#a\)b^)^(?=x)", "regex-lookaround", 11),
    (r"\^a(?!b)", "regex-lookaround", 4),
]


@pytest.mark.parametrize(("pattern", "code", "column"), REFUSED)
def test_unsupported_constructs_are_refused(pattern: str, code: str, column: int) -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        regex_to_expr(pattern)
    err = info.value
    assert err.code == code
    assert err.origin is not None
    assert err.origin.column == column, str(err)
    assert err.hint
    assert f"(column {column})" in str(err)


def test_refusal_on_a_later_line_of_a_verbose_pattern() -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        regex_to_expr("a  # first line\n  (?=b)", flags=re.VERBOSE)
    assert info.value.origin == Origin("<regex>", 2, 3)


def test_refusal_keeps_the_callers_origin() -> None:
    where = Origin("schema.json", path="properties.code.pattern")
    with pytest.raises(UnsupportedFeatureError) as info:
        regex_to_expr(r"(a)\1", origin=where)
    assert info.value.origin == where
    assert "column 4" in str(info.value)


@pytest.mark.parametrize(
    ("pattern", "column"), [("a(", 2), ("[a-", 1), ("a**", 3), (r"\q", 1), ("(?P<1>a)", 5)]
)
def test_syntax_errors_name_the_column(pattern: str, column: int) -> None:
    with pytest.raises(GrammarError) as info:
        regex_to_expr(pattern)
    assert info.value.code == "regex-syntax"
    assert info.value.origin == Origin("<regex>", 1, column)
    assert f"<regex>:1:{column}" in str(info.value)


def test_flags() -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        regex_to_expr("a", flags=re.LOCALE)
    assert info.value.code == "regex-locale"
    with pytest.raises(GrammarError) as err:
        regex_to_expr("a", flags=re.DEBUG)
    assert err.value.code == "regex-flags"
    with pytest.raises(GrammarError) as err:
        regex_to_expr("a", flags=re.ASCII | re.UNICODE)
    assert err.value.code == "regex-syntax"
    compiled = re.compile("ab", re.I)
    assert regex_to_expr(compiled) == regex_to_expr("ab", flags=re.I)


def test_bytes_patterns_are_refused() -> None:
    with pytest.raises(GrammarError) as info:
        regex_to_expr(b"ab")  # type: ignore[arg-type]
    assert info.value.code == "regex-type"


def test_surrogates_never_match() -> None:
    expr = regex_to_expr("a|\ud800")
    assert print_expr(expr) == '"a"'
    assert print_expr(regex_to_expr("[\ud800-\udfff]|b")) == '"b"'


# -- the ECMA flavor ---------------------------------------------------------------------


def test_ecma_flavor() -> None:
    digit = char_set(regex_to_expr(r"\d", flavor="ecma"))
    assert digit == set(range(0x30, 0x3A))
    word = char_set(regex_to_expr(r"\w", flavor="ecma"))
    assert word == {ord(c) for c in "0123456789_"} | set(range(65, 91)) | set(range(97, 123))
    space = char_set(regex_to_expr(r"\s", flavor="ecma"))
    zs = {cp for cp in range(0x110000) if unicodedata.category(chr(cp)) == "Zs"}
    assert space == {9, 10, 11, 12, 13, 0x20, 0xA0, 0xFEFF, 0x2028, 0x2029} | zs
    assert 0x85 not in space and 0x1C not in space
    dot = regex_to_expr(".", flavor="ecma")
    assert not any(matches(dot, ch) for ch in "\n\r\u2028\u2029")
    assert matches(dot, "\x85") and matches(dot, "a")
    assert matches(regex_to_expr(".", flavor="ecma", flags=re.S), "\u2028")
    assert matches(regex_to_expr(r"\D", flavor="ecma"), "٣")


# -- grammars, registration, canonical text ------------------------------------------------


def test_regex_grammar() -> None:
    grammar = regex_grammar("[0-9]+", name="NUM")
    assert grammar.start == "NUM"
    rule = grammar["NUM"]
    assert rule.lexical and rule.lexing is Lexing.FREE
    assert rule.origin == Origin("<regex>")
    assert Grammar.from_regex("[0-9]+") == regex_grammar("[0-9]+")
    assert str(Grammar.from_regex("a|b")) == "%start start\n@token start ::= [ab]\n"


def test_empty_language_is_a_grammar_error() -> None:
    with pytest.raises(GrammarError) as info:
        regex_grammar("[^\\s\\S]")
    assert info.value.code == "empty-language"


GOLDEN_PATTERNS = {
    "email": (r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,4}", 0),
    "iso_date_ascii": (r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$", re.ASCII),
    "keywords_ignorecase": (r"(?i)select|insert|update|delete", 0),
    "phone": (r"\(?[0-9]{3}\)?[-. ]?[0-9]{3}[-. ]?[0-9]{4}", 0),
    "verbose_number": (
        r"""(?x)
        [+-]?            # sign
        (?: \d+ (?: \.\d* )? | \.\d+ )
        (?: [eE] [+-]? \d+ )?""",
        re.ASCII,
    ),
}


# Goldens whose classes come from Python's Unicode tables (case folding, \d without re.ASCII).
UNICODE_GOLDENS = {"keywords_ignorecase"}


@pytest.mark.parametrize("name", sorted(GOLDEN_PATTERNS))
def test_golden_text(name: str) -> None:
    pattern, flags = GOLDEN_PATTERNS[name]
    text = str(regex_grammar(pattern, flags=flags))
    assert str(regex_grammar(pattern, flags=flags)) == text, (
        "the regex frontend is not deterministic"
    )
    depends_on = ("unicodedata",) if name in UNICODE_GOLDENS else ()
    check_golden(GOLDEN / f"regex_{name}.txt", text, depends_on=depends_on)


# -- XGrammar's regex conformance cases --------------------------------------------------


def _xgrammar_regex_items() -> list[dict[str, object]]:
    path = EVALDATA / "xgrammar_tests" / "items.jsonl"
    if not path.exists():
        return []
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [item for item in items if item["kind"] == "regex"]


@pytest.mark.skipif(not EVALDATA.is_dir(), reason=f"evaldata not found at {EVALDATA}")
@pytest.mark.parametrize("item", _xgrammar_regex_items(), ids=lambda item: str(item["name"]))
def test_xgrammar_regex_items(item: dict[str, object]) -> None:
    pattern = str(item["grammar"])
    expr = regex_to_expr(pattern)
    for text in item["passing"]:  # type: ignore[attr-defined]
        assert matches(expr, text), (pattern, text)
        assert re.fullmatch(pattern, text)
    for text in item["failing"]:  # type: ignore[attr-defined]
        assert not matches(expr, text), (pattern, text)

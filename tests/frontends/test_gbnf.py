"""The GBNF frontend: llama.cpp's syntax, exact languages, errors that name line and column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._support import EVALDATA, check_golden
from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.frontends.gbnf import gbnf_grammar
from typedgen.ir import CharClass, Grammar, Lit, Origin, Ref, Repeat

from ._ir_match import matches_grammar

GOLDEN = Path(__file__).resolve().parent / "golden"
NO_EVALDATA = f"conformance data not found at {EVALDATA} (the shared evaldata checkout)"


def _items(set_name: str, kind: str | None = None) -> list[dict[str, Any]]:
    path = EVALDATA / set_name / "items.jsonl"
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    items = [json.loads(line) for line in lines if line.strip()]
    return [item for item in items if kind is None or item.get("kind") == kind]


def _accepts(grammar: Grammar, texts: list[str]) -> list[str]:
    return [text for text in texts if not matches_grammar(grammar, text)]


def _rejects(grammar: Grammar, texts: list[str]) -> list[str]:
    return [text for text in texts if matches_grammar(grammar, text)]


# -- conformance data ------------------------------------------------------------------------

# Strings written for llama.cpp's sample grammars (the data set has none for them).
SAMPLE_STRINGS: dict[str, tuple[list[str], list[str]]] = {
    "llama.cpp/arithmetic": (["a=1\n", "(x+1)*2=y\n", "a=b\nc=d\n"], ["a=1", "=1\n", "A=1\n"]),
    "llama.cpp/c": (
        ["int main(){return 0;}", "float f(int x){x = x*2;}", ""],
        ["int main() {}", "int main(){return 0}"],
    ),
    "llama.cpp/chess": (
        ["1. e4 e5\n2. Nf3 Nc6\n", "1. O-O O-O-O\n2. exd5 Qxd5+\n"],
        ["1. e4 e5\n"],
    ),
    "llama.cpp/english": (["Hello, world!", "a-b c.d"], ["", "héllo", "a  b"]),
    "llama.cpp/japanese": (["こんにちは", "カタカナ、漢字"], ["hello", ""]),
    "llama.cpp/list": (["- item one\n- item two\n"], ["- \n", "- a", "- a\u2028b\n"]),
}


@pytest.mark.skipif(not EVALDATA.is_dir(), reason=NO_EVALDATA)
@pytest.mark.parametrize("item", _items("gbnf_grammars"), ids=lambda item: item["name"])
def test_llamacpp_sample_grammars(item: dict[str, Any]) -> None:
    grammar = gbnf_grammar(item["grammar"], source=item["path"])
    assert grammar.start == "root"
    passing, failing = SAMPLE_STRINGS.get(item["name"], ([], []))
    assert _accepts(grammar, passing) == []
    assert _rejects(grammar, failing) == []


@pytest.mark.skipif(not EVALDATA.is_dir(), reason=NO_EVALDATA)
@pytest.mark.parametrize(
    "item", _items("llamacpp_grammar_integration", "grammar"), ids=lambda item: item["name"]
)
def test_llamacpp_integration_grammars(item: dict[str, Any]) -> None:
    grammar = gbnf_grammar(item["grammar"])
    assert _accepts(grammar, item["passing"]) == []
    assert _rejects(grammar, item["failing"]) == []


# XGrammar tests that build their grammar with a root other than "root".
XGRAMMAR_ROOTS = {"test_custom_root_rule": "basic_string"}


@pytest.mark.skipif(not EVALDATA.is_dir(), reason=NO_EVALDATA)
@pytest.mark.parametrize("item", _items("xgrammar_tests", "ebnf"), ids=lambda item: item["name"])
def test_xgrammar_ebnf_grammars(item: dict[str, Any]) -> None:
    grammar = gbnf_grammar(item["grammar"], start=XGRAMMAR_ROOTS.get(item["test"], "root"))
    assert _accepts(grammar, item["passing"]) == []
    assert _rejects(grammar, item["failing"]) == []


# -- what the syntax means -------------------------------------------------------------------


def language(text: str, passing: list[str], failing: list[str], start: str = "root") -> None:
    grammar = gbnf_grammar(text, start=start)
    assert _accepts(grammar, passing) == []
    assert _rejects(grammar, failing) == []


def test_literals_and_escapes() -> None:
    language(
        r'root ::= "a\"b\\c\x41\u00e9\U0001F600\t\n\r\[\]\-"',
        ['a"b\\cAé\U0001f600\t\n\r[]-'],
        ['a"b\\cAe\U0001f600\t\n\r[]-'],
    )
    language('root ::= "naïve ☃"', ["naïve ☃"], ["naive ☃"])
    language('root ::= "line\nbreak"', ["line\nbreak"], ["linebreak"])  # raw newline in a literal
    language('root ::= ""', [""], ["a"])


def test_classes() -> None:
    language("root ::= [a-c_]+", ["abc_", "a"], ["", "d", "A"])
    language("root ::= [^a-c\\n]", ["d", "é", "\U0001f600"], ["a", "\n", ""])
    language("root ::= [,-.]", [",", "-", "."], ["+", "/"])  # ,-. is a range, as in llama.cpp
    language("root ::= [a-]", ["a", "-"], ["b"])
    language("root ::= [-a]", ["a", "-"], ["b"])
    language(r"root ::= [\]\[\\\-\x20]", ["]", "[", "\\", "-", " "], ["a"])
    language(r"root ::= [\u4e00-\u9fff]{2}", ["中文"], ["中", "ab"])
    language('root ::= [#"]', ["#", '"'], [""])  # '#' inside a class is not a comment
    language("root ::= [\n]", ["\n"], [" "])


def test_dot_is_any_code_point() -> None:
    language("root ::= . . .", ["abc", "é☃\U0001f600"], ["ab", "abcd"])
    grammar = gbnf_grammar("root ::= .")
    assert grammar["root"].body == CharClass((), negated=True)


def test_quantifiers() -> None:
    language('root ::= "ab"*', ["", "ab", "abab"], ["a", "aba"])  # a literal repeats whole
    language('root ::= "a"+ "b"? "c"{2} "d"{1,} "e"{0,2}', ["accd", "aabccdddee"], ["acd"])
    language('root ::= "a"{2}?', ["", "aa"], ["a", "aaa"])  # quantifiers stack
    language('root ::= "a"{2} {3}', ["a" * 6], ["a" * 4])
    language('root ::= "a" {2, 3}', ["aa", "aaa"], ["a", "aaaa"])  # spaces inside braces
    language('root ::= "a"{ 4}', ["aaaa"], ["aaa"])
    language('\n    root ::= a+\n    a    ::= "a"\n  ', ["a", "aa"], [""])  # indented rules
    language("root ::= ( )*", [""], ["a"])
    body = gbnf_grammar('root ::= "x"{3000}')["root"].body
    assert body == Repeat(Lit(b"x"), 3000, 3000)  # kept exact (llama.cpp caps the maximum)


def test_groups_alternatives_and_references() -> None:
    text = """
root ::= greeting ("," ws name)? "!"
greeting ::= "hi" | "hello"
name ::= [A-Z] [a-z]*
ws ::= " "*
"""
    language(text, ["hi!", "hello, Bob!", "hi,Al!"], ["hi", "Hello!", "hi, bob!"])


def test_newline_rules() -> None:
    # A rule continues after '::=', after '|', and anywhere inside parentheses.
    text = 'root ::=\n  "a" |\n  "b" | (\n  "c"\n  | "d"\n)\n'
    language(text, ["a", "b", "c", "d"], ["", "e"])
    # Comments run to the end of the line, also after '|' and inside parentheses.
    text = 'root ::= "a" | # first\n  "b" # second\n# own line\nother ::= ( "x" # in group\n )'
    language(text, ["a", "b"], ["x"])


def test_line_endings() -> None:
    language('root ::= "a" b\r\nb ::= "b"\r\n', ["ab"], ["a"])
    language('root ::= "a" b\rb ::= "b"', ["ab"], ["a"])


def test_names() -> None:
    language('root ::= my-rule_2\nmy-rule_2 ::= "x"', ["x"], [""])
    language('r00t ::= "x"', ["x"], [], start="r00t")


def test_redefinition_takes_the_last_definition() -> None:
    grammar = gbnf_grammar('root ::= "a"\nroot ::= "b"\n')
    assert matches_grammar(grammar, "b") and not matches_grammar(grammar, "a")
    assert grammar["root"].origin == Origin("<gbnf>", 2, 1)


def test_unused_rules_are_dropped() -> None:
    grammar = gbnf_grammar('root ::= a\na ::= "x"\nunused ::= "y"\n')
    assert list(grammar.rules) == ["root", "a"]


def test_left_recursion_is_accepted() -> None:
    # llama.cpp refuses left recursion at load time; the IR and typedgen's engine handle it.
    grammar = gbnf_grammar('root ::= root "a" | "b"')
    assert grammar["root"].body is not None


def test_origins_name_line_and_column() -> None:
    grammar = gbnf_grammar('root ::= "a"\n\n  item ::= [x]  other\nother ::= "o"', start="item")
    assert grammar["item"].origin == Origin("<gbnf>", 3, 3)
    body = grammar["item"].body
    refs = [node for node in body.children() if isinstance(node, Ref)]
    assert refs[0].origin == Origin("<gbnf>", 3, 17)


def test_registered_as_gbnf() -> None:
    assert Grammar.from_gbnf('root ::= "a"') == gbnf_grammar('root ::= "a"')
    assert Grammar.from_gbnf('top ::= "a"', start="top").start == "top"


# -- errors ----------------------------------------------------------------------------------

SYNTAX_ERRORS = [
    ('root ::= "a"\n  | "b"\n', 2, 3, "expected a rule name"),
    ('root ::= "a" )', 1, 14, "unexpected ')'"),
    ('root ::= "abc', 1, 10, "never closed"),
    ("root ::= [abc", 1, 10, "never closed"),
    ('root ::= ("a" | "b"', 1, 10, "never closed"),
    ('root ::= ("a" "b" ]', 1, 19, "expected ')'"),
    ('root ::= "\\q"', 1, 11, "unknown escape"),
    ('root ::= "\\x4g"', 1, 11, "hex digits"),
    ('root ::= "\\U00110000"', 1, 11, "beyond U+10FFFF"),
    ("root ::= *", 1, 10, "nothing to repeat"),
    ('root ::= "a" | +', 1, 16, "nothing to repeat"),
    ('root ::= "" *', 1, 13, "nothing to repeat"),
    ('root ::= "a"{,3}', 1, 14, "expected a number"),
    ('root ::= "a"{,}', 1, 14, "expected a number"),
    ('root ::= "a"{3,1}', 1, 13, "maximum is smaller"),
    ('root ::= "a"{2 3}', 1, 16, "expected ',' or '}'"),
    ('root ::= "a"{2,3', 1, 17, "expected '}'"),
    ('root ::= "a"\nroot "b"', 2, 6, "expected '::='"),
    ('root := "a"', 1, 6, "expected '::='"),
    ('root ::= "a"{\n2}', 1, 14, "expected a number"),
    ("root ::= a_b.c\nx", 2, 2, "expected '::='"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), SYNTAX_ERRORS)
def test_syntax_errors_name_line_and_column(
    text: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar(text)
    err = info.value
    assert type(err) is GrammarError
    assert err.code == "gbnf-syntax"
    assert err.origin == Origin("<gbnf>", line, column)
    assert f"<gbnf>:{line}:{column}:" in str(err)
    assert message in err.message
    assert err.hint


def test_source_names_the_document() -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar('root ::= "a" )', source="json.gbnf")
    assert str(info.value).startswith("json.gbnf:1:14:")


@pytest.mark.parametrize(
    ("text", "code", "column"),
    [
        ("root ::= <think> .*", "gbnf-token", 10),
        ("root ::= <[1234]>", "gbnf-token", 10),
        ('root ::= "a" !<[12]>', "gbnf-token", 14),
        ('root ::= "a" (= "b")', "gbnf-lookahead", 14),
    ],
)
def test_refused_constructs(text: str, code: str, column: int) -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        gbnf_grammar(text)
    assert info.value.code == code
    assert info.value.origin == Origin("<gbnf>", 1, column)
    assert info.value.hint


@pytest.mark.parametrize(
    ("text", "code", "column"),
    [
        ("root ::= []", "gbnf-empty-class", 10),
        ("root ::= [^]", "gbnf-empty-class", 10),
        ("root ::= [az-a]", "gbnf-bad-range", 12),
        ('root ::= "\\ud800"', "gbnf-surrogate", 11),
    ],
)
def test_semantic_errors(text: str, code: str, column: int) -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar(text)
    assert info.value.code == code
    assert info.value.origin == Origin("<gbnf>", 1, column)


def test_undefined_rule_names_the_reference() -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar('root ::= item+\nitems ::= "x"\n')
    err = info.value
    assert err.code == "undefined-rule"
    assert err.origin == Origin("<gbnf>", 1, 10)
    assert err.hint == "did you mean 'items'?"
    assert "<gbnf>:1:10:" in str(err)


def test_undefined_rule_in_an_unused_rule_is_an_error() -> None:
    # As in llama.cpp, every rule is checked, used or not.
    with pytest.raises(GrammarError) as info:
        gbnf_grammar('root ::= "a"\nunused ::= missing\n')
    assert info.value.code == "undefined-rule"
    assert info.value.origin == Origin("<gbnf>", 2, 12)


def test_missing_start_rule() -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar('rot ::= "a"')
    assert info.value.code == "undefined-start"
    assert info.value.hint == "did you mean 'rot'?"
    with pytest.raises(GrammarError):
        gbnf_grammar("")


def test_empty_language_is_reported_by_the_ir() -> None:
    with pytest.raises(GrammarError) as info:
        gbnf_grammar("root ::= root")
    assert info.value.code == "empty-language"


# -- canonical text ----------------------------------------------------------------------

# A small JSON grammar written for these tests (llama.cpp's own json.gbnf is in the held-out
# part of the conformance data; its golden test below runs where that part is present).
JSON_LIKE = r"""
# JSON values, compact or with bounded whitespace
root    ::= value
value   ::= object | array | string | number | ("true" | "false" | "null")
object  ::= "{" ws ( member ("," ws member)* )? "}"
member  ::= string ws ":" ws value ws
array   ::= "[" ws ( value ws ("," ws value ws)* )? "]"
string  ::= "\"" ( [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}) )* "\""
number  ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
ws      ::= [ \t\n]{0,20}
"""


def test_json_like_grammar() -> None:
    grammar = gbnf_grammar(JSON_LIKE)
    good = ['{"a": [1, 2.5e3, "x\\n", true, null], "b": {}}', "[]", '"\\u00e9"', "-0.5"]
    bad = ['{"a" 1}', "[1,]", "01", '"\x01"', '{"a": tru}']
    assert _accepts(grammar, good) == []
    assert _rejects(grammar, bad) == []


def _check_golden(name: str, text: str) -> None:
    """typedgen's own GBNF reader: no package's version enters the text."""
    check_golden(GOLDEN / f"gbnf_{name}.txt", text)


def test_golden_json_like() -> None:
    _check_golden("json_like", str(gbnf_grammar(JSON_LIKE)))


@pytest.mark.skipif(not EVALDATA.is_dir(), reason=NO_EVALDATA)
@pytest.mark.parametrize("name", ["arithmetic", "json"])
def test_golden_llamacpp(name: str) -> None:
    found = [item for item in _items("gbnf_grammars") if item["name"] == f"llama.cpp/{name}"]
    if not found:
        pytest.skip(f"llama.cpp/{name} is not in this part of the conformance data")
    _check_golden(f"llamacpp_{name}", str(gbnf_grammar(found[0]["grammar"])))

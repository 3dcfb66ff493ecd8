"""Grammar export: ``to_lark()`` / ``to_gbnf()`` text that other engines accept, same language.

Every exported grammar is checked four ways against the original IR grammar on sample strings
(positive and negative) and on random walks through the original's masks (and the re-imported
grammar's): re-imported by typedgen (``Grammar.from_lark(text, lexer=<declared>)``,
``Grammar.from_gbnf(text)``), parsed by lark itself, matched by llguidance (its Lark dialect) and,
for GBNF, by XGrammar's EBNF matcher. GBNF cannot express longest-match lexing: for contextual or
basic grammars it is only required to accept everything the original accepts.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lark
import pytest
from pydantic import BaseModel

import typedgen
from tests._support import EVALDATA, accepts, byte_vocabulary, check_golden
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import GrammarError, TypedgenError, UnsupportedFeatureError
from typedgen.ir import (
    Alt,
    CharClass,
    Complement,
    Grammar,
    Intersect,
    Lexing,
    Lit,
    Origin,
    Ref,
    Repeat,
    Rule,
    Seq,
    TreeShape,
)

GOLDEN = Path(__file__).parent / "golden"
GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"
VOCAB = byte_vocabulary()

# lark's examples/json_parser.py grammar (MIT): ESCAPED_STRING's look-behind becomes & and ~.
JSON_LARK = r"""
    ?start: value
    ?value: object
          | array
          | string
          | SIGNED_NUMBER      -> number
          | "true"             -> true
          | "false"            -> false
          | "null"             -> null
    array  : "[" [value ("," value)*] "]"
    object : "{" [pair ("," pair)*] "}"
    pair   : string ":" value
    string : ESCAPED_STRING
    %import common.ESCAPED_STRING
    %import common.SIGNED_NUMBER
    %import common.WS
    %ignore WS
"""

KEYWORDS_LARK = r"""
    start: (KW | NAME | NUM)+
    KW: "if" | "in"
    NAME: /[a-z]+/ & ~KW
    NUM.2: /[0-9]+/ & ~(/0[0-9]+/)
    %ignore " "
"""

ASSIGN_LARK = r"""
    start: assign+
    assign: NAME "=" value ";"
    value: NAME | INT | "-" INT
    NAME: /[a-z_]+/
    INT: /[0-9]+/
    COMMENT: "--" /[^\n]*/
    %ignore COMMENT
    %ignore /[ \n]+/
"""

ODD_TEXT = '"\\\n\t\x01\u0085\u2028é😀\U000e0001'


class Item(BaseModel):
    sku: str
    qty: int


class Invoice(BaseModel):
    customer: str
    total: float
    items: list[Item]
    note: str | None = None


def _odd_names() -> Grammar:
    """Names no format allows, shapes, a nullable terminal, escapes, class metacharacters."""
    return Grammar(
        [
            Rule(
                "Start",
                Seq((Ref("Foo"), Ref("x-y"), Ref("common__INT"))),
                shape=TreeShape(keep_tokens=True),
            ),
            Rule(
                "Foo",
                Seq((Repeat(Ref("foo"), 1, None), Lit.text("!"))),
                shape=TreeShape(expand_single=True),
            ),
            Rule("foo", Alt((Ref("a.b[0]"), Lit.text(ODD_TEXT))), shape=TreeShape(inline=True)),
            Rule("a.b[0]", CharClass.of("]\\^-[/&~|"), lexical=True),
            Rule(
                "x-y",
                Repeat(Lit.text("ab"), 0, 2),
                lexical=True,
                shape=TreeShape(filtered=True),
            ),
            Rule("common__INT", Repeat(CharClass(((48, 57),)), 1, 3), lexical=True, priority=2),
        ],
        "Start",
        origin=Origin("odd"),
    )


def _big_repeat() -> Grammar:
    """Counts above llama.cpp's limit of 2000 (written as nested groups in GBNF)."""
    return Grammar(
        [
            Rule("start", Seq((Repeat(Lit.text("a"), 2, 4500), Repeat(Lit.text("b"), 2001, 2001)))),
        ],
        "start",
    )


def _left_recursive() -> Grammar:
    return Grammar.from_gbnf(
        'root ::= sum\nsum ::= sum "+" num | sum "-" num | num\nnum ::= [0-9]+ | "(" sum ")"'
    )


@dataclass
class Case:
    name: str
    build: Callable[[], Grammar]
    positive: list[str]
    negative: list[str]


CASES = [
    Case(
        "calc",
        lambda: Grammar.from_lark((GRAMMARS / "calc.lark").read_text()),
        ["1+2", "a = 3 * (4 - -b)", " x\t=1.5e3/2 ", "-x", "(((1)))"],
        ["1+", "a = = 1", "(1", "1 2", "", "a b", "1.5.5"],
    ),
    Case(
        "json_lark",
        lambda: Grammar.from_lark(JSON_LARK),
        ['[1, "a\\"b", {"k": null}]', ' "x" ', '{"a": {"b": [true, false, -1.5e3]}}\n', "[]"],
        ["[1,]", '{"a" 1}', '"a\nb"', '"\\"', "", "[1 2]", "tru"],
    ),
    Case(
        "keywords",
        lambda: Grammar.from_lark(KEYWORDS_LARK),
        ["if x", "index in if", "i n", "abc 10 0", "if1"],
        ["", "IF", "x y Z", "if-"],
    ),
    Case(
        "assign_basic",
        lambda: Grammar.from_lark(ASSIGN_LARK, lexer="basic"),
        ["a = 1;", "a=1;b = -2;\n-- a comment\nc = a;", "x_y=z;--end"],
        ["a = --1;", "a = 1", "= 1;", "a = - -1;"],
    ),
    Case(
        "arith_gbnf",
        lambda: Grammar.from_gbnf((GRAMMARS / "arith.gbnf").read_text()),
        ["1+2", " f(x, 2^3) ", "-a*b%c", "(1)"],
        ["1+", "f(", "1 2", ""],
    ),
    Case(
        "json_gbnf",
        lambda: Grammar.from_gbnf((GRAMMARS / "json.gbnf").read_text()),
        ['{"a": [1, true, {"b": "c\\u00e9"}]}', "{}", '{"k":\n "é"}'],
        ["[]", '{"a":}', '{"a": 01}', '{"a": "\x01"}'],
    ),
    Case(
        "left_recursive",
        _left_recursive,
        ["1", "1+2-3", "(1-2)+3"],
        ["", "+1", "1+", "(1"],
    ),
    Case(
        "regex",
        lambda: Grammar.from_regex(r"[a-z]*(\.[a-z]+)*@x\.com|\d{3}|[^\x00-\x7f]{2}"),
        ["@x.com", "ab.cd@x.com", "123", "١٢٣", ".a@x.com", "é😀"],
        ["12", "a.@x.com", "a@x.co", "ab", "é"],
    ),
    Case(
        "choice",
        lambda: Grammar.from_choice(["a", 'b"c', "", "/\\]"]),
        ["a", 'b"c', "", "/\\]"],
        ["b", "ab", "/"],
    ),
    Case(
        "pydantic",
        lambda: typedgen.grammar_of(Invoice),
        [
            '{"customer":"Ann","total":1.5,"items":[]}',
            '{"customer":"B\\"o","total":-2,"items":[{"sku":"x","qty":3}],"note":null}',
            '{"customer":"é","total":0,"items":[],"note":"n"}',
        ],
        ['{"customer":"Ann"}', '{"customer":1,"total":1,"items":[]}', ""],
    ),
    Case(
        "odd_names",
        _odd_names,
        ["]!1", "^-[!ab12", f"|{ODD_TEXT}!abab123", "~&/\\!0"],
        ["!1", "]!", "]!ababab1", "]!1234", "a!1"],
    ),
]
CASE_IDS = [c.name for c in CASES]


# -- engines -------------------------------------------------------------------------------------
_COMPILED: dict[str, CompiledGrammar] = {}


def _compiled(grammar: Grammar) -> CompiledGrammar:
    found = _COMPILED.get(grammar.fingerprint)
    if found is None:
        found = _COMPILED[grammar.fingerprint] = typedgen.compile(grammar, VOCAB)
    return found


def declared_lexer(text: str) -> str:
    """The lark lexer the export's header names."""
    found = re.search(r'lexer="(\w+)"', text)
    assert found, "the header names no lexer"
    return found.group(1)


def lark_parser(text: str) -> lark.Lark:
    lexer = declared_lexer(text)
    parser = "earley" if lexer.startswith("dynamic") else "lalr"
    return lark.Lark(text, parser=parser, lexer=lexer)


def lark_accepts(parser: lark.Lark, data: bytes) -> bool:
    try:
        parser.parse(data.decode("utf-8"))
    except lark.exceptions.LarkError:
        return False
    return True


class _ByteTokenizer:
    """The 256 single bytes (ids 0..255) and an EOS (256), for llguidance."""

    def __init__(self) -> None:
        self.tokens = [bytes([b]) for b in range(256)] + [b"<eos>"]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = [256]

    def __call__(self, text: str | bytes) -> list[int]:
        return list(text.encode("utf-8") if isinstance(text, str) else text)


_LLG: dict[str, Any] = {}


def llguidance_matcher(text: str) -> Callable[[bytes], bool]:
    """Compile Lark text with llguidance (failing the test if it refuses it)."""
    try:
        import llguidance
    except ImportError:
        pytest.skip("llguidance is not installed (pip install 'typedgen[test]')")
    if "tok" not in _LLG:
        _LLG["tok"] = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer()))
    tok = _LLG["tok"]
    grammar = llguidance.grammar_from("lark", text)
    error = llguidance.LLMatcher.validate_grammar(grammar, tok)
    assert not error, f"llguidance refuses the export: {error}"

    def run(data: bytes) -> bool:
        m = llguidance.LLMatcher(tok, grammar, log_level=0)
        return all(m.consume_token(b) for b in data) and bool(m.is_accepting())

    return run


def xgrammar_matcher(text: str) -> Callable[[bytes], bool]:
    try:
        import xgrammar
        from xgrammar.testing import _is_grammar_accept_string
    except ImportError:
        pytest.skip("xgrammar is not installed (pip install 'typedgen[bench]')")
    grammar = xgrammar.Grammar.from_ebnf(text, root_rule_name="root")
    return lambda data: bool(_is_grammar_accept_string(grammar, data.decode("utf-8")))


def random_walks(compiled: CompiledGrammar, seed: int, n: int = 12, limit: int = 48) -> list[bytes]:
    """Complete sentences from random walks through the byte masks (EOS taken now and then)."""
    rng = random.Random(seed)
    out: list[bytes] = []
    for _ in range(n):
        m = compiled.matcher()
        text = bytearray()
        for _ in range(limit):
            allowed = m.allowed_token_ids().tolist()
            if 0 in allowed and (rng.random() < 0.2 or len(allowed) == 1):
                break
            choices = [t for t in allowed if t != 0]
            if not choices:
                break
            # Favour ASCII so that walks through text classes still reach the delimiters.
            ascii_ = [t for t in choices if t <= 128]
            tok = rng.choice(ascii_ if ascii_ and rng.random() < 0.9 else choices)
            assert m.accept_token(tok)
            text.append(tok - 1)
        if m.is_complete():
            out.append(bytes(text))
    return out


def _samples(case: Case) -> tuple[list[bytes], list[bytes]]:
    return [s.encode() for s in case.positive], [s.encode() for s in case.negative]


@pytest.fixture(scope="module", params=CASES, ids=CASE_IDS)
def case(request: pytest.FixtureRequest) -> tuple[Case, Grammar, list[bytes], list[bytes]]:
    c: Case = request.param
    grammar = c.build()
    pos, neg = _samples(c)
    compiled = _compiled(grammar)
    for s in pos:
        assert accepts(compiled, s), f"the original grammar refuses the sample {s!r}"
    for s in neg:
        assert not accepts(compiled, s), f"the original grammar accepts the negative {s!r}"
    return c, grammar, pos, neg


def _exact_gbnf(grammar: Grammar) -> bool:
    """Whether the GBNF export is exact: every lexeme is freely lexed."""
    return "Scannerless, as the grammar" in grammar.to_gbnf()


# -- round trips ---------------------------------------------------------------------------------
def test_lark_round_trip(case: tuple[Case, Grammar, list[bytes], list[bytes]]) -> None:
    _, grammar, pos, neg = case
    text = grammar.to_lark()
    back = Grammar.from_lark(text, lexer=declared_lexer(text))
    compiled, again = _compiled(grammar), _compiled(back)
    for s in pos:
        assert accepts(again, s), f"re-imported Lark export refuses {s!r}\n{text}"
    for s in neg:
        assert not accepts(again, s), f"re-imported Lark export accepts {s!r}\n{text}"
    for s in random_walks(compiled, 1):
        assert accepts(again, s), f"re-imported Lark export refuses the walk {s!r}\n{text}"
    for s in random_walks(again, 2):
        assert accepts(compiled, s), f"the original refuses the export's walk {s!r}\n{text}"


def test_lark_parses_the_export(case: tuple[Case, Grammar, list[bytes], list[bytes]]) -> None:
    _, grammar, pos, neg = case
    text = grammar.to_lark()
    parser = lark_parser(text)
    for s in pos:
        assert lark_accepts(parser, s), f"lark refuses {s!r}\n{text}"
    for s in neg:
        assert not lark_accepts(parser, s), f"lark accepts {s!r}\n{text}"
    for s in random_walks(_compiled(grammar), 3):
        assert lark_accepts(parser, s), f"lark refuses the walk {s!r}\n{text}"


def test_gbnf_round_trip(case: tuple[Case, Grammar, list[bytes], list[bytes]]) -> None:
    _, grammar, pos, neg = case
    text = grammar.to_gbnf()
    back = _compiled(Grammar.from_gbnf(text))
    compiled = _compiled(grammar)
    exact = _exact_gbnf(grammar)
    for s in pos:
        assert accepts(back, s), f"re-imported GBNF export refuses {s!r}\n{text}"
    for s in random_walks(compiled, 4):
        assert accepts(back, s), f"re-imported GBNF export refuses the walk {s!r}\n{text}"
    if exact:
        for s in neg:
            assert not accepts(back, s), f"re-imported GBNF export accepts {s!r}\n{text}"
        for s in random_walks(back, 5):
            assert accepts(compiled, s), f"the original refuses the GBNF's walk {s!r}\n{text}"


def test_xgrammar_matches_the_gbnf(case: tuple[Case, Grammar, list[bytes], list[bytes]]) -> None:
    _, grammar, pos, neg = case
    text = grammar.to_gbnf()
    run = xgrammar_matcher(text)
    for s in pos:
        assert run(s), f"XGrammar refuses {s!r}\n{text}"
    if _exact_gbnf(grammar):
        for s in neg:
            assert not run(s), f"XGrammar accepts {s!r}\n{text}"


def test_llguidance_matches_its_dialect(
    case: tuple[Case, Grammar, list[bytes], list[bytes]],
) -> None:
    _, grammar, pos, neg = case
    text = grammar.to_lark(dialect="llguidance")
    run = llguidance_matcher(text)
    for s in pos:
        assert run(s), f"llguidance refuses {s!r}\n{text}"
    for s in neg:
        assert not run(s), f"llguidance accepts {s!r}\n{text}"
    # typedgen reads the dialect too (llguidance's & and ~): the same language again.
    back = _compiled(Grammar.from_lark(text, lexer="contextual"))
    if {r.lexing for r in grammar.terminals()} <= {Lexing.CONTEXTUAL}:
        for s in pos:
            assert accepts(back, s), f"re-imported llguidance export refuses {s!r}"
        for s in neg:
            assert not accepts(back, s), f"re-imported llguidance export accepts {s!r}"


def test_llguidance_reads_the_plain_lark_export() -> None:
    """Plain lark text (no priorities) is llguidance's dialect too."""
    grammar = Grammar.from_lark(JSON_LARK, lexer="contextual")
    text = grammar.to_lark()
    run = llguidance_matcher(text)
    assert run(b'[1, {"a": "b\\"c"}]')
    assert not run(b'[1, {"a": "b\\"c}]')


# -- goldens and determinism ---------------------------------------------------------------------
GOLDEN_CASES = ["calc", "json_lark", "keywords", "json_gbnf", "regex", "odd_names"]


# What shapes each golden besides typedgen: lark's bundled grammars and helpers (the Lark
# frontend), Python's Unicode tables (\d without re.ASCII).
GOLDEN_DEPENDS = {
    "calc": ("lark",),
    "json_lark": ("lark",),
    "keywords": ("lark",),
    "regex": ("unicodedata",),
}


@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_golden(name: str) -> None:
    """Exact exports under the versions the goldens record; the re-import tests hold always."""
    case = next(c for c in CASES if c.name == name)
    grammar, again = case.build(), case.build()
    exports = {
        "lark": grammar.to_lark(),
        "gbnf": grammar.to_gbnf(),
        "llguidance.lark": grammar.to_lark(dialect="llguidance"),
    }
    assert exports == {
        "lark": again.to_lark(),
        "gbnf": again.to_gbnf(),
        "llguidance.lark": again.to_lark(dialect="llguidance"),
    }, "exports are not deterministic"
    depends_on = GOLDEN_DEPENDS.get(name, ())
    for suffix, text in exports.items():
        check_golden(GOLDEN / f"export_{name}.{suffix}", text, depends_on=depends_on)


def test_exports_are_deterministic() -> None:
    grammar = Grammar.from_lark(JSON_LARK)
    again = Grammar.from_lark(JSON_LARK)
    assert grammar.to_lark() == again.to_lark()
    assert grammar.to_gbnf() == again.to_gbnf()


def test_names_are_mapped_without_collisions() -> None:
    grammar = Grammar(
        [
            Rule("start", Seq((Ref("a_b"), Ref("a-b"), Ref("A.B"), Ref("root")))),
            Rule("a_b", Lit.text("1")),
            Rule("a-b", Lit.text("2")),
            Rule("A.B", Lit.text("3")),
            Rule("root", Ref("T"), shape=TreeShape(inline=True)),
            Rule("T", Lit.text("4"), lexical=True),
        ],
        "start",
    )
    lark_text = grammar.to_lark()
    assert "\nstart: a_b a_b_2 a_b_3 _root\n" in lark_text
    gbnf_text = grammar.to_gbnf()
    assert "\nroot ::= a-b a-b-2 A-B root-2\n" in gbnf_text
    for text in (lark_text,):
        assert lark_accepts(lark_parser(text), b"1234")
    assert accepts(_compiled(Grammar.from_gbnf(gbnf_text)), b"1234")


def test_big_repetitions_stay_under_llama_cpp_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _big_repeat().to_gbnf()
    counts = [int(n) for n in re.findall(r"\{(\d+)", text) + re.findall(r",(\d+)\}", text)]
    assert counts and max(counts) <= 2000, text
    assert Grammar.from_gbnf(text)  # typedgen reads it back
    # The same splitting with a limit of 3, checked on every short string.
    from typedgen.ir import export

    monkeypatch.setattr(export, "GBNF_MAX_REPEAT", 3)
    a, b, c, d = (Lit.text(x) for x in "abcd")
    grammar = Grammar(
        [
            Rule(
                "start",
                Alt(
                    (
                        Repeat(a, 2, 11),
                        Repeat(b, 7, 7),
                        Seq((c, Repeat(c, 0, 10))),
                        Repeat(Seq((d, d)), 4, None),
                    )
                ),
            )
        ],
        "start",
    )
    text = grammar.to_gbnf()
    counts = [int(n) for n in re.findall(r"\{(\d+)", text) + re.findall(r",(\d+)\}", text)]
    assert max(counts) <= 3, text
    back = _compiled(Grammar.from_gbnf(text))
    compiled = _compiled(grammar)
    for ch in "abcd":
        for n in range(16):
            data = (ch * n).encode()
            assert accepts(back, data) == accepts(compiled, data), (data, text)


def test_reserved_terminals_stay_in_lark_lexer() -> None:
    try:
        grammar = Grammar(
            [
                # Without the reservation "1--2" is INT MINUS MINUS INT.
                Rule(
                    "start", Seq((Ref("INT"), Repeat(Seq((Repeat(Ref("MINUS"), 1), Ref("INT"))))))
                ),
                Rule(
                    "INT",
                    Repeat(CharClass(((48, 57),)), 1, None),
                    lexical=True,
                    lexing=Lexing.BASIC,
                ),
                Rule("MINUS", Lit.text("-"), lexical=True, lexing=Lexing.BASIC),
                Rule("DASHES", Lit.text("--"), lexical=True, lexing=Lexing.BASIC),
            ],
            "start",
            reserved=("DASHES",),
        )
    except TypeError:
        pytest.skip("this IR has no reserved terminals")
    compiled = _compiled(grammar)
    assert accepts(compiled, b"1-2") and accepts(compiled, b"1--2") is False
    text = grammar.to_lark()
    parser = lark_parser(text)
    assert lark_accepts(parser, b"1-2")
    assert lark_accepts(parser, b"1-2-3")
    assert not lark_accepts(parser, b"1--2")
    assert not lark_accepts(parser, b"1---2")
    assert "reserved" in grammar.to_gbnf().lower()
    assert "Reserved" in grammar.to_lark(dialect="llguidance")


# -- refusals ------------------------------------------------------------------------------------
def test_non_utf8_literals_are_refused_naming_the_rule() -> None:
    where = Origin("bytes.lark", 2, 3)
    grammar = Grammar(
        [Rule("start", Ref("RAW")), Rule("RAW", Lit(b"\xff\xfe", origin=where), lexical=True)],
        "start",
    )
    for export in (grammar.to_lark, grammar.to_gbnf):
        with pytest.raises(GrammarError) as err:
            export()
        assert err.value.code == "export-bytes"
        assert "RAW" in str(err.value) and err.value.origin == where


def test_mixed_lexing_is_refused_unless_a_lexer_is_named() -> None:
    grammar = Grammar(
        [
            Rule("start", Seq((Ref("NAME"), Lit.text("="), Ref("NAME")))),
            Rule(
                "NAME",
                Repeat(CharClass(((97, 122),)), 1, None),
                lexical=True,
                lexing=Lexing.CONTEXTUAL,
            ),
        ],
        "start",
    )
    with pytest.raises(UnsupportedFeatureError) as err:
        grammar.to_lark()
    assert err.value.code == "export-lexing"
    assert "NAME" in str(err.value) and "start" in str(err.value)
    text = grammar.to_lark(lexer="contextual")
    assert "Approximation" in text
    assert lark_accepts(lark_parser(text), b"ab=cd")
    with pytest.raises(GrammarError) as bad:
        grammar.to_lark(lexer="earley")
    assert bad.value.code == "export-lexer"


def test_intersection_over_budget_is_refused_naming_the_terminal() -> None:
    from typedgen.ir.passes import boolean

    big = Repeat(CharClass(((97, 122),)), 0, 60)
    grammar = Grammar(
        [
            Rule("start", Ref("WORD")),
            Rule(
                "WORD",
                Intersect((Seq((big, Lit.text("x"), big)), Complement(Seq((big, Lit.text("y")))))),
                lexical=True,
            ),
        ],
        "start",
    )
    old = boolean.MAX_STATES
    boolean.MAX_STATES = 50
    try:
        with pytest.raises(UnsupportedFeatureError) as err:
            grammar.to_lark()
        assert err.value.code == "export-intersection" and "WORD" in str(err.value)
        with pytest.raises(UnsupportedFeatureError):
            grammar.to_gbnf()
    finally:
        boolean.MAX_STATES = old
    assert "&" in grammar.to_lark(dialect="llguidance")


def test_unknown_dialect_is_refused() -> None:
    grammar = Grammar.from_choice(["a"])
    with pytest.raises(GrammarError):
        grammar.to_lark(dialect="xgrammar")
    with pytest.raises(GrammarError):
        grammar.to_lark(dialect="llguidance", lexer="basic")


# -- evaldata ------------------------------------------------------------------------------------
def _items(name: str) -> Iterator[dict[str, Any]]:
    path = EVALDATA / name / "items.jsonl"
    if not path.exists():
        pytest.skip(f"evaldata set {name!r} not found at {path} (../shared/evaldata is absent)")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _check_item(
    grammar: Grammar, pos: list[bytes], neg: list[bytes], lark_opts: dict[str, Any] | None
) -> list[str]:
    """Problems of the exports of ``grammar`` on samples the original decides as expected."""
    problems: list[str] = []
    compiled = _compiled(grammar)
    pos = [s for s in pos if accepts(compiled, s)]
    neg = [s for s in neg if not accepts(compiled, s)]
    text = grammar.to_lark()
    back = _compiled(Grammar.from_lark(text, lexer=declared_lexer(text)))
    problems += [f"lark export refuses {s!r}" for s in pos if not accepts(back, s)]
    problems += [f"lark export accepts {s!r}" for s in neg if accepts(back, s)]
    gbnf = _compiled(Grammar.from_gbnf(grammar.to_gbnf()))
    problems += [f"GBNF export refuses {s!r}" for s in pos if not accepts(gbnf, s)]
    if _exact_gbnf(grammar):
        problems += [f"GBNF export accepts {s!r}" for s in neg if accepts(gbnf, s)]
    if lark_opts is not None:
        parser = lark.Lark(text, **lark_opts)
        problems += [
            f"lark refuses the export on {s!r}" for s in pos if not lark_accepts(parser, s)
        ]
        problems += [f"lark accepts the export on {s!r}" for s in neg if lark_accepts(parser, s)]
    return problems


def test_llama_cpp_integration_grammars_round_trip() -> None:
    """llama.cpp's grammar-integration cases (GBNF grammars and JSON schemas)."""
    failures = {}
    checked = 0
    for item in _items("llamacpp_grammar_integration"):
        try:
            if item["kind"] == "grammar":
                grammar = Grammar.from_gbnf(item["grammar"])
            elif item["kind"] == "schema":
                # llama.cpp's cases check its one-spelling generation grammar ("-0" fails).
                grammar = Grammar.from_json_schema(item["schema"], spellings="canonical")
            else:
                continue
        except TypedgenError:
            continue  # refused by typedgen itself: nothing to export
        pos = [s.encode() for s in item["passing"]]
        neg = [s.encode() for s in item["failing"]]
        problems = _check_item(grammar, pos, neg, None)
        checked += 1
        if problems:
            failures[item["name"]] = problems
    assert checked >= 20
    assert not failures, failures


_LARK_LEXER_DEFAULT = {"lalr": "contextual", "earley": "dynamic", "cyk": "basic"}


def test_lark_parser_suite_round_trips() -> None:
    """lark's own parser test cases: typedgen and lark agree on the export as on the original."""
    failures = {}
    checked = 0
    for item in _items("lark_parser_tests"):
        opts = dict(item.get("options") or {})
        parser = opts.get("parser", "earley")
        lexer = opts.get("lexer") or _LARK_LEXER_DEFAULT.get(parser, "dynamic")
        if parser not in ("lalr", "earley") or set(opts) - {"parser", "lexer", "start"}:
            continue
        start = opts.get("start", "start")
        if not isinstance(start, str):
            continue
        try:
            grammar = Grammar.from_lark(item["grammar"], start=start, lexer=lexer)
            reference = lark.Lark(item["grammar"], parser=parser, lexer=lexer, start=start)
        except (TypedgenError, lark.exceptions.LarkError):
            continue
        pos = [s.encode() for s in item["passing"] if lark_accepts(reference, s.encode())]
        neg = [s.encode() for s in item["failing"] if not lark_accepts(reference, s.encode())]
        try:
            problems = _check_item(grammar, pos, neg, {"parser": parser, "lexer": lexer})
        except TypedgenError as exc:
            problems = [f"export failed: {exc}"]
        checked += 1
        if problems:
            failures[item["name"][:80]] = problems
    assert checked >= 60
    assert not failures, failures


def test_llguidance_lark_suite_round_trips() -> None:
    """llguidance's Lark cases that typedgen reads (its & and ~ among them)."""
    failures = {}
    checked = 0
    for item in _items("llguidance_lark_tests"):
        if item.get("kind") != "accept_reject":
            continue
        try:
            grammar = Grammar.from_lark(item["grammar"])
        except TypedgenError:
            continue
        pos = [s.encode() for s in item.get("passing", [])]
        neg = [s.removeprefix("FINAL_REJECT:").encode() for s in item.get("failing", [])]
        try:
            problems = _check_item(grammar, pos, neg, None)
            run = llguidance_matcher(grammar.to_lark(dialect="llguidance"))
            compiled = _compiled(grammar)
            problems += [
                f"llguidance refuses the export on {s!r}"
                for s in pos
                if accepts(compiled, s) and not run(s)
            ]
        except TypedgenError as exc:
            problems = [f"export failed: {exc}"]
        checked += 1
        if problems:
            failures[item["name"][:80]] = problems
    assert checked >= 10
    assert not failures, failures

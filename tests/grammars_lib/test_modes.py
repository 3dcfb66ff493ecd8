"""Generation and checking modes of the library, and readings a grammar must share with its
format's parser (issue 17, items 6 and 8).

* Room to stall: in generation mode a model cannot write comment lines or blank lines forever
  between two lexemes (a token-level walk that always prefers a line break ends); the checking
  mode accepts such runs, as the reference parsers do.
* INI indentation: a line indented deeper than the option before it continues that option's
  value, as configparser reads it; lark's tree of every accepted text must give configparser's
  values (samples, hand-written cases and random walks).
* YAML flow collections on one line, checked against PyYAML, with walks that start inside one.
"""

from __future__ import annotations

import configparser
import random

import lark
import numpy as np
import pytest
import yaml

import typedgen
from tests._support import accepts, byte_vocabulary
from tests.grammars_lib._reference import check, is_duplicate, lark_parser
from tests.grammars_lib.test_library import CHECK_VARIANTS, walk
from typedgen import grammars
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.grammars import Mode

# A text of each grammar after which comment lines may follow, and its comment marker.
STALL = {
    "crontab": ("@daily /usr/bin/true", "#"),
    "dockerfile": ("FROM alpine", "#"),
    "ini": ("[app]\nkey = value", ";"),
    "nginx": ("worker_processes 2;", "#"),
    "toml": ('title = "x"', "#"),
    "yaml": ("name: x", "#"),
}
COMMENT_RUN = 8  # comment lines between two lexemes in generation mode
BLANK_RUN = 2  # blank lines in a row in generation mode
TRIVIA = frozenset(b" \t\n#;")

_COMPILED: dict[tuple[str, Mode, str], CompiledGrammar] = {}


def _compiled(name: str, mode: Mode, vocab: Vocabulary) -> CompiledGrammar:
    key = (name, mode, vocab.name)
    if key not in _COMPILED:
        _COMPILED[key] = typedgen.compile(grammars.load(name, mode=mode), vocab)
    return _COMPILED[key]


def test_stall_grammars_are_the_variants() -> None:
    """Every grammar with comment lines has a checking variant (json's is its whitespace)."""
    assert sorted(STALL) == [n for n in CHECK_VARIANTS if n != "json"]


@pytest.mark.parametrize("name", sorted(STALL))
def test_comment_run_bounded_in_generation_mode(name: str) -> None:
    prefix, mark = STALL[name]
    bounded = _compiled(name, "generate", byte_vocabulary())
    wide = _compiled(name, "check", byte_vocabulary())
    for run in (COMMENT_RUN, COMMENT_RUN + 1, 40):
        text = f"{prefix}\n" + f"{mark} note\n" * run
        check(name, text, "check")
        assert accepts(wide, text.encode()), run
        assert accepts(bounded, text.encode()) == (run <= COMMENT_RUN), run
    # Blank lines: at most two in a row in generation mode, any number when checking.
    for blanks in (BLANK_RUN, BLANK_RUN + 1, 12):
        text = f"{prefix}\n" + "\n" * blanks + f"{mark} end\n"
        check(name, text, "check")
        assert accepts(wide, text.encode()), blanks
        assert accepts(bounded, text.encode()) == (blanks <= BLANK_RUN), blanks


def _trivia_walk(compiled: CompiledGrammar, prefix: str, steps: int, seed: int) -> bytes | None:
    """Tokens made only of spaces, tabs, line breaks, ``#`` and ``;``, preferring those with a
    line break (a model looping on ``#\\n#\\n...``): the bytes written, or None when a line
    break was still allowed after ``steps`` tokens."""
    vocab = compiled.vocabulary
    trivia = np.array(
        [
            bool(t) and set(t) <= TRIVIA and i not in vocab.special_ids
            for i, t in enumerate(vocab.tokens)
        ]
    )
    breaks = np.array([b"\n" in t for t in vocab.tokens]) & trivia
    rng = random.Random(seed)
    m = compiled.matcher()
    assert m.accept_bytes(prefix.encode())
    out = b""
    for _ in range(steps):
        allowed = m.allowed_token_ids()
        pool = allowed[breaks[allowed]]
        if not len(pool):
            return out
        token = int(pool[rng.randrange(len(pool))])
        assert m.accept_token(token)
        out += vocab.token_bytes(token)
    return None


@pytest.mark.parametrize("name", sorted(STALL))
def test_token_walk_cannot_stall_in_generation_mode(name: str, smollm2_vocab: Vocabulary) -> None:
    prefix, _ = STALL[name]
    stall = _trivia_walk(_compiled(name, "generate", smollm2_vocab), prefix, 300, seed=1)
    assert stall is not None, f"{name}: still writing line breaks after 300 tokens"
    # One line break ending the line, then per gap at most BLANK_RUN blank lines before each
    # of the COMMENT_RUN comment lines and after the last.
    assert stall.count(b"\n") <= 1 + COMMENT_RUN + BLANK_RUN * (COMMENT_RUN + 1), stall
    assert _trivia_walk(_compiled(name, "check", smollm2_vocab), prefix, 300, seed=1) is None


def test_json_whitespace_modes() -> None:
    bounded = _compiled("json", "generate", byte_vocabulary())
    wide = _compiled("json", "check", byte_vocabulary())
    for text, generation in [
        ('{"a": 1}', True),
        ('{\n\n  "a": 1}', True),
        ('{\n\n\n  "a": 1}', False),  # three line breaks in one run
        ('{"a":' + " " * 9 + "1}", False),  # nine spaces
        ('{"a":\r\n\r\n\r\n 1}', False),
    ]:
        check("json", text, "check")
        assert accepts(wide, text.encode()), text
        assert accepts(bounded, text.encode()) == generation, text


# -- INI: indentation as configparser reads it ---------------------------------------------------
def _configparser_values(text: str) -> dict[str, dict[str, str]]:
    # DEFAULT as an ordinary section, so that its options are compared where they are written.
    parser = configparser.ConfigParser(default_section="\x00none")
    parser.read_string(text)
    return {s: dict(parser.items(s, raw=True)) for s in parser.sections()}


def _tree_values(text: str, mode: Mode) -> dict[str, dict[str, str]]:
    """Sections and options as lark's tree of the grammar reads them: a continuation line
    belongs to the option its grammar rule puts it in."""
    out: dict[str, dict[str, str]] = {}
    for section in lark_parser("ini", mode=mode).parse(text).children:
        assert isinstance(section, lark.Tree)
        name, *options = section.children
        values = out.setdefault(str(name), {})
        for option in options:
            assert isinstance(option, lark.Tree) and option.data.endswith("option")
            tokens = {t.type.rsplit("__", 1)[-1]: str(t) for t in option.children[:2]}
            lines = [tokens.get("VALUE", "").strip()]
            lines += [str(t).strip() for t in option.children if t.type.endswith("CONTINUATION")]
            values[tokens["KEY"].lower()] = "\n".join(lines).rstrip()
    return out


INI_CASES = [
    "[user]\n\tname = Dana\n\temail = dana@example.org\n[core]\n\teditor = vim\n",
    "[a]\nk = v\n\tj = w\n",  # deeper than its option: a continuation, not an option
    "[a]\n\tk = v\nj = w\n",  # shallower: the next option
    "[a]\n    k = v\n        more\n    j = w\n  i = z\n",
    "[a]\n\tk = v\n\t# a comment\n\tj = w\n",
    "[a]\n  k =\n     first\n     second\n",
    "[a]\nk: v\n  ; an indented comment line\nj: w\n",
    "[a]\n\tk = v\n\t\t# deeper, but a comment line, not a continuation\n\tj = w\n",
]


@pytest.mark.parametrize("text", INI_CASES)
def test_ini_indentation_reads_as_configparser(text: str) -> None:
    for mode in ("generate", "check"):
        assert accepts(_compiled("ini", mode, byte_vocabulary()), text.encode())
        assert _tree_values(text, mode) == _configparser_values(text)


def test_ini_left_out() -> None:
    """configparser reads these; the grammar refuses them (documented as left out)."""
    compiled = _compiled("ini", "check", byte_vocabulary())
    for text in [
        "[a]\nk = v\n\n  more\n",  # a continuation after a blank line
        "[a]\n     k = v\n",  # an option indented by five
        "  [a]\nk = v\n",  # an indented header
    ]:
        _configparser_values(text)
        assert not accepts(compiled, text.encode()), text


@pytest.mark.parametrize("mode", ["generate", "check"])
def test_ini_samples_read_as_configparser(mode: Mode) -> None:
    for sample in grammars.samples("ini", mode):
        text = sample.read_text(encoding="utf-8")
        assert _tree_values(text, mode) == _configparser_values(text), sample.name


def test_ini_walks_read_as_configparser(smollm2_vocab: Vocabulary) -> None:
    compiled = _compiled("ini", "generate", smollm2_vocab)
    finisher = _compiled("ini", "generate", byte_vocabulary())
    rng = random.Random(17)
    compared = 0
    for n in range(16):
        prefix = ["[s]\n\t", "[s]\nk = v", "[s]\n  a = 1\n  b"][n % 3].encode()
        data = walk(compiled, rng, 40, prefix, finisher)
        if data is None:
            continue
        text = data.decode("utf-8")
        try:
            expected = _configparser_values(text)
        except configparser.Error as exc:
            assert is_duplicate("ini", exc), (text, exc)
            continue
        assert _tree_values(text, "generate") == expected, text
        compared += 1
    assert compared >= 10


# -- YAML flow collections -----------------------------------------------------------------------
YAML_FLOWS = {
    "a: [x, y]": {"a": ["x", "y"]},
    "a: [ x , y ]": {"a": ["x", "y"]},
    "a: [hello world, 'it''s', \"q\\tz\"]": {"a": ["hello world", "it's", "q\tz"]},
    "a: []\nb: {}": {"a": [], "b": {}},
    "a: {k: v, n: [1, 2.5, -3], m: {deep: [[]]}}": {
        "a": {"k": "v", "n": [1, 2.5, -3], "m": {"deep": [[]]}}
    },
    "- [a, b]\n- {name: x, url: http://example.com/a}": [
        ["a", "b"],
        {"name": "x", "url": "http://example.com/a"},
    ],
    '[1, "two", [3]]  # a whole document': [1, "two", [3]],
    'ports: ["80:80", 443]  # exposed\n': {"ports": ["80:80", 443]},
    "args: [--fix, -v, 1.2.3, 500m]": {"args": ["--fix", "-v", "1.2.3", "500m"]},
    "x:\n  - {name: a, ports: [80]}\n  - b\n": {"x": [{"name": "a", "ports": [80]}, "b"]},
}


@pytest.mark.parametrize("text", list(YAML_FLOWS))
def test_yaml_flow_collections(text: str) -> None:
    assert yaml.safe_load(text) == YAML_FLOWS[text]
    check("yaml", text)
    for mode in ("generate", "check"):
        assert accepts(_compiled("yaml", mode, byte_vocabulary()), text.encode()), mode


def test_yaml_flow_walks(smollm2_vocab: Vocabulary) -> None:
    """Walks that start inside a flow collection end in text PyYAML and lark accept."""
    compiled = _compiled("yaml", "generate", smollm2_vocab)
    finisher = _compiled("yaml", "generate", byte_vocabulary())
    rng = random.Random(5)
    finished = 0
    for n in range(12):
        prefix = ["a: [", "a: {", "- [x, {k: ", "[", "k:\n  - {a: [1"][n % 5].encode()
        data = walk(compiled, rng, 32, prefix, finisher)
        if data is None:
            continue
        check("yaml", data.decode("utf-8"))
        finished += 1
    assert finished >= 9


def test_check_mode_lark_file_loads_with_lark_alone() -> None:
    """A check variant is an ordinary lark file: lark reads it with the library folder as the
    import path (as typedgen.Lark(path) passes its folder)."""
    for name in CHECK_VARIANTS:
        path = grammars.path(name, "check")
        marker = typedgen.Lark(path)
        assert str(typedgen.grammar_of(marker)) == str(grammars.load(name, mode="check"))
        lark.Lark(path.read_text(encoding="utf-8"), import_paths=[str(path.parent)])

"""The grammar library (grammars/*.lark): loading by name, samples, soundness, goldens.

Every grammar must accept each of its sample files byte by byte and token by token (the
SmolLM2 and Gemma 3 tokenizers' own tokenizations and a random segmentation), and the format's
reference parser must accept them too; in checking mode, also the samples under
``samples/<name>/check/`` (which the generation mode refuses). The generation/checking split
itself and grammar-specific readings are tested in ``test_modes.py``. Random walks through the
token masks (in both modes) must end in text the reference parser accepts; the only tolerated
refusals are the semantic "defined twice" errors of INI, TOML and Python calls, which no
context-free grammar can rule out (they are counted and must stay rare).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tomllib
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import typedgen
from tests._support import REPO, accepts, byte_vocabulary, check_golden
from tests.grammars_lib import _generate
from tests.grammars_lib._reference import Rejected, check, is_duplicate
from typedgen import grammars
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import GrammarError, OptionError
from typedgen.grammars import Mode
from typedgen.ir import Grammar
from typedgen.runtime import engine_of
from typedgen.runtime.engine import DEAD
from typedgen.runtime.matcher import Matcher

GOLDEN = Path(__file__).resolve().parent / "golden"
NAMES = [
    "arith",
    "cron",
    "crontab",
    "csv",
    "dockerfile",
    "ini",
    "json",
    "nginx",
    "toml",
    "toolcall",
    "yaml",
]

# Grammars whose checking mode is wider than the generation mode (a <name>.check.lark file).
CHECK_VARIANTS = ["crontab", "dockerfile", "ini", "json", "nginx", "toml", "yaml"]

# Texts each grammar refuses and its reference parser refuses too.
NEGATIVE = {
    "arith": ["1 +", "(1", "1 ++ 2", "2 * * 3", "f(,)", "1  + 2", "--x", "1 2"],
    "cron": [
        "60 * * * *",
        "* 24 * * *",
        "* * 0 * *",
        "* * * 13 *",
        "* * * * 8",
        "5/2 * * * *",
        "* * * *",
        "@often",
        "*/0 * * * *",
    ],
    "crontab": ["* * * * *", "61 * * * * cmd", "@often cmd"],
    "csv": ["a,b\n1,2,3", 'a,"b\n', 'a,b"c', "a\n\nb", "a,b\n\n"],
    "dockerfile": ["RUN echo hi", "FROM\n", "from ubuntu", "FROM x\nBOGUS y", 'FROM x\nCMD ["a",]'],
    "ini": ["key = value", "[a]\nkey", "[a]\nk = 5%", "[]\n", "[a]\n = v"],
    "json": ['{"a": 1,}', "[1 2]", '{"a" 1}', '"\x01"', "01", '{"a": tru}', "NaN", "[1]]"],
    "nginx": ["server {", "listen 80", "}", "a { b; } }", "a 'b;"],
    "toml": [
        "a = ",
        "a = 1979-02-30",
        'a = "\\q"',
        "a = 01",
        "[a",
        "a = {b = 1,}",
        "a = 1 b = 2",
        'a = "\\ud800"',
        "a = 2023-02-29",
    ],
    "toolcall": [
        "f(a=1, 2)",
        "if(x=1)",
        "f(x=True, class=2)",
        "f(01)",
        "f(x=[1,)",
        "f",
        "f(True=1)",
        "f(__debug__=1)",
    ],
    "yaml": [
        "a: b: c",
        "- a\nb: 1",
        "a: [1, 2",
        "a: 2024-02-30",
        '"open',
        "a: 0b_",
        "a: =",
        "a: {k: v",
        "a: [x] y",
        "a: [1, [2]",
        "[a, b]]",
        "a: [http://x?y]",
    ],
}


def test_names() -> None:
    assert grammars.names() == NAMES
    assert grammars.folder() == REPO / "grammars"
    variants = sorted(p.name for p in grammars.folder().glob("*.check.lark"))
    assert variants == [f"{name}.check.lark" for name in CHECK_VARIANTS]


@pytest.mark.parametrize("name", NAMES)
def test_load_and_samples(name: str) -> None:
    grammar = grammars.load(name)
    assert isinstance(grammar, Grammar)
    assert grammars.load(name) is grammar  # cached
    assert grammars.load(name, mode="generate") is grammar
    assert grammars.lexer(name) == grammars.lexer(name, "check") == "contextual"
    assert grammars.path(name) == grammars.folder() / f"{name}.lark"
    assert grammars.text(name).startswith("//")
    assert len(grammars.samples(name)) >= 3
    check = grammars.load(name, mode="check")
    if name in CHECK_VARIANTS:
        assert grammars.path(name, "check") == grammars.folder() / f"{name}.check.lark"
        assert str(check) != str(grammar)
        assert len(grammars.samples(name, "check")) > len(grammars.samples(name))
    else:
        assert grammars.path(name, "check") == grammars.path(name)
        assert str(check) == str(grammar)
        assert grammars.samples(name, "check") == grammars.samples(name)


def test_other_start_and_lark_marker() -> None:
    expression = typedgen.compile(grammars.load("cron", start="expression"), byte_vocabulary())
    assert accepts(expression, b"*/5 * * * *")
    assert not accepts(expression, b"*/5 * * * *\n")  # only `start` takes a final line break
    marker = typedgen.Lark(grammars.path("crontab"))  # %import cron.expression resolves
    assert str(typedgen.grammar_of(marker)) == str(grammars.load("crontab"))


def test_unknown_name_suggests() -> None:
    with pytest.raises(GrammarError) as info:
        grammars.load("tmol")
    assert info.value.code == "unknown-grammar"
    assert "did you mean 'toml'" in str(info.value) and "yaml" in str(info.value)
    for bad in ("../README", "samples/json", "", "toml.check"):
        with pytest.raises(GrammarError, match="no grammar named"):
            grammars.path(bad)


def test_unknown_mode() -> None:
    for call in (
        lambda: grammars.load("toml", mode="strict"),  # type: ignore[arg-type]
        lambda: grammars.path("toml", "checking"),  # type: ignore[arg-type]
        lambda: grammars.samples("toml", "lenient"),  # type: ignore[arg-type]
    ):
        with pytest.raises(OptionError) as info:
            call()
        assert info.value.code == "option-value"
        assert "'generate'" in str(info.value) and "'check'" in str(info.value)


def test_header_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grammars, "_CANDIDATES", (tmp_path / "missing", tmp_path))
    (tmp_path / "zz_free.lark").write_text(
        '// A test grammar.\n// typedgen: lexer=dynamic\nstart: "a"+\n', encoding="utf-8"
    )
    (tmp_path / "zz_bad.lark").write_text('// typedgen: colour=red\nstart: "a"\n', "utf-8")
    assert grammars.names() == ["zz_bad", "zz_free"]
    assert grammars.lexer("zz_free") == "dynamic"
    assert grammars.load("zz_free", lexer="contextual") is not grammars.load("zz_free")
    assert grammars.samples("zz_free") == []
    with pytest.raises(GrammarError) as info:
        grammars.load("zz_bad")
    assert info.value.code == "grammar-library-option"
    assert "zz_bad.lark:1" in str(info.value)
    monkeypatch.setattr(grammars, "_CANDIDATES", (tmp_path / "missing",))
    with pytest.raises(GrammarError) as info:
        grammars.names()
    assert info.value.code == "grammar-library-missing"


def test_wheel_ships_the_library() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["scikit-build"]["wheel"]
    assert wheel["force-include"] == {"grammars": "typedgen/grammars/data"}


def test_import_stays_light() -> None:
    code = "import sys, typedgen.grammars as g; g.load('json'); assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


@pytest.mark.parametrize(
    ("name", "mode"),
    [*((n, "generate") for n in NAMES), *((n, "check") for n in CHECK_VARIANTS)],
)
def test_golden_canonical_text(name: str, mode: Mode) -> None:
    """Exact text under the lark the golden records (the Lark frontend mirrors lark's internals).

    The samples and soundness tests above are the invariants that hold under any lark.
    """
    text = str(grammars.load(name, mode=mode))
    file = grammars.path(name, mode)
    fresh = Grammar.from_lark(
        file.read_text(encoding="utf-8"),
        lexer=grammars.lexer(name),
        source=str(file),
        import_paths=[file.parent],
    )
    assert str(fresh) == text, "loading the grammar again gives another text"
    suffix = ".check" if mode == "check" else ""
    check_golden(GOLDEN / f"{name}{suffix}.txt", text, depends_on=("lark",))


def test_generated_parts_are_current() -> None:
    assert grammars.text("yaml") == _generate.yaml_grammar(), "run tests/grammars_lib/_generate.py"
    assert grammars.text("yaml", "check") == _generate.yaml_check_grammar()
    assert _generate.toolcall_name(grammars.text("toolcall")) == _generate.identifier_regex()


# -- samples -----------------------------------------------------------------------------------
def _sample_cases() -> list[tuple[str, Path]]:
    return [(name, p) for name in NAMES for p in grammars.samples(name)]


def _check_only_cases() -> list[tuple[str, Path]]:
    return [
        (name, p)
        for name in NAMES
        for p in grammars.samples(name, "check")
        if p not in grammars.samples(name)
    ]


SAMPLES = _sample_cases()
SAMPLE_IDS = [f"{name}/{p.name}" for name, p in SAMPLES]
CHECK_ONLY = _check_only_cases()
CHECK_ONLY_IDS = [f"{name}/check/{p.name}" for name, p in CHECK_ONLY]


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=SAMPLE_IDS)
def test_reference_accepts_sample(name: str, sample: Path) -> None:
    text = sample.read_text(encoding="utf-8")
    check(name, text)
    check(name, text, "check")


_BYTES: dict[tuple[str, Mode], CompiledGrammar] = {}


def _byte_compiled(name: str, mode: Mode = "generate") -> CompiledGrammar:
    if (name, mode) not in _BYTES:
        _BYTES[name, mode] = typedgen.compile(grammars.load(name, mode=mode), byte_vocabulary())
    return _BYTES[name, mode]


def _accepted_byte_by_byte(compiled: CompiledGrammar, data: bytes) -> None:
    m = compiled.matcher()
    for i in range(len(data)):
        assert m.accept_bytes(data[i : i + 1]), (
            f"byte {i} refused after {data[max(0, i - 60) : i]!r}"
        )
    assert m.is_complete()


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=SAMPLE_IDS)
def test_sample_accepted_byte_by_byte(name: str, sample: Path) -> None:
    _accepted_byte_by_byte(_byte_compiled(name), sample.read_bytes())
    _accepted_byte_by_byte(_byte_compiled(name, "check"), sample.read_bytes())


@pytest.mark.parametrize(("name", "sample"), CHECK_ONLY, ids=CHECK_ONLY_IDS)
def test_check_only_sample(
    name: str, sample: Path, smollm2_vocab: Vocabulary, smollm2_tokenizer: Any
) -> None:
    """Accepted by the reference and, byte by byte and as SmolLM2 splits it, by the checking
    mode; refused by the generation mode (these samples show where the two modes differ)."""
    text = sample.read_text(encoding="utf-8")
    check(name, text, "check")
    with pytest.raises(Rejected):
        check(name, text)  # lark on the generation grammar
    _accepted_byte_by_byte(_byte_compiled(name, "check"), text.encode())
    assert not accepts(_byte_compiled(name), text.encode())
    ids = smollm2_tokenizer.encode(text, add_special_tokens=False)
    compiled = typedgen.compile(grammars.load(name, mode="check"), smollm2_vocab)
    _ids_ok(compiled, ids, f"{sample.name} (tokenizer)", masks=True)


@pytest.mark.parametrize("name", NAMES)
def test_negative_texts(name: str) -> None:
    compiled = _byte_compiled(name)
    for text in NEGATIVE[name]:
        assert not accepts(compiled, text.encode()), f"{name} accepts {text!r}"
        with pytest.raises(Rejected):
            check(name, text)


def _ids_ok(compiled: CompiledGrammar, ids: list[int], label: str, masks: bool) -> None:
    """Each token accepted in turn (and set in the step's bitmask when ``masks``), then EOS."""
    vocab = compiled.vocabulary
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    m = compiled.matcher()
    for step, tid in enumerate(ids):
        if masks:
            m.fill_next_token_bitmask(words)
            assert (int(words[tid >> 5]) >> (tid & 31)) & 1, f"{label}: token {step} not allowed"
        assert m.accept_token(tid), f"{label}: token {step} {vocab.tokens[tid]!r} refused"
    assert m.is_complete(), f"{label}: not complete at the end"
    assert m.accept_token(min(vocab.eos_ids))


def _segmentation(vocab: Vocabulary, data: bytes, seed: int) -> list[int] | None:
    """A random split of ``data`` into tokens of the vocabulary (None if a byte has none)."""
    by_bytes = _lookup(vocab)
    rnd = random.Random(seed)
    out: list[int] = []
    i = 0
    while i < len(data):
        options = [n for n in range(1, min(10, len(data) - i) + 1) if data[i : i + n] in by_bytes]
        if not options:
            return None
        n = rnd.choice(options)
        out.append(by_bytes[data[i : i + n]])
        i += n
    return out


_LOOKUPS: dict[int, dict[bytes, int]] = {}


def _lookup(vocab: Vocabulary) -> dict[bytes, int]:
    if id(vocab) not in _LOOKUPS:
        _LOOKUPS[id(vocab)] = {
            t: i for i, t in enumerate(vocab.tokens) if t and i not in vocab.special_ids
        }
    return _LOOKUPS[id(vocab)]


def _check_tokenized(name: str, vocab: Vocabulary, tokenizer: Any, thorough: bool) -> None:
    """The tokenizer's own tokenization of every sample is accepted; when ``thorough``, also a
    random segmentation, and every token is checked against the step's bitmask too (the first
    mask of each parser state is computed lazily, which is slow on Gemma 3's 262k tokens)."""
    compiled = typedgen.compile(grammars.load(name), vocab)
    for n, sample in enumerate(grammars.samples(name)):
        text = sample.read_text(encoding="utf-8")
        ids = tokenizer.encode(text, add_special_tokens=False)
        assert vocab.decode(ids) == text.encode()
        _ids_ok(compiled, ids, f"{sample.name} (tokenizer)", masks=thorough)
        split = _segmentation(vocab, text.encode(), n) if thorough else None
        if split is not None:
            _ids_ok(compiled, split, f"{sample.name} (random split)", masks=True)


@pytest.mark.parametrize("name", NAMES)
def test_samples_token_by_token_smollm2(
    name: str, smollm2_vocab: Vocabulary, smollm2_tokenizer: Any
) -> None:
    _check_tokenized(name, smollm2_vocab, smollm2_tokenizer, thorough=True)


@pytest.mark.parametrize("name", NAMES)
def test_samples_token_by_token_gemma3(
    name: str, gemma3_vocab: Vocabulary, gemma3_tokenizer: Any
) -> None:
    _check_tokenized(name, gemma3_vocab, gemma3_tokenizer, thorough=False)


# -- random walks ------------------------------------------------------------------------------
_CLASSES: dict[int, tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]] = {}


def _token_classes(vocab: Vocabulary) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.bool_]]:
    """(class of each token's first byte, short tokens). Classes: letters, digits, spaces,
    non-ASCII, and each other byte on its own, so that a walk inside a string or a comment
    picks the closing quote or the line break as often as "some letter"."""
    if id(vocab) not in _CLASSES:
        first = np.zeros(vocab.size, dtype=np.int16)
        short = np.zeros(vocab.size, dtype=bool)
        for i, token in enumerate(vocab.tokens):
            if not token:
                continue
            b = token[0]
            chr_b = chr(b)
            first[i] = (
                1
                if chr_b.isalpha() and b < 128
                else 2
                if chr_b.isdigit()
                else 3
                if b in b" \t"
                else 4
                if b >= 128
                else 16 + b
            )
            short[i] = len(token) <= 2
        _CLASSES[id(vocab)] = (first, short)
    return _CLASSES[id(vocab)]


def walk(
    compiled: CompiledGrammar,
    rng: random.Random,
    limit: int,
    prefix: bytes = b"",
    finisher: CompiledGrammar | None = None,
) -> bytes | None:
    """``prefix``, then up to ``limit`` allowed tokens (a random first-byte class, then a
    random token of it, short ones half the time), stopping now and then where the text may
    end; then the shortest completion, searched in ``finisher`` (the same grammar on the byte
    vocabulary, whose states are cheap to explore) when given. ``None`` when the engine's
    bounded search finds no completion (after many nested blocks, say, whose closing may
    follow all sorts of whitespace)."""
    vocab = compiled.vocabulary
    first, short = _token_classes(vocab)
    eos = np.array(sorted(vocab.eos_ids))
    m = compiled.matcher()
    assert m.accept_bytes(prefix)
    out = prefix
    for _ in range(limit):
        allowed = m.allowed_token_ids()
        assert len(allowed), f"empty mask after {out!r}"
        texts = allowed[~np.isin(allowed, eos)]
        if m.is_complete() and (not len(texts) or rng.random() < 0.1):
            return out
        classes = np.unique(first[texts])
        pool = texts[first[texts] == classes[rng.randrange(len(classes))]]
        if rng.random() < 0.5 and short[pool].any():
            pool = pool[short[pool]]
        token = int(pool[rng.randrange(len(pool))])
        assert m.accept_token(token)
        out += vocab.token_bytes(token)
    if finisher is not None:
        m = finisher.matcher()
        assert m.accept_bytes(out)
    rest = _completion(m)
    return None if rest is None else out + rest


_FINISHING = b"\"')]}>;,:=\n 0a*-#."


def _completion(m: Matcher, limit: int = 4000) -> bytes | None:
    """A short completion: breadth-first over the engine's states, trying only a few closing
    and filler bytes (the engine's own search tries all 256 at every state, which is slow
    where whitespace comes in many lengths), then the engine's search as a fallback."""
    engine = engine_of(m.compiled)
    start = m._history[-1]
    parent: dict[int, tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue and len(parent) < limit:
        state = queue.popleft()
        if engine.is_complete(state):
            out = bytearray()
            step = parent[state]
            while step is not None:
                out.append(step[1])
                step = parent[step[0]]
            return bytes(reversed(out))
        for b in _FINISHING:
            nxt = engine.advance_bytes(state, bytes((b,)))
            if nxt != DEAD and nxt not in parent:
                parent[nxt] = (state, b)
                queue.append(nxt)
    return m.shortest_completion(2_000)


def _utf8_complete(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _check_walks(
    name: str, vocab: Vocabulary, count: int, limit: int, seed: int, mode: Mode = "generate"
) -> None:
    compiled = typedgen.compile(grammars.load(name, mode=mode), vocab)
    rng = random.Random(seed)
    samples = [p.read_bytes() for p in grammars.samples(name, mode)]
    duplicates = []
    unfinished = 0
    for n in range(count):
        # Every other walk starts inside a sample, to reach the states deep in a document.
        sample = samples[rng.randrange(len(samples))]
        prefix = sample[: rng.randrange(len(sample))] if n % 2 else b""
        while prefix and not _utf8_complete(prefix):
            prefix = prefix[:-1]
        data = walk(compiled, rng, limit, prefix, _byte_compiled(name, mode))
        if data is None:
            unfinished += 1
            continue
        text = data.decode("utf-8")
        try:
            check(name, text, mode)
        except Rejected as exc:
            if not is_duplicate(name, exc):
                raise AssertionError(f"{name}: reference refuses walk {text!r}: {exc}") from exc
            duplicates.append(text)
    assert len(duplicates) <= count // 4, f"{name}: {len(duplicates)} duplicate-key walks"
    assert unfinished <= count // 4, f"{name}: {unfinished} walks found no completion"


@pytest.mark.parametrize("name", NAMES)
def test_random_walks_smollm2(name: str, smollm2_vocab: Vocabulary) -> None:
    _check_walks(name, smollm2_vocab, count=10, limit=48, seed=NAMES.index(name))


@pytest.mark.parametrize("name", NAMES)
def test_random_walks_gemma3(name: str, gemma3_vocab: Vocabulary) -> None:
    _check_walks(name, gemma3_vocab, count=2, limit=24, seed=100 + NAMES.index(name))


@pytest.mark.parametrize("name", CHECK_VARIANTS)
def test_random_walks_check_mode(name: str, smollm2_vocab: Vocabulary) -> None:
    """The checking mode is sound too (its reference: the format's parser and lark on
    ``<name>.check.lark``)."""
    _check_walks(name, smollm2_vocab, count=6, limit=48, seed=200 + NAMES.index(name), mode="check")


# -- grammar-specific checks -------------------------------------------------------------------
def test_toolcall_names_are_not_keywords() -> None:
    compiled = _byte_compiled("toolcall")
    for word in _generate.RESERVED:
        assert not accepts(compiled, f"{word}()".encode()), word
        assert not accepts(compiled, f"f({word}=1)".encode()), word
    for word in ("format", "index", "default", "is_open", "True_", "nonlocals", "match", "_"):
        assert accepts(compiled, f"{word}({word}=1)".encode()), word
        check("toolcall", f"{word}({word}=1)")


def test_yaml_depth_bound() -> None:
    compiled = _byte_compiled("yaml")
    lines = [f"{'  ' * k}k{k}:" for k in range(_generate.YAML_DEPTH + 1)]
    deepest = "\n".join(lines) + " leaf\n"
    check("yaml", deepest)
    assert accepts(compiled, deepest.encode())
    too_deep = "\n".join([*lines, f"{'  ' * (_generate.YAML_DEPTH + 1)}k: leaf"]) + "\n"
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(too_deep)  # valid YAML, beyond the bound
    assert not accepts(compiled, too_deep.encode())

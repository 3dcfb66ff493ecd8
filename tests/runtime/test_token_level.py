"""Token-level exactness on real vocabularies (SmolLM2 byte-level BPE, Gemma 3 SentencePiece).

For valid documents, every token of the tokenizer's own tokenization, of a byte-by-byte
tokenization, of a longest-match tokenization and of random segmentations must be allowed at its
step; EOS must be allowed after the last token, and before it exactly where an independent
oracle (``json.loads``, lark's own parser) says the prefix is already a complete document.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedgen
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir import Grammar

GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"

JSON_DOCS = [
    {"name": "Alice Smith", "age": 42, "tags": ["a", "b"], "active": True, "score": -98.6e3},
    {"nested": {"list": [1, 2, {"deep": [None, False, 'x"y\\z\n\t']}]}, "empty": {}, "e": []},
    {"unicode": "héllo wörld — 你好 🌍", "escapes": 'tab\tquote"', "n": 0.5},
    {"items": [{"id": 1, "title": "First", "price": 12.5}, {"id": 2, "title": "Second"}]},
]
ARITH_DOCS = ["1 + 2 * (3 - 4) / 5", "f(x, y^2) - -3.5e-2 * g()", "((a))+b_1*c%7"]
CALC_DOCS = ["x = 1 + 2 * (3 - y) / 4", "-(a + b) * 3.25", "total=price*qty"]


def _tokenizations(vocab: Vocabulary, tokenizer: Any, text: str, seed: int) -> dict[str, list[int]]:
    data = text.encode("utf-8")
    by_bytes = {t: i for i, t in enumerate(vocab.tokens) if t and i not in vocab.special_ids}
    out: dict[str, list[int]] = {"tokenizer": tokenizer.encode(text, add_special_tokens=False)}
    if all(bytes((b,)) in by_bytes for b in data):
        out["bytes"] = [by_bytes[bytes((b,))] for b in data]
    longest: list[int] = []
    i = 0
    max_len = max(len(t) for t in by_bytes)
    while i < len(data):
        for n in range(min(max_len, len(data) - i), 0, -1):
            tid = by_bytes.get(data[i : i + n])
            if tid is not None:
                longest.append(tid)
                i += n
                break
        else:
            return out  # a byte the vocabulary cannot express
    out["longest"] = longest
    rnd = random.Random(seed)
    segmented: list[int] = []
    i = 0
    while i < len(data):
        options = [n for n in range(1, min(12, len(data) - i) + 1) if data[i : i + n] in by_bytes]
        n = rnd.choice(options)
        segmented.append(by_bytes[data[i : i + n]])
        i += n
    out["random"] = segmented
    return out


def _json_complete(data: bytes) -> bool:
    try:
        return isinstance(json.loads(data), dict) and not data[-1:].isspace()
    except ValueError:
        return False


def _lark_complete(grammar: str) -> Callable[[bytes], bool]:
    import lark

    parser = lark.Lark((GRAMMARS / grammar).read_text(), parser="earley", lexer="dynamic_complete")

    def complete(data: bytes) -> bool:
        try:
            parser.parse(data.decode("utf-8"))
        except (lark.exceptions.LarkError, UnicodeDecodeError):
            return False
        return True

    return complete


def _check(
    compiled: typedgen.CompiledGrammar,
    ids: list[int],
    label: str,
    complete: Callable[[bytes], bool] | None,
) -> None:
    vocab = compiled.vocabulary
    eos = sorted(vocab.eos_ids)
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    m = compiled.matcher()
    for step, tid in enumerate(ids):
        m.fill_next_token_bitmask(words)
        allowed = (int(words[tid >> 5]) >> (tid & 31)) & 1
        assert allowed, f"{label}: token {step} {vocab.tokens[tid]!r} not allowed"
        if complete is not None and step:
            expect = complete(vocab.decode(ids[:step]))
            for e in eos:
                got = bool((int(words[e >> 5]) >> (e & 31)) & 1)
                assert got == expect, f"{label}: EOS {'not ' * expect}allowed at {step}"
        assert m.accept_token(tid), f"{label}: token {step} refused"
    m.fill_next_token_bitmask(words)
    assert m.is_complete(), f"{label}: not complete at the end"
    for e in eos:
        assert (int(words[e >> 5]) >> (e & 31)) & 1, f"{label}: EOS not allowed at the end"
    assert m.accept_token(eos[0]) and m.is_terminated()


def _grammar(name: str) -> Grammar:
    text = (GRAMMARS / name).read_text(encoding="utf-8")
    if name.endswith(".gbnf"):
        return Grammar.from_gbnf(text, source=name)
    return Grammar.from_lark(text, source=name)


CASES = [
    ("json.gbnf", [json.dumps(d) for d in JSON_DOCS] + [json.dumps(JSON_DOCS[0], indent=2)]),
    ("arith.gbnf", ARITH_DOCS),
    ("calc.lark", CALC_DOCS),
]


def _oracle(grammar: str) -> Callable[[bytes], bool] | None:
    if grammar == "json.gbnf":
        return _json_complete
    if grammar.endswith(".lark"):
        return _lark_complete(grammar)
    return None  # arith.gbnf: no independent parser; EOS is still checked at the end


@pytest.mark.parametrize(("grammar", "docs"), CASES, ids=[c[0] for c in CASES])
def test_smollm2_tokenizations_are_allowed(
    grammar: str, docs: list[str], smollm2_vocab: Vocabulary, smollm2_tokenizer: Any
) -> None:
    compiled = typedgen.compile(_grammar(grammar), smollm2_vocab)
    oracle = _oracle(grammar)
    for n, doc in enumerate(docs):
        for kind, ids in _tokenizations(smollm2_vocab, smollm2_tokenizer, doc, n).items():
            assert smollm2_vocab.decode(ids) == doc.encode()
            _check(compiled, ids, f"{grammar} doc {n} ({kind})", oracle)


@pytest.mark.parametrize(("grammar", "docs"), CASES[:2], ids=[c[0] for c in CASES[:2]])
def test_gemma3_tokenizations_are_allowed(
    grammar: str, docs: list[str], gemma3_vocab: Vocabulary, gemma3_tokenizer: Any
) -> None:
    compiled = typedgen.compile(_grammar(grammar), gemma3_vocab)
    oracle = _oracle(grammar)
    for n, doc in enumerate(docs[:3]):
        for kind, ids in _tokenizations(gemma3_vocab, gemma3_tokenizer, doc, n).items():
            assert gemma3_vocab.decode(ids) == doc.encode()
            _check(compiled, ids, f"{grammar} doc {n} ({kind})", oracle)


def test_invalid_documents_are_refused(smollm2_vocab: Vocabulary, smollm2_tokenizer: Any) -> None:
    compiled = typedgen.compile(_grammar("json.gbnf"), smollm2_vocab)
    for bad in ['{"a": 1,}', '{"a" 1}', "[1, 2", '{"a": tru}', '{"a": "\x01"}']:
        ids = smollm2_tokenizer.encode(bad, add_special_tokens=False)
        m = compiled.matcher()
        ok = all(m.accept_token(t) for t in ids)
        assert not (ok and m.is_complete()), bad

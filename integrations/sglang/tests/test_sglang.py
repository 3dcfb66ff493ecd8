"""The SGLang backend without CUDA: what imports and runs on the CPU.

SGLang's server needs CUDA (scripts/gpu-check.sh runs it there). Here its grammar-backend
module is imported for real (sglang installed without its CUDA dependencies), and the
backend serves SGLang's own protocol on the real SmolLM2 tokenizer: compile per constraint
kind, batch mask fill into SGLang's bitmask layout, mask application on CPU logits, greedy
decoding to a complete sentence, jump-forward with retokenisation, copies, invalid grammars.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import typedgen
from pydantic import BaseModel, Field
from typedgen._bundled import smollm2_tokenizer
from typedgen.ir import serial

import typedgen_sglang


class City(BaseModel):
    name: str = Field(max_length=20)
    population_millions: int = Field(ge=0, le=50)


def test_ebnf_value_round_trips() -> None:
    value = typedgen_sglang.ebnf(City)
    assert value.startswith("tg1:")
    assert serial.loads(value) == typedgen.grammar_of(City)


@pytest.mark.parametrize(
    ("key_type", "key_string", "sample"),
    [
        ("json", json.dumps(City.model_json_schema()), b'{"name":"Lima","population_millions":10}'),
        ("regex", r"[a-c]{2}\d", b"ab7"),
        ("ebnf", 'root ::= "x" [0-9]+', b"x42"),
        ("ebnf", typedgen_sglang.ebnf(typedgen.Choice("red", "green")), b"green"),
    ],
)
def test_keys_become_typedgen_grammars(key_type: str, key_string: str, sample: bytes) -> None:
    grammar = typedgen_sglang.grammar_of_key(key_type, key_string)
    vocab = typedgen.Vocabulary.from_tokenizer(smollm2_tokenizer())
    matcher = typedgen.compile(grammar, vocab).matcher()
    assert matcher.accept_bytes(sample) and matcher.is_complete()


def test_structural_tags_are_refused_by_name() -> None:
    with pytest.raises(typedgen.OptionError, match="structural_tag"):
        typedgen_sglang.grammar_of_key("structural_tag", "{}")


# -- with SGLang's module imported --------------------------------------------------------------
@pytest.fixture(scope="module")
def backend() -> Any:
    pytest.importorskip("torch")
    pytest.importorskip("sglang.srt.constrained.base_grammar_backend")
    from typedgen_sglang.backend import TypedgenGrammarBackend

    tokenizer = smollm2_tokenizer()
    return TypedgenGrammarBackend(tokenizer, len(tokenizer), {tokenizer.eos_token_id})


def test_plugin_registers_the_backend() -> None:
    base = pytest.importorskip("sglang.srt.constrained.base_grammar_backend")
    typedgen_sglang.register()
    assert base.GRAMMAR_BACKEND_REGISTRY["typedgen"] is not None
    from sglang.srt.server_args import GRAMMAR_BACKEND_CHOICES

    assert "typedgen" in GRAMMAR_BACKEND_CHOICES


def _greedy(backend: Any, grammars: list[Any], steps: int = 80) -> list[list[int]]:
    import torch
    from sglang.srt.constrained.base_grammar_backend import GrammarRow

    vocab = backend.vocabulary
    mask = grammars[0].allocate_vocab_mask(vocab.size, len(grammars), "cpu")
    outputs: list[list[int]] = [[] for _ in grammars]
    generator = torch.Generator().manual_seed(0)
    for _ in range(steps):
        live = [i for i, g in enumerate(grammars) if not g.is_terminated()]
        if not live:
            break
        grammars[0].reset_vocab_mask(mask)
        type(grammars[0]).fill_vocab_mask_batched([GrammarRow(i, grammars[i]) for i in live], mask)
        logits = torch.randn(len(grammars), vocab.size, generator=generator)
        grammars[0].apply_vocab_mask(logits, grammars[0].move_vocab_mask(mask, "cpu"))
        for i in live:
            token = int(torch.argmax(logits[i]))
            assert logits[i, token] > float("-inf")
            grammars[i].accept_token(token)
            outputs[i].append(token)
    return outputs


def test_batch_fill_and_apply_decode_valid_text(backend: Any) -> None:
    grammars = [
        backend.dispatch_json(json.dumps(City.model_json_schema())),
        backend.dispatch_regex(r"[a-c]{2}\d"),
        backend.dispatch_ebnf(typedgen_sglang.ebnf(typedgen.Choice("red", "green"))),
    ]
    outputs = _greedy(backend, grammars, steps=120)
    vocab = backend.vocabulary
    for grammar, tokens in zip(grammars, outputs, strict=True):
        assert grammar.is_terminated(), (grammar, tokens)
        text = vocab.decode([t for t in tokens if t not in vocab.eos_ids])
        fresh = grammar.copy()
        assert fresh.matcher.num_accepted == 0
        assert fresh.matcher.accept_bytes(text) and fresh.matcher.is_complete(), text
    City.model_validate_json(vocab.decode(outputs[0][:-1]))


def test_jump_forward_and_retokenize(backend: Any) -> None:
    grammar = backend.dispatch_json(json.dumps(City.model_json_schema()))
    helper = grammar.try_jump_forward(None)
    assert helper is not None
    text, _ = grammar.jump_forward_str_state(helper)
    assert text == '{"name":"'
    tokenizer = smollm2_tokenizer()
    ids = tokenizer.encode(text, add_special_tokens=False)
    grammar.jump_and_retokenize([], ids, -1)
    assert grammar.matcher.num_accepted == len(ids)
    grammar.jump_and_retokenize(ids, ids[:-1] + tokenizer.encode('"', add_special_tokens=False), -1)
    assert grammar.matcher.num_accepted == len(ids)
    with pytest.raises(ValueError, match="outside the grammar"):
        grammar.accept_token(tokenizer.encode("}", add_special_tokens=False)[0])


def test_invalid_constraints_become_invalid_grammar_objects(backend: Any) -> None:
    from sglang.srt.constrained.base_grammar_backend import InvalidGrammarObject

    bad = [
        backend.dispatch_json("{not json"),
        backend.dispatch_json(json.dumps({"type": "string", "pattern": "(?<=a)b"})),
        backend.dispatch_regex("(unclosed"),
        backend.dispatch_ebnf("root ::= undefined_rule"),
        backend.dispatch_structural_tag("{}"),
    ]
    for grammar in bad:
        assert isinstance(grammar, InvalidGrammarObject), grammar
        assert "typedgen" in grammar.error_message

"""typedgen.LogitsProcessor inside transformers' own model.generate (batches and beams)."""

from __future__ import annotations

import json

import jsonschema
import pytest

import typedgen
from tests.decoding.test_loop import SCHEMA
from typedgen.models import LoadedModel

transformers = pytest.importorskip("transformers")


def _generate(tiny: LoadedModel, prompts: list[str], **kwargs: object) -> list[str]:
    tokenizer = tiny.tokenizer
    tokenizer.padding_side = "left"
    inputs = tokenizer(prompts, return_tensors="pt", padding=True)
    processor = typedgen.LogitsProcessor(typedgen.compile(SCHEMA, tiny.vocabulary))
    eos = sorted(tiny.vocabulary.eos_ids)
    out = tiny.model.generate(
        **inputs,
        logits_processor=transformers.LogitsProcessorList([processor]),
        max_new_tokens=120,
        eos_token_id=eos,
        pad_token_id=eos[0],
        **kwargs,
    )
    texts = []
    for row in out[:, inputs["input_ids"].shape[1] :].tolist():
        tokens = [t for t in row if t not in tiny.vocabulary.eos_ids]
        texts.append(tiny.vocabulary.decode(tokens).decode("utf-8"))
    return texts


@pytest.mark.parametrize(
    "kwargs",
    [
        {"do_sample": False},
        {"do_sample": True, "temperature": 1.3, "top_k": 0},
        {"do_sample": False, "num_beams": 3},
    ],
    ids=["greedy", "sampled", "beams"],
)
def test_generate_under_the_processor_validates(tiny: LoadedModel, kwargs: dict) -> None:
    for text in _generate(tiny, ["a person", "somebody else, with a longer prompt"], **kwargs):
        jsonschema.validate(json.loads(text), SCHEMA)


def test_processor_agrees_with_the_loop(tiny: LoadedModel) -> None:
    (text,) = _generate(tiny, ["a person"], do_sample=False)
    compiled = typedgen.compile(SCHEMA, tiny.vocabulary)
    from typedgen.decoding.loop import DecodeOptions, Decoder

    ids = tiny.tokenizer("a person")["input_ids"]
    decoder = Decoder(tiny, compiled, [ids], DecodeOptions(jump_forward="off"))
    (row,) = decoder.run()
    assert decoder.text(row) == text

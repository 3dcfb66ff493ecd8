"""Using typedgen inside transformers' own ``model.generate`` through a LogitsProcessor.

For code that already calls ``generate`` (beam search, its own sampling): compile the output type
for the model's vocabulary and pass ``typedgen.LogitsProcessor`` in ``logits_processor``.

Run: python examples/logits_processor.py
"""

from __future__ import annotations

import json

from transformers import LogitsProcessorList

import typedgen

SCHEMA = {
    "type": "object",
    "properties": {
        "planet": {"type": "string", "maxLength": 20},
        "moons": {"type": "integer", "minimum": 0, "maximum": 200},
    },
    "required": ["planet", "moons"],
    "additionalProperties": False,
}


def main() -> None:
    model = typedgen.load_model()
    compiled = typedgen.compile(SCHEMA, model.vocabulary)
    messages = [{"role": "user", "content": "How many moons does Mars have? Answer in JSON."}]
    inputs = model.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
    ).to(model.device)
    eos = sorted(model.vocabulary.eos_ids)
    output = model.model.generate(
        **inputs,
        logits_processor=LogitsProcessorList([typedgen.LogitsProcessor(compiled)]),
        num_beams=2,
        do_sample=False,
        max_new_tokens=60,
        eos_token_id=eos,
        pad_token_id=eos[0],
    )
    new = [t for t in output[0, inputs["input_ids"].shape[1] :].tolist() if t not in eos]
    text = model.vocabulary.decode(new).decode("utf-8")
    print(text)
    print(json.loads(text))


if __name__ == "__main__":
    main()

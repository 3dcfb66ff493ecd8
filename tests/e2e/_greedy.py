"""Greedy constrained decoding through typedgen's own loop, as the frontends' end-to-end harness."""

from __future__ import annotations

import typedgen
from typedgen.decoding.loop import DecodeOptions, Decoder
from typedgen.models import LoadedModel
from typedgen.prompts import encode_messages


def constrained_greedy(
    loaded: LoadedModel, compiled: typedgen.CompiledGrammar, prompt: str, max_tokens: int = 64
) -> tuple[str, bool]:
    """Greedy decode under the grammar; returns (text, finished with a complete sentence)."""
    ids = encode_messages(loaded.tokenizer, [{"role": "user", "content": prompt}])
    decoder = Decoder(loaded, compiled, [ids], DecodeOptions(max_tokens=max_tokens))
    (row,) = decoder.run()
    return decoder.text(row), row.finished

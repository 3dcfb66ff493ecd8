"""Each frontend end to end on the real default model (SmolLM2-135M-Instruct, CPU or GPU).

The model greedily decodes under the compiled mask; every output must finish within its budget
and be accepted by an independent oracle (json.loads, lark's parser, re.fullmatch).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import lark
import pytest

import typedgen
from tests.e2e._greedy import constrained_greedy
from typedgen.ir import Grammar
from typedgen.models import LoadedModel

pytestmark = pytest.mark.model
GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"


def _run(loaded: LoadedModel, grammar: Grammar, prompt: str, max_tokens: int = 64) -> str:
    compiled = typedgen.compile(grammar, loaded.vocabulary)
    text, finished = constrained_greedy(loaded, compiled, prompt, max_tokens)
    assert finished, f"no EOS within {max_tokens} tokens: {text!r}"
    return text


def test_gbnf_json_object(loaded: LoadedModel) -> None:
    grammar = Grammar.from_gbnf(
        'root ::= "{\\"name\\": \\"" [A-Za-z ]{1,20} "\\", \\"age\\": " [0-9]{1,3} "}"'
    )
    text = _run(loaded, grammar, "Describe a cat as JSON with its name and age.")
    value = json.loads(text)
    assert set(value) == {"name", "age"} and isinstance(value["age"], int)


def test_gbnf_llama_cpp_json(loaded: LoadedModel) -> None:
    grammar = Grammar.from_gbnf((GRAMMARS / "json.gbnf").read_text())
    text = _run(loaded, grammar, 'Reply with the JSON object {"ok": true} and nothing else.', 48)
    assert isinstance(json.loads(text), dict)


def test_lark_arithmetic(loaded: LoadedModel) -> None:
    source = (GRAMMARS / "calc.lark").read_text()
    text = _run(loaded, Grammar.from_lark(source), "Write the arithmetic expression 2 + 3 * 4.", 24)
    lark.Lark(source, parser="lalr").parse(text)


def test_regex_phone_number(loaded: LoadedModel) -> None:
    pattern = r"\(\d{3}\) \d{3}-\d{4}"
    text = _run(loaded, Grammar.from_regex(pattern), "Give a US phone number.", 24)
    assert re.fullmatch(pattern, text)


def test_choice_sentiment(loaded: LoadedModel) -> None:
    options = ["positive", "negative", "neutral"]
    text = _run(
        loaded,
        Grammar.from_choice(options),
        "Is the sentiment of 'I love this movie!' positive, negative or neutral?",
        8,
    )
    assert text in options

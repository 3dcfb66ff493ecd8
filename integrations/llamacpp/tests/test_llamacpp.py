"""typedgen inside llama-cpp-python on the bundled SmolLM2 GGUF file (no conversion).

The vocabulary read through llama.cpp must equal the one typedgen derives from the Hugging Face
tokenizer; generated tokens are replayed through an independent matcher; every value binds.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlglot
import typedgen
from pydantic import BaseModel, Field
from typedgen._bundled import smollm2_gguf_path, smollm2_tokenizer
from typedgen.dsl import v_args

import typedgen_llamacpp

llama_cpp = pytest.importorskip("llama_cpp")


class City(BaseModel):
    name: str = Field(max_length=30)
    country: str = Field(max_length=30)
    population_millions: int = Field(ge=0, le=50)


SQL = typedgen.Sql("sqlite", schema={"singer": ["singer_id", "name", "country", "age"]})
SQL_SYSTEM = "You write one short SQLite query."
SQL_PROMPT = "Table singer(singer_id, name, country, age): names of singers older than 30."


class Robot(typedgen.DSL):
    """Robot programs, one command per line, at most four."""

    grammar = r"""
        start: command ("\n" command)~0..3
        command: "move " STEPS   -> move
               | "turn " SIDE    -> turn
        STEPS: /[1-9]/
        SIDE: "left" | "right"
    """

    def start(self, actions: list[tuple[str, object]]) -> list[tuple[str, object]]:
        return actions

    @v_args(inline=True)
    def move(self, steps: str) -> tuple[str, object]:
        return ("move", int(steps))

    @v_args(inline=True)
    def turn(self, side: str) -> tuple[str, object]:
        return ("turn", str(side))


ROBOT_PROMPT = (
    "Commands, one per line: move N, turn left, turn right. Program: move 3 steps, turn left,"
    " then move 2 steps."
)


@pytest.fixture(scope="module")
def llama() -> Any:
    """The bundled GGUF file, loaded with llama.cpp's CPU weight repacking off.

    llama-cpp-python 0.3.36 built here (an AVX-512/AMX CPU) segfaults in ``llama_decode`` on any
    batch of more than one token when weights are repacked (``use_extra_bufts``, on by default;
    reproduced without typedgen by a plain ``create_completion``), so the model parameters are
    taken with it off.
    """
    defaults = llama_cpp.llama_model_default_params

    def no_repack() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(llama_cpp.llama.llama_cpp, "llama_model_default_params", no_repack)
        return llama_cpp.Llama(
            str(smollm2_gguf_path()), n_ctx=2048, n_threads=2, seed=0, verbose=False
        )


def test_vocabulary_matches_the_hf_tokenizer(llama: Any) -> None:
    ours = typedgen_llamacpp.vocabulary(llama)
    reference = typedgen.Vocabulary.from_tokenizer(smollm2_tokenizer())
    assert ours.size == reference.size
    text = [i for i in range(ours.size) if i not in reference.special_ids]
    assert all(ours.tokens[i] == reference.tokens[i] for i in text)
    assert ours.eos_ids and ours.eos_ids <= reference.special_ids


def _replay(llama: Any, output_type: object, text: str) -> None:
    matcher = typedgen.compile(output_type, typedgen_llamacpp.vocabulary(llama)).matcher()
    assert matcher.accept_bytes(text.encode("utf-8")) and matcher.is_complete(), text


def test_pydantic(llama: Any) -> None:
    result = typedgen_llamacpp.generate(llama, City, "Describe Paris as JSON.", return_details=True)
    assert isinstance(result.value, City)
    assert City.model_validate_json(result.text) == result.value
    _replay(llama, City, result.text)


def test_sql(llama: Any) -> None:
    value = typedgen_llamacpp.generate(llama, SQL, SQL_PROMPT, system=SQL_SYSTEM, max_tokens=120)
    assert isinstance(value, sqlglot.exp.Expression)
    # With a schema the query may name its own WITH tables (Sql's ctes default); every other
    # table is the schema's.
    ctes = {cte.alias for cte in value.find_all(sqlglot.exp.CTE)}
    assert {t.name for t in value.find_all(sqlglot.exp.Table)} - ctes == {"singer"}


def test_dsl(llama: Any) -> None:
    value = typedgen_llamacpp.generate(llama, Robot, ROBOT_PROMPT, max_tokens=60)
    assert value and all(a in ("move", "turn") for a, _ in value)


def test_processor_in_create_completion(llama: Any) -> None:
    processor = typedgen_llamacpp.LogitsProcessor.for_type(
        typedgen.Regex(r"[0-9]{3}-[0-9]{4}"), llama
    )
    out = llama.create_completion(
        "A phone number:", max_tokens=20, temperature=0.8, seed=3,
        logits_processor=llama_cpp.LogitsProcessorList([processor]),
    )  # fmt: skip
    text = out["choices"][0]["text"]
    assert out["choices"][0]["finish_reason"] == "stop"
    assert len(text) == 8 and text[3] == "-" and text.replace("-", "").isdigit(), text


def test_gbnf_grammar_where_exact(llama: Any) -> None:
    value = typedgen_llamacpp.generate(llama, City, "Describe Lima as JSON.", via="grammar")
    assert isinstance(value, City)
    with pytest.raises(typedgen.UnsupportedFeatureError) as info:
        typedgen_llamacpp.llama_grammar(Robot)
    assert info.value.code == "export-lexing"
    assert typedgen_llamacpp.llama_grammar(Robot, approximate=True) is not None


def test_validators_retry(llama: Any) -> None:
    calls: list[City] = []

    def second_time(city: City) -> None:
        calls.append(city)
        if len(calls) == 1:
            raise ValueError("give the metropolitan population")

    result = typedgen_llamacpp.generate(
        llama, City, "Describe Paris as JSON.", validators=[second_time], return_details=True
    )
    assert len(result.attempts) == 2 and "metropolitan" in (result.attempts[0].error or "")


def test_overhead_is_reported(llama: Any) -> None:
    """Not a timing assertion (house rule 9): measures and prints the per-token overhead."""
    prompt = [{"role": "user", "content": "Describe Paris as JSON."}]
    compiled = typedgen.compile(City, typedgen_llamacpp.vocabulary(llama))

    def run(constrained: bool) -> tuple[int, float]:
        extra: dict[str, Any] = {}
        if constrained:
            extra["logits_processor"] = llama_cpp.LogitsProcessorList(
                [typedgen_llamacpp.LogitsProcessor(compiled)]
            )
        start = time.perf_counter()
        out = llama.create_chat_completion(prompt, max_tokens=60, temperature=0, **extra)
        return int(out["usage"]["completion_tokens"]), time.perf_counter() - start

    run(True)
    plain = run(False)
    typed = run(True)
    print(
        f"\nllama-cpp-python: unconstrained {plain[0] / plain[1]:.1f} tok/s,"
        f" typedgen {typed[0] / typed[1]:.1f} tok/s"
    )
    assert plain[0] > 0 and typed[0] > 0

"""The decoding loop on the real SmolLM2 tokenizer and a tiny random model.

A random model wanders into every corner the grammar allows, which is the point: every output,
under any sampling settings and seeds, must parse and validate with an independent oracle.
"""

from __future__ import annotations

import json
import re

import jsonschema
import lark
import pytest

import typedgen
from typedgen.decoding.loop import DecodeOptions, Decoder
from typedgen.decoding.sampling import SamplingParams
from typedgen.models import LoadedModel
from typedgen.prompts import encode_messages

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "tags": {"type": "array", "items": {"enum": ["a", "bb", "ccc"]}, "maxItems": 3},
        "ok": {"type": "boolean"},
        "score": {"type": "integer", "minimum": -5, "maximum": 5},
    },
    "required": ["name", "age", "tags", "ok"],
    "additionalProperties": False,
}
CALC = r"""
start: term (OP term)~0..3
term: NUMBER | "(" NUMBER (OP NUMBER)~0..2 ")"
OP: "+" | "-" | " * "
NUMBER: /[1-9][0-9]{0,2}/
"""
SETTINGS = [
    SamplingParams(),
    SamplingParams(temperature=1.0, seed=1),
    SamplingParams(temperature=0.7, top_k=5, seed=2),
    SamplingParams(temperature=1.5, top_p=0.9, seed=3),
    SamplingParams(temperature=2.0, top_k=50, top_p=0.5, seed=4),
]


def _ids(model: LoadedModel, prompt: str) -> list[int]:
    return encode_messages(model.tokenizer, [{"role": "user", "content": prompt}])


def _decode(
    model: LoadedModel, output_type: object, prompts: list[str], **options: object
) -> list[str]:
    compiled = typedgen.compile(output_type, model.vocabulary)
    decoder = Decoder(model, compiled, [_ids(model, p) for p in prompts], DecodeOptions(**options))
    rows = decoder.run()
    for row in rows:
        assert row.error is None, row.error
        assert row.matcher.is_complete()
    return [decoder.text(row) for row in rows]


@pytest.mark.parametrize("sampling", SETTINGS, ids=repr)
def test_schema_outputs_validate(tiny: LoadedModel, sampling: SamplingParams) -> None:
    for text in _decode(tiny, SCHEMA, ["a person", "another one"], sampling=sampling):
        jsonschema.validate(json.loads(text), SCHEMA)


@pytest.mark.parametrize("sampling", SETTINGS, ids=repr)
def test_lark_outputs_parse(tiny: LoadedModel, sampling: SamplingParams) -> None:
    parser = lark.Lark(CALC, parser="earley")
    for text in _decode(tiny, typedgen.Lark(CALC), ["sum", "product"], sampling=sampling):
        parser.parse(text)


@pytest.mark.parametrize("seed", range(4))
def test_regex_outputs_match(tiny: LoadedModel, seed: int) -> None:
    pattern = r"(\d{4}-\d{2}-\d{2})(, \d{4}-\d{2}-\d{2}){0,2}"
    sampling = SamplingParams(temperature=1.0, seed=seed)
    for text in _decode(tiny, typedgen.Regex(pattern), ["dates"], sampling=sampling):
        assert re.fullmatch(pattern, text), text


@pytest.mark.parametrize("sampling", SETTINGS[:3], ids=repr)
def test_exact_jump_forward_changes_nothing_but_passes(
    tiny: LoadedModel, sampling: SamplingParams
) -> None:
    compiled = typedgen.compile(SCHEMA, tiny.vocabulary)
    runs = {}
    for jump in ("off", "exact"):
        decoder = Decoder(
            tiny, compiled, [_ids(tiny, "x")], DecodeOptions(sampling=sampling, jump_forward=jump)
        )
        (row,) = decoder.run()
        runs[jump] = (row.tokens, decoder.forward_passes, row.forced)
    assert runs["exact"][0] == runs["off"][0]  # the same tokens, hence the same text
    assert runs["off"][2] == 0
    assert runs["exact"][2] > 0  # the fixed keys were taken as drafts
    # One pass saved per forced token (less one when the output ends on a forced token: plain
    # decoding then skips the EOS-only step, jump-forward samples EOS in the draft's pass).
    saved = runs["off"][1] - runs["exact"][1]
    assert saved in (runs["exact"][2], runs["exact"][2] - 1)


@pytest.mark.parametrize("sampling", SETTINGS[:3], ids=repr)
def test_forced_jump_forward_spells_forced_bytes_canonically(
    tiny: LoadedModel, sampling: SamplingParams
) -> None:
    compiled = typedgen.compile(SCHEMA, tiny.vocabulary)
    options = DecodeOptions(sampling=sampling, jump_forward="force")
    decoder = Decoder(tiny, compiled, [_ids(tiny, "x")], options)
    (row,) = decoder.run()
    text = decoder.text(row)
    jsonschema.validate(json.loads(text), SCHEMA)
    plain_options = DecodeOptions(sampling=sampling, jump_forward="off")
    plain = Decoder(tiny, compiled, [_ids(tiny, "x")], plain_options)
    (plain_row,) = plain.run()
    # Every forced key cost no forward pass of its own.
    assert row.forced > 0
    assert decoder.forward_passes == row.sampled + 1 or decoder.forward_passes == row.sampled
    assert decoder.forward_passes < plain.forward_passes
    assert plain_row.matcher.is_complete()


def test_forced_jump_forward_re_spells_the_boundary(tiny: LoadedModel) -> None:
    # After the sampled closing quote of "name", the grammar forces ',"age":'; the sampled '"'
    # and the forced bytes are tokenised together, as the tokenizer would spell '","age":'.
    schema = {
        "type": "object",
        "properties": {"name": {"enum": ["ab", "cd"]}, "age": {"enum": [1, 2]}},
        "required": ["name", "age"],
        "additionalProperties": False,
    }
    compiled = typedgen.compile(schema, tiny.vocabulary)
    decoder = Decoder(tiny, compiled, [_ids(tiny, "x")], DecodeOptions(jump_forward="force"))
    (row,) = decoder.run()
    text = decoder.text(row)
    assert json.loads(text)["name"] in {"ab", "cd"}
    assert tiny.vocabulary.decode(row.tokens) == text.encode()
    encoded = tiny.tokenizer.encode(text, add_special_tokens=False)
    assert row.tokens == encoded  # every forced run is spelled the tokenizer's way


def test_batch_agrees_with_single_rows(tiny: LoadedModel) -> None:
    prompts = ["a", "a much longer prompt with many more tokens in it", "mid length prompt"]
    batch = _decode(tiny, SCHEMA, prompts)
    singles = [_decode(tiny, SCHEMA, [p])[0] for p in prompts]
    assert batch == singles
    seeded = SamplingParams(temperature=1.0, seed=7)
    batch = _decode(tiny, SCHEMA, prompts, sampling=seeded)
    # Row r of a seeded batch draws from its own stream, so it matches a batch where it is row r.
    for r, prompt in enumerate(prompts):
        padded = ["z"] * r + [prompt]
        assert _decode(tiny, SCHEMA, padded, sampling=seeded)[r] == batch[r]


def test_batch_with_and_without_jump_forward(tiny: LoadedModel) -> None:
    prompts = ["one", "two words here", "three"]
    plain = _decode(tiny, SCHEMA, prompts, jump_forward="off")
    assert _decode(tiny, SCHEMA, prompts, jump_forward="exact") == plain
    # Forced jump-forward in a batch agrees with forced jump-forward row by row.
    forced = _decode(tiny, SCHEMA, prompts, jump_forward="force")
    assert forced == [_decode(tiny, SCHEMA, [p], jump_forward="force")[0] for p in prompts]


def test_overlap_off_gives_the_same_result(tiny: LoadedModel) -> None:
    assert _decode(tiny, SCHEMA, ["q"], overlap=False) == _decode(tiny, SCHEMA, ["q"])


def test_max_tokens_raises_with_the_partial_text(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(SCHEMA, tiny)
    with pytest.raises(typedgen.IncompleteOutputError) as info:
        generator("x", max_tokens=5)
    error = info.value
    assert error.partial_text.startswith('{"name":')
    assert error.expected
    assert "max_tokens=5" in str(error)


def test_complete_at_max_tokens_is_a_result(tiny: LoadedModel) -> None:
    # Any number of digits is a sentence: at the budget the text is complete, not an error.
    text = typedgen.Generator(typedgen.Regex(r"[0-9]+"), tiny)("digits", max_tokens=4)
    assert re.fullmatch(r"[0-9]+", text)


def test_sampling_params_are_checked() -> None:
    with pytest.raises(typedgen.OptionError, match="temperature") as bad:
        SamplingParams(temperature=-1)
    assert bad.value.code == "option-value" and isinstance(bad.value, ValueError)
    with pytest.raises(ValueError, match="top_p"):
        SamplingParams(top_p=0)
    with pytest.raises(ValueError, match="top_k"):
        SamplingParams(top_k=0)


UNBOUNDED = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "n": {"type": "integer"},
    },
    "required": ["name", "tags", "n"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("max_tokens", [16, 24, 40])
def test_finish_closes_the_output_within_the_budget(tiny: LoadedModel, max_tokens: int) -> None:
    generator = typedgen.Generator(UNBOUNDED, tiny)
    with pytest.raises(typedgen.IncompleteOutputError):  # the random model never stops the name
        generator("x", max_tokens=max_tokens)
    # Without the loop guard every decoded token is in the output (the guard's rollbacks decode
    # more than the output holds: tests/decoding/test_loops.py).
    details = generator(
        "x", max_tokens=max_tokens, on_max_tokens="finish", loop_guard=False, return_details=True
    )
    jsonschema.validate(details.value, UNBOUNDED)
    assert details.closed_early
    assert details.sampled_tokens + details.forced_tokens <= max_tokens
    guarded = generator("x", max_tokens=max_tokens, on_max_tokens="finish", return_details=True)
    jsonschema.validate(guarded.value, UNBOUNDED)
    assert guarded.sampled_tokens + guarded.forced_tokens <= 2 * max_tokens


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_finish_closes_sql(tiny: LoadedModel, dialect: str) -> None:
    # Closed SQL parses, within the budget (deep states: tests/runtime/test_completion.py).
    sqlglot = pytest.importorskip("sqlglot")
    generator = typedgen.Generator(typedgen.Sql(dialect), tiny)
    closed = 0
    # Without the loop guard every decoded token is in the output (its rollbacks decode more).
    # With 8 and 10 tokens the random model's leading whitespace leaves too few to end a query.
    for prompt, budget in [("x", 8), ("q", 10), ("z", 16), ("with a cte", 32)]:
        details = generator(
            prompt,
            max_tokens=budget,
            on_max_tokens="finish",
            loop_guard=False,
            return_details=True,
        )
        assert isinstance(details.value, sqlglot.exp.Expression)
        sqlglot.parse_one(details.text, read=dialect)
        assert details.sampled_tokens + details.forced_tokens <= budget
        closed += details.closed_early
    assert closed >= 1  # not vacuous: some budget ran out before the query could end


def test_finish_still_raises_when_no_completion_fits(tiny: LoadedModel) -> None:
    # '{"name":"' is 3 tokens and the shortest completion after it 11 more: 12 cannot fit.
    with pytest.raises(typedgen.IncompleteOutputError):
        typedgen.generate(UNBOUNDED, "x", model=tiny, max_tokens=12, on_max_tokens="finish")


def test_shortest_completion(smollm2_vocab: typedgen.Vocabulary) -> None:
    compiled = typedgen.compile(UNBOUNDED, smollm2_vocab)
    cases = {
        "": b'{"name":"","tags":[""],"n":0}',
        '{"name":"abc': b'","tags":[""],"n":0}',
        '{"name":"x","tags":["a"],"n":12': b"}",
    }
    for prefix, tail in cases.items():
        matcher = compiled.matcher()
        assert matcher.accept_bytes(prefix.encode())
        assert matcher.shortest_completion() == tail
        assert matcher.accept_bytes(tail) and matcher.is_complete()


def test_decoding_ends_where_only_whitespace_may_follow(tiny: LoadedModel) -> None:
    # After the output only whitespace may follow (as after SQL's closing ';'); the random
    # model would spend tokens on it (up to the grammar's bound) before choosing EOS. Decoding
    # ends where the output is.
    grammar = typedgen.Lark('start: ("a" | "b;") TRAIL?\nTRAIL: /[ \\t\\n]{1,40}/\n')
    texts = _decode(tiny, grammar, ["x", "y", "with some whitespace"], max_tokens=64)
    assert texts and all(t.rstrip() == t for t in texts), texts
    assert all(t in ("a", "b;") for t in texts), texts


WIDE = {
    "type": "object",
    "properties": {f"key_{i:02d}": {"type": "string"} for i in range(30)},
    "required": [f"key_{i:02d}" for i in range(30)],
    "additionalProperties": False,
}


def test_finish_closes_when_the_completion_is_longer_than_the_usual_window(
    tiny: LoadedModel,
) -> None:
    # The 30 required keys take 182 tokens to close from the start: past CLOSE_WINDOW, so the
    # search starts that much earlier and the budget of 200 still closes a valid object.
    from typedgen.decoding.loop import CLOSE_WINDOW, Speller, completion_need

    generator = typedgen.Generator(WIDE, tiny)
    need = completion_need(generator.compiled().matcher(), Speller(tiny.tokenizer, tiny.vocabulary))
    assert CLOSE_WINDOW < need < 200
    details = generator(
        "x", max_tokens=200, on_max_tokens="finish", loop_guard=False, return_details=True
    )
    jsonschema.validate(details.value, WIDE)
    assert details.closed_early and details.sampled_tokens + details.forced_tokens <= 200
    with pytest.raises(typedgen.IncompleteOutputError):  # no completion fits in 170
        generator("x", max_tokens=170, on_max_tokens="finish", loop_guard=False)

"""The loop guard: free-text states of both engines, repetition detection, and the guard on the
tiny model (which, greedy, repeats one word inside a string until the budget ends)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

import typedgen
from typedgen.compiler.grammar_compiler import Compiler
from typedgen.decoding.loops import (
    DIGIT_RUN_BYTES,
    PHRASE_TOKENS,
    LoopGuard,
    Repetition,
    closing_bytes,
    digit_run,
    find_repetition,
    inside_free_text,
    long_run,
    loop_guard_from,
    run_start,
    tokens_spelling_prefix,
    trailing_digits,
)
from typedgen.models import LoadedModel

STRING_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "n": {"type": "integer", "minimum": 0, "maximum": 99}},
    "required": ["a", "n"],
    "additionalProperties": False,
}
WORDS_SCHEMA = {"type": "array", "items": {"enum": ["stop", "go"]}}


def _compiled(schema: Any, vocab: typedgen.Vocabulary, engine: str) -> typedgen.CompiledGrammar:
    grammar = typedgen.ir.Grammar.from_json_schema(schema)
    return Compiler(engine=engine, disk_cache=False).compile(grammar, vocab)


def _kinds(compiled: typedgen.CompiledGrammar, text: bytes) -> str:
    matcher = compiled.matcher()
    out = []
    for b in text:
        assert matcher.accept_bytes(bytes((b,)))
        out.append("F" if matcher.in_free_text() else "L" if matcher.inside_lexeme() else ".")
    return "".join(out)


@pytest.mark.parametrize("engine", ["native", "python"])
def test_free_text_states(smollm2_vocab: typedgen.Vocabulary, engine: str) -> None:
    compiled = _compiled(STRING_SCHEMA, smollm2_vocab, engine)
    text = b'{"a":"ab\\"c d","n":12}'
    kinds = _kinds(compiled, text)
    # Keys are literals, the number is no free text; the string body is, the escape is inside
    # the lexeme (no boundary there), and the closing quote ends it.
    free = "".join("F" if k == "F" else "-" for k in kinds)
    assert free == "-----FFF-FFFF" + "-" * 9, kinds
    assert kinds[8] == "L" and kinds[13] == "."


def test_both_engines_agree_on_text_kinds(smollm2_vocab: typedgen.Vocabulary) -> None:
    sql = typedgen.Sql("sqlite", schema={"t": ["name", "age"]})
    texts = {
        "json": (STRING_SCHEMA, b'{"a":"embed_embed_embed x","n":7}'),
        "words": (WORDS_SCHEMA, b'["stop","stop","go"]'),
    }
    for schema, text in texts.values():
        native = _kinds(_compiled(schema, smollm2_vocab, "native"), text)
        python = _kinds(_compiled(schema, smollm2_vocab, "python"), text)
        assert native == python
    sql_text = b"SELECT name FROM t WHERE name = 'x  y' -- c"[:-5]
    grammar = typedgen.grammar_of(sql)
    kinds = {
        engine: _kinds(
            Compiler(engine=engine, disk_cache=False).compile(grammar, smollm2_vocab), sql_text
        )
        for engine in ("native", "python")
    }
    assert kinds["native"] == kinds["python"]
    assert "F" in kinds["native"]  # the string literal's body


def test_find_repetition() -> None:
    guard = LoopGuard(repeats=3, max_unit=4)
    assert find_repetition([1, 2, 3], guard) is None
    assert find_repetition([9, 5, 5, 5], guard) == Repetition((5,), 3, 1)
    assert find_repetition([7, 1, 2, 1, 2, 1, 2], guard) == Repetition((1, 2), 3, 1)
    assert find_repetition([1, 2, 1, 2, 1, 2, 3], guard) is None  # must end the tokens
    assert find_repetition([1, 2, 3, 4, 5] * 3, guard) is None  # unit longer than max_unit


def test_find_repetition_of_a_phrase() -> None:
    # A unit of PHRASE_TOKENS or more counts at its second occurrence (the caller then needs
    # free text and phrase_bytes); shorter units still need `repeats`.
    guard = LoopGuard()
    phrase = list(range(10, 10 + PHRASE_TOKENS))
    assert find_repetition([9, *phrase, *phrase], guard) == Repetition(tuple(phrase), 2, 1)
    assert find_repetition([9, *phrase[:-1], *phrase[:-1]], guard) is None
    assert find_repetition([9, *phrase, *phrase], LoopGuard(phrase_bytes=0)) is None
    assert find_repetition([9, 5, 6, 5, 6, 5, 6], guard) == Repetition((5, 6), 3, 1)


def test_loop_guard_options() -> None:
    assert loop_guard_from(True) == LoopGuard()
    assert loop_guard_from(False) is None
    assert loop_guard_from("close") == LoopGuard(action="close")
    with pytest.raises(typedgen.OptionError):
        LoopGuard(action="stop")
    with pytest.raises(typedgen.OptionError):
        loop_guard_from(3)


def test_inside_free_text_sees_lexeme_boundaries(smollm2_vocab: typedgen.Vocabulary) -> None:
    tok = smollm2_vocab
    for engine in ("native", "python"):
        words = _compiled(WORDS_SCHEMA, tok, engine).matcher()
        text = b'["stop","stop","stop","stop"'
        assert words.accept_bytes(text)
        # The repeated '"stop",' crosses lexemes: no free-text loop, whatever its length.
        assert not inside_free_text(words, b'"stop","stop","stop"', 1)
        strings = _compiled(STRING_SCHEMA, tok, engine).matcher()
        body = b"embed_embed_embed_"
        for piece in (b'{"a":"', body):  # two steps: the span is the last one
            assert strings.accept_bytes(piece)
        assert inside_free_text(strings, body, 1)


def test_tokens_spelling_prefix_against_a_scan(smollm2_vocab: typedgen.Vocabulary) -> None:
    compiled = typedgen.compile(typedgen.ir.Grammar.from_json_schema(STRING_SCHEMA), smollm2_vocab)
    unit = b" embedding"
    found = set(tokens_spelling_prefix(compiled.trie, unit).tolist())
    text_ids = set(smollm2_vocab.text_ids().tolist())
    expected = {
        t
        for t, piece in enumerate(smollm2_vocab.tokens)
        if piece and t in text_ids and unit.startswith(piece)
    }
    assert found == expected and len(found) > 2


def test_guard_ends_a_string_loop(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(STRING_SCHEMA, tiny, max_tokens=60)
    # Without the guard the tiny model repeats one word in the string until the budget ends.
    with pytest.raises(typedgen.IncompleteOutputError) as raised:
        generator("Write:", loop_guard=False)
    partial = raised.value.partial_text
    assert partial.startswith('{"a":"') and len(set(partial[6:].split())) <= 2
    details = generator("Write:", return_details=True)
    jsonschema.validate(details.value, STRING_SCHEMA)
    assert details.loops and details.loops[-1].action == "closed"
    assert all(e.repeats >= 3 and e.attempt == 0 for e in details.loops)
    # Closing rolled the last repetitions back to one unit.
    assert not details.value["a"].endswith(details.loops[-1].unit * 2)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_closing_ends_the_lexeme(engine: str, smollm2_vocab: Any) -> None:
    """A string's backslash starts an escape, so it closes nothing; the quote does."""
    if engine == "native":
        pytest.importorskip("typedgen._native")
    compiled = Compiler(engine=engine, disk_cache=False).compile(
        typedgen.grammar_of(STRING_SCHEMA), smollm2_vocab
    )
    matcher = compiled.matcher()
    assert matcher.accept_bytes(b'{"a":"word word word')
    assert closing_bytes(matcher) == frozenset(b'"')


@pytest.mark.parametrize("engine", ["python", "native"])
def test_closing_a_number_before_a_merged_brace(engine: str, smollm2_vocab: Any) -> None:
    """The inner object's last member ends both objects: the grammar lexes ``}}`` as one
    lexeme, so one ``}`` leaves a lexeme open, yet it ends the number (it was not a closer, and
    a runaway number in MCPspec/ClientNotification could not be closed)."""
    if engine == "native":
        pytest.importorskip("typedgen._native")
    schema = {
        "type": "object",
        "properties": {
            "p": {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
                "additionalProperties": False,
            }
        },
        "required": ["p"],
        "additionalProperties": False,
    }
    compiled = Compiler(engine=engine, disk_cache=False).compile(
        typedgen.grammar_of(schema), smollm2_vocab
    )
    matcher = compiled.matcher()
    assert matcher.accept_bytes(b'{"p":{"n":123')
    probe = matcher.fork()
    assert probe.accept_bytes(b"}") and probe.inside_lexeme()  # the case at hand
    assert closing_bytes(matcher) == frozenset(b"}")


def test_penalty_only_keeps_the_text_valid(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(STRING_SCHEMA, tiny, max_tokens=60, on_max_tokens="finish")
    details = generator("Write:", loop_guard=LoopGuard(action="penalty"), return_details=True)
    jsonschema.validate(details.value, STRING_SCHEMA)
    assert details.loops and {e.action for e in details.loops} == {"penalty"}
    off = generator("Write:", loop_guard=False, return_details=True)
    assert off.loops == () and off.text != details.text


def test_guard_leaves_repeated_list_items_alone(tiny: LoadedModel) -> None:
    schema = {"type": "array", "items": {"enum": ["stop"]}, "minItems": 6, "maxItems": 6}
    details = typedgen.Generator(schema, tiny)("commands", return_details=True)
    assert details.value == ["stop"] * 6
    assert details.loops == ()


def test_guard_penalises_a_long_run_of_one_short_item(
    smollm2_tokenizer: Any, smollm2_vocab: Any
) -> None:
    """``run_bytes``: a short item repeated until the run spans 48 bytes is penalised from
    there (an SQL ``IN (1, 1, 1, ...)``); a few repeats are left alone (above)."""
    from tests.decoding.conftest import tiny_model

    looping = tiny_model(smollm2_tokenizer, smollm2_vocab, seed=2)  # greedy: "go" 14 times
    schema = {"type": "array", "items": {"enum": ["stop", "go", "left"]}}
    generator = typedgen.Generator(schema, looping, max_tokens=60, on_max_tokens="finish")
    off = generator("Write:", loop_guard=LoopGuard(run_bytes=0), return_details=True)
    assert set(off.value) == {"go"} and len(off.value) > 8 and off.loops == ()
    details = generator("Write:", return_details=True)
    assert set(details.value) > {"go"}  # another item where the run reached 48 bytes
    unit = details.loops[0].unit.encode()
    assert {e.action for e in details.loops} == {"penalty"}
    assert details.loops[0].repeats == run_start(unit, LoopGuard()) == -(-48 // len(unit))
    assert details.value[: details.value.index("left")] == off.value[: details.value.index("left")]


def test_long_runs() -> None:
    assert long_run(b"1, ", b"1, " * 16, 48) and not long_run(b"1, ", b"1, " * 15, 48)
    assert not long_run(b")", b")" * 60, 48)  # punctuation alone
    assert not long_run(b"1, ", b"1, " * 30, 0)
    assert run_start(b"1, ", LoopGuard()) == 16 and run_start(b"x" * 40, LoopGuard()) == 3


NUMBER_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
    "additionalProperties": False,
}


def test_guard_closes_a_runaway_number(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(NUMBER_SCHEMA, tiny, max_tokens=40)
    # Without the guard the tiny model repeats one digit until the budget ends.
    with pytest.raises(typedgen.IncompleteOutputError) as raised:
        generator("Write:", loop_guard=False)
    digits = raised.value.partial_text.removeprefix('{"n":')
    assert digits.isdigit() and len(set(digits)) == 1 and len(digits) > DIGIT_RUN_BYTES
    details = generator("Write:", return_details=True)
    jsonschema.validate(details.value, NUMBER_SCHEMA)
    # Closed at once, back to the run's first unit; the number ends there.
    assert [e.action for e in details.loops] == ["closed"]
    assert details.value["n"] == int(digits[0])


def test_guard_ends_a_long_number(tiny: LoadedModel) -> None:
    """``number_digits``: once that many digits end the text, the next token ends the number,
    whether or not a unit repeats (here the bound is below the repetition rule's 16 digits)."""
    generator = typedgen.Generator(NUMBER_SCHEMA, tiny, max_tokens=40)
    details = generator("Write:", loop_guard=LoopGuard(number_digits=8), return_details=True)
    jsonschema.validate(details.value, NUMBER_SCHEMA)
    assert [(e.unit, e.action) for e in details.loops] == [("8 digits", "closed")]
    longest = max(len(p) for p in tiny.vocabulary.tokens if p.isdigit())
    assert 8 <= len(str(details.value["n"])) < 8 + longest
    off = generator("Write:", loop_guard=LoopGuard(number_digits=0), return_details=True)
    assert [e.unit for e in off.loops] != ["8 digits"]


def test_guard_leaves_a_digit_run_where_the_lexeme_cannot_end(tiny: LoadedModel) -> None:
    """A pattern that wants ``.`` after its digits: no byte ends the string there, so the rule
    steers the next token off the digits (``.``) instead."""
    schema = {"type": "string", "pattern": "^[0-9]+[.][0-9]{2}$"}
    generator = typedgen.Generator(schema, tiny, max_tokens=40)
    details = generator("Write:", loop_guard=LoopGuard(number_digits=8), return_details=True)
    jsonschema.validate(details.value, schema)
    whole = details.value.split(".")[0]
    longest = max(len(p) for p in tiny.vocabulary.tokens if p.isdigit())
    assert ("8 digits", "closed") in [(e.unit, e.action) for e in details.loops]
    assert 8 <= len(whole) < 8 + longest


def test_guard_closes_a_digit_run_where_the_pattern_is_met(tiny: LoadedModel) -> None:
    """A pattern that wants six digits: the lexeme cannot end after the run's first digit, so
    the guard closes at the first place in the run where it can (after the sixth), once; before,
    it rolled back to the first digit, the model wrote the same run again, and so on."""
    schema = {"type": "string", "pattern": "^[0-9]{6}"}
    generator = typedgen.Generator(schema, tiny, max_tokens=60)
    with pytest.raises(typedgen.IncompleteOutputError):
        generator("Write:", loop_guard=False)
    details = generator("Write:", return_details=True)
    jsonschema.validate(details.value, schema)
    assert details.value.isdigit() and len(details.value) == 6
    assert [e.action for e in details.loops] == ["closed"]


def test_guard_leaves_a_digit_run_no_place_of_which_can_close(tiny: LoadedModel) -> None:
    """No place in the repeated run may end the string (the pattern wants ``.`` and two
    digits): the run is kept and the next token steered off the digits, at once."""
    schema = {"type": "string", "pattern": "^[0-9]+[.][0-9]{2}$"}
    details = typedgen.Generator(schema, tiny, max_tokens=60)("Write:", return_details=True)
    jsonschema.validate(details.value, schema)
    whole = details.value.split(".")[0]
    assert len(whole) == DIGIT_RUN_BYTES and len(set(whole)) == 1
    assert [e.action for e in details.loops] == ["closed"]


def test_trailing_digits(smollm2_vocab: Any) -> None:
    pieces = smollm2_vocab.tokens
    ids = [smollm2_vocab.tokens.index(p) for p in (b"x", b":", b"1", b"2", b"3")]
    assert trailing_digits(ids, pieces, 99) == 3
    assert trailing_digits(ids, pieces, 2) == 2  # counted up to the limit
    assert trailing_digits(ids[:2], pieces, 99) == 0 and trailing_digits([], pieces, 5) == 0


def test_digit_runs() -> None:
    assert digit_run(b"0000") and digit_run(b"1212")
    assert not digit_run(b"") and not digit_run(b"12 12") and not digit_run(b"\xd9\xa1")


ITEMS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"enum": ["alpha", "beta", "gamma"]}, "qty": {"enum": [1, 2, 3]}},
        "required": ["name", "qty"],
        "additionalProperties": False,
    },
}


def test_guard_penalises_a_repeated_structure(tiny: LoadedModel) -> None:
    # The tiny model repeats one 23-byte item; the unit crosses lexemes, so it is penalised
    # (never closed) and the items vary; 7-byte items ('"stop",') stay alone (test above).
    generator = typedgen.Generator(ITEMS_SCHEMA, tiny, max_tokens=80, on_max_tokens="finish")
    off = generator("Write:", loop_guard=False, return_details=True)
    on = generator("Write:", return_details=True)
    item = {"name": "beta", "qty": 1}
    assert off.value[:6] == [item] * 6 and off.loops == ()
    for details in (off, on):
        jsonschema.validate(details.value, ITEMS_SCHEMA)
    assert on.loops and {e.action for e in on.loops} == {"penalty"}
    assert on.value[:3] == [item] * 3 and on.value[3] != item
    structural = LoopGuard(structure_bytes=0)
    assert generator("Write:", loop_guard=structural, return_details=True).loops == ()

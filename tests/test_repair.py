"""Repair at the faulty place: locating faults in JSON and SQL text, and the repair loop on the
tiny model (a rejected field is decoded again from its first token, the rest kept)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError, field_validator

import typedgen
from typedgen.models import LoadedModel
from typedgen.repair import json_value_span, locate, sql_column_faults


@pytest.fixture(scope="module")
def tiny(smollm2_tokenizer: Any, smollm2_vocab: Any) -> LoadedModel:
    from tests.decoding.conftest import tiny_model

    return tiny_model(smollm2_tokenizer, smollm2_vocab)


SCHEMA = {"singer": ["singer_id", "name", "age"], "concert": ["concert_id", "singer_id", "year"]}


def _values(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out = [(path, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _values(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _values(v, (*path, i))
    return out


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [true, null, "x\\"y"], "c": {"d": -2.5e3, "e": []}}',
        '[{"k": "v"}, [1, [2, {}]], "s"]',
        '{ "spaced" :\n  "out" , "n" : 0 }',
    ],
)
def test_json_value_spans_parse_to_the_value(text: str) -> None:
    """Oracle: json.loads of every located span equals the value at that path."""
    for path, value in _values(json.loads(text)):
        span = json_value_span(text, path)
        assert span is not None, path
        assert json.loads(text[span[0] : span[1]]) == value
    assert json_value_span(text, ("missing",)) is None
    assert json_value_span('{"a": ', ("a",)) is None


def test_sql_faults_name_the_column_and_the_table() -> None:
    sql = typedgen.Sql("sqlite", schema=SCHEMA)
    text = (
        "SELECT T2.name, T1.age FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    )
    faults = sql_column_faults(text, sql)
    assert [(f.place, text[f.start : f.end]) for f in faults] == [("T2.name", "name")]
    assert sql_column_faults("SELECT s.name FROM singer AS s", sql) == []
    missing = sql_column_faults("SELECT a FROM singers", sql)
    assert [(f.place, f.start) for f in missing] == [("singers", 14)]
    assert sql_column_faults("WITH x AS (SELECT name FROM singer) SELECT * FROM x", sql) == []


@pytest.mark.parametrize(
    ("text", "faulty"),
    [
        ("SELECT x.name FROM singer", ["x"]),
        ("SELECT a.b.name FROM singer WHERE a.b.age > 1", ["a", "a"]),
        ("SELECT s.name FROM singer AS s", []),
        ("SELECT singer.name FROM singer", []),
        ("SELECT d.n FROM (SELECT COUNT(*) AS n FROM singer) AS d", []),
        ("WITH w AS (SELECT name FROM singer) SELECT w.name FROM w", []),
        ("WITH w AS (SELECT name FROM singer) SELECT v.name FROM w AS v", []),
    ],
)
def test_sql_faults_name_unknown_qualifiers(text: str, faulty: list[str]) -> None:
    # A qualifier that names no table or alias of the query is wrong from its first part on.
    sql = typedgen.Sql("sqlite", schema=SCHEMA)
    faults = sql_column_faults(text, sql)
    assert [text[f.start : f.end] for f in faults] == faulty
    if faults:  # the oracle agrees: sqlglot's qualifier refuses the query
        with pytest.raises(typedgen.BindingError):
            sql.parse(text)
    else:
        sql.parse(text)


@pytest.mark.parametrize(
    ("text", "faulty"),
    [
        ("SELECT * FROM singer WHERE concert_id = 1", ["concert_id"]),
        ("SELECT year FROM singer JOIN concert ON 1 = 1", []),  # concert has it
        ("SELECT age AS a FROM singer WHERE a > 1", []),  # an output alias
        ("SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert)", []),
        ("SELECT age FROM concert WHERE year IN (SELECT age FROM singer)", ["age"]),
        ("SELECT COUNT(*) FROM concert WHERE year > (SELECT AVG(age) FROM singer)", []),
        ("SELECT concert_id FROM (SELECT * FROM concert)", []),  # a derived table: unknown
        ("WITH x AS (SELECT 1 AS z) SELECT z FROM x", []),  # a WITH name: unknown
    ],
)
def test_sql_faults_name_unqualified_columns_no_table_has(text: str, faulty: list[str]) -> None:
    # The schema check's "Column ... could not be resolved" for an unqualified name: the repair
    # can exclude the column at its place only when no source of its query (or an enclosing
    # one, for correlated subqueries) could supply it.
    sql = typedgen.Sql("sqlite", schema=SCHEMA)
    faults = sql_column_faults(text, sql)
    assert [text[f.start : f.end] for f in faults] == faulty
    if faults:  # the oracle agrees: sqlglot's qualifier refuses the query
        with pytest.raises(typedgen.BindingError, match="could not be resolved"):
            sql.parse(text)


def test_locate_pydantic_errors() -> None:
    class M(BaseModel):
        a: int
        b: list[int]

    text = '{"a": 1, "b": [1, "z"]}'
    with pytest.raises(ValidationError) as raised:
        M.model_validate_json(text)
    fault = locate(M, text, raised.value)
    assert fault is not None and fault.place == "b.1" and text[fault.start : fault.end] == '"z"'
    assert locate(M, text, ValueError("no place")) is None


class Pick(BaseModel):
    first: int = Field(ge=0, le=99)
    second: int = Field(ge=0, le=99)


def test_repair_redecodes_the_rejected_field_only(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(Pick, tiny)
    plain = generator("two numbers")
    bad = plain.second

    class Picky(Pick):
        @field_validator("second")
        @classmethod
        def not_that(cls, value: int) -> int:
            if value == bad:
                raise ValueError(f"not {bad}")
            return value

    details = typedgen.Generator(Picky, tiny)("two numbers", return_details=True)
    assert details.value.first == plain.first  # the good field was kept
    assert details.value.second != bad
    assert len(details.attempts) == 1  # no whole-output retry
    assert details.repairs and details.repairs[0].place == "second"
    assert details.repairs[0].excluded and str(bad).startswith(details.repairs[0].excluded.strip())
    # Without repairs, the whole output is retried instead.
    retried = typedgen.Generator(Picky, tiny)("two numbers", repairs=0, return_details=True)
    assert retried.repairs == () and len(retried.attempts) >= 2


def test_a_validator_may_name_the_place(tiny: LoadedModel) -> None:
    plain = typedgen.Generator(Pick, tiny)("two numbers", return_details=True)
    start = plain.text.index('"second":') + len('"second":')

    def reject_second_once(value: Pick) -> None:
        if value.second == plain.value.second:
            raise typedgen.Fault("pick another", start=start, end=len(plain.text) - 1, place="2nd")

    details = typedgen.Generator(Pick, tiny, validators=[reject_second_once])(
        "two numbers", return_details=True
    )
    assert details.repairs[0].place == "2nd" and details.value.second != plain.value.second

"""The grammar wire format (typedgen.ir.serial): every frontend's grammars round-trip to the same
canonical text and fingerprint, and malformed input raises GrammarError(code="ir") or the IR's
own validation error, never anything else."""

from __future__ import annotations

import base64
import json
import zlib
from enum import Enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

import typedgen
from typedgen.errors import GrammarError
from typedgen.ir import Grammar, Lit, Origin, Ref, Rule, Seq, serial


class Colour(Enum):
    RED = "red"
    GREEN = "green"


class Item(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{3}-\d{4}$")
    qty: int = Field(ge=1, le=99)


class Invoice(BaseModel):
    customer: str = Field(max_length=40)
    colour: Colour
    items: list[Item] = Field(max_length=5)
    note: str | None = None
    kind: Literal["a", "b"] = "a"


class Robot(typedgen.DSL):
    grammar = """
    start: command+
    command: "move" NUMBER ";" -> move
    %import common.NUMBER
    %import common.WS
    %ignore WS
    """


def _grammars() -> dict[str, Grammar]:
    found: dict[str, Grammar] = {
        f"library:{name}": typedgen.grammars.load(name) for name in typedgen.grammars.names()
    }
    found["pydantic"] = typedgen.grammar_of(Invoice)
    found["json-schema-loose"] = Grammar.from_json_schema(
        {"type": "array", "uniqueItems": True, "items": {"type": "integer"}}, strict=False
    )
    found["regex"] = Grammar.from_regex(r"\d{4}-\d{2}-\d{2}|[^\x00-\x1f]{1,3}")
    found["choice"] = Grammar.from_choice(["yes", "no", "maybe"])
    found["gbnf"] = Grammar.from_gbnf('root ::= "a" [^\\n]* | "b"{2,5} x\nx ::= [a-z]+')
    found["dsl"] = typedgen.grammar_of(Robot)
    found["sql-sqlite-schema"] = typedgen.grammar_of(
        typedgen.Sql("sqlite", schema={"singer": ["name", "age"], "concert": ["year"]})
    )
    found["sql-postgres"] = typedgen.grammar_of(typedgen.Sql("postgres"))
    found["bytes"] = Grammar([Rule("start", Seq((Lit(b"\xe2\x82"), Lit(b"\xac"))))], "start")
    return found


GRAMMARS = _grammars()


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_round_trip_keeps_canonical_text(name: str) -> None:
    grammar = GRAMMARS[name]
    text = serial.dumps(grammar)
    assert text.isascii() and text.startswith("tg1:")
    back = serial.loads(text)
    assert str(back) == str(grammar)
    assert back.fingerprint == grammar.fingerprint
    assert serial.from_data(json.loads(json.dumps(serial.to_data(grammar)))) == grammar


def test_origins_travel_only_when_asked() -> None:
    grammar = GRAMMARS["library:json"]
    with_origins = serial.loads(serial.dumps(grammar, origins=True))
    without = serial.loads(serial.dumps(grammar))
    for rule in grammar:
        assert with_origins[rule.name].origin == rule.origin
        assert with_origins[rule.name].body.origin == rule.body.origin
        assert without[rule.name].origin is None
    assert any(r.origin is not None for r in grammar)


def test_deferred_checks_survive() -> None:
    grammar = GRAMMARS["json-schema-loose"]
    assert grammar.deferred
    assert serial.loads(serial.dumps(grammar)).deferred == grammar.deferred


def test_compresses_large_grammars() -> None:
    grammar = GRAMMARS["sql-postgres"]
    assert len(serial.dumps(grammar)) < len(str(grammar)) / 2


def _pack(data: Any) -> str:
    raw = json.dumps(data).encode()
    return "tg1:" + base64.urlsafe_b64encode(zlib.compress(raw)).decode()


def _good() -> dict[str, Any]:
    return serial.to_data(Grammar([Rule("start", Ref("x")), Rule("x", Lit(b"a"))], "start"))


def _with_rule_body(body: Any) -> dict[str, Any]:
    data = _good()
    data["rules"][1]["body"] = body
    return data


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([], "top level"),
        ({**_good(), "format": "typedgen-grammar/0"}, "format"),
        ({**_good(), "rules": "x"}, "'rules'"),
        ({**_good(), "start": 3}, "'start'"),
        (_with_rule_body(["lit"]), "unknown expression"),
        (_with_rule_body(["lit", 5]), "a literal"),
        (_with_rule_body(["bytes", "%%%"]), "base64"),
        (_with_rule_body(["class", [[5]], False]), "malformed"),
        (_with_rule_body(["class", [[0x20, 0x10]], False]), "inverted"),
        (_with_rule_body(["class", [[1, 2]], 1]), "boolean"),
        (_with_rule_body(["repeat", ["lit", "a"], -1, None]), "negative"),
        (_with_rule_body(["repeat", ["lit", "a"], True, None]), "integer"),
        (_with_rule_body(["eval", "os.system('x')"]), "unknown expression"),
        (_with_rule_body([]), "empty expression"),
        (_with_rule_body({"lit": "a"}), "must be a list"),
    ],
)
def test_malformed_data_is_refused(data: Any, needle: str) -> None:
    with pytest.raises(GrammarError) as info:
        serial.loads(_pack(data))
    assert info.value.code == "ir"
    assert needle in str(info.value)


def test_validation_runs_on_load() -> None:
    data = _good()
    data["rules"][0]["body"] = ["ref", "missing"]
    with pytest.raises(GrammarError) as info:
        serial.loads(_pack(data))
    assert info.value.code == "undefined-rule"


@pytest.mark.parametrize("text", ["", "tg0:abc", "tg1:!!!", "tg1:" + "A" * 7, 42])
def test_garbage_text_is_refused(text: Any) -> None:
    with pytest.raises(GrammarError) as info:
        serial.loads(text)
    assert info.value.code == "ir"


def test_nesting_is_bounded() -> None:
    body: Any = ["lit", "a"]
    for _ in range(serial.MAX_DEPTH + 5):
        body = ["seq", [body]]
    with pytest.raises(GrammarError, match="nest deeper"):
        serial.loads(_pack(_with_rule_body(body)))


def test_inflation_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serial, "MAX_BYTES", 1000)
    data = _with_rule_body(["lit", "a" * 5000])
    with pytest.raises(GrammarError, match="inflates past"):
        serial.loads(_pack(data))


def test_origin_fields_are_checked() -> None:
    data = _good()
    data["rules"][1]["origin"] = ["x.lark", "one", None, None]
    with pytest.raises(GrammarError, match="line"):
        serial.from_data(data)
    data["rules"][1]["origin"] = ["x.lark", 1, 2, "p"]
    assert serial.from_data(data)["x"].origin == Origin("x.lark", 1, 2, "p")

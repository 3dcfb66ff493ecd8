"""Pydantic types through ``grammar_of``: realistic models round-trip through the grammar.

Soundness is checked by random walks through the masks on the real SmolLM2 vocabulary: every
completed walk must parse with ``model_validate_json``. Completeness by serialising instances.
"""

from __future__ import annotations

import enum
import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal

import pytest
from pydantic import AnyUrl, BaseModel, ConfigDict, EmailStr, Field

import typedgen
from tests._support import byte_vocabulary
from tests.frontends.jsonschema._walks import finished_walks
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import UnsupportedSchemaError


class LineItem(BaseModel):
    sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{3}$")]
    quantity: Annotated[int, Field(ge=1, le=99)]
    unit_cents: Annotated[int, Field(ge=0)]


class Invoice(BaseModel):
    reasoning: typedgen.Reasoning[200]
    customer: Annotated[str, Field(min_length=1, max_length=20)]
    issued: date
    items: Annotated[list[LineItem], Field(min_length=1, max_length=3)]
    paid: bool = False


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Node(BaseModel):
    name: Literal["a", "b", "c"]
    color: Color
    children: list[Node] = []


class Click(BaseModel):
    kind: Literal["click"]
    x: int
    y: int


class Scroll(BaseModel):
    kind: Literal["scroll"]
    delta: float


class Event(BaseModel):
    id: uuid.UUID
    at: datetime
    payload: Annotated[Click | Scroll, Field(discriminator="kind")]
    tags: set[Literal["x", "y"]] = set()
    note: str | None = None


class Contact(BaseModel):
    email: EmailStr
    site: AnyUrl
    age: Annotated[int, Field(ge=0, le=130)]
    code: Annotated[str, Field(pattern=r"^[A-Z]{2}\d{2}$")]
    opens: time
    wait: timedelta


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


MODELS: list[tuple[type[BaseModel], list[Any]]] = [
    (
        Contact,
        [
            Contact(
                email="ada@example.org",
                site=AnyUrl("https://example.org/x?y=1"),
                age=36,
                code="AB12",
                opens=time(9, 30, tzinfo=UTC),  # RFC 3339 times carry an offset
                wait=timedelta(minutes=5),
            )
        ],
    ),
    (
        Invoice,
        [
            Invoice(
                reasoning="two lines",
                customer="ACME",
                issued=date(2024, 2, 29),
                items=[LineItem(sku="ABC-123", quantity=2, unit_cents=150)],
            )
        ],
    ),
    (
        Node,
        [
            Node(
                name="a",
                color=Color.RED,
                children=[Node(name="b", color=Color.GREEN, children=[])],
            )
        ],
    ),
    (
        Event,
        [
            Event(
                id=uuid.UUID(int=7),
                at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
                payload=Click(kind="click", x=1, y=-2),
            ),
            Event(
                id=uuid.UUID(int=9),
                at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
                payload=Scroll(kind="scroll", delta=0.5),
                tags={"x"},
                note="n",
            ),
        ],
    ),
]


class Link(BaseModel):
    """Recursion through an Optional (anyOf [$ref, null]) rather than through a list."""

    value: int
    next: Link | None = None


MODELS.append(
    (
        Link,
        [Link(value=1), Link(value=1, next=Link(value=2, next=Link(value=3)))],
    )
)

VOCAB = byte_vocabulary()


def compiled(output_type: Any, vocab: typedgen.Vocabulary = VOCAB) -> CompiledGrammar:
    return typedgen.compile(output_type, vocab, cache=False)


def accepts(comp: CompiledGrammar, text: str) -> bool:
    m = comp.matcher()
    return m.accept_bytes(text.encode()) and m.is_complete()


@pytest.mark.parametrize(("model", "instances"), MODELS, ids=[m.__name__ for m, _ in MODELS])
def test_instances_are_accepted(model: type[BaseModel], instances: list[BaseModel]) -> None:
    comp = compiled(model)
    for inst in instances:
        text = inst.model_dump_json()
        assert accepts(comp, text), text


def test_reasoning_comes_first_and_is_bounded() -> None:
    grammar = typedgen.grammar_of(Invoice)
    comp = compiled(Invoice)
    item = '{"sku":"ABC-123","quantity":1,"unit_cents":0}'
    ok = '{"reasoning":"x","customer":"A","issued":"2024-01-01","items":[' + item + "]}"
    assert accepts(comp, ok)
    late = '{"customer":"A","reasoning":"x","issued":"2024-01-01","items":[]}'
    assert not accepts(comp, late)
    too_long = ok.replace('"x"', '"' + "y" * 201 + '"')
    assert not accepts(comp, too_long)
    assert "reasoning" in str(grammar)


def test_models_are_closed_to_extra_keys_unless_they_allow_them() -> None:
    assert not accepts(compiled(LineItem), '{"sku":"ABC-123","quantity":1,"unit_cents":0,"z":1}')
    assert accepts(compiled(Open), '{"a":1,"z":[true]}')


def test_constraints_are_enforced() -> None:
    comp = compiled(LineItem)
    assert not accepts(comp, '{"sku":"abc-123","quantity":1,"unit_cents":0}')
    assert not accepts(comp, '{"sku":"ABC-123","quantity":100,"unit_cents":0}')
    assert not accepts(comp, '{"sku":"ABC-123","quantity":0,"unit_cents":0}')


def test_set_uniqueness_is_left_to_pydantic() -> None:
    grammar = typedgen.grammar_of(Event)
    assert [d.keyword for d in grammar.deferred] == ["uniqueItems"]


def test_type_adapter_types() -> None:
    assert accepts(compiled(Literal["yes", "no"]), '"yes"')
    assert not accepts(compiled(Literal["yes", "no"]), '"maybe"')
    assert accepts(compiled(list[int]), "[1,2]")
    assert accepts(compiled(Color), '"green"')
    assert accepts(compiled(dict[str, int]), '{"a":1}')
    assert accepts(compiled(tuple[int, str]), '[1,"a"]')
    assert not accepts(compiled(tuple[int, str]), '[1,"a",2]')


def test_explain_lists_every_keyword() -> None:
    text = str(typedgen.explain(Event))
    assert "uniqueItems: checked after decoding" in text
    assert "#/$defs/Click/properties/x" in text or "Click" in text
    schema = {
        "type": "array",
        "uniqueItems": True,
        "items": {"type": "number", "multipleOf": 0.1},
    }
    explanation = typedgen.explain(schema)
    assert {v.keyword for v in explanation.refused} == {"uniqueItems", "multipleOf"}
    with pytest.raises(UnsupportedSchemaError):
        typedgen.grammar_of(schema)


@pytest.mark.parametrize(
    ("model", "at_least"),
    [(Invoice, 5), (Node, 5), (Event, 5), (Contact, 1)],  # Contact's URLs make walks long
    ids=lambda m: getattr(m, "__name__", str(m)),
)
def test_random_walks_validate(
    model: type[BaseModel], at_least: int, smollm2_vocab: typedgen.Vocabulary
) -> None:
    comp = compiled(model, smollm2_vocab)
    for text in finished_walks(comp, seed=1234, tries=40, limit=400, at_least=at_least):
        model.model_validate_json(text)  # raises if the grammar let anything invalid through


def test_recursion_through_optional_is_one_rule() -> None:
    grammar = typedgen.grammar_of(Link)
    assert sum(1 for rule in grammar if rule.name == "Link") == 1
    comp = compiled(Link)
    assert accepts(comp, '{"value":1,"next":{"value":2,"next":null}}')
    assert not accepts(comp, '{"value":1,"next":{"next":null}}')

"""The output-adapter table: every kind resolves to one adapter; third parties extend it.

Oracles: lark's own parser (a hook type's lark terminal inside a DSL), ``datetime.date``'s own
parser (a registered kind's binder), and the error codes of docs/errors.md.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

import lark
import pytest
from pydantic import BaseModel

import typedgen
from typedgen.binding import Binder
from typedgen.ir.grammar import Grammar
from typedgen.outputs import (
    Fragment,
    adapter_for,
    adapters,
    binder_for,
    fragment_for,
    is_json_output,
    lark_terminal_for,
    reasoning_keys_for,
)
from typedgen.types import EnumWords


class City(BaseModel):
    note: typedgen.Reasoning[40]
    name: str


class Robot(typedgen.DSL):
    grammar = 'start: "go " INT\n%import common.INT'

    def start(self, children: list[Any]) -> int:
        return int(children[0])


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


KINDS: list[tuple[object, str]] = [
    (Grammar.from_choice(["a"]), "grammar"),
    (typedgen.Lark('start: "a"'), "lark"),
    (typedgen.Gbnf('root ::= "a"'), "gbnf"),
    (typedgen.Regex("a+"), "regex"),
    (typedgen.Choice("a", "b"), "choice"),
    (EnumWords(Color), "enum-words"),
    (typedgen.JsonSchema({"type": "integer"}), "json-schema-options"),
    (typedgen.Sql("sqlite"), "sql"),
    (Robot, "hooks"),
    ({"type": "integer"}, "json-schema"),
    (True, "json-schema"),
    (City, "pydantic"),
    (Literal["x", "y"], "pydantic"),
    (list[int], "pydantic"),
    (Color, "pydantic"),
]


@pytest.mark.parametrize(("output_type", "kind"), KINDS, ids=[k for _, k in KINDS])
def test_each_kind_has_one_adapter(output_type: object, kind: str) -> None:
    assert adapter_for(output_type).name == kind
    accepting = [a.name for a in adapters() if a.accepts(output_type)]
    assert accepting[0] == kind
    assert isinstance(typedgen.grammar_of(output_type), Grammar)


def test_json_kinds_and_reasoning_keys() -> None:
    json_kinds = {k for t, k in KINDS if is_json_output(t)}
    assert json_kinds == {"json-schema-options", "json-schema", "pydantic"}
    assert reasoning_keys_for(City) == ("note",)
    assert reasoning_keys_for({"type": "object", "properties": {"a": {"type": "string"}}}) == ()
    assert reasoning_keys_for(typedgen.Choice("a")) == ()


def test_unknown_output_types_are_refused_by_code() -> None:
    with pytest.raises(typedgen.GrammarError) as bare:
        adapter_for("start: 'a'")
    assert bare.value.code == "ambiguous-output-type"
    for value in (object(), 3, None):
        with pytest.raises(typedgen.GrammarError) as raised:
            binder_for(value)
        assert raised.value.code == "unsupported-output-type"
        assert "OutputAdapter" in (raised.value.hint or "")


# -- a kind registered by a third party ---------------------------------------------------------


class DateAdapter(typedgen.OutputAdapter):
    """``datetime.date`` itself as an output type: ISO text, bound by ``date.fromisoformat``."""

    name = "iso-date"

    def accepts(self, output_type: object) -> bool:
        return output_type is datetime.date

    def grammar(self, output_type: object) -> Grammar:
        return Grammar.from_regex(r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])")

    def binder(self, output_type: object) -> Binder:
        return datetime.date.fromisoformat

    def lark_terminal(self, output_type: object) -> str | None:
        return r"/[0-9]{4}-[0-9]{2}-[0-9]{2}/"

    def instructions(self, output_type: object, limit: int) -> str | None:
        return "Answer with a date, written YYYY-MM-DD."


@pytest.fixture
def date_kind() -> Iterator[DateAdapter]:
    adapter = typedgen.register_adapter(DateAdapter())
    try:
        yield adapter
    finally:
        typedgen.unregister_adapter(adapter)


def test_a_registered_kind_answers_every_lookup(date_kind: DateAdapter) -> None:
    assert adapters()[0] is date_kind
    assert adapter_for(datetime.date) is date_kind
    assert binder_for(datetime.date)("1969-07-20") == datetime.date(1969, 7, 20)
    assert typedgen.instructions_for(datetime.date) == "Answer with a date, written YYYY-MM-DD."
    assert lark_terminal_for(datetime.date) is not None

    class Diary(typedgen.DSL):
        grammar = 'start: "on " DAY ": " WORD\n%import common.WORD\n%declare DAY'
        embeds: ClassVar[dict[str, object]] = {"DAY": datetime.date}

        def start(self, children: list[Any]) -> tuple[Any, str]:
            return children[0], str(children[1])

    assert Diary.parse("on 2024-02-29: rain") == (datetime.date(2024, 2, 29), "rain")
    with pytest.raises(ValueError, match=r"2024-02-30|day is out of range"):
        Diary.parse("on 2024-02-30: rain")  # the terminal finds it, date's own parser refuses


def test_unregistered_kinds_are_unknown_again(date_kind: DateAdapter) -> None:
    typedgen.unregister_adapter(date_kind)
    with pytest.raises(typedgen.GrammarError) as raised:
        typedgen.grammar_of(datetime.date)
    assert raised.value.code == "unsupported-output-type"
    typedgen.unregister_adapter(date_kind)  # twice is harmless


def test_registered_adapters_come_before_the_built_in_ones() -> None:
    class Shouting(typedgen.OutputAdapter):
        name = "shouting-choice"

        def accepts(self, output_type: object) -> bool:
            return isinstance(output_type, typedgen.Choice)

        def grammar(self, output_type: object) -> Grammar:
            assert isinstance(output_type, typedgen.Choice)
            return Grammar.from_choice([o.upper() for o in output_type.options])

    shouting = typedgen.register_adapter(Shouting())
    try:
        assert str(typedgen.grammar_of(typedgen.Choice("yes"))) == str(Grammar.from_choice(["YES"]))
    finally:
        typedgen.unregister_adapter(shouting)
    assert adapter_for(typedgen.Choice("yes")).name == "choice"


def test_only_adapters_can_be_registered() -> None:
    with pytest.raises(typedgen.OptionError) as raised:
        typedgen.register_adapter(DateAdapter)  # type: ignore[arg-type]  # the class, not one
    assert raised.value.code == "option-value"
    with pytest.raises(TypeError):
        typedgen.OutputAdapter()  # type: ignore[abstract]


# -- the hook protocol ---------------------------------------------------------------------------


class Verdict:
    """A third-party type that states every facet through hooks."""

    __typedgen_json__ = True
    __typedgen_reasoning_keys__ = ("why",)
    __typedgen_lark_terminal__ = r'/\{"why":"[a-z ]*","ok":(true|false)\}/'
    __typedgen_examples__ = ('{"why":"fine","ok":true}',)

    def __typedgen_grammar__(self) -> Grammar:
        return Grammar.from_regex(r'\{"why":"[a-z ]*","ok":(true|false)\}')

    def __typedgen_bind__(self, text: str) -> bool:
        return text.endswith("true}")

    def __typedgen_instructions__(self) -> str:
        return 'Answer {"why": <reason>, "ok": true or false}.'


def test_hooks_supply_every_facet() -> None:
    verdict = Verdict()
    assert adapter_for(verdict).name == "hooks"
    assert is_json_output(verdict) and reasoning_keys_for(verdict) == ("why",)
    assert binder_for(verdict)('{"why":"fine","ok":true}') is True
    assert typedgen.instructions_for(verdict) == Verdict.__typedgen_instructions__(verdict)
    assert adapter_for(verdict).examples(verdict) == ('{"why":"fine","ok":true}',)
    assert adapter_for(Robot).examples(Robot) == ()  # a DSL class's hook, from its spec
    assert fragment_for(verdict, "m").text.startswith("start: VALUE\nVALUE: /")

    class Review(typedgen.DSL):
        grammar = 'start: "review " VERDICT\n%declare VERDICT'
        embeds: ClassVar[dict[str, object]] = {"VERDICT": verdict}

        def start(self, children: list[Any]) -> object:
            return children[0]

    assert Review.parse('review {"why":"ok","ok":false}') is False


def test_a_plain_hook_type_has_the_defaults() -> None:
    class Yes:
        def __typedgen_grammar__(self) -> Grammar:
            return Grammar.from_choice(["yes"])

    yes = Yes()
    assert binder_for(yes)("yes") == "yes" and not is_json_output(yes)
    assert reasoning_keys_for(yes) == () and lark_terminal_for(yes) is None
    assert adapter_for(yes).examples(yes) == ()
    assert typedgen.instructions_for(yes) is None
    fragment = fragment_for(yes, "m")
    assert isinstance(fragment, Fragment)
    lark.Lark(fragment.text, start=fragment.start, parser="earley").parse("yes")


@pytest.mark.parametrize(
    ("hook", "value", "code"),
    [
        ("__typedgen_grammar__", lambda: 'start: "a"', "output-type-hook"),
        ("__typedgen_instructions__", lambda: ["not", "text"], "output-type-hook"),
        ("__typedgen_fragment__", lambda prefix: "start: VALUE", "output-type-hook"),
        ("__typedgen_reasoning_keys__", "why", "output-type-hook"),
        ("__typedgen_lark_terminal__", 3, "output-type-hook"),
        ("__typedgen_examples__", "one text", "output-examples"),
    ],
)
def test_hooks_of_the_wrong_kind_are_refused(hook: str, value: object, code: str) -> None:
    namespace: dict[str, object] = {
        "__typedgen_grammar__": lambda self: Grammar.from_choice(["a"]),
    }
    namespace[hook] = staticmethod(value) if callable(value) else value  # type: ignore[arg-type]
    broken = type("Broken", (), namespace)()
    with pytest.raises((typedgen.GrammarError, typedgen.OptionError)) as raised:
        typedgen.grammar_of(broken)
        typedgen.instructions_for(broken)
        fragment_for(broken, "m")
        reasoning_keys_for(broken)
        lark_terminal_for(broken)
        adapter_for(broken).examples(broken)
    assert raised.value.code == code
    assert hook in str(raised.value) or hook in (raised.value.hint or "")

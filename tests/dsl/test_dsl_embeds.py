"""Embeds and parameters: other output types fill a DSL's rules (one IR), values bound by them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

import lark
import pytest
from pydantic import BaseModel, Field

import typedgen
from tests._support import accepts, byte_vocabulary
from typedgen.dsl import DSL, DSLValueError, v_args
from typedgen.errors import GrammarError
from typedgen.ir import Ref
from typedgen.models import LoadedModel

VOCAB = byte_vocabulary()


class Env(BaseModel):
    debug: bool
    port: int = Field(ge=1, le=65535)


@dataclass(frozen=True)
class Service:
    name: str
    env: Env


class Deploy(DSL):
    grammar = r"""
        start: service+
        service: "service " NAME " env " env "\n"
        NAME: /[a-z]+/
        %declare env
    """
    embeds: ClassVar[dict[str, object]] = {"env": Env}

    def start(self, services: list[Service]) -> list[Service]:
        return services

    @v_args(inline=True)
    def service(self, name: str, env: Env) -> Service:
        return Service(str(name), env)


def matches(output_type: object, *texts: str) -> list[bool]:
    compiled = typedgen.compile(output_type, VOCAB)
    return [accepts(compiled, t.encode()) for t in texts]


def test_pydantic_embed_is_spliced_into_one_ir() -> None:
    g = typedgen.grammar_of(Deploy)
    assert g["env"].body == Ref("env__root")
    env_grammar = typedgen.grammar_of(Env)
    assert len([r for r in g.rules if r.startswith("env__")]) == len(env_grammar)
    good = 'service web env {"debug":true,"port":80}\n'
    assert matches(Deploy, good, good + good, good.replace("80", "0x"), "service web env {}\n") == [
        True,
        True,
        False,
        False,
    ]


def test_pydantic_embed_binds_to_a_model_instance() -> None:
    text = 'service web env {"debug":true,"port":80}\nservice db env {"debug":false,"port":5432}\n'
    services = Deploy.parse(text)
    assert services == [
        Service("web", Env(debug=True, port=80)),
        Service("db", Env(debug=False, port=5432)),
    ]


def test_embedded_validation_errors_are_retryable_and_placed() -> None:
    with pytest.raises(DSLValueError) as err:
        Deploy.parse('service web env {"debug":true,"port":99999}\n')
    assert "Deploy.env" in err.value.message and "output line 1, column 17" in err.value.message


def test_json_schema_embed_and_rule_without_method() -> None:
    class Tagged(DSL):
        grammar = 'start: "tags=" tags'
        embeds: ClassVar[dict[str, object]] = {
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}
        }

    tree = Tagged.parse('tags=["a","b"]')
    assert isinstance(tree, lark.Tree)
    assert tree.children == [["a", "b"]]  # the hole has no method: its value is the child


def test_nested_dsl_embed() -> None:
    class Point(DSL):
        grammar = 'start: "(" INT "," INT ")"\n%import common.INT'

        @v_args(inline=True)
        def start(self, x: str, y: str) -> tuple[int, int]:
            return int(x), int(y)

    class Line(DSL):
        grammar = 'start: "line " a " " b\n%declare a b'
        embeds: ClassVar[dict[str, object]] = {"a": Point, "b": Point}

        @v_args(inline=True)
        def start(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[Any, ...]:
            return a, b

    assert Line.parse("line (1,2) (30,4)") == ((1, 2), (30, 4))
    assert matches(Line, "line (1,2) (3,4)", "line (1,2)(3,4)") == [True, False]


def test_lark_regex_and_gbnf_embeds() -> None:
    class Mixed(DSL):
        grammar = 'start: "w=" word " n=" num " l=" nums'
        embeds: ClassVar[dict[str, object]] = {
            "word": typedgen.Lark('start: /[a-z]+/ ("-" /[a-z]+/)*'),
            "num": typedgen.Regex(r"-?[0-9]+"),
            "nums": typedgen.Gbnf('root ::= "[" [0-9]+ ("," [0-9]+)* "]"'),
        }

        def start(self, children: list[Any]) -> list[Any]:
            return children

    assert Mixed.parse("w=ab-cd n=-4 l=[1,2]") == ["ab-cd", "-4", "[1,2]"]


class Obj(enum.Enum):
    CUP = "cup"
    BALL = "ball"


class Grab(DSL):
    grammar = r"""
        start: "grab " OBJECT (" and " OBJECT)*
        %declare OBJECT
    """

    def start(self, objects: list[Any]) -> list[Any]:
        return objects


def test_a_declared_hole_must_be_filled_before_use() -> None:
    with pytest.raises(GrammarError) as err:
        typedgen.grammar_of(Grab)
    assert err.value.code == "dsl-missing-param"
    assert "with_params(OBJECT=" in (err.value.hint or "")


def test_with_params_fills_a_terminal_with_words() -> None:
    Words = Grab.with_params(OBJECT=["cup", "plate"])
    assert issubclass(Words, Grab) and Words is Grab.with_params(OBJECT=["cup", "plate"])
    assert Words is not Grab.with_params(OBJECT=["cup"])
    assert Words.parse("grab cup and plate") == ["cup", "plate"]
    assert matches(Words, "grab plate", "grab ball") == [True, False]
    assert "OBJECT" in typedgen.grammar_of(Words) and typedgen.grammar_of(Words)["OBJECT"].lexical


def test_with_params_enum_binds_members() -> None:
    Members = Grab.with_params(OBJECT=Obj)
    assert Members.parse("grab ball and cup") == [Obj.BALL, Obj.CUP]
    assert "OBJECT=Obj" in Members.__name__


def test_with_params_overrides_a_default_definition() -> None:
    class Greeting(DSL):
        grammar = 'start: "hello " NAME\nNAME: /[a-z]+/'

        def start(self, children: list[Any]) -> str:
            return str(children[0])

    assert Greeting.parse("hello zed") == "zed"
    Only = Greeting.with_params(NAME=["ann", "bob"])
    assert Only.parse("hello bob") == "bob"
    assert matches(Only, "hello bob", "hello zed") == [True, False]
    Pattern = Greeting.with_params(NAME=typedgen.Regex("[A-Z][a-z]{1,5}"))
    assert Pattern.parse("hello Zed") == "Zed"


def test_terminal_methods_receive_bound_values() -> None:
    class Named(DSL):
        grammar = 'start: "grab " OBJECT\n%declare OBJECT'
        embeds: ClassVar[dict[str, object]] = {"OBJECT": Obj}

        def OBJECT(self, member: Obj) -> str:
            return member.name

        def start(self, children: list[str]) -> str:
            return children[0]

    assert Named.parse("grab cup") == "CUP"


def test_terminal_embeds_must_be_regular_kinds() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: "x" VALUE\n%declare VALUE'
            embeds: ClassVar[dict[str, object]] = {"VALUE": Env}

    assert err.value.code == "dsl-embed"
    with pytest.raises(GrammarError):
        Grab.with_params(OBJECT="cup")
    with pytest.raises(GrammarError):
        Grab.with_params(OBJECT=[])


def test_an_embed_the_grammar_does_not_use() -> None:
    with pytest.raises(GrammarError) as err:
        Grab.with_params(OBJECTS=["cup"])
    assert err.value.code == "unused-embed"


def test_unhashable_params_are_not_cached() -> None:
    class Holder(DSL):
        grammar = 'start: "v=" value\n%declare value'

        def start(self, children: list[Any]) -> Any:
            return children[0]

    schema = {"type": "integer"}
    first = Holder.with_params(value=schema)
    assert first is not Holder.with_params(value=schema)
    assert first.parse("v=12") == 12


def test_sql_embed_binds_to_a_sqlglot_expression() -> None:
    sqlglot = pytest.importorskip("sqlglot")
    sql_type = typedgen.Sql

    class Report(DSL):
        grammar = r"""
            start: "report " NAME ": " query ";"
            NAME: /[a-z]+/
        """
        embeds: ClassVar[dict[str, object]] = {
            "query": sql_type(
                "sqlite", schema={"users": {"id": "int", "name": "text"}}, terminator=False
            )
        }

        @v_args(inline=True)
        def start(self, name: str, query: Any) -> tuple[str, Any]:
            return str(name), query

    text = "report top: SELECT name FROM users WHERE name = 'a;b' LIMIT 5 ;"
    assert matches(Report, text, "report top:SELECT name FROM users;") == [True, False]
    name, query = Report.parse(text)
    assert name == "top" and isinstance(query, sqlglot.exp.Expression)
    assert query.sql(dialect="sqlite").startswith("SELECT name FROM users")


def test_generated_text_with_an_embed_always_binds(tiny: LoadedModel) -> None:
    """Random walks through the masks: whatever the model writes, lark and the binders agree."""

    class Small(BaseModel):
        on: bool
        level: int = Field(ge=0, le=9)

    class Config(DSL):
        grammar = r"""
            start: "name=" NAME "; opts=" opts "; pick=" PICK
            NAME: /[a-z]{1,6}/
            %declare opts PICK
        """
        embeds: ClassVar[dict[str, object]] = {"opts": Small, "PICK": Obj}

        def start(self, children: list[Any]) -> list[Any]:
            return children

    for seed in range(4):
        details = typedgen.generate(
            Config,
            "c",
            model=tiny,
            temperature=1.0,
            seed=seed,
            max_tokens=48,
            on_max_tokens="finish",
            return_details=True,
        )
        name, opts, pick = details.value
        assert isinstance(opts, Small) and isinstance(pick, Obj) and 1 <= len(name) <= 6

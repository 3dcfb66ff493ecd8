"""DSL classes: grammar + Transformer-style methods -> typed objects, as lark.Transformer does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lark
import pytest

import typedgen
from typedgen.dsl import DSL, Discard, DSLValueError, v_args
from typedgen.ir import Grammar
from typedgen.models import LoadedModel

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Move:
    steps: int


@dataclass(frozen=True)
class Turn:
    side: str


class Robot(DSL):
    grammar = r"""
        start: command ("; " command)*
        command: "move " INT  -> move
               | "turn " SIDE -> turn
        SIDE: "left" | "right"
        %import common.INT
    """

    def start(self, commands: list[Move | Turn]) -> list[Move | Turn]:
        return commands

    @v_args(inline=True)
    def move(self, steps: lark.Token) -> Move:
        return Move(int(steps))

    def turn(self, children: list[str]) -> Turn:
        return Turn(children[0])

    def SIDE(self, token: lark.Token) -> str:
        return str(token).upper()


def test_parse_builds_what_the_start_rule_returns() -> None:
    assert Robot.parse("move 3; turn left; move 12") == [Move(3), Turn("LEFT"), Move(12)]


def test_the_ir_is_the_lark_frontends() -> None:
    assert typedgen.grammar_of(Robot) == Grammar.from_lark(Robot.grammar or "")
    assert str(typedgen.grammar_of(Robot)).startswith("%start start")


def test_parse_tree_is_larks_tree() -> None:
    tree = Robot.parse_tree("move 3; turn right")
    assert isinstance(tree, lark.Tree)
    assert [str(t.data) for t in tree.children if isinstance(t, lark.Tree)] == ["move", "turn"]


def test_bind_protocol_and_lark_rejection() -> None:
    assert Robot.__typedgen_bind__("turn left") == [Turn("LEFT")]
    with pytest.raises(DSLValueError) as err:
        Robot.parse("move x")
    assert err.value.code == "dsl-parse"
    assert isinstance(err.value, ValueError)  # retryable


def test_rules_without_methods_stay_trees_and_tokens_stay_tokens() -> None:
    class Bare(DSL):
        grammar = 'start: pair+\npair: NAME "=" NAME ";"\nNAME: /[a-z]+/'

    tree = Bare.parse("a=b;c=d;")
    assert isinstance(tree, lark.Tree) and str(tree.data) == "start"
    first = tree.children[0]
    assert isinstance(first, lark.Tree) and first.children == ["a", "b"]
    assert all(isinstance(tok, lark.Token) for tok in first.children)


def test_v_args_variants_and_defaults() -> None:
    seen: dict[str, Any] = {}

    @v_args(inline=True)
    class Calc(DSL):
        grammar = r"""
            ?start: sum
            ?sum: product | sum "+" product -> add
            ?product: atom | product "*" atom -> mul
            ?atom: NUMBER -> number | "(" sum ")" | "-" atom -> neg
            %import common.NUMBER
        """

        def add(self, a: float, b: float) -> float:
            return a + b

        def mul(self, a: float, b: float) -> float:
            return a * b

        def number(self, token: lark.Token) -> float:
            return float(token)

        @v_args(meta=True)
        def neg(self, meta: Any, children: list[float]) -> float:
            seen["neg"] = (meta.line, meta.column, meta.start_pos, meta.end_pos)
            return -children[0]

    assert Calc.parse("2+3*(4+1)") == 17.0
    assert Calc.parse("1+-2") == -1.0
    assert seen["neg"] == (1, 3, 2, 4)

    class Tagged(DSL):
        grammar = 'start: item+\nitem: WORD ","\nWORD: /[a-z]+/'

        @v_args(tree=True)
        def item(self, tree: lark.Tree[Any]) -> str:
            return f"{tree.data}:{tree.children[0]}"

        def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
            return (str(data), children)

    assert Tagged.parse("a,b,") == ("start", ["item:a", "item:b"])


def test_discard_drops_a_node() -> None:
    class Words(DSL):
        grammar = 'start: (word | skip)+\nword: /[a-z]+/ " "\nskip: "_ "'

        def start(self, children: list[str]) -> list[str]:
            return children

        def word(self, children: list[Any]) -> str:
            return str(children[0])

        def skip(self, children: list[Any]) -> Any:
            return Discard

    assert Words.parse("a _ b ") == ["a", "b"]


def test_larks_own_v_args_and_discard_work_too() -> None:
    class Words(DSL):
        grammar = 'start: (word | skip)+\nword: /[a-z]+/ " "\nskip: "_ "'

        def start(self, children: list[str]) -> list[str]:
            return children

        @lark.v_args(inline=True)
        def word(self, token: lark.Token) -> str:
            return str(token)

        def skip(self, children: list[Any]) -> Any:
            return lark.Discard

    assert Words.parse("a _ b ") == ["a", "b"]


def test_public_methods_must_name_rules_helpers_start_with_an_underscore() -> None:
    with pytest.raises(typedgen.GrammarError) as err:

        class Helper(DSL):
            grammar = 'start: "x"+'

            @staticmethod
            def helper() -> None: ...

    assert err.value.code == "dsl-unknown-method"
    assert "helpers start with '_'" in (err.value.hint or "")


def test_helpers_and_state() -> None:
    class Counter(DSL):
        grammar = 'start: "x"+'

        def __init__(self) -> None:
            self.calls = 0

        def _helper(self) -> int:
            self.calls += 1
            return self.calls

        def start(self, children: list[Any]) -> int:
            return self._helper()

        @staticmethod
        def _static_helper() -> None: ...

    assert Counter.parse("xx") == 1


def test_maybe_placeholders_follow_lark() -> None:
    class Opt(DSL):
        grammar = 'start: NAME ["!" MARK]\nNAME: /[a-z]+/\nMARK: "!"'

        def start(self, children: list[Any]) -> list[Any]:
            return children

    assert Opt.parse("ab") == ["ab", None]


def test_grammar_file_beside_the_module() -> None:
    class FileRobot(DSL):
        grammar_file = "robot.lark"

        def start(self, commands: list[Any]) -> list[Any]:
            return commands

        def move(self, children: list[Any]) -> Move:
            return Move(int(children[0]))

    assert FileRobot.parse("move 2; move 5") == [Move(2), Move(5)]
    assert typedgen.grammar_of(FileRobot).origin is not None
    assert str(typedgen.grammar_of(FileRobot).origin).endswith("robot.lark")


def test_grammar_file_as_a_path_object() -> None:
    class PathRobot(DSL):
        grammar_file = HERE / "robot.lark"

    assert isinstance(PathRobot.parse("turn left"), lark.Tree)


def test_grammar_file_from_the_library() -> None:
    from typedgen import grammars

    assert "json" in grammars.names()

    class Json(DSL):
        grammar_file = "json"

        def object(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            return dict(pairs)

        @v_args(inline=True)
        def pair(self, key: str, value: Any) -> tuple[str, Any]:
            return key, value

        def array(self, items: list[Any]) -> list[Any]:
            return items

        def STRING(self, token: lark.Token) -> str:
            return str(token)[1:-1]

        def NUMBER(self, token: lark.Token) -> float:
            return float(token)

        def true(self, _: list[Any]) -> bool:
            return True

        def null(self, _: list[Any]) -> None:
            return None

    assert Json.parse('{"a": [1, true, null]}') == {"a": [1.0, True, None]}
    assert Json.lexer is None and Json.__dsl_spec__.lexer == grammars.lexer("json")


def test_subclasses_inherit_methods_and_may_override() -> None:
    class Loud(Robot):
        def turn(self, children: list[str]) -> Turn:
            return Turn(children[0] + "!")

    assert Loud.parse("turn left; move 1") == [Turn("LEFT!"), Move(1)]


def test_abstract_base_without_grammar() -> None:
    class Base(DSL):
        def _helper_only(self) -> None: ...

    with pytest.raises(typedgen.GrammarError) as err:
        typedgen.grammar_of(Base)
    assert err.value.code == "dsl-grammar"

    class Concrete(Base):
        grammar = 'start: "a"'

    assert Concrete.parse("a") is not None


def test_lark_grammar_text_is_available() -> None:
    assert "command:" in Robot.lark_grammar()


def test_generate_returns_the_objects(tiny: LoadedModel) -> None:
    for seed in range(3):
        details = typedgen.generate(
            Robot,
            "Drive.",
            model=tiny,
            max_tokens=24,
            temperature=1.0,
            seed=seed,
            on_max_tokens="finish",
            return_details=True,
        )
        assert isinstance(details.value, list) and details.value
        assert all(isinstance(c, Move | Turn) for c in details.value)
        assert Robot.parse(details.text) == details.value

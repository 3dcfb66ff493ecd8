"""Errors in a DSL class name the rule, the grammar line and (for methods) the Python line."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, ClassVar

import pytest

import typedgen
from typedgen.binding import BindingError
from typedgen.dsl import DSL, DSLValueError
from typedgen.errors import GrammarError

GRAMMAR = """
start: move+
move: "move " INT ";"
%import common.INT
"""


def test_misspelt_method_names_the_method_and_the_closest_rule() -> None:
    with pytest.raises(GrammarError) as err:

        class Robot(DSL):
            grammar = GRAMMAR

            def mvoe(self, children: list[Any]) -> None: ...

    e = err.value
    assert e.code == "dsl-unknown-method"
    assert "Robot.mvoe" in e.message
    assert e.origin is not None and e.origin.source == __file__
    assert e.origin.line is not None and e.origin.line > 0
    assert "did you mean 'move'" in (e.hint or "") and "Robot.grammar:3:1" in (e.hint or "")


def test_a_method_may_not_replace_the_dsl_api() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: parse\nparse: "x"'

            def parse(self, children: list[Any]) -> None:  # type: ignore[override]
                ...

    assert err.value.code == "dsl-reserved-name"


def test_a_method_for_an_inlined_rule_would_never_run() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: _item+\n_item: "x"'

            def _item(self, children: list[Any]) -> None: ...

    assert err.value.code == "dsl-method-never-called"


def test_grammar_syntax_errors_carry_the_line() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: "a"\nitem: ("b"\n'

    assert err.value.origin is not None
    assert err.value.origin.source.endswith("Bad.grammar")
    assert err.value.origin.line is not None


def test_undefined_rule_names_the_place() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: "a" itme\nitem: "b"'

    assert err.value.code == "undefined-rule"
    assert str(err.value.origin).endswith("Bad.grammar:1:12")


def test_both_grammar_and_grammar_file_is_an_error() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar = 'start: "a"'
            grammar_file = "robot.lark"

    assert err.value.code == "dsl-grammar"


def test_a_subclass_may_switch_from_text_to_file() -> None:
    class Text(DSL):
        grammar = 'start: "a"'

    class File(Text):
        grammar_file = Path(__file__).parent / "robot.lark"

    assert "command" in File.lark_grammar()


def test_missing_file_and_unknown_library_name() -> None:
    with pytest.raises(GrammarError) as err:

        class Bad(DSL):
            grammar_file = "no/such/file.lark"

    assert err.value.code == "dsl-grammar-file"
    with pytest.raises(GrammarError) as unknown:

        class Bad2(DSL):
            grammar_file = "jsno"

    assert unknown.value.code == "unknown-grammar"


def test_bad_configuration() -> None:
    with pytest.raises(GrammarError):

        class BadLexer(DSL):
            grammar = 'start: "a"'
            lexer = "lalr"

    with pytest.raises(GrammarError) as start:

        class BadStart(DSL):
            grammar = 'start: "a"'
            start_rule = "begin"

    assert start.value.code == "undefined-start"
    with pytest.raises(GrammarError):

        class BadEmbeds(DSL):
            grammar = 'start: "a"'
            embeds: ClassVar[Any] = ["a"]  # type: ignore[assignment]


def test_value_errors_in_methods_are_retryable_and_name_the_rule() -> None:
    class Robot(DSL):
        grammar = GRAMMAR

        def move(self, children: list[Any]) -> int:
            steps = int(children[0])
            if steps > 9:
                raise ValueError("too far")
            return steps

    with pytest.raises(DSLValueError) as err:
        Robot.parse("move 1;move 12;")
    e = err.value
    assert isinstance(e, BindingError) and isinstance(e, ValueError)
    assert "Robot.move on 'move 12;' (output line 1, column 8)" in e.message
    assert "ValueError: too far" in e.message
    assert str(e.origin).endswith("Robot.grammar:3:1")
    assert isinstance(e.__cause__, ValueError)


def test_other_exceptions_propagate_with_a_note() -> None:
    class Robot(DSL):
        grammar = GRAMMAR

        def move(self, children: list[Any]) -> dict[str, int]:
            return {"a": 1}["b"]

    with pytest.raises(KeyError) as err:
        Robot.parse("move 1;")
    notes = getattr(err.value, "__notes__", [])
    assert any("Robot.move on 'move 1;'" in n and "Robot.grammar:3:1" in n for n in notes)


def test_errors_in_terminal_methods_name_the_terminal() -> None:
    class Robot(DSL):
        grammar = GRAMMAR

        def INT(self, token: str) -> int:
            assert int(token) < 5, "small steps only"
            return int(token)

    with pytest.raises(DSLValueError) as err:
        Robot.parse("move 7;")
    assert "Robot.INT on '7'" in err.value.message


def test_a_method_error_is_fed_back_through_generate(monkeypatch: pytest.MonkeyPatch) -> None:
    from typedgen.validation import validation_errors

    assert issubclass(DSLValueError, validation_errors())


def test_method_origin_points_at_the_source_line() -> None:
    with pytest.raises(GrammarError) as err:

        class Robot(DSL):
            grammar = GRAMMAR

            def moves(self, children: list[Any]) -> None: ...

    lines, first = inspect.getsourcelines(test_method_origin_points_at_the_source_line)
    assert err.value.origin is not None and err.value.origin.line is not None
    assert first < err.value.origin.line < first + len(lines)


def test_grammar_of_reports_the_dsl_without_grammar() -> None:
    with pytest.raises(GrammarError) as err:
        typedgen.grammar_of(DSL)
    assert "has no grammar" in err.value.message

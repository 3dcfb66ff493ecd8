"""A command DSL with typed actions: a robot's program, built as dataclasses.

``Robot`` is a ``typedgen.DSL``: a Lark grammar plus one method per command that builds a typed
action. The objects the robot may handle are only known at run time (from a scene), so the
grammar ``%declare``s the terminal ``OBJECT`` and ``Robot.with_params(OBJECT=[...])`` fills it
with exactly those words: the grammar text is not rewritten, and the model cannot name an object
that is not in the scene.

Run: python examples/dsl_robot.py
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import typedgen
from typedgen.dsl import v_args


@dataclass(frozen=True)
class Move:
    steps: int


@dataclass(frozen=True)
class Turn:
    direction: Literal["left", "right"]


@dataclass(frozen=True)
class Grab:
    item: str


@dataclass(frozen=True)
class Drop:
    item: str


Action = Move | Turn | Grab | Drop


class Robot(typedgen.DSL):
    """One command per line, at most six: ``move 3``, ``turn left``, ``grab cup``, ``drop cup``."""

    grammar = r"""
        start: command ("\n" command)~0..5
        command: "move " STEPS   -> move
               | "turn " SIDE    -> turn
               | "grab " OBJECT  -> grab
               | "drop " OBJECT  -> drop
        STEPS: /[1-9]/
        SIDE: "left" | "right"
        %declare OBJECT
    """

    def start(self, actions: list[Action]) -> list[Action]:
        return actions

    @v_args(inline=True)
    def move(self, steps: str) -> Move:
        return Move(int(steps))

    @v_args(inline=True)
    def turn(self, side: str) -> Turn:
        return Turn("left" if side == "left" else "right")

    @v_args(inline=True)
    def grab(self, item: str) -> Grab:
        return Grab(str(item))

    @v_args(inline=True)
    def drop(self, item: str) -> Drop:
        return Drop(str(item))


SCENE = ["cup", "book", "apple"]
PROMPT = """You control a robot with these commands, one per line:
move N (N steps forward), turn left, turn right, grab OBJECT, drop OBJECT.

Task: the apple is 2 steps ahead. Bring it back.
Program:
move 2
grab apple
turn left
turn left
move 2
drop apple

Task: the cup is 3 steps ahead, then 1 step to the right. Pick up the cup.
Program:"""


def run(model: typedgen.LoadedModel) -> typedgen.Details:
    """The program for the task, with the objects of this scene filled in at call time."""
    robot = Robot.with_params(OBJECT=SCENE)
    return typedgen.generate(robot, PROMPT, model=model, max_tokens=48, return_details=True)


def main() -> None:
    details = run(typedgen.load_model())
    print("program text:")
    print("  " + details.text.replace("\n", "\n  "))
    print("actions:")
    for action in details.value:
        print(f"  {action!r}")
    print(f"{details.sampled_tokens} tokens sampled, {details.seconds:.1f}s")


if __name__ == "__main__":
    main()

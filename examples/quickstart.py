"""Quickstart: typed output from the default local model (SmolLM2-135M-Instruct) on CPU or GPU.

Each call declares the shape it wants and gets back a typed value: a Pydantic model instance, an
Enum member, a string matching a regex or a grammar. The text the model writes is constrained
token by token, so it always parses.

Run: bash scripts/example.sh   (or: python examples/quickstart.py)
"""

from __future__ import annotations

import time
from enum import Enum

from pydantic import BaseModel, Field

import typedgen


class Address(BaseModel):
    city: str = Field(max_length=40)
    country: str = Field(max_length=40)


class Person(BaseModel):
    name: str = Field(max_length=40)
    born: int = Field(ge=1000, le=2025)
    address: Address
    fields_of_work: list[str] = Field(max_length=3)


class Sentiment(Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"


ROBOT = typedgen.Lark(
    """
    start: command (", " command)~0..3
    command: "move " DIRECTION " " STEPS | "turn " SIDE | "stop"
    DIRECTION: "north" | "south" | "east" | "west"
    SIDE: "left" | "right"
    STEPS: /[1-9][0-9]?/
    """
)

EXAMPLES: list[tuple[str, object, str]] = [
    ("Pydantic model", Person, "Who was Marie Curie? Give her name, birth year, city, country."),
    ("Enum", Sentiment, "Sentiment of 'The food was cold and late.'?"),
    ("Regex (ISO date)", typedgen.Regex(r"\d{4}-\d{2}-\d{2}"), "When did Apollo 11 land?"),
    ("Lark grammar (robot commands)", ROBOT, "Give a robot two commands to reach the kitchen."),
    ("Choice", typedgen.Choice("yes", "no"), "Is Paris the capital of France?"),
]


def main() -> None:
    t0 = time.perf_counter()
    model = typedgen.load_model()
    print(f"loaded {model.name} on {model.device} in {time.perf_counter() - t0:.1f}s")
    for title, output_type, prompt in EXAMPLES:
        details = typedgen.generate(output_type, prompt, model=model, return_details=True)
        print(f"\n{title}\n  prompt: {prompt}\n  result: {details.value!r}")
        print(
            f"  {details.sampled_tokens} tokens sampled, {details.forced_tokens} forced by the"
            f" grammar, {details.seconds:.1f}s"
        )


if __name__ == "__main__":
    main()

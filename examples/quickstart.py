"""Quickstart: typed output from the default local model (SmolLM2-135M-Instruct) on CPU or GPU.

Each call declares the shape it wants and gets back a typed value: a Pydantic model instance, an
Enum member, a date, a string of a grammar. The text the model writes is constrained token by
token, so it always parses; whether it is *right* is up to a 135M-parameter model, so each line
shows what the model really wrote beside the typed value (nothing here is picked because the
small model happens to get it right).

Run: bash scripts/example.sh   (or: python examples/quickstart.py)
"""

from __future__ import annotations

import datetime
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


class Landing(BaseModel):
    date: datetime.date  # an ISO date the grammar checks (no month 19), not a loose regex


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
    ("Date", Landing, "On what date did Apollo 11 land on the Moon?"),
    ("Lark grammar (robot commands)", ROBOT, "Give a robot two commands to reach the kitchen."),
    ("Choice", typedgen.Choice("yes", "no"), "Is Paris the capital of France?"),
]


def main() -> None:
    t0 = time.perf_counter()
    model = typedgen.load_model()
    print(f"loaded {model.name} on {model.device} in {time.perf_counter() - t0:.1f}s")
    for title, output_type, prompt in EXAMPLES:
        print(f"\n{title}\n  prompt: {prompt}")
        try:
            details = typedgen.generate(
                output_type, prompt, model=model, max_tokens=200, return_details=True
            )
        except typedgen.GenerationError as exc:  # say what happened, with what was written
            print(f"  result: none ({type(exc).__name__}: {exc.message})")
            if exc.details is not None:
                print(f"  wrote:  {exc.details.text!r}")
            continue
        print(f"  wrote:  {details.text!r}\n  result: {details.value!r}")
        extra = f", {len(details.loops)} loop(s) stopped" if details.loops else ""
        extra += f", {len(details.repairs)} repair(s)" if details.repairs else ""
        print(
            f"  {details.sampled_tokens} tokens sampled, {details.forced_tokens} forced by the"
            f" grammar, {len(details.attempts)} attempt(s){extra}, {details.seconds:.1f}s"
        )


if __name__ == "__main__":
    main()

"""The output types the vLLM tests generate: a Pydantic model, SQLite SQL over a schema, a DSL."""

from __future__ import annotations

import sqlglot
import typedgen
from pydantic import BaseModel, Field
from typedgen.dsl import v_args


class City(BaseModel):
    name: str = Field(max_length=30)
    country: str = Field(max_length=30)
    population_millions: int = Field(ge=0, le=50)


SCHEMA = {
    "singer": ["singer_id", "name", "country", "age"],
    "concert": ["concert_id", "singer_id", "year", "venue"],
}
SQL = typedgen.Sql("sqlite", schema=SCHEMA)


class Robot(typedgen.DSL):
    """Robot programs, one command per line, at most four: a list of (action, argument)."""

    grammar = r"""
        start: command ("\n" command)~0..3
        command: "move " STEPS   -> move
               | "turn " SIDE    -> turn
        STEPS: /[1-9]/
        SIDE: "left" | "right"
    """

    def start(self, actions: list[tuple[str, object]]) -> list[tuple[str, object]]:
        return actions

    @v_args(inline=True)
    def move(self, steps: str) -> tuple[str, object]:
        return ("move", int(steps))

    @v_args(inline=True)
    def turn(self, side: str) -> tuple[str, object]:
        return ("turn", str(side))


CITY_PROMPTS = ["Describe Paris as JSON.", "Describe Lima as JSON.", "Describe Tokyo as JSON."]
SQL_SYSTEM = "You write one short SQLite query."
SQL_PROMPTS: list[list[dict[str, str]]] = [
    [
        {"role": "system", "content": SQL_SYSTEM},
        {"role": "user", "content": q + " Keep it short."},
    ]
    for q in (
        "Table singer(singer_id, name, country, age): names of singers older than 30.",
        "Table concert(concert_id, singer_id, year, venue): how many concerts were in 2014?",
    )
]
ROBOT_PROMPTS = [
    "Commands, one per line: move N, turn left, turn right. Program: move 3 steps, turn left,"
    " then move 2 steps."
]


def check_city(value: object) -> None:
    assert isinstance(value, City), value
    City.model_validate(value.model_dump())


def check_sql(value: object) -> None:
    assert isinstance(value, sqlglot.exp.Expression), value
    sqlglot.parse_one(value.sql(dialect="sqlite"), read="sqlite")
    tables = {t.name.lower() for t in value.find_all(sqlglot.exp.Table)}
    ctes = {cte.alias.lower() for cte in value.find_all(sqlglot.exp.CTE)}  # Sql's ctes default
    assert tables - ctes <= set(SCHEMA), tables  # the binder's schema check passed too


def check_robot(value: object) -> None:
    assert isinstance(value, list) and value, value
    for action, argument in value:
        assert (action == "move" and isinstance(argument, int)) or (
            action == "turn" and argument in ("left", "right")
        ), (action, argument)

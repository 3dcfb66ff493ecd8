"""A TOML config generated under a grammar, read with ``tomllib`` and built into typed tables.

``WorkerConfig`` is a ``typedgen.DSL`` with a narrow rule set of TOML: a ``[queue]`` and a
``[workers]`` table of one to three ``key = value`` lines each, whose terminals come from the
TOML grammar of typedgen's grammar library (``%import toml (BARE_KEY, BASIC_STRING, INTEGER,
BOOLEAN)``). Every text it allows is TOML that ``tomllib`` reads, except one thing no
context-free grammar sees: a key defined twice. The ``table`` method checks that; its
``ValueError`` makes typedgen retry with the error shown to the model.

Run: python examples/dsl_toml.py
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

import typedgen
from typedgen.dsl import v_args

Scalar = str | int | bool


@dataclass(frozen=True)
class Table:
    name: str
    values: dict[str, Scalar]


class WorkerConfig(typedgen.DSL):
    """Two tables of ``key = value`` lines; strings, integers and booleans."""

    grammar = r"""
        start: table "\n" table
        table: "[" TABLE "]\n" keyval~1..3
        keyval: BARE_KEY " = " value "\n"
        ?value: BASIC_STRING | INTEGER | BOOLEAN
        TABLE: "queue" | "workers"
        %import toml (BARE_KEY, BASIC_STRING, INTEGER, BOOLEAN)
    """

    def start(self, tables: list[Table]) -> list[Table]:
        if tables[0].name == tables[1].name:
            raise ValueError(f"table [{tables[0].name}] is defined twice")
        return tables

    def table(self, children: list[Any]) -> Table:
        name, *pairs = children
        values: dict[str, Scalar] = {}
        for key, value in pairs:
            if key in values:
                raise ValueError(f"key {key!r} is defined twice in table [{name}]")
            values[key] = value
        return Table(str(name), values)

    @v_args(inline=True)
    def keyval(self, key: str, value: Scalar) -> tuple[str, Scalar]:
        return str(key), value

    # Scalars are decoded by tomllib itself, so escapes and number forms mean what TOML says.
    def BASIC_STRING(self, token: str) -> Scalar:
        return _scalar(token)

    def INTEGER(self, token: str) -> Scalar:
        return _scalar(token)

    def BOOLEAN(self, token: str) -> Scalar:
        return token == "true"


def _scalar(token: str) -> Scalar:
    value = tomllib.loads(f"v = {token}")["v"]
    assert isinstance(value, str | int)
    return value


EXAMPLE = """[queue]
host = "mq.local"
port = 5672

[workers]
count = 2
retries = false
"""
PROMPT = [
    {"role": "system", "content": "You write TOML configuration files."},
    {
        "role": "user",
        "content": "Queue at mq.local, port 5672. Two workers, no retries.",
    },
    {"role": "assistant", "content": EXAMPLE},
    {
        "role": "user",
        "content": "Queue at cache.local, port 6379. Four workers, with retries.",
    },
]


def run(model: typedgen.LoadedModel) -> typedgen.Details:
    """The worker's config as ``Table`` objects (the text is in ``.text``)."""
    return typedgen.generate(WorkerConfig, PROMPT, model=model, max_tokens=90, return_details=True)


def main() -> None:
    details = run(typedgen.load_model())
    print("TOML text:")
    print("  " + details.text.replace("\n", "\n  "))
    tables: list[Table] = details.value
    print("tables built by WorkerConfig:")
    for table in tables:
        print(f"  {table!r}")
    # The text is TOML: tomllib reads it, and agrees with the tables the methods built.
    data = tomllib.loads(details.text)
    print(f"tomllib reads: {data!r}")
    assert data == {table.name: table.values for table in tables}
    print(f"{details.sampled_tokens} tokens sampled, {details.seconds:.1f}s")


if __name__ == "__main__":
    main()

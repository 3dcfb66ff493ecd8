"""Output quality per model: constrained vs unconstrained, with and without loop guard and repair.

Three tasks with data written for this benchmark (``data/``):

- extraction: a Pydantic type (name, organisation, city, year) from a short text; field accuracy
  (exact match after trimming and case-folding strings) over every field of every item;
- text-to-SQL: a question on a small SQLite shop database; execution accuracy (the rows equal
  the gold query's rows, compared as sorted lists unless the gold has ORDER BY);
- configs: a TOML, INI or JSON file from a description; valid when the format's own parser
  (tomllib, configparser, json) reads it and it holds the keys asked for.

Modes (each item runs once per mode, greedy):

- ``free``: ``constrain=False``, the same prompt path; the reply (or its first fenced block) is
  bound as the constrained output would be; no retries;
- ``constrained``: the grammar, no loop guard, no repair, no retries (typedgen before issue 14);
- ``guard``: the grammar and the loop guard;
- ``repair``: the defaults (guard, repair at the faulty place, 2 sampled whole-output retries).

When the prompt instructions of issue 14 deliverable 1 are available (``instructions=``), every
mode runs with them too (``+instr``; ``--instructions on|off`` runs only one side). Without
instructions the SQL prompt carries the schema's DDL itself; with them it does not, since the
instructions hold it. Run::

    python benchmarks/quality/run.py --models smollm2-135m,gemma-3-270m --limit 0 --out q.json

``--limit N`` takes the first N items of each task (0: all). Prints a markdown table; ``--out``
also keeps each SQL answer (the text the model wrote, its outcome, whether its rows are right).
"""

from __future__ import annotations

import argparse
import configparser
import json
import sqlite3
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

import typedgen

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
MODES: dict[str, dict[str, Any]] = {
    "free": {"constrain": False, "loop_guard": False, "repairs": 0, "max_retries": 0},
    "constrained": {"loop_guard": False, "repairs": 0, "max_retries": 0},
    "guard": {"repairs": 0, "max_retries": 0},
    "repair": {},
    # The model explains, then writes the output in a code block (reasoning="fenced"), as it does
    # unconstrained; the scratchpad's 300 characters count against the same token budget.
    "guard-fenced": {
        "repairs": 0,
        "max_retries": 0,
        "reasoning": typedgen.Scratchpad("fenced", 300),
    },
    "repair-fenced": {"reasoning": typedgen.Scratchpad("fenced", 300)},
}
TASKS = ("extraction", "sql", "configs")


class Record(BaseModel):
    """Who, which organisation, where, and when, as the text states them."""

    name: str = Field(max_length=60)
    organization: str = Field(max_length=60)
    city: str = Field(max_length=40)
    year: int = Field(ge=1800, le=2030)


EXTRACT_ASK = (
    "Extract from the text: the person's name, the organization, the city and the year. "
    "Answer as JSON with the keys name, organization, city, year.\n\nText: "
)
SQL_ASK = "Write one SQLite query that answers: {question}"
SQL_SCHEMA = "Database schema:\n{ddl}\n\n"
"""Put before the question only without instructions: they carry the dialect and the DDL."""


def _norm(value: Any) -> Any:
    return value.strip().casefold() if isinstance(value, str) else value


def _shop() -> tuple[sqlite3.Connection, dict[str, Any]]:
    data = json.loads((DATA / "sql.json").read_text())
    conn = sqlite3.connect(":memory:")
    for ddl in data["ddl"]:
        conn.execute(ddl)
    for table, rows in data["rows"].items():
        marks = ", ".join("?" * len(rows[0]))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    return conn, data


def _rows(conn: sqlite3.Connection, sql: str, ordered: bool) -> list[Any] | None:
    try:
        rows = [
            tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in conn.execute(sql)
        ]
    except sqlite3.Error:
        return None
    return rows if ordered else sorted(rows, key=repr)


def _config_ok(fmt: str, text: str, keys: list[str]) -> bool:
    try:
        if fmt == "toml":
            value: Any = tomllib.loads(text)
        elif fmt == "json":
            value = json.loads(text)
        else:
            parser = configparser.ConfigParser()
            parser.read_string(text)
            value = {s: dict(parser[s]) for s in parser.sections()}
    except (ValueError, configparser.Error, tomllib.TOMLDecodeError):
        return False
    for key in keys:
        node = value
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
    return True


def _run(
    output_type: object, prompt: str, model: Any, options: dict[str, Any], budget: int
) -> tuple[Any, typedgen.Details | None, str]:
    """(value or None, details, outcome) for one generation; outcome is ok/invalid/budget."""
    try:
        details = typedgen.generate(
            output_type, prompt, model=model, max_tokens=budget, return_details=True, **options
        )
    except typedgen.IncompleteOutputError as exc:
        return None, exc.details, "budget"
    except typedgen.GenerationError as exc:
        return None, exc.details, "invalid"
    return details.value, details, "ok"


def run_model(
    name: str, limit: int, instructions: list[bool | None], tasks: tuple[str, ...] = TASKS
) -> list[dict[str, Any]]:
    model = typedgen.load_model(name)
    extraction = json.loads((DATA / "extraction.json").read_text())["items"]
    configs = json.loads((DATA / "configs.json").read_text())["items"]
    conn, shop = _shop()
    questions = shop["items"]
    extraction = extraction if "extraction" in tasks else []
    configs = configs if "configs" in tasks else []
    questions = questions if "sql" in tasks else []
    if limit:
        extraction, configs, questions = extraction[:limit], configs[:limit], questions[:limit]
    sql_type = typedgen.Sql("sqlite", schema=conn)
    ddl = "\n".join(d + ";" for d in shop["ddl"])
    results: list[dict[str, Any]] = []
    for mode, base in MODES.items():
        for instr in instructions:
            options = dict(base)
            label = mode
            if instr is not None:
                options["instructions"] = instr
                label += "+instr" if instr else ""
            row: dict[str, Any] = {"model": name, "mode": label, "items": {}}
            started = time.perf_counter()
            # extraction
            correct = total = complete = 0
            for item in extraction:
                value, _, outcome = _run(Record, EXTRACT_ASK + item["text"], model, options, 160)
                complete += outcome == "ok"
                for field, want in item["expected"].items():
                    total += 1
                    got = getattr(value, field, None) if value is not None else None
                    correct += _norm(got) == _norm(want)
            row["extraction_field_acc"] = correct / max(total, 1)
            row["extraction_complete"] = complete / max(len(extraction), 1)
            # text-to-SQL
            hits = complete = 0
            answers: list[dict[str, Any]] = []
            for item in questions:
                prompt = SQL_ASK.format(question=item["question"])
                if not instr:
                    prompt = SQL_SCHEMA.format(ddl=ddl) + prompt
                value, details, outcome = _run(sql_type, prompt, model, options, 160)
                complete += outcome == "ok"
                answer = {"question": item["question"], "outcome": outcome, "right": False}
                answer["text"] = details.text if details is not None else None
                answers.append(answer)
                if value is None:
                    continue
                ordered = "ORDER BY" in item["gold"].upper()
                text = value.meta.get("text") or value.sql(dialect="sqlite")
                got = _rows(conn, text, ordered)
                answer["right"] = got is not None and got == _rows(conn, item["gold"], ordered)
                hits += answer["right"]
            row["sql_exec_acc"] = hits / max(len(questions), 1)
            row["sql_complete"] = complete / max(len(questions), 1)
            row["sql_answers"] = answers
            # configs
            good = 0
            for item in configs:
                grammar = typedgen.grammars.load(item["format"])
                value, details, outcome = _run(grammar, item["prompt"], model, options, 160)
                text = value if isinstance(value, str) else (details.text if details else "")
                if not options.get("constrain", True):
                    text = typedgen.prompts.unconstrained_answer(text)
                good += outcome == "ok" and _config_ok(item["format"], text, item["keys"])
            row["config_valid"] = good / max(len(configs), 1)
            row["seconds"] = round(time.perf_counter() - started, 1)
            row["items"] = {
                "extraction": len(extraction),
                "sql": len(questions),
                "configs": len(configs),
            }
            print(json.dumps({k: v for k, v in row.items() if k != "sql_answers"}), flush=True)
            results.append(row)
    return results


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| model | mode | extraction field acc. | extraction complete | SQL exec. acc."
        " | SQL complete | config valid | items (ext/sql/cfg) | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        n = r["items"]
        lines.append(
            f"| {r['model']} | {r['mode']} | {r['extraction_field_acc']:.0%}"
            f" | {r['extraction_complete']:.0%} | {r['sql_exec_acc']:.0%} | {r['sql_complete']:.0%}"
            f" | {r['config_valid']:.0%} | {n['extraction']}/{n['sql']}/{n['configs']}"
            f" | {r['seconds']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="smollm2-135m,gemma-3-270m")
    parser.add_argument("--limit", type=int, default=0, help="items per task (0: all)")
    parser.add_argument("--modes", default=",".join(MODES), help="subset of " + ",".join(MODES))
    parser.add_argument(
        "--instructions",
        choices=("both", "on", "off"),
        default="both",
        help="run each mode with the prompt instructions, without, or both",
    )
    parser.add_argument("--tasks", default=",".join(TASKS), help="subset of " + ",".join(TASKS))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    for mode in [m for m in MODES if m not in args.modes.split(",")]:
        del MODES[mode]
    has_instructions = hasattr(typedgen, "instructions_for")
    instructions: list[bool | None] = [None]
    if has_instructions:
        sides: dict[str, list[bool | None]] = {"both": [False, True], "on": [True], "off": [False]}
        instructions = sides[args.instructions]
    results: list[dict[str, Any]] = []
    for name in args.models.split(","):
        tasks = tuple(t for t in TASKS if t in args.tasks.split(","))
        results += run_model(name.strip(), args.limit, instructions, tasks)
    print(table(results))
    if not has_instructions:
        print("\n(no prompt instructions in this typedgen: deliverable 1 is not merged)")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

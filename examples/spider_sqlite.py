"""Text-to-SQL on a real SQLite database: Spider questions answered with schema-checked SQL.

The databases come from the Spider dev schemas in the evaldata (``spider_dev/tables.json``, with
a few invented rows each; see ``benchmarks/spider_db.py``). ``typedgen.Sql("sqlite",
schema=conn)`` reads the schema from the live connection, so the model can only name its tables
and columns, and every column must resolve through a table in the query (a miss is fed back to
the model and retried). The value is a sqlglot ``Expression``: run its text on SQLite, or
transpile it to another dialect. The grammar makes the SQL parse, name only the schema's
tables and columns, and read only; whether a 135M-parameter model answers the question is another
matter: compare the gold SQL printed under it.

Run: python examples/spider_sqlite.py   (needs ../shared/evaldata, or $TYPEDGEN_EVALDATA)
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

# The database builder is shared with the Spider benchmark: run from a checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import typedgen
from benchmarks.spider_db import (
    SQLITE_FUNCTIONS,
    build_database,
    load_questions,
    load_schemas,
    messages,
    spider_dir,
)

# Spider dev questions (by name) on its employee_hire_evaluation database.
QUESTIONS = ("spider-dev/0259", "spider-dev/0289", "spider-dev/0296")


def open_database(schema: dict[str, object]) -> tuple[sqlite3.Connection, typedgen.Sql]:
    conn = build_database(schema)  # in memory, 6 invented rows a table
    return conn, typedgen.Sql("sqlite", schema=conn, functions=SQLITE_FUNCTIONS)


def main() -> None:
    if not (spider_dir() / "tables.json").exists():
        sys.exit(
            f"Spider data not found at {spider_dir()}:"
            " set TYPEDGEN_EVALDATA to the folder that holds spider_dev/"
        )
    schemas = load_schemas()
    questions = [q for q in load_questions() if q.name in QUESTIONS]
    model = typedgen.load_model()
    print(f"model: {model.name} on {model.device}")
    databases = {db: open_database(schemas[db]) for db in dict.fromkeys(q.db_id for q in questions)}
    for q in questions:
        conn, sql = databases[q.db_id]
        prompt = messages(q.question)  # the instructions carry the dialect and the DDL
        print(f"\n[{q.db_id}] {q.question}")
        t0 = time.perf_counter()
        try:
            tree = typedgen.generate(
                sql, prompt, model=model, max_tokens=96, on_max_tokens="finish"
            )
        except typedgen.ValidationFailed as exc:  # every attempt named a column out of scope
            print(f"  no SQL after {len(exc.attempts)} attempts: {exc.attempts[-1].error}")
            continue
        except typedgen.GenerationError as exc:
            print(f"  no SQL: {exc}")
            continue
        text = tree.meta["text"]
        print(f"  SQL ({time.perf_counter() - t0:.1f}s): {text}")
        print(f"  as postgres: {tree.sql(dialect='postgres')}")
        print(f"  gold SQL:    {q.query}")
        try:
            print(f"  rows: {conn.execute(text).fetchmany(5)}")
        except sqlite3.Error as exc:  # parses, but SQLite refuses it (a type mismatch, ...)
            print(f"  SQLite error: {exc}")


if __name__ == "__main__":
    main()

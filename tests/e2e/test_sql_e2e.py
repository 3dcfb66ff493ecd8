"""Text-to-SQL end to end on the real default model, over a Spider database built in SQLite.

The database comes from the Spider dev schema in the evaldata (``benchmarks/spider_db.py``:
``tables.json`` plus a few invented rows); the oracles are sqlglot's parser and SQLite itself.
"""

from __future__ import annotations

import sqlite3

import pytest
import sqlglot
from sqlglot import exp

import typedgen
from benchmarks.spider_db import (
    SQLITE_FUNCTIONS,
    build_database,
    load_questions,
    load_schemas,
    messages,
    spider_dir,
)
from typedgen.binding import BindingError
from typedgen.models import LoadedModel

pytestmark = pytest.mark.model
DB = "employee_hire_evaluation"


@pytest.fixture(scope="module")
def employees() -> sqlite3.Connection:
    if not (spider_dir() / "tables.json").exists():
        pytest.skip(f"evaldata set 'spider_dev' not found at {spider_dir()}")
    return build_database(load_schemas()[DB])


def _question(name: str) -> str:
    (found,) = [q for q in load_questions() if q.name == name]
    assert found.db_id == DB
    return found.question


@pytest.mark.parametrize("name", ["spider-dev/0259", "spider-dev/0289"])
def test_spider_question_runs_on_sqlite(
    loaded: LoadedModel, employees: sqlite3.Connection, name: str
) -> None:
    sql = typedgen.Sql("sqlite", schema=employees, functions=SQLITE_FUNCTIONS)
    prompt = messages(_question(name), sql.schema.describe())
    # The prompt carries the schema already, as the Spider benchmark sends it: no second copy.
    # (With the default instructions too, greedy output for 0289 loops in an alias,
    # "start_date_bonus_bonus_...", and fails the schema check three times.)
    tree = typedgen.generate(
        sql, prompt, model=loaded, max_tokens=96, on_max_tokens="finish", instructions=False
    )
    assert isinstance(tree, exp.Query)
    text = tree.meta["text"]
    assert isinstance(sqlglot.parse_one(text, read="sqlite"), exp.Query)
    employees.execute(text).fetchall()  # sqlite3.Error if SQLite refuses it
    assert tree.sql(dialect="postgres")


def test_default_statements_refuse_writes(
    loaded: LoadedModel, employees: sqlite3.Connection
) -> None:
    # statements=("select",) by default: asked to delete, the model can only write a query.
    sql = typedgen.Sql("sqlite", schema=employees, functions=SQLITE_FUNCTIONS, check_columns=False)
    with pytest.raises(BindingError) as refused:
        sql.parse("DELETE FROM employee WHERE Age > 30")
    assert refused.value.code == "sql-statement-refused"
    prompt = messages("Delete every employee older than 30.")  # the instructions hold the DDL
    tree = typedgen.generate(sql, prompt, model=loaded, max_tokens=64, on_max_tokens="finish")
    assert isinstance(tree, exp.Query)
    writes = (exp.Delete, exp.Insert, exp.Update, exp.Drop, exp.Create)
    assert not list(tree.find_all(*writes)), tree.meta["text"]

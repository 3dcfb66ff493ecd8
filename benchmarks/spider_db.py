"""Spider dev databases as small SQLite databases, for the text-to-SQL example, test and benchmark.

The evaldata has Spider's schemas (``spider_dev/tables.json``) and questions with gold SQL
(``spider_dev/items.jsonl``) but not the ``.sqlite`` files, so :func:`build_database` creates
each database from its schema and fills a few deterministic rows per table: ids 1..N, foreign
keys pointing at existing rows (so joins return rows), and text derived from the column name
(``Name`` -> ``Singer 3``, ``Country`` -> a real country). The data is invented: gold queries
run, but their results mean little.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SQLITE_FUNCTIONS",
    "SYSTEM",
    "Question",
    "build_database",
    "load_questions",
    "load_schemas",
    "messages",
    "spider_dir",
]

REPO = Path(__file__).resolve().parents[1]
# Functions every SQLite build has (core, aggregate and date functions), for typedgen.Sql's
# ``functions=``: without it the grammar offers every function sqlglot knows for SQLite.
SQLITE_FUNCTIONS = (
    "COUNT", "SUM", "AVG", "MIN", "MAX", "TOTAL", "GROUP_CONCAT", "ABS", "ROUND", "LENGTH",
    "LOWER", "UPPER", "SUBSTR", "TRIM", "LTRIM", "RTRIM", "REPLACE", "INSTR", "COALESCE",
    "IFNULL", "NULLIF", "IIF", "DATE", "TIME", "DATETIME", "JULIANDAY", "STRFTIME", "TYPEOF",
)  # fmt: skip
ASK = "Write one SQLite query that answers: "
SYSTEM = "You write one SQLite query that answers the question. Reply with the SQL only."
_TYPES = {"number": "INTEGER", "time": "DATETIME", "boolean": "BOOLEAN"}
_COUNTRIES = ("France", "United States", "Netherlands", "Japan", "Brazil", "Germany", "Italy")
_CITIES = ("Paris", "London", "Boston", "Tokyo", "Madrid", "Berlin", "Rome", "Austin")
_FIRST = ("Alice", "Bruno", "Chen", "Dana", "Emil", "Fatima", "George", "Hana")
_LAST = ("Martin", "Rossi", "Wang", "Smith", "Novak", "Haddad", "Brown", "Sato")


@dataclass(frozen=True)
class Question:
    name: str
    db_id: str
    question: str
    query: str  # the gold SQLite query


def spider_dir() -> Path:
    """``spider_dev`` in the evaldata: ``$TYPEDGEN_EVALDATA`` or ``<repo>/../shared/evaldata``."""
    root = os.environ.get("TYPEDGEN_EVALDATA") or REPO / ".." / "shared" / "evaldata"
    return (Path(root) / "spider_dev").resolve()


def load_schemas(path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Spider's ``tables.json`` entries by ``db_id`` (FileNotFoundError when absent)."""
    tables = json.loads(((path or spider_dir()) / "tables.json").read_text(encoding="utf-8"))
    return {entry["db_id"]: entry for entry in tables}


def load_questions(path: Path | None = None) -> list[Question]:
    """The dev questions in file order (FileNotFoundError when absent)."""
    with open((path or spider_dir()) / "items.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [Question(r["name"], r["db_id"], r["question"], r["query"]) for r in rows]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _words(name: str) -> str:
    return name.replace("_", " ").strip().title()


def _value(table: str, column: str, kind: str, i: int, key: bool) -> object:
    """Row ``i``'s (1-based) value of a column, from its Spider type and its name."""
    low = column.lower()
    if "year" in low:
        return 1990 + 4 * i if kind == "number" else str(1990 + 4 * i)
    if kind == "number":
        if key or low == "id" or low.endswith("id"):
            return i
        if "age" in low.split("_"):
            return 18 + (7 * i) % 45
        salt = sum(map(ord, column))  # columns of one row differ
        return (37 * i + salt) % 100 + i  # distinct, unordered: ORDER BY and MAX mean something
    if kind == "time":
        return f"20{10 + i:02d}-{(i * 5) % 12 + 1:02d}-{(i * 7) % 28 + 1:02d} 10:00:00"
    if kind == "boolean" or low.startswith(("is_", "if_")):
        return "T" if i % 2 else "F"
    picks: list[tuple[Callable[[str], bool], tuple[str, ...]]] = [
        (lambda c: any(w in c for w in ("country", "nationality", "citizenship")), _COUNTRIES),
        (lambda c: "city" in c or "location" in c, _CITIES),
        (lambda c: c == "fname" or ("first" in c and "name" in c), _FIRST),
        (lambda c: c == "lname" or ("last" in c and "name" in c), _LAST),
        (lambda c: c == "pettype", ("cat", "dog")),
        (lambda c: c in ("sex", "gender"), ("F", "M")),
    ]
    for test, words in picks:
        if test(low):
            return words[(i - 1) % len(words)]
    if "code" in low or key:
        return f"{column[:3].upper()}{i}"
    if low == "name":
        return f"{_words(table)} {i}"
    if low.endswith("name"):  # Song_Name -> "Song 3"
        return f"{_words(column[:-4])} {i}"
    return f"{_words(column)} {i}"


def build_database(
    schema: dict[str, Any], rows: int = 6, path: str | Path = ":memory:"
) -> sqlite3.Connection:
    """Create one Spider database from its ``tables.json`` entry and fill ``rows`` rows a table.

    A foreign key takes the referenced column's value of an existing row (rows 1..N/2, so some
    rows are referenced twice and some never); a column that is both key and foreign key keeps
    its own row, so keys stay unique. Once filled, the connection only reads
    (``PRAGMA query_only``): generated SQL cannot change it.
    """
    tables: list[str] = schema["table_names_original"]
    columns: list[tuple[int, str]] = [tuple(c) for c in schema["column_names_original"]]
    kinds: list[str] = schema["column_types"]
    keys = set(schema["primary_keys"]) - {0}
    refs = dict(map(tuple, schema["foreign_keys"]))
    half = (rows + 1) // 2

    def value(col: int, i: int, seen: frozenset[int] = frozenset()) -> object:
        table, name = columns[col]
        if col in refs and refs[col] not in seen:
            order = sorted(c for c in refs if columns[c][0] == table).index(col)
            j = i if col in keys else (i - 1 + order) % half + 1
            return value(refs[col], j, seen | {col})
        return _value(tables[table], name, kinds[col], i, col in keys)

    conn = sqlite3.connect(path)
    for t, table in enumerate(tables):
        if table.lower().startswith("sqlite_"):  # SQLite's own (AUTOINCREMENT counters)
            continue
        cols = [k for k, (owner, _) in enumerate(columns) if owner == t]
        pk = [k for k in cols if k in keys]
        defs = [f"{_quote(columns[k][1])} {_TYPES.get(kinds[k], 'TEXT')}" for k in cols]
        if len(pk) == 1:
            defs[cols.index(pk[0])] += " PRIMARY KEY"
        for k in cols:
            if k in refs:
                owner, target = columns[refs[k]]
                defs.append(
                    f"FOREIGN KEY ({_quote(columns[k][1])})"
                    f" REFERENCES {_quote(tables[owner])} ({_quote(target)})"
                )
        conn.execute(f"CREATE TABLE {_quote(table)} ({', '.join(defs)})")
        marks = ", ".join("?" * len(cols))
        data = [[value(k, i) for k in cols] for i in range(1, rows + 1)]
        conn.executemany(f"INSERT INTO {_quote(table)} VALUES ({marks})", data)
    conn.commit()
    conn.execute("PRAGMA query_only = ON")  # generated SQL may only read
    return conn


def messages(question: str, schema_ddl: str | None = None) -> list[dict[str, str]]:
    """The chat prompt: the schema as CREATE TABLE lines (when given), then the question.

    Leave ``schema_ddl`` out when typedgen's prompt instructions are on (the default): they
    already carry the dialect and the schema's DDL, and the model would read them twice.
    """
    ask = f"{ASK}{question}" if schema_ddl is None else f"{schema_ddl}\n\n{ASK}{question}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ask}]

"""Dump the JSON Schema frontend's output, to diff before and after a refactor of the lowering.

For every schema of the evaldata JSON sets (JSON-Schema-Test-Suite, jsonschemabench), every
Pydantic model of tests/frontends/jsonschema, the schemas of benchmarks/schemas and (with
``--fuzz FILE``) a saved list of fuzzer schemas: ``str(Grammar.from_json_schema(schema, ...))``
for ``spellings`` "all" and "canonical", each strict and with ``strict=False`` (plus
``key_order="any"``), or the refusal's class, code, keyword and path. ``--verdicts`` writes
``lower_schema(explain=True)`` verdicts instead. A case that runs past 60 s is recorded as a
timeout (run under ``ulimit -v`` so that a runaway case ends as a ``MemoryError``). ``--time``
measures the lowering time of the jsonschemabench dev split (defaults, best of ``--repeat``
runs; wall and process CPU time, the latter robust on a shared machine) and prints it.

    python benchmarks/jsonschema_dump.py OUT.txt [--fuzz FILE] [--verdicts]
    nice -n 10 python benchmarks/jsonschema_dump.py --time [--repeat 3]

The output is not committed: diff two dumps with ``cmp`` / ``diff``.
"""

from __future__ import annotations

import argparse
import enum
import hashlib
import importlib
import json
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.jsonschema_runner import items, options_for, remotes
from typedgen.errors import TypedgenError
from typedgen.frontends.jsonschema.lower import lower_schema
from typedgen.ir import Grammar

REPO = Path(__file__).resolve().parents[1]
LIMIT_S = 60
VARIANTS: list[dict[str, Any]] = [
    {"spellings": "all"},
    {"spellings": "all", "strict": False},
    {"spellings": "canonical"},
    {"spellings": "canonical", "strict": False},
    {"spellings": "canonical", "key_order": "any"},
]


SETS = ("json_schema_test_suite", "jsonschemabench")


def cases(
    fuzz: str | None, sets: tuple[str, ...] = SETS
) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(name, schema, options) for every schema of the sets."""
    for set_name in sets:
        for item in items(set_name):
            yield f"{set_name}/{item['name']}", item["schema"], options_for(item)
    for path in sorted((REPO / "benchmarks" / "schemas").glob("*.json")):
        yield f"benchmarks/{path.name}", json.loads(path.read_text()), {}
    if fuzz:
        for i, schema in enumerate(json.loads(Path(fuzz).read_text())):
            yield f"fuzz/{i}", schema, {}


def pydantic_types() -> Iterator[tuple[str, object]]:
    """Every Pydantic model and Enum defined in the modules of tests/frontends/jsonschema."""
    from pydantic import BaseModel

    for path in sorted((REPO / "tests" / "frontends" / "jsonschema").glob("test_*.py")):
        module = importlib.import_module(f"tests.frontends.jsonschema.{path.stem}")
        for name, value in sorted(vars(module).items()):
            if (
                isinstance(value, type)
                and issubclass(value, BaseModel | enum.Enum)
                and value not in (BaseModel, enum.Enum)
                and value.__module__ == module.__name__
            ):
                yield f"{path.stem}.{name}", value


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def _outcome(build: Any) -> str:
    """The grammar text, the refusal, or the crash (a case runs for at most ``LIMIT_S``)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT_S)
    try:
        return str(build())
    except _Timeout:
        return f"TIMEOUT after {LIMIT_S} s"
    except TypedgenError as exc:
        keyword = getattr(exc, "keyword", None)
        path = getattr(exc, "path", None)
        return f"REFUSED {type(exc).__name__} {exc.code} {keyword} {path}\n  {exc}"
    except Exception as exc:  # a bug of the lowering: recorded, so a change shows in the diff
        return f"CRASH {type(exc).__name__}: {exc}"[:400]
    finally:
        signal.alarm(0)


def _verdicts(schema: Any, resources: Any, options: dict[str, Any]) -> str:
    opts = {k: v for k, v in options.items() if k != "strict"}
    try:
        lowered = lower_schema(schema, explain=True, resources=resources, **opts)
    except Exception as exc:
        return f"RAISED {type(exc).__name__}: {exc}"[:400]
    return "\n".join(f"{v.path} {v.keyword} {v.status} {v.detail}" for v in lowered.verdicts)


def dump(out_path: str, fuzz: str | None, verdicts: bool, sets: tuple[str, ...] = SETS) -> None:
    resources = remotes()
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for name, schema, base in cases(fuzz, sets):
            for variant in VARIANTS if not verdicts else VARIANTS[::2]:
                options = {**base, **variant}
                label = json.dumps(options, sort_keys=True)
                if verdicts:
                    text = _verdicts(schema, resources, options)
                else:
                    text = _outcome(
                        lambda s=schema, o=options: Grammar.from_json_schema(
                            s, resources=resources, **o
                        )
                    )
                out.write(f"=== {name} {label}\n{text}\n")
                n += 1
        if not verdicts:
            from typedgen.types import grammar_of

            for name, tp in pydantic_types():
                out.write(f"=== pydantic/{name}\n{_outcome(lambda t=tp: grammar_of(t))}\n")
                n += 1
    digest = hashlib.sha256(Path(out_path).read_bytes()).hexdigest()[:16]
    print(f"{n} entries written to {out_path} (sha256 {digest})")


def timing(repeat: int) -> None:
    """Lowering time of the jsonschemabench dev split with the defaults (best of ``repeat``)."""
    schemas = [item["schema"] for item in items("jsonschemabench")]
    best = best_cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        for schema in schemas:
            try:
                Grammar.from_json_schema(schema)
            except TypedgenError:
                pass
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    print(
        f"jsonschemabench dev ({len(schemas)} schemas): lowering {best:.2f} s wall,"
        f" {best_cpu:.2f} s CPU (best of {repeat})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", nargs="?")
    parser.add_argument("--fuzz", help="a JSON file holding a list of schemas")
    parser.add_argument("--verdicts", action="store_true")
    parser.add_argument("--set", action="append", choices=SETS, help="only these evaldata sets")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.time:
        timing(args.repeat)
    else:
        if not args.out:
            parser.error("give the output file")
        dump(args.out, args.fuzz, args.verdicts, tuple(args.set or SETS))


if __name__ == "__main__":
    main()

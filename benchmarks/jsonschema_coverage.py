"""JSON Schema coverage, typedgen beside llguidance, on the same schemas in one run.

For every schema of ../shared/evaldata/jsonschemabench (per subset) and the JSON-Schema-Test-Suite:
typedgen *compiles* it (``Grammar.from_json_schema`` with its defaults, ``spellings="all"``, and
``formats="annotate"`` for the suite's required groups, as in
``tests/conformance/jsonschema_runner.py``; then ``compile`` for a byte vocabulary), or
*refuses* it naming a keyword, or hits a *budget*; llguidance *accepts* it
(``LLMatcher.validate_grammar`` returns no error) or not. For typedgen the instance results are
also given: valid instances accepted, invalid instances rejected (soundness).

    python benchmarks/jsonschema_coverage.py [--sample N] > benchmarks/JSONSCHEMA.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.jsonschema_runner import Result, items, remotes, run_item, summarise


def llguidance_ok(schema: Any) -> bool:
    import llguidance

    try:
        grammar = llguidance.grammar_from("json_schema", json.dumps(schema))
        return not llguidance.LLMatcher.validate_grammar(grammar)
    except Exception:  # llguidance raises for schemas it cannot read
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=1, help="take every Nth schema")
    parser.add_argument(
        "--set",
        action="append",
        choices=("json_schema_test_suite", "jsonschemabench"),
        help="measure only this set (repeatable; default: both)",
    )
    args = parser.parse_args()
    resources = remotes()
    print(
        "| set / subset | schemas | typedgen compiled | refused | budget | llguidance accepted"
        " | valid accepted | invalid rejected |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for set_name in args.set or ("json_schema_test_suite", "jsonschemabench"):
        groups: dict[str, list[tuple[Result, bool]]] = defaultdict(list)
        t0 = time.perf_counter()
        for item in items(set_name)[:: args.sample]:
            result = run_item(item, resources, ("compact",))
            key = item.get("subset", "all") if set_name == "jsonschemabench" else "all"
            groups[key].append((result, llguidance_ok(item["schema"])))
        for key, rows in sorted(groups.items()):
            results = [r for r, _ in rows]
            s = summarise(results)
            llg = sum(ok for _, ok in rows)
            budget = sum(1 for r in results if r.status == "error")
            print(
                f"| {set_name} / {key} | {s['schemas']} | {s['compiled']} | {s['refused']}"
                f" | {budget} | {llg} | {s['valid_accepted']}/{s['valid_total']}"
                f" | {s['invalid_rejected']}/{s['invalid_total']} |"
            )
        refusals = Counter(
            r.detail.split(" at ")[0]
            for rows in groups.values()
            for r, _ in rows
            if r.status == "refused"
        )
        print(
            f"\n{set_name}: typedgen refusals by keyword {dict(refusals.most_common())}"
            f" [{time.perf_counter() - t0:.0f}s]\n",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()

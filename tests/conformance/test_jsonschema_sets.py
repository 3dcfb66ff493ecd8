"""Conformance of ``Grammar.from_json_schema`` on the JSON Schema sets of ../shared/evaldata.

Soundness is absolute: no invalid instance of a compiled schema may be accepted, in either
layout. Every schema compiles or is refused by keyword (a ``SchemaError``); errors of any other
kind fail. Coverage and the valid-acceptance rate are pinned from below so they cannot regress
silently; ``python -m tests.conformance.jsonschema_runner`` prints the full report.
"""

from __future__ import annotations

import pytest

from tests._support import evaldata_items
from tests.conformance.jsonschema_runner import LAYOUTS, Result, remotes, run_item, summarise

# Measured on the dev split (2026-12-02, with spellings="all"); raise them when coverage
# improves. The suite's valid instances of compiled groups must be accepted at >= 99%.
FLOORS = {
    "json_schema_test_suite": {"compiled": 295, "valid_accepted": 1680},
    "jsonschemabench": {"compiled": 102, "valid_accepted": 124},
}
VALID_RATE = {"json_schema_test_suite": 0.99}
# Budget errors are typed CompileBudgetErrors for very long maxLength strings (listed in
# docs/json-schema.md); every other error is a bug.
BENCH_SAMPLE = 10  # every 10th jsonschemabench item keeps the test under a minute


def _check(results: list[Result], floors: dict[str, int]) -> dict[str, int]:
    accepted_invalid = [(r.name, p) for r in results for p in r.problems if "INVALID" in p]
    assert not accepted_invalid, accepted_invalid[:5]
    errors = [(r.name, r.detail) for r in results if r.status == "error"]
    assert all("CompileBudgetError" in d for _, d in errors), errors[:5]
    summary = summarise(results)
    for key, floor in floors.items():
        assert summary[key] >= floor, (key, summary)
    return summary


@pytest.mark.slow
def test_json_schema_test_suite() -> None:
    resources = remotes()
    items = evaldata_items("json_schema_test_suite")
    results = [run_item(it, resources, LAYOUTS) for it in items]
    summary = _check(results, FLOORS["json_schema_test_suite"])
    rejected = [(r.name, p) for r in results for p in r.problems if "valid rejected" in p]
    rate = summary["valid_accepted"] / summary["valid_total"]
    assert rate >= VALID_RATE["json_schema_test_suite"], (rate, rejected[:10])


@pytest.mark.slow
def test_jsonschemabench_sample() -> None:
    items = evaldata_items("jsonschemabench")[::BENCH_SAMPLE]
    _check([run_item(it, {}, ("compact",)) for it in items], FLOORS["jsonschemabench"])

"""A short, deterministic run of each fuzzer: the property of ``scripts/fuzz.sh`` on a few inputs.

Every input goes through its frontend, ``typedgen.compile`` with the SmolLM2 vocabulary and a
few matcher steps; it must compile or raise a placed, hinted ``TypedgenError``, within the
per-input time budget (a hang detector, not a speed test) and the peak-RSS growth bound. The
long runs are ``bash scripts/fuzz.sh``; the inputs they found are the regression tests beside
each frontend's own tests.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.fuzz.harness import TARGETS, Case, Failure, run_guarded
from tests.fuzz.strategies import STRATEGIES
from typedgen.compiler.vocabulary import Vocabulary

EXAMPLES = {"jsonschema": 40, "lark": 40, "gbnf": 40, "regex": 40, "sql": 6}
"""Per target; SQL inputs cost a dialect's grammar each (about a second)."""


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_smoke(target: str, smollm2_vocab: Vocabulary) -> None:
    failures: list[str] = []

    @settings(
        max_examples=EXAMPLES[target],
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(STRATEGIES[target])
    def run(case: Case) -> None:
        try:
            run_guarded(case, smollm2_vocab)
        except Failure as failure:
            failures.append(f"{failure}\n  input: {case.summary(400)}\n{failure.trace[-1500:]}")

    run()
    assert not failures, "\n\n".join(failures)

"""Inputs the fuzzers found in code outside the frontends: the engine, and one JSON Schema module.

``OPEN`` still breaks the property (compiles, or raises a placed and hinted ``TypedgenError``,
within the time budget): each is ``xfail(strict=True)`` with its owner and cause, so a fix makes
the test XPASS, fail, and the marker come off. ``FIXED`` broke it once and must keep passing.
All run in one fuzz worker process (:class:`tests.fuzz.driver.Worker`): a crash, or a hang
inside native code where no signal reaches, cannot take the test session with it.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import typedgen
from tests.fuzz.driver import Worker
from tests.fuzz.harness import Case, Failure
from typedgen.compiler.vocabulary import Vocabulary

BUDGET_S = 4.0
"""A hang detector only: the hangs below run for minutes; a fixed one takes well under this."""


@dataclass(frozen=True)
class Found:
    name: str
    case: Case
    reason: str = ""


OPEN: list[Found] = []

FIXED = [
    Found(
        "json-huge-maxlength",
        Case("jsonschema", {"schema": {"type": "string", "maxLength": 2**31}}),
        "was one rule per chunk of maxLength (2**31 ran for minutes); maxLength above 2**20"
        " is now refused by name",
    ),
    Found(
        "lark-huge-negative-priority",
        Case(
            "lark",
            {"text": 'start: A B | AB\nA.-99999999999999999999999: "a"\nB: "b"\nAB: "ab"\n'},
        ),
        "was RuntimeError std::bad_cast from the native engine",
    ),
    Found(
        "json-required-escapes",
        Case("jsonschema", {"schema": {"required": ["foo\nbar", 'foo"bar', "foo\\bar"]}}),
        "was a segfault of the native engine",
    ),
    Found(
        "gbnf-nullable-star",
        Case("gbnf", {"text": "root ::= . [\\-]? | root*\n", "start": "root"}),
        "was a token-table-budget error without an origin; it now names the first placed"
        " terminal of the lexeme, else the start rule",
    ),
    Found(
        "lark-dynamic-ignore",
        Case(
            "lark",
            {
                "text": 'start: "a" -> alias\na: NUM "a" -> alias\nA: "a"\nB: "a"\n'
                'NUM: "a" D | "a" "a" "a"\nD: "aa"\n%ignore /\\s+/\n',
                "lexer": "dynamic",
            },
        ),
        "was a token-table-budget error without an origin (and a hang in the Python engine's "
        "run_small); now placed, and the walk budget stops both engines",
    ),
    Found(
        "json-huge-maxitems",
        Case("jsonschema", {"schema": {"type": "array", "maxItems": 2**31 - 1}}),
        "was Repeat(x, 0, 2**31 - 1) unrolled one nonterminal per count; the lowering now "
        "refuses repetitions past RULE_BUDGET symbols (rule-budget), placed at the owner rule",
    ),
    Found(
        "lark-huge-repeat",
        Case("lark", {"text": 'start: /[a-z]+/ | /\\w+/~399999999999 "a".."z"\n'}),
        "was a MemoryError building `item * expr.min` for a count of 4e11; refused by rule-"
        "budget first",
    ),
    Found(
        "json-minlength-2-31",
        Case("jsonschema", {"schema": {"minLength": 2147483648}}),
        "was an OverflowError (a count past int32 in encode_expr); counts above the DFA budget "
        "are refused before any work",
    ),
    Found(
        "json-245-digit-minimum",
        Case("jsonschema", {"schema": {"minimum": 1.072e245}}),
        "was a RecursionError hashing/building the number grammar of a long bound; dfa-budget "
        "now, placed",
    ),
    Found(
        "regex-wide-repeat",
        Case("regex", {"pattern": "a|.{65535}a*", "flags": 0}),
        "was nfa-budget without an origin; now named at the rule (<regex>)",
    ),
]


@pytest.fixture(scope="module")
def verdicts(
    tmp_path_factory: pytest.TempPathFactory, smollm2_vocab: Vocabulary
) -> Iterator[dict[str, object]]:
    folder = tmp_path_factory.mktemp("fuzz-regressions")
    vocab_path = folder / "smollm2.vocab"
    smollm2_vocab.save(vocab_path)
    worker = Worker(vocab_path, Path(folder / "worker.log"), BUDGET_S, 4096, grace=4.0)
    try:
        yield {found.name: worker.run(found.case) for found in OPEN + FIXED}
    finally:
        worker.stop()


def _params(found: list[Found], *, xfail: bool) -> list[object]:
    return [
        pytest.param(
            f, id=f.name, marks=[pytest.mark.xfail(strict=True, reason=f.reason)] if xfail else []
        )
        for f in found
    ]


@pytest.mark.parametrize("found", _params(OPEN, xfail=True))
def test_open_fuzz_failure(found: Found, verdicts: dict[str, object]) -> None:
    result = verdicts[found.name]
    assert not isinstance(result, Failure), str(result)


@pytest.mark.parametrize("found", _params(FIXED, xfail=False))
def test_fixed_fuzz_failure(found: Found, verdicts: dict[str, object]) -> None:
    result = verdicts[found.name]
    assert not isinstance(result, Failure), str(result)


def test_compiled_grammars_are_freed(smollm2_vocab: Vocabulary) -> None:
    compiled = typedgen.compile(typedgen.Regex("[a-z]+x"), smollm2_vocab, cache=False)
    compiled.matcher().allowed_token_ids()
    ref = weakref.ref(compiled)
    del compiled
    gc.collect()
    assert ref() is None

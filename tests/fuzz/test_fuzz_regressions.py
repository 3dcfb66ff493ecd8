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


OPEN = [
    Found(
        "gbnf-nullable-star",
        Case("gbnf", {"text": "root ::= . [\\-]? | root*\n", "start": "root"}),
        "engine (runtime/native.py prepare): CompileBudgetError token-table-budget without an"
        " origin; the message names the lexemes, not a place in the grammar",
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
        "engine: token-table-budget without an origin (the Python engine instead runs past the"
        " time budget in compiler/tokentables.py run_small)",
    ),
    Found(
        "json-huge-maxitems",
        Case("jsonschema", {"schema": {"type": "array", "maxItems": 2**31 - 1}}),
        "engine (compiler/lowering.py _lower_repeat): Repeat(x, 0, 2**31 - 1) is unrolled one"
        " nonterminal per count; no budget stops it (maxItems 2**64 the same; minItems 3e14"
        " is a MemoryError in `item * expr.min`)",
    ),
    Found(
        "lark-huge-repeat",
        Case("lark", {"text": 'start: /[a-z]+/ | /\\w+/~399999999999 "a".."z"\n'}),
        "engine (compiler/lowering.py _lower_repeat): MemoryError building `item * expr.min`"
        " for a repeat count of 4e11; no budget refuses it first",
    ),
    Found(
        "json-minlength-2-31",
        Case("jsonschema", {"schema": {"minLength": 2147483648}}),
        "engine (compiler/automata.py encode_expr): OverflowError, a repeat count past int32",
    ),
    Found(
        "json-245-digit-minimum",
        Case("jsonschema", {"schema": {"minimum": 1.072e245}}),
        "engine (compiler/automata.py expr_to_dfa): RecursionError on the number grammar of a"
        " long bound, which nests one level per digit (the IR printer had the same limit)",
    ),
    Found(
        "regex-wide-repeat",
        Case("regex", {"pattern": "a|.{65535}a*", "flags": 0}),
        "engine (compiler/automata.py _native_build): CompileBudgetError nfa-budget without an"
        " origin (the rule has one: <regex>)",
    ),
]

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


@pytest.mark.xfail(
    strict=True,
    reason="engine (runtime/engines.py): _ENGINES is a WeakKeyDictionary whose values (the"
    " engines) hold their CompiledGrammar, so no key ever dies: every compiled grammar stays"
    " in memory (about 1 MB a regex, 11-18 MB a SQL grammar; the SQL fuzzer's worker grew to"
    " its 4 GiB limit in 650 inputs)",
)
def test_compiled_grammars_are_freed(smollm2_vocab: Vocabulary) -> None:
    compiled = typedgen.compile(typedgen.Regex("[a-z]+x"), smollm2_vocab, cache=False)
    compiled.matcher().allowed_token_ids()
    ref = weakref.ref(compiled)
    del compiled
    gc.collect()
    assert ref() is None

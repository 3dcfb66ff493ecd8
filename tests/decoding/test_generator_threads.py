"""One Generator called from several threads at once gives what each call gives alone.

Per call: the KV cache, the matchers, the sampling generator and the retry conversation. Shared:
the model's weights, the compiled grammar (its engine memo), the compile cache and the mask
worker. Each thread runs every job, in a rotated order, with a short switch interval so the
calls interleave finely; every outcome (value, text, attempts, or the error) must equal the
single-threaded one.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

import typedgen
from tests.decoding.test_loop import CALC
from typedgen.models import LoadedModel

THREADS = 4
# Strings, enums and booleans only: the outcomes should not hinge on how numbers may be spelt.
PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "color": {"enum": ["red", "green", "blue"]},
        "tags": {"type": "array", "items": {"enum": ["a", "bb", "ccc"]}, "maxItems": 3},
        "ok": {"type": "boolean"},
    },
    "required": ["name", "color", "tags", "ok"],
    "additionalProperties": False,
}


class Pet(BaseModel):
    name: str = Field(max_length=8)
    kind: Literal["cat", "dog", "bird"]
    tame: bool


def _short_name(value: dict[str, Any]) -> str | None:
    """Deterministic in the value, so a retry happens the same way on every thread."""
    return None if len(value["name"]) <= 3 else "the name must have at most 3 characters"


Outcome = tuple[str, Any]


def _outcome(run: Callable[[], Any]) -> Outcome:
    try:
        details = run()
    except typedgen.TypedgenError as exc:
        attempts = [(a.text, a.error) for a in getattr(exc, "attempts", [])]
        return (type(exc).__name__, (exc.code, getattr(exc, "partial_text", ""), attempts))
    if isinstance(details, list):  # batch
        return ("batch", [(d.value, d.text) for d in details])
    if isinstance(details, str):  # stream: the final text
        return ("stream", details)
    return ("ok", (details.value, details.text, [(a.text, a.error) for a in details.attempts]))


def _jobs(tiny: LoadedModel) -> list[Callable[[], Any]]:
    person = typedgen.Generator(PERSON, tiny, max_tokens=80)
    calc = typedgen.Generator(typedgen.Lark(CALC), tiny)
    pet = typedgen.Generator(Pet, tiny)
    word = typedgen.Generator(typedgen.Regex(r"[a-z]{1,8}( [a-z]{1,8}){0,3}"), tiny)

    def stream(prompt: str, **options: Any) -> Callable[[], str]:
        def run() -> str:
            events = list(person.stream(prompt, **options))
            assert events[-1].done
            return events[-1].text

        return run

    return [
        lambda: person("a person", return_details=True),
        lambda: person("someone else", return_details=True, temperature=1.0, seed=3),
        lambda: person("x", return_details=True, validators=[_short_name], max_retries=2),
        lambda: person("y", return_details=True, temperature=1.0, seed=9, max_tokens=6),
        lambda: calc("a sum", return_details=True, temperature=0.8, seed=1),
        lambda: calc([{"role": "user", "content": "product"}], return_details=True, num_beams=2),
        lambda: pet("a cat", return_details=True),
        lambda: pet.batch(["a dog", "a bird", "a fish"], return_details=True),
        lambda: word("words", return_details=True, temperature=1.2, seed=5),
        stream("streamed", temperature=1.0, seed=11),
    ]


def test_one_generator_on_several_threads(tiny: LoadedModel) -> None:
    jobs = _jobs(tiny)
    alone = [_outcome(job) for job in jobs]
    kinds = {kind for kind, _ in alone}
    assert {"ok", "batch", "stream"} <= kinds
    assert "IncompleteOutputError" in kinds  # max_tokens=6: an error is an outcome too
    retried = alone[2]  # the validator made it retry (and perhaps fail in the end)
    attempts = retried[1][2]
    assert len(attempts) > 1 and attempts[0][1] == "the name must have at most 3 characters"

    barrier = threading.Barrier(THREADS)
    results: list[list[Outcome] | None] = [None] * THREADS
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            order = list(range(len(jobs)))
            order = order[k:] + order[:k]
            barrier.wait()
            got: dict[int, Outcome] = {i: _outcome(jobs[i]) for i in order}
            results[k] = [got[i] for i in range(len(jobs))]
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    for k, outcomes in enumerate(results):
        assert outcomes is not None
        for i, (got, want) in enumerate(zip(outcomes, alone, strict=True)):
            assert got == want, f"thread {k}, job {i}"


def test_concurrent_first_use_compiles_once(tiny: LoadedModel) -> None:
    generator = typedgen.Generator(typedgen.Choice("north", "south", "east", "west"), tiny)
    barrier = threading.Barrier(THREADS)
    seen: list[typedgen.CompiledGrammar] = []

    def work() -> None:
        barrier.wait()
        seen.append(generator.compiled())

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == THREADS and all(c is seen[0] for c in seen)

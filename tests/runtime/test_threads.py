"""One compiled grammar shared by matchers on several threads gives the masks one thread gives.

The engine behind a compiled grammar is a lazily filled memo shared by every matcher (interned
states, token transitions, masks). Threads that reach the same unvisited states at once race to
fill it; a race that interned a state twice, or stored a half-built mask, would show up here as
a mask that differs from the single-threaded run. Each run starts from a cold grammar
(``cache=False``), so the threads really do the first visits together, and the switch interval
is shortened so the Python engine interleaves threads within a few bytecodes. Only the public
API is used, so this holds for any engine behind ``typedgen.compile``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedgen
from tests.runtime.test_token_level import ARITH_DOCS, JSON_DOCS
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.ir import Grammar

GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"
THREADS = 4
WALK_STEPS = 48
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "tags": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 4},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
        },
    },
    "required": ["name", "age"],
}


@dataclass(frozen=True)
class Job:
    """A teacher-forced document (``ids``) or a seeded random walk (``seed``)."""

    ids: tuple[int, ...] = ()
    seed: int | None = None


Step = tuple[bytes, int, bool, bytes, int, bool]
"""(mask digest, allowed count, is_complete, forced_bytes, chosen token, accepted)."""


def _run(compiled: typedgen.CompiledGrammar, job: Job) -> list[Step]:
    """Every mask on the way through ``job``, with what the matcher said about it."""
    vocab = compiled.vocabulary
    words = np.zeros((vocab.size + 31) // 32, dtype=np.int32)
    eos = frozenset(vocab.eos_ids)
    rnd = random.Random(job.seed)
    matcher = compiled.matcher()
    trace: list[Step] = []
    n_steps = len(job.ids) if job.seed is None else WALK_STEPS
    for step in range(n_steps):
        matcher.fill_next_token_bitmask(words)
        allowed = matcher.allowed_token_ids()
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")[: vocab.size]
        assert np.array_equal(np.flatnonzero(bits), np.sort(allowed))
        if job.seed is None:
            token = job.ids[step]
        else:
            choices = [int(t) for t in allowed if int(t) not in eos]
            if not choices:
                break
            token = rnd.choice(choices)
        digest = hashlib.blake2b(words.tobytes(), digest_size=16).digest()
        complete = matcher.is_complete()
        forced = matcher.forced_bytes()
        accepted = matcher.accept_token(token)
        trace.append((digest, len(allowed), complete, forced, token, accepted))
        if not accepted:
            break
        if job.seed is not None and step % 16 == 15:  # a fork must not disturb the shared memo
            fork = matcher.fork()
            fork.rollback(1)
            assert fork.accept_token(token)
    return trace


@contextmanager
def _fine_grained_switching() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _concurrently(compiled: typedgen.CompiledGrammar, jobs: list[Job]) -> list[list[list[Step]]]:
    """Run every job on each of THREADS threads (rotated orders), all sharing ``compiled``."""
    barrier = threading.Barrier(THREADS)
    results: list[list[list[Step]] | None] = [None] * THREADS
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            order = jobs[k:] + jobs[:k]  # every thread meets every document, at different times
            barrier.wait()
            traces = [_run(compiled, job) for job in order]
            results[k] = traces[len(jobs) - k :] + traces[: len(jobs) - k]
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    with _fine_grained_switching():
        threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


def _grammar(name: str) -> Any:
    if name == "schema":
        return SCHEMA
    return Grammar.from_gbnf((GRAMMARS / name).read_text(encoding="utf-8"), source=name)


def _documents(name: str) -> list[str]:
    if name == "arith.gbnf":
        return ARITH_DOCS
    people = [
        {"name": "Ada", "age": 36, "tags": ["red", "blue"], "address": {"city": "London"}},
        {"name": "Grace Hopper", "age": 85, "address": {"city": "NYC", "zip": "10001"}},
    ]
    if name == "schema":  # the schema's layout is compact by default
        return [json.dumps(p, separators=(",", ":")) for p in people]
    return [json.dumps(d) for d in JSON_DOCS] + [json.dumps(JSON_DOCS[0], indent=2)]


@pytest.mark.parametrize("name", ["json.gbnf", "arith.gbnf", "schema"])
def test_threads_share_a_grammar_and_see_one_threads_masks(
    name: str, smollm2_vocab: Vocabulary, smollm2_tokenizer: Any
) -> None:
    docs = _documents(name)
    jobs = [Job(ids=tuple(smollm2_tokenizer.encode(d, add_special_tokens=False))) for d in docs]
    jobs += [Job(seed=seed) for seed in range(5)]
    alone = typedgen.compile(_grammar(name), smollm2_vocab, cache=False)
    expected = [_run(alone, job) for job in jobs]
    for job, trace in zip(jobs, expected, strict=True):
        if job.seed is None:  # the documents are in the language: every token was accepted
            assert len(trace) == len(job.ids) and all(step[5] for step in trace)
    assert sum(len(t) for t in expected) > 200

    shared = typedgen.compile(_grammar(name), smollm2_vocab, cache=False)
    assert shared is not alone  # cold: the threads make the first visits together
    for k, traces in enumerate(_concurrently(shared, jobs)):
        for j, (got, want) in enumerate(zip(traces, expected, strict=True)):
            diff = [i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w]
            assert got == want, f"thread {k}, job {j}: first difference at step {diff[:1]}"

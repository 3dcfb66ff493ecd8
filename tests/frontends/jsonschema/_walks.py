"""Random walks through a compiled grammar's masks (test helper)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from typedgen.compiler.compiled import CompiledGrammar


def walk(comp: CompiledGrammar, rng: random.Random, limit: int) -> bytes | None:
    """Uniformly chosen allowed tokens until the text may end (then stop with p=0.35).

    Every mask must allow something; ``None`` when ``limit`` tokens did not reach an end.
    """
    m = comp.matcher()
    vocab = comp.vocabulary
    out = b""
    for _ in range(limit):
        allowed = m.allowed_token_ids().tolist()
        assert allowed, f"empty mask after {out!r}"
        texts = [t for t in allowed if t not in vocab.eos_ids]
        if m.is_complete() and (not texts or rng.random() < 0.35):
            return out
        token = rng.choice(texts)
        assert m.accept_token(token)
        out += vocab.token_bytes(token)
    return None


def finished_walks(
    comp: CompiledGrammar, seed: int, tries: int, limit: int, at_least: int = 5
) -> Iterator[bytes]:
    """The walks of ``tries`` attempts that ended; at least ``at_least`` of them must."""
    rng = random.Random(seed)
    done = 0
    for _ in range(tries):
        text = walk(comp, rng, limit)
        if text is not None:
            done += 1
            yield text
    assert done >= at_least, f"only {done} of {tries} walks ended within {limit} tokens"

"""Shared test helpers: evaldata location, small real vocabularies, grammar membership."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary

REPO = Path(__file__).resolve().parents[1]
# The shared conformance data sits beside the project (../shared/evaldata); TYPEDGEN_EVALDATA
# points elsewhere. Tests that need it skip, naming the path, when it is absent.
EVALDATA = Path(
    os.environ.get("TYPEDGEN_EVALDATA") or (REPO / ".." / "shared" / "evaldata")
).resolve()
UPDATE_GOLDENS = bool(os.environ.get("TYPEDGEN_UPDATE_GOLDENS"))


def read_items(name: str) -> list[dict[str, Any]]:
    """The items of one evaldata set; empty when the data is absent (for the CLI runners)."""
    path = EVALDATA / name / "items.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaldata_items(name: str) -> list[dict[str, Any]]:
    """The items of one evaldata set, or a skip with the reason when the data is absent."""
    path = EVALDATA / name / "items.jsonl"
    if not path.exists():
        pytest.skip(f"evaldata set {name!r} not found at {path} (../shared/evaldata is absent)")
    return read_items(name)


def byte_vocabulary(extra: tuple[bytes, ...] = ()) -> Vocabulary:
    """A vocabulary of the 256 single bytes (ids 1..256) plus ``extra``; id 0 is EOS."""
    return Vocabulary([b"", *(bytes([b]) for b in range(256)), *extra], eos_ids=[0], name="bytes")


def accepts(compiled: CompiledGrammar, data: bytes) -> bool:
    """Whether ``data`` is a full sentence, fed byte by byte through a fresh matcher."""
    m = compiled.matcher()
    for b in data:
        if not m.accept_bytes(bytes((b,))):
            return False
    return m.is_complete()


def prefix_ok(compiled: CompiledGrammar, data: bytes) -> bool:
    """Whether every byte of ``data`` is accepted (``data`` is a prefix of a sentence)."""
    m = compiled.matcher()
    return all(m.accept_bytes(bytes((b,))) for b in data)


def check_golden(path: Path, text: str) -> None:
    """Compare ``text`` with a golden file (rewrite it when TYPEDGEN_UPDATE_GOLDENS is set)."""
    if UPDATE_GOLDENS or not path.exists():
        if not UPDATE_GOLDENS:
            pytest.fail(f"golden file {path} is missing; run with TYPEDGEN_UPDATE_GOLDENS=1")
        path.write_text(text, encoding="utf-8")
        return
    assert text == path.read_text(encoding="utf-8"), f"canonical text differs from {path.name}"


def chunks(data: bytes, n: int) -> Iterator[bytes]:
    for i in range(0, len(data), n):
        yield data[i : i + n]

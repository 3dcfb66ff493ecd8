"""Shared test helpers: evaldata location, small real vocabularies, grammar membership."""

from __future__ import annotations

import difflib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator, Sequence
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
UPDATE_GOLDENS = os.environ.get("TYPEDGEN_UPDATE_GOLDENS") == "1"


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


# The first line of a golden that derives from a package's data or internals names the versions it
# was written for: "# golden for sqlglot==30.30.0" ("//" instead of "#" in .lark files).
_GOLDEN_HEADER = re.compile(r"(?:#|//) golden for (\S.*)\n")


def installed_version(name: str) -> str:
    """The installed version of a distribution, or of Python's Unicode data for "unicodedata"."""
    if name == "unicodedata":
        return unicodedata.unidata_version
    return importlib.metadata.version(name)


def _golden_header(path: Path, versions: dict[str, str]) -> str:
    if not versions:
        return ""
    prefix = "//" if path.suffix == ".lark" else "#"
    return f"{prefix} golden for " + ", ".join(f"{k}=={v}" for k, v in versions.items()) + "\n"


def _read_golden(path: Path) -> tuple[dict[str, str], str]:
    data = path.read_text(encoding="utf-8")
    found = _GOLDEN_HEADER.match(data)
    if found is None:
        return {}, data
    pins = (item.partition("==") for item in found.group(1).split(", "))
    return {name: version for name, _, version in pins}, data[found.end() :]


def _diff(expected: str, got: str) -> str:
    """Where the texts first part, with a window around it (golden lines run to 4,000 chars)."""
    old, new = expected.splitlines(), got.splitlines()
    changed = sum(1 for op in difflib.ndiff(old, new) if op[:1] in "+-")
    line = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if line is None:
        line = min(len(old), len(new))
    a, b = (old[line] if line < len(old) else "", new[line] if line < len(new) else "")
    col = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    lo = max(0, col - 80)
    return (
        f"{changed} lines added or removed; first difference at line {line + 1}, column {col + 1}:"
        f"\n  golden: ...{a[lo : col + 80]!r}\n  now:    ...{b[lo : col + 80]!r}"
    )


def check_golden(path: Path, text: str, *, depends_on: Sequence[str] = ()) -> None:
    """Compare ``text`` with a golden file; exact only under the versions it was written for.

    ``depends_on`` names the distributions (or "unicodedata") whose data or internals shape the
    text; the golden's first line records their versions. Installed versions that differ from
    the recorded ones make a difference a skip naming both versions, not a failure, so a newer
    release is reported rather than breaking the suite; callers assert the version-independent
    invariants (it compiles, samples parse, it is deterministic) before calling this.
    Regenerate with ``TYPEDGEN_UPDATE_GOLDENS=1 pytest ...``, then review the diff.
    """
    current = {name: installed_version(name) for name in depends_on}
    if UPDATE_GOLDENS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_golden_header(path, current) + text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; run with TYPEDGEN_UPDATE_GOLDENS=1")
    recorded, expected = _read_golden(path)
    if set(recorded) != set(current):
        pytest.fail(
            f"{path.name} records versions of {sorted(recorded) or 'nothing'} but the text depends"
            f" on {sorted(current) or 'nothing'}; regenerate with TYPEDGEN_UPDATE_GOLDENS=1"
        )
    if text == expected:
        return
    newer = {k: (v, current[k]) for k, v in recorded.items() if current[k] != v}
    if newer:
        pytest.skip(
            f"{path.name} differs from the text written for "
            + ", ".join(f"{k} {old} (installed: {k} {now})" for k, (old, now) in newer.items())
            + "; exact text not compared, invariants checked;"
            " review and regenerate with TYPEDGEN_UPDATE_GOLDENS=1 when raising the lock"
        )
    pytest.fail(f"text differs from {path.name}:\n{_diff(expected, text)}")


def text_in_fresh_process(code: str, hash_seed: int = 12345) -> str:
    """What ``code`` prints in a new interpreter with another hash seed (set order differs)."""
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def chunks(data: bytes, n: int) -> Iterator[bytes]:
    for i in range(0, len(data), n):
        yield data[i : i + n]

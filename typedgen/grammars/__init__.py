"""The grammar library: ready-made Lark grammars for common formats, loadable by name.

``typedgen.grammars.load("toml")`` is the IR of ``grammars/toml.lark``. The ``.lark`` files live
in the repository's top-level ``grammars/`` folder; the wheel ships them as package data under
``typedgen/grammars/data/``. Both places are searched, the installed one first, so the library
works the same from a wheel and from a source checkout.

A grammar may state options for the loader in header comments, one per line, before its first
rule (``// typedgen: lexer=dynamic``); ``lexer`` is the only option today and defaults to
``contextual``. Each grammar also has sample files under ``grammars/samples/<name>/`` that the
format's reference parser accepts (see ``docs/grammar-library.md``).
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path

from typedgen.errors import GrammarError
from typedgen.ir.grammar import Grammar
from typedgen.ir.origin import Origin

__all__ = ["folder", "lexer", "load", "names", "path", "samples", "text"]

_HERE = Path(__file__).resolve().parent
# Installed wheel: typedgen/grammars/data (hatch force-include); source checkout: <repo>/grammars.
_CANDIDATES = (_HERE / "data", _HERE.parents[1] / "grammars")
_OPTION = re.compile(r"^//\s*typedgen:\s*(?P<key>[a-z_]+)\s*=\s*(?P<value>\S+)\s*$")
_OPTIONS = {"lexer": "contextual"}


def folder() -> Path:
    """The folder that holds the library's ``.lark`` files."""
    for candidate in _CANDIDATES:
        if candidate.is_dir() and any(candidate.glob("*.lark")):
            return candidate
    raise GrammarError(
        "the grammar library is missing: no .lark files in "
        + " or ".join(str(c) for c in _CANDIDATES),
        code="grammar-library-missing",
        hint="reinstall typedgen; the wheel ships the grammars as package data",
    )


def names() -> list[str]:
    """The names of the grammars in the library, sorted."""
    return sorted(p.stem for p in folder().glob("*.lark"))


def path(name: str) -> Path:
    """The ``.lark`` file of grammar ``name``."""
    candidate = folder() / f"{name}.lark"
    if "/" in name or "\\" in name or not candidate.is_file():
        available = names()
        close = difflib.get_close_matches(name, available, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise GrammarError(
            f"no grammar named {name!r} in the grammar library",
            code="unknown-grammar",
            hint=f"{hint}available: {', '.join(available)}",
        )
    return candidate


def text(name: str) -> str:
    """The Lark text of grammar ``name``."""
    return path(name).read_text(encoding="utf-8")


def _options(name: str) -> dict[str, str]:
    """The ``// typedgen: key=value`` header options of grammar ``name``, with defaults."""
    found = dict(_OPTIONS)
    for number, line in enumerate(text(name).splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("//"):
            break
        m = _OPTION.match(stripped)
        if m is None:
            continue
        if m["key"] not in _OPTIONS:
            raise GrammarError(
                f"unknown loader option {m['key']!r}",
                code="grammar-library-option",
                origin=Origin(str(path(name)), number, 1),
                hint=f"known options: {', '.join(_OPTIONS)}",
            )
        found[m["key"]] = m["value"]
    return found


def lexer(name: str) -> str:
    """The Lark lexer grammar ``name`` is meant for (``contextual`` unless its header says)."""
    return _options(name)["lexer"]


def load(name: str, *, start: str = "start", lexer: str | None = None) -> Grammar:
    """The IR of grammar ``name`` from ``start`` (``lexer`` overrides the grammar's own choice).

    Relative ``%import``s resolve inside the library folder. Results are cached: grammars are
    immutable.
    """
    return _load(name, start, lexer or _options(name)["lexer"])


@functools.lru_cache(maxsize=64)
def _load(name: str, start: str, lexer: str) -> Grammar:
    file = path(name)
    return Grammar.from_lark(
        file.read_text(encoding="utf-8"),
        start=start,
        lexer=lexer,
        source=str(file),
        import_paths=[file.parent],
    )


def samples(name: str) -> list[Path]:
    """The sample files of grammar ``name`` (texts its reference parser accepts), sorted."""
    where = path(name).parent / "samples" / name
    return sorted(p for p in where.glob("*") if p.is_file()) if where.is_dir() else []

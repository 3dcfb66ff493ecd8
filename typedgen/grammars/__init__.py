"""The grammar library: ready-made Lark grammars for common formats, loadable by name.

``typedgen.grammars.load("toml")`` is the IR of ``grammars/toml.lark``. The ``.lark`` files live
in the repository's top-level ``grammars/`` folder; the wheel ships them as package data under
``typedgen/grammars/data/``. Both places are searched, the installed one first, so the library
works the same from a wheel and from a source checkout.

Two modes. ``generate`` (the default) is the language a model may write: comment lines, blank
lines and whitespace between two lexemes are bounded, so decoding cannot stall on them.
``check`` is the wider language for checking files people wrote (``accept_bytes`` on a user's
``tox.ini``): where it differs, ``<name>.check.lark`` imports the grammar and overrides its
separator terminals; elsewhere both modes are the same file.

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
from typing import Literal

from typedgen.errors import GrammarError, OptionError
from typedgen.ir.grammar import Grammar
from typedgen.ir.origin import Origin

__all__ = ["MODES", "Mode", "folder", "lexer", "load", "names", "path", "samples", "text"]

Mode = Literal["generate", "check"]
"""``generate``: what a model may write (bounded separators); ``check``: what a file may hold."""
MODES: tuple[Mode, ...] = ("generate", "check")

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
    """The names of the grammars in the library, sorted (``<name>.check.lark`` variants are
    modes of ``<name>``, not grammars of their own)."""
    return sorted(p.stem for p in folder().glob("*.lark") if "." not in p.stem)


def _check_mode(mode: object) -> None:
    if mode not in MODES:
        raise OptionError(
            f"mode={mode!r} is not one of {', '.join(map(repr, MODES))}",
            code="option-value",
            hint="mode='generate' (the default: bounded separators, for decoding) or "
            "mode='check' (the wider language, for checking files)",
        )


def path(name: str, mode: Mode = "generate") -> Path:
    """The ``.lark`` file of grammar ``name`` in ``mode``: ``<name>.check.lark`` where the
    checking language is wider than the generation one, else the grammar itself."""
    _check_mode(mode)
    candidate = folder() / f"{name}.lark"
    if any(c in name for c in "/\\.") or not candidate.is_file():
        available = names()
        close = difflib.get_close_matches(name, available, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise GrammarError(
            f"no grammar named {name!r} in the grammar library",
            code="unknown-grammar",
            hint=f"{hint}available: {', '.join(available)}",
        )
    if mode == "check":
        variant = candidate.with_suffix(".check.lark")
        if variant.is_file():
            return variant
    return candidate


def text(name: str, mode: Mode = "generate") -> str:
    """The Lark text of grammar ``name`` in ``mode``."""
    return path(name, mode).read_text(encoding="utf-8")


def _options(name: str, mode: Mode = "generate") -> dict[str, str]:
    """The ``// typedgen: key=value`` header options of grammar ``name``, with defaults."""
    found = dict(_OPTIONS)
    for number, line in enumerate(text(name, mode).splitlines(), 1):
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
                origin=Origin(str(path(name, mode)), number, 1),
                hint=f"known options: {', '.join(_OPTIONS)}",
            )
        found[m["key"]] = m["value"]
    return found


def lexer(name: str, mode: Mode = "generate") -> str:
    """The Lark lexer grammar ``name`` is meant for (``contextual`` unless its header says)."""
    return _options(name, mode)["lexer"]


def load(
    name: str, *, start: str = "start", lexer: str | None = None, mode: Mode = "generate"
) -> Grammar:
    """The IR of grammar ``name`` from ``start`` (``lexer`` overrides the grammar's own choice).

    ``mode="generate"`` (the default) bounds what a model could otherwise repeat forever
    between two lexemes (comment lines, blank lines); ``mode="check"`` is the wider language
    for checking files people wrote. ``%import``s resolve inside the library folder. Results
    are cached: grammars are immutable.
    """
    _check_mode(mode)
    return _load(name, start, lexer or _options(name, mode)["lexer"], mode)


@functools.lru_cache(maxsize=64)
def _load(name: str, start: str, lexer: str, mode: Mode) -> Grammar:
    file = path(name, mode)
    return Grammar.from_lark(
        file.read_text(encoding="utf-8"),
        start=start,
        lexer=lexer,
        source=str(file),
        import_paths=[file.parent],
    )


def samples(name: str, mode: Mode = "generate") -> list[Path]:
    """The sample files of grammar ``name`` (texts its reference parser accepts), sorted; with
    ``mode="check"`` also those only the checking language accepts (``samples/<name>/check/``:
    long comment blocks, loose whitespace)."""
    _check_mode(mode)
    where = path(name).parent / "samples" / name
    found = sorted(p for p in where.glob("*") if p.is_file())
    if mode == "check":
        found += sorted(p for p in (where / "check").glob("*") if p.is_file())
    return found

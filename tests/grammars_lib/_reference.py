"""Reference parsers for the grammar library: the oracle each grammar is checked against.

``check(name, text, mode)`` raises when the format's own parser rejects ``text``: Python's ``json``,
``csv``, ``configparser``, ``tomllib``, PyYAML and ``ast`` where the format has one, a small
independent reading of cron schedules (field ranges, steps), and always
lark's own Earley parser on the same ``.lark`` file of the same mode (``lexer="dynamic_complete"``:
the plain context-free language, of which typedgen's longest-match lexing accepts a subset).
"""

from __future__ import annotations

import ast
import configparser
import csv
import functools
import io
import json
import re
import tomllib
from collections.abc import Callable

import lark

from typedgen import grammars
from typedgen.grammars import Mode


class Rejected(AssertionError):
    """The reference parser refused the text."""


@functools.cache
def lark_parser(name: str, start: str = "start", mode: Mode = "generate") -> lark.Lark:
    return lark.Lark(
        grammars.text(name, mode),
        start=start,
        parser="earley",
        lexer="dynamic_complete",
        import_paths=[str(grammars.folder())],
    )


def _lark(name: str, text: str, mode: Mode) -> None:
    try:
        lark_parser(name, mode=mode).parse(text)
    except lark.exceptions.LarkError as exc:
        raise Rejected(f"lark rejects: {exc}") from exc


def _json(text: str) -> None:
    json.loads(text)


def _csv(text: str) -> None:
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise Rejected(f"rows of different widths {sorted(widths)}")
    if [] in rows:
        raise Rejected("an empty row")


def _ini(text: str) -> None:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    for section in parser.sections():
        parser.items(section)  # interpolates every value: '%' must be well formed


def _toml(text: str) -> None:
    tomllib.loads(text)


def _yaml(text: str) -> None:
    import yaml

    yaml.safe_load(text)


def _toolcall(text: str) -> None:
    tree = ast.parse(text, mode="exec")
    if not tree.body:
        raise Rejected("no call")
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            raise Rejected(f"not a call: {ast.dump(stmt)}")
        for arg in [*stmt.value.args, *(k.value for k in stmt.value.keywords)]:
            ast.literal_eval(arg)


_MACROS = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_DAYS = "sun mon tue wed thu fri sat".split()
# (lowest, highest, names) per field: minute, hour, day of month, month, day of week.
_FIELDS = [(0, 59, []), (0, 23, []), (1, 31, []), (1, 12, _MONTHS), (0, 7, _DAYS)]
_ITEM = re.compile(r"(?:\*|([0-9A-Za-z]+)(?:-([0-9A-Za-z]+))?)(?:/([0-9]+))?")


def _cron_value(word: str, low: int, high: int, names: list[str]) -> None:
    if word.isascii() and word.lower() in names:
        return
    if not (word.isascii() and word.isdigit() and low <= int(word) <= high):
        raise Rejected(f"cron value {word!r} outside {low}-{high}")


def _cron_schedule(fields: list[str]) -> None:
    """An independent reading of a five-field schedule (Vixie cron's rules)."""
    if len(fields) != 5:
        raise Rejected(f"{len(fields)} cron fields")
    for field, (low, high, names) in zip(fields, _FIELDS, strict=True):
        for item in field.split(","):
            m = _ITEM.fullmatch(item)
            if m is None:
                raise Rejected(f"bad cron item {item!r}")
            first, last, step = m.groups()
            for word in (first, last):
                if word is not None:
                    _cron_value(word, low, high, names)
            if step is not None:
                if first is not None and last is None:
                    raise Rejected(f"a step after a single value: {item!r}")
                _cron_value(step, 1, high, [])


def _cron(text: str) -> None:
    line = text.removesuffix("\n")
    if line.startswith("@"):
        if line not in _MACROS:
            raise Rejected(f"unknown macro {line!r}")
        return
    _cron_schedule(line.split())


def _crontab(text: str) -> None:
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*=", line):
            continue
        words = line.split()
        if words[0].startswith("@"):
            if words[0] not in (_MACROS | {"@reboot"}) or len(words) < 2:
                raise Rejected(f"bad macro line {line!r}")
            continue
        if len(words) < 6:
            raise Rejected(f"no command: {line!r}")
        _cron_schedule(words[:5])


FORMAT: dict[str, Callable[[str], None]] = {
    "cron": _cron,
    "crontab": _crontab,
    "json": _json,
    "csv": _csv,
    "ini": _ini,
    "toml": _toml,
    "yaml": _yaml,
    "toolcall": _toolcall,
}


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_CONTROL_OR_CR = re.compile(r"[\x00-\x08\x0b-\x1f]")


def check(name: str, text: str, mode: Mode = "generate") -> None:
    """Raise :class:`Rejected` unless the reference parsers of grammar ``name`` accept ``text``
    (the parser's own exception is the ``__cause__``); lark reads the grammar in ``mode``.
    Control characters other than tab and line feed (and carriage return in CSV and JSON) are
    refused too: some parsers let them through, but no config file or command should hold
    them."""
    bad = (_CONTROL if name in ("csv", "json") else _CONTROL_OR_CR).search(text)
    if bad is not None:
        raise Rejected(f"control character {bad.group()!r} at {bad.start()}")
    own = FORMAT.get(name)
    if own is not None:
        try:
            own(text)
        except Rejected:
            raise
        except Exception as exc:  # each parser has its own error classes
            raise Rejected(f"{type(exc).__name__}: {exc}") from exc
    _lark(name, text, mode)


# Semantic errors a context-free grammar cannot rule out: a key or section defined twice.
_DUPLICATES = {
    "ini": (configparser.DuplicateSectionError, configparser.DuplicateOptionError),
    "toml": re.compile(
        r"Cannot (declare .* twice|overwrite a value|mutate immutable namespace|redefine "
        r"namespace)|Duplicate inline table key"
    ),
    "toolcall": re.compile(r"keyword argument repeated"),
}


def is_duplicate(name: str, exc: BaseException) -> bool:
    """Whether ``exc`` is the reference's error for a repeated key (not a syntax error)."""
    kind = _DUPLICATES.get(name)
    if kind is None:
        return False
    if isinstance(exc, Rejected) and exc.__cause__ is not None:
        exc = exc.__cause__
    if isinstance(kind, tuple):
        return isinstance(exc, kind)
    return bool(kind.search(str(exc)))

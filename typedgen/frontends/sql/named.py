"""Named arguments of the functions sqlglot models (``FLATTEN(INPUT => x)``, ``SEARCH(a, b,
ANALYZER => 'x')``, ``GENERATOR(ROWCOUNT => 5)``), read from round-trip probes.

sqlglot keeps a named argument as a ``Kwarg`` node, but a function's builder may drop a name it
does not know (``GENERATOR(foo => 1)`` comes back as ``GENERATOR()``, ``SEARCH(a, b, foo =>
'x')`` as ``SEARCH(a, b)``), so a name is offered only where sqlglot writes it back. A function
whose builder keeps any name as a table (``FLATTEN``, an ``Explode``) takes any identifier there;
in ``SELECT`` a name sqlglot keeps mostly fills a plain argument's slot (``TRIM(x, foo => 1)``),
so there, and wherever any name is not kept, the
candidate names are the optional arguments of its expression class (``Search.arg_types``:
``analyzer``, ``search_mode``), each probed alone. Some functions round-trip only as a table
(``SELECT FLATTEN(INPUT => x)`` is rewritten into a join): they are offered only in ``FROM``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["NamedCall", "probe_named_calls"]

_ANY_NAME = "ZZ_NAME"
"""A name no builder knows: kept only where the function keeps every name."""
_VALUES = ("x", "'a'", "1")
_POSITIONAL = ("p0", "p1", "p2")
"""Plain arguments: each must come back (a builder may drop them beside a name)."""
_SKIP_ARGS = frozenset({"this", "expression", "expressions"})
_MAX_NAMES = 4
"""Listed names beyond this many are left out (their orders grow as n!)."""


@dataclass(frozen=True)
class NamedCall:
    """A function that takes named arguments after ``positional`` plain ones."""

    name: str
    names: tuple[str, ...] | None
    """The names sqlglot keeps, or None where it keeps any identifier."""
    positional: tuple[int, ...]
    """Counts of plain arguments before the named ones."""
    scalar: bool
    """Whether the call round-trips in ``SELECT``; else only as a table in ``FROM``."""
    keywords: tuple[str, ...] = ()
    """Where any identifier is a name: keywords that name no column but are kept as a name
    here too (``OUTER => TRUE``)."""


def _contexts(features: frozenset[str]) -> tuple[str, ...]:
    """The table positions the dialect has: each must keep the call for it to be a table."""
    out = []
    if "table_of" in features:
        out.append("SELECT * FROM TABLE({})")
    if "lateral_function" in features:
        out.append("SELECT * FROM t, LATERAL {}")
    if "table_function" in features:
        out.append("SELECT * FROM {} AS s")
    return tuple(out)


def _call(name: str, positional: int, named: str, value: str) -> str:
    args = [*_POSITIONAL[:positional], f"{named} => {value}"]
    return f"{name}({', '.join(args)})"


def probe_named_calls(
    functions: Iterable[tuple[str, Any, tuple[int, ...]]],
    features: frozenset[str],
    dialect: Any,
    round_trips: Callable[[str, Any], bool],
    keywords: Iterable[str] = (),
) -> tuple[NamedCall, ...]:
    """``functions``: (name, expression class or None, the plain-argument counts to try: those
    the function takes in ``SELECT``, empty where it takes none there); ``keywords``: words
    that are no identifier, probed as names where any identifier is one."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if "named_argument" not in features:
        return ()

    def keeps(template: str, call: str, named: str, slot: bool) -> bool:
        sql = template.format(call)
        try:  # a builder may raise anything on arguments it does not expect
            tree = sqlglot.parse_one(sql, read=dialect)
        except (SqlglotError, ValueError, TypeError, AttributeError, KeyError, IndexError):
            return False
        # A listed name kept as a Kwarg must sit in the argument it names (Search.analyzer),
        # not in whichever slot its position fills (a builder may also unwrap it into that
        # argument: Generator.rowcount).
        kwargs = [k for k in tree.find_all(exp.Kwarg) if k.this.name.upper() == named]
        if slot and any(k.arg_key != named.lower() for k in kwargs):
            return False
        if not round_trips(sql, dialect):
            return False
        text = tree.sql(dialect=dialect)
        if re.search(rf"\b{re.escape(named)}\s*=>", text, re.IGNORECASE) is None:
            return False
        return all(re.search(rf"\b{p}\b", text) for p in _POSITIONAL if p in sql)

    def kept(
        name: str, positional: int, named: str, templates: tuple[str, ...], slot: bool = True
    ) -> bool:
        slot = slot and named != _ANY_NAME
        return all(
            keeps(template, _call(name, positional, named, value), named, slot)
            for template in templates
            for value in _VALUES
        )

    tables = _contexts(features)
    out: list[NamedCall] = []
    for name, cls, arity in functions:
        candidates = [
            key.upper()
            for key in getattr(cls, "arg_types", {}) or {}
            if key not in _SKIP_ARGS and re.fullmatch(r"[a-z_]+", key)
        ]
        templates: tuple[str, ...]
        if arity:
            # A function of SELECT: listed names after its plain arguments, where a name no
            # builder knows is not kept (else a name only fills a plain argument's slot:
            # TRIM(x, foo => 1), LAG(x, default => 1)).
            scalar, templates = True, ("SELECT {}",)
            counts = tuple(n for n in arity if not kept(name, n, _ANY_NAME, templates))
        elif tables:
            # A function only a table round-trips (FLATTEN): every argument named, with any
            # name where the builder keeps any, else with its listed names.
            scalar, templates = False, tuple(tables)
            if kept(name, 0, _ANY_NAME, templates):
                words = tuple(w for w in sorted(keywords) if kept(name, 0, w, templates, False))
                out.append(NamedCall(name, None, (0,), scalar, words))
                continue
            counts = (0,)
        else:
            continue
        names: tuple[str, ...] = ()
        for n in counts:  # the names of the first count that keeps any
            names = tuple([c for c in candidates if kept(name, n, c, templates)])
            if names:
                break
        if not names or len(names) > _MAX_NAMES:
            continue
        positional = tuple(n for n in counts if all(kept(name, n, c, templates) for c in names))
        out.append(NamedCall(name, names, positional, scalar))
    return tuple(out)

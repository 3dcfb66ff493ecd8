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

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["NamedCall", "probe_named_calls", "probe_unwrapped"]

_ANY_NAME = "ZZ_NAME"
"""A name no builder knows: kept only where the function keeps every name."""
_VALUES = ("x", "'a'", "1")
_POSITIONAL = ("p0", "p1", "p2")
"""Plain arguments: each must come back (a builder may drop them beside a name)."""
_SKIP_ARGS = frozenset({"this", "expression", "expressions"})
_MAX_WORDS = 8
"""Words of a builder probed as names at most (their orders of up to three are probed)."""
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
    orders: tuple[tuple[str, ...], ...] | None = None
    """Where the builder unwraps each name into an argument (Snowflake's ``ROUND(EXPR => x,
    SCALE => 1)``): the names in the orders that round-trip (every argument named); None:
    any order of any of ``names``."""


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
        if not names and scalar:
            unwrapped = probe_unwrapped(name, dialect, round_trips)
            if unwrapped is not None:
                out.append(unwrapped)
            continue
        if not names or len(names) > _MAX_NAMES:
            continue
        positional = tuple(n for n in counts if all(kept(name, n, c, templates) for c in names))
        out.append(NamedCall(name, names, positional, scalar))
    return tuple(out)


def _builder_words(name: str, dialect: Any) -> tuple[str, ...]:
    """The words a function's builder names (its string constants, and the keys of the
    tables it reads): the candidate argument names of a builder that unwraps them. Only a
    builder that looks at a named argument (``Kwarg``) is read."""
    builder = (getattr(dialect.parser_class, "FUNCTIONS", {}) or {}).get(name)
    code = getattr(builder, "__code__", None)
    if code is None or "Kwarg" not in code.co_names:
        return ()
    words: list[str] = []
    consts = list(code.co_consts)
    while consts:  # (a dict literal's keys are one tuple constant)
        const = consts.pop(0)
        if isinstance(const, tuple):
            consts[:0] = const
        elif isinstance(const, str):
            words.append(const)
    for ref in code.co_names:
        table = getattr(builder, "__globals__", {}).get(ref)
        if isinstance(table, dict):
            words += [k for k in table if isinstance(k, str)]
    found = (w.upper() for w in words if re.fullmatch(r"[A-Za-z][A-Za-z_]*", w))
    return tuple(dict.fromkeys(w for w in found if w != name.upper()))[:_MAX_WORDS]


def probe_unwrapped(
    name: str, dialect: Any, round_trips: Callable[[str, Any], bool]
) -> NamedCall | None:
    """Snowflake's ``ROUND(EXPR => 2.25, SCALE => 1)``: a builder that reads each name it
    knows into an argument (written back plain, ``ROUND(2.25, 1)``). An order of names is kept
    where every value lands in the tree (no name left as such), the call round-trips, and a
    name no builder knows does not land in its place."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    def lands(names: tuple[str, ...]) -> bool:
        values = [f"'zz{i}'" for i in range(len(names))]
        args = ", ".join(f"{n} => {v}" for n, v in zip(names, values, strict=True))
        sql = f"SELECT {name}({args})"
        try:
            tree = sqlglot.parse_one(sql, read=dialect)
        except (SqlglotError, ValueError, TypeError, AttributeError, KeyError, IndexError):
            return False
        if tree.find(exp.Kwarg) is not None or not round_trips(sql, dialect):
            return False
        found = {lit.name for lit in tree.find_all(exp.Literal) if lit.is_string}
        return all(v.strip("'") in found for v in values)

    words = _builder_words(name, dialect)
    if not words:
        return None
    orders = tuple(
        order
        for k in range(1, min(len(words), 3) + 1)
        for order in itertools.permutations(words, k)
        if lands(order) and not lands((_ANY_NAME, *order[1:]))
    )
    if not orders:
        return None
    names = tuple(dict.fromkeys(n for order in orders for n in order))
    return NamedCall(name, names, (0,), True, orders=orders)

"""Special last arguments of a call, read from round-trip probes: lambdas (Spark's
``TRANSFORM(a, x -> x + 1)``), PostgreSQL's ``VARIADIC x`` and BigQuery's ``x RESPECT NULLS``.

sqlglot reads a lambda or ``VARIADIC`` as any argument of any call in every dialect, but a
function's builder may rewrite what it gets, so each form is kept per function and argument
count where ``name(x, ..., last)`` reads back to the same tree, and only in the dialects whose
feature probe holds (lambdas only where a dialect class includes them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["LAST_ARGUMENTS", "probe_last_arguments"]

LAST_ARGUMENTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "lambda": (2, ("y -> y + 1", "(y, z) -> y + z")),
    "variadic": (1, ("VARIADIC y", "VARIADIC ARRAY[1]")),
    # BigQuery's PERCENTILE_CONT(x, 0.5 RESPECT NULLS): of an aggregate only (tables.py).
    "respect_nulls_arg": (2, ("y RESPECT NULLS", "y IGNORE NULLS")),
}
"""Each special last-argument form (named by its feature): the fewest arguments it needs, and
the last arguments that must round-trip."""


def probe_last_arguments(
    name: str,
    counts: Iterable[int],
    features: frozenset[str],
    round_trips: Callable[[str], bool],
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The special last-argument forms ``name`` takes, with the argument counts (of
    ``counts``) each reads back at, ``name(x, ..., last)``, by ``round_trips``."""
    counts = tuple(counts)
    out = []
    for form, (least, lasts) in LAST_ARGUMENTS.items():
        if form not in features:
            continue
        taken = tuple(
            k
            for k in counts
            if k >= least
            and all(round_trips(f"SELECT {name}({'x, ' * (k - 1)}{last})") for last in lasts)
        )
        if taken:
            out.append((form, taken))
    return tuple(out)

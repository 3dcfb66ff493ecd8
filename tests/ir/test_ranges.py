"""Code point range sets (ir/ranges.py) against Python's own sets."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from typedgen.errors import GrammarError
from typedgen.ir.ranges import (
    MAX_CODEPOINT,
    Ranges,
    complement_ranges,
    contains,
    intersect_ranges,
    normalize_ranges,
    overlaps,
    point_ranges,
    subtract_ranges,
    union_ranges,
)

TOP = 40  # sets over 0..TOP, with MAX_CODEPOINT standing in for "everything above"


def as_set(ranges: tuple[tuple[int, int], ...]) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, min(hi, TOP) + 1)}


small_ranges = st.lists(
    st.tuples(st.integers(0, TOP), st.integers(0, 6)).map(lambda p: (p[0], min(p[0] + p[1], TOP))),
    max_size=6,
).map(normalize_ranges)


@settings(max_examples=200, deadline=None)
@given(a=small_ranges, b=small_ranges, cp=st.integers(0, TOP))
def test_operations_match_sets(a: Ranges, b: Ranges, cp: int) -> None:
    sa, sb = as_set(a), as_set(b)
    assert as_set(union_ranges(a, b)) == sa | sb
    assert as_set(intersect_ranges(a, b)) == sa & sb
    assert as_set(subtract_ranges(a, b)) == sa - sb
    assert overlaps(a, b) == bool(sa & sb)
    assert contains(a, cp) == (cp in sa)
    assert as_set(complement_ranges(a)) == set(range(TOP + 1)) - sa
    assert complement_ranges(complement_ranges(a)) == a
    # normalised: sorted, disjoint and not adjacent
    for ranges in (union_ranges(a, b), intersect_ranges(a, b), subtract_ranges(a, b)):
        assert all(x[1] + 1 < y[0] for x, y in itertools.pairwise(ranges))


def test_normalize_merges_and_checks() -> None:
    assert normalize_ranges([(5, 9), (1, 3), (4, 4)]) == ((1, 9),)
    assert point_ranges([3, 1, 2, 7]) == ((1, 3), (7, 7))
    assert complement_ranges(()) == ((0, MAX_CODEPOINT),)
    with pytest.raises(GrammarError, match="inverted"):
        normalize_ranges([(3, 1)])
    with pytest.raises(GrammarError, match="outside Unicode"):
        normalize_ranges([(0, MAX_CODEPOINT + 1)])

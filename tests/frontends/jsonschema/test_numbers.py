"""Numeric schema keywords as IR: the language must be exactly what decimal arithmetic decides.

Membership is decided by the independent oracle in ``tests/frontends/_ir_match.py``; the truth
is Python ``int``/``Decimal`` arithmetic on the text plus a regex for the JSON number syntax.
"""

from __future__ import annotations

import re
from decimal import Decimal, localcontext
from functools import partial
from itertools import product
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedgen
from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.frontends.jsonschema.numbers import (
    MAX_BOUND_DIGITS,
    MAX_ENUMERATED_MULTIPLES,
    integer_multiple_of,
    integer_range,
    number_multiple_of,
    number_range,
)
from typedgen.ir import Alt, Expr, Grammar, Intersect, Lexing, Origin, Rule, walk

from .._ir_match import matches

EXAMPLES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT_SYNTAX = re.compile(r"-?(0|[1-9][0-9]*)")
DEC_SYNTAX = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
JSON_SYNTAX = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")

MALFORMED = [
    "",
    "-",
    "-0",
    "00",
    "01",
    "-01",
    "+1",
    "1.",
    ".5",
    "-.5",
    "1e3",
    "1E3",
    "1.0e1",
    " 1",
    "1 ",
    "1-",
    "--1",
    "0x1",
    "١",
    "1,0",
]
INT_TEXTS = [str(i) for i in range(-300, 301)] + MALFORMED


def size(expr: Expr) -> int:
    return sum(1 for _ in walk(expr))


def is_empty(expr: Expr) -> bool:
    return isinstance(expr, Alt) and not expr.items


def int_truth(text: str, lo: int | None, hi: int | None, k: int = 1) -> bool:
    if not INT_SYNTAX.fullmatch(text) or text == "-0":
        return False
    v = int(text)
    return (lo is None or v >= lo) and (hi is None or v <= hi) and v % k == 0


def dec_truth(
    text: str, lo: Decimal | None, hi: Decimal | None, lo_x: bool = False, hi_x: bool = False
) -> bool:
    if lo is None and hi is None:
        return JSON_SYNTAX.fullmatch(text) is not None
    if not DEC_SYNTAX.fullmatch(text):
        return False
    v = Decimal(text)
    if text.startswith("-") and v == 0:  # negative zero is documented as excluded
        return False
    if lo is not None and (v <= lo if lo_x else v < lo):
        return False
    return not (hi is not None and (v >= hi if hi_x else v > hi))


def mismatches(expr: Expr, texts: list[str], truth: Any) -> list[str]:
    return [t for t in texts if matches(expr, t) != truth(t)]


# --- integer_range -------------------------------------------------------------------------------

INT_BOUNDS = [None, -300, -250, -100, -99, -10, -9, -1, 0, 1, 9, 10, 11, 99, 100, 101, 199, 250]


@pytest.mark.parametrize("lo", INT_BOUNDS)
def test_integer_range_exhaustive(lo: int | None) -> None:
    for hi in INT_BOUNDS:
        expr = integer_range(lo, hi)
        if lo is not None and hi is not None and lo > hi:
            assert is_empty(expr)
            continue
        assert not mismatches(expr, INT_TEXTS, partial(int_truth, lo=lo, hi=hi)), (lo, hi)


def test_integer_range_equal_bounds_is_one_text() -> None:
    for v in (-300, -1, 0, 7, 120, 10**25):
        expr = integer_range(v, v)
        assert matches(expr, str(v))
        for other in (str(v + 1), str(v - 1), "-0", "0" + str(v), str(v) + "0"):
            assert not matches(expr, other)


def test_unbounded_integers_exclude_negative_zero() -> None:
    expr = integer_range(None, None)
    assert not mismatches(expr, INT_TEXTS, lambda t: int_truth(t, None, None))
    assert matches(expr, "-" + "9" * 60) and matches(expr, "1" + "0" * 60)


def _near(values: list[int]) -> list[str]:
    out = [str(v + d) for v in values for d in (-2, -1, 0, 1, 2)]
    return out + ["0" + str(abs(v)) for v in values]  # a leading zero never matches


@EXAMPLES
@given(
    st.one_of(st.none(), st.integers(-(10**40), 10**40)),
    st.one_of(st.none(), st.integers(-(10**40), 10**40)),
    st.lists(st.integers(-(10**41), 10**41), max_size=5),
)
def test_integer_range_large_bounds(lo: int | None, hi: int | None, extra: list[int]) -> None:
    expr = integer_range(lo, hi)
    if lo is not None and hi is not None and lo > hi:
        assert is_empty(expr)
        return
    probes = [0, 1, -1, *extra]
    for b in (lo, hi):
        if b is not None:
            n = len(str(abs(b)))
            probes += [b, -b, 10**n, 10 ** (n - 1), 10**n - 1, -(10**n), -(10 ** (n - 1))]
    texts = _near(probes)
    assert not mismatches(expr, texts, lambda t: int_truth(t, lo, hi))
    assert size(expr) <= 60 + 30 * (len(str(lo)) + len(str(hi)))


def test_integer_range_size_is_linear_in_digits() -> None:
    assert size(integer_range(-(10**30), 10**30)) < 40
    assert size(integer_range(-123456789, 987654321)) < 200
    for n in (10, 20, 40, 80):
        lo, hi = -int("7" * n) + 3, int("5" * n) + 4
        assert size(integer_range(lo, hi)) <= 16 * n


# --- number_range --------------------------------------------------------------------------------


def _decimal_texts() -> list[str]:
    """Quarters in [-3, 3] and twentieths in [-0.6, 0.6] in several spellings, and values just
    beside the bounds used below."""
    values = {Decimal(i) / 4 for i in range(-12, 13)} | {Decimal(i) / 20 for i in range(-12, 13)}
    out = {"-0.0", "-0.00", "0.0", "0.000", "9.99", "10.01", "12.4999", "12.5001", "-12.5001"}
    out |= {"-12.4999", "-12.50", "12.50", "-12.5", "12.5", "13", "-13", "10.0", "-100", "100"}
    for v in values:
        out.add(str(v.quantize(Decimal("0.001"))))
        out.add(f"{v.normalize():f}")  # shortest: 0.5, 2, 0.05
    for base in ("0.5", "1.25", "-1.25", "0.05", "-0.05", "2", "-2", "10", "-0.5"):
        for delta in ("0.0001", "0.0000000001"):
            out.add(str(Decimal(base) + Decimal(delta)))
            out.add(str(Decimal(base) - Decimal(delta)))
    return sorted(out)


DEC_TEXTS = _decimal_texts() + INT_TEXTS[::20] + MALFORMED
DEC_BOUNDS = [
    None,
    *map(
        Decimal,
        ["-12.5", "-2", "-0.5", "-0.05", "0", "-0", "0.05", "0.5", "1.2500", "2.00", "1E+1"],
    ),
]


@pytest.mark.parametrize("lo", DEC_BOUNDS)
def test_number_range_exhaustive(lo: Decimal | None) -> None:
    for hi, lo_x, hi_x in product(DEC_BOUNDS, (False, True), (False, True)):
        expr = number_range(lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x)
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_x or hi_x))):
            assert is_empty(expr)
            continue
        bad = mismatches(expr, DEC_TEXTS, partial(dec_truth, lo=lo, hi=hi, lo_x=lo_x, hi_x=hi_x))
        assert not bad, (lo, hi, lo_x, hi_x, bad[:5])


def test_unbounded_number_is_json_syntax() -> None:
    expr = number_range(None, None)
    texts = [*DEC_TEXTS, "1e3", "1E+3", "-0.5e-10", "0e0", "1e", "1e+", "-0", "-0.0e1", "01e1"]
    assert not mismatches(expr, texts, lambda t: dec_truth(t, None, None))


def test_number_range_boundary_spellings() -> None:
    half = number_range(Decimal("0.5"), None, lo_exclusive=True)
    for text in ("0.5", "0.50", "0.500000", "0.4", "0.49999999999", "0", "-1"):
        assert not matches(half, text), text
    for text in ("0.5000001", "0.51", "0.6", "1", "1.0", "0.50000000000000000001", "123.5"):
        assert matches(half, text), text
    upto = number_range(None, Decimal("-1.25"))
    for text in ("-1.25", "-1.250", "-1.2500001", "-2", "-100.75"):
        assert matches(upto, text), text
    for text in ("-1.2499999", "-1.2", "-1", "0", "-0", "-0.0", "1.25"):
        assert not matches(upto, text), text


def test_negative_zero_is_excluded_from_bounded_numbers() -> None:
    expr = number_range(Decimal(-1), Decimal(1))
    for text in ("0", "0.0", "-0.5", "0.5"):
        assert matches(expr, text)
    for text in ("-0", "-0.0", "-0.000"):
        assert not matches(expr, text)


def test_infinite_bounds() -> None:
    inf = Decimal("Infinity")
    assert is_empty(number_range(inf, None))
    assert is_empty(number_range(None, -inf))
    expr = number_range(-inf, inf)
    assert matches(expr, "-12.5") and matches(expr, "7") and not matches(expr, "1e3")
    with pytest.raises(GrammarError):
        number_range(Decimal("NaN"), None)


def _decimals(max_digits: int = 40) -> st.SearchStrategy[Decimal]:
    return st.builds(
        lambda whole, frac_len, frac, neg: (
            Decimal(f"{'-' if neg else ''}{whole}.{str(frac).zfill(frac_len)[:frac_len]}")
            if frac_len
            else Decimal(f"{'-' if neg else ''}{whole}")
        ),
        st.integers(0, 10**max_digits),
        st.integers(0, 25),
        st.integers(0, 10**25),
        st.booleans(),
    )


def _probe_texts(bounds: list[Decimal], extra: list[Decimal]) -> list[str]:
    """Each bound spelled several ways and moved by one unit at several fraction lengths."""
    out = {"0", "0.0", "-0", "-0.0", "1", "-1", "0.5", "-0.5"}
    for b in [*bounds, *extra]:
        for v in (b, b.copy_negate()):
            exp = v.as_tuple().exponent
            assert isinstance(exp, int)
            places = max(0, -exp)
            out.add(f"{v:f}")
            out.add(f"{v:.{places + 2}f}")  # trailing zeros
            for j in (0, 1, 2, places, places + 1, places + 3):
                ulp = Decimal(1).scaleb(-j)
                for w in (v + ulp, v - ulp):
                    out.add(f"{w:.{j}f}" if j >= places else f"{w:f}")
    return sorted(t for t in out if t != "")


@EXAMPLES
@given(
    st.one_of(st.none(), _decimals()),
    st.one_of(st.none(), _decimals()),
    st.booleans(),
    st.booleans(),
    st.lists(_decimals(), max_size=3),
)
def test_number_range_random_decimals(
    lo: Decimal | None, hi: Decimal | None, lo_x: bool, hi_x: bool, extra: list[Decimal]
) -> None:
    with localcontext() as ctx:
        ctx.prec = 200  # exact arithmetic for the probes
        expr = number_range(lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x)
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_x or hi_x))):
            assert is_empty(expr)
            return
        texts = _probe_texts([b for b in (lo, hi) if b is not None], extra)
        bad = mismatches(expr, texts, lambda t: dec_truth(t, lo, hi, lo_x, hi_x))
        assert not bad, bad[:5]
        digits = sum(len(f"{b:f}") for b in (lo, hi) if b is not None)
        assert size(expr) <= 80 + 12 * digits


def test_number_range_size_is_linear_in_digits() -> None:
    small = size(number_range(Decimal("-123456789.987654321"), Decimal("1E+30")))
    assert small < 300
    for n in (10, 20, 40):
        lo = Decimal("-" + "3" * n + "." + "7" * n)
        hi = Decimal("4" * n + "." + "6" * n)
        assert size(number_range(lo, hi, lo_exclusive=True)) <= 10 * (4 * n) + 50


def test_bounds_with_too_many_digits_are_refused() -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        integer_range(0, 10 ** (MAX_BOUND_DIGITS + 1))
    assert info.value.code == "schema-number-too-long"
    with pytest.raises(UnsupportedFeatureError):
        number_range(None, Decimal("1E+100000"))
    with pytest.raises(UnsupportedFeatureError):
        number_range(Decimal("1E-5000"), None)
    with pytest.raises(UnsupportedFeatureError):
        integer_multiple_of(10**5000)
    assert matches(number_range(None, Decimal("1E+300")), "9" * 300)


# --- integer_multiple_of -------------------------------------------------------------------------

SUPPORTED = [2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16, 21, 25, 32, 40, 96, 100, 125]
MULTIPLE_RANGES: list[tuple[int | None, int | None]] = [
    (None, None),
    (-300, 300),
    (0, None),
    (None, 17),
    (-250, -3),
    (-7, 7),
    (42, 42),
    (43, 41),
]


@pytest.mark.parametrize("k", SUPPORTED)
def test_integer_multiple_of_exhaustive(k: int) -> None:
    texts, ranges = INT_TEXTS, MULTIPLE_RANGES
    if size(integer_multiple_of(k)) > 80:  # the oracle takes milliseconds a text: sample
        near = [v for v in range(-300, 301) if v % k in (0, 1) or abs(v) <= 20 or v % 37 == 0]
        texts = [str(v) for v in near] + MALFORMED
        ranges = MULTIPLE_RANGES[1:5]
    for lo, hi in ranges:
        expr = integer_multiple_of(k, lo, hi)
        bad = mismatches(expr, texts, partial(int_truth, lo=lo, hi=hi, k=k))
        assert not bad, (k, lo, hi, bad[:5])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([2, 3, 4, 5, 8, 12, 25, 40, 125, 250, 3125, 10**6, 2**4 * 10**9]),
    st.one_of(st.none(), st.integers(-(10**40), 10**40)),
    st.one_of(st.none(), st.integers(-(10**40), 10**40)),
    st.lists(st.integers(-(10**41), 10**41), max_size=4),
)
def test_integer_multiple_of_large_bounds(
    k: int, lo: int | None, hi: int | None, extra: list[int]
) -> None:
    expr = integer_multiple_of(k, lo, hi)
    if lo is not None and hi is not None and -(-lo // k) * k > hi:
        assert is_empty(expr)
        return
    probes = [0, k, -k, *extra, *(v // k * k for v in extra)]
    for b in (lo, hi):
        if b is not None:
            m = b // k * k
            probes += [b, m, m + k, -m]
    texts = _near(probes)
    assert not mismatches(expr, texts, lambda t: int_truth(t, lo, hi, k))


def test_unsupported_divisors_are_refused_or_listed() -> None:
    for k in (9, 11, 13, 64, 1024, 2**5 * 3 * 7 * 11):
        with pytest.raises(UnsupportedFeatureError) as info:
            integer_multiple_of(k, 0, None)
        assert info.value.code == "schema-multipleof-too-large"
    expr = integer_multiple_of(9, -100, 100)  # few multiples: listed
    assert not mismatches(expr, INT_TEXTS, lambda t: int_truth(t, -100, 100, 9))
    expr = integer_multiple_of(1024, 0, MAX_ENUMERATED_MULTIPLES * 1024 - 1)
    assert matches(expr, "0") and matches(expr, "261120") and not matches(expr, "261121")
    with pytest.raises(UnsupportedFeatureError):
        integer_multiple_of(1024, 0, (MAX_ENUMERATED_MULTIPLES + 1) * 1024)
    assert is_empty(integer_multiple_of(10**9 + 7, 1, 10**9))
    with pytest.raises(GrammarError):
        integer_multiple_of(0)


def test_divisibility_sizes_stay_bounded() -> None:
    measured = {k: size(integer_multiple_of(k)) for k in (2, 3, 7, 21, 32, 5**8, 672, 10**20)}
    assert max(measured.values()) < 12_000, measured
    assert measured[2] < 40 and measured[3] < 80 and measured[10**20] < 60
    big = integer_multiple_of(25, -(10**40), 10**40)
    assert isinstance(big, Intersect) and size(big) < 100


# --- number_multiple_of --------------------------------------------------------------------------


def mult_truth(
    text: str, k: int, lo: Decimal | None, hi: Decimal | None, lo_x: bool, hi_x: bool
) -> bool:
    m = re.fullmatch(r"(-?(?:0|[1-9][0-9]*))(\.0+)?", text)
    if not m or m.group(1) == "-0":
        return False
    # Integer multiples with an optional ".0+", never an exponent, whether bounded or not.
    return int(m.group(1)) % k == 0 and dec_truth(text, lo, hi, lo_x, hi_x)


def test_number_multiple_of_exhaustive() -> None:
    texts = [*INT_TEXTS[::10], "4.0", "4.00", "-4.0", "4.5", "4.01", "0.0", "-0.0", "6.", "1e1"]
    texts += ["100.0", "-100.000", "10.0", "12.0", "-12.0", "-100", "100", "-12", "12", "10"]
    bounds = [None, Decimal("-100.5"), Decimal(-12), Decimal("0"), Decimal("10"), Decimal("99.9")]
    for k, lo, hi in product((1, 2, 4, 5), bounds, bounds):
        for lo_x, hi_x in ((False, False), (True, True), (k == 2, k != 2)):
            expr = number_multiple_of(k, lo, hi, lo_x, hi_x)
            truth = partial(mult_truth, k=k, lo=lo, hi=hi, lo_x=lo_x, hi_x=hi_x)
            bad = mismatches(expr, texts, truth)
            assert not bad, (k, lo, hi, lo_x, hi_x, bad[:5])


# --- origins and compilation ---------------------------------------------------------------------


def test_every_node_carries_the_origin() -> None:
    origin = Origin("<schema>", path="properties.age")
    exprs = [
        integer_range(-5, 123, origin=origin),
        number_range(Decimal("-1.5"), None, origin=origin),
        number_range(None, None, origin=origin),
        integer_multiple_of(12, None, 100, origin=origin),
        integer_multiple_of(9, 0, 100, origin=origin),
        number_multiple_of(5, Decimal(0), None, origin=origin),
    ]
    for expr in exprs:
        assert all(node.origin == origin for node in walk(expr))


@pytest.mark.parametrize(
    ("expr", "good", "bad"),
    [
        (integer_range(-40, 150), [b"123", b"-40", b"0"], [b"151", b"-0", b"007"]),
        (
            number_range(Decimal("0.5"), Decimal(200), lo_exclusive=True),
            [b"123", b"0.51"],
            [b"0.5"],
        ),
        (integer_multiple_of(7, 0, None), [b"126", b"0", b"700"], [b"124", b"-7"]),
        (number_multiple_of(4, Decimal(-100), None), [b"-100.0", b"4", b"12.00"], [b"4.5"]),
    ],
)
def test_compiles_and_matches(
    expr: Expr, good: list[bytes], bad: list[bytes], smollm2_vocab: Any
) -> None:
    grammar = Grammar([Rule("start", expr, lexical=True, lexing=Lexing.FREE)], "start")
    compiled = typedgen.compile(grammar, smollm2_vocab)
    for text in good:
        m = compiled.matcher()
        assert m.accept_bytes(text) and m.is_complete(), text
    for text in bad:
        m = compiled.matcher()
        assert not (m.accept_bytes(text) and m.is_complete()), text

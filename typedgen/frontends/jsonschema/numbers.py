"""JSON Schema numeric keywords lowered to exact IR expressions over the JSON text of a number.

``minimum``/``maximum`` (inclusive or exclusive) and integer ``multipleOf`` become regular
expressions over the *text* of a JSON number, decided with exact integer and decimal arithmetic
on that text (never binary floats), so the grammar accepts exactly the texts a decimal validator
accepts. Bounds are lowered digit by digit (``[3-7][0-9]{2}``...), so an expression grows with
the number of digits of its bounds, not with their size. Divisibility is a finite automaton over
the digits; the IR has no automaton node, so it is written as a regular expression whose size
depends on the divisor, and divisors whose expression would be too large are refused (see
:func:`integer_multiple_of`).

Conventions shared by every function here:

* Integer texts are ``0`` and ``-?[1-9][0-9]*``; the negative zero ``-0`` (value 0, valid JSON)
  is never produced: one text per integer keeps the grammar unambiguous.
* Bounded decimal texts are ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?`` without exponent; trailing zeros
  of the fraction are allowed (``1.50`` has value 1.5). Texts with a minus sign are produced only
  for values below zero: ``-0``, ``-0.0``... are excluded, consistently with integers.
* An empty range is the empty language ``Alt(())``; reporting it is the caller's business.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from decimal import Decimal
from typing import NoReturn

from typedgen.errors import GrammarError, UnsupportedFeatureError
from typedgen.ir.nodes import Alt, CharClass, Expr, Intersect, Lit, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import simplify

__all__ = [
    "MAX_BOUND_DIGITS",
    "MAX_ENUMERATED_MULTIPLES",
    "MAX_FIVE_EXCESS",
    "MAX_TWO_EXCESS",
    "ODD_DIVISORS",
    "integer_multiple_of",
    "integer_range",
    "number_multiple_of",
    "number_range",
]

MAX_BOUND_DIGITS = 1000
"""Most digits (integer part plus fraction) a bound may have; longer ones are refused."""

MAX_TWO_EXCESS = 5
"""Largest ``a - b`` for a divisor ``2**a * 5**b * c`` (the expression grows about 5x per step:
2**5 takes 1.7k nodes and half a second to compile, 2**6 8.6k nodes and several seconds)."""

MAX_FIVE_EXCESS = 8
"""Largest ``b - a`` for a divisor ``2**a * 5**b * c`` (about 2x per step: 5**8 takes 1.1k
nodes, 5**9 2.2k nodes and over two seconds to compile)."""

ODD_DIVISORS = (3, 7)
"""Prime-power factors coprime to 10 that a divisor may contain (each at most once). Their
expressions come from state elimination on the remainder automaton and grow about 4x per state:
3 takes 31 nodes, 7 takes 7.9k, 9 would take 126k and 11 1.3M."""

MAX_ENUMERATED_MULTIPLES = 256
"""A divisor outside the families above is still lowered when both bounds are given and the
range holds at most this many multiples: they are listed."""

_ZERO = Decimal(0)


class _Build:
    """Smart constructors that stamp one origin and keep expressions flat and small."""

    def __init__(self, origin: Origin | None) -> None:
        self.origin = origin
        self.eps: Expr = Lit(b"", origin=origin)
        self.empty: Expr = Alt((), origin=origin)
        self.any_digit: Expr = self.digits(range(10))
        self.any_digits: Expr = Repeat(self.any_digit, 0, None, origin=origin)

    def lit(self, text: str) -> Expr:
        return Lit(text.encode("ascii"), origin=self.origin)

    def digits(self, values: Iterable[int]) -> Expr:
        """One digit out of ``values`` (the empty language when there is none)."""
        ranges = tuple((0x30 + d, 0x30 + d) for d in values)
        return CharClass(ranges, origin=self.origin) if ranges else self.empty

    def chars(self, text: str) -> Expr:
        return CharClass.of(text, origin=self.origin)

    def span(self, lo: int, hi: int) -> Expr:
        """One digit in ``lo..hi``."""
        return self.digits(range(lo, hi + 1))

    def seq(self, *items: Expr) -> Expr:
        parts: list[Expr] = []
        for item in items:
            if _is_empty(item):
                return self.empty
            for part in item.items if isinstance(item, Seq) else (item,):
                if isinstance(part, Lit) and parts and isinstance(parts[-1], Lit):
                    parts[-1] = Lit(parts[-1].data + part.data, origin=self.origin)
                elif not (isinstance(part, Lit) and not part.data):
                    parts.append(part)
        if not parts:
            return self.eps
        return parts[0] if len(parts) == 1 else Seq(tuple(parts), origin=self.origin)

    def alt(self, *items: Expr) -> Expr:
        parts: dict[Expr, None] = {}
        ranges: list[tuple[int, int]] = []
        for item in items:
            for part in item.items if isinstance(item, Alt) else (item,):
                if isinstance(part, CharClass):
                    ranges.extend(part.codepoints())
                else:
                    parts.setdefault(part, None)
        out = list(parts)
        if ranges:
            out.insert(0, CharClass(tuple(ranges), origin=self.origin))
        return out[0] if len(out) == 1 else Alt(tuple(out), origin=self.origin)

    def opt(self, item: Expr) -> Expr:
        return self.alt(item, self.eps) if not _is_empty(item) else self.eps

    def repeat(self, item: Expr, lo: int, hi: int | None) -> Expr:
        if hi == 0:
            return self.eps
        if lo == hi == 1:
            return item
        if _is_empty(item):
            return self.eps if lo == 0 else self.empty
        return Repeat(item, lo, hi, origin=self.origin)

    def star(self, item: Expr) -> Expr:
        if isinstance(item, Repeat) and item.min == 0 and item.max is None:
            return item
        if isinstance(item, Lit) and not item.data:
            return item
        return self.repeat(item, 0, None)


def _is_empty(expr: Expr) -> bool:
    return isinstance(expr, Alt) and not expr.items


def _finish(expr: Expr) -> Expr:
    return simplify(expr)


# --- integers ------------------------------------------------------------------------------------


def _at_least(b: _Build, s: str) -> Expr:
    """Digit strings of length ``len(s)`` that are >= ``s`` (as numbers with leading zeros)."""
    if s.strip("0") == "":
        return b.repeat(b.any_digit, len(s), len(s))
    d = int(s[0])
    rest = len(s) - 1
    return b.alt(
        b.seq(b.lit(s[0]), _at_least(b, s[1:])),
        b.seq(b.span(d + 1, 9), b.repeat(b.any_digit, rest, rest)) if d < 9 else b.empty,
    )


def _at_most(b: _Build, s: str) -> Expr:
    """Digit strings of length ``len(s)`` that are <= ``s``."""
    if s.strip("9") == "":
        return b.repeat(b.any_digit, len(s), len(s))
    d = int(s[0])
    rest = len(s) - 1
    return b.alt(
        b.seq(b.span(0, d - 1), b.repeat(b.any_digit, rest, rest)) if d > 0 else b.empty,
        b.seq(b.lit(s[0]), _at_most(b, s[1:])),
    )


def _same_length(b: _Build, x: str, y: str) -> Expr:
    """Digit strings ``s`` of the common length of ``x <= y`` with ``x <= s <= y``."""
    if not x:
        return b.eps
    if x[0] == y[0]:
        return b.seq(b.lit(x[0]), _same_length(b, x[1:], y[1:]))
    rest = len(x) - 1
    low_full = x[1:].strip("0") == ""  # x0 followed by anything is >= x
    high_full = y[1:].strip("9") == ""  # y0 followed by anything is <= y
    first = int(x[0]) if low_full else int(x[0]) + 1
    last = int(y[0]) if high_full else int(y[0]) - 1
    return b.alt(
        b.empty if low_full else b.seq(b.lit(x[0]), _at_least(b, x[1:])),
        b.seq(b.span(first, last), b.repeat(b.any_digit, rest, rest)) if first <= last else b.empty,
        b.empty if high_full else b.seq(b.lit(y[0]), _at_most(b, y[1:])),
    )


def _naturals(b: _Build, lo: int, hi: int | None) -> Expr:
    """Canonical texts (no leading zeros) of the integers in ``lo..hi``, ``0 <= lo``."""
    if hi is not None and lo > hi:
        return b.empty
    x = str(lo)
    if hi is not None and len(str(hi)) == len(x):
        return _same_length(b, x, str(hi))
    n = len(x)
    parts = [_same_length(b, x, "9" * n)]
    if hi is None:
        parts.append(b.seq(b.span(1, 9), b.repeat(b.any_digit, n, None)))
    else:
        y = str(hi)
        if len(y) > n + 1:  # every length strictly between
            parts.append(b.seq(b.span(1, 9), b.repeat(b.any_digit, n, len(y) - 2)))
        parts.append(_same_length(b, "1" + "0" * (len(y) - 1), y))
    return b.alt(*parts)


_TOO_LONG = 10**MAX_BOUND_DIGITS


def _check_int(value: int | None, what: str, origin: Origin | None) -> None:
    if value is not None and abs(value) >= _TOO_LONG:  # compared, never printed: may be huge
        raise UnsupportedFeatureError(
            f"the {what} has more than {MAX_BOUND_DIGITS} digits",
            code="schema-number-too-long",
            origin=origin,
            hint="use a number of reasonable size",
        )


def _integers(b: _Build, lo: int | None, hi: int | None) -> Expr:
    if lo is not None and hi is not None and lo > hi:
        return b.empty
    parts = []
    if hi is None or hi >= 0:
        parts.append(_naturals(b, 0 if lo is None else max(lo, 0), hi))
    if lo is None or lo < 0:
        low_mag = 1 if hi is None or hi >= 0 else -hi
        parts.append(b.seq(b.lit("-"), _naturals(b, low_mag, None if lo is None else -lo)))
    return b.alt(*parts)


def integer_range(lo: int | None, hi: int | None, *, origin: Origin | None = None) -> Expr:
    """The JSON integer texts ``0|-?[1-9][0-9]*`` (never ``-0``) of the values in ``lo..hi``.

    ``None`` leaves a side unbounded; both bounds are inclusive. The expression has a number of
    nodes linear in the digits of the bounds; an empty range gives ``Alt(())``. Exact: the
    language is precisely the canonical texts of the integers in range, so a validator with
    arbitrary-precision integers agrees with the grammar on every text.
    """
    _check_int(lo, "lower bound", origin)
    _check_int(hi, "upper bound", origin)
    return _finish(_integers(_Build(origin), lo, hi))


# --- decimals ------------------------------------------------------------------------------------

# A set of fraction digit strings (the text after the '.', possibly empty: no fraction at all) is
# a pair (whether the empty string is in it, the expression of its non-empty members).
_Frac = tuple[bool, Expr]


def _whole(b: _Build, frac: _Frac) -> Expr:
    return b.alt(frac[1], b.eps) if frac[0] else frac[1]


def _frac_at_least(b: _Build, f: str, strict: bool) -> _Frac:
    """Digit strings ``s`` with ``0.s >= 0.f`` (``>`` when strict); ``f`` has no trailing 0."""
    if not f:
        if strict:  # some digit is non-zero
            return False, b.seq(b.any_digits, b.span(1, 9), b.any_digits)
        return True, b.repeat(b.any_digit, 1, None)
    d = int(f[0])
    return False, b.alt(
        b.seq(b.lit(f[0]), _whole(b, _frac_at_least(b, f[1:], strict))),
        b.seq(b.span(d + 1, 9), b.any_digits) if d < 9 else b.empty,
    )


def _frac_at_most(b: _Build, g: str, strict: bool) -> _Frac:
    """Digit strings ``s`` with ``0.s <= 0.g`` (``<`` when strict); ``g`` has no trailing 0."""
    if not g:
        if strict:
            return False, b.empty
        return True, b.repeat(b.lit("0"), 1, None)
    d = int(g[0])
    return (
        True,
        b.alt(  # the empty string (value 0) is below 0.g > 0
            b.seq(b.span(0, d - 1), b.any_digits) if d > 0 else b.empty,
            b.seq(b.lit(g[0]), _whole(b, _frac_at_most(b, g[1:], strict))),
        ),
    )


def _frac_between(b: _Build, f: str, g: str, fs: bool, gs: bool) -> _Frac:
    """Digit strings ``s`` with ``0.f <= 0.s <= 0.g`` (strict where asked); the set is known
    to be non-empty (``0.f < 0.g``, or equal with both sides inclusive)."""
    if not f and not fs:
        return _frac_at_most(b, g, gs)
    if not g:  # 0.s <= 0 with 0.s > 0
        return False, b.empty
    f0 = f[0] if f else "0"  # a strict lower bound of 0 reads as 0.000...
    g0 = g[0]
    if f0 == g0:
        return False, b.seq(b.lit(f0), _whole(b, _frac_between(b, f[1:], g[1:], fs, gs)))
    return False, b.alt(
        b.seq(b.lit(f0), _whole(b, _frac_at_least(b, f[1:], fs))),
        b.seq(b.span(int(f0) + 1, int(g0) - 1), b.any_digits),
        b.seq(b.lit(g0), _whole(b, _frac_at_most(b, g[1:], gs))),
    )


def _fraction(b: _Build, frac: _Frac) -> Expr:
    """The optional ``.digits`` part of a number text from a set of digit strings."""
    dotted = b.seq(b.lit("."), frac[1])
    return b.alt(dotted, b.eps) if frac[0] else dotted


def _split(value: Decimal, origin: Origin | None) -> tuple[int, str]:
    """Integer part and fraction digits (no trailing zeros) of a finite ``value >= 0``, exactly."""
    value = value.copy_abs()
    if value.is_zero():
        return 0, ""
    exp = value.as_tuple().exponent
    assert isinstance(exp, int)
    if value.adjusted() >= MAX_BOUND_DIGITS or -exp > MAX_BOUND_DIGITS + len(value.as_tuple()[1]):
        _too_long(origin)
    digits = "".join(map(str, value.as_tuple().digits))
    if exp >= 0:
        whole, frac = int(digits) * 10**exp, ""
    else:
        digits = digits.rjust(-exp + 1, "0")
        whole, frac = int(digits[:exp]), digits[exp:].rstrip("0")
    if len(str(whole)) + len(frac) > MAX_BOUND_DIGITS:
        _too_long(origin)
    return whole, frac


def _too_long(origin: Origin | None) -> NoReturn:
    raise UnsupportedFeatureError(
        f"a numeric bound has more than {MAX_BOUND_DIGITS} digits",
        code="schema-number-too-long",
        origin=origin,
        hint="use a number of reasonable size",
    )


def _magnitudes(
    b: _Build, lo: Decimal, lo_strict: bool, hi: Decimal | None, hi_strict: bool
) -> Expr:
    """Texts ``(0|[1-9][0-9]*)(\\.[0-9]+)?`` of values in the range from ``lo >= 0``."""
    if hi is not None and (lo > hi or (lo == hi and (lo_strict or hi_strict))):
        return b.empty
    whole_lo, f = _split(lo, b.origin)
    any_fraction = b.opt(b.seq(b.lit("."), b.repeat(b.any_digit, 1, None)))
    first = _fraction(b, _frac_at_least(b, f, lo_strict))
    if hi is None:
        return b.alt(
            b.seq(b.lit(str(whole_lo)), first),
            b.seq(_naturals(b, whole_lo + 1, None), any_fraction),
        )
    whole_hi, g = _split(hi, b.origin)
    if whole_lo == whole_hi:
        return b.seq(
            b.lit(str(whole_lo)), _fraction(b, _frac_between(b, f, g, lo_strict, hi_strict))
        )
    return b.alt(
        b.seq(b.lit(str(whole_lo)), first),
        b.seq(_naturals(b, whole_lo + 1, whole_hi - 1), any_fraction),
        b.seq(b.lit(str(whole_hi)), _fraction(b, _frac_at_most(b, g, hi_strict))),
    )


def _finite_bounds(
    lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool, origin: Origin | None
) -> tuple[Decimal | None, bool, Decimal | None, bool] | None:
    """Bounds with infinities resolved (``None`` for an unbounded side); ``None`` when empty."""
    for value in (lo, hi):
        if value is not None and value.is_nan():
            raise GrammarError("a numeric bound is NaN", code="schema-malformed", origin=origin)
    if lo is not None and lo.is_infinite():
        if lo > 0:
            return None
        lo, lo_x = None, False
    if hi is not None and hi.is_infinite():
        if hi < 0:
            return None
        hi, hi_x = None, False
    return lo, lo_x, hi, hi_x


def _json_number(b: _Build) -> Expr:
    digits1 = b.repeat(b.any_digit, 1, None)
    return b.seq(
        b.opt(b.lit("-")),
        b.alt(b.lit("0"), b.seq(b.span(1, 9), b.any_digits)),
        b.opt(b.seq(b.lit("."), digits1)),
        b.opt(b.seq(b.chars("eE"), b.opt(b.chars("+-")), digits1)),
    )


def number_range(
    lo: Decimal | None,
    hi: Decimal | None,
    *,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    origin: Origin | None = None,
) -> Expr:
    """JSON number texts whose exact decimal value lies between ``lo`` and ``hi``.

    Without bounds: the whole JSON number syntax, exponents and ``-0`` included. With any bound:
    texts ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?`` without exponent (a grammar cannot compare an
    exponent form cheaply, and a model needs none), exact on that set: trailing fraction zeros
    are accepted (``0.50`` is 0.5) and negative-zero texts (``-0``, ``-0.0``) are excluded.
    Comparisons are decimal, digit by digit, so ``0.1`` is 1/10 and not a binary float; the
    size is linear in the digits of the bounds. An empty range gives ``Alt(())``.
    """
    b = _Build(origin)
    if lo is None and hi is None:
        return _finish(_json_number(b))
    bounds = _finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    return _finish(_signed_decimals(b, *bounds))


def _signed_decimals(
    b: _Build, lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool
) -> Expr:
    """Bounded decimal texts: non-negative values unsigned, negative ones after a minus."""
    parts = []
    if hi is None or hi > 0 or (hi == 0 and not hi_x):
        if lo is not None and lo >= 0:
            parts.append(_magnitudes(b, lo, lo_x, hi, hi_x))
        else:
            parts.append(_magnitudes(b, _ZERO, False, hi, hi_x))
    if lo is None or lo < 0:
        # Magnitudes m > 0 with -m in range: -hi <= m (or 0 < m), m <= -lo.
        if hi is None or hi >= 0:
            m_lo, m_lo_x = _ZERO, True
        else:
            m_lo, m_lo_x = hi.copy_negate(), hi_x
        m_hi = None if lo is None else lo.copy_negate()
        parts.append(b.seq(b.lit("-"), _magnitudes(b, m_lo, m_lo_x, m_hi, lo_x)))
    return b.alt(*parts)


# --- divisibility --------------------------------------------------------------------------------
#
# The divisibility expressions below are *loose*: digit strings with leading zeros allowed (and
# the empty string where convenient) whose value is a multiple. They are only ever intersected
# with an integer range, which alone decides the syntax, so they can stay simple.


def _power_divisible(b: _Build, p: int, e: int) -> Expr:
    """Digit strings whose value is divisible by ``p**e`` (``p`` is 2 or 5).

    Divisibility by ``p**e`` depends on the last ``e`` digits only. Reading them from the right,
    the digit at each position must be congruent to a required residue modulo ``p`` and fixes
    the residue required of the digits to its left; the expression groups the digits with the
    same consequence into one class, so it is a tree over the right-to-left positions.
    """
    q = 10 // p

    @functools.cache
    def left_of(i: int, need: int) -> Expr:
        # The digits left of position i (counted from the right) must be = need mod p**(e-i).
        if i == e:
            return b.any_digits
        rest = e - i - 1
        groups: dict[int, list[int]] = {}
        for d in range(10):
            if (d - need) % p == 0:
                nxt = (need - d) // p * pow(q, -1, p**rest) % p**rest if rest else 0
                groups.setdefault(nxt, []).append(d)
        alts = [b.seq(left_of(i + 1, nxt), b.digits(ds)) for nxt, ds in groups.items()]
        if need == 0:  # no digits left: the value so far is a multiple already
            alts.append(b.eps)
        return b.alt(*alts)

    return left_of(0, 0)


def _residue_divisible(b: _Build, q: int) -> Expr:
    """Digit strings whose value is divisible by ``q`` (coprime to 10), by state elimination.

    The states of the remainder automaton (``r -> (10r + d) mod q``) other than 0 are removed
    one by one; what remains is the loop on state 0. Shared sub-expressions make this fast, but
    the tree grows about 4x per state, hence :data:`ODD_DIVISORS`.
    """
    edges: dict[tuple[int, int], Expr] = {}
    for r in range(q):
        targets: dict[int, list[int]] = {}
        for d in range(10):
            targets.setdefault((10 * r + d) % q, []).append(d)
        for t, ds in targets.items():
            edges[(r, t)] = b.digits(ds)
    for s in range(1, q):
        loop = edges.pop((s, s), None)
        middle = b.star(loop) if loop is not None else b.eps
        ins = [(r, e) for (r, t), e in edges.items() if t == s]
        outs = [(t, e) for (r, t), e in edges.items() if r == s]
        for r, _ in ins:
            del edges[(r, s)]
        for t, _ in outs:
            del edges[(s, t)]
        for r, e_in in ins:
            for t, e_out in outs:
                path = b.seq(e_in, middle, e_out)
                edges[(r, t)] = b.alt(edges[(r, t)], path) if (r, t) in edges else path
    return b.star(edges.get((0, 0), b.empty))


def _factor(k: int, p: int) -> tuple[int, int]:
    """``(e, k / p**e)`` with ``p**e`` the largest power of ``p`` dividing ``k``."""
    e = 0
    while k % p == 0:
        k //= p
        e += 1
    return e, k


def _divisibility(b: _Build, k: int) -> list[Expr] | None:
    """Loose expressions whose intersection is the multiples of ``k``; None when unsupported."""
    twos, rest = _factor(k, 2)
    fives, rest = _factor(rest, 5)
    odd = []
    for q in ODD_DIVISORS:
        if rest % q == 0:
            rest //= q
            odd.append(q)
    if rest != 1 or twos - fives > MAX_TWO_EXCESS or fives - twos > MAX_FIVE_EXCESS:
        return None
    parts = []
    if twos or fives:
        zeros = min(twos, fives)  # a multiple of 10**zeros ends with that many zeros
        p, e = (2, twos - zeros) if twos > fives else (5, fives - zeros)
        head = _power_divisible(b, p, e)
        parts.append(b.alt(b.seq(head, b.lit("0" * zeros)), b.lit("0")) if zeros else head)
    parts.extend(_residue_divisible(b, q) for q in odd)
    return parts


def _check_divisor(k: int, origin: Origin | None) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise GrammarError(
            f"multipleOf must be a positive integer here, not {k!r}",
            code="schema-malformed",
            origin=origin,
        )
    _check_int(k, "divisor", origin)


def integer_multiple_of(
    k: int, lo: int | None = None, hi: int | None = None, *, origin: Origin | None = None
) -> Expr:
    """Integer texts (as :func:`integer_range`) of the multiples of ``k`` in ``lo..hi``; exact.

    The range expression is intersected with divisibility expressions over the digits (the IR
    has no automaton node, and a terminal may hold no rule reference). Supported divisors are
    ``k = 2**a * 5**b * c`` with ``a - b <= MAX_TWO_EXCESS`` (5), ``b - a <= MAX_FIVE_EXCESS``
    (8) and ``c`` in 1, 3, 7, 21 (:data:`ODD_DIVISORS`): e.g. 2..8, 10, 12, 14, 15, 16, 20,
    21, 24, 25, 28, 30, 32, 40, 42, 48, 50, 60, 80, 96, 100, 120, 125, 160, 250, 320, 500, 1000,
    10**n. Measured expression sizes (nodes): 2**a: 6, 15, 67, 343, 1.7k for
    a = 1..5; 5**b: 6, 15, 32, 68, 139, 277, 553, 1.1k for b = 1..8; 3: 31; 7: 7.9k; 10**n adds
    nothing. Other divisors (9, 11, 13, 64, 1024...) are lowered only when both bounds are given
    and the range holds at most :data:`MAX_ENUMERATED_MULTIPLES` multiples, which are listed;
    otherwise :class:`UnsupportedFeatureError` ``schema-multipleof-too-large``. An empty result
    is ``Alt(())``.
    """
    _check_divisor(k, origin)
    _check_int(lo, "lower bound", origin)
    _check_int(hi, "upper bound", origin)
    b = _Build(origin)
    if k == 1:
        return integer_range(lo, hi, origin=origin)
    count = None
    if lo is not None and hi is not None:
        first = -(-lo // k) * k  # the smallest multiple >= lo
        count = max(0, (hi - first) // k + 1)
        if count == 0:
            return b.empty
    parts = _divisibility(b, k)
    if parts is None:
        if count is None or count > MAX_ENUMERATED_MULTIPLES:
            raise UnsupportedFeatureError(
                f"multipleOf {k} needs a divisibility automaton too large to write as an"
                " expression",
                code="schema-multipleof-too-large",
                origin=origin,
                hint=(
                    "use a divisor of the form 2**a * 5**b * c with c in 1, 3, 7, 21 and"
                    f" |a - b| small, or bound the range to at most {MAX_ENUMERATED_MULTIPLES}"
                    " multiples"
                ),
            )
        assert lo is not None
        return _finish(b.alt(*(b.lit(str(first + i * k)) for i in range(count))))
    sign = b.opt(b.lit("-"))
    items = (_integers(b, lo, hi), *(b.seq(sign, part) for part in parts))
    return _finish(Intersect(items, origin=origin))


def _integer_bounds(
    lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool, origin: Origin | None
) -> tuple[int | None, int | None]:
    """The integer range equivalent to a decimal range."""

    def floor(x: Decimal) -> int:
        whole, frac = _split(x, origin)
        return whole if x >= 0 else -whole - (1 if frac else 0)

    i_lo = i_hi = None
    if lo is not None:
        i_lo = -floor(lo.copy_negate())  # ceiling
        if lo_x and i_lo == lo:
            i_lo += 1
    if hi is not None:
        i_hi = floor(hi)
        if hi_x and i_hi == hi:
            i_hi -= 1
    return i_lo, i_hi


def number_multiple_of(
    k: int,
    lo: Decimal | None,
    hi: Decimal | None,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    *,
    origin: Origin | None = None,
) -> Expr:
    """Number texts whose value is a multiple of the integer ``k`` and lies in the range.

    For ``type: number`` with an integer divisor: the integer texts of
    :func:`integer_multiple_of` (same divisor limits) optionally followed by ``.0+`` (``4.00``),
    never with an exponent nor a negative zero. Exact on that set.
    """
    _check_divisor(k, origin)
    b = _Build(origin)
    bounds = _finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    i_lo, i_hi = _integer_bounds(*bounds, origin)
    whole = integer_multiple_of(k, i_lo, i_hi, origin=origin)
    if _is_empty(whole):
        return whole
    zeros = b.seq(b.lit("."), b.repeat(b.lit("0"), 1, None))
    return _finish(b.seq(whole, b.opt(zeros)))

"""Every spelling of a JSON number that a schema allows: exponents, ``-0``, ``1.0`` for ``1``.

:mod:`.numbers` writes one conventional text per value (``spellings="canonical"``). JSON itself
has many: ``100``, ``100.0``, ``1e2``, ``1E+2``, ``10.0e1``, ``1000e-1``, ``0.1e3``; ``0`` and
``-0``. Validators decide on the value, so with ``spellings="all"`` the grammar must accept every
text whose *value* satisfies the keywords. The languages here are exact, decided by decimal
digit arithmetic on the text, with one stated limit:

* Without an exponent, every text is covered (bounds, integers, multiples, values).
* With an exponent, every text whose mantissa's first significant digit and last non-zero
  digit lie within :data:`MAX_MANTISSA_DIGITS` places of its point: every mantissa of at most
  that many digits (``1.2345678901234567e+25`` has 17). Other exponent texts may be rejected
  even when their value is valid (never accepted when it is not): the exact language of, say,
  "at most 200" over *all* exponent texts is not context-free (``0.000...01e{n}`` is in it iff
  ``n`` is at most the count of zeros plus 3, a count compared with a decimal number), so no
  grammar has it. The limit is a fixed domain, like the bounded whitespace of :mod:`.layout`;
  a ``not`` removes an exact language within it (:func:`decided_numbers`), so it stays exact.

A positive value is written ``0.S x 10**A`` with ``S`` its significant digits (first one not
zero). A mantissa fixes ``a``, its own ``A`` (``len(I)`` for ``I.F`` with ``I != 0``, minus the
count of leading fraction zeros otherwise), so a text ``mantissa e x`` has ``A = a + x``:
comparing with a bound ``0.B x 10**b`` is comparing ``a + x`` with ``b`` and, on a tie, ``S``
with ``B`` digit by digit. One alternative per ``a`` (at most ``2 * MAX_MANTISSA_DIGITS``), each
with integer ranges on the exponent text: the size is linear in the digits of the bounds.
Integrality is the same with the place ``r`` of the last non-zero digit: ``x >= r``; an integer
range intersects the two. Multiples add, per ``r``, the last digits that supply missing factors
of 2 or 5 (:meth:`_Texts.multiple_exponents`).
"""

from __future__ import annotations

import functools
from decimal import Decimal

from typedgen.errors import UnsupportedFeatureError
from typedgen.frontends.jsonschema import numbers
from typedgen.frontends.jsonschema.numbers import _Build, _naturals
from typedgen.ir.nodes import Expr, Intersect
from typedgen.ir.origin import Origin
from typedgen.ir.passes.rewrite import simplify

__all__ = [
    "MAX_MANTISSA_DIGITS",
    "MAX_SPELLED_MULTIPLES",
    "all_integers",
    "all_multiples",
    "all_numbers",
    "decided_numbers",
    "exponent_domain",
    "fractionless_integers",
    "value_texts",
]

MAX_MANTISSA_DIGITS = 17
"""Most digits of a mantissa written with an exponent that is always decided: 17 is what every
shortest round-trip double needs (``1.2345678901234567e+25``). The automata grow with its square
(an unbounded integer takes about 700 states at 17)."""

MAX_TAIL_POWER = 2
"""``multipleOf`` with every spelling is lowered for divisors ``2**a * 5**b * c`` with ``c`` 1
or 3 and ``max(a, b)`` at most this (2, 3, 4, 5, 6, 10, 12, 15, 20, 25, 30, 50, 60, 75, 100,
150, 300...): the last digits that supply missing factors are tracked per place of the last
non-zero digit, 5**2 residues at most."""

MAX_SPELLED_MULTIPLES = 32
"""``multipleOf`` with every spelling is lowered when the range holds at most this many
multiples (each is listed with :func:`value_texts`); otherwise it is refused."""

_M = MAX_MANTISSA_DIGITS
_LT, _EQ, _GT = "lt", "eq", "gt"


def _digits_exponent(value: Decimal) -> tuple[str, int]:
    """``(S, A)`` with ``value == 0.S * 10**A``, ``S`` without leading or trailing zeros."""
    sign, digits, exp = value.copy_abs().normalize().as_tuple()
    assert isinstance(exp, int) and not sign
    text = "".join(map(str, digits))
    return text, len(text) + exp


class _Texts:
    """The builders, with one origin."""

    def __init__(self, origin: Origin | None) -> None:
        self.b = _Build(origin)
        b = self.b
        self.e = b.chars("eE")
        self.zeros = b.star(b.lit("0"))
        self.nonzero = b.span(1, 9)
        # A mantissa whose value is zero: 0, 0.0, 0.000...
        self.fraction_zeros = b.opt(b.seq(b.lit("."), b.repeat(b.lit("0"), 1, None)))
        self.zero_mantissa = b.seq(b.lit("0"), self.fraction_zeros)

    # -- exponent texts -------------------------------------------------------------------------

    def exponent(self, lo: int | None, hi: int | None) -> Expr:
        """Exponent texts ``[+-]?[0-9]+`` (leading zeros, ``+0``, ``-0`` allowed) in ``lo..hi``."""
        b = self.b
        if lo is not None and hi is not None and lo > hi:
            return b.empty
        parts = []
        if hi is None or hi >= 0:
            parts.append(b.seq(b.opt(b.lit("+")), self.zeros, _naturals(b, max(lo or 0, 0), hi)))
        if lo is None or lo < 0:
            low_mag = 1 if hi is None or hi >= 0 else -hi
            high_mag = None if lo is None else -lo
            parts.append(b.seq(b.lit("-"), self.zeros, _naturals(b, low_mag, high_mag)))
        if (lo is None or lo <= 0) and (hi is None or hi >= 0):
            parts.append(b.seq(b.lit("-"), b.repeat(b.lit("0"), 1, None)))
        return b.alt(*parts)

    # -- significant digits ---------------------------------------------------------------------

    def free(self, i: int, point: int | None) -> Expr:
        """Any digits after ``i`` written ones, the point after exactly ``point`` digits."""
        b = self.b
        if point is None or i > point:
            return b.any_digits
        fraction = b.opt(b.seq(b.lit("."), b.repeat(b.any_digit, 1, None)))
        return b.seq(b.repeat(b.any_digit, point - i, point - i), fraction)

    def significant(self, bound: str, allowed: frozenset[str], point: int | None) -> Expr:
        """Digit strings ``S`` (first digit 1-9) with ``0.S`` compared to ``0.bound`` in
        ``allowed`` (``lt``, ``eq``, ``gt``); with ``point``, ``S`` has at least that many digits
        and a ``.`` after them when it has more."""
        b = self.b

        def digit(i: int, cls: Expr) -> Expr:
            return b.seq(b.lit("."), cls) if point is not None and i == point else cls

        def end_ok(i: int) -> bool:
            return i >= 1 and (point is None or i >= point)

        @functools.cache
        def eq(i: int) -> Expr:
            if i >= max(len(bound), 1) and (point is None or i >= point):
                return closed(i)
            alts = []
            if end_ok(i) and (_LT if i < len(bound) else _EQ) in allowed:
                alts.append(b.eps)
            c = int(bound[i]) if i < len(bound) else 0
            first = 1 if i == 0 else 0
            if _LT in allowed and c > first:
                alts.append(b.seq(digit(i, b.span(first, c - 1)), self.free(i + 1, point)))
            if c >= first:
                alts.append(b.seq(digit(i, b.span(c, c)), eq(i + 1)))
            if _GT in allowed and max(c + 1, first) <= 9:
                alts.append(b.seq(digit(i, b.span(max(c + 1, first), 9)), self.free(i + 1, point)))
            return b.alt(*alts)

        def closed(i: int) -> Expr:
            # The bound is spent: zeros keep the tie, a non-zero digit makes S greater.
            body = b.alt(
                b.repeat(b.lit("0"), 1, None) if _EQ in allowed else b.empty,
                b.seq(self.zeros, self.nonzero, b.any_digits) if _GT in allowed else b.empty,
            )
            tie = b.eps if _EQ in allowed and end_ok(i) else b.empty
            if point is not None and i == point:
                return b.alt(tie, b.seq(b.lit("."), body))
            return b.alt(tie, body)

        if not bound:
            allowed = allowed & {_GT}  # every S is above 0.(nothing)
        return eq(0) if allowed else b.empty

    def mantissa(self, a: int, bound: str, allowed: frozenset[str]) -> Expr:
        """Unsigned non-zero mantissas with own exponent ``a`` whose ``S`` compares as asked."""
        b = self.b
        if a >= 1:
            return self.significant(bound, allowed, a)
        head = b.lit("0." + "0" * -a)
        return b.seq(head, self.significant(bound, allowed, None))

    # -- ranges ---------------------------------------------------------------------------------

    def positive(self, lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool) -> Expr:
        """Unsigned exponent texts of values ``v > 0`` in the range (``lo`` ``None`` or > 0)."""
        b = self.b
        low = _digits_exponent(lo) if lo is not None else None
        high = _digits_exponent(hi) if hi is not None else None
        everything = frozenset({_GT})
        above = frozenset({_GT}) if lo_x else frozenset({_GT, _EQ})
        below = frozenset({_LT}) if hi_x else frozenset({_LT, _EQ})
        alts = []
        for a in range(-(_M - 2), _M + 1):
            x_lo = None if low is None else low[1] - a + 1
            x_hi = None if high is None else high[1] - a - 1
            free = self.exponent(x_lo, x_hi)
            if free != b.empty:
                alts.append(b.seq(self.mantissa(a, "", everything), self.e, free))
            if low is not None and high is not None and low == high:
                # A single value (lo == hi, both inclusive): S is its digits, then zeros.
                exact = self.mantissa(a, low[0], frozenset({_EQ}))
                alts.append(b.seq(exact, self.e, self.exponent(low[1] - a, low[1] - a)))
                continue
            if low is not None and high is not None and low[1] == high[1]:
                tie = Intersect((self.mantissa(a, low[0], above), self.mantissa(a, high[0], below)))
                alts.append(b.seq(tie, self.e, self.exponent(low[1] - a, low[1] - a)))
                continue
            if low is not None:
                alts.append(
                    b.seq(
                        self.mantissa(a, low[0], above),
                        self.e,
                        self.exponent(low[1] - a, low[1] - a),
                    )
                )
            if high is not None:
                alts.append(
                    b.seq(
                        self.mantissa(a, high[0], below),
                        self.e,
                        self.exponent(high[1] - a, high[1] - a),
                    )
                )
        return b.alt(*alts)

    def exponent_range(
        self, lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool
    ) -> Expr:
        """Exponent texts (signed) of values in the range, before the mantissa-length cap."""
        b = self.b
        parts = []
        if hi is None or hi > 0:
            pos_lo = lo if lo is not None and lo > 0 else None
            parts.append(self.positive(pos_lo, lo_x and pos_lo is not None, hi, hi_x))
        if lo is None or lo < 0:
            neg_lo = hi.copy_negate() if hi is not None and hi < 0 else None
            neg_hi = None if lo is None else lo.copy_negate()
            parts.append(
                b.seq(b.lit("-"), self.positive(neg_lo, hi_x and neg_lo is not None, neg_hi, lo_x))
            )
        if _holds_zero(lo, lo_x, hi, hi_x):
            parts.append(
                b.seq(b.opt(b.lit("-")), self.zero_mantissa, self.e, self.exponent(None, None))
            )
        return b.alt(*parts)

    # -- integers -------------------------------------------------------------------------------

    def last_digit_at(self, r: int) -> Expr:
        """Unsigned non-zero mantissas whose last non-zero digit is ``r`` places after the
        point (``r <= 0``: ``-r`` zeros end the integer part)."""
        b = self.b
        if r >= 1:
            whole = b.alt(b.lit("0"), b.seq(self.nonzero, b.any_digits))
            return b.seq(
                whole, b.lit("."), b.repeat(b.any_digit, r - 1, r - 1), self.nonzero, self.zeros
            )
        ends_nonzero = b.alt(self.nonzero, b.seq(self.nonzero, b.any_digits, self.nonzero))
        return b.seq(ends_nonzero, b.lit("0" * -r), self.fraction_zeros)

    def integral_exponents(self) -> Expr:
        """Exponent texts of integral values: ``x >= r``, ``r`` the last non-zero digit's place."""
        b = self.b
        alts = [
            b.seq(self.last_digit_at(r), self.e, self.exponent(r, None))
            for r in range(-(_M - 1), _M)
        ]
        unsigned = b.alt(*alts, b.seq(self.zero_mantissa, self.e, self.exponent(None, None)))
        return b.seq(b.opt(b.lit("-")), unsigned)

    def tail_divisible(self, p: int, j: int, r: int) -> Expr:
        """Mantissas as :meth:`last_digit_at` whose significant digits (the point ignored) end
        in a multiple of ``p**j``: the last ``j`` digits decide it, read right to left."""
        b = self.b
        q = 10 // p
        point = r if r >= 1 else None

        @functools.cache
        def left_of(i: int, need: int) -> Expr:
            # Digits at places >= i (counted from the right) must be = need mod p**(j - i).
            if i == j:
                if point is not None and point > j:
                    return b.seq(
                        b.any_digits, b.lit("."), b.repeat(b.any_digit, point - j, point - j)
                    )
                return b.any_digits
            rest = j - i - 1
            groups: dict[int, list[int]] = {}
            for d in range(1 if i == 0 else 0, 10):
                if (d - need) % p == 0:
                    nxt = (need - d) // p * pow(q, -1, p**rest) % p**rest if rest else 0
                    groups.setdefault(nxt, []).append(d)
            dot = b.lit(".") if point is not None and i == point - 1 else b.eps
            alts = [b.seq(left_of(i + 1, nxt), dot, b.digits(ds)) for nxt, ds in groups.items()]
            if need == 0 and i > 0 and (point is None or i > point):
                alts.append(b.eps)  # no digit further left: the value so far is a multiple
            return b.alt(*alts)

        tail = self.zeros if r >= 1 else b.seq(b.lit("0" * -r), self.fraction_zeros)
        return b.seq(left_of(0, 0), tail)

    def multiple_exponents(self, k: int) -> Expr | None:
        """Exponent texts of the multiples of ``k`` (``None`` where too costly to write).

        A value ``S * 10**z`` (``S`` its digits up to the last non-zero one, ``z = x - r``) is
        a multiple of ``2**a * 5**b * c`` when ``c`` divides the digits (the point is neutral)
        and, for ``z < max(a, b)``, the last digits of ``S`` supply the missing twos or fives.
        """
        twos, rest = numbers._factor(k, 2)
        fives, rest = numbers._factor(rest, 5)
        most = max(twos, fives)
        if rest not in (1, 3) or most > MAX_TAIL_POWER:
            return None
        b = self.b
        alts = []
        for r in range(-(_M - 1), _M):
            alts.append(b.seq(self.last_digit_at(r), self.e, self.exponent(r + most, None)))
            for z in range(most):
                need2, need5 = max(0, twos - z), max(0, fives - z)
                if need2 and need5:
                    continue  # S has no factor 10
                if need2 or need5:
                    p, j = (2, need2) if need2 else (5, need5)
                    mantissa = self.tail_divisible(p, j, r)
                else:
                    mantissa = self.last_digit_at(r)
                alts.append(b.seq(mantissa, self.e, self.exponent(r + z, r + z)))
        unsigned = b.alt(*alts, b.seq(self.zero_mantissa, self.e, self.exponent(None, None)))
        whole = b.alt(b.lit("0"), b.seq(self.nonzero, b.any_digits))
        marker = b.seq(self.e, b.opt(b.chars("+-")), b.repeat(b.any_digit, 1, None))
        fraction = b.opt(b.seq(b.lit("."), b.repeat(b.any_digit, 1, None)))
        syntax = b.seq(b.opt(b.lit("-")), whole, fraction, marker)
        parts: list[Expr] = [b.seq(b.opt(b.lit("-")), unsigned), syntax]
        if rest != 1:
            parts.append(b.seq(b.opt(b.lit("-")), _residue_with_point(b, rest), marker))
        return Intersect(tuple(parts))


def _residue_with_point(b: _Build, q: int) -> Expr:
    """Digit strings (a ``.`` anywhere is ignored) whose value is divisible by ``q``, coprime
    to 10: :func:`.numbers._residue_divisible` with the point as a loop on every state."""
    edges: dict[tuple[int, int], Expr] = {}
    for r in range(q):
        targets: dict[int, list[int]] = {}
        for d in range(10):
            targets.setdefault((10 * r + d) % q, []).append(d)
        for t, ds in targets.items():
            edges[(r, t)] = b.digits(ds)
        edges[(r, r)] = b.alt(edges[(r, r)], b.lit(".")) if (r, r) in edges else b.lit(".")
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


def _holds_zero(lo: Decimal | None, lo_x: bool, hi: Decimal | None, hi_x: bool) -> bool:
    above = lo is None or lo < 0 or (lo == 0 and not lo_x)
    below = hi is None or hi > 0 or (hi == 0 and not hi_x)
    return above and below


@functools.cache
def exponent_domain() -> Expr:
    """The exponent texts the languages here decide: the mantissa's first significant digit and
    its last non-zero one lie within :data:`MAX_MANTISSA_DIGITS` places of its point (true of
    every mantissa of at most that many digits); zero mantissas are all in."""
    b = _Build(None)
    digit, nonzero = b.any_digit, b.span(1, 9)
    zero = b.seq(b.lit("0"), b.opt(b.seq(b.lit("."), b.repeat(b.lit("0"), 1, None))))
    fraction = b.opt(b.seq(b.lit("."), b.repeat(digit, 1, None)))
    first = b.alt(
        b.seq(nonzero, b.repeat(digit, 0, _M - 1), fraction),
        b.seq(b.lit("0."), b.repeat(b.lit("0"), 0, _M - 2), nonzero, b.any_digits),
        zero,
    )
    whole = b.alt(b.lit("0"), b.seq(nonzero, b.any_digits))
    ends_nonzero = b.alt(nonzero, b.seq(nonzero, b.any_digits, nonzero))
    last = b.alt(
        b.seq(whole, b.lit("."), b.repeat(digit, 0, _M - 2), nonzero, b.star(b.lit("0"))),
        b.seq(
            ends_nonzero,
            b.repeat(b.lit("0"), 0, _M - 1),
            b.opt(b.seq(b.lit("."), b.repeat(b.lit("0"), 1, None))),
        ),
        zero,
    )
    marker = b.seq(b.chars("eE"), b.opt(b.chars("+-")), b.repeat(digit, 1, None))
    return b.seq(b.opt(b.lit("-")), Intersect((first, last)), marker)


def _minus_zero(b: _Build) -> Expr:
    return b.seq(b.lit("-0"), b.opt(b.seq(b.lit("."), b.repeat(b.lit("0"), 1, None))))


def all_numbers(
    lo: Decimal | None,
    hi: Decimal | None,
    *,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    origin: Origin | None = None,
) -> Expr:
    """Every JSON number text whose value lies in the range (see the module's limit).

    Without bounds this is the whole JSON number syntax. Bound checks (NaN, infinities, digit
    counts) are :func:`.numbers.number_range`'s.
    """
    if lo is None and hi is None:
        return numbers.number_range(None, None, origin=origin)
    plain = numbers.number_range(
        lo, hi, lo_exclusive=lo_exclusive, hi_exclusive=hi_exclusive, origin=origin
    )
    t = _Texts(origin)
    b = t.b
    bounds = numbers._finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    f_lo, f_lo_x, f_hi, f_hi_x = bounds
    if (
        f_lo is not None
        and f_hi is not None
        and (f_lo > f_hi or (f_lo == f_hi and (f_lo_x or f_hi_x)))
    ):
        return b.empty
    parts = [plain, t.exponent_range(f_lo, f_lo_x, f_hi, f_hi_x)]
    if _holds_zero(f_lo, f_lo_x, f_hi, f_hi_x):
        parts.append(_minus_zero(b))
    return simplify(b.alt(*parts))


def all_integers(
    lo: Decimal | None,
    hi: Decimal | None,
    *,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    origin: Origin | None = None,
) -> Expr:
    """Every JSON number text whose value is an integer in the range: ``3``, ``3.0``, ``3e0``,
    ``0.3e1``, ``30e-1``, ``-0`` (see the module's limit)."""
    t = _Texts(origin)
    b = t.b
    bounds = numbers._finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    i_lo, i_hi = numbers._integer_bounds(*bounds, origin)
    if i_lo is not None and i_hi is not None and i_lo > i_hi:
        return b.empty
    plain = numbers.number_multiple_of(1, lo, hi, lo_exclusive, hi_exclusive, origin=origin)
    d_lo = None if i_lo is None else Decimal(i_lo)
    d_hi = None if i_hi is None else Decimal(i_hi)
    integral = t.integral_exponents()
    if d_lo is None and d_hi is None:
        exponents: Expr = integral
    else:
        exponents = Intersect((t.exponent_range(d_lo, False, d_hi, False), integral))
    parts = [plain, exponents]
    if _holds_zero(d_lo, False, d_hi, False):
        parts.append(_minus_zero(b))
    return simplify(b.alt(*parts))


def fractionless_integers(
    lo: Decimal | None,
    hi: Decimal | None,
    *,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    multiple: int = 1,
    origin: Origin | None = None,
) -> Expr:
    """Integers as drafts 3 and 4 define them, "without a fraction or exponent part": the
    canonical texts and ``-0`` where 0 is in range (and a multiple of everything)."""
    b = _Build(origin)
    bounds = numbers._finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    i_lo, i_hi = numbers._integer_bounds(*bounds, origin)
    texts = numbers.integer_multiple_of(multiple, i_lo, i_hi, origin=origin)
    if (i_lo is None or i_lo <= 0) and (i_hi is None or i_hi >= 0):
        texts = b.alt(texts, b.lit("-0"))
    return simplify(texts)


def value_texts(value: Decimal, *, origin: Origin | None = None) -> Expr:
    """Every JSON number text equal to ``value`` (``1``, ``1.0``, ``1e0``, ``10E-1``...)."""
    return all_numbers(value, value, origin=origin)


@functools.cache
def decided_numbers() -> Expr:
    """The number texts decided exactly here: all without exponent, and :func:`exponent_domain`.

    A ``not`` removes an exact language from a body within this domain, so it stays exact.
    """
    b = _Build(None)
    digits1 = b.repeat(b.any_digit, 1, None)
    whole = b.alt(b.lit("0"), b.seq(b.span(1, 9), b.any_digits))
    plain = b.seq(b.opt(b.lit("-")), whole, b.opt(b.seq(b.lit("."), digits1)))
    return b.alt(plain, exponent_domain())


def all_multiples(
    k: int,
    lo: Decimal | None,
    hi: Decimal | None,
    lo_exclusive: bool = False,
    hi_exclusive: bool = False,
    *,
    origin: Origin | None = None,
) -> Expr:
    """Every spelling of the multiples of the integer ``k`` in the range, when it holds at most
    :data:`MAX_SPELLED_MULTIPLES` of them.

    Otherwise :class:`UnsupportedFeatureError`: divisibility of a text with an exponent couples
    the digits, the place of the point and the exponent's value, and the expressions that
    decide it exactly grow with all three, so the keyword is refused rather than approximated.
    """
    t = _Texts(origin)
    b = t.b
    bounds = numbers._finite_bounds(lo, lo_exclusive, hi, hi_exclusive, origin)
    if bounds is None:
        return b.empty
    i_lo, i_hi = numbers._integer_bounds(*bounds, origin)
    if i_lo is not None and i_hi is not None and i_lo > i_hi:
        return b.empty
    exponents = t.multiple_exponents(k)
    if exponents is not None:
        plain = numbers.number_multiple_of(k, lo, hi, lo_exclusive, hi_exclusive, origin=origin)
        d_lo = None if i_lo is None else Decimal(i_lo)
        d_hi = None if i_hi is None else Decimal(i_hi)
        if d_lo is not None or d_hi is not None:
            exponents = Intersect((t.exponent_range(d_lo, False, d_hi, False), exponents))
        parts = [plain, exponents]
        if _holds_zero(d_lo, False, d_hi, False):
            parts.append(_minus_zero(b))
        return simplify(b.alt(*parts))
    if i_lo is not None and i_hi is not None:
        first = -(-i_lo // k) * k
        count = max(0, (i_hi - first) // k + 1)
        if count <= MAX_SPELLED_MULTIPLES:
            values = (Decimal(first + i * k) for i in range(count))
            return simplify(b.alt(*(value_texts(v, origin=origin) for v in values)))
    raise UnsupportedFeatureError(
        f"multipleOf {k} cannot be decided exactly for every spelling (50, 50.0, 5e1, 0.5e2)"
        f" of more than {MAX_SPELLED_MULTIPLES} multiples",
        code="unsupported",
        origin=origin,
        hint="pass spellings='canonical' (multiples written without exponent), bound the range"
        f" to at most {MAX_SPELLED_MULTIPLES} multiples, or pass strict=False",
    )

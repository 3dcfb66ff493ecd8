"""Numbers and strings: exact ranges, multiples, lengths, patterns, formats, exclusions."""

import functools
import math
from decimal import Decimal
from typing import Any

from typedgen.errors import (
    SchemaError,
)
from typedgen.frontends.jsonschema import ecma, formats, negation, numbers, spellings
from typedgen.frontends.jsonschema.node import Node
from typedgen.frontends.jsonschema.state import (
    _INT_FORMATS,
    _NUMBER_FORMATS,
    _VOID,
    LoweringState,
    Spellings,
    _count,
    _is_bool,
    _json_literal,
    _num,
)
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode, length_expr
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq

__all__ = ["MAX_COUNTED_LENGTH", "Scalars"]

_LONG_STRING = 512
"""Above this ``maxLength`` a string's characters are counted by rules, in chunks."""
_CHUNK = 128
MAX_COUNTED_LENGTH = 1 << 20
"""Largest ``maxLength`` the grammar counts (8,192 chunk rules); a larger one is refused."""


class Scalars:
    """Terminals for numbers and strings, written into one lowering's state."""

    def __init__(self, state: LoweringState) -> None:
        self.state = state

    # -- numbers -----------------------------------------------------------------------------

    def bounds(self, schema: Node, path: str) -> tuple[Decimal | None, bool, Decimal | None, bool]:
        lo: Decimal | None = None
        lo_x = False
        hi: Decimal | None = None
        hi_x = False
        bounds = schema.bounds
        if "minimum" in bounds:
            lo = _num(bounds["minimum"], "minimum", path)
        if "exclusiveMinimum" in bounds:
            x = _num(bounds["exclusiveMinimum"], "exclusiveMinimum", path)
            if lo is None or x >= lo:
                lo, lo_x = x, True
        if "maximum" in bounds:
            hi = _num(bounds["maximum"], "maximum", path)
        if "exclusiveMaximum" in bounds:
            x = _num(bounds["exclusiveMaximum"], "exclusiveMaximum", path)
            if hi is None or x <= hi:
                hi, hi_x = x, True
        return lo, lo_x, hi, hi_x

    def number_body(
        self,
        schema: Node,
        path: str,
        *,
        integer: bool,
        spelling: Spellings | None = None,
    ) -> Expr:
        """The number texts the numeric keywords allow, in the lowering's spellings (or in
        ``spelling``)."""
        if (spelling or self.state.spellings) == "all":
            return self.all_number_body(schema, path, integer=integer)
        origin = self.state.origin(path)
        lo, lo_x, hi, hi_x = self.format_bounds(schema, path, integer=integer)
        multiple = self.divisor(schema, path)
        if integer:
            i_lo = None if lo is None else (math.floor(lo) + 1 if lo_x else math.ceil(lo))
            i_hi = None if hi is None else (math.ceil(hi) - 1 if hi_x else math.floor(hi))
            plain = self.state.attempt(
                "minimum",
                path,
                lambda: numbers.integer_range(i_lo, i_hi, origin=origin),
                numbers.integer_range(None, None, origin=origin),
            )
            if multiple is not None and multiple > 1:
                k = multiple
                return self.state.attempt(
                    "multipleOf",
                    path,
                    lambda: numbers.integer_multiple_of(k, i_lo, i_hi, origin=origin),
                    plain,
                )
            return plain
        plain = self.state.attempt(
            "minimum",
            path,
            lambda: numbers.number_range(
                lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x, origin=origin
            ),
            numbers.number_range(None, None, origin=origin),
        )
        if multiple is not None and multiple >= 1:
            k = multiple
            return self.state.attempt(
                "multipleOf",
                path,
                lambda: numbers.number_multiple_of(k, lo, hi, lo_x, hi_x, origin=origin),
                plain,
            )
        return plain

    def divisor(self, schema: Node, path: str) -> int | None:
        """``multipleOf`` as an integer; a fractional divisor is refused (``None``)."""
        multiple = schema.multiple_of
        if multiple is None:
            return None
        if _is_bool(multiple) or not isinstance(multiple, int | float) or multiple <= 0:
            raise SchemaError(
                "multipleOf must be a positive number",
                keyword="multipleOf",
                path=path,
                code="schema-malformed",
                hint="give a positive divisor such as 2 or 0.5",
            )
        if not float(multiple).is_integer():
            self.state.refuse(
                "multipleOf",
                path,
                f"the fractional divisor {multiple} is decided differently by decimal and"
                " binary-float validators",
                "use an integer divisor (e.g. store cents), or pass strict=False",
            )
            return None
        return int(multiple)

    def format_bounds(
        self, schema: Node, path: str, *, integer: bool
    ) -> tuple[Decimal | None, bool, Decimal | None, bool]:
        """The bounds, tightened by an asserted ``int32`` / ``int64`` format."""
        lo, lo_x, hi, hi_x = self.bounds(schema, path)
        for fmt in (schema.formats or []) if self.state.formats == "assert" else []:
            if integer and fmt in _INT_FORMATS:
                f_lo, f_hi = (Decimal(v) for v in _INT_FORMATS[fmt])
                if lo is None or lo < f_lo:
                    lo, lo_x = f_lo, False
                if hi is None or hi > f_hi:
                    hi, hi_x = f_hi, False
        return lo, lo_x, hi, hi_x

    def all_number_body(self, schema: Node, path: str, *, integer: bool) -> Expr:
        """Every spelling (:mod:`.spellings`): ``1.0`` and ``1e0`` for ``1``, ``-0``..."""
        origin = self.state.origin(path)
        lo, lo_x, hi, hi_x = self.format_bounds(schema, path, integer=integer)
        k = self.divisor(schema, path)
        if integer and self.state.fractionless():
            return self.state.attempt(
                "multipleOf" if k else "minimum",
                path,
                lambda: spellings.fractionless_integers(
                    lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x, multiple=k or 1, origin=origin
                ),
                spellings.fractionless_integers(None, None, origin=origin),
            )
        whole = integer or k is not None
        build = spellings.all_integers if whole else spellings.all_numbers
        plain = self.state.attempt(
            "minimum",
            path,
            lambda: build(lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x, origin=origin),
            build(None, None, origin=origin),
        )
        if k is None or k == 1:
            return plain
        return self.state.attempt(
            "multipleOf",
            path,
            lambda: spellings.all_multiples(k, lo, hi, lo_x, hi_x, origin=origin),
            plain,
        )

    def number_ok(self, value: int | float, schema: Node, path: str, *, integer: bool) -> bool:
        """Whether the numeric keywords allow ``value`` (an ``enum`` member), decided on the
        decimal value."""
        v = Decimal(str(value))
        if integer and v != v.to_integral_value():
            return False
        lo, lo_x, hi, hi_x = self.format_bounds(schema, path, integer=integer)
        if lo is not None and (v < lo or (lo_x and v == lo)):
            return False
        if hi is not None and (v > hi or (hi_x and v == hi)):
            return False
        k = self.divisor(schema, path)
        return k is None or (v == v.to_integral_value() and int(v) % k == 0)

    def scalar_texts(self, value: Any, *, integer_only: bool = False) -> Expr:
        """The texts of one ``enum`` / ``const`` scalar: every spelling of a number with
        ``spellings="all"`` (only those of an integer, where drafts 3 and 4 say so and the type
        is ``integer``), its JSON text otherwise."""
        if self.state.spellings == "all" and isinstance(value, int | float) and not _is_bool(value):
            v = Decimal(str(value))
            if integer_only and self.state.fractionless():
                return spellings.fractionless_integers(v, v)
            return spellings.value_texts(v)
        return Lit(_json_literal(value))

    def number(self, schema: Node, path: str, *, integer: bool) -> Expr:
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if keyword in schema.bounds:
                self.state.note(path, keyword, "grammar", "exact decimal range")
        if schema.multiple_of is not None:
            self.state.note(path, "multipleOf", "grammar", str(schema.multiple_of))
        for fmt in schema.formats or []:
            if self.state.formats == "annotate":
                self.state.note(path, "format", "ignored", "an annotation (formats='annotate')")
            elif fmt in _INT_FORMATS and integer:
                self.state.note(path, "format", "grammar", fmt)
            elif fmt in _NUMBER_FORMATS or fmt in _INT_FORMATS:
                self.state.note(path, "format", "ignored", f"{fmt} does not restrict JSON numbers")
        body = self.number_body(schema, path, integer=integer)
        drop = self.number_exclusions(schema, path, integer=integer)
        if drop:
            domain = (
                negation.unexponented()
                if self.state.spellings == "canonical"
                else spellings.decided_numbers()
            )
            body = Intersect((body, domain, Complement(Alt(tuple(drop)))))
        return self.state.terminal(path, body, "int" if integer else "num")

    def number_exclusions(self, schema: Node, path: str, *, integer: bool) -> list[Expr]:
        """The texts a ``not`` removes: exact within the domain they are intersected with."""
        drop: list[Expr] = []
        canonical = self.state.spellings == "canonical"
        if schema.x_integer:
            if canonical:
                drop.append(negation.unexponented_integers())
            elif self.state.fractionless():
                drop.append(spellings.fractionless_integers(None, None))
            else:
                drop.append(spellings.all_integers(None, None))
        for k in schema.x_multiples or []:
            if canonical:
                build = functools.partial(numbers.number_multiple_of, k, None, None)
            else:
                build = functools.partial(spellings.all_multiples, k, None, None)
            drop.append(self.state.attempt("not", path, build, _VOID))
        numeric = [
            v
            for v in schema.x_values or []
            if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        if canonical:
            values = negation.excluded_numbers(numeric, integer)
            if values is not None:
                drop.append(values)
        else:
            drop.extend(spellings.value_texts(Decimal(str(v))) for v in numeric)
        return drop

    # -- strings -----------------------------------------------------------------------------

    def string_chars(self, schema: Node, path: str) -> Expr:
        """The decoded characters a string instance may have."""
        origin = self.state.origin(path)
        parts: list[Expr] = []
        lo = _count(schema, "minLength", path)
        hi = _count(schema, "maxLength", path)
        if hi is not None and (lo or 0) > hi:
            return _VOID
        if lo is not None or hi is not None:
            parts.append(length_expr(lo or 0, hi, origin=origin))
        parts.extend(
            Complement(
                self.state.attempt(
                    "not",
                    path,
                    functools.partial(ecma.pattern_expr, pattern, origin=origin),
                    Alt(()),
                )
            )
            for pattern in schema.x_patterns or []
        )
        for pattern in schema.patterns or []:
            if not isinstance(pattern, str):
                raise SchemaError(
                    "pattern must be a string",
                    keyword="pattern",
                    path=path,
                    code="schema-malformed",
                )
            parts.append(
                self.state.attempt(
                    "pattern",
                    path,
                    lambda p=pattern: ecma.pattern_expr(p, origin=origin),  # type: ignore[misc]
                    Repeat(ANY_CHAR, 0, None),
                )
            )
        asserted = (schema.formats or []) if self.state.formats == "assert" else []
        parts.extend(
            self.state.attempt(
                "format",
                path,
                functools.partial(
                    formats.format_expr, fmt, origin=origin, spellings=self.state.spellings
                ),
                Repeat(ANY_CHAR, 0, None),
            )
            for fmt in asserted
            if fmt in formats.FORMATS
        )
        if not parts:
            return Repeat(ANY_CHAR, 0, None)
        return parts[0] if len(parts) == 1 else Intersect(tuple(parts), origin=origin)

    def string(self, schema: Node, path: str) -> Expr:
        for keyword in ("minLength", "maxLength"):
            if keyword in schema.bounds:
                self.state.note(path, keyword, "grammar", "counted in characters")
        for _ in schema.patterns or []:
            self.state.note(
                path, "pattern", "grammar", "ECMA-262, matched anywhere unless anchored"
            )
        for fmt in schema.formats or []:
            if self.state.formats == "annotate":
                self.state.note(path, "format", "ignored", "an annotation (formats='annotate')")
            elif fmt in formats.FORMATS:
                self.state.note(path, "format", "grammar", fmt)
            elif fmt in _INT_FORMATS or fmt in _NUMBER_FORMATS:
                self.state.note(path, "format", "ignored", f"{fmt} does not apply to strings")
            elif self.state.validator:
                self.state.defer(path, f"format: {fmt}", f"checked by {self.state.validator}")
            else:
                self.state.refuse(
                    "format",
                    path,
                    f"format {fmt!r} is not supported",
                    f"supported formats: {', '.join(sorted(formats.FORMATS))}; or pass"
                    " strict=False to check it after decoding",
                )
        long = self.long_string(schema, path)
        if long is not None:
            return long
        chars = self.string_chars(schema, path)
        strings = [Lit.text(v) for v in schema.x_values or [] if isinstance(v, str)]
        if strings:
            chars = Intersect((chars, Complement(Alt(tuple(strings)))))
        body = encode(chars)
        return self.state.terminal(path, Seq((Lit(b'"'), body, Lit(b'"'))), "str")

    def long_string(self, schema: Node, path: str) -> Expr | None:
        """Strings bounded only by a long ``maxLength``, counted in chunks by the parser.

        One terminal counting up to thousands of characters would need a byte automaton of
        ``maxLength`` times the states of one encoded character; instead a length ``L`` is
        written as ``q`` chunks of exactly ``_CHUNK`` characters and a tail shorter than a chunk,
        and rules count the chunks. The language is the same.
        """
        hi = _count(schema, "maxLength", path)
        lo = _count(schema, "minLength", path) or 0
        plain = (
            schema.patterns is None
            and schema.x_values is None
            and schema.x_patterns is None
            and (self.state.formats == "annotate" or schema.formats is None)
        )
        if hi is None or hi <= _LONG_STRING or lo > hi or not plain:
            return None
        if hi > MAX_COUNTED_LENGTH:  # 2**20 takes seconds to compile, 2**31 would take hours
            self.state.refuse(
                "maxLength",
                path,
                f"{hi} characters are more than the {MAX_COUNTED_LENGTH:,} a grammar counts",
                "lower maxLength, or pass strict=False to check it after decoding",
            )
            if lo > _LONG_STRING:
                self.state.refuse(
                    "minLength",
                    path,
                    f"{lo} characters next to a maxLength left to the validator",
                    "lower the bounds, or pass strict=False to check them after decoding",
                )
                lo = 0
            body = encode(length_expr(lo, None))
            return self.state.terminal(path, Seq((Lit(b'"'), body, Lit(b'"'))), "str")
        chunks, rest = divmod(hi, _CHUNK)
        chunk = self.state.terminal(path, encode(length_expr(_CHUNK, _CHUNK)), "chunk")
        tail: Expr = self.state.terminal(
            path, encode(length_expr(max(0, lo - chunks * _CHUNK), rest)), "tail"
        )
        base = self.state.name_for(f"{path}/chars")
        for q in range(chunks - 1, -1, -1):  # after q chunks: a tail, or one more chunk
            alts: list[Expr] = [Seq((chunk, tail))]
            if lo <= q * _CHUNK + _CHUNK - 1:
                least = max(0, lo - q * _CHUNK)
                alts.append(
                    self.state.terminal(path, encode(length_expr(least, _CHUNK - 1)), "tail")
                )
            name = f"{base}_{q}"
            self.state.rules[name] = Rule(name, Alt(tuple(alts)), origin=self.state.origin(path))
            tail = Ref(name, origin=self.state.origin(path))
        return Seq((Lit(b'"'), tail, Lit(b'"')), origin=self.state.origin(path))

"""Numbers and strings: exact ranges, multiples, lengths, patterns, formats, exclusions."""

import functools
import math
from decimal import Decimal
from typing import Any

from typedgen.errors import (
    SchemaError,
)
from typedgen.frontends.jsonschema import ecma, formats, negation, numbers
from typedgen.frontends.jsonschema.base import (
    _INT_FORMATS,
    _NUMBER_FORMATS,
    _VOID,
    LoweringBase,
    _count,
    _is_bool,
    _num,
)
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode, length_expr
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq

__all__ = ["ScalarLowering"]

_LONG_STRING = 512
"""Above this ``maxLength`` a string's characters are counted by rules, in chunks."""
_CHUNK = 128


class ScalarLowering(LoweringBase):
    """Terminals for numbers and strings."""

    # -- numbers -----------------------------------------------------------------------------

    def bounds(
        self, schema: dict[str, Any], path: str
    ) -> tuple[Decimal | None, bool, Decimal | None, bool]:
        lo: Decimal | None = None
        lo_x = False
        hi: Decimal | None = None
        hi_x = False
        if "minimum" in schema:
            lo = _num(schema["minimum"], "minimum", path)
        if "exclusiveMinimum" in schema:
            x = _num(schema["exclusiveMinimum"], "exclusiveMinimum", path)
            if lo is None or x >= lo:
                lo, lo_x = x, True
        if "maximum" in schema:
            hi = _num(schema["maximum"], "maximum", path)
        if "exclusiveMaximum" in schema:
            x = _num(schema["exclusiveMaximum"], "exclusiveMaximum", path)
            if hi is None or x <= hi:
                hi, hi_x = x, True
        return lo, lo_x, hi, hi_x

    def number_body(self, schema: dict[str, Any], path: str, *, integer: bool) -> Expr:
        origin = self.origin(path)
        lo, lo_x, hi, hi_x = self.bounds(schema, path)
        for fmt in schema.get("_formats", []):
            if integer and fmt in _INT_FORMATS:
                f_lo, f_hi = _INT_FORMATS[fmt]
                lo = Decimal(f_lo) if lo is None else max(lo, Decimal(f_lo))
                hi = Decimal(f_hi) if hi is None else min(hi, Decimal(f_hi))
        multiple = schema.get("_multipleOf")
        if multiple is not None:
            if _is_bool(multiple) or not isinstance(multiple, int | float) or multiple <= 0:
                raise SchemaError(
                    "multipleOf must be a positive number",
                    keyword="multipleOf",
                    path=path,
                    code="schema-malformed",
                )
            if not float(multiple).is_integer():
                self.refuse(
                    "multipleOf",
                    path,
                    f"the fractional divisor {multiple} is decided differently by decimal and"
                    " binary-float validators",
                    "use an integer divisor (e.g. store cents), or pass strict=False",
                )
                multiple = None
            else:
                multiple = int(multiple)
        if integer:
            i_lo = None if lo is None else (math.floor(lo) + 1 if lo_x else math.ceil(lo))
            i_hi = None if hi is None else (math.ceil(hi) - 1 if hi_x else math.floor(hi))
            plain = self.attempt(
                "minimum",
                path,
                lambda: numbers.integer_range(i_lo, i_hi, origin=origin),
                numbers.integer_range(None, None, origin=origin),
            )
            if multiple is not None and multiple > 1:
                k = multiple
                return self.attempt(
                    "multipleOf",
                    path,
                    lambda: numbers.integer_multiple_of(k, i_lo, i_hi, origin=origin),
                    plain,
                )
            return plain
        plain = self.attempt(
            "minimum",
            path,
            lambda: numbers.number_range(
                lo, hi, lo_exclusive=lo_x, hi_exclusive=hi_x, origin=origin
            ),
            numbers.number_range(None, None, origin=origin),
        )
        if multiple is not None and multiple >= 1:
            k = multiple
            return self.attempt(
                "multipleOf",
                path,
                lambda: numbers.number_multiple_of(k, lo, hi, lo_x, hi_x, origin=origin),
                plain,
            )
        return plain

    def number(self, schema: dict[str, Any], path: str, *, integer: bool) -> Expr:
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if keyword in schema:
                self.note(path, keyword, "grammar", "exact decimal range")
        if "_multipleOf" in schema:
            self.note(path, "multipleOf", "grammar", str(schema["_multipleOf"]))
        for fmt in schema.get("_formats", []):
            if fmt in _INT_FORMATS and integer:
                self.note(path, "format", "grammar", fmt)
            elif fmt in _NUMBER_FORMATS or fmt in _INT_FORMATS:
                self.note(path, "format", "ignored", f"{fmt} does not restrict JSON numbers")
        body = self.number_body(schema, path, integer=integer)
        drop: list[Expr] = []
        if schema.get("_xinteger"):
            drop.append(negation.unexponented_integers())
        drop.extend(
            self.attempt(
                "not", path, functools.partial(numbers.number_multiple_of, k, None, None), _VOID
            )
            for k in schema.get("_xmultiples", [])
        )
        values = negation.excluded_numbers(schema.get("_xvalues", []), integer)
        if values is not None:
            drop.append(values)
        if drop:
            body = Intersect((body, negation.unexponented(), Complement(Alt(tuple(drop)))))
        return self.terminal(path, body, "int" if integer else "num")

    # -- strings -----------------------------------------------------------------------------

    def string_chars(self, schema: dict[str, Any], path: str) -> Expr:
        """The decoded characters a string instance may have."""
        origin = self.origin(path)
        parts: list[Expr] = []
        lo = _count(schema, "minLength", path)
        hi = _count(schema, "maxLength", path)
        if hi is not None and (lo or 0) > hi:
            return _VOID
        if lo is not None or hi is not None:
            parts.append(length_expr(lo or 0, hi, origin=origin))
        parts.extend(
            Complement(
                self.attempt(
                    "not",
                    path,
                    functools.partial(ecma.pattern_expr, pattern, origin=origin),
                    Alt(()),
                )
            )
            for pattern in schema.get("_xpatterns", [])
        )
        for pattern in schema.get("_patterns", []):
            if not isinstance(pattern, str):
                raise SchemaError(
                    "pattern must be a string",
                    keyword="pattern",
                    path=path,
                    code="schema-malformed",
                )
            parts.append(
                self.attempt(
                    "pattern",
                    path,
                    lambda p=pattern: ecma.pattern_expr(p, origin=origin),  # type: ignore[misc]
                    Repeat(ANY_CHAR, 0, None),
                )
            )
        parts.extend(
            formats.format_expr(fmt, origin=origin)
            for fmt in schema.get("_formats", [])
            if fmt in formats.FORMATS
        )
        if not parts:
            return Repeat(ANY_CHAR, 0, None)
        return parts[0] if len(parts) == 1 else Intersect(tuple(parts), origin=origin)

    def string(self, schema: dict[str, Any], path: str) -> Expr:
        for keyword in ("minLength", "maxLength"):
            if keyword in schema:
                self.note(path, keyword, "grammar", "counted in characters")
        for _ in schema.get("_patterns", []):
            self.note(path, "pattern", "grammar", "ECMA-262, matched anywhere unless anchored")
        for fmt in schema.get("_formats", []):
            if fmt in formats.FORMATS:
                self.note(path, "format", "grammar", fmt)
            elif fmt in _INT_FORMATS or fmt in _NUMBER_FORMATS:
                self.note(path, "format", "ignored", f"{fmt} does not apply to strings")
            elif self.validator:
                self.defer(path, f"format: {fmt}", f"checked by {self.validator}")
            else:
                self.refuse(
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
        strings = [Lit.text(v) for v in schema.get("_xvalues", []) if isinstance(v, str)]
        if strings:
            chars = Intersect((chars, Complement(Alt(tuple(strings)))))
        body = encode(chars)
        return self.terminal(path, Seq((Lit(b'"'), body, Lit(b'"'))), "str")

    def long_string(self, schema: dict[str, Any], path: str) -> Expr | None:
        """Strings bounded only by a long ``maxLength``, counted in chunks by the parser.

        One terminal counting up to thousands of characters would need a byte automaton of
        ``maxLength`` times the states of one encoded character; instead a length ``L`` is
        written as ``q`` chunks of exactly ``_CHUNK`` characters and a tail shorter than a chunk,
        and rules count the chunks. The language is the same.
        """
        hi = _count(schema, "maxLength", path)
        lo = _count(schema, "minLength", path) or 0
        plain = not ({"_patterns", "_formats", "_xvalues", "_xpatterns"} & set(schema))
        if hi is None or hi <= _LONG_STRING or lo > hi or not plain:
            return None
        chunks, rest = divmod(hi, _CHUNK)
        chunk = self.terminal(path, encode(length_expr(_CHUNK, _CHUNK)), "chunk")
        tail: Expr = self.terminal(
            path, encode(length_expr(max(0, lo - chunks * _CHUNK), rest)), "tail"
        )
        base = self.name_for(f"{path}/chars")
        for q in range(chunks - 1, -1, -1):  # after q chunks: a tail, or one more chunk
            alts: list[Expr] = [Seq((chunk, tail))]
            if lo <= q * _CHUNK + _CHUNK - 1:
                least = max(0, lo - q * _CHUNK)
                alts.append(self.terminal(path, encode(length_expr(least, _CHUNK - 1)), "tail"))
            name = f"{base}_{q}"
            self.rules[name] = Rule(name, Alt(tuple(alts)), origin=self.origin(path))
            tail = Ref(name, origin=self.origin(path))
        return Seq((Lit(b'"'), tail, Lit(b'"')), origin=self.origin(path))

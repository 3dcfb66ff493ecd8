"""jsonschema judging the decimal value of a JSON text (test code only).

``json.loads`` reads ``1e999`` as ``inf`` and ``0.1`` as a binary float, so a float-based check
misjudges exponent spellings the grammar accepts exactly. Here numbers with a fraction or an
exponent are parsed as ``Decimal`` and an integral ``Decimal`` counts as an integer, which is how
JSON Schema defines values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

import jsonschema

__all__ = ["DecimalValidator", "decimal_valid"]


def _is_integer(_checker: Any, instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    if isinstance(instance, Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return isinstance(instance, int)


def _is_number(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int | Decimal) and not isinstance(instance, bool)


def _multiple_of(validator: Any, divisor: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """Exact divisibility, also for ``2E849752873775`` (modular powers, never the full value)."""
    if not isinstance(instance, Decimal) or isinstance(instance, bool):
        yield from _KEYWORDS["multipleOf"](validator, divisor, instance, schema)
        return
    frac = Fraction(str(divisor))
    _sign, digits, exp = instance.as_tuple()
    assert isinstance(exp, int)
    n = int("".join(map(str, digits)) or "0") * frac.denominator
    if n == 0:
        ok = True
    elif exp >= 0:
        ok = n * pow(10, exp, frac.numerator) % frac.numerator == 0
    else:
        ok = -exp <= len(str(n)) and n % (frac.numerator * 10**-exp) == 0
    if not ok:
        yield jsonschema.ValidationError(f"{instance} is not a multiple of {divisor}")


_KEYWORDS = dict(jsonschema.Draft202012Validator.VALIDATORS)
_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"integer": _is_integer, "number": _is_number}
)
DecimalValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    validators={"multipleOf": _multiple_of},
    type_checker=_TYPES,
)


def decimal_valid(schema: Any, text: str | bytes) -> bool:
    """jsonschema's verdict on ``text`` read with exact decimals; malformed JSON is invalid."""
    try:
        value = json.loads(text, parse_float=Decimal)
    except ValueError:
        return False
    validator = DecimalValidator(schema, format_checker=DecimalValidator.FORMAT_CHECKER)
    return bool(validator.is_valid(value))

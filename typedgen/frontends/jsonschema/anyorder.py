"""``key_order="any"``: the members of a closed object in every order, each at most once.

JSON objects are unordered, so a validator accepts ``{"b": 1, "a": 2}`` as readily as
``{"a": 2, "b": 1}``. Every order of ``n`` members is a permutation language; no grammar of
size polynomial in ``n`` has it (each set of members written so far must be remembered, to
forbid repeats and to know which required ones are still due). The construction here is that
set: one rule per set of members already written, each offering the members not yet written,
so ``2**n`` rules of at most ``n`` alternatives. That is bounded by refusing the option for
objects that are not *bounded*: an object is bounded when it is closed (no member beyond its
declared properties may appear: ``additionalProperties: false`` or ``unevaluatedProperties:
false``, no ``patternProperties`` that could name others) and declares at most
:data:`MAX_ANY_ORDER` properties, so at most 256 rules and 2,048 alternatives an object.
"""

from __future__ import annotations

from typedgen.frontends.jsonschema.state import _EMPTY, _VOID, LoweringState
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, Expr, Ref, Seq
from typedgen.ir.passes import simplify

__all__ = ["MAX_ANY_ORDER", "any_order_members"]

MAX_ANY_ORDER = 8
"""Most properties of an object whose members ``key_order="any"`` writes in any order."""


def any_order_members(
    lowering: LoweringState,
    path: str,
    members: list[tuple[Expr, bool]],
    lo: int,
    hi: int | None,
) -> Expr:
    """The members (``key: value`` expressions, each with whether it is required) in any order,
    between the braces: at least ``lo`` of them and at most ``hi``."""
    n = len(members)
    required = sum(1 << i for i, (_, req) in enumerate(members) if req)
    base = lowering.name_for(f"{path}/any")
    names: dict[int, str] = {}

    def after(written: int) -> Expr:
        """What may follow once the members in the bit set ``written`` are written."""
        if written in names:
            return Ref(names[written], origin=lowering.origin(path))
        count = bin(written).count("1")
        alts: list[Expr] = []
        if written & required == required and count >= lo:
            alts.append(_EMPTY)
        if hi is None or count < hi:
            sep = lowering.comma if written else _EMPTY
            for i, (member, _) in enumerate(members):
                if not written & (1 << i):
                    alts.append(Seq((sep, member, after(written | (1 << i)))))
        body = simplify(Alt(tuple(alts)))
        if len(alts) <= 1:
            return body
        name = f"{base}_{written:x}"
        if name in lowering.rules:  # another object's rule: names only need to be distinct
            name = lowering.name_for(f"{path}/{name}")
        names[written] = name
        lowering.rules[name] = Rule(name, body, origin=lowering.origin(path))
        return Ref(name, origin=lowering.origin(path))

    if n == 0:
        return _EMPTY if lo == 0 else _VOID
    return after(0)

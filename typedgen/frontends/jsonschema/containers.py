"""Arrays and objects: items and counts, contains, properties in schema order, keys."""

import itertools
from collections.abc import Mapping
from typing import Any, Protocol

from typedgen.errors import UnsupportedSchemaError
from typedgen.frontends.jsonschema import ecma
from typedgen.frontends.jsonschema.anyorder import MAX_ANY_ORDER, any_order_members
from typedgen.frontends.jsonschema.charmatch import char_matches
from typedgen.frontends.jsonschema.keywords import ANNOTATIONS
from typedgen.frontends.jsonschema.node import MISSING, Node
from typedgen.frontends.jsonschema.scalars import Scalars
from typedgen.frontends.jsonschema.state import (
    _EMPTY,
    _MAX_COUNT,
    _MAX_PATTERN_PROPERTIES,
    _VOID,
    LoweringState,
    _count,
    _json_literal,
)
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode
from typedgen.ir.grammar import Rule
from typedgen.ir.nodes import Alt, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq
from typedgen.ir.passes import simplify

__all__ = ["Containers", "Values"]


class Values(Protocol):
    """The dispatch the container rules recurse into (:class:`.lower.Lowering`)."""

    def value(self, schema: Any, path: str) -> Expr:
        """The JSON text of every instance valid against ``schema``."""
        ...

    def flatten(self, schema: dict[str, Any], path: str) -> Node | bool:
        """``schema`` with its ``$ref`` and ``allOf`` merged into one node."""
        ...


def _given(value: Any, default: Any) -> Any:
    """A keyword's value, or ``default`` where it is absent."""
    return default if value is MISSING else value


class Containers:
    """Rules for arrays and objects, written into one lowering's state."""

    def __init__(self, state: LoweringState, scalars: Scalars, values: Values) -> None:
        self.state = state
        self.scalars = scalars
        self.values = values

    # -- arrays ------------------------------------------------------------------------------

    def array(self, schema: Node, path: str) -> Expr:
        if schema.unique_items is True:
            if self.state.validator:
                self.state.defer(path, "uniqueItems", f"checked by {self.state.validator}")
            else:
                self.state.refuse(
                    "uniqueItems",
                    path,
                    "distinct items cannot be enforced by a context-free grammar",
                    "drop uniqueItems, or pass strict=False to check it after decoding",
                )
        if schema.contains:
            if schema.unevaluated_items is not MISSING and schema.items is MISSING:
                self.state.refuse(
                    "unevaluatedItems",
                    path,
                    "with contains, which items count as evaluated depends on the values",
                    "use items, or pass strict=False",
                )
            return self.array_contains(schema, path)
        prefix = schema.prefix_items or []
        items = _given(schema.items, _given(schema.unevaluated_items, True))
        if schema.unevaluated_items is not MISSING and schema.items is MISSING:
            self.state.note(path, "unevaluatedItems", "grammar", "as items after prefixItems here")
        lo = _count(schema, "minItems", path) or 0
        hi = _count(schema, "maxItems", path)
        if hi is not None and lo > hi:
            return _VOID
        for keyword, given in (
            ("prefixItems", schema.prefix_items is not None),
            ("items", schema.items is not MISSING),
            ("minItems", "minItems" in schema.bounds),
            ("maxItems", "maxItems" in schema.bounds),
        ):
            if given:
                self.state.note(path, keyword, "grammar")
        k = len(prefix)
        prefix_exprs = [
            self.values.value(p, f"{path}/prefixItems/{i}") for i, p in enumerate(prefix)
        ]
        item_expr = self.values.value(items, f"{path}/items") if items is not False else _VOID
        limit = hi if items is not False else (k if hi is None else min(hi, k))

        def element(i: int) -> Expr:
            return prefix_exprs[i] if i < k else item_expr

        def tail(i: int) -> Expr:
            """Elements i.. after at least one element was written."""
            if limit is not None and i >= limit:
                return _EMPTY if i >= lo else _VOID
            if i >= k:
                more = Repeat(
                    Seq((self.state.comma, item_expr)),
                    max(0, lo - i),
                    None if limit is None else limit - i,
                )
                return more
            nxt = Seq((self.state.comma, element(i), tail(i + 1)))
            return Alt((_EMPTY, nxt)) if i >= lo else nxt

        content = Seq((element(0), tail(1))) if limit is None or limit > 0 else _VOID
        alts: list[Expr] = [Seq((Lit(b"["), self.state.ws, content, self.state.ws, Lit(b"]")))]
        if lo == 0:
            alts.append(Seq((Lit(b"["), self.state.ws, Lit(b"]"))))
        return simplify(Alt(tuple(alts), origin=self.state.origin(path)))

    def array_contains(self, schema: Node, path: str) -> Expr:
        """Arrays with ``contains``: element by element, counting the matches.

        A match is an element valid against ``items`` and ``contains``; with ``maxContains`` the
        other elements must not match (their ``not`` must be exact), without it any element may
        stand in for a non-match, which only makes the count of matches a lower bound.
        """
        sub_path = f"{path}/contains"
        contains = schema.contains or []
        lo = _count(schema, "minItems", path) or 0
        hi = _count(schema, "maxItems", path)
        least = _count(schema, "minContains", path)
        most = _count(schema, "maxContains", path)
        least = 1 if least is None else least
        if len(contains) > 1 or schema.prefix_items:
            self.state.refuse(
                "contains",
                sub_path,
                "several contains, or contains with prefixItems, are not enforced",
                "use one contains without prefixItems, or pass strict=False",
            )
            return self.array(schema.copy(contains=None), path)
        items = _given(schema.items, True)
        cap_i = hi if hi is not None else max(lo, 1)
        cap_j = most if most is not None else least
        if (hi is not None and lo > hi) or (most is not None and least > most):
            return _VOID
        if (cap_i + 1) * (cap_j + 2) > _MAX_COUNT * _MAX_COUNT:
            self.state.refuse("contains", sub_path, "counts too large to track", "lower the bounds")
            return self.array(schema.copy(contains=None), path)
        self.state.note(sub_path, "contains", "grammar", "matches counted element by element")
        match = self.values.value({"allOf": [items, contains[0]]}, sub_path)
        if most is not None:
            other = self.values.value({"allOf": [items, {"not": contains[0]}]}, sub_path)
        else:
            other = self.values.value(items, f"{path}/items")
        base = self.state.name_for(f"{path}/contains")
        names: dict[tuple[int, int], str] = {}

        def rest(i: int, j: int) -> Expr:
            """What may follow ``i`` elements (capped) of which ``j`` (capped) matched."""
            i = min(i, cap_i)
            if most is None:
                j = min(j, cap_j)
            key = (i, j)
            if key in names:
                return Ref(names[key], origin=self.state.origin(path))
            name = f"{base}_{i}_{j}"
            names[key] = name
            self.state.rules[name] = Rule(name, _VOID, origin=self.state.origin(path))
            alts: list[Expr] = []
            if i >= lo and j >= least:
                alts.append(_EMPTY)
            if hi is None or i < hi:
                if most is None or j < most:
                    alts.append(Seq((self.state.comma, match, rest(i + 1, j + 1))))
                alts.append(Seq((self.state.comma, other, rest(i + 1, j))))
            self.state.rules[name] = Rule(
                name, simplify(Alt(tuple(alts))), origin=self.state.origin(path)
            )
            return Ref(name, origin=self.state.origin(path))

        alts: list[Expr] = []
        if lo == 0 and least == 0:
            alts.append(Seq((Lit(b"["), self.state.ws, Lit(b"]"))))
        if hi is None or hi > 0:
            firsts: list[Expr] = [Seq((other, rest(1, 0)))]
            if most is None or most > 0:
                firsts.append(Seq((match, rest(1, 1))))
            first = Alt(tuple(firsts))
            alts.append(Seq((Lit(b"["), self.state.ws, first, self.state.ws, Lit(b"]"))))
        return simplify(Alt(tuple(alts), origin=self.state.origin(path)))

    # -- objects -----------------------------------------------------------------------------

    def key_language(self, schema: Node, path: str) -> Expr | None:
        """Decoded characters allowed as property names (``None``: any)."""
        langs: list[Expr] = []
        for names in schema.property_names or []:
            sub_path = f"{path}/propertyNames"
            merged = self.values.flatten(names, sub_path) if isinstance(names, dict) else names
            if merged is True:
                continue
            if merged is False or "string" not in merged.type_set():
                langs.append(_VOID)
                continue
            loose = (
                merged.present()
                - {"type", "minLength", "maxLength", "pattern", "format", "enum"}
                - ANNOTATIONS
            )
            if loose:
                self.state.refuse(
                    "propertyNames",
                    sub_path,
                    f"only string keywords are supported, not {sorted(loose)}",
                    "restrict property names with pattern / enum / length",
                )
                continue
            self.state.note(sub_path, "propertyNames", "grammar")
            chars = self.scalars.string_chars(merged, sub_path)
            if merged.enum is not None:
                allowed = [v for v in merged.enum if isinstance(v, str)]
                chars = Intersect((chars, Alt(tuple(Lit.text(v) for v in allowed))))
            langs.append(chars)
        if not langs:
            return None
        return langs[0] if len(langs) == 1 else Intersect(tuple(langs))

    def obj(self, schema: Node, path: str) -> Expr:
        props: dict[str, Any] = dict(schema.properties or {})
        required = list(schema.required or [])
        patterns: dict[str, Any] = dict(schema.pattern_properties or {})
        additional = _given(schema.additional, _given(schema.unevaluated, True))
        if schema.unevaluated is not MISSING:
            if schema.neg_props and schema.additional is MISSING:
                self.state.refuse(
                    "unevaluatedProperties",
                    path,
                    "combined with a negated property, which is named but not evaluated",
                    "state the property constraint positively, or pass strict=False",
                )
            else:
                self.state.note(
                    path, "unevaluatedProperties", "grammar", "as additionalProperties here"
                )
        for keyword, given in (
            ("properties", schema.properties is not None),
            ("required", schema.required is not None),
            ("additionalProperties", schema.additional is not MISSING),
            ("patternProperties", schema.pattern_properties is not None),
            ("minProperties", "minProperties" in schema.bounds),
            ("maxProperties", "maxProperties" in schema.bounds),
        ):
            if given:
                self.state.note(path, keyword, "grammar")
        if len(patterns) > _MAX_PATTERN_PROPERTIES:
            self.state.refuse(
                "patternProperties",
                path,
                f"more than {_MAX_PATTERN_PROPERTIES} patterns",
                "merge the patterns",
            )
            patterns = {}
        origin = self.state.origin(path)
        pattern_langs = {
            p: self.state.attempt(
                "patternProperties",
                path,
                lambda p=p: ecma.pattern_expr(p, origin=origin),  # type: ignore[misc]
                Repeat(ANY_CHAR, 0, None),
            )
            for p in patterns
        }
        names_lang = self.key_language(schema, path)
        declared = schema.properties or {}
        for name in required:
            props.setdefault(name, None)
        closed = self.closes_undeclared(schema, props, patterns)
        if closed:
            self.state.note(
                path,
                "additionalProperties",
                "grammar",
                "not given: only the declared properties (extra_keys='declared')",
            )
        for name in schema.forbid or []:
            if name in required:
                return _VOID
            props[name] = False
            declared = {**declared, name: False}
        named: list[tuple[str, Expr, bool]] = []
        for name, sub in props.items():
            sub_path = f"{path}/properties/{name.replace('~', '~0').replace('/', '~1')}"
            matching = [s for p, s in patterns.items() if char_matches(pattern_langs[p], name)]
            if name not in declared:
                sub = {"allOf": matching} if matching else additional
            elif matching:
                sub = {"allOf": [sub, *matching]}
            if names_lang is not None and not char_matches(names_lang, name):
                sub = False
            value = self.values.value(sub, sub_path)
            is_required = name in required
            if value == _VOID:
                if is_required:  # no object qualifies; other types may (the root checks)
                    self.state.note(path, "required", "grammar", f"{name!r} has no valid value")
                    return _VOID
                continue
            key = Lit(_json_literal(name))
            named.append((name, Seq((key, self.state.colon, value)), is_required))
        beyond = False if closed else additional  # required names keep `additional` as values
        extras = self.extra_members(path, props, patterns, pattern_langs, beyond, names_lang)
        return self.object_body(schema, path, named, extras)

    def closes_undeclared(
        self, schema: Node, props: dict[str, Any], patterns: dict[str, Any]
    ) -> bool:
        """Whether ``extra_keys="declared"`` closes this object: it declares properties, says
        nothing about others (no ``additionalProperties``, ``unevaluatedProperties`` or
        ``patternProperties``, no folded negation of a property) and needs no more members than
        it declares (``minProperties``)."""
        if self.state.extra_keys != "declared" or not props or patterns or schema.neg_props:
            return False
        if schema.additional is not MISSING or schema.unevaluated is not MISSING:
            return False
        least = schema.bounds.get("minProperties", 0)
        return isinstance(least, int | float) and least <= len(props)

    def extra_members(
        self,
        path: str,
        props: Mapping[str, Any],
        patterns: Mapping[str, Any],
        langs: Mapping[str, Expr],
        additional: Any,
        names_lang: Expr | None,
    ) -> Expr:
        members: list[Expr] = []
        keys = list(patterns)
        not_named: list[Expr] = []
        if props:
            not_named.append(Complement(Alt(tuple(Lit.text(n) for n in props))))
        if names_lang is not None:
            not_named.append(names_lang)
        for size in range(len(keys) + 1):
            for subset in itertools.combinations(keys, size):
                value_schema: Any = (
                    {"allOf": [patterns[p] for p in subset]} if subset else (additional)
                )
                if value_schema is False:
                    continue
                parts = [*not_named]
                parts += [langs[p] for p in subset]
                parts += [Complement(langs[p]) for p in keys if p not in subset]
                chars: Expr = (
                    Repeat(ANY_CHAR, 0, None)
                    if not parts
                    else parts[0]
                    if len(parts) == 1
                    else Intersect(tuple(parts))
                )
                key = self.state.terminal(
                    f"{path}/additionalProperties" if not subset else f"{path}/patternProperties",
                    Seq((Lit(b'"'), encode(chars), Lit(b'"'))),
                    "key",
                )
                sub_path = (
                    f"{path}/patternProperties/{subset[0]}"
                    if len(subset) == 1
                    else f"{path}/additionalProperties"
                )
                value = self.values.value(value_schema, sub_path)
                if value != _VOID and key != _VOID:
                    members.append(Seq((key, self.state.colon, value)))
        return simplify(Alt(tuple(members), origin=self.state.origin(path)))

    def bounded(self, path: str, n: int, has_extra: bool) -> bool:
        """Whether ``key_order="any"`` applies to ``n > 0`` declared properties; refused by
        name where it cannot (with no declared property, every order is already allowed)."""
        if not has_extra and n <= MAX_ANY_ORDER:
            return True
        keyword = "additionalProperties" if has_extra else "properties"
        message = (
            "key_order='any' needs a closed object (members beyond the declared properties"
            " would make the orders unbounded)"
            if has_extra
            else f"key_order='any' writes at most {MAX_ANY_ORDER} properties in any order,"
            f" not {n} (the grammar grows as 2**n)"
        )
        hint = (
            "set additionalProperties: false, or use key_order='schema'"
            if has_extra
            else "split the object, or use key_order='schema'"
        )
        if self.state.mode == "strict":
            raise UnsupportedSchemaError(
                f"{keyword}: {message}",
                keyword=keyword,
                path=path,
                origin=self.state.origin(path),
                hint=hint,
            )
        self.state.note(path, keyword, "ignored", f"{message}: properties in schema order")
        return False

    def object_body(
        self,
        schema: Node,
        path: str,
        named: list[tuple[str, Expr, bool]],
        extra: Expr,
    ) -> Expr:
        lo = _count(schema, "minProperties", path) or 0
        hi = _count(schema, "maxProperties", path)
        if hi is not None and lo > hi:
            return _VOID
        n = len(named)
        has_extra = extra != _VOID
        if self.state.key_order == "any" and n and self.bounded(path, n, has_extra):
            if lo > n:
                return _VOID
            members = [(member, req) for _, member, req in named]
            content = any_order_members(self.state, path, members, lo, hi)
            return simplify(
                Seq(
                    (Lit(b"{"), self.state.ws, content, self.state.ws, Lit(b"}")),
                    origin=self.state.origin(path),
                )
            )
        if lo > n and has_extra:
            self.state.refuse(
                "minProperties",
                path,
                f"{lo} properties need additional ones, whose names a grammar cannot keep distinct",
                "name the properties in 'properties', or pass strict=False",
            )
            lo = n
        counted = lo > 0 or hi is not None
        cap = max(lo, hi or 0) + 1
        if counted and cap > _MAX_COUNT:
            self.state.refuse(
                "maxProperties" if hi is not None else "minProperties",
                path,
                f"property counts above {_MAX_COUNT} are not enforced",
                "lower the bound, or pass strict=False",
            )
            counted, lo, hi = False, 0, None
        base = self.state.name_for(path)
        memo: dict[tuple[int, bool, int], Expr] = {}

        def clamp(c: int) -> int:
            return min(c, cap) if counted else 0

        def state(i: int, first: bool, c: int) -> Expr:
            """Members i.. given whether none was written yet and ``c`` written so far."""
            key = (i, first, c)
            if key in memo:
                return memo[key]
            sep: Expr = _EMPTY if first else self.state.comma
            alts: list[Expr] = []
            if i == n:
                if c >= lo:
                    alts.append(_EMPTY)
                if has_extra and c >= lo:
                    room = None if hi is None else hi - c
                    if room is None or room > 0:
                        rest = Repeat(
                            Seq((self.state.comma, extra)), 0, None if room is None else room - 1
                        )
                        alts.append(Seq((sep, extra, rest)))
            else:
                _, member, req = named[i]
                if hi is None or c < hi:
                    alts.append(Seq((sep, member, state(i + 1, False, clamp(c + 1)))))
                if not req:
                    alts.append(state(i + 1, first, c))
            body = simplify(Alt(tuple(alts)))
            if i < n and len(alts) > 1:
                name = f"{base}_{i}{'f' if first else 'n'}{c if counted else ''}"
                if name in self.state.rules:
                    name = self.state.name_for(f"{path}/{name}")
                self.state.rules[name] = Rule(name, body, origin=self.state.origin(path))
                body = Ref(name, origin=self.state.origin(path))
            memo[key] = body
            return body

        content = state(0, True, 0)
        return simplify(
            Seq(
                (Lit(b"{"), self.state.ws, content, self.state.ws, Lit(b"}")),
                origin=self.state.origin(path),
            )
        )

"""JSON Schema lowered to the IR: every keyword enforced exactly, refused by name, or deferred.

The grammar is over the JSON text. Scalars (strings, numbers) become terminals whose languages are
exact (:mod:`.strings`, :mod:`.numbers`, :mod:`.formats`, :mod:`.ecma`); objects and arrays
become rules. Named properties appear in schema order; additional properties follow them.
``allOf`` is merged at the schema level (:mod:`.merge`), ``anyOf`` is an alternation, ``oneOf``
one too where its branches are provably disjoint. Each ``$ref`` target is one rule, so recursion
costs nothing. What cannot be enforced exactly is refused in strict mode and, with
``strict=False``, left to a validator and recorded on the grammar (:class:`DeferredCheck`).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from typedgen.errors import (
    GrammarError,
    SchemaError,
    UnsupportedFeatureError,
    UnsupportedSchemaError,
)
from typedgen.frontends.jsonschema import ecma, formats, negation, numbers
from typedgen.frontends.jsonschema.charmatch import char_matches
from typedgen.frontends.jsonschema.layout import Whitespace, WhitespaceSpec, whitespace_of
from typedgen.frontends.jsonschema.merge import (
    ANNOTATIONS,
    JSON_TYPES,
    merge,
    type_set,
    value_key,
    value_types,
)
from typedgen.frontends.jsonschema.negation import NEVER, Unsupported, apply_not
from typedgen.frontends.jsonschema.resolve import Resolver
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode, encode_text, length_expr
from typedgen.ir.grammar import DeferredCheck, Grammar, Lexing, Rule, rule_with
from typedgen.ir.nodes import Alt, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify
from typedgen.ir.passes.rewrite import prune_unreachable, transform
from typedgen.ir.passes.validate import productive_rules

__all__ = ["Lowered", "Status", "Verdict", "lower_schema"]

Status = Literal["grammar", "validator", "refused", "ignored"]
Mode = Literal["strict", "relaxed", "explain"]

_VOID = Alt(())
_EMPTY = Lit(b"")
_MAX_PATTERN_PROPERTIES = 4
_MAX_BRANCHES = 256
_MAX_COUNT = 64
_MAX_DEPTH = 200
_STRUCTURAL = frozenset(
    {
        "properties",
        "patternProperties",
        "additionalProperties",
        "required",
        "minProperties",
        "maxProperties",
        "prefixItems",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "_propertyNames",
    }
)
_INT_FORMATS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_NUMBER_FORMATS = frozenset({"float", "double"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of one keyword at one schema path."""

    path: str
    keyword: str
    status: Status
    detail: str = ""


@dataclass
class Lowered:
    """The grammar and, keyword by keyword, how each constraint is honoured."""

    grammar: Grammar | None
    verdicts: list[Verdict] = field(default_factory=list)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _num(value: Any, keyword: str, path: str) -> Decimal:
    if _is_bool(value) or not isinstance(value, int | float):
        raise SchemaError(
            f"{keyword} must be a number, not {json.dumps(value)}",
            keyword=keyword,
            path=path,
            code="schema-malformed",
        )
    return Decimal(str(value))


def _count(schema: Mapping[str, Any], keyword: str, path: str) -> int | None:
    value = schema.get(keyword)
    if value is None:
        return None
    if _is_bool(value) or not isinstance(value, int | float) or value < 0 or value != int(value):
        raise SchemaError(
            f"{keyword} must be a non-negative integer, not {json.dumps(value)}",
            keyword=keyword,
            path=path,
            code="schema-malformed",
        )
    return int(value)


def _json_literal(value: Any) -> bytes:
    if isinstance(value, str):
        return b'"' + encode_text(value) + b'"'
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value)).encode()
    return json.dumps(value, allow_nan=False).encode()


class _Lowering:
    def __init__(
        self,
        schema: Any,
        *,
        mode: Mode,
        layout: Whitespace,
        resources: Mapping[str, Any] | None,
        source: str,
        validator: str | None,
    ) -> None:
        self.root = schema
        self.mode = mode
        self.layout = layout
        self.source = source
        self.validator = validator
        self.resolver = Resolver(schema, resources)
        self.rules: dict[str, Rule] = {}
        self.terminals: dict[Expr, str] = {}
        self.ref_rules: dict[int, str] = {}
        self.keep: list[Any] = []
        self.verdicts: list[Verdict] = []
        self.deferred: list[DeferredCheck] = []
        self.ws = layout.between()
        self.colon = Seq((Lit(b":"), layout.after_colon()))
        self.comma = Seq((Lit(b","), self.ws))
        self.depth = 0

    # -- bookkeeping -------------------------------------------------------------------------

    def origin(self, path: str) -> Origin:
        return Origin(self.source, path=path)

    def note(self, path: str, keyword: str, status: Status, detail: str = "") -> None:
        self.verdicts.append(Verdict(path, keyword, status, detail))

    def refuse(self, keyword: str, path: str, message: str, hint: str) -> None:
        """Raise in strict mode; otherwise leave the keyword to the validator and go on."""
        if self.mode == "strict":
            raise UnsupportedSchemaError(
                f"{keyword}: {message}", keyword=keyword, path=path, hint=hint
            )
        status: Status = "refused" if self.mode == "explain" else "validator"
        self.note(path, keyword, status, message)
        if self.mode == "relaxed":
            self.deferred.append(DeferredCheck(path, keyword, message))

    def attempt(self, keyword: str, path: str, build: Callable[[], Expr], fallback: Expr) -> Expr:
        """``build()``, with a refusal from the scalar builders turned into a keyword refusal."""
        try:
            return build()
        except SchemaError:
            raise
        except UnsupportedFeatureError as exc:
            self.refuse(keyword, path, exc.message, exc.hint or "simplify the constraint")
            return fallback
        except GrammarError as exc:
            raise SchemaError(
                f"{keyword}: {exc.message}",
                keyword=keyword,
                path=path,
                code="schema-malformed",
                hint=exc.hint,
            ) from None

    def defer(self, path: str, keyword: str, reason: str) -> None:
        """A constraint the type's own validator checks after decoding."""
        self.note(path, keyword, "validator", reason)
        self.deferred.append(DeferredCheck(path, keyword, reason))

    def name_for(self, path: str) -> str:
        parts = [p for p in path.lstrip("#").split("/") if p]
        keep = [
            "item" if p == "items" else p
            for p in parts
            if p not in ("properties", "$defs", "definitions", "prefixItems", "anyOf", "oneOf")
        ]
        base = "_".join(re.sub(r"[^A-Za-z0-9]+", "_", p).strip("_") or "x" for p in keep)
        base = base or "root"
        if not base[0].isalpha():
            base = "r_" + base
        name = base
        for n in itertools.count(2):
            if name not in self.rules:
                break
            name = f"{base}_{n}"
        return name

    def rule(self, path: str, body: Expr, *, lexical: bool = False, name: str = "") -> Ref:
        name = name or self.name_for(path)
        lexing = Lexing.FREE
        self.rules[name] = Rule(
            name, body, lexical=lexical, lexing=lexing, origin=self.origin(path)
        )
        return Ref(name, origin=self.origin(path))

    def terminal(self, path: str, body: Expr, kind: str) -> Expr:
        """A deduplicated terminal for a regular piece of JSON text."""
        body = simplify(body)
        if body == _VOID:
            return _VOID
        name = self.terminals.get(body)
        if name is None:
            ref = self.rule(f"{path}/{kind}", body, lexical=True)
            self.terminals[body] = ref.name
            return ref
        return Ref(name, origin=self.origin(path))

    # -- entry -------------------------------------------------------------------------------

    def run(self) -> Grammar:
        root = self.value(self.root, "#")
        start = "root" if "root" not in self.rules else self.name_for("#/root")
        self.rules[start] = Rule(start, root, origin=self.origin("#"))
        return self.finish(start)

    def finish(self, start: str) -> Grammar:
        rules = list(self.rules.values())
        probe = Grammar(rules, start, validate=False)
        alive = productive_rules(probe)
        if start not in alive:
            raise SchemaError(
                "no JSON value satisfies this schema",
                keyword="$schema" if not isinstance(self.root, dict) else "schema",
                path="#",
                code="schema-unsatisfiable",
                hint="the constraints contradict each other (or the schema is false)",
            )

        def prune(node: Expr) -> Expr:
            if isinstance(node, Ref) and node.name not in alive:
                return _VOID
            return node

        kept = [
            rule_with(r, body=simplify(transform(r.body, prune))) for r in rules if r.name in alive
        ]
        kept = prune_unreachable(kept, [start])
        return Grammar(kept, start, origin=self.origin("#"), deferred=tuple(self.deferred))

    # -- schema dispatch ---------------------------------------------------------------------

    def value(self, schema: Any, path: str) -> Expr:
        """The JSON text of every instance valid against ``schema``."""
        if schema is True:
            self.note(path, "true", "grammar", "any JSON value")
            return self.any_value()
        if schema is False:
            self.note(path, "false", "grammar", "no value")
            return _VOID
        if not isinstance(schema, dict):
            raise SchemaError(
                f"a schema must be an object or a boolean, not {json.dumps(schema)[:40]}",
                keyword="schema",
                path=path,
                code="schema-malformed",
            )
        if ("$ref" in schema and len(schema) == 1) or (
            "$ref" in schema and set(schema) - {"$ref"} <= ANNOTATIONS
        ):
            return self.ref(schema, path)
        for dyn in ("$dynamicRef", "$recursiveRef"):
            if dyn in schema:
                raise self.resolver.refuse_dynamic(dyn, path)
        if "$ref" in schema:
            # A reference with sibling keywords is inlined; one rule per such schema keeps
            # recursion through it finite.
            return self.memo_rule(
                schema, path, lambda: self.lower_merged(self.flatten(schema, path), path)
            )
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                raise UnsupportedSchemaError(
                    f"the schema nests more than {_MAX_DEPTH} levels (recursion through allOf?)",
                    keyword="allOf",
                    path=path,
                    hint="give the recursive part a $ref of its own",
                )
            return self.lower_merged(self.flatten(schema, path), path)
        finally:
            self.depth -= 1

    def memo_rule(self, schema: Any, path: str, build: Callable[[], Expr]) -> Expr:
        """One rule per schema object, registered before its body so recursion ends."""
        key = id(schema)
        name = self.ref_rules.get(key)
        if name is None:
            rule_path = self.resolver.pointer_of(schema, path)
            name = self.name_for(rule_path)
            self.ref_rules[key] = name
            self.keep.append(schema)
            self.rules[name] = Rule(name, _VOID, origin=self.origin(rule_path))
            body = build()
            self.rules[name] = Rule(name, body, origin=self.origin(rule_path))
        return Ref(name, origin=self.origin(path))

    def ref(self, holder: Mapping[str, Any], path: str) -> Expr:
        target = self.resolver.resolve(holder["$ref"], holder, path)
        self.note(path, "$ref", "grammar", str(holder["$ref"]))
        if isinstance(target, bool):
            return self.value(target, path)
        target_path = self.resolver.pointer_of(target, path)
        if "$ref" in target:  # a chain of references: the target memoises itself
            return self.value(target, target_path)
        return self.memo_rule(target, path, lambda: self.value(target, target_path))

    def atoms(self, schema: Any, path: str, stack: tuple[int, ...]) -> list[Any]:
        """``schema`` as a list of dict schemas without ``$ref`` / ``allOf``, or ``[False]``."""
        if schema is True:
            return []
        if schema is False:
            return [False]
        if not isinstance(schema, dict):
            raise SchemaError(
                "a schema must be an object or a boolean",
                keyword="schema",
                path=path,
                code="schema-malformed",
            )
        out: list[Any] = []
        own = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
        out.append(self.normalize(own, path))
        if "$ref" in schema:
            target = self.resolver.resolve(schema["$ref"], schema, path)
            if id(target) in stack:
                raise UnsupportedSchemaError(
                    f"$ref {schema['$ref']!r} recurses into itself inside allOf or next to"
                    " sibling keywords",
                    keyword="$ref",
                    path=path,
                    hint="move the sibling keywords into the referenced schema",
                )
            self.note(path, "$ref", "grammar", str(schema["$ref"]))
            target_path = self.resolver.pointer_of(target, path)
            out.extend(self.atoms(target, target_path, (*stack, id(target))))
        all_of = schema.get("allOf")
        if all_of is not None:
            if not isinstance(all_of, list) or not all_of:
                raise SchemaError(
                    "allOf must be a non-empty array of schemas",
                    keyword="allOf",
                    path=path,
                    code="schema-malformed",
                )
            self.note(path, "allOf", "grammar", "merged as an intersection")
            for i, sub in enumerate(all_of):
                out.extend(self.atoms(sub, f"{path}/allOf/{i}", stack))
        return out

    def normalize(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """Older drafts' spellings in 2020-12 terms; private-looking user keys set aside."""
        out = {k: v for k, v in schema.items() if not k.startswith("_")}
        odd = [k for k in schema if k.startswith("_")]
        if odd:
            out["_other"] = odd
        if isinstance(out.get("items"), list):
            out["prefixItems"] = out.pop("items")
            if "additionalItems" in out:
                out["items"] = out.pop("additionalItems")
        else:
            out.pop("additionalItems", None)
        for excl, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if _is_bool(out.get(excl)):
                flag = out.pop(excl)
                if flag and bound in out:
                    out[excl] = out.pop(bound)
        return out

    def flatten(self, schema: dict[str, Any], path: str) -> dict[str, Any] | bool:
        atoms = self.atoms(schema, path, ())
        if any(a is False for a in atoms):
            return False
        merged = merge(atoms, path)
        self.keep.append(merged)
        return merged

    # -- merged schemas ----------------------------------------------------------------------

    def lower_merged(self, schema: dict[str, Any] | bool, path: str) -> Expr:
        if isinstance(schema, bool):
            return self.value(schema, path)
        if schema.get(NEVER):
            return _VOID
        for keyword in schema.get("_other", []):
            self.unknown(keyword, path)
        for keyword, value in schema.get("_refused", []):
            self.refuse(keyword, path, f"{value} cannot be enforced exactly", "drop it")
        if "_not" in schema:
            schema = self.negate(schema, path)
            if schema.get(NEVER):
                return _VOID
        for keyword in ("then", "else", "minContains", "maxContains"):
            if keyword in schema and "_if" not in schema and "_contains" not in schema:
                self.note(path, keyword, "ignored", "has no effect without if / contains")
        if schema.get("_anyOfs") or schema.get("_oneOfs"):
            return self.branches(schema, path)
        return self.typed(schema, path)

    def negate(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        out = {k: v for k, v in schema.items() if k != "_not"}
        pending = [(n, f"{path}/not") for n in schema["_not"]]
        while pending:
            negated, sub_path = pending.pop()
            spread = self.de_morgan(out, negated)
            if spread is not None:
                out = spread
                self.note(sub_path, "not", "grammar", "spread over its keywords (De Morgan)")
                continue
            flat = self.flatten(negated, sub_path) if isinstance(negated, dict) else negated
            if isinstance(flat, dict):
                keys = {k for k in flat if k not in ANNOTATIONS and k != "_other"}
                if keys == {"_not"} and len(flat["_not"]) == 1:  # not not A == A
                    inner = self.atoms(flat["_not"][0], f"{sub_path}/not", ())
                    if any(a is False for a in inner):
                        out[NEVER] = True
                        continue
                    out = merge([out, *inner], sub_path)
                    pending.extend((n, f"{sub_path}/not/not") for n in out.pop("_not", []))
                    continue
                if keys == {"_anyOfs"} and len(flat["_anyOfs"]) == 1:  # not (A or B)
                    pending.extend(
                        (b, f"{sub_path}/anyOf/{i}") for i, b in enumerate(flat["_anyOfs"][0])
                    )
                    continue
            try:
                apply_not(out, flat)
            except Unsupported as exc:
                self.refuse(
                    "not",
                    sub_path,
                    f"{exc} is not enforced by the grammar",
                    "negate a type, an enum/const, one required property or an integer"
                    " multipleOf; or pass strict=False",
                )
            else:
                self.note(sub_path, "not", "grammar", "folded into the schema as exclusions")
        self.keep.append(out)
        return out

    def de_morgan(self, out: dict[str, Any], negated: Any) -> dict[str, Any] | None:
        """``not`` of a plain schema with several constraints: an anyOf of single negations.

        ``not {"properties": {"p": P}}`` becomes "an object with ``p`` whose value is not P".
        Returns the new schema, or ``None`` where :func:`apply_not` takes over.
        """
        if not isinstance(negated, dict) or {
            "$ref",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "enum",
            "const",
        } & set(negated):
            return None
        if not negation.negatable(negated):
            return None
        keys = [k for k in negated if k not in ANNOTATIONS and not k.startswith("_")]
        singles: list[Any] = []
        if len(keys) > 1:
            singles = [{"not": {k: negated[k]}} for k in keys]
        elif keys == ["required"] and len(negated["required"]) > 1:
            singles = [{"not": {"required": [name]}} for name in negated["required"]]
        elif keys == ["properties"] and isinstance(negated["properties"], dict):
            props = negated["properties"]
            if len(props) > 1:
                singles = [{"not": {"properties": {k: v}}} for k, v in props.items()]
            elif len(props) == 1:
                ((name, sub),) = props.items()
                extra = {"type": ["object"], "required": [name], "properties": {name: {"not": sub}}}
                merged = merge([out, extra], "#")
                self.keep.append(merged)
                return merged
            else:
                return {**out, NEVER: True}
        if not singles:
            return None
        spread = {**out, "_anyOfs": [*out.get("_anyOfs", []), singles]}
        self.keep.append(spread)
        return spread

    def excluded(self, value: Any, schema: dict[str, Any]) -> bool:
        """Whether a ``not`` excludes this enum value."""
        if value_key(value) in {value_key(v) for v in schema.get("_xvalues", [])}:
            return True
        if isinstance(value, int | float) and not isinstance(value, bool):
            if schema.get("_xinteger") and float(value).is_integer():
                return True
            for k in schema.get("_xmultiples", []):
                if float(value).is_integer() and int(value) % k == 0:
                    return True
        return False

    def branches(self, schema: dict[str, Any], path: str) -> Expr:
        rest = {k: v for k, v in schema.items() if k not in ("_anyOfs", "_oneOfs")}
        groups: list[tuple[str, list[Any]]] = [("anyOf", g) for g in schema.get("_anyOfs", [])]
        groups += [("oneOf", g) for g in schema.get("_oneOfs", [])]
        total = math.prod(len(g) for _, g in groups)
        if total > _MAX_BRANCHES:
            self.refuse(
                "anyOf",
                path,
                f"{total} combined branches exceed the limit of {_MAX_BRANCHES}",
                "simplify the nested anyOf / oneOf",
            )
            return self.typed(rest, path)
        keyword, options = groups[0]
        if not isinstance(options, list) or not options:
            raise SchemaError(
                f"{keyword} must be a non-empty array of schemas",
                keyword=keyword,
                path=path,
                code="schema-malformed",
            )
        remaining = {
            "_anyOfs": [g for k, g in groups[1:] if k == "anyOf"],
            "_oneOfs": [g for k, g in groups[1:] if k == "oneOf"],
        }
        alts: list[Expr] = []
        merged_branches: list[dict[str, Any] | bool] = []
        for i, option in enumerate(options):
            sub_path = f"{path}/{keyword}/{i}"
            base = {k: v for k, v in rest.items() if not k.startswith("_") or k not in remaining}
            atoms = [base, *self.atoms(option, sub_path, ())]
            if any(a is False for a in atoms):
                merged_branches.append(False)
                continue
            branch = merge(atoms, sub_path)
            for k, groups_k in remaining.items():
                if groups_k:
                    branch[k] = [*branch.get(k, []), *groups_k]
            self.keep.append(branch)
            merged_branches.append(branch)
        if keyword == "oneOf":
            merged_branches = self.exactly_one(merged_branches, options, path)
        else:
            self.note(path, "anyOf", "grammar", "alternation")
        for i, lowered in enumerate(merged_branches):
            if isinstance(lowered, dict):
                alts.append(self.lower_merged(lowered, f"{path}/{keyword}/{i}"))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    def exactly_one(
        self, branches: list[dict[str, Any] | bool], options: list[Any], path: str
    ) -> list[dict[str, Any] | bool]:
        """oneOf's branches, each made to exclude the others where they may overlap."""
        live = [b for b in branches if isinstance(b, dict)]
        if all(_disjoint(a, b) for a, b in itertools.combinations(live, 2)):
            self.note(path, "oneOf", "grammar", "branches are disjoint")
            return branches
        rewritten: list[dict[str, Any] | bool] = []
        for i, branch in enumerate(branches):
            if not isinstance(branch, dict):
                rewritten.append(branch)
                continue
            others = [o for j, o in enumerate(options) if j != i and branches[j] is not False]
            exclusive = self.probe_negations(branch, others, f"{path}/oneOf/{i}")
            if exclusive is None:
                self.refuse(
                    "oneOf",
                    path,
                    "its branches may overlap and the others cannot be excluded exactly",
                    "make the branches disjoint (a const/enum discriminator property, or"
                    " distinct types), use anyOf, or pass strict=False",
                )
                return branches
            rewritten.append(exclusive)
        self.note(path, "oneOf", "grammar", "each branch excludes the others")
        return rewritten

    def probe_negations(
        self, branch: dict[str, Any], others: list[Any], path: str
    ) -> dict[str, Any] | None:
        """``branch`` and not any of ``others``, or ``None`` if a negation is not exact."""
        mode, n_verdicts, n_deferred = self.mode, len(self.verdicts), len(self.deferred)
        self.mode = "strict"
        try:
            return self.negate({**branch, "_not": [*branch.get("_not", []), *others]}, path)
        except UnsupportedSchemaError:
            return None
        finally:
            self.mode = mode
            del self.verdicts[n_verdicts:]
            del self.deferred[n_deferred:]

    def unknown(self, keyword: str, path: str) -> None:
        refused = {
            "$dynamicRef",
            "$recursiveRef",
            "unevaluatedProperties",
            "unevaluatedItems",
            "propertyDependencies",
        }
        if keyword in refused:
            self.refuse(keyword, path, "is not enforced by the grammar", "drop it")
        else:
            self.note(path, keyword, "ignored", "not a validation keyword of draft 2020-12")

    # -- types -------------------------------------------------------------------------------

    def typed(self, schema: dict[str, Any], path: str) -> Expr:
        declared = schema.get("type")
        if declared is not None:
            names = [declared] if isinstance(declared, str) else declared
            for t in names:
                if t not in JSON_TYPES:
                    raise SchemaError(
                        f"unknown type {t!r}",
                        keyword="type",
                        path=path,
                        code="schema-malformed",
                        hint=f"one of {', '.join(JSON_TYPES)}",
                    )
            self.note(path, "type", "grammar", ", ".join(names))
        types = type_set(schema)
        if "enum" in schema:
            return self.enum(schema, types, path)
        alts: list[Expr] = []
        if "null" in types and not self.excluded(None, schema):
            alts.append(Lit(b"null"))
        if "boolean" in types:
            flags = [
                Lit(t)
                for t, v in ((b"true", True), (b"false", False))
                if not self.excluded(v, schema)
            ]
            alts.append(self.terminal(path, Alt(tuple(flags)), "bool"))
        if "number" in types:
            alts.append(self.number(schema, path, integer=False))
        elif "integer" in types:
            alts.append(self.number(schema, path, integer=True))
        if "string" in types:
            alts.append(self.string(schema, path))
        if "array" in types:
            alts.append(self.array(schema, path))
        if "object" in types:
            alts.append(self.obj(schema, path))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    # -- enum / const ------------------------------------------------------------------------

    def enum(self, schema: dict[str, Any], types: set[str], path: str) -> Expr:
        values = schema["enum"]
        if not isinstance(values, list):
            raise SchemaError(
                "enum must be an array", keyword="enum", path=path, code="schema-malformed"
            )
        self.note(path, "enum", "grammar", f"{len(values)} value(s)")
        scalars: list[Expr] = []
        containers: list[Expr] = []
        seen: set[str] = set()
        for value in values:
            key = value_key(value)
            if key in seen or not (value_types(value) & types) or self.excluded(value, schema):
                continue
            seen.add(key)
            if isinstance(value, dict | list):
                if _STRUCTURAL & set(schema):
                    self.refuse(
                        "enum",
                        path,
                        "object/array values combined with structural keywords",
                        "list only values that satisfy the other keywords",
                    )
                containers.append(self.constant(value))
            elif self.scalar_ok(value, schema, path):
                scalars.append(Lit(_json_literal(value)))
        alts = [*containers]
        if scalars:
            alts.append(self.terminal(path, Alt(tuple(scalars)), "enum"))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    def scalar_ok(self, value: Any, schema: dict[str, Any], path: str) -> bool:
        if isinstance(value, str):
            return char_matches(self.string_chars(schema, path), value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            integer = "number" not in type_set({k: v for k, v in schema.items() if k != "enum"})
            if integer and not float(value).is_integer():
                return False
            expr = self.number_body(schema, path, integer=integer)
            return char_matches(expr, _json_literal(value).decode())
        return True

    def constant(self, value: Any) -> Expr:
        if isinstance(value, dict):
            if not value:
                return Seq((Lit(b"{"), self.ws, Lit(b"}")))
            members: list[Expr] = []
            for i, (k, v) in enumerate(value.items()):
                sep: Expr = self.comma if i else _EMPTY
                members.append(Seq((sep, Lit(_json_literal(k)), self.colon, self.constant(v))))
            return Seq((Lit(b"{"), self.ws, *members, self.ws, Lit(b"}")))
        if isinstance(value, list):
            if not value:
                return Seq((Lit(b"["), self.ws, Lit(b"]")))
            items = [
                Seq((self.comma if i else _EMPTY, self.constant(v))) for i, v in enumerate(value)
            ]
            return Seq((Lit(b"["), self.ws, *items, self.ws, Lit(b"]")))
        return Lit(_json_literal(value))

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
        chars = self.string_chars(schema, path)
        strings = [Lit.text(v) for v in schema.get("_xvalues", []) if isinstance(v, str)]
        if strings:
            chars = Intersect((chars, Complement(Alt(tuple(strings)))))
        body = encode(chars)
        return self.terminal(path, Seq((Lit(b'"'), body, Lit(b'"'))), "str")

    # -- arrays ------------------------------------------------------------------------------

    def array(self, schema: dict[str, Any], path: str) -> Expr:
        if schema.get("uniqueItems") is True:
            if self.validator:
                self.defer(path, "uniqueItems", f"checked by {self.validator}")
            else:
                self.refuse(
                    "uniqueItems",
                    path,
                    "distinct items cannot be enforced by a context-free grammar",
                    "drop uniqueItems, or pass strict=False to check it after decoding",
                )
        if schema.get("_contains"):
            return self.array_contains(schema, path)
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", True)
        lo = _count(schema, "minItems", path) or 0
        hi = _count(schema, "maxItems", path)
        if hi is not None and lo > hi:
            return _VOID
        for keyword in ("prefixItems", "items", "minItems", "maxItems"):
            if keyword in schema:
                self.note(path, keyword, "grammar")
        k = len(prefix)
        prefix_exprs = [self.value(p, f"{path}/prefixItems/{i}") for i, p in enumerate(prefix)]
        item_expr = self.value(items, f"{path}/items") if items is not False else _VOID
        limit = hi if items is not False else (k if hi is None else min(hi, k))

        def element(i: int) -> Expr:
            return prefix_exprs[i] if i < k else item_expr

        def tail(i: int) -> Expr:
            """Elements i.. after at least one element was written."""
            if limit is not None and i >= limit:
                return _EMPTY if i >= lo else _VOID
            if i >= k:
                more = Repeat(
                    Seq((self.comma, item_expr)),
                    max(0, lo - i),
                    None if limit is None else limit - i,
                )
                return more
            nxt = Seq((self.comma, element(i), tail(i + 1)))
            return Alt((_EMPTY, nxt)) if i >= lo else nxt

        content = Seq((element(0), tail(1))) if limit is None or limit > 0 else _VOID
        alts: list[Expr] = [Seq((Lit(b"["), self.ws, content, self.ws, Lit(b"]")))]
        if lo == 0:
            alts.append(Seq((Lit(b"["), self.ws, Lit(b"]"))))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    def array_contains(self, schema: dict[str, Any], path: str) -> Expr:
        """Arrays with ``contains``: element by element, counting the matches.

        A match is an element valid against ``items`` and ``contains``; with ``maxContains`` the
        other elements must not match (their ``not`` must be exact), without it any element may
        stand in for a non-match, which only makes the count of matches a lower bound.
        """
        sub_path = f"{path}/contains"
        contains = schema["_contains"]
        lo = _count(schema, "minItems", path) or 0
        hi = _count(schema, "maxItems", path)
        least = _count(schema, "minContains", path)
        most = _count(schema, "maxContains", path)
        least = 1 if least is None else least
        if len(contains) > 1 or schema.get("prefixItems"):
            self.refuse(
                "contains",
                sub_path,
                "several contains, or contains with prefixItems, are not enforced",
                "use one contains without prefixItems, or pass strict=False",
            )
            return self.array({k: v for k, v in schema.items() if k != "_contains"}, path)
        items = schema.get("items", True)
        cap_i = hi if hi is not None else max(lo, 1)
        cap_j = most if most is not None else least
        if (hi is not None and lo > hi) or (most is not None and least > most):
            return _VOID
        if (cap_i + 1) * (cap_j + 2) > _MAX_COUNT * _MAX_COUNT:
            self.refuse("contains", sub_path, "counts too large to track", "lower the bounds")
            return self.array({k: v for k, v in schema.items() if k != "_contains"}, path)
        self.note(sub_path, "contains", "grammar", "matches counted element by element")
        match = self.value({"allOf": [items, contains[0]]}, sub_path)
        if most is not None:
            other = self.value({"allOf": [items, {"not": contains[0]}]}, sub_path)
        else:
            other = self.value(items, f"{path}/items")
        base = self.name_for(f"{path}/contains")
        names: dict[tuple[int, int], str] = {}

        def rest(i: int, j: int) -> Expr:
            """What may follow ``i`` elements (capped) of which ``j`` (capped) matched."""
            i = min(i, cap_i)
            if most is None:
                j = min(j, cap_j)
            key = (i, j)
            if key in names:
                return Ref(names[key], origin=self.origin(path))
            name = f"{base}_{i}_{j}"
            names[key] = name
            self.rules[name] = Rule(name, _VOID, origin=self.origin(path))
            alts: list[Expr] = []
            if i >= lo and j >= least:
                alts.append(_EMPTY)
            if hi is None or i < hi:
                if most is None or j < most:
                    alts.append(Seq((self.comma, match, rest(i + 1, j + 1))))
                alts.append(Seq((self.comma, other, rest(i + 1, j))))
            self.rules[name] = Rule(name, simplify(Alt(tuple(alts))), origin=self.origin(path))
            return Ref(name, origin=self.origin(path))

        alts: list[Expr] = []
        if lo == 0 and least == 0:
            alts.append(Seq((Lit(b"["), self.ws, Lit(b"]"))))
        if hi is None or hi > 0:
            firsts: list[Expr] = [Seq((other, rest(1, 0)))]
            if most is None or most > 0:
                firsts.append(Seq((match, rest(1, 1))))
            first = Alt(tuple(firsts))
            alts.append(Seq((Lit(b"["), self.ws, first, self.ws, Lit(b"]"))))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    # -- objects -----------------------------------------------------------------------------

    def key_language(self, schema: dict[str, Any], path: str) -> Expr | None:
        """Decoded characters allowed as property names (``None``: any)."""
        langs: list[Expr] = []
        for names in schema.get("_propertyNames", []):
            sub_path = f"{path}/propertyNames"
            merged = self.flatten(names, sub_path) if isinstance(names, dict) else names
            if merged is True:
                continue
            if merged is False or "string" not in type_set(merged):
                langs.append(_VOID)
                continue
            loose = (
                set(merged)
                - {"type", "minLength", "maxLength", "_patterns", "_formats", "enum"}
                - ANNOTATIONS
            )
            if loose:
                self.refuse(
                    "propertyNames",
                    sub_path,
                    f"only string keywords are supported, not {sorted(loose)}",
                    "restrict property names with pattern / enum / length",
                )
                continue
            self.note(sub_path, "propertyNames", "grammar")
            chars = self.string_chars(merged, sub_path)
            if "enum" in merged:
                allowed = [v for v in merged["enum"] if isinstance(v, str)]
                chars = Intersect((chars, Alt(tuple(Lit.text(v) for v in allowed))))
            langs.append(chars)
        if not langs:
            return None
        return langs[0] if len(langs) == 1 else Intersect(tuple(langs))

    def obj(self, schema: dict[str, Any], path: str) -> Expr:
        props: dict[str, Any] = dict(schema.get("properties", {}))
        required = list(schema.get("required", []))
        patterns: dict[str, Any] = dict(schema.get("patternProperties", {}))
        additional = schema.get("additionalProperties", True)
        for keyword in (
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
        ):
            if keyword in schema:
                self.note(path, keyword, "grammar")
        if len(patterns) > _MAX_PATTERN_PROPERTIES:
            self.refuse(
                "patternProperties",
                path,
                f"more than {_MAX_PATTERN_PROPERTIES} patterns",
                "merge the patterns",
            )
            patterns = {}
        origin = self.origin(path)
        pattern_langs = {
            p: self.attempt(
                "patternProperties",
                path,
                lambda p=p: ecma.pattern_expr(p, origin=origin),  # type: ignore[misc]
                Repeat(ANY_CHAR, 0, None),
            )
            for p in patterns
        }
        names_lang = self.key_language(schema, path)
        declared = schema.get("properties", {})
        for name in required:
            props.setdefault(name, None)
        for name in schema.get("_forbid", []):
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
            value = self.value(sub, sub_path)
            is_required = name in required
            if value == _VOID:
                if is_required:
                    raise SchemaError(
                        f"required property {name!r} can have no valid value",
                        keyword="required",
                        path=path,
                        code="schema-unsatisfiable",
                    )
                continue
            key = Lit(_json_literal(name))
            named.append((name, Seq((key, self.colon, value)), is_required))
        extras = self.extra_members(path, props, patterns, pattern_langs, additional, names_lang)
        return self.object_body(schema, path, named, extras)

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
                key = self.terminal(
                    f"{path}/additionalProperties" if not subset else f"{path}/patternProperties",
                    Seq((Lit(b'"'), encode(chars), Lit(b'"'))),
                    "key",
                )
                sub_path = (
                    f"{path}/patternProperties/{subset[0]}"
                    if len(subset) == 1
                    else f"{path}/additionalProperties"
                )
                value = self.value(value_schema, sub_path)
                if value != _VOID and key != _VOID:
                    members.append(Seq((key, self.colon, value)))
        return simplify(Alt(tuple(members), origin=self.origin(path)))

    def object_body(
        self,
        schema: dict[str, Any],
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
        if lo > n and has_extra:
            self.refuse(
                "minProperties",
                path,
                f"{lo} properties need additional ones, whose names a grammar cannot keep distinct",
                "name the properties in 'properties', or pass strict=False",
            )
            lo = n
        counted = lo > 0 or hi is not None
        cap = max(lo, hi or 0) + 1
        if counted and cap > _MAX_COUNT:
            self.refuse(
                "maxProperties" if hi is not None else "minProperties",
                path,
                f"property counts above {_MAX_COUNT} are not enforced",
                "lower the bound, or pass strict=False",
            )
            counted, lo, hi = False, 0, None
        base = self.name_for(path)
        memo: dict[tuple[int, bool, int], Expr] = {}

        def clamp(c: int) -> int:
            return min(c, cap) if counted else 0

        def state(i: int, first: bool, c: int) -> Expr:
            """Members i.. given whether none was written yet and ``c`` written so far."""
            key = (i, first, c)
            if key in memo:
                return memo[key]
            sep: Expr = _EMPTY if first else self.comma
            alts: list[Expr] = []
            if i == n:
                if c >= lo:
                    alts.append(_EMPTY)
                if has_extra and c >= lo:
                    room = None if hi is None else hi - c
                    if room is None or room > 0:
                        rest = Repeat(
                            Seq((self.comma, extra)), 0, None if room is None else room - 1
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
                if name in self.rules:
                    name = self.name_for(f"{path}/{name}")
                self.rules[name] = Rule(name, body, origin=self.origin(path))
                body = Ref(name, origin=self.origin(path))
            memo[key] = body
            return body

        content = state(0, True, 0)
        return simplify(
            Seq((Lit(b"{"), self.ws, content, self.ws, Lit(b"}")), origin=self.origin(path))
        )

    # -- any value ---------------------------------------------------------------------------

    def any_value(self) -> Expr:
        if "json_value" in self.rules:
            return Ref("json_value")
        ref = Ref("json_value")
        self.rules["json_value"] = Rule("json_value", _VOID)
        string = self.terminal(
            "#/json", Seq((Lit(b'"'), encode(Repeat(ANY_CHAR, 0, None)), Lit(b'"'))), "string"
        )
        number = self.terminal("#/json", numbers.number_range(None, None), "number")
        member = Seq((string, self.colon, ref))
        obj = Seq(
            (
                Lit(b"{"),
                self.ws,
                Alt((_EMPTY, Seq((member, Repeat(Seq((self.comma, member)), 0, None), self.ws)))),
                Lit(b"}"),
            )
        )
        arr = Seq(
            (
                Lit(b"["),
                self.ws,
                Alt((_EMPTY, Seq((ref, Repeat(Seq((self.comma, ref)), 0, None), self.ws)))),
                Lit(b"]"),
            )
        )
        boolean = self.terminal("#/json", Alt((Lit(b"true"), Lit(b"false"))), "bool")
        body = Alt((obj, arr, string, number, boolean, Lit(b"null")))
        self.rules["json_value"] = Rule("json_value", simplify(body), origin=self.origin("#"))
        return ref


def _disjoint(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether no instance can satisfy both merged schemas (a sufficient check)."""
    ta, tb = type_set(a), type_set(b)
    if not ta & tb:
        return True
    if "enum" in a and "enum" in b:
        if not {value_key(v) for v in a["enum"]} & {value_key(v) for v in b["enum"]}:
            return True
    if ta & tb <= {"object"} or ("object" in ta & tb and ta & tb - {"object"} == set()):
        pa, pb = a.get("properties", {}), b.get("properties", {})
        for name in set(a.get("required", [])) & set(b.get("required", [])):
            ea, eb = _enum_of(pa.get(name)), _enum_of(pb.get(name))
            if ea is not None and eb is not None and not ea & eb:
                return True
    return False


def _enum_of(schema: Any) -> set[str] | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return {value_key(schema["const"])}
    if "enum" in schema and isinstance(schema["enum"], list):
        return {value_key(v) for v in schema["enum"]}
    return None


def lower_schema(
    schema: Any,
    *,
    strict: bool = True,
    whitespace: WhitespaceSpec = "compact",
    resources: Mapping[str, Any] | None = None,
    source: str = "<schema>",
    explain: bool = False,
    validator: str | None = None,
) -> Lowered:
    """Lower ``schema``; with ``explain=True`` refusals are recorded instead of raised.

    ``validator`` names a validator that runs after decoding anyway (``"Pydantic"``); the
    constraints it checks itself (``uniqueItems``, unknown formats) are then deferred to it.
    """
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as exc:
            raise SchemaError(
                f"schema text is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                keyword="schema",
                path="#",
                code="schema-malformed",
            ) from None
    mode: Mode = "explain" if explain else ("strict" if strict else "relaxed")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    lowering = _Lowering(
        schema,
        mode=mode,
        layout=whitespace_of(whitespace),
        resources=resources,
        source=source,
        validator=validator,
    )
    try:
        grammar = lowering.run()
    except RecursionError:
        if not explain:
            raise SchemaError(
                "the schema nests too deeply to lower",
                keyword="$ref",
                path="#",
                code="schema-too-deep",
                hint="flatten the nesting or give deep parts a $ref of their own",
            ) from None
        grammar = None
    except SchemaError:
        if not explain:
            raise
        grammar = None
    finally:
        sys.setrecursionlimit(limit)
    return Lowered(grammar, lowering.verdicts)

"""JSON Schema lowered to the IR: every keyword enforced exactly, refused by name, or deferred.

The grammar is over the JSON text. Scalars (strings, numbers) become terminals whose languages are
exact (:mod:`.scalars` with :mod:`.strings`, :mod:`.numbers`, :mod:`.formats`, :mod:`.ecma`);
arrays and objects become rules (:mod:`.containers`). This module dispatches: ``$ref`` targets
are one rule each, so recursion costs nothing; ``allOf`` is merged at the schema level
(:mod:`.merge`); ``anyOf`` is an alternation; ``oneOf`` one too, where its branches are provably
disjoint or each can exclude the others exactly; ``not`` becomes exclusions (:mod:`.negation`).
What cannot be enforced exactly is refused in strict mode and, with ``strict=False``, left to a
validator and recorded on the grammar (:class:`DeferredCheck`). :mod:`.base` holds the state.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

from typedgen.errors import (
    SchemaError,
    UnsupportedSchemaError,
)
from typedgen.frontends.jsonschema import negation, numbers
from typedgen.frontends.jsonschema.anyorder import any_order_members
from typedgen.frontends.jsonschema.charmatch import char_matches
from typedgen.frontends.jsonschema.layout import WhitespaceSpec, whitespace_of
from typedgen.frontends.jsonschema.merge import (
    ANNOTATIONS,
    JSON_TYPES,
    MAX_EVALUATING_BRANCHES,
    exclusive_group,
    merge,
    type_set,
    value_key,
    value_types,
)
from typedgen.frontends.jsonschema.negation import NEVER, Unsupported, apply_not
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode
from typedgen.ir.grammar import Grammar, Rule, rule_with
from typedgen.ir.nodes import Alt, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.passes import simplify
from typedgen.ir.passes.rewrite import prune_unreachable, transform
from typedgen.ir.passes.validate import productive_rules

__all__ = ["Lowered", "Status", "Verdict", "lower_schema"]

from typedgen.frontends.jsonschema.base import (
    _EMPTY,
    _MAX_BRANCHES,
    _MAX_DEPTH,
    _STRUCTURAL,
    _VOID,
    FORMAT_MODES,
    KEY_ORDERS,
    SPELLINGS,
    FormatMode,
    KeyOrder,
    Lowered,
    Mode,
    Spellings,
    Status,
    Verdict,
    _is_bool,
    _json_literal,
    check_option,
)
from typedgen.frontends.jsonschema.containers import ContainerLowering


class _Lowering(ContainerLowering):
    """The dispatch: references, merges, combinators, types, enums; see the mixins."""

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
                f"a schema must be an object or a boolean, not {_shown(schema)}",
                keyword="schema",
                path=path,
                code="schema-malformed",
                hint="write {} (anything), false (nothing) or an object of keywords",
            )
        self.shapes.check(schema, path)  # reached through an unusual $ref: not checked yet
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
        lazy = self.lazy_key(schema)
        if lazy is not None:
            # An allOf that a merge wrote lazily, over indexed schemas: one rule per set of
            # schemas, so recursion through merges ends like recursion through $ref.
            return self.memo_rule(
                schema,
                path,
                lambda: self.lower_merged(self.flatten(schema, path), path),
                key=lazy,
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

    def lazy_key(self, schema: dict[str, Any]) -> tuple[int, ...] | None:
        """The indexed schemas a bare ``{"allOf": [...]}`` intersects, or ``None``."""
        if set(schema) != {"allOf"} or not isinstance(schema["allOf"], list):
            return None
        leaves: list[int] = []
        for item in schema["allOf"]:
            if isinstance(item, dict) and set(item) == {"allOf"}:
                inner = self.lazy_key(item)
                if inner is None:
                    return None
                leaves.extend(inner)
            elif isinstance(item, dict) and self.resolver.is_indexed(item):
                leaves.append(id(item))
            else:
                return None
        return tuple(leaves)

    def memo_rule(
        self,
        schema: Any,
        path: str,
        build: Callable[[], Expr],
        *,
        key: int | tuple[int, ...] | None = None,
    ) -> Expr:
        """One rule per schema object (or ``key``), registered before its body so recursion
        ends."""
        key = id(schema) if key is None else key
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

    def atoms(
        self, schema: Any, path: str, stack: tuple[int, ...], *, top: bool = True
    ) -> list[Any]:
        """``schema`` as a list of dict schemas without ``$ref`` / ``allOf``, or ``[False]``.

        ``top``: ``schema`` is the one being lowered, so its ``unevaluated*`` keywords see every
        atom; below the top they would see only their own subtree, which merging loses.
        """
        if schema is True:
            return []
        if schema is False:
            return [False]
        if not isinstance(schema, dict):
            raise SchemaError(
                f"a schema must be an object or a boolean, not {_shown(schema)}",
                keyword="schema",
                path=path,
                code="schema-malformed",
                hint="write {} (anything), false (nothing) or an object of keywords",
            )
        self.shapes.check(schema, path)
        out: list[Any] = []
        own = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
        own = self.normalize(own, path)
        if not top:
            for keyword in ("unevaluatedProperties", "unevaluatedItems"):
                if keyword in own:
                    del own[keyword]
                    own.setdefault("_refused", []).append(
                        (keyword, "an unevaluated keyword inside allOf, anyOf, oneOf or $ref")
                    )
        out.append(own)
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
            out.extend(self.atoms(target, target_path, (*stack, id(target)), top=False))
        all_of = schema.get("allOf")
        if all_of is not None:
            if not isinstance(all_of, list) or not all_of:
                raise SchemaError(
                    "allOf must be a non-empty array of schemas",
                    keyword="allOf",
                    path=path,
                    code="schema-malformed",
                    hint="list at least one schema, or drop allOf",
                )
            self.note(path, "allOf", "grammar", "merged as an intersection")
            for i, sub in enumerate(all_of):
                out.extend(self.atoms(sub, f"{path}/allOf/{i}", stack, top=False))
        return out

    def normalize(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        """Older drafts' spellings in 2020-12 terms; private-looking user keys set aside."""
        out = {k: v for k, v in schema.items() if not k.startswith("_")}
        if _historic(out.get("$schema")):
            for keyword in ("prefixItems", "$dynamicRef", "$dynamicAnchor"):
                out.pop(keyword, None)  # not keywords of the draft the resource declares
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
        for keyword in ("minContains", "maxContains"):
            if keyword in schema and "_contains" not in schema:
                self.note(path, keyword, "ignored", "has no effect without contains")
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
                    for kw, key in (
                        ("unevaluatedProperties", "_unevaluated"),
                        ("unevaluatedItems", "_unevaluatedItems"),
                    ):
                        if key in out:
                            self.refuse(
                                kw,
                                sub_path,
                                "next to a double not, whose subschema evaluates nothing",
                                "state the constraint without not, or pass strict=False",
                            )
                    inner = self.atoms(flat["_not"][0], f"{sub_path}/not", (), top=False)
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
                extra = {
                    "type": ["object"],
                    "required": [name],
                    "properties": {name: {"not": sub}},
                    "_negprops": [name],  # named, but not evaluated (unevaluatedProperties)
                }
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
                hint=f"list at least one schema, or drop {keyword}",
            )
        remaining = {
            "_anyOfs": [g for k, g in groups[1:] if k == "anyOf"],
            "_oneOfs": [g for k, g in groups[1:] if k == "oneOf"],
        }
        alts: list[Expr] = []
        merged_branches: list[dict[str, Any] | bool] = []
        unconstrained = not any(remaining.values()) and all(k in _ANNOTATIONS for k in rest)
        labels = [str(i) for i in range(len(options))]
        if keyword == "anyOf" and ("_unevaluated" in rest or "_unevaluatedItems" in rest):
            options, labels = self.evaluating_subsets(options, path)
        for i, option in enumerate(options):
            sub_path = f"{path}/{keyword}/{labels[i]}"
            base = {k: v for k, v in rest.items() if not k.startswith("_") or k not in remaining}
            if keyword == "anyOf" and unconstrained and _is_bare_ref(option):
                # Nothing to merge into a bare $ref branch: lower it as a reference (one rule per
                # target), so recursion through anyOf (Optional["Node"]) ends.
                merged_branches.append(option)
                continue
            atoms = [base, *self.atoms(option, sub_path, (), top=False)]
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
            if isinstance(lowered, dict) and _is_bare_ref(lowered):
                alts.append(self.value(lowered, f"{path}/{keyword}/{labels[i]}"))
            elif isinstance(lowered, dict):
                alts.append(self.lower_merged(lowered, f"{path}/{keyword}/{labels[i]}"))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    def evaluating_subsets(self, options: list[Any], path: str) -> tuple[list[Any], list[str]]:
        """anyOf next to ``unevaluated*``: one branch per set of matching branches.

        Every matching branch evaluates properties (items), so an instance is valid when the
        branches it matches, together, leave none unevaluated: the union over non-empty sets
        ``S`` of "matches all of ``S``, with ``S``'s evaluations". Branches that exclude each
        other by construction (if/then/else, dependencies) need no sets.
        """
        if exclusive_group(options):
            return options, [str(i) for i in range(len(options))]
        if len(options) > MAX_EVALUATING_BRANCHES:
            self.refuse(
                "unevaluatedProperties",
                path,
                f"next to an anyOf of more than {MAX_EVALUATING_BRANCHES} branches, whose"
                " evaluated properties depend on which branches match",
                "use oneOf (one matching branch), fewer branches, or pass strict=False",
            )
            return options, [str(i) for i in range(len(options))]
        subsets = [
            combo
            for size in range(1, len(options) + 1)
            for combo in itertools.combinations(range(len(options)), size)
        ]
        expanded = [
            options[c[0]] if len(c) == 1 else {"allOf": [options[i] for i in c]} for c in subsets
        ]
        self.keep.append(expanded)
        return expanded, [",".join(map(str, c)) for c in subsets]

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
                "enum must be an array",
                keyword="enum",
                path=path,
                code="schema-malformed",
                hint='list the allowed values: "enum": [...]',
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
                scalars.append(self.scalar_texts(value, integer_only="number" not in types))
        alts = [*containers]
        if scalars:
            alts.append(self.terminal(path, Alt(tuple(scalars)), "enum"))
        return simplify(Alt(tuple(alts), origin=self.origin(path)))

    def scalar_ok(self, value: Any, schema: dict[str, Any], path: str) -> bool:
        if isinstance(value, str):
            return char_matches(self.string_chars(schema, path), value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            integer = "number" not in type_set({k: v for k, v in schema.items() if k != "enum"})
            return self.number_ok(value, schema, path, integer=integer)
        return True

    def constant(self, value: Any) -> Expr:
        if isinstance(value, dict):
            if not value:
                return Seq((Lit(b"{"), self.ws, Lit(b"}")))
            if self.key_order == "any" and self.bounded("#/const", len(value), False):
                pairs: list[tuple[Expr, bool]] = [
                    (Seq((Lit(_json_literal(k)), self.colon, self.constant(v))), True)
                    for k, v in value.items()
                ]
                content = any_order_members(self, "#/const", pairs, 0, None)
                return Seq((Lit(b"{"), self.ws, content, self.ws, Lit(b"}")))
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
        return self.scalar_texts(value)

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
    spellings: Spellings = "all",
    formats: FormatMode = "assert",
    key_order: KeyOrder = "schema",
) -> Lowered:
    """Lower ``schema``; with ``explain=True`` refusals are recorded instead of raised.

    ``validator`` names a validator that runs after decoding anyway (``"Pydantic"``); the
    constraints it checks itself (``uniqueItems``, unknown formats) are then deferred to it.
    ``spellings``, ``formats`` and ``key_order`` are described in :mod:`.base`.
    """
    check_option("spellings", spellings, SPELLINGS)
    check_option("formats", formats, FORMAT_MODES)
    check_option("key_order", key_order, KEY_ORDERS)
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as exc:
            raise SchemaError(
                f"schema text is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                keyword="schema",
                path="#",
                code="schema-malformed",
                hint="pass a dict, a bool, or the schema as JSON text",
            ) from None
    mode: Mode = "explain" if explain else ("strict" if strict else "relaxed")
    lowering = _Lowering(
        schema,
        mode=mode,
        layout=whitespace_of(whitespace),
        resources=resources,
        source=source,
        validator=validator,
        spellings=spellings,
        formats=formats,
        key_order=key_order,
    )
    limit = sys.getrecursionlimit()  # raised only inside the try, so always restored
    sys.setrecursionlimit(max(limit, 20_000))
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
    except UnsupportedSchemaError:
        if not explain:
            raise
        grammar = None
    finally:
        sys.setrecursionlimit(limit)
    return Lowered(grammar, lowering.verdicts)


def _shown(value: Any) -> str:
    """A short JSON rendering of a malformed value, for messages."""
    try:
        text = json.dumps(value, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _historic(dialect: object) -> bool:
    """Whether ``$schema`` names a draft before 2020-12 (whose keywords differ)."""
    return (
        isinstance(dialect, str)
        and "json-schema.org" in dialect
        and "2020-12" not in dialect
        and "next" not in dialect
    )


def _is_bare_ref(schema: object) -> bool:
    """A schema that is only a ``$ref`` (annotations aside)."""
    if not isinstance(schema, dict) or "$ref" not in schema:
        return False
    return all(k == "$ref" or k in _ANNOTATIONS for k in schema)


_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)

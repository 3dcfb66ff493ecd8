"""JSON Schema lowered to the IR: every keyword enforced exactly, refused by name, or deferred.

The grammar is over the JSON text. Scalars (strings, numbers) become terminals whose languages are
exact (:mod:`.scalars` with :mod:`.strings`, :mod:`.numbers`, :mod:`.formats`, :mod:`.ecma`);
arrays and objects become rules (:mod:`.containers`). This module dispatches: ``$ref`` targets
are one rule each, so recursion costs nothing; ``allOf`` is merged at the schema level
(:mod:`.merge`); ``anyOf`` is an alternation; ``oneOf`` one too, where its branches are provably
disjoint or each can exclude the others exactly; ``not`` becomes exclusions (:mod:`.negation`,
:mod:`.combinators`).
What cannot be enforced exactly is refused in strict mode and, with ``strict=False``, left to a
validator and recorded on the grammar (:class:`DeferredCheck`). :mod:`.state` holds the state;
:mod:`.node` parses each schema object once into a typed node, as :mod:`.keywords` says.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from typedgen.errors import (
    SchemaError,
    UnsupportedSchemaError,
)
from typedgen.frontends.jsonschema import numbers
from typedgen.frontends.jsonschema.anyorder import any_order_members
from typedgen.frontends.jsonschema.charmatch import char_matches
from typedgen.frontends.jsonschema.combinators import Combinators
from typedgen.frontends.jsonschema.containers import Containers
from typedgen.frontends.jsonschema.keywords import (
    ANNOTATIONS,
    JSON_TYPES,
    KEYWORDS,
    UNKNOWN_REASON,
)
from typedgen.frontends.jsonschema.layout import WhitespaceSpec, whitespace_of
from typedgen.frontends.jsonschema.merge import merge
from typedgen.frontends.jsonschema.node import MISSING, Node, value_key, value_types
from typedgen.frontends.jsonschema.scalars import Scalars
from typedgen.frontends.jsonschema.state import (
    _EMPTY,
    _MAX_DEPTH,
    _STRUCTURAL,
    _VOID,
    EXTRA_KEYS,
    FORMAT_MODES,
    KEY_ORDERS,
    SPELLINGS,
    ExtraKeys,
    FormatMode,
    KeyOrder,
    Lowered,
    LoweringState,
    Mode,
    Spellings,
    Status,
    Verdict,
    _json_literal,
    check_option,
)
from typedgen.frontends.jsonschema.strings import ANY_CHAR, encode
from typedgen.ir.grammar import Grammar, Rule, rule_with
from typedgen.ir.nodes import Alt, Expr, Lit, Ref, Repeat, Seq
from typedgen.ir.passes import simplify
from typedgen.ir.passes.rewrite import prune_unreachable, transform
from typedgen.ir.passes.validate import productive_rules

__all__ = ["Lowered", "Lowering", "Status", "Verdict", "lower_schema"]


class Lowering:
    """The dispatch: references, merges, types, enums; its parts write scalars, containers and
    combinators into the shared state."""

    def __init__(self, state: LoweringState) -> None:
        self.state = state
        self.scalars = Scalars(state)
        self.containers = Containers(state, self.scalars, self)
        self.combinators = Combinators(state, self)

    # -- entry -------------------------------------------------------------------------------

    def run(self) -> Grammar:
        root = self.value(self.state.root, "#")
        start = "root" if "root" not in self.state.rules else self.state.name_for("#/root")
        self.state.rules[start] = Rule(start, root, origin=self.state.origin("#"))
        return self.finish(start)

    def finish(self, start: str) -> Grammar:
        rules = list(self.state.rules.values())
        probe = Grammar(rules, start, validate=False)
        alive = productive_rules(probe)
        if start not in alive:
            raise SchemaError(
                "no JSON value satisfies this schema",
                keyword="$schema" if not isinstance(self.state.root, dict) else "schema",
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
        return Grammar(
            kept, start, origin=self.state.origin("#"), deferred=tuple(self.state.deferred)
        )

    # -- schema dispatch ---------------------------------------------------------------------

    def value(self, schema: Any, path: str) -> Expr:
        """The JSON text of every instance valid against ``schema``."""
        if schema is True:
            self.state.note(path, "true", "grammar", "any JSON value")
            return self.any_value()
        if schema is False:
            self.state.note(path, "false", "grammar", "no value")
            return _VOID
        if not isinstance(schema, dict):
            raise SchemaError(
                f"a schema must be an object or a boolean, not {_shown(schema)}",
                keyword="schema",
                path=path,
                code="schema-malformed",
                hint="write {} (anything), false (nothing) or an object of keywords",
            )
        self.state.shapes.check(schema, path)  # reached through an unusual $ref: not checked yet
        if ("$ref" in schema and len(schema) == 1) or (
            "$ref" in schema and set(schema) - {"$ref"} <= ANNOTATIONS
        ):
            return self.ref(schema, path)
        for dyn in ("$dynamicRef", "$recursiveRef"):
            if dyn in schema:  # refused in every mode: the rest would be lowered without it
                if self.state.mode == "explain":
                    self.state.note(path, dyn, "refused", KEYWORDS[dyn].reason)
                raise self.state.resolver.refuse_dynamic(dyn, path)
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
        self.state.depth += 1
        try:
            if self.state.depth > _MAX_DEPTH:
                raise UnsupportedSchemaError(
                    f"the schema nests more than {_MAX_DEPTH} levels (recursion through allOf?)",
                    keyword="allOf",
                    path=path,
                    hint="give the recursive part a $ref of its own",
                )
            return self.lower_merged(self.flatten(schema, path), path)
        finally:
            self.state.depth -= 1

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
            elif isinstance(item, dict) and self.state.resolver.is_indexed(item):
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
        name = self.state.ref_rules.get(key)
        if name is None:
            rule_path = self.state.resolver.pointer_of(schema, path)
            name = self.state.name_for(rule_path)
            self.state.ref_rules[key] = name
            self.state.keep.append(schema)
            self.state.rules[name] = Rule(name, _VOID, origin=self.state.origin(rule_path))
            body = build()
            self.state.rules[name] = Rule(name, body, origin=self.state.origin(rule_path))
        return Ref(name, origin=self.state.origin(path))

    def ref(self, holder: Mapping[str, Any], path: str) -> Expr:
        target = self.state.resolver.resolve(holder["$ref"], holder, path)
        self.state.note(path, "$ref", "grammar", str(holder["$ref"]))
        if isinstance(target, bool):
            return self.value(target, path)
        target_path = self.state.resolver.pointer_of(target, path)
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
        self.state.shapes.check(schema, path)
        out: list[Any] = []
        own = self.state.parse(schema)
        if not top and (own.unevaluated is not MISSING or own.unevaluated_items is not MISSING):
            refused = [
                (keyword, "an unevaluated keyword inside allOf, anyOf, oneOf or $ref")
                for keyword, value in (
                    ("unevaluatedProperties", own.unevaluated),
                    ("unevaluatedItems", own.unevaluated_items),
                )
                if value is not MISSING
            ]
            own = own.copy(
                unevaluated=MISSING,
                unevaluated_items=MISSING,
                refused=[*(own.refused or []), *refused],
            )
        out.append(own)
        if "$ref" in schema:
            target = self.state.resolver.resolve(schema["$ref"], schema, path)
            if id(target) in stack:
                raise UnsupportedSchemaError(
                    f"$ref {schema['$ref']!r} recurses into itself inside allOf or next to"
                    " sibling keywords",
                    keyword="$ref",
                    path=path,
                    hint="move the sibling keywords into the referenced schema",
                )
            self.state.note(path, "$ref", "grammar", str(schema["$ref"]))
            target_path = self.state.resolver.pointer_of(target, path)
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
            self.state.note(path, "allOf", "grammar", "merged as an intersection")
            for i, sub in enumerate(all_of):
                out.extend(self.atoms(sub, f"{path}/allOf/{i}", stack, top=False))
        return out

    def flatten(self, schema: dict[str, Any], path: str) -> Node | bool:
        atoms = self.atoms(schema, path, ())
        if any(a is False for a in atoms):
            return False
        merged = merge(atoms, path)
        self.state.keep.append(merged)
        return merged

    # -- merged schemas ----------------------------------------------------------------------

    def lower_merged(self, schema: Node | bool, path: str) -> Expr:
        """The JSON text of a merged node: its keywords without effect noted (or refused, as
        the registry says), its ``not``s folded in, its ``anyOf``/``oneOf`` groups expanded."""
        if isinstance(schema, bool):
            return self.value(schema, path)
        if schema.never:
            return _VOID
        for keyword in schema.annotations:
            self.state.note(path, keyword, "ignored", KEYWORDS[keyword].reason)
        for keyword in schema.other or []:
            self.unknown(keyword, path)
        for keyword, value in schema.refused or []:
            self.state.refuse(keyword, path, f"{value} cannot be enforced exactly", "drop it")
        if schema.nots is not None:
            schema = self.combinators.negate(schema, path)
            if schema.never:
                return _VOID
        for keyword in ("minContains", "maxContains"):
            if keyword in schema.bounds and schema.contains is None:
                self.state.note(path, keyword, "ignored", "has no effect without contains")
        if schema.any_ofs or schema.one_ofs:
            return self.combinators.branches(schema, path)
        return self.typed(schema, path)

    def excluded(self, value: Any, schema: Node) -> bool:
        """Whether a ``not`` excludes this enum value."""
        if value_key(value) in {value_key(v) for v in schema.x_values or []}:
            return True
        if isinstance(value, int | float) and not isinstance(value, bool):
            if schema.x_integer and float(value).is_integer():
                return True
            for k in schema.x_multiples or []:
                if float(value).is_integer() and int(value) % k == 0:
                    return True
        return False

    def unknown(self, keyword: str, path: str) -> None:
        """A keyword without an effect here: refused where the registry says so, else noted."""
        entry = KEYWORDS.get(keyword)
        if entry is not None and entry.status == "refused":
            self.state.refuse(keyword, path, entry.reason, "drop it")
        elif entry is not None:  # then / else without if
            self.state.note(path, keyword, "ignored", "has no effect without if")
        else:
            self.state.note(path, keyword, "ignored", UNKNOWN_REASON)

    # -- types -------------------------------------------------------------------------------

    def typed(self, schema: Node, path: str) -> Expr:
        """The JSON text of a merged node without ``anyOf``/``oneOf`` groups, type by type."""
        declared = schema.types
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
            self.state.note(path, "type", "grammar", ", ".join(names))
        types = schema.type_set()
        if schema.enum is not None:
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
            alts.append(self.state.terminal(path, Alt(tuple(flags)), "bool"))
        if "number" in types:
            alts.append(self.scalars.number(schema, path, integer=False))
        elif "integer" in types:
            alts.append(self.scalars.number(schema, path, integer=True))
        if "string" in types:
            alts.append(self.scalars.string(schema, path))
        if "array" in types:
            alts.append(self.containers.array(schema, path))
        if "object" in types:
            alts.append(self.containers.obj(schema, path))
        return simplify(Alt(tuple(alts), origin=self.state.origin(path)))

    # -- enum / const ------------------------------------------------------------------------

    def enum(self, schema: Node, types: set[str], path: str) -> Expr:
        values = schema.enum
        if not isinstance(values, list):
            raise SchemaError(
                "enum must be an array",
                keyword="enum",
                path=path,
                code="schema-malformed",
                hint='list the allowed values: "enum": [...]',
            )
        self.state.note(path, "enum", "grammar", f"{len(values)} value(s)")
        scalars: list[Expr] = []
        containers: list[Expr] = []
        seen: set[str] = set()
        for value in values:
            key = value_key(value)
            if key in seen or not (value_types(value) & types) or self.excluded(value, schema):
                continue
            seen.add(key)
            if isinstance(value, dict | list):
                if _STRUCTURAL & schema.present():
                    self.state.refuse(
                        "enum",
                        path,
                        "object/array values combined with structural keywords",
                        "list only values that satisfy the other keywords",
                    )
                containers.append(self.constant(value))
            elif self.scalar_ok(value, schema, path):
                scalars.append(self.scalars.scalar_texts(value, integer_only="number" not in types))
        alts = [*containers]
        if scalars:
            alts.append(self.state.terminal(path, Alt(tuple(scalars)), "enum"))
        return simplify(Alt(tuple(alts), origin=self.state.origin(path)))

    def scalar_ok(self, value: Any, schema: Node, path: str) -> bool:
        if isinstance(value, str):
            return char_matches(self.scalars.string_chars(schema, path), value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            integer = "number" not in schema.type_set(with_enum=False)
            return self.scalars.number_ok(value, schema, path, integer=integer)
        return True

    def constant(self, value: Any) -> Expr:
        if isinstance(value, dict):
            if not value:
                return Seq((Lit(b"{"), self.state.ws, Lit(b"}")))
            if self.state.key_order == "any" and self.containers.bounded(
                "#/const", len(value), False
            ):
                pairs: list[tuple[Expr, bool]] = [
                    (Seq((Lit(_json_literal(k)), self.state.colon, self.constant(v))), True)
                    for k, v in value.items()
                ]
                content = any_order_members(self.state, "#/const", pairs, 0, None)
                return Seq((Lit(b"{"), self.state.ws, content, self.state.ws, Lit(b"}")))
            members: list[Expr] = []
            for i, (k, v) in enumerate(value.items()):
                sep: Expr = self.state.comma if i else _EMPTY
                members.append(
                    Seq((sep, Lit(_json_literal(k)), self.state.colon, self.constant(v)))
                )
            return Seq((Lit(b"{"), self.state.ws, *members, self.state.ws, Lit(b"}")))
        if isinstance(value, list):
            if not value:
                return Seq((Lit(b"["), self.state.ws, Lit(b"]")))
            items = [
                Seq((self.state.comma if i else _EMPTY, self.constant(v)))
                for i, v in enumerate(value)
            ]
            return Seq((Lit(b"["), self.state.ws, *items, self.state.ws, Lit(b"]")))
        return self.scalars.scalar_texts(value)

    # -- any value ---------------------------------------------------------------------------

    def any_value(self) -> Expr:
        if "json_value" in self.state.rules:
            return Ref("json_value")
        ref = Ref("json_value")
        self.state.rules["json_value"] = Rule("json_value", _VOID)
        string = self.state.terminal(
            "#/json", Seq((Lit(b'"'), encode(Repeat(ANY_CHAR, 0, None)), Lit(b'"'))), "string"
        )
        number = self.state.terminal("#/json", numbers.number_range(None, None), "number")
        member = Seq((string, self.state.colon, ref))
        obj = Seq(
            (
                Lit(b"{"),
                self.state.ws,
                Alt(
                    (
                        _EMPTY,
                        Seq(
                            (
                                member,
                                Repeat(Seq((self.state.comma, member)), 0, None),
                                self.state.ws,
                            )
                        ),
                    )
                ),
                Lit(b"}"),
            )
        )
        arr = Seq(
            (
                Lit(b"["),
                self.state.ws,
                Alt(
                    (
                        _EMPTY,
                        Seq((ref, Repeat(Seq((self.state.comma, ref)), 0, None), self.state.ws)),
                    )
                ),
                Lit(b"]"),
            )
        )
        boolean = self.state.terminal("#/json", Alt((Lit(b"true"), Lit(b"false"))), "bool")
        body = Alt((obj, arr, string, number, boolean, Lit(b"null")))
        self.state.rules["json_value"] = Rule(
            "json_value", simplify(body), origin=self.state.origin("#")
        )
        return ref


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
    extra_keys: ExtraKeys = "schema",
) -> Lowered:
    """Lower ``schema``; with ``explain=True`` refusals are recorded instead of raised.

    ``validator`` names a validator that runs after decoding anyway (``"Pydantic"``); the
    constraints it checks itself (``uniqueItems``, unknown formats) are then deferred to it.
    ``spellings``, ``formats``, ``key_order`` and ``extra_keys`` are described in :mod:`.state`.
    """
    check_option("spellings", spellings, SPELLINGS)
    check_option("formats", formats, FORMAT_MODES)
    check_option("key_order", key_order, KEY_ORDERS)
    check_option("extra_keys", extra_keys, EXTRA_KEYS)
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
    state = LoweringState(
        schema,
        mode=mode,
        layout=whitespace_of(whitespace),
        resources=resources,
        source=source,
        validator=validator,
        spellings=spellings,
        formats=formats,
        key_order=key_order,
        extra_keys=extra_keys,
    )
    limit = sys.getrecursionlimit()  # raised only inside the try, so always restored
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        grammar = Lowering(state).run()
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
    return Lowered(grammar, state.verdicts)


def _shown(value: Any) -> str:
    """A short JSON rendering of a malformed value, for messages."""
    try:
        text = json.dumps(value, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."

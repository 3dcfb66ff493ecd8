"""``not``, ``anyOf`` and ``oneOf`` on merged nodes: exclusions, alternations, exclusive branches.

``not`` is folded into the node it sits in (:func:`.negation.apply_not`), spread over several
keywords by De Morgan, or unfolded (``not not A`` is ``A``, ``not (A or B)`` is ``not A and not
B``). ``anyOf`` and ``oneOf`` groups become one alternation over the product of their branches,
each merged with the rest of the node; ``oneOf`` branches are kept disjoint (provably, or by
making each exclude the others).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Protocol

from typedgen.errors import SchemaError, UnsupportedSchemaError
from typedgen.frontends.jsonschema import negation
from typedgen.frontends.jsonschema.keywords import ANNOTATIONS
from typedgen.frontends.jsonschema.merge import MAX_EVALUATING_BRANCHES, exclusive_group, merge
from typedgen.frontends.jsonschema.negation import Unsupported, apply_not
from typedgen.frontends.jsonschema.node import MISSING, Node, value_key
from typedgen.frontends.jsonschema.state import _MAX_BRANCHES, LoweringState
from typedgen.ir.nodes import Alt, Expr
from typedgen.ir.passes import simplify

__all__ = ["PLAIN_ANNOTATIONS", "Combinators", "Dispatch", "is_bare_ref"]

PLAIN_ANNOTATIONS = frozenset(
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
"""The annotations that leave an ``anyOf`` branch a bare reference, lowered as the reference's
one rule (narrower than the registry's annotations: beside ``$defs`` or ``$id`` a ``$ref`` is a
schema of its own, merged)."""


def is_bare_ref(schema: object) -> bool:
    """A schema that is only a ``$ref`` (plain annotations aside)."""
    if not isinstance(schema, dict) or "$ref" not in schema:
        return False
    return all(k == "$ref" or k in PLAIN_ANNOTATIONS for k in schema)


class Dispatch(Protocol):
    """The parts of :class:`.lower.Lowering` the combinators recurse into."""

    def value(self, schema: Any, path: str) -> Expr:
        """The JSON text of every instance valid against ``schema``."""
        ...

    def flatten(self, schema: dict[str, Any], path: str) -> Node | bool:
        """``schema`` with its ``$ref`` and ``allOf`` merged into one node."""
        ...

    def atoms(
        self, schema: Any, path: str, stack: tuple[int, ...], *, top: bool = True
    ) -> list[Any]:
        """``schema`` as the nodes it intersects, or ``[False]``."""
        ...

    def lower_merged(self, schema: Node | bool, path: str) -> Expr:
        """The JSON text of a merged node."""
        ...

    def typed(self, schema: Node, path: str) -> Expr:
        """The JSON text of a merged node without pending ``anyOf`` / ``oneOf`` groups."""
        ...


class Combinators:
    """``not``, ``anyOf`` and ``oneOf`` of one lowering."""

    def __init__(self, state: LoweringState, dispatch: Dispatch) -> None:
        self.state = state
        self.dispatch = dispatch

    # -- not ---------------------------------------------------------------------------------

    def negate(self, schema: Node, path: str) -> Node:
        """``schema`` with its pending ``not``s folded in (as exclusions, or refused)."""
        state = self.state
        out = schema.copy(nots=None)
        pending = [(n, f"{path}/not") for n in schema.nots or []]
        while pending:
            negated, sub_path = pending.pop()
            spread = self.de_morgan(out, negated)
            if spread is not None:
                out = spread
                state.note(sub_path, "not", "grammar", "spread over its keywords (De Morgan)")
                continue
            flat = (
                self.dispatch.flatten(negated, sub_path) if isinstance(negated, dict) else negated
            )
            if isinstance(flat, Node):
                keys = flat.present() - ANNOTATIONS - {"unknown keywords"}
                if keys == {"not"} and len(flat.nots or []) == 1:  # not not A == A
                    for kw, given in (
                        ("unevaluatedProperties", out.unevaluated is not MISSING),
                        ("unevaluatedItems", out.unevaluated_items is not MISSING),
                    ):
                        if given:
                            state.refuse(
                                kw,
                                sub_path,
                                "next to a double not, whose subschema evaluates nothing",
                                "state the constraint without not, or pass strict=False",
                            )
                    inner = self.dispatch.atoms(
                        (flat.nots or [])[0], f"{sub_path}/not", (), top=False
                    )
                    if any(a is False for a in inner):
                        out.never = True
                        continue
                    out = merge([out, *inner], sub_path)
                    nots, out.nots = out.nots or [], None
                    pending.extend((n, f"{sub_path}/not/not") for n in nots)
                    continue
                if keys == {"anyOf"} and len(flat.any_ofs or []) == 1:  # not (A or B)
                    pending.extend(
                        (b, f"{sub_path}/anyOf/{i}") for i, b in enumerate((flat.any_ofs or [])[0])
                    )
                    continue
            try:
                apply_not(out, flat)
            except Unsupported as exc:
                state.refuse(
                    "not",
                    sub_path,
                    f"{exc} is not enforced by the grammar",
                    "negate a type, an enum/const, one required property or an integer"
                    " multipleOf; or pass strict=False",
                )
            else:
                state.note(sub_path, "not", "grammar", "folded into the schema as exclusions")
        state.keep.append(out)
        return out

    def de_morgan(self, out: Node, negated: Any) -> Node | None:
        """``not`` of a plain schema with several constraints: an anyOf of single negations.

        ``not {"properties": {"p": P}}`` becomes "an object with ``p`` whose value is not P".
        Returns the new node, or ``None`` where :func:`.negation.apply_not` takes over.
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
                extra = Node(
                    types=["object"],
                    required=[name],
                    properties={name: {"not": sub}},
                    neg_props=[name],  # named, but not evaluated (unevaluatedProperties)
                )
                merged = merge([out, extra], "#")
                self.state.keep.append(merged)
                return merged
            else:
                return out.copy(never=True)
        if not singles:
            return None
        spread = out.copy(any_ofs=[*(out.any_ofs or []), singles])
        self.state.keep.append(spread)
        return spread

    # -- anyOf / oneOf -----------------------------------------------------------------------

    def branches(self, schema: Node, path: str) -> Expr:
        """The alternation of every combination of ``schema``'s anyOf / oneOf branches."""
        state = self.state
        rest = schema.copy(any_ofs=None, one_ofs=None)
        groups: list[tuple[str, list[Any]]] = [("anyOf", g) for g in schema.any_ofs or []]
        groups += [("oneOf", g) for g in schema.one_ofs or []]
        total = math.prod(len(g) for _, g in groups)
        if total > _MAX_BRANCHES:
            state.refuse(
                "anyOf",
                path,
                f"{total} combined branches exceed the limit of {_MAX_BRANCHES}",
                "simplify the nested anyOf / oneOf",
            )
            return self.dispatch.typed(rest, path)
        keyword, options = groups[0]
        if not isinstance(options, list) or not options:
            raise SchemaError(
                f"{keyword} must be a non-empty array of schemas",
                keyword=keyword,
                path=path,
                code="schema-malformed",
                hint=f"list at least one schema, or drop {keyword}",
            )
        remaining_any = [g for k, g in groups[1:] if k == "anyOf"]
        remaining_one = [g for k, g in groups[1:] if k == "oneOf"]
        alts: list[Expr] = []
        merged_branches: list[Any] = []
        unconstrained = (
            not remaining_any
            and not remaining_one
            and all(k in PLAIN_ANNOTATIONS for k in rest.present())
        )
        labels = [str(i) for i in range(len(options))]
        evaluating = rest.unevaluated is not MISSING or rest.unevaluated_items is not MISSING
        if keyword == "anyOf" and evaluating:
            options, labels = self.evaluating_subsets(options, path)
        for i, option in enumerate(options):
            sub_path = f"{path}/{keyword}/{labels[i]}"
            if keyword == "anyOf" and unconstrained and is_bare_ref(option):
                # Nothing to merge into a bare $ref branch: lower it as a reference (one rule per
                # target), so recursion through anyOf (Optional["Node"]) ends.
                merged_branches.append(option)
                continue
            atoms = [rest, *self.dispatch.atoms(option, sub_path, (), top=False)]
            if any(a is False for a in atoms):
                merged_branches.append(False)
                continue
            branch = merge(atoms, sub_path)
            if remaining_any:
                branch.any_ofs = [*(branch.any_ofs or []), *remaining_any]
            if remaining_one:
                branch.one_ofs = [*(branch.one_ofs or []), *remaining_one]
            state.keep.append(branch)
            merged_branches.append(branch)
        if keyword == "oneOf":
            merged_branches = self.exactly_one(merged_branches, options, path)
        else:
            state.note(path, "anyOf", "grammar", "alternation")
        for i, lowered in enumerate(merged_branches):
            if isinstance(lowered, dict):  # a bare reference
                alts.append(self.dispatch.value(lowered, f"{path}/{keyword}/{labels[i]}"))
            elif isinstance(lowered, Node):
                alts.append(self.dispatch.lower_merged(lowered, f"{path}/{keyword}/{labels[i]}"))
        return simplify(Alt(tuple(alts), origin=state.origin(path)))

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
            self.state.refuse(
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
        self.state.keep.append(expanded)
        return expanded, [",".join(map(str, c)) for c in subsets]

    def exactly_one(self, branches: list[Any], options: list[Any], path: str) -> list[Any]:
        """oneOf's branches, each made to exclude the others where they may overlap."""
        live = [b for b in branches if isinstance(b, Node)]
        if all(_disjoint(a, b) for a, b in itertools.combinations(live, 2)):
            self.state.note(path, "oneOf", "grammar", "branches are disjoint")
            return branches
        rewritten: list[Any] = []
        for i, branch in enumerate(branches):
            if not isinstance(branch, Node):
                rewritten.append(branch)
                continue
            others = [o for j, o in enumerate(options) if j != i and branches[j] is not False]
            exclusive = self.probe_negations(branch, others, f"{path}/oneOf/{i}")
            if exclusive is None:
                self.state.refuse(
                    "oneOf",
                    path,
                    "its branches may overlap and the others cannot be excluded exactly",
                    "make the branches disjoint (a const/enum discriminator property, or"
                    " distinct types), use anyOf, or pass strict=False",
                )
                return branches
            rewritten.append(exclusive)
        self.state.note(path, "oneOf", "grammar", "each branch excludes the others")
        return rewritten

    def probe_negations(self, branch: Node, others: list[Any], path: str) -> Node | None:
        """``branch`` and not any of ``others``, or ``None`` if a negation is not exact."""
        state = self.state
        mode, n_verdicts, n_deferred = state.mode, len(state.verdicts), len(state.deferred)
        state.mode = "strict"
        try:
            return self.negate(branch.copy(nots=[*(branch.nots or []), *others]), path)
        except UnsupportedSchemaError:
            return None
        finally:
            state.mode = mode
            del state.verdicts[n_verdicts:]
            del state.deferred[n_deferred:]


def _disjoint(a: Node, b: Node) -> bool:
    """Whether no instance can satisfy both merged nodes (a sufficient check)."""
    ta, tb = a.type_set(), b.type_set()
    if not ta & tb:
        return True
    if a.enum is not None and b.enum is not None:
        if not {value_key(v) for v in a.enum} & {value_key(v) for v in b.enum}:
            return True
    if ta & tb <= {"object"} or ("object" in ta & tb and ta & tb - {"object"} == set()):
        pa, pb = a.properties or {}, b.properties or {}
        for name in set(a.required or []) & set(b.required or []):
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

"""The lowering's state and bookkeeping: rules, terminals, verdicts, deferred checks, options.

One :class:`LoweringState` per lowering, shared by its parts (:mod:`.lower` dispatches,
:mod:`.scalars` writes terminals, :mod:`.containers` writes object and array rules), which hold
it rather than inherit from it.
"""

import itertools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from typedgen.errors import (
    GrammarError,
    OptionError,
    SchemaError,
    UnsupportedFeatureError,
    UnsupportedSchemaError,
)
from typedgen.frontends.jsonschema.layout import Whitespace
from typedgen.frontends.jsonschema.node import Node, parse
from typedgen.frontends.jsonschema.resolve import Resolver
from typedgen.frontends.jsonschema.strings import encode_text
from typedgen.frontends.jsonschema.wellformed import SchemaShapes
from typedgen.ir.grammar import DeferredCheck, Grammar, Lexing, Rule
from typedgen.ir.nodes import Alt, Expr, Lit, Ref, Seq
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify

__all__ = [
    "EXTRA_KEYS",
    "FORMAT_MODES",
    "KEY_ORDERS",
    "SPELLINGS",
    "ExtraKeys",
    "FormatMode",
    "KeyOrder",
    "Lowered",
    "LoweringState",
    "Mode",
    "Spellings",
    "Status",
    "Verdict",
    "check_option",
]

Status = Literal["grammar", "validator", "refused", "ignored"]
Mode = Literal["strict", "relaxed", "explain"]
Spellings = Literal["all", "canonical"]
"""``all``: every text whose value the schema allows (``1.0`` and ``1e0`` for an integer, ``-0``,
leap seconds, quoted e-mail local parts); ``canonical``: one conventional spelling."""
FormatMode = Literal["assert", "annotate"]
"""``assert``: ``format`` is enforced; ``annotate``: ignored, as draft 2020-12 does by default."""
KeyOrder = Literal["schema", "any"]
"""``schema``: properties in the order the schema declares them; ``any``: any order, for closed
objects of at most ``MAX_ANY_ORDER`` properties (refused by name otherwise)."""
SPELLINGS: tuple[Spellings, ...] = ("all", "canonical")
FORMAT_MODES: tuple[FormatMode, ...] = ("assert", "annotate")
KEY_ORDERS: tuple[KeyOrder, ...] = ("schema", "any")
ExtraKeys = Literal["schema", "declared"]
"""``schema``: members beyond the declared properties as the schema says (allowed when
``additionalProperties`` is not given, as JSON Schema defines); ``declared``: an object that
declares properties and says nothing about others takes only its declared ones (what a model
should write; a subset of the valid instances, like ``spellings="canonical"``)."""
EXTRA_KEYS: tuple[ExtraKeys, ...] = ("schema", "declared")


def check_option(name: str, value: object, allowed: tuple[str, ...]) -> None:
    """Refuse an option value outside ``allowed`` before any lowering starts."""
    if value not in allowed:
        raise OptionError(
            f"{name}={value!r} is not one of {', '.join(map(repr, allowed))}",
            code="option-value",
            hint=f"pass {name}={allowed[0]!r} (the default) or {name}={allowed[1]!r}",
        )


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
        "propertyNames",
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
            hint="give a JSON number",
        )
    return Decimal(str(value))


def _count(schema: Node, keyword: str, path: str) -> int | None:
    value = schema.bounds.get(keyword)
    if value is None:
        return None
    if _is_bool(value) or not isinstance(value, int | float) or value < 0 or value != int(value):
        raise SchemaError(
            f"{keyword} must be a non-negative integer, not {json.dumps(value)}",
            keyword=keyword,
            path=path,
            code="schema-malformed",
            hint="give a count such as 0 or 3",
        )
    return int(value)


def _json_literal(value: Any) -> bytes:
    if isinstance(value, str):
        return b'"' + encode_text(value) + b'"'
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value)).encode()
    return json.dumps(value, allow_nan=False).encode()


class LoweringState:
    """Rules, terminals, verdicts and deferred checks of one lowering; refusal by mode."""

    def __init__(
        self,
        schema: Any,
        *,
        mode: Mode,
        layout: Whitespace,
        resources: Mapping[str, Any] | None,
        source: str,
        validator: str | None,
        spellings: Spellings = "all",
        formats: FormatMode = "assert",
        key_order: KeyOrder = "schema",
        extra_keys: ExtraKeys = "schema",
    ) -> None:
        self.root = schema
        self.extra_keys = extra_keys
        self.mode = mode
        self.spellings = spellings
        self.formats = formats
        self.key_order = key_order
        self.layout = layout
        self.source = source
        self.validator = validator
        self.shapes = SchemaShapes()
        self.shapes.check(schema, "#")
        for uri, document in (resources or {}).items():
            self.shapes.check(document, f"{uri}#")
        self.resolver = Resolver(schema, resources)
        self.rules: dict[str, Rule] = {}
        self.terminals: dict[Expr, str] = {}
        self.ref_rules: dict[int | tuple[int, ...], str] = {}
        self.keep: list[Any] = []
        self.verdicts: list[Verdict] = []
        self.deferred: list[DeferredCheck] = []
        self.ws = layout.between()
        self.colon = Seq((Lit(b":"), layout.after_colon()))
        self.comma = Seq((Lit(b","), self.ws))
        self.depth = 0
        self.parsed: dict[int, tuple[Any, Node]] = {}

    def parse(self, schema: dict[str, Any]) -> Node:
        """The node of one schema object, parsed once (the object is kept alive with it, so
        its id is not reused)."""
        found = self.parsed.get(id(schema))
        if found is None:
            found = self.parsed[id(schema)] = (schema, parse(schema))
        return found[1]

    def fractionless(self) -> bool:
        """Drafts 3 and 4 (by the root's ``$schema``): an integer has no fraction or exponent,
        so ``1.0`` is a number but not an integer there."""
        dialect = self.root.get("$schema") if isinstance(self.root, dict) else None
        return isinstance(dialect, str) and ("draft-04" in dialect or "draft-03" in dialect)

    # -- bookkeeping -------------------------------------------------------------------------

    def origin(self, path: str) -> Origin:
        return Origin(self.source, path=path)

    def note(self, path: str, keyword: str, status: Status, detail: str = "") -> None:
        self.verdicts.append(Verdict(path, keyword, status, detail))

    def refuse(self, keyword: str, path: str, message: str, hint: str) -> None:
        """Raise in strict mode; otherwise leave the keyword to the validator and go on.

        ``keyword`` is one of :data:`.keywords.KEYWORDS` that the registry says is refused,
        or enforced with limits (tests/frontends/jsonschema/test_keywords.py holds them to it).
        """
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

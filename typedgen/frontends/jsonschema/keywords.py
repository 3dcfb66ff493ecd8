"""The keyword registry: every JSON Schema keyword the frontend knows, and what becomes of it.

One table decides, for each keyword, whether the grammar enforces it (``enforced``, with the
conditions under which it is refused all the same), whether it never constrains the text
(``annotation``), or whether it is refused outright (``refused``, with the reason). The shape
check (:mod:`.wellformed`), the reference resolver (:mod:`.resolve`), the parse into typed nodes
(:mod:`.node`), ``typedgen.explain`` and docs/json-schema.md (:mod:`.reference`) all read it,
so what the documentation says and what the code does come from the same entries. A keyword
that is not in the table is not a keyword of draft 2020-12 (or of the older drafts typedgen
reads): an annotation, listed as such by ``explain``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ANNOTATIONS",
    "JSON_TYPES",
    "KEYWORDS",
    "REFUSED",
    "ROWS",
    "SCHEMA_ARRAYS",
    "SCHEMA_MAPS",
    "SCHEMA_SINGLES",
    "UNKNOWN_REASON",
    "Keyword",
    "Row",
    "Shape",
    "Status",
]

JSON_TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")

Status = Literal["enforced", "annotation", "refused"]
Shape = Literal[
    "schema",
    "schema_array",
    "schema_map",
    "items",
    "prefix_items",
    "dependencies",
    "dependent_required",
    "strings",
    "type",
    "count",
    "bound",
    "exclusive",
    "multiple_of",
    "string",
    "boolean",
    "enum",
    "const",
]
"""What the meta-schema says a keyword's value is; :mod:`.wellformed` checks it before use."""
Children = Literal["schema", "schemas", "map", "schema_or_schemas"]
"""Where a keyword's value holds subschemas (``$ref`` targets are indexed through these)."""

UNKNOWN_REASON = "not a keyword of draft 2020-12 (an annotation: constrains nothing)"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the documentation's table of enforced keywords."""

    label: str
    how: str


@dataclass(frozen=True, slots=True)
class Keyword:
    """One keyword: its status, why, where its subschemas are, and how its value is checked.

    ``reason`` says why an annotation constrains nothing or why a refused keyword is refused;
    ``limits`` lists when an enforced keyword is refused all the same (strict mode), each as
    the documentation states it; ``row`` names its line in the documentation's table.
    """

    name: str
    status: Status
    reason: str = ""
    row: str = ""
    limits: tuple[str, ...] = ()
    shape: Shape | None = None
    children: Children | None = None


_ROWS = [
    Row(
        "`type` (and lists), `enum`, `const`",
        'exact; `1` and `1.0` are one value (and, with `spellings="all"`, one accepted text'
        " each: `1`, `1.0`, `1e0`, `10E-1`); enum values are checked against sibling keywords",
    ),
    Row(
        "`properties`, `required`, `additionalProperties` (bool or schema),"
        " `patternProperties`, `propertyNames`",
        'exact; named properties in schema order (or any order: `key_order="any"`), then the'
        " others; keys that another rule names never count as additional",
    ),
    Row(
        "`minProperties`, `maxProperties`",
        "exact up to 64; only named properties count toward a minimum (additional keys could"
        " repeat a name)",
    ),
    Row(
        "`items`, `prefixItems` (and draft-7 array `items` / `additionalItems`), `minItems`,"
        " `maxItems`",
        "exact",
    ),
    Row(
        "`unevaluatedProperties`, `unevaluatedItems`",
        "as `additionalProperties` / `items` of the schema being lowered, after merging its"
        " `allOf`, `$ref` and `if`/`then`/`else`; next to an `anyOf`, one branch per set of"
        " matching branches (up to 4 branches), since every matching branch evaluates",
    ),
    Row(
        "`anyOf`",
        "alternation",
    ),
    Row(
        "`oneOf`",
        "alternation where the branches are provably disjoint (distinct types, disjoint enums,"
        " or a required discriminator property with disjoint constants); otherwise each branch"
        " is made to exclude the others when every such `not` is exact (below); otherwise"
        " refused",
    ),
    Row(
        "`not`",
        "exact for: `{}`/`true`/`false`, `type`, `enum`/`const` of scalars (every spelling of an"
        " excluded number), one `required` name, integer `multipleOf`, `pattern`, the bounds"
        " (`not minLength n` is `maxLength n-1`, `not minimum m` is `exclusiveMaximum m`...),"
        " `properties` (an object with the key whose value is `not P`), and through `anyOf`,"
        " `not` and plain schemas with several keywords (De Morgan)",
    ),
    Row(
        "`if` / `then` / `else`",
        "`anyOf[(if and then), (not if and else)]`, exact when `not if` is",
    ),
    Row(
        "`dependentRequired`, `dependentSchemas`, `dependencies`",
        "each as `anyOf[non-object, object without the key, object with the key and what it"
        " requires]`",
    ),
    Row(
        "`contains`, `minContains`, `maxContains`",
        "elements counted one by one (with `maxContains` the other elements must be exact"
        " non-matches); not together with `prefixItems`",
    ),
    Row(
        "`allOf`",
        "merged at the schema level as an intersection (types intersect, bounds tighten,"
        " properties and items merge per name/position, `multipleOf` takes the lcm)",
    ),
    Row(
        "`$ref` (with `$defs`, `definitions`, `$id`, `$anchor`)",
        "one rule per target, so recursion is free; other documents come from"
        " `resources={uri: schema}` (nothing is fetched)",
    ),
    Row(
        "`minLength`, `maxLength`",
        "counted in characters (code points), as JSON Schema does",
    ),
    Row(
        "`pattern`",
        "ECMA-262 (Unicode mode), matched anywhere unless anchored, as JSON Schema says",
    ),
    Row(
        "`format`",
        "`date-time`, `date`, `time` (RFC 3339, with real calendars and leap years),"
        " `duration`, `email`, `idn-email`, `hostname`, `ipv4`, `ipv6`, `uuid`, `uri`,"
        " `uri-reference`, `iri`, `iri-reference`, `uri-template`, `json-pointer`,"
        " `relative-json-pointer`, `regex` (see `typedgen/frontends/jsonschema/formats.py` for"
        " each one's language per `spellings`); `int32`/`int64` on integers as ranges;"
        ' `formats="annotate"` ignores `format` (draft 2020-12\'s default)',
    ),
    Row(
        "`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`",
        "exact digit grammars for integers and decimals, with every spelling of the value"
        " (below); draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` as well",
    ),
    Row(
        "`multipleOf`",
        '`spellings="canonical"`: integer divisors of the form 2^a·5^b·{1,3,7,21} for any'
        " range, any integer divisor on ranges with at most 256 multiples;"
        ' `spellings="all"`: ranges with at most 32 multiples (every spelling of each),'
        " refused otherwise",
    ),
]
ROWS: dict[str, Row] = {row.label: row for row in _ROWS}
"""The documentation's table rows, in order, by label."""


def _row(prefix: str) -> str:
    """The label of the row that starts with ``prefix`` (rows are named by their label)."""
    (label,) = [label for label in ROWS if label.startswith(prefix)]
    return label


_ANY_OF_LIMIT = (
    "more than 256 branches once nested `anyOf` / `oneOf` (and `if`, dependencies) multiply"
)
_UNEVALUATED_INSIDE = "inside `allOf`, `anyOf`, `oneOf` or `$ref` (below the schema being lowered)"

_ENFORCED = [
    Keyword("type", "enforced", row=_row("`type`"), shape="type"),
    Keyword(
        "enum",
        "enforced",
        row=_row("`type`"),
        limits=("object or array values next to object or array keywords",),
        shape="enum",
    ),
    Keyword(
        "const",
        "enforced",
        row=_row("`type`"),
        shape="const",
    ),
    Keyword(
        "properties",
        "enforced",
        row=_row("`properties`"),
        limits=('`key_order="any"` on more than 8 properties (strict mode)',),
        shape="schema_map",
        children="map",
    ),
    Keyword("required", "enforced", row=_row("`properties`"), shape="strings"),
    Keyword(
        "additionalProperties",
        "enforced",
        row=_row("`properties`"),
        limits=(
            '`key_order="any"` on an open object (strict mode; schema order with `strict=False`)',
        ),
        shape="schema",
        children="schema",
    ),
    Keyword(
        "patternProperties",
        "enforced",
        row=_row("`properties`"),
        limits=(
            "more than four patterns in one object",
            "patterns that are not exact (as `pattern`)",
        ),
        shape="schema_map",
        children="map",
    ),
    Keyword(
        "propertyNames",
        "enforced",
        row=_row("`properties`"),
        limits=(
            "keywords other than `type`, `pattern`, `format`, `minLength`, `maxLength`, `enum`",
        ),
        shape="schema",
        children="schema",
    ),
    Keyword(
        "minProperties",
        "enforced",
        row=_row("`minProperties`"),
        limits=(
            "counts above 64",
            "a minimum that only additional properties could make up",
        ),
        shape="count",
    ),
    Keyword(
        "maxProperties",
        "enforced",
        row=_row("`minProperties`"),
        limits=("counts above 64",),
        shape="count",
    ),
    Keyword(
        "items",
        "enforced",
        row=_row("`items`"),
        shape="items",
        children="schema_or_schemas",
    ),
    Keyword(
        "prefixItems",
        "enforced",
        row=_row("`items`"),
        shape="prefix_items",
        children="schemas",
    ),
    Keyword(
        "additionalItems",
        "enforced",
        row=_row("`items`"),
        shape="schema",
        children="schema",
    ),
    Keyword("minItems", "enforced", row=_row("`items`"), shape="count"),
    Keyword("maxItems", "enforced", row=_row("`items`"), shape="count"),
    Keyword(
        "unevaluatedProperties",
        "enforced",
        row=_row("`unevaluatedProperties`"),
        limits=(
            _UNEVALUATED_INSIDE,
            "next to an `anyOf` of more than 4 branches",
            "next to a negated property or a double `not`",
        ),
        shape="schema",
        children="schema",
    ),
    Keyword(
        "unevaluatedItems",
        "enforced",
        row=_row("`unevaluatedProperties`"),
        limits=(
            _UNEVALUATED_INSIDE,
            "next to `contains` without `items`",
            "next to a double `not`",
        ),
        shape="schema",
        children="schema",
    ),
    Keyword(
        "anyOf",
        "enforced",
        row="`anyOf`",
        limits=(_ANY_OF_LIMIT,),
        shape="schema_array",
        children="schemas",
    ),
    Keyword(
        "oneOf",
        "enforced",
        row="`oneOf`",
        limits=("overlapping branches whose others cannot be excluded exactly",),
        shape="schema_array",
        children="schemas",
    ),
    Keyword(
        "not",
        "enforced",
        row="`not`",
        limits=("anything outside the forms above",),
        shape="schema",
        children="schema",
    ),
    Keyword("if", "enforced", row=_row("`if`"), shape="schema", children="schema"),
    Keyword("then", "enforced", row=_row("`if`"), shape="schema", children="schema"),
    Keyword("else", "enforced", row=_row("`if`"), shape="schema", children="schema"),
    Keyword(
        "dependentRequired",
        "enforced",
        row=_row("`dependentRequired`"),
        shape="dependent_required",
    ),
    Keyword(
        "dependentSchemas",
        "enforced",
        row=_row("`dependentRequired`"),
        shape="schema_map",
        children="map",
    ),
    Keyword(
        "dependencies",
        "enforced",
        row=_row("`dependentRequired`"),
        shape="dependencies",
        children="map",
    ),
    Keyword(
        "contains",
        "enforced",
        row=_row("`contains`"),
        limits=(
            "together with `prefixItems`, or several `contains` in one schema",
            "counts too large to track (more than 4,096 states of items and matches)",
        ),
        shape="schema",
        children="schema",
    ),
    Keyword("minContains", "enforced", row=_row("`contains`"), shape="count"),
    Keyword("maxContains", "enforced", row=_row("`contains`"), shape="count"),
    Keyword(
        "allOf",
        "enforced",
        row="`allOf`",
        limits=(
            "recursion through `allOf` merges (more than 200 levels)",
            "`patternProperties` of one branch next to closed `additionalProperties` of another",
        ),
        shape="schema_array",
        children="schemas",
    ),
    Keyword(
        "$ref",
        "enforced",
        row=_row("`$ref`"),
        limits=(
            "a reference that recurses into itself inside `allOf` or next to sibling keywords",
        ),
        shape="string",
    ),
    Keyword(
        "minLength",
        "enforced",
        row=_row("`minLength`"),
        limits=("above 512 characters next to a `maxLength` that is refused",),
        shape="count",
    ),
    Keyword(
        "maxLength",
        "enforced",
        row=_row("`minLength`"),
        limits=("above 1,048,576 characters",),
        shape="count",
    ),
    Keyword(
        "pattern",
        "enforced",
        row="`pattern`",
        limits=(
            "ECMA-262 features without an exact regular language (back-references,"
            " look-arounds...) and groups nested too deeply",
        ),
        shape="string",
    ),
    Keyword(
        "format",
        "enforced",
        row="`format`",
        limits=(
            "formats not listed (left to Pydantic for Pydantic types)",
            'with `spellings="all"`: `idn-hostname`, `idn-email` and `regex`, which have no'
            " exact grammar",
        ),
        shape="string",
    ),
    Keyword(
        "minimum",
        "enforced",
        row=_row("`minimum`"),
        limits=("a bound of more than 1,000 digits (named `minimum` for any of the bounds)",),
        shape="bound",
    ),
    *(
        Keyword(
            name,
            "enforced",
            row=_row("`minimum`"),
            shape="exclusive" if name.startswith("exclusive") else "bound",
        )
        for name in ("maximum", "exclusiveMinimum", "exclusiveMaximum")
    ),
    Keyword(
        "multipleOf",
        "enforced",
        row="`multipleOf`",
        limits=(
            "fractional divisors (decimal and binary-float validators decide them differently)",
            "integer divisors outside 2^a·5^b·{1,3,7,21} on open ranges",
            "two fractional divisors in one `allOf` (no exact lcm)",
            'with `spellings="all"`: a divisor that is not 2^a·5^b·{1,3} with a, b at most 2'
            " on a range of more than 32 multiples (its exponent spellings cannot be written"
            " exactly at a reasonable size)",
        ),
        shape="multiple_of",
    ),
]

_REFUSED = [
    Keyword(
        "uniqueItems",
        "refused",
        reason="distinct items cannot be enforced by a context-free grammar (`uniqueItems: true`;"
        " Pydantic checks it itself, for `set` fields)",
        shape="boolean",
    ),
    Keyword(
        "$dynamicRef",
        "refused",
        reason="its target depends on the evaluation path, which a grammar cannot follow",
        shape="string",
    ),
    Keyword(
        "$recursiveRef",
        "refused",
        reason="its target depends on the evaluation path, which a grammar cannot follow",
        shape="string",
    ),
    Keyword(
        "propertyDependencies",
        "refused",
        reason="a proposal beyond draft 2020-12, not enforced by the grammar",
    ),
]

_IDENTIFIES = "identifies a schema for `$ref`; constrains nothing itself"
_ANNOTATION = "an annotation: constrains nothing"
_ANNOTATIONS = [
    *(Keyword(name, "annotation", reason=_ANNOTATION) for name in ("title", "description")),
    Keyword("examples", "annotation", reason=_ANNOTATION),
    Keyword("example", "annotation", reason="OpenAPI's annotation: constrains nothing"),
    Keyword("default", "annotation", reason=_ANNOTATION),
    Keyword("$comment", "annotation", reason=_ANNOTATION),
    Keyword(
        "$schema",
        "annotation",
        reason="names the draft; drafts 3 and 4 make an integer fractionless, older drafts"
        " read `items` arrays and boolean exclusive bounds",
    ),
    Keyword("$id", "annotation", reason=_IDENTIFIES, shape="string"),
    Keyword("$anchor", "annotation", reason=_IDENTIFIES, shape="string"),
    Keyword("$dynamicAnchor", "annotation", reason=_IDENTIFIES),
    Keyword("$recursiveAnchor", "annotation", reason=_IDENTIFIES),
    Keyword("$vocabulary", "annotation", reason="declares vocabularies of a meta-schema"),
    Keyword(
        "$defs",
        "annotation",
        reason="holds schemas for `$ref`; constrains nothing itself",
        shape="schema_map",
        children="map",
    ),
    Keyword(
        "definitions",
        "annotation",
        reason="holds schemas for `$ref` (before 2019-09); constrains nothing itself",
        shape="schema_map",
        children="map",
    ),
    *(Keyword(name, "annotation", reason=_ANNOTATION) for name in ("readOnly", "writeOnly")),
    Keyword("deprecated", "annotation", reason=_ANNOTATION),
    Keyword(
        "contentEncoding",
        "annotation",
        reason="an annotation in draft 2020-12 (the string is not decoded)",
    ),
    Keyword("contentMediaType", "annotation", reason="an annotation in draft 2020-12"),
    Keyword(
        "contentSchema",
        "annotation",
        reason="an annotation in draft 2020-12",
        shape="schema",
        children="schema",
    ),
    Keyword(
        "discriminator",
        "annotation",
        reason="OpenAPI's hint for `oneOf`; the branches decide (Pydantic's tags are required)",
    ),
]

KEYWORDS: dict[str, Keyword] = {kw.name: kw for kw in (*_ENFORCED, *_REFUSED, *_ANNOTATIONS)}
"""Every keyword the frontend knows, by name."""

ANNOTATIONS = frozenset(k for k, kw in KEYWORDS.items() if kw.status == "annotation")
"""Keywords that never constrain the text."""
REFUSED = frozenset(k for k, kw in KEYWORDS.items() if kw.status == "refused")
"""Keywords refused wherever they constrain (``uniqueItems: false`` constrains nothing)."""
SCHEMA_SINGLES = frozenset(
    k for k, kw in KEYWORDS.items() if kw.children in ("schema", "schema_or_schemas")
)
"""Keywords whose value is one subschema."""
SCHEMA_ARRAYS = frozenset(
    k for k, kw in KEYWORDS.items() if kw.children in ("schemas", "schema_or_schemas")
)
"""Keywords whose value is an array of subschemas."""
SCHEMA_MAPS = frozenset(k for k, kw in KEYWORDS.items() if kw.children == "map")
"""Keywords whose value maps names to subschemas."""

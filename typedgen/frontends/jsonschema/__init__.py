"""JSON Schema (and, through it, Pydantic) lowered to the IR.

``Grammar.from_json_schema(schema, strict=True, whitespace="compact", resources=None,
spellings="all", formats="assert", key_order="schema")``: every keyword is enforced exactly by
the grammar, or refused with a :class:`~typedgen.errors.UnsupportedSchemaError` naming the
keyword and the schema path; with ``strict=False`` what cannot be enforced is left to a
validator and listed in ``grammar.deferred``. See :mod:`.lower` for the construction and
docs/json-schema.md for the options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typedgen.frontends.jsonschema.layout import Whitespace, WhitespaceSpec
from typedgen.frontends.jsonschema.lower import Lowered, Verdict, lower_schema
from typedgen.frontends.jsonschema.state import ExtraKeys, FormatMode, KeyOrder, Spellings
from typedgen.ir.grammar import Grammar, register_format

__all__ = ["Lowered", "Verdict", "Whitespace", "json_schema_grammar", "lower_schema"]


def json_schema_grammar(
    schema: Mapping[str, Any] | bool | str,
    *,
    strict: bool = True,
    whitespace: WhitespaceSpec = "compact",
    resources: Mapping[str, Any] | None = None,
    source: str = "<schema>",
    spellings: Spellings = "all",
    formats: FormatMode = "assert",
    key_order: KeyOrder = "schema",
    extra_keys: ExtraKeys = "schema",
) -> Grammar:
    """The grammar of the JSON texts valid against ``schema`` (a dict, a bool or JSON text).

    ``resources`` maps URIs to further schema documents that ``$ref`` may point to (nothing is
    ever fetched). ``whitespace`` is ``"compact"`` (default), ``"pretty"`` or a
    :class:`Whitespace`. ``spellings="all"`` (default) accepts every text whose value is valid
    (``1.0`` for an integer, ``1e2``, ``-0``, leap seconds...), ``"canonical"`` one conventional
    spelling (what :func:`typedgen.generate` uses); ``formats="annotate"`` ignores ``format``
    as draft 2020-12 does by default; ``key_order="any"`` lets closed objects list their
    properties in any order; ``extra_keys="declared"`` gives an object that declares properties
    and says nothing about others only its declared ones.
    """
    lowered = lower_schema(
        schema,
        strict=strict,
        whitespace=whitespace,
        resources=resources,
        source=source,
        spellings=spellings,
        formats=formats,
        key_order=key_order,
        extra_keys=extra_keys,
    )
    assert lowered.grammar is not None
    return lowered.grammar


register_format("json_schema", json_schema_grammar)

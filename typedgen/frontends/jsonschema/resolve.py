"""``$ref`` resolution: JSON pointers, ``$id`` / ``$anchor`` resources, caller-supplied documents.

Every subschema reached through a schema keyword is indexed with its base URI once, so a ``$ref``
is resolved against the base of the object it sits in, wherever that object is later merged.
Nothing is fetched: documents other than the root must be passed as ``resources``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from typedgen.errors import SchemaError, UnsupportedSchemaError
from typedgen.frontends.jsonschema.keywords import SCHEMA_ARRAYS, SCHEMA_MAPS, SCHEMA_SINGLES

__all__ = ["SCHEMA_ARRAYS", "SCHEMA_MAPS", "SCHEMA_SINGLES", "Resolver", "child_schemas"]


def _join(base: str, ref: str) -> str:
    """``ref`` against ``base``; fragments and non-hierarchical bases (``urn:``) kept intact."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if not base or "://" in ref or ref.startswith(("urn:", "tag:")):
        return ref if not base or ":" in ref.split("/", 1)[0] else urljoin(base, ref)
    if "://" not in base:  # urn:..., tag:...: no relative resolution defined
        return ref
    return urljoin(base, ref)


def child_schemas(schema: Mapping[str, Any], pointer: str) -> Iterator[tuple[Any, str]]:
    """The direct subschemas of ``schema`` with their JSON pointers."""
    for key, value in schema.items():
        esc = key.replace("~", "~0").replace("/", "~1")
        if key in SCHEMA_SINGLES and isinstance(value, dict | bool):
            yield value, f"{pointer}/{esc}"
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                if isinstance(name, str) and isinstance(sub, dict | bool):
                    sub_esc = name.replace("~", "~0").replace("/", "~1")
                    yield sub, f"{pointer}/{esc}/{sub_esc}"
        elif key in SCHEMA_ARRAYS and isinstance(value, list):
            for i, sub in enumerate(value):
                if isinstance(sub, dict | bool):
                    yield sub, f"{pointer}/{esc}/{i}"


class Resolver:
    """Finds the target of a ``$ref`` and the base URI and JSON pointer of every subschema."""

    def __init__(self, root: Any, resources: Mapping[str, Any] | None = None) -> None:
        self._documents: dict[str, Any] = {}
        self._anchors: dict[tuple[str, str], Any] = {}
        self._base: dict[int, str] = {}
        self._pointer: dict[int, str] = {}
        self._keep: list[Any] = []
        self.root_uri = self._index(root, "", "#")
        for uri, document in (resources or {}).items():
            self._index(document, urldefrag(uri)[0], "#")

    def _index(self, document: Any, uri: str, pointer: str) -> str:
        self._keep.append(document)
        stack: list[tuple[Any, str, str]] = [(document, uri, pointer)]
        first_base = uri
        while stack:
            schema, base, ptr = stack.pop()
            if not isinstance(schema, dict) or id(schema) in self._base:
                continue  # a Python dict may hold itself: each object is indexed once
            sid = schema.get("$id")
            if isinstance(sid, str):
                base = urldefrag(_join(base, sid))[0]
                self._documents.setdefault(base, schema)
                if schema is document:
                    first_base = base
            elif schema is document:
                self._documents.setdefault(base, schema)
            for key in ("$anchor", "$dynamicAnchor"):  # a plain $ref to either finds it
                anchor = schema.get(key)
                if isinstance(anchor, str):
                    self._anchors.setdefault((base, anchor), schema)
            self._base[id(schema)] = base
            self._pointer.setdefault(id(schema), ptr)
            for sub, sub_ptr in child_schemas(schema, ptr):
                stack.append((sub, base, sub_ptr))
        return first_base

    def is_indexed(self, schema: Any) -> bool:
        """Whether ``schema`` is a subschema of a document (not a merge's product)."""
        return id(schema) in self._base

    def base_of(self, schema: Any) -> str:
        """The base URI that relative references in ``schema`` resolve against."""
        return self._base.get(id(schema), self.root_uri)

    def pointer_of(self, schema: Any, default: str) -> str:
        """The JSON pointer of an indexed subschema (``default`` for merged ones)."""
        return self._pointer.get(id(schema), default)

    def resolve(self, ref: str, holder: Mapping[str, Any], path: str) -> Any:
        """The schema ``holder["$ref"]`` points to."""
        full = _join(self.base_of(holder), ref)
        uri, fragment = urldefrag(full)
        document = self._documents.get(uri)
        if document is None:
            raise SchemaError(
                f"$ref {ref!r} points to {uri!r}, which is not a known document",
                keyword="$ref",
                path=path,
                code="schema-unresolved-ref",
                hint="typedgen never fetches schemas: pass the document in resources={uri: schema}",
            )
        if not fragment:
            return document
        if not fragment.startswith("/"):
            target = self._anchors.get((uri, fragment))
            if target is None:
                raise SchemaError(
                    f"$ref {ref!r}: no $anchor {fragment!r} in {uri or 'the root schema'}",
                    keyword="$ref",
                    path=path,
                    code="schema-unresolved-ref",
                    hint="check the anchor name",
                )
            return target
        node: Any = document
        for token in fragment.split("/")[1:]:
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise SchemaError(
                    f"$ref {ref!r}: the pointer has no target at {token!r}",
                    keyword="$ref",
                    path=path,
                    code="schema-unresolved-ref",
                    hint="check the JSON pointer",
                )
        if not isinstance(node, dict | bool):
            raise SchemaError(
                f"$ref {ref!r} points to a {type(node).__name__}, not a schema",
                keyword="$ref",
                path=path,
                code="schema-bad-ref",
            )
        if isinstance(node, dict) and id(node) not in self._base:
            self._index(node, uri, "#" + fragment)
        return node

    @staticmethod
    def refuse_dynamic(keyword: str, path: str) -> UnsupportedSchemaError:
        """Dynamic references depend on the evaluation path; a grammar cannot follow them."""
        return UnsupportedSchemaError(
            f"{keyword} is not supported",
            keyword=keyword,
            path=path,
            hint="replace it with a plain $ref to the intended target",
        )

"""A stable, data-only wire format for grammars: IR in, JSON out, and back.

Serving engines take a constraint as request data (vLLM's ``SamplingParams.extra_args``, the
OpenAI server's ``vllm_xargs``) and compile it in a worker process. Pickle cannot cross that
boundary safely (a server must never unpickle what a client sends), and the canonical text
(``str(grammar)``) has no parser. This module writes the IR itself as plain JSON values, so a
worker rebuilds the very grammar the client built: same canonical text, same fingerprint, so
the same compile cache entry.

``dumps`` gives a compact ASCII string (zlib-compressed JSON in URL-safe base64, prefixed with
the format version) that fits any JSON request body; ``to_data`` / ``from_data`` give the JSON
value itself. Loading is defensive: sizes and nesting are bounded, every field is type-checked,
and the rebuilt grammar is validated, so malformed input raises
:class:`~typedgen.errors.GrammarError` (code ``ir``) and nothing else.

Origins are left out by default (they only serve error messages, which the client has already
seen); ``origins=True`` keeps them.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from typedgen.errors import GrammarError
from typedgen.ir.grammar import DeferredCheck, Grammar, Lexing, Rule, TreeShape
from typedgen.ir.nodes import Alt, CharClass, Complement, Expr, Intersect, Lit, Ref, Repeat, Seq
from typedgen.ir.origin import Origin

__all__ = ["FORMAT", "MAX_BYTES", "MAX_DEPTH", "dumps", "from_data", "loads", "to_data"]

FORMAT = "typedgen-grammar/1"
"""The format tag; a reader refuses other tags rather than guessing."""
_PREFIX = "tg1:"
MAX_BYTES = 64 << 20
"""The most JSON bytes :func:`loads` inflates (a guard against compression bombs)."""
MAX_DEPTH = 200
"""The deepest expression nesting accepted (frontends nest through rule references, not
expressions, so real grammars stay far below it)."""

_SHAPE_FIELDS = ("inline", "expand_single", "keep_tokens", "filtered")


# -- writing ------------------------------------------------------------------------------------
def _origin_data(origin: Origin | None) -> list[Any] | None:
    if origin is None:
        return None
    return [origin.source, origin.line, origin.column, origin.path]


def _lit_data(data: bytes) -> list[Any]:
    try:
        return ["lit", data.decode("utf-8")]
    except UnicodeDecodeError:  # a byte-level literal (a token fragment, a raw byte)
        return ["bytes", base64.b64encode(data).decode("ascii")]


def _expr_data(expr: Expr, origins: bool) -> list[Any]:
    out: list[Any]
    if isinstance(expr, Lit):
        out = _lit_data(expr.data)
    elif isinstance(expr, CharClass):
        out = ["class", [list(r) for r in expr.ranges], expr.negated]
    elif isinstance(expr, Seq):
        out = ["seq", [_expr_data(e, origins) for e in expr.items]]
    elif isinstance(expr, Alt):
        out = ["alt", [_expr_data(e, origins) for e in expr.items]]
    elif isinstance(expr, Repeat):
        out = ["repeat", _expr_data(expr.item, origins), expr.min, expr.max]
    elif isinstance(expr, Ref):
        out = ["ref", expr.name]
    elif isinstance(expr, Intersect):
        out = ["and", [_expr_data(e, origins) for e in expr.items]]
    elif isinstance(expr, Complement):
        out = ["not", _expr_data(expr.item, origins)]
    else:  # pragma: no cover - the IR has exactly these nodes
        raise GrammarError(f"cannot serialise IR node {type(expr).__name__}", code="ir")
    if origins and expr.origin is not None:
        out.append({"origin": _origin_data(expr.origin)})
    return out


def to_data(grammar: Grammar, *, origins: bool = False) -> dict[str, Any]:
    """The grammar as JSON values (dicts, lists, strings, numbers, booleans, ``None``)."""
    rules = []
    for rule in grammar:
        item: dict[str, Any] = {"name": rule.name, "body": _expr_data(rule.body, origins)}
        if rule.lexical:
            item["lexical"] = True
        if rule.priority:
            item["priority"] = rule.priority
        if rule.lexing is not Lexing.FREE:
            item["lexing"] = rule.lexing.value
        shape = [f for f in _SHAPE_FIELDS if getattr(rule.shape, f)]
        if shape:
            item["shape"] = shape
        if origins and rule.origin is not None:
            item["origin"] = _origin_data(rule.origin)
        rules.append(item)
    data: dict[str, Any] = {"format": FORMAT, "start": grammar.start, "rules": rules}
    if grammar.ignore:
        data["ignore"] = list(grammar.ignore)
    if grammar.reserved:
        data["reserved"] = list(grammar.reserved)
    if grammar.deferred:
        data["deferred"] = [[d.path, d.keyword, d.reason] for d in grammar.deferred]
    if origins and grammar.origin is not None:
        data["origin"] = _origin_data(grammar.origin)
    return data


def dumps(grammar: Grammar, *, origins: bool = False) -> str:
    """A compact ASCII string for the grammar (``tg1:`` + base64 of zlib-compressed JSON)."""
    text = json.dumps(to_data(grammar, origins=origins), separators=(",", ":"), ensure_ascii=False)
    packed = zlib.compress(text.encode("utf-8"), 9)
    return _PREFIX + base64.urlsafe_b64encode(packed).decode("ascii")


# -- reading ------------------------------------------------------------------------------------
def _bad(message: str) -> GrammarError:
    return GrammarError(
        f"malformed serialised grammar: {message}",
        code="ir",
        hint="send what typedgen.ir.serial.dumps (or typedgen_vllm.constraint) produced,"
        " unmodified, from a typedgen of the same format version",
    )


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{what} must be an integer, not {type(value).__name__}")
    return value


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{what} must be a string, not {type(value).__name__}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(f"{what} must be a list, not {type(value).__name__}")
    return value


def _origin(value: Any) -> Origin | None:
    if value is None:
        return None
    items = _list(value, "an origin")
    if len(items) != 4:
        raise _bad("an origin has four fields (source, line, column, path)")
    source, line, column, path = items
    return Origin(
        _str(source, "an origin's source"),
        None if line is None else _int(line, "an origin's line"),
        None if column is None else _int(column, "an origin's column"),
        None if path is None else _str(path, "an origin's path"),
    )


def _expr(value: Any, depth: int = 0) -> Expr:
    if depth > MAX_DEPTH:
        raise _bad(f"expressions nest deeper than {MAX_DEPTH}")
    items = _list(value, "an expression")
    if not items:
        raise _bad("an empty expression")
    origin = None
    if isinstance(items[-1], dict):
        origin = _origin(items[-1].get("origin"))
        items = items[:-1]
    tag = items[0] if items else None
    args = items[1:]
    try:
        if tag == "lit" and len(args) == 1:
            return Lit(_str(args[0], "a literal").encode("utf-8"), origin=origin)
        if tag == "bytes" and len(args) == 1:
            try:
                raw = base64.b64decode(_str(args[0], "a byte literal"), validate=True)
            except binascii.Error as exc:
                raise _bad(f"a byte literal is not base64 ({exc})") from None
            return Lit(raw, origin=origin)
        if tag == "class" and len(args) == 2:
            ranges = []
            for pair in _list(args[0], "a class's ranges"):
                lo, hi = _list(pair, "a class range")
                ranges.append((_int(lo, "a range bound"), _int(hi, "a range bound")))
            if not isinstance(args[1], bool):
                raise _bad("a class's negated flag must be a boolean")
            return CharClass(tuple(ranges), args[1], origin=origin)
        if tag in ("seq", "alt", "and") and len(args) == 1:
            children = tuple(_expr(e, depth + 1) for e in _list(args[0], f"a {tag}'s items"))
            if tag == "seq":
                return Seq(children, origin=origin)
            if tag == "alt":
                return Alt(children, origin=origin)
            return Intersect(children, origin=origin)
        if tag == "repeat" and len(args) == 3:
            low = _int(args[1], "a repeat's minimum")
            high = None if args[2] is None else _int(args[2], "a repeat's maximum")
            return Repeat(_expr(args[0], depth + 1), low, high, origin=origin)
        if tag == "ref" and len(args) == 1:
            return Ref(_str(args[0], "a rule reference"), origin=origin)
        if tag == "not" and len(args) == 1:
            return Complement(_expr(args[0], depth + 1), origin=origin)
    except ValueError as exc:  # two-item unpacking, bad ranges (a GrammarError is one too)
        if isinstance(exc, GrammarError) and exc.code == "ir":
            raise
        raise _bad(str(exc)) from None
    raise _bad(f"unknown expression {tag!r} with {len(args)} argument(s)")


def _rule(value: Any) -> Rule:
    if not isinstance(value, dict):
        raise _bad("a rule must be an object")
    unknown = set(value) - {"name", "body", "lexical", "priority", "lexing", "shape", "origin"}
    if unknown:
        raise _bad(f"unknown rule fields {sorted(unknown)}")
    name = _str(value.get("name"), "a rule name")
    lexical = value.get("lexical", False)
    if not isinstance(lexical, bool):
        raise _bad(f"rule {name!r}: 'lexical' must be a boolean")
    try:
        lexing = Lexing(value.get("lexing", "free"))
    except ValueError:
        raise _bad(f"rule {name!r}: unknown lexing mode {value.get('lexing')!r}") from None
    flags = _list(value.get("shape", []), f"rule {name!r}'s shape")
    if not set(flags) <= set(_SHAPE_FIELDS):
        raise _bad(f"rule {name!r}: unknown shape flags {sorted(set(flags) - set(_SHAPE_FIELDS))}")
    return Rule(
        name,
        _expr(value.get("body")),
        lexical=lexical,
        priority=_int(value.get("priority", 0), f"rule {name!r}'s priority"),
        lexing=lexing,
        shape=TreeShape(**dict.fromkeys(flags, True)),
        origin=_origin(value.get("origin")),
    )


def from_data(data: Any) -> Grammar:
    """Rebuild and validate a grammar from :func:`to_data`'s JSON value."""
    if not isinstance(data, dict):
        raise _bad("the top level must be an object")
    if data.get("format") != FORMAT:
        raise _bad(f"format {data.get('format')!r} is not {FORMAT!r}")
    rules = [_rule(r) for r in _list(data.get("rules"), "'rules'")]
    deferred = []
    for item in _list(data.get("deferred", []), "'deferred'"):
        fields = _list(item, "a deferred check")
        if len(fields) != 3:
            raise _bad("a deferred check has three fields (path, keyword, reason)")
        deferred.append(DeferredCheck(*(_str(f, "a deferred check field") for f in fields)))
    return Grammar(
        rules,
        _str(data.get("start"), "'start'"),
        ignore=tuple(
            _str(n, "an ignored terminal") for n in _list(data.get("ignore", []), "'ignore'")
        ),
        reserved=tuple(
            _str(n, "a reserved terminal") for n in _list(data.get("reserved", []), "'reserved'")
        ),
        deferred=tuple(deferred),
        origin=_origin(data.get("origin")),
    )


def loads(text: str) -> Grammar:
    """Rebuild and validate a grammar from :func:`dumps`'s string."""
    if not isinstance(text, str) or not text.startswith(_PREFIX):
        raise _bad(f"the text does not start with {_PREFIX!r}")
    try:
        packed = base64.urlsafe_b64decode(text[len(_PREFIX) :].encode("ascii"))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_BYTES)
        if inflater.unconsumed_tail:
            raise _bad(f"the grammar inflates past {MAX_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeError, zlib.error, ValueError, RecursionError) as exc:
        if isinstance(exc, GrammarError):
            raise
        raise _bad(f"cannot decode ({type(exc).__name__}: {exc})") from None
    return from_data(data)

"""Run the JSON Schema sets of ../shared/evaldata through ``Grammar.from_json_schema``.

For every schema: compiled, or refused with a named keyword (anything else is an error of
typedgen). For compiled schemas every instance is serialised compactly and, in the bounded
``"pretty"`` layout, with ``json.dumps(indent=2)``, and fed byte by byte: a valid instance must be
accepted and complete, an invalid one rejected. Object keys are written in the order the schema
declares them (typedgen fixes property order to the schema's, as JSON objects are unordered):
each object in the order of the subschema that checks it (found through ``properties``,
``items`` and local ``$ref``s; a schema's own properties before those of its subschemas), then
in the order the whole schema names them (``properties`` first), then the others.

Options are typedgen's defaults (``spellings="all"``: every spelling of a valid value), except
``formats``: the JSON-Schema-Test-Suite's required groups test draft 2020-12's default, where
``format`` is an annotation, so they run with ``formats="annotate"``; its optional groups (the
``optional/format`` assertions among them) and jsonschemabench run with typedgen's default,
``formats="assert"``.

``python -m tests.conformance.jsonschema_runner [set ...]`` prints coverage and rates per set
(and per subset for jsonschemabench) with every failure listed, grouped by schema.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests._support import EVALDATA, byte_vocabulary, read_items
from typedgen import compile as tg_compile
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import CompileError, SchemaError, TypedgenError
from typedgen.ir import Grammar

VOCAB = byte_vocabulary()
REMOTE_BASE = "http://localhost:1234/"
LAYOUTS = ("compact", "pretty")


def remotes() -> dict[str, Any]:
    """The test suite's remote documents under the URIs its ``$ref``s use."""
    root = EVALDATA / "json_schema_test_suite" / "remotes"
    out: dict[str, Any] = {}
    if root.exists():
        for path in sorted(root.rglob("*.json")):
            rel = path.relative_to(root).as_posix()
            out[REMOTE_BASE + rel] = json.loads(path.read_text(encoding="utf-8"))
    return out


items = read_items


_MERGED_FIRST = ("allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas")


def _declared(schema: Any, out: dict[str, int]) -> None:
    """Property names under ``properties`` in the order typedgen merges them: a schema's own
    first, then those of its ``allOf`` / ``anyOf`` / ``oneOf`` subschemas, then deeper ones."""
    if isinstance(schema, dict):
        props = schema.get("properties")
        for name in props if isinstance(props, dict) else ():
            out.setdefault(name, len(out))
        for key in _MERGED_FIRST:
            _declared(schema.get(key), out)
        for key, value in schema.items():
            if key not in _MERGED_FIRST:
                _declared(value, out)
    elif isinstance(schema, list):
        for value in schema:
            _declared(value, out)


def _key_order(schema: Any) -> dict[str, int]:
    order: dict[str, int] = {}
    _declared(schema, order)
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', json.dumps(schema, ensure_ascii=False)):
        order.setdefault(json.loads(f'"{m.group(1)}"'), len(order))
    return order


def _local(node: Any, root: Any, depth: int = 0) -> Any:
    """``node`` with local ``$ref``s (``#/...``) followed; other references are left as they are."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 20:
        ref = node["$ref"]
        if not ref.startswith("#"):
            return node
        target: Any = root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return node
        if set(node) - {"$ref"}:  # siblings: typedgen merges them, the node's own first
            return {"allOf": [{k: v for k, v in node.items() if k != "$ref"}, target]}
        node, depth = target, depth + 1
    return node


def _branches(node: Any) -> list[Any]:
    """``node`` and the subschemas merged into it, in typedgen's merge order."""
    out = [node]
    if isinstance(node, dict):
        for key in _MERGED_FIRST:
            value = node.get(key)
            if isinstance(value, dict):
                subs = list(value.values()) if key == "dependentSchemas" else [value]
            else:
                subs = value if isinstance(value, list) else []
            out.extend(sub for sub in subs if isinstance(sub, dict))
    return out


def _child(node: Any, root: Any, key: str | int) -> Any:
    """The subschema an object member (``str`` key) or array item (``int``) is checked by."""
    for branch in _branches(_local(node, root)):
        branch = _local(branch, root)
        if not isinstance(branch, dict):
            continue
        if isinstance(key, str):
            props = branch.get("properties")
            if isinstance(props, dict) and key in props:
                return props[key]
        else:
            prefix = branch.get("prefixItems")
            if isinstance(prefix, list) and key < len(prefix):
                return prefix[key]
            items = branch.get("items")
            if isinstance(items, list) and key < len(items):
                return items[key]
            if isinstance(items, dict):
                return items
    for branch in _branches(_local(node, root)):
        extra = branch.get("additionalProperties") if isinstance(branch, dict) else None
        if isinstance(key, str) and isinstance(extra, dict):
            return extra
    return None


def _ordered(value: Any, order: dict[str, int], node: Any = None, root: Any = None) -> Any:
    """Keys of each object in the order of the subschema that checks it (followed through
    ``properties``, ``items`` and local ``$ref``s), then in ``order`` (the whole schema's)."""
    if isinstance(value, dict):
        local: dict[str, int] = {}
        for branch in _branches(_local(node, root)):
            branch = _local(branch, root)
            props = branch.get("properties") if isinstance(branch, dict) else None
            for name in props if isinstance(props, dict) else ():
                local.setdefault(name, len(local))
        keys = sorted(
            value,
            key=lambda k: (k not in local, local.get(k, 0), k not in order, order.get(k, 0)),
        )
        return {k: _ordered(value[k], order, _child(node, root, k), root) for k in keys}
    if isinstance(value, list):
        return [_ordered(v, order, _child(node, root, i), root) for i, v in enumerate(value)]
    return value


def serialise(data: Any, schema: Any, layout: str) -> bytes | None:
    """The instance as typedgen writes it, or None if it is not UTF-8 encodable."""
    ordered = _ordered(data, _key_order(schema), schema, schema)
    if layout == "compact":
        text = json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps(ordered, ensure_ascii=False, indent=2)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


def feed(compiled: CompiledGrammar, data: bytes) -> bool:
    """Whether ``data`` is accepted in full, byte by byte."""
    m = compiled.matcher()
    return m.accept_bytes(data) and m.is_complete()


@dataclass
class Result:
    name: str
    subset: str
    status: str  # "compiled" | "refused" | "error"
    detail: str = ""
    valid: Counter[str] = field(default_factory=Counter)
    invalid: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def options_for(item: dict[str, Any]) -> dict[str, Any]:
    """The lowering options an item is measured with (see the module's notes)."""
    required_suite_group = "file" in item and not item.get("optional", True)
    return {"formats": "annotate"} if required_suite_group else {}


def run_item(
    item: dict[str, Any],
    resources: dict[str, Any],
    layouts: tuple[str, ...],
    **options: Any,
) -> Result:
    subset = item.get("subset") or item.get("file") or ""
    result = Result(item["name"], subset, "compiled")
    compiled: dict[str, CompiledGrammar] = {}
    options = {**options_for(item), **options}
    try:
        for layout in layouts:
            grammar = Grammar.from_json_schema(
                item["schema"], whitespace=layout, resources=resources, **options
            )
            compiled[layout] = tg_compile(grammar, VOCAB, cache=False)
    except SchemaError as exc:
        result.status, result.detail = "refused", f"{exc.keyword} at {exc.path} [{exc.code}]"
        return result
    except (CompileError, TypedgenError, RecursionError) as exc:
        result.status, result.detail = "error", f"{type(exc).__name__}: {exc}"[:300]
        return result
    except Exception as exc:  # a bug: reported, never hidden
        result.status, result.detail = "error", f"{type(exc).__name__}: {exc}"[:300]
        return result
    for test in item["tests"]:
        for layout, comp in compiled.items():
            data = serialise(test["data"], item["schema"], layout)
            if data is None:
                continue
            ok = feed(comp, data)
            if test["valid"]:
                result.valid["accepted" if ok else "rejected"] += 1
                if not ok:
                    result.problems.append(f"valid rejected ({layout}): {data[:120]!r}")
            else:
                result.invalid["rejected" if not ok else "accepted"] += 1
                if ok:
                    result.problems.append(f"INVALID ACCEPTED ({layout}): {data[:120]!r}")
    return result


def run_set(set_name: str, layouts: tuple[str, ...] = LAYOUTS, **options: Any) -> list[Result]:
    resources = remotes()
    return [run_item(item, resources, layouts, **options) for item in items(set_name)]


def summarise(results: list[Result]) -> dict[str, Any]:
    status = Counter(r.status for r in results)
    valid: Counter[str] = Counter()
    invalid: Counter[str] = Counter()
    for r in results:
        valid.update(r.valid)
        invalid.update(r.invalid)
    return {
        "schemas": len(results),
        "compiled": status["compiled"],
        "refused": status["refused"],
        "error": status["error"],
        "valid_accepted": valid["accepted"],
        "valid_total": valid["accepted"] + valid["rejected"],
        "invalid_rejected": invalid["rejected"],
        "invalid_total": invalid["rejected"] + invalid["accepted"],
    }


def _line(label: str, s: dict[str, Any]) -> str:
    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({a / b:.1%})" if b else "0/0"

    return (
        f"{label}: compiled {pct(s['compiled'], s['schemas'])}, refused {s['refused']},"
        f" errors {s['error']}; valid accepted {pct(s['valid_accepted'], s['valid_total'])},"
        f" invalid rejected {pct(s['invalid_rejected'], s['invalid_total'])}"
    )


def report(
    set_names: list[str], out: Any = sys.stdout, verbose: bool = True, **options: Any
) -> None:
    for set_name in set_names:
        t0 = time.perf_counter()
        results = run_set(set_name, **options)
        print(f"{_line(set_name, summarise(results))}  [{time.perf_counter() - t0:.0f}s]", file=out)
        if set_name == "jsonschemabench":
            by_subset: dict[str, list[Result]] = defaultdict(list)
            for r in results:
                by_subset[r.subset].append(r)
            for subset, rs in sorted(by_subset.items()):
                print("  " + _line(subset, summarise(rs)), file=out)
        refusals = Counter(r.detail.split(" at ")[0] for r in results if r.status == "refused")
        print(f"  refused by keyword: {dict(refusals.most_common())}", file=out)
        rejected = [r for r in results if r.valid["rejected"]]
        accepted = [r for r in results if r.invalid["accepted"]]
        print(
            f"  valid instances rejected in {len(rejected)} schemas, invalid ones accepted in"
            f" {len(accepted)}",
            file=out,
        )
        if not verbose:
            continue
        for r in results:
            if r.status == "error":
                print(f"  ERROR    {r.name}: {r.detail}", file=out)
        for r in sorted(results, key=lambda r: -len(r.problems)):
            if r.problems:
                print(f"  {r.name}: {len(r.problems)} failure(s)", file=out)
                for p in r.problems:
                    print(f"      {p}", file=out)


def iter_sets() -> Iterator[str]:
    yield from ("json_schema_test_suite", "jsonschemabench")


def main(argv: list[str]) -> None:
    """``[set ...] [--spellings=canonical] [--key-order=any] [--formats=assert]``."""
    options: dict[str, Any] = {}
    names: list[str] = []
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            key, value = arg[2:].split("=", 1)
            options[key.replace("-", "_")] = value
        else:
            names.append(arg)
    report(names or list(iter_sets()), **options)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Print the import circles of the typedgen package (exit status 1 when there is one).

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` of a
typedgen module counts, at the top of a module or inside a function (a lazy import is still a
dependency), except those under ``if TYPE_CHECKING:`` (typing only, never executed). A name
imported from a package counts as its submodule when one exists. A circle is a strongly
connected component of more than one module.

    python scripts/import_graph.py [PREFIX ...]

limits the report to circles that touch a module starting with one of the prefixes
(``typedgen.ir``); see docs/internals/architecture.md, section 1.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTENSIONS = {"typedgen._native"}
"""Compiled submodules (built from native/): imported by name, no ``.py`` file to read."""


def modules(package: Path = ROOT / "typedgen") -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of the package."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterable[ast.Import | ast.ImportFrom]:
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                stack.extend(child.orelse)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            stack.append(child)


def graph(found: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the typedgen modules it imports."""
    edges: dict[str, set[str]] = {}
    for name, path in found.items():
        is_package = path.name == "__init__.py"
        out: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")
                    anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = []
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in found or full in EXTENSIONS else base)
            out.update(t for t in targets if t in found and t != name)
        edges[name] = out
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def main(prefixes: list[str]) -> int:
    found = [
        c
        for c in circles(graph(modules()))
        if not prefixes or any(m.startswith(p) for m in c for p in prefixes)
    ]
    for component in found:
        sys.stdout.write("import circle: " + " <-> ".join(component) + "\n")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

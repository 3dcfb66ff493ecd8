"""The IR and the frontends have no import circle (scripts/import_graph.py reads the graph)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _import_graph() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "scripts" / "import_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_circle_in_ir_and_frontends() -> None:
    graph = _import_graph()
    circles = graph.circles(graph.graph(graph.modules()))
    touching = [
        c for c in circles if any(m.startswith(("typedgen.ir", "typedgen.frontends")) for m in c)
    ]
    assert touching == []
    # the grammar uses its printer, validation and exporters, none of them the grammar at runtime
    edges = graph.graph(graph.modules())
    assert {"typedgen.ir.printer", "typedgen.ir.export", "typedgen.ir.passes.validate"} <= edges[
        "typedgen.ir.grammar"
    ]
    assert edges["typedgen.ir.rules"] <= {"typedgen.ir.nodes", "typedgen.ir.origin"}


def test_circles_are_found_and_typing_only_imports_are_not(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import f\n")
    (package / "b.py").write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from pkg.c import C
            def f():
                from pkg import a
            """
        )
    )
    (package / "c.py").write_text("from pkg import b\n")
    graph = _import_graph()
    edges = graph.graph(graph.modules(package))
    assert edges["pkg.b"] == {"pkg.a"}  # the lazy import counts, the typing-only one does not
    assert graph.circles(edges) == [["pkg.a", "pkg.b"]]

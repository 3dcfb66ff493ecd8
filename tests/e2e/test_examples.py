"""Every example runs on the default model (DESIGN house rule 10) and prints typed results."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.model
EXAMPLES = sorted(
    p.stem
    for p in (Path(__file__).resolve().parents[2] / "examples").glob("*.py")
    if p.stem != "__init__"
)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from typedgen._bundled import MissingBundledModelError

    module = importlib.import_module(f"examples.{name}")
    if name == "spider_sqlite" and not (module.spider_dir() / "tables.json").exists():
        pytest.skip(f"evaldata set 'spider_dev' not found at {module.spider_dir()}")
    try:
        module.main()
    except MissingBundledModelError as exc:
        pytest.skip(f"default model unavailable: {exc}")
    out = capsys.readouterr().out
    assert out.strip()
    if name == "quickstart":
        assert out.count("result: ") == len(module.EXAMPLES), out
        assert "Person(name=" in out and "Sentiment." in out
    if name == "streaming":
        assert "final: City(" in out
    if name == "reasoning_validators":
        assert "scratchpad: " in out
    if name == "spider_sqlite":  # each question: SQL and its rows, or why there is none
        assert len(re.findall(r"^\[\w+\] ", out, re.MULTILINE)) == len(module.QUESTIONS), out
        assert "  SQL (" in out and "  as postgres: " in out and "  rows: " in out, out
    if name == "dsl_robot":
        assert re.search(r"^  (Move|Turn|Grab|Drop)\(", out, re.MULTILINE), out
    if name == "dsl_nginx":
        assert "server: listen=" in out and "Location(path=" in out
        assert "library grammar reads: Block(name='server'" in out
    if name == "dsl_toml":
        assert "tables built by WorkerConfig:" in out and "tomllib reads: {" in out

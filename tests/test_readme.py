"""README code runs (DESIGN house rule 10): every ```python block is executed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.model
@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    exec(compile(code, str(README), "exec"), {})  # running our own documentation
    assert capsys.readouterr().out.strip()

"""``typedgen check GRAMMAR SAMPLE...`` and ``typedgen grammar GRAMMAR``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import typedgen
from typedgen.cli import main
from typedgen.grammar_check import check_sample, compile_for_check, describe_allowed

GRAMMARS = Path(__file__).resolve().parent / "grammars"
CONFIG = """
start: entry+
entry: NAME " = " VALUE "\\n"
NAME: /[a-z]+/
VALUE: /[0-9]+/
"""


def _files(tmp_path: Path, **texts: str) -> dict[str, str]:
    out = {}
    for name, text in texts.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        out[name] = str(path)
    return out


def test_check_ok_and_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _files(
        tmp_path,
        **{
            "config.lark": CONFIG,
            "good.conf": "port = 80\nhost = 1\n",
            "bad.conf": "port = 80\nhost = x1\n",
            "short.conf": "port = 80\nhost",
        },
    )
    assert main(["check", f["config.lark"], f["good.conf"], f["bad.conf"], f["short.conf"]]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{f['good.conf']}: OK"
    assert out[1] == f"{f['bad.conf']}: FAIL at 2:8: unexpected 'x1'; expected '0'..'9'"
    assert out[2].startswith("  lark: UnexpectedCharacters")
    assert out[3] == (
        f"{f['short.conf']}: FAIL at 2:5: the text ends too early; expected one of ' ', 'a'..'z'"
    )
    assert out[4].startswith("  lark: UnexpectedEOF")
    assert out[-1] == "1 of 3 samples OK"


def test_check_all_ok_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _files(tmp_path, **{"config.lark": CONFIG, "good.conf": "a = 1\n"})
    assert main(["check", f["config.lark"], f["good.conf"]]) == 0
    assert capsys.readouterr().out == f"{f['good.conf']}: OK\n"


def test_a_disagreement_is_a_failure() -> None:
    compiled = compile_for_check(typedgen.grammar_of(typedgen.Lark(CONFIG)))
    accept_all = ("oracle", lambda text: text)

    def refuse(text: str) -> object:
        raise ValueError("no")

    good, bad = b"a = 1\n", b"a = x\n"
    assert check_sample(compiled, good, "g", accept_all).ok
    mismatch = check_sample(compiled, good, "g", ("oracle", refuse))
    assert not mismatch.ok
    assert mismatch.render() == (
        "g: MISMATCH: typedgen accepts the text, oracle does not\n  oracle: ValueError: no"
    )
    other = check_sample(compiled, bad, "b", accept_all)
    assert not other.ok and other.render().endswith("oracle: accepts the text (the two disagree)")
    assert check_sample(compiled, bad, "b").render() == (
        "b: FAIL at 1:5: unexpected 'x'; expected '0'..'9'"
    )


def test_check_gbnf_and_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _files(tmp_path, **{"one.txt": "1+2*3", "two.txt": "1+"})
    assert main(["check", str(GRAMMARS / "arith.gbnf"), f["one.txt"], f["two.txt"]]) == 1
    out = capsys.readouterr().out
    assert f"{f['one.txt']}: OK" in out and "ends too early" in out
    assert "lark:" not in out  # no second opinion for GBNF


def test_check_library_grammar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from typedgen import grammars

    assert "json" in grammars.names()
    f = _files(tmp_path, **{"a.json": '{"a": [1, 2]}', "b.json": '{"a": [1, 2,]}'})
    assert main(["check", "json", f["a.json"], f["b.json"]]) == 1
    out = capsys.readouterr().out
    assert f"{f['a.json']}: OK" in out and f"{f['b.json']}: FAIL at 1:13" in out


def test_check_dsl_class_runs_its_methods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "typedgen_cli_check_dsl"
    (tmp_path / f"{module}.py").write_text(
        "import typedgen\n\n\n"
        "class Ports(typedgen.DSL):\n"
        "    grammar = 'start: PORT (\",\" PORT)*\\nPORT: /[0-9]+/'\n\n"
        "    def PORT(self, token):\n"
        "        if int(token) > 65535:\n"
        "            raise ValueError('no such port')\n"
        "        return int(token)\n",
        encoding="utf-8",
    )
    (tmp_path / "ok.txt").write_text("80,443", encoding="utf-8")
    (tmp_path / "big.txt").write_text("80,99999", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    try:
        assert main(["check", f"{module}:Ports", "ok.txt", "big.txt"]) == 1
        out = capsys.readouterr().out
        assert "ok.txt: OK" in out
        assert "big.txt: MISMATCH: typedgen accepts the text, Ports.parse does not" in out
        assert "DSLValueError" in out and "no such port" in out
        assert main(["grammar", f"{module}:Ports"]) == 0
        assert "PORT" in capsys.readouterr().out
    finally:
        sys.modules.pop(module, None)


def test_check_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _files(tmp_path, **{"config.lark": CONFIG, "g.ebnf": "x", "s.txt": "a = 1\n"})
    assert main(["check", str(tmp_path / "absent.lark"), f["s.txt"]]) == 2
    assert main(["check", f["g.ebnf"], f["s.txt"]]) == 2
    assert main(["check", f["config.lark"], str(tmp_path / "absent.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("typedgen: error:") == 3 and "Traceback" not in err
    with pytest.raises(SystemExit) as no_samples:
        main(["check", f["config.lark"]])
    assert no_samples.value.code == 2
    capsys.readouterr()


def test_grammar_positional_forms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _files(tmp_path, **{"config.lark": CONFIG})
    assert main(["grammar", f["config.lark"]]) == 0
    expected = str(typedgen.grammar_of(typedgen.Lark(Path(f["config.lark"]))))
    assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n")
    assert main(["grammar", "--start", "entry", f["config.lark"]]) == 0
    assert capsys.readouterr().out.startswith("%start entry")
    with pytest.raises(SystemExit) as both:
        main(["grammar", f["config.lark"], "--regex", "a"])
    assert both.value.code == 2
    assert main(["grammar", "--start", "x", "--regex", "a"]) == 2
    capsys.readouterr()


def test_describe_allowed() -> None:
    assert describe_allowed(b"abc", False) == "'a'..'c'"
    assert describe_allowed(b"ab", True) == "one of 'a', 'b', end of text"
    assert describe_allowed(b"\n\xc3", False) == "one of '\\n', non-ASCII text"
    assert describe_allowed(b"", False) == "nothing (dead end)"
    assert describe_allowed(b"x", False, b"xyz") == "'xyz'"


def test_check_library_grammar_uses_the_checking_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file only the wider checking language accepts passes ``typedgen check``."""
    from typedgen import grammars

    samples = grammars.samples("ini", "check")
    only_check = [p for p in samples if p.parent.name == "check"]
    assert only_check, "the ini library grammar has check-only samples"
    assert main(["check", "ini", *map(str, only_check)]) == 0
    out = capsys.readouterr().out
    assert all(f"{p}: OK" in out for p in only_check)

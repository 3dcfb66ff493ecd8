"""The ``typedgen`` command line, run in-process through ``main``."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import typedgen
from typedgen.cli import main

GRAMMARS = Path(__file__).resolve().parent / "grammars"
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 8}, "age": {"type": "integer"}},
    "required": ["name", "age"],
}


def _schema_file(tmp_path: Path, schema: object = SCHEMA) -> str:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    return str(path)


def _fails(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 2) -> str:
    assert main(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("typedgen: error:")
    assert "Traceback" not in captured.err
    return captured.err


def test_grammar_regex_is_canonical_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grammar", "--regex", "[a-c]{2}"]) == 0
    expected = str(typedgen.grammar_of(typedgen.Regex("[a-c]{2}")))
    assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n")


def test_grammar_lark_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grammar", "--grammar", str(GRAMMARS / "calc.lark")]) == 0
    expected = str(typedgen.grammar_of(typedgen.Lark(GRAMMARS / "calc.lark")))
    assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n")


def test_grammar_gbnf_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grammar", "--grammar", str(GRAMMARS / "arith.gbnf")]) == 0
    assert capsys.readouterr().out.strip()


def test_grammar_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grammar", "--choice", "red", "--choice", "blue"]) == 0
    expected = str(typedgen.grammar_of(typedgen.Choice("red", "blue")))
    assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n")


def test_grammar_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grammar", "--schema", _schema_file(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip("\n") == str(typedgen.grammar_of(SCHEMA)).rstrip("\n")
    assert "::=" in out


def test_grammar_lenient_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = {"type": "string", "format": "no-such-format"}
    assert main(["grammar", "--lenient", "--schema", _schema_file(tmp_path, schema)]) == 0
    assert capsys.readouterr().out.strip()


def test_explain_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--schema", _schema_file(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "maxLength" in out and "properties" in out


def test_explain_grammar_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--regex", "a+"]) == 0
    assert "enforced by the grammar" in capsys.readouterr().out


def test_explain_model_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "typedgen_cli_test_models"
    (tmp_path / f"{module}.py").write_text(
        "from pydantic import BaseModel, Field\n\n\n"
        "class Pet(BaseModel):\n"
        "    name: str = Field(max_length=12)\n"
        "    legs: int\n\n\n"
        "class Outer:\n"
        "    Pet = Pet\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    try:
        assert main(["explain", "--model-class", f"{module}:Pet"]) == 0
        out = capsys.readouterr().out
        assert out.startswith("Pet:") and "maxLength" in out
        assert main(["grammar", "--model-class", f"{module}:Outer.Pet"]) == 0
        assert capsys.readouterr().out.strip()
    finally:
        sys.modules.pop(module, None)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fails(capsys, ["grammar", "--schema", str(tmp_path / "absent.json")])
    _fails(capsys, ["grammar", "--grammar", str(tmp_path / "absent.lark")])


def test_bad_grammar_suffix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.ebnf"
    path.write_text("start: 'a'\n", encoding="utf-8")
    err = _fails(capsys, ["grammar", "--grammar", str(path)])
    assert ".lark" in err and ".gbnf" in err


def test_malformed_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(capsys, ["grammar", "--schema", _schema_file(tmp_path, {"type": "nonsense"})])
    assert "nonsense" in err


def test_invalid_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    _fails(capsys, ["explain", "--schema", str(path)])


def test_bad_grammar_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.gbnf"
    path.write_text("root ::= undefined-rule\n", encoding="utf-8")
    _fails(capsys, ["grammar", "--grammar", str(path)])


def test_bad_model_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    _fails(capsys, ["grammar", "--model-class", "no_such_module_xyz:Thing"])
    _fails(capsys, ["grammar", "--model-class", "json:NoSuchThing"])
    _fails(capsys, ["grammar", "--model-class", "json"])
    _fails(capsys, ["grammar", "--model-class", "json:dumps"])


def test_lenient_needs_schema(capsys: pytest.CaptureFixture[str]) -> None:
    _fails(capsys, ["grammar", "--lenient", "--regex", "a"])


def test_source_is_required_and_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as missing:
        main(["grammar"])
    assert missing.value.code == 2
    with pytest.raises(SystemExit) as both:
        main(["grammar", "--regex", "a", "--choice", "b"])
    assert both.value.code == 2
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv", [[], ["grammar"], ["explain"], ["generate"]], ids=["top", "grammar", "explain", "gen"]
)
def test_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: typedgen")
    if argv:
        assert "--schema" in out and "--model-class" in out


def test_python_m_typedgen_help() -> None:
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "typedgen", "--help"],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "grammar" in done.stdout and "generate" in done.stdout


class _FakeDetails:
    def __init__(self, value: object) -> None:
        self.value = value
        self.text = json.dumps(value)
        self.reasoning = "thinking"
        self.prompt_tokens = 7
        self.sampled_tokens = 3
        self.forced_tokens = 2
        self.seconds = 0.5
        self.attempts = ("first", "second")
        self.closed_early = True


def test_generate_with_fake_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[object, str, dict[str, Any]]] = []

    def fake_generate(output_type: object, prompt: str, **kwargs: Any) -> object:
        calls.append((output_type, prompt, kwargs))
        value = {"answer": "ünïcode", "n": [1, 2]}
        return _FakeDetails(value) if kwargs["return_details"] else value

    monkeypatch.setattr(typedgen, "generate", fake_generate, raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("from stdin\n"))
    argv = ["generate", "--regex", "x", "--prompt", "-", "--max-tokens", "5", "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {"answer": "ünïcode", "n": [1, 2]} and "ünïcode" in out
    output_type, prompt, kwargs = calls[-1]
    assert output_type == typedgen.Regex("x") and prompt == "from stdin"
    assert kwargs == {
        "model": None,
        "reasoning": False,
        "return_details": False,
        "instructions": True,
        "max_tokens": 5,
        "seed": 3,
    }

    argv = ["generate", "--choice", "a", "--prompt", "p", "--details", "--reasoning"]
    assert main([*argv, "--no-instructions"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["n"] == [1, 2]
    assert "7 prompt tokens" in captured.err and "thinking" in captured.err
    assert "2 attempt(s)" in captured.err and "closed early" in captured.err
    assert calls[-1][2]["reasoning"] is True and calls[-1][2]["return_details"] is True
    assert calls[-1][2]["instructions"] is False
    assert main([*argv[:-1], "--reasoning", "fenced"]) == 0
    assert calls[-1][2]["reasoning"] == "fenced"


def test_generate_passes_every_decoding_option(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def fake_generate(output_type: object, prompt: str, **kwargs: Any) -> object:
        calls.append(kwargs)
        return "x"

    monkeypatch.setattr(typedgen, "generate", fake_generate, raising=False)
    argv = ["generate", "--regex", "x", "--prompt", "p", "--max-tokens", "9"]
    argv += ["--temperature", "0.7", "--top-k", "5", "--top-p", "0.9", "--seed", "1"]
    argv += ["--beams", "3", "--jump-forward", "exact", "--on-max-tokens", "finish"]
    argv += ["--retries", "4"]
    assert main(argv) == 0
    assert calls[-1] == {
        "model": None,
        "reasoning": False,
        "return_details": False,
        "max_tokens": 9,
        "temperature": 0.7,
        "top_k": 5,
        "top_p": 0.9,
        "seed": 1,
        "num_beams": 3,
        "jump_forward": "exact",
        "on_max_tokens": "finish",
        "max_retries": 4,
        "instructions": True,
    }
    # Every option of the CLI is one typedgen.generate knows (an unknown one would be a
    # TypeError there, not a CLI error).
    from typedgen.generation import _Settings

    assert set(calls[-1]) - {"model", "reasoning", "return_details"} <= set(
        _Settings.__dataclass_fields__
    )


def test_generate_refuses_a_bad_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["generate", "--regex", "x", "--prompt", "p", "--on-max-tokens", "stop"])
    assert info.value.code == 2
    assert "--on-max-tokens" in capsys.readouterr().err


def test_generate_failure_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class DecodeError(typedgen.TypedgenError):
        default_code = "decode"

    def failing(output_type: object, prompt: str, **kwargs: Any) -> object:
        raise DecodeError("no token allowed")

    monkeypatch.setattr(typedgen, "generate", failing, raising=False)
    err = _fails(capsys, ["generate", "--regex", "x", "--prompt", "p"], code=1)
    assert "no token allowed" in err


def _generate_or_skip(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    from typedgen._bundled import MissingBundledModelError, smollm2_gguf_path

    try:
        smollm2_gguf_path()
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except (MissingBundledModelError, ImportError) as exc:
        pytest.skip(f"default model unavailable: {exc}")
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out.removesuffix("\n")


@pytest.mark.model
def test_generate_regex_with_default_model(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "--regex", "(yes|no)", "--prompt", "Is water wet?", "--temperature", "0"]
    out = _generate_or_skip(capsys, argv)
    assert re.fullmatch("(yes|no)", out), out


@pytest.mark.model
def test_generate_with_decoding_options_on_default_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["generate", "--regex", "[a-z]{3,40}", "--prompt", "Say a long word.", "--beams", "2"]
    argv += ["--max-tokens", "3", "--on-max-tokens", "finish", "--jump-forward", "off"]
    out = _generate_or_skip(capsys, argv)
    assert re.fullmatch("[a-z]{3,40}", out), out


@pytest.mark.model
def test_generate_choice_with_default_model(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "--choice", "red", "--choice", "blue", "--prompt", "Name a colour."]
    out = _generate_or_skip(capsys, argv)
    assert out in {"red", "blue"}, out

"""The ``typedgen`` command line: ``grammar``, ``explain``, ``generate`` and ``check``."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typedgen
from typedgen.errors import CliError, TypedgenError

__all__ = ["main"]

_GRAMMAR_SUFFIXES = {".lark": "Lark", ".gbnf": "Gbnf"}
_GENERATION_FAILURES = frozenset({"DecodeError", "IncompleteOutputError", "ValidationFailed"})
_DECODING = (
    "max_tokens",
    "temperature",
    "top_k",
    "top_p",
    "seed",
    "num_beams",
    "jump_forward",
    "on_max_tokens",
    "max_retries",
)
"""The ``generate`` options passed through to :func:`typedgen.generate` when given."""


def _add_source(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    group = parser.add_argument_group("output type (exactly one)")
    source = group.add_mutually_exclusive_group(required=required)
    source.add_argument("--schema", metavar="FILE", help="a JSON Schema file")
    source.add_argument(
        "--model-class",
        metavar="MODULE:CLASS",
        help="a Pydantic model or type, e.g. app.models:User",
    )
    source.add_argument("--grammar", metavar="FILE", help="a grammar file (.lark or .gbnf)")
    source.add_argument("--regex", metavar="PATTERN", help="text fully matched by a regex")
    source.add_argument(
        "--choice", metavar="TEXT", action="append", help="one allowed string (repeat the option)"
    )
    group.add_argument(
        "--lenient",
        action="store_true",
        help="with --schema: leave keywords the grammar cannot enforce to a validator",
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="typedgen",
        description="Typed, grammar-constrained output from local language models.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {typedgen.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    grammar = commands.add_parser(
        "grammar",
        help="print the canonical IR grammar of an output type",
        description="Print the canonical IR text of an output type's grammar: give a grammar"
        " file (.lark, .gbnf), a library grammar's name, a DSL class (MODULE:CLASS), or one of"
        " the options below.",
        allow_abbrev=False,
    )
    grammar.add_argument(
        "file",
        nargs="?",
        metavar="GRAMMAR",
        help="a .lark/.gbnf file, a grammar library name, or MODULE:CLASS",
    )
    _add_source(grammar, required=False)
    _add_grammar_options(grammar)
    grammar.set_defaults(command_parser=grammar)
    explain = commands.add_parser(
        "explain",
        help="show how each schema keyword is honoured",
        description="Show, for every schema keyword, whether the grammar enforces it, a"
        " validator checks it after decoding, or it is refused.",
        allow_abbrev=False,
    )
    _add_source(explain)
    generate = commands.add_parser(
        "generate",
        help="generate a value of an output type with a model",
        description="Generate output constrained to an output type and print the value.",
        allow_abbrev=False,
    )
    _add_source(generate)
    generate.add_argument("--prompt", required=True, help="the prompt text; '-' reads stdin")
    generate.add_argument(
        "--model",
        metavar="NAME_OR_PATH",
        help="a .gguf file, model folder or id (default: bundled)",
    )
    decoding = generate.add_argument_group("decoding (defaults: those of typedgen.generate)")
    decoding.add_argument("--max-tokens", type=int, metavar="N", help="token budget (512)")
    decoding.add_argument("--temperature", type=float, metavar="T", help="0 decodes greedily")
    decoding.add_argument("--top-k", type=int, metavar="K", help="sample among the K most likely")
    decoding.add_argument(
        "--top-p", type=float, metavar="P", help="sample within probability mass P"
    )
    decoding.add_argument("--seed", type=int, metavar="S", help="random seed for sampling")
    decoding.add_argument(
        "--beams", type=int, metavar="B", dest="num_beams", help="beam search with B beams"
    )
    decoding.add_argument(
        "--jump-forward",
        choices=("force", "exact", "off"),
        help="how bytes the grammar forces are written (default: force)",
    )
    decoding.add_argument(
        "--on-max-tokens",
        choices=("raise", "finish"),
        help="at the budget: fail, or close the output with the grammar's shortest completion",
    )
    decoding.add_argument(
        "--retries",
        type=int,
        metavar="R",
        dest="max_retries",
        help="attempts after one that fails validation (2)",
    )
    generate.add_argument(
        "--reasoning",
        nargs="?",
        const=True,
        default=False,
        choices=[True, "fenced"],
        help='let the model reason first (a "Reasoning:" line; "fenced": free text, then the'
        " output in a code block)",
    )
    generate.add_argument(
        "--no-instructions",
        dest="instructions",
        action="store_false",
        help="leave the description of the output type out of the prompt",
    )
    generate.add_argument(
        "--details", action="store_true", help="also print token counts and timing to stderr"
    )
    check = commands.add_parser(
        "check",
        help="check that a grammar accepts sample files",
        description="Feed each sample file to the grammar (typedgen's matcher, byte by byte) and"
        " to a second opinion (lark's parser for Lark grammars, the class's parse() for DSL"
        " classes); print OK, or where the text stops matching and what was expected. Exit"
        " status 1 when a sample fails or the two disagree.",
        allow_abbrev=False,
    )
    check.add_argument(
        "grammar",
        metavar="GRAMMAR",
        help="a .lark/.gbnf file, a grammar library name, or MODULE:CLASS (a DSL class)",
    )
    check.add_argument("samples", nargs="+", metavar="SAMPLE", help="text files to check")
    _add_grammar_options(check)
    return parser


def _add_grammar_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--start", metavar="RULE", help="the start rule of a grammar file")
    parser.add_argument(
        "--lexer",
        choices=("contextual", "basic", "dynamic", "dynamic_complete"),
        help="the lexer of a .lark grammar (default: contextual, or the library grammar's own)",
    )


def _import_object(spec: str) -> object:
    """``module:attr.path`` imported with the current directory on ``sys.path``."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise CliError(f"--model-class wants MODULE:CLASS, got {spec!r}")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    importlib.invalidate_caches()
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise CliError(f"cannot import module {module_name!r}: {exc}") from exc
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise CliError(f"{spec!r}: {exc}") from exc
    return obj


def _read_schema(file: str) -> Any:
    with open(file, encoding="utf-8") as handle:
        try:
            return json.load(handle)
        except json.JSONDecodeError as exc:
            raise CliError(f"{file}: not valid JSON: {exc}") from exc


def _output_type(args: argparse.Namespace, *, lower_lenient: bool) -> object:
    """The output type the source options name (a lenient schema lowered when asked)."""
    if args.lenient and args.schema is None:
        raise CliError("--lenient only applies to --schema")
    if args.schema is not None:
        schema = _read_schema(args.schema)
        if args.lenient and lower_lenient:
            return typedgen.JsonSchema(schema, strict=False)
        return schema
    if args.model_class is not None:
        return _import_object(args.model_class)
    if args.grammar is not None:
        path = Path(args.grammar)
        kind = _GRAMMAR_SUFFIXES.get(path.suffix.lower())
        if kind is None:
            supported = ", ".join(sorted(_GRAMMAR_SUFFIXES))
            raise CliError(
                f"{path}: unknown grammar suffix {path.suffix!r} (supported: {supported})"
            )
        if not path.is_file():
            raise CliError(f"{path}: no such file")
        return typedgen.Lark(path) if kind == "Lark" else typedgen.Gbnf(path)
    if args.regex is not None:
        return typedgen.Regex(args.regex)
    return typedgen.Choice(*args.choice)


def _render(value: object) -> str:
    """A generated value as text: models and JSON data as indented JSON, strings as is."""
    from pydantic import BaseModel
    from pydantic_core import PydanticSerializationError, to_jsonable_python

    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json(indent=2)
    if value is None or isinstance(value, dict | list | tuple | int | float | bool):
        try:
            return json.dumps(to_jsonable_python(value), indent=2, ensure_ascii=False)
        except (TypeError, ValueError, PydanticSerializationError):
            return str(value)
    return str(value)


def _write(text: str, stream: Any = None) -> None:
    out = sys.stdout if stream is None else stream
    out.write(text if text.endswith("\n") else text + "\n")


def _generate(args: argparse.Namespace) -> None:
    generate = getattr(typedgen, "generate", None)
    if generate is None:
        raise CliError("typedgen.generate is not available in this version of typedgen")
    output_type = _output_type(args, lower_lenient=True)
    prompt = sys.stdin.read().removesuffix("\n") if args.prompt == "-" else args.prompt
    model = typedgen.load_model(args.model) if args.model is not None else None
    options: dict[str, Any] = {
        name: getattr(args, name) for name in _DECODING if getattr(args, name) is not None
    }
    result = generate(
        output_type,
        prompt,
        model=model,
        reasoning=args.reasoning,
        return_details=args.details,
        instructions=args.instructions,
        **options,
    )
    if not args.details:
        _write(_render(result))
        return
    _write(_render(result.value))
    if getattr(result, "reasoning", None):
        _write(f"reasoning: {result.reasoning}", sys.stderr)
    _write(
        f"typedgen: {result.prompt_tokens} prompt tokens, {result.sampled_tokens} sampled,"
        f" {result.forced_tokens} forced, {len(result.attempts)} attempt(s),"
        f" {result.seconds:.2f}s{', closed early' if result.closed_early else ''}",
        sys.stderr,
    )


def _named_grammar(
    spec: str, start: str | None, lexer: str | None
) -> tuple[object, tuple[str, Callable[[str], object]] | None]:
    """A GRAMMAR argument as an output type, and the second opinion that checks its texts."""
    path = Path(spec)
    if path.suffix.lower() not in _GRAMMAR_SUFFIXES and ":" in spec and not path.exists():
        obj = _import_object(spec)
        from typedgen.outputs import binder_for

        if start is not None or lexer is not None:
            raise CliError("--start and --lexer apply to grammar files, not to MODULE:CLASS")
        name = getattr(obj, "__name__", type(obj).__name__)
        return obj, (f"{name}.parse" if hasattr(obj, "parse") else name, binder_for(obj))
    if path.suffix.lower() not in _GRAMMAR_SUFFIXES and not path.exists():
        try:
            from typedgen import grammars
        except ImportError:  # pragma: no cover - the library ships with typedgen
            raise CliError(f"{spec}: no such file") from None
        # Checking files: the library grammar's wider language (unbounded separators).
        path = grammars.path(spec, "check")
        lexer = lexer or grammars.lexer(spec, "check")
    kind = _GRAMMAR_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        supported = ", ".join(sorted(_GRAMMAR_SUFFIXES))
        raise CliError(f"{path}: unknown grammar suffix {path.suffix!r} (supported: {supported})")
    if not path.is_file():
        raise CliError(f"{path}: no such file")
    if kind == "Gbnf":
        if lexer is not None:
            raise CliError("--lexer applies to .lark grammars")
        return typedgen.Gbnf(path, start=start or "root"), None
    lark_type = typedgen.Lark(path, start=start or "start", lexer=lexer or "contextual")
    return lark_type, ("lark", _lark_oracle(path, start or "start", lexer or "contextual"))


def _lark_oracle(path: Path, start: str, lexer: str) -> Callable[[str], object]:
    """lark's own Earley parser for a grammar file (built on first use)."""
    parsers: list[Any] = []

    def parse(text: str) -> object:
        if not parsers:
            import lark

            parsers.append(
                lark.Lark(
                    path.read_text(encoding="utf-8"),
                    start=start,
                    parser="earley",
                    lexer="dynamic_complete" if lexer == "dynamic_complete" else "dynamic",
                    import_paths=[path.parent],
                    source_path=str(path),
                )
            )
        return parsers[0].parse(text)

    return parse


def _check(args: argparse.Namespace) -> int:
    from typedgen.grammar_check import check_sample, compile_for_check

    output_type, oracle = _named_grammar(args.grammar, args.start, args.lexer)
    compiled = compile_for_check(typedgen.grammar_of(output_type))
    failures = 0
    for sample in args.samples:
        try:
            data = Path(sample).read_bytes()
        except OSError as exc:
            raise CliError(f"{sample}: cannot read: {exc.strerror or exc}") from exc
        report = check_sample(compiled, data, sample, oracle)
        _write(report.render())
        failures += not report.ok
    if len(args.samples) > 1:
        _write(f"{len(args.samples) - failures} of {len(args.samples)} samples OK")
    return 1 if failures else 0


def _grammar_command(args: argparse.Namespace) -> None:
    parser: argparse.ArgumentParser = args.command_parser
    given = any(
        getattr(args, name) is not None
        for name in ("schema", "model_class", "grammar", "regex", "choice")
    )
    if args.file is not None and given:
        parser.error("give GRAMMAR or one of the source options, not both")
    if args.file is None and not given:
        parser.error("give GRAMMAR or one of --schema --model-class --grammar --regex --choice")
    if args.file is not None:
        output_type, _ = _named_grammar(args.file, args.start, args.lexer)
    else:
        if args.start is not None or args.lexer is not None:
            raise CliError("--start and --lexer apply to a GRAMMAR argument")
        output_type = _output_type(args, lower_lenient=True)
    _write(str(typedgen.grammar_of(output_type)))


def _run(args: argparse.Namespace) -> int:
    if args.command == "check":
        return _check(args)
    if args.command == "grammar":
        _grammar_command(args)
    elif args.command == "explain":
        _write(str(typedgen.explain(_output_type(args, lower_lenient=False))))
    else:
        _generate(args)
    return 0


def _is_generation_failure(exc: BaseException) -> bool:
    return any(cls.__name__ in _GENERATION_FAILURES for cls in type(exc).__mro__)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 generation failed, 2 bad input)."""
    args = _build_parser().parse_args(argv)
    try:
        status = _run(args)
    except (TypedgenError, CliError, OSError) as exc:
        _write(f"typedgen: error: {exc}", sys.stderr)
        return 1 if _is_generation_failure(exc) else 2
    except KeyboardInterrupt:
        _write("typedgen: interrupted", sys.stderr)
        return 130
    return status

"""The public surface: curated names, and importing typedgen stays light."""

from __future__ import annotations

import subprocess
import sys

import typedgen

EXPECTED = {
    "JsonSchema",
    "generate",
    "ValidationFailed",
    "StreamEvent",
    "LogitsProcessor",
    "IncompleteOutputError",
    "Generator",
    "GenerationError",
    "Details",
    "DecodeError",
    "DSL",
    "Fault",
    "KeyEvent",
    "LoopEvent",
    "LoopGuard",
    "PromptWarning",
    "Repair",
    "Attempt",
    "BindingError",
    "CliError",
    "EngineUnavailableError",
    "DSLValueError",
    "ErrorCode",
    "MissingBundledModelError",
    "ModelLoadError",
    "OptionError",
    "UnknownOptionError",
    "Choice",
    "CompileBudgetError",
    "CompileError",
    "CompileWarning",
    "CompiledGrammar",
    "Compiler",
    "EngineLimits",
    "apply_token_bitmask",
    "fill_batch",
    "Explanation",
    "Gbnf",
    "GrammarError",
    "Lark",
    "LoadedModel",
    "Matcher",
    "Reasoning",
    "Scratchpad",
    "Regex",
    "SchemaError",
    "Sql",
    "SqlDialect",
    "TypedgenError",
    "UnsupportedFeatureError",
    "UnsupportedSchemaError",
    "Vocabulary",
    "VocabularyError",
    "Whitespace",
    "__version__",
    "compile",
    "grammars",
    "explain",
    "grammar_of",
    "instructions_for",
    "load_model",
    "OutputAdapter",
    "register_adapter",
    "unregister_adapter",
}


def test_all_is_the_curated_surface() -> None:
    assert set(typedgen.__all__) == EXPECTED
    for name in typedgen.__all__:
        assert hasattr(typedgen, name), name


def test_import_does_not_load_torch_or_transformers() -> None:
    code = (
        "import sys, typedgen, typedgen.ir; "
        "heavy = {'torch', 'transformers', 'lark'} & set(sys.modules); "
        "print(','.join(sorted(heavy)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing typedgen loaded {out.stdout.strip()}"


def test_output_type_markers_give_grammars() -> None:
    assert typedgen.grammar_of(typedgen.Choice("yes", "no")).start == "start"
    assert typedgen.grammar_of(typedgen.Regex(r"\d+")).start == "start"
    assert typedgen.grammar_of(typedgen.Gbnf('root ::= "a"')).start == "root"
    assert typedgen.grammar_of(typedgen.Lark('start: "a"')).start == "start"

"""typedgen: typed, grammar-constrained output from language models.

Importing typedgen never imports torch or transformers.
"""

from typedgen import frontends as _frontends  # registers Grammar.from_<format>
from typedgen import grammars
from typedgen._version import __version__
from typedgen.api import compile, grammar_of, instructions_for
from typedgen.compiler.compiled import CompiledGrammar, EngineLimits
from typedgen.compiler.grammar_compiler import Compiler
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.decoding.json_keys import KeyEvent
from typedgen.decoding.loops import LoopEvent, LoopGuard
from typedgen.decoding.processor import LogitsProcessor
from typedgen.decoding.sampling import apply_token_bitmask
from typedgen.dsl import DSL
from typedgen.errors import (
    BindingError,
    CliError,
    CompileBudgetError,
    CompileError,
    CompileWarning,
    DecodeError,
    DSLValueError,
    EngineUnavailableError,
    ErrorCode,
    Fault,
    GenerationError,
    GrammarError,
    IncompleteOutputError,
    MissingBundledModelError,
    ModelLoadError,
    OptionError,
    PromptWarning,
    SchemaError,
    TypedgenError,
    UnknownOptionError,
    UnsupportedFeatureError,
    UnsupportedSchemaError,
    ValidationFailed,
    VocabularyError,
)
from typedgen.explain import Explanation, explain
from typedgen.frontends.jsonschema.layout import Whitespace
from typedgen.frontends.jsonschema.pydantic import Reasoning
from typedgen.frontends.sql import Sql, SqlDialect
from typedgen.generation import Details, Generator, StreamEvent, generate
from typedgen.models import LoadedModel, load_model
from typedgen.outputs import OutputAdapter, register_adapter, unregister_adapter
from typedgen.reasoning import Scratchpad
from typedgen.repair import Repair
from typedgen.runtime import fill_batch
from typedgen.runtime.matcher import Matcher
from typedgen.types import Choice, Gbnf, JsonSchema, Lark, Regex
from typedgen.validation import Attempt

del _frontends

__all__ = [
    "DSL",
    "Attempt",
    "BindingError",
    "Choice",
    "CliError",
    "CompileBudgetError",
    "CompileError",
    "CompileWarning",
    "CompiledGrammar",
    "Compiler",
    "DSLValueError",
    "DecodeError",
    "Details",
    "EngineLimits",
    "EngineUnavailableError",
    "ErrorCode",
    "Explanation",
    "Fault",
    "Gbnf",
    "GenerationError",
    "Generator",
    "GrammarError",
    "IncompleteOutputError",
    "JsonSchema",
    "KeyEvent",
    "Lark",
    "LoadedModel",
    "LogitsProcessor",
    "LoopEvent",
    "LoopGuard",
    "Matcher",
    "MissingBundledModelError",
    "ModelLoadError",
    "OptionError",
    "OutputAdapter",
    "PromptWarning",
    "Reasoning",
    "Regex",
    "Repair",
    "SchemaError",
    "Scratchpad",
    "Sql",
    "SqlDialect",
    "StreamEvent",
    "TypedgenError",
    "UnknownOptionError",
    "UnsupportedFeatureError",
    "UnsupportedSchemaError",
    "ValidationFailed",
    "Vocabulary",
    "VocabularyError",
    "Whitespace",
    "__version__",
    "apply_token_bitmask",
    "compile",
    "explain",
    "fill_batch",
    "generate",
    "grammar_of",
    "grammars",
    "instructions_for",
    "load_model",
    "register_adapter",
    "unregister_adapter",
]

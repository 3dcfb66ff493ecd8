"""typedgen: typed, grammar-constrained output from language models.

Importing typedgen never imports torch or transformers.
"""

from typedgen import frontends as _frontends  # registers Grammar.from_<format>
from typedgen._version import __version__
from typedgen.api import compile, grammar_of
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import (
    CompileBudgetError,
    CompileError,
    GrammarError,
    SchemaError,
    TypedgenError,
    UnsupportedFeatureError,
    UnsupportedSchemaError,
    VocabularyError,
)
from typedgen.explain import Explanation, explain
from typedgen.frontends.jsonschema.layout import Whitespace
from typedgen.frontends.jsonschema.pydantic import Reasoning
from typedgen.models import LoadedModel, load_model
from typedgen.runtime.matcher import Matcher
from typedgen.types import Choice, Gbnf, Lark, Regex

del _frontends

__all__ = [
    "Choice",
    "CompileBudgetError",
    "CompileError",
    "CompiledGrammar",
    "Explanation",
    "Gbnf",
    "GrammarError",
    "Lark",
    "LoadedModel",
    "Matcher",
    "Reasoning",
    "Regex",
    "SchemaError",
    "TypedgenError",
    "UnsupportedFeatureError",
    "UnsupportedSchemaError",
    "Vocabulary",
    "VocabularyError",
    "Whitespace",
    "__version__",
    "compile",
    "explain",
    "grammar_of",
    "load_model",
]

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
    TypedgenError,
    UnsupportedFeatureError,
    VocabularyError,
)
from typedgen.models import LoadedModel, load_model
from typedgen.runtime.matcher import Matcher
from typedgen.types import Choice, Gbnf, Lark, Regex

del _frontends

__all__ = [
    "Choice",
    "CompileBudgetError",
    "CompileError",
    "CompiledGrammar",
    "Gbnf",
    "GrammarError",
    "Lark",
    "LoadedModel",
    "Matcher",
    "Regex",
    "TypedgenError",
    "UnsupportedFeatureError",
    "Vocabulary",
    "VocabularyError",
    "__version__",
    "compile",
    "grammar_of",
    "load_model",
]

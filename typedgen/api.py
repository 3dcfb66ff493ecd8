"""The facade: ``grammar_of``, ``instructions_for`` and ``compile``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.grammar_compiler import Compiler, compile_grammar
from typedgen.outputs import grammar_of, instructions_for

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary

__all__ = ["compile", "grammar_of", "instructions_for"]


def compile(
    grammar_or_output_type: object,
    vocabulary: Vocabulary,
    *,
    cache: bool = True,
    compiler: Compiler | None = None,
) -> CompiledGrammar:
    """Compile a grammar or output type for a vocabulary; cached by (IR hash, vocabulary).

    ``compiler`` chooses the caches, engine and limits (default: the process-wide
    :class:`~typedgen.Compiler`). Raises :class:`~typedgen.errors.GrammarError` for bad
    grammars and :class:`~typedgen.errors.CompileError` when a compile budget runs out.
    """
    return compile_grammar(
        grammar_of(grammar_or_output_type), vocabulary, cache=cache, compiler=compiler
    )

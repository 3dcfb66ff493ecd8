"""Exporting a grammar as Lark or GBNF text, so that other engines can serve it too.

``Grammar.to_lark()`` writes lark's own syntax (or, with ``dialect="llguidance"``, llguidance's
Lark dialect); ``Grammar.to_gbnf()`` writes llama.cpp's GBNF. Both keep the language of the IR
grammar, and say in a header comment where the target format forces an approximation:

* **Lark.** Rules become lark rules, terminals lark terminals with their priority and tree shape
  (``_rule``, ``?rule``, ``!rule``, ``_TERM``), ``%ignore`` stays. Lark picks one lexer for the
  whole grammar, so the export names the one that matches the terminals' :class:`Lexing`
  (``dynamic_complete`` for free terminals, ``contextual``, ``basic``) and refuses a grammar that
  mixes modes unless ``lexer=`` accepts the approximation. ``&``/``~`` have no lark syntax: an
  equivalent plain regular expression is computed (see :mod:`typedgen.ir.passes.boolean`);
  llguidance's dialect writes them as they are but has no terminal priorities.
* **GBNF.** Scannerless: terminals become ordinary rules, ignored terminals are made explicit
  (``ignored`` after every lexeme and at the start), direct left recursion (which llama.cpp
  refuses) becomes repetition, repetition counts stay under llama.cpp's limit of 2000. The text
  denotes the grammar's language exactly when its terminals are free; longest-match lexing
  (``contextual``/``basic``) cannot be written in GBNF, so for such grammars it denotes the free
  reading, which accepts every text the grammar accepts and possibly more.

Names are mapped deterministically and without collisions to what each format allows. Output is
deterministic (golden-tested). Literals that are not valid UTF-8 have no representation in these
text formats and are refused with a :class:`~typedgen.errors.GrammarError` naming the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typedgen.ir.export.gbnf import write_gbnf
from typedgen.ir.export.lark import DIALECTS, LARK_LEXERS, export_lark

if TYPE_CHECKING:
    from typedgen.ir.grammar import Grammar

__all__ = ["DIALECTS", "GBNF_MAX_REPEAT", "LARK_LEXERS", "export_gbnf", "export_lark"]

GBNF_MAX_REPEAT = 2000
"""llama.cpp refuses repetition counts above this; larger ones are written as nested groups."""


def export_gbnf(grammar: Grammar) -> str:
    """llama.cpp GBNF text with the language of ``grammar`` (see the module docstring)."""
    return write_gbnf(grammar, max_repeat=GBNF_MAX_REPEAT)

"""Lark grammars -> the IR, denoting the language lark itself recognises.

``lark_grammar(text)`` (also ``Grammar.from_lark(text)``) reads Lark's grammar syntax — rules,
terminals with priorities, ``"literal"i``, ``/regexp/flags``, ``"a".."z"``, EBNF operators,
``x ~ n..m``, templates, aliases, ``%ignore``, ``%import`` (lark's bundled ``common`` grammars,
an ``imports`` mapping, or files under ``import_paths``), ``%override`` and ``%extend`` — plus
llguidance's ``&``/``~`` between terminal patterns and its ``x{m,n}`` ranges. Lark's naming and
tree conventions are kept: anonymous literals become terminals named as lark names them (``LPAR``,
``IF``, ``__ANON_0``), ``_rule``/``?rule``/``!rule`` and ``_TERM`` become :class:`TreeShape` flags.

Rule priorities (``rule.2:``) and aliases (``-> name``) only steer lark's tree building, never
the language: they are accepted and not recorded. ``%declare`` and llguidance's other extensions
are refused with :class:`~typedgen.errors.UnsupportedFeatureError`.

Terminals follow lark's lexer (see :mod:`typedgen.frontends.lark.terminals`): look-arounds may
span a terminal's parts, and lazy loops (``".*?"``) end at the first delimiter. Terminals that
only other terminals use stay lexical rules (``common__INT``), as fragments of the tokens that
use them. Lark builds grammars whose rules derive nothing; those rules (and the alternatives
that need them) are dropped here, since they match nothing anyway.

The package is split by stage: :mod:`.syntax` parses the text (lark's meta-grammar),
:mod:`.loader` assembles definitions (imports, namespaces, ``%override``/``%extend``),
:mod:`.terminals` turns terminal definitions into IR with lark's matching semantics (helped by
:mod:`.lookaround` for assertions and :mod:`.lazy` for lazy quantifiers), :mod:`.embeds` fills
embedded holes with other grammars, and :mod:`.lower` builds the IR grammar.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from typedgen.errors import GrammarError
from typedgen.frontends.lark.embeds import make_holes
from typedgen.frontends.lark.loader import Loader
from typedgen.frontends.lark.lower import Converter
from typedgen.ir.grammar import Grammar, Lexing, register_format
from typedgen.ir.origin import Origin

__all__ = ["lark_grammar"]

_LEXERS = {
    "contextual": Lexing.CONTEXTUAL,
    "basic": Lexing.BASIC,
    "dynamic": Lexing.FREE,
    "dynamic_complete": Lexing.FREE,
}


def lark_grammar(
    text: str,
    *,
    start: str = "start",
    lexer: str = "contextual",
    source: str = "<lark>",
    imports: Mapping[str, str] | None = None,
    import_paths: Sequence[str | Path] = (),
    keep_all_tokens: bool = False,
    embeds: Mapping[str, Grammar] | None = None,
) -> Grammar:
    """The IR of a Lark grammar, starting at rule ``start``.

    ``lexer`` names lark's lexer and sets every terminal's :class:`Lexing`: ``contextual``
    (default) and ``basic`` keep lark's longest-match lexing, ``dynamic``/``dynamic_complete``
    give the plain context-free language (what lark's Earley ``dynamic_complete`` accepts).
    ``imports`` maps module names (``"csv"`` for ``%import .csv.start``) to grammar text;
    ``import_paths`` are folders searched for ``<module>.lark`` (after them, the folder of
    ``source`` when it names a file, for relative imports, and lark's bundled grammars).
    ``keep_all_tokens`` is lark's option of that name. Unused rules and terminals are dropped,
    as lark drops them. Errors carry ``source:line:column`` and a stable code.

    ``embeds`` maps names to grammars that fill them (see :mod:`typedgen.frontends.lark.embeds`):
    a rule or terminal the text ``%declare``s, defines as a placeholder, or only refers to.
    """
    lexing = _LEXERS.get(lexer)
    if lexing is None:
        raise GrammarError(
            f"unknown lark lexer {lexer!r}",
            code="lark-lexer",
            origin=Origin(source),
            hint=f"use one of {', '.join(_LEXERS)}",
        )
    loader = Loader(imports, import_paths)
    base_dir = Path(source).parent if source and os.path.isfile(source) else None
    loader.load(text, source, None, base_dir)
    embeds = dict(embeds or {})
    make_holes(loader.defs, embeds, source)
    loader.validate()
    return Converter(loader, lexing, keep_all_tokens, source).build(start, embeds)


register_format("lark", lark_grammar)

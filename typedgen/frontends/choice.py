"""A fixed set of strings lowered to the IR: the language is exactly the given options."""

from __future__ import annotations

from collections.abc import Sequence

from typedgen.errors import GrammarError
from typedgen.ir.grammar import Grammar, Lexing, Rule, register_format
from typedgen.ir.nodes import Alt, Expr, Lit
from typedgen.ir.origin import Origin
from typedgen.ir.passes import simplify

__all__ = ["choice_grammar"]

_ORIGIN = Origin("<choice>")


def choice_grammar(options: Sequence[str], *, name: str = "start") -> Grammar:
    """A one-terminal grammar matching exactly ``options`` (freely lexed, duplicates merged).

    A bare ``str`` is refused rather than read as a sequence of one-character options.
    """
    if isinstance(options, str | bytes):
        raise GrammarError(
            "choice options must be a sequence of strings, not a single string",
            code="bad-choice",
            origin=_ORIGIN,
            hint=f"pass a list, e.g. [{options!r}]",
        )
    if not options:
        raise GrammarError(
            "a choice needs at least one option",
            code="empty-choice",
            origin=_ORIGIN,
            hint="an empty choice matches nothing; pass the allowed strings",
        )
    literals: list[Expr] = []
    for index, option in enumerate(options):
        where = _ORIGIN.at(f"[{index}]")
        if not isinstance(option, str):
            raise GrammarError(
                f"choice option {index} is {type(option).__name__}, not str",
                code="bad-choice",
                origin=where,
                hint="convert the option to text first",
            )
        try:
            literals.append(Lit.text(option, origin=where))
        except UnicodeEncodeError:
            raise GrammarError(
                f"choice option {index} ({option!r}) contains a lone surrogate",
                code="bad-choice",
                origin=where,
                hint="UTF-8 text cannot contain surrogates; fix the string's decoding",
            ) from None
    body = simplify(Alt(tuple(literals), origin=_ORIGIN))
    rule = Rule(name, body, lexical=True, lexing=Lexing.FREE, origin=_ORIGIN)
    return Grammar([rule], name, origin=_ORIGIN)


register_format("choice", choice_grammar)

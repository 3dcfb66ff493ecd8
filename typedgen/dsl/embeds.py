"""What may fill a DSL's hole: any typedgen output type, with two shorthands.

An embed (``embeds = {"env": Env}`` or ``with_params(OBJECT=["cup", "ball"])``) is any output
type. Shorthands: a list (tuple, set) of strings is ``Choice(...)``; an ``Enum`` class is the
choice of its values, written bare (not as JSON strings) and bound to its members
(``typedgen.types.EnumWords``). How each embedded kind appears to typedgen's IR and to lark's
parser is its adapter's business (:mod:`typedgen.outputs`).
"""

from __future__ import annotations

import enum

from typedgen.errors import GrammarError
from typedgen.types import Choice, EnumWords

__all__ = ["normalize"]


def normalize(value: object, where: str) -> object:
    """The output type an embed value stands for (shorthands expanded)."""
    if isinstance(value, str | bytes):
        raise GrammarError(
            f"{where}: a bare string is ambiguous as an embedded type",
            code="dsl-embed",
            hint="pass a list of allowed strings, typedgen.Choice(...), typedgen.Regex(...) or"
            " typedgen.Lark(...)",
        )
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else list(value)
        if not items or not all(isinstance(item, str) for item in items):
            raise GrammarError(
                f"{where}: a list embeds as a choice and needs at least one string, all strings",
                code="dsl-embed",
                hint="pass e.g. ['cup', 'ball']",
            )
        return Choice(*items)
    if isinstance(value, type) and issubclass(value, enum.Enum):
        if not list(value):
            raise GrammarError(f"{where}: enum {value.__name__} has no members", code="dsl-embed")
        return EnumWords(value)
    return value

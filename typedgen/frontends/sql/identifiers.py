"""Identifier characters beyond letters, digits and ``_``, read from sqlglot's tokenizer.

sqlglot's tokenizer reads a word on through the characters of its ``VAR_SINGLE_TOKENS``:
T-SQL's and Oracle's ``Test#``, ``a$x#b``, ``V$SESSION`` and Oracle's database links
(``t@dblink``) are one plain identifier there, PostgreSQL's ``a$1`` too. A word terminal of
the grammar must read on through the same characters (longest match), or ``a@b`` would lex
as ``a`` then a parameter where sqlglot reads one name.
"""

from __future__ import annotations

import functools

from typedgen.ir.nodes import CharClass

__all__ = ["word_chars", "word_tail"]

_BASE = "_"


@functools.cache
def word_chars(dialect: str) -> str:
    """The characters other than letters, digits and ``_`` that continue a word."""
    import sqlglot

    tokenizer = sqlglot.Dialect.get_or_raise(dialect or None).tokenizer_class
    chars: set[str] = set(getattr(tokenizer, "VAR_SINGLE_TOKENS", ()))
    return "".join(sorted(c for c in chars if len(c) == 1 and c.isprintable() and not c.isalnum()))


def word_tail(dialect: str) -> CharClass:
    """A character that may follow the first one of an unquoted word in ``dialect``."""
    ranges = [
        (ord("A"), ord("Z")),
        (ord("a"), ord("z")),
        (ord("0"), ord("9")),
        (ord("_"), ord("_")),
    ]
    ranges += [(ord(c), ord(c)) for c in word_chars(dialect)]
    return CharClass(tuple(sorted(ranges)))


@functools.cache
def value_words(dialect: str) -> frozenset[str]:
    """Words sqlglot's parser reads as the head of a construct of their own where they start
    an expression (its ``NO_PAREN_FUNCTION_PARSERS``: Oracle's ``PRIOR a``,
    ``CONNECT_BY_ROOT a``), so that alone they are refused (``SELECT prior FROM t``): they
    name no column. Each is probed: one sqlglot reads alone (``DBMS_RANDOM``, ``SYSDATE``)
    stays."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    parser = sqlglot.Dialect.get_or_raise(dialect or None).parser_class
    out: set[str] = set()
    for word in getattr(parser, "NO_PAREN_FUNCTION_PARSERS", {}):
        if not word.replace("_", "").isalnum():
            continue
        try:
            tree = sqlglot.parse_one(f"SELECT {word} FROM t", read=dialect or None)
            alone = isinstance(tree, exp.Select) and len(tree.expressions) == 1
        except (SqlglotError, IndexError, TypeError, ValueError):
            alone = False
        if not alone:
            out.add(word.upper())
    return frozenset(out)

"""Dollar-quoted strings, ``$$...$$`` (PostgreSQL, DuckDB, Snowflake, ClickHouse...).

sqlglot reads ``$$it's$$`` as a raw string (``exp.RawString``) and writes it back as an
ordinary quoted string, ``'it''s'``, which it reads as a string literal of the same text: the
value is the same string, only its node class differs. So the probe here asks for exactly that
(:func:`dollar_strings`), and :func:`typedgen.frontends.sql.trees.same_tree` takes the two
spellings as one (what a round trip of a dollar-quoted string is compared by).

Tagged bodies (``$tag$...$tag$``) stay refused: the closer repeats the opener's tag, which no
finite grammar of the body can say for every tag, and a tag glued to a ``$`` lexes as a
reserved word (``RESERVED_PSTRING``/``RESERVED_GLUED_PARAM``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["DOLLAR_BODIES", "dollar_strings"]

DOLLAR_BODIES = ("a b", "it's", "a\\b", "x $1 y", "2\n3")
"""Bodies the probe writes between ``$$`` (a quote, a backslash, a ``$``, a line break): each
must come back as a string of the same text."""


def dollar_strings(tok: Any, dialect: Any) -> bool:
    """Whether the dialect's tokenizer reads ``$$...$$`` (``RAW_STRINGS`` or
    ``HEREDOC_STRINGS``) and every probe body comes back, written and read again, as a string
    literal of the same text."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    raw = getattr(tok, "RAW_STRINGS", ()) or ()
    heredoc = getattr(tok, "HEREDOC_STRINGS", ()) or ()
    if "$$" not in raw and "$" not in heredoc:
        return False
    for body in DOLLAR_BODIES:
        try:
            tree = sqlglot.parse_one(f"SELECT $${body}$$", read=dialect)
            again = sqlglot.parse_one(tree.sql(dialect=dialect), read=dialect)
        except (SqlglotError, ValueError, TypeError, AttributeError, KeyError, IndexError):
            return False
        first = tree.expressions[0] if isinstance(tree, exp.Select) else None
        second = again.expressions[0] if isinstance(again, exp.Select) else None
        if not (
            isinstance(first, exp.RawString)
            and first.this == body
            and isinstance(second, exp.Literal)
            and second.is_string
            and second.this == body
        ):
            return False
    return True

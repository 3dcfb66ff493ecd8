"""Probes of the keywords that may be bare aliases (``SELECT a year``, ``FROM t year``).

A keyword is a bare table or column alias in a dialect only where sqlglot reads it back as
that alias before *every* follower the grammar may put after the alias there. Each entry is
``(terminal, template)``: ``terminal`` names the grammar terminal that follows the alias (``""``:
the end of the text), and ``{}`` in ``template`` is the alias. An entry counts in a dialect
where the text with the plain alias ``x`` round-trips in it (the dialect has that follower
there); the word must then read as ``x`` does (as the alias; as a column where ``x`` is one,
the generic dialect's ``SELECT x = a``). The terminals are those the grammars
let follow the ``table_alias`` and ``column_alias`` rules (their FOLLOW sets, over every
dialect); ``tests/frontends/sql/test_alias_probes.py`` checks that every such terminal of every
dialect has an entry that counts there, so no follower goes unprobed.

:data:`COLUMN_ALIAS_AFTER` are expressions a column alias may follow whose end sqlglot may
continue with the next word (``a LIKE b ESCAPE``, ``COUNT(a) OVER``, ``INTERVAL '1' DAY TO``):
where the text with ``x`` round-trips, the word must read as ``x`` does (the unit of an
interval, where ``x`` is read so) or as the alias.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "COLUMN_ALIAS_AFTER",
    "COLUMN_ALIAS_PROBES",
    "CTE_NAME_PROBES",
    "TABLE_ALIAS_PROBES",
    "continuation_words",
]

_TAIL: tuple[tuple[str, str], ...] = (
    ("KW_WHERE", " WHERE b"),
    ("KW_WHERE", " WHERE b = 1"),
    ("KW_GROUP_BY", " GROUP BY a"),
    ("KW_GROUP", " GROUP BY a"),
    ("KW_GROUP", " GROUP BY ALL"),
    ("KW_HAVING", " HAVING b"),
    ("KW_HAVING", " HAVING b = 1"),
    ("KW_ORDER_BY", " ORDER BY a"),
    ("KW_ORDER", " ORDER BY a"),
    ("KW_ORDER_SIBLINGS_BY", " ORDER SIBLINGS BY a"),
    ("KW_LIMIT", " LIMIT 1"),
    ("KW_OFFSET", " OFFSET 1"),
    ("KW_OFFSET", " OFFSET 1 ROWS"),
    ("KW_FETCH", " FETCH FIRST 1 ROWS ONLY"),
    ("KW_UNION", " UNION SELECT 1"),
    ("KW_UNION", " UNION ALL SELECT 1"),
    ("KW_UNION", " UNION DISTINCT SELECT 1"),
    ("KW_INTERSECT", " INTERSECT SELECT 1"),
    ("KW_INTERSECT", " INTERSECT ALL SELECT 1"),
    ("KW_INTERSECT", " INTERSECT DISTINCT SELECT 1"),
    ("KW_EXCEPT", " EXCEPT SELECT 1"),
    ("KW_EXCEPT", " EXCEPT ALL SELECT 1"),
    ("KW_EXCEPT", " EXCEPT DISTINCT SELECT 1"),
    ("KW_MINUS", " MINUS SELECT 1"),
    ("KW_FULL", " FULL UNION ALL BY NAME SELECT 1"),
    ("KW_LEFT", " LEFT UNION ALL BY NAME SELECT 1"),
    ("KW_INNER", " INNER UNION ALL BY NAME SELECT 1"),
    ("KW_WINDOW", " WINDOW w AS ()"),
    ("KW_QUALIFY", " QUALIFY a"),
    ("KW_QUALIFY", " QUALIFY a = 1"),
    ("KW_CONNECT_BY", " CONNECT BY a = PRIOR b"),
    ("KW_CONNECT", " CONNECT BY NOCYCLE a = PRIOR b"),
    ("KW_START", " START WITH a = 1 CONNECT BY a = PRIOR b"),
    ("KW_FOR", " FOR UPDATE"),
    ("KW_FOR", " FOR SHARE"),
    ("KW_FOR", " FOR XML PATH"),
    ("KW_FOR", " FOR JSON AUTO"),
    ("KW_OPTION", " OPTION (RECOMPILE)"),
    ("KW_SETTINGS", " SETTINGS max_threads = 1"),
    ("KW_FORMAT", " FORMAT JSON"),
    ("KW_USING", " USING SAMPLE 10"),
    ("KW_USING", " USING SAMPLE 10%"),
    ("SEMICOLON", ";"),
    ("END_GAP", "\n\n"),  # generation's blank line after the statement (Terminals.end_gap)
)
"""Clauses that may follow the last alias of a ``SELECT`` (its column's or its table's)."""

COLUMN_ALIAS_PROBES: tuple[tuple[str, str], ...] = (
    ("KW_FROM", "SELECT a {} FROM t"),
    ("COMMA", "SELECT a {}, b FROM t"),
    ("COMMA", "SELECT a {}, b"),
    ("", "SELECT a {}"),
    ("RPAR", "SELECT * FROM (SELECT a {}) AS s"),
    ("RPAR", "SELECT (SELECT a {})"),
    ("EQ", "SELECT {} = a"),
    *((terminal, "SELECT a {}" + tail) for terminal, tail in _TAIL),
)
"""A column alias without ``AS``, before each follower."""

_JOINS: tuple[tuple[str, str], ...] = (
    ("KW_JOIN", " JOIN u ON a = b"),
    ("KW_JOIN", " JOIN u USING (a)"),
    ("KW_LEFT", " LEFT JOIN u ON a = b"),
    ("KW_LEFT", " LEFT OUTER JOIN u ON a = b"),
    ("KW_LEFT", " LEFT SEMI JOIN u ON a = b"),
    ("KW_LEFT", " LEFT ANTI JOIN u ON a = b"),
    ("KW_RIGHT", " RIGHT JOIN u ON a = b"),
    ("KW_FULL", " FULL JOIN u ON a = b"),
    ("KW_FULL", " FULL OUTER JOIN u ON a = b"),
    ("KW_INNER", " INNER JOIN u ON a = b"),
    ("KW_CROSS", " CROSS JOIN u"),
    ("KW_CROSS", " CROSS APPLY (SELECT 1) AS s"),
    ("KW_OUTER", " OUTER APPLY (SELECT 1) AS s"),
    ("KW_NATURAL", " NATURAL JOIN u"),
    ("KW_ANTI", " ANTI JOIN u ON a = b"),
    ("KW_SEMI", " SEMI JOIN u ON a = b"),
    ("KW_ASOF", " ASOF JOIN u ON a >= b"),
    ("KW_ASOF", " ASOF JOIN u MATCH_CONDITION (a >= b)"),
    ("KW_POSITIONAL", " POSITIONAL JOIN u"),
    ("KW_GLOBAL", " GLOBAL LEFT JOIN u ON a = b"),
    ("KW_ANY", " ANY LEFT JOIN u ON a = b"),
    ("KW_ALL", " ALL JOIN u ON a = b"),
    ("KW_ALL", " ALL LEFT JOIN u ON a = b"),
    ("KW_ARRAY", " ARRAY JOIN b"),
    ("KW_LEFT", " LEFT ARRAY JOIN b"),
    ("KW_STRAIGHT_JOIN", " STRAIGHT_JOIN u"),
    ("KW_LATERAL", " LATERAL VIEW EXPLODE(b) v AS c"),
    ("KW_LATERAL", " LATERAL VIEW OUTER EXPLODE(b) v AS c"),
)

_AFTER_TABLE: tuple[tuple[str, str], ...] = (
    ("LPAR", "(b, c)"),
    ("KW_WITH", " WITH (NOLOCK)"),
    ("KW_USE", " USE INDEX (i)"),
    ("KW_FORCE", " FORCE INDEX (i)"),
    ("KW_IGNORE", " IGNORE INDEX (i)"),
    ("KW_INDEXED", " INDEXED BY i"),
    ("KW_NOT", " NOT INDEXED"),
    ("KW_AT", " AT (VERSION => 1)"),
    ("KW_SAMPLE", " SAMPLE (10)"),
    ("KW_SAMPLE", " SAMPLE 0.1"),
    ("KW_TABLESAMPLE", " TABLESAMPLE (10)"),
    ("KW_TABLESAMPLE", " TABLESAMPLE BERNOULLI (10)"),
    ("KW_TABLESAMPLE", " TABLESAMPLE SYSTEM (10)"),
    ("KW_TABLESAMPLE", " TABLESAMPLE RESERVOIR (10 ROWS)"),
    ("KW_FINAL", " FINAL"),
    ("KW_PREWHERE", " PREWHERE b = 1"),
    ("KW_FOR", " FOR SYSTEM_TIME AS OF '2020-01-01'"),
    ("KW_FOR", " FOR SYSTEM_TIME ALL"),
    ("KW_FOR", " FOR SYSTEM_TIME BETWEEN '2020-01-01' AND '2021-01-01'"),
    ("KW_PIVOT", " PIVOT (SUM(a) FOR b IN (1, 2))"),
    ("KW_UNPIVOT", " UNPIVOT (a FOR b IN (c, d))"),
    ("KW_MATCH_RECOGNIZE", " MATCH_RECOGNIZE (PATTERN (v) DEFINE v AS a > 0)"),
)

TABLE_ALIAS_PROBES: tuple[tuple[str, str], ...] = (
    ("", "SELECT a FROM t {}"),
    ("COMMA", "SELECT a FROM t {}, u"),
    ("RPAR", "SELECT * FROM (SELECT a FROM t {}) AS s"),
    ("RPAR", "SELECT a FROM (u JOIN t {} ON a = b)"),
    ("KW_ON", "SELECT a FROM u JOIN t {} ON a = b"),
    ("KW_USING", "SELECT a FROM u JOIN t {} USING (a)"),
    ("KW_MATCH_CONDITION", "SELECT a FROM u ASOF JOIN t {} MATCH_CONDITION (a >= b)"),
    ("KW_SELECT", "FROM t {} SELECT a"),
    ("", "FROM t {}"),
    ("KW_WITH", "SELECT a FROM UNNEST(b) {} WITH OFFSET"),
    ("", "SELECT a FROM UNNEST(b) {}"),
    ("", "SELECT a FROM s.t {}"),
    *((terminal, "SELECT a FROM t {}" + tail) for terminal, tail in _JOINS),
    *((terminal, "SELECT a FROM t {}" + tail) for terminal, tail in _AFTER_TABLE),
    *((terminal, "SELECT a FROM t {}" + tail) for terminal, tail in _TAIL),
)
"""A table alias without ``AS``, before each follower."""

COLUMN_ALIAS_AFTER: tuple[str, ...] = (
    "SELECT a LIKE b {} FROM t",
    "SELECT a NOT LIKE b {} FROM t",
    "SELECT COUNT(a) {} FROM t",
    "SELECT ROW_NUMBER() OVER () {} FROM t",
    "SELECT INTERVAL '1' DAY {} FROM t",
    "SELECT INTERVAL '1' {} FROM t",
    "SELECT CAST(a AS INT) {} FROM t",
    "SELECT a::INT {} FROM t",
    "SELECT 'a' {} FROM t",
    "SELECT 1 {} FROM t",
    "SELECT t.a {} FROM t",
    "SELECT a IS NULL {} FROM t",
    "SELECT a BETWEEN b AND c {} FROM t",
    "SELECT a IN (b) {} FROM t",
    "SELECT (SELECT 1) {} FROM t",
    "SELECT CASE WHEN a THEN b END {} FROM t",
)
"""Expressions a column alias may follow whose end a word may extend."""


def continuation_words(dialect: Any) -> tuple[str, ...]:
    """Words that continue an expression of :data:`COLUMN_ALIAS_AFTER` which sqlglot's parser
    matches by their text, not by a keyword token (so the tokenizer's keywords miss them):
    the words sqlglot's writer puts between the parts of an interval span (``INTERVAL '1' DAY
    TO HOUR``: ``TO``) and of a time zone conversion (``a AT TIME ZONE 'UTC'``), where the
    dialect writes them. Each is then probed as every keyword is (``tables._word_roles``):
    ``SELECT INTERVAL '1' DAY to FROM t`` reads ``DAY TO FROM`` as a span where spans parse,
    so ``TO`` is no bare column alias there."""
    from sqlglot import exp
    from sqlglot.errors import ErrorLevel

    one = exp.Literal.string("1")
    # (the words of the expression itself, its tree): the words between them continue it.
    written = (
        (
            ("INTERVAL", "DAY", "HOUR"),
            exp.Interval(
                this=one, unit=exp.IntervalSpan(this=exp.var("DAY"), expression=exp.var("HOUR"))
            ),
        ),
        (("A",), exp.AtTimeZone(this=exp.column("a"), zone=one)),
    )
    words: dict[str, None] = {}
    for parts, tree in written:
        try:
            text = tree.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE)
        except Exception:  # a writer that cannot spell the node
            continue
        found = [w.upper() for w in re.findall(r"[A-Za-z_]+", text)]
        if found[:1] != [parts[0]]:
            continue  # written as a call (BigQuery's TIMESTAMP(DATETIME(a, '1'))): no words
        words.update(dict.fromkeys(w for w in found if w not in parts))
    return tuple(words)


CTE_NAME_PROBES: tuple[tuple[str, str], ...] = (
    ("", "WITH {} AS (SELECT 1) SELECT 2"),
    ("", "WITH {}(c) AS (SELECT 1) SELECT 2"),
    ("", "WITH a AS (SELECT 1), {} AS (SELECT 2) SELECT 3"),
    ("", "WITH a AS (SELECT 1), {}(c) AS (SELECT 2) SELECT 3"),
    ("", "WITH RECURSIVE {} AS (SELECT 1) SELECT 2"),
    ("", "SELECT * FROM (WITH {} AS (SELECT 1) SELECT 2) AS s"),
)
"""A common table expression named by the word, first and after a comma: sqlglot reads the
words of its WITH modifiers there (``RECURSIVE``, after ``WITH`` and after each comma), so
``WITH recursive AS (...)`` has no name for it (``Expected CTE to have alias``). A probe
counts where the plain name ``x`` round-trips."""

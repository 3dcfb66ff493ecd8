"""Probes of BigQuery's own names and lexemes (issue 15, seventh round): each construct with
the SQL that must come back from sqlglot as the same tree for it to be on
(:mod:`.bigquery_names` builds the rules).

Each is read by sqlglot's BigQuery parser or tokenizer only (``_parse_table_part`` joins a
dashed project name, reads a number as a path part; ``Tokenizer.QUOTES`` holds the triple
quotes), so they are dialect-specific (``probes.DIALECT_SPECIFIC``): on only where a dialect
class includes them and the probe round-trips there.
"""

from __future__ import annotations

__all__ = ["BIGQUERY_NAMES_NATIVE", "BIGQUERY_NAMES_PROBES", "BIGQUERY_NAMES_READ"]

BIGQUERY_NAMES_PROBES: dict[str, str] = {
    # FROM my-project.d.t: a project (or a table) name with dashes, unquoted.
    "dashed_table": "SELECT * FROM my-project.d.t AS a WHERE (SELECT 1 FROM x-0.y) = 1",
    # """a"b""" and '''c'd''': triple-quoted strings (sqlglot writes 'a"b': the same tree),
    # raw ones too (r"""f\"""" keeps the backslash).
    "triple_quoted": 'SELECT """a"b""", \'\'\'c\'d\'\'\', """e\\"""", r"""f\\""""',
    # foo.bar.25, t.144, foo.25x: a number (glued to a word or not) as the last part of a
    # path (sqlglot writes it quoted).
    "numeric_path": "SELECT t.144, a.b.7, c.8y FROM foo.bar.25 AS a, foo.25x",
    # `p.d.f`(a): a user function by its quoted path, .* its struct's fields.
    "quoted_call": "SELECT `p.d.f`(a, 1), `p.g`(b).* FROM t",
    # `a.com:p.d.t`: a domain-scoped project's table (quoted, a dot before the colon).
    "domain_project": "SELECT x.a FROM `a.com:p.d.t` AS x JOIN `b.c:q-r.e.u` ON TRUE",
}

BIGQUERY_NAMES_READ: frozenset[str] = frozenset({"triple_quoted", "numeric_path"})
"""Probes that come back in another spelling of the same tree."""

BIGQUERY_NAMES_NATIVE: frozenset[str] = frozenset(BIGQUERY_NAMES_PROBES)

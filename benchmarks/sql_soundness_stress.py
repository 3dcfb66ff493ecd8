"""Stress the SQL grammars' soundness: many more random walks than CI's, over several seeds.

Each walk is the one of ``tests/frontends/sql/test_soundness.py`` (imported, not copied): a
random path through the masks on SmolLM2's vocabulary, biased to SQL words, that heads for the
end after a random minimum length. Every finished text must parse with sqlglot in the dialect
and round-trip (``tests.frontends.sql._sql.round_trips``). The walks run on the generation
grammar, and with ``--checking`` on the checking language (comments, wider whitespace,
placeholders, any function), and with ``--schema`` on the schema-aware grammar.

A text that round-trips may still be read as another tree than the grammar meant (``SELECT
INTERVAL '1' DAY to FROM t`` is a span ``DAY TO FROM`` and the alias ``t``). Where that shows
cheaply it is flagged as *suspect* (not a failure): a clause keyword the text spells (``WHERE``,
``JOIN``, ``HAVING``, ``GROUP BY``, ``ORDER BY``, ``LIMIT``) that the tree has fewer clauses of,
or a ``FROM`` outside every parenthesis with no ``FROM`` in the tree.

Run: python benchmarks/sql_soundness_stress.py --dialects postgres,generic --walks 300
--seed 1,2,3 --checking --schema
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

import typedgen
from tests.frontends.sql._sql import round_trips
from tests.frontends.sql.test_soundness import SCHEMA, walk_texts

logging.getLogger("sqlglot").setLevel(logging.CRITICAL)

MAIN = (
    "sqlite",
    "postgres",
    "mysql",
    "bigquery",
    "snowflake",
    "duckdb",
    "tsql",
    "oracle",
    "generic",
    "clickhouse",
)
CHECKING = {
    "comments": True,
    "whitespace": "check",
    "placeholders": True,
    "functions": "any",
}
_CLAUSES = (
    (TokenType.WHERE, exp.Where),
    (TokenType.HAVING, exp.Having),
    (TokenType.JOIN, exp.Join),
    (TokenType.GROUP_BY, exp.Group),
    (TokenType.ORDER_BY, exp.Order),
    (TokenType.LIMIT, exp.Limit),
)


def suspect(text: str, dialect: str) -> str | None:
    """Why the tree sqlglot reads from ``text`` may not be the one the grammar meant, when a
    cheap count tells: a clause keyword of the text with fewer such clauses in the tree."""
    try:
        tokens = sqlglot.tokenize(text, read=dialect)
        tree = sqlglot.parse_one(text, read=dialect)
    except Exception:
        return None
    names = Counter(
        i.name.upper() for i in tree.find_all(exp.Identifier) if not i.args.get("quoted")
    )
    # Tokens outside every bracket only (OPTION (LOOP JOIN), FILTER (WHERE b) are no clauses).
    depth, top = 0, []
    for t in tokens:
        depth += t.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET)
        depth -= t.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET)
        if depth == 0:
            top.append(t)
    for token_type, node in _CLAUSES:
        words = Counter(t.text.upper() for t in top if t.token_type == token_type)
        # A keyword read as a name (SELECT limit) is no clause.
        spelled = sum(max(n - names[w], 0) for w, n in words.items())
        found = sum(1 for _ in tree.find_all(node))
        if spelled > found:
            return f"{spelled} {token_type.name} in the text, {found} {node.__name__} in the tree"
    # (IS DISTINCT FROM spells a FROM of its own.)
    froms = [i for i, t in enumerate(top) if t.token_type == TokenType.FROM]
    froms = [i for i in froms if not (i and top[i - 1].token_type == TokenType.DISTINCT)]
    if froms and tree.find(exp.From) is None:
        return "FROM outside brackets, no From in the tree"
    return None


def _grammar(dialect: str, mode: str) -> typedgen.Sql:
    if mode == "checking":
        return typedgen.Sql(dialect, **CHECKING)  # type: ignore[arg-type]
    if mode == "schema":
        return typedgen.Sql(dialect, schema=SCHEMA)
    return typedgen.Sql(dialect)


def stress(dialect: str, mode: str, walks: int, seed: int, vocab: Any) -> tuple[int, list[str]]:
    """Walk ``walks`` times; return the finished count and a line per failure or suspect."""
    sql = _grammar(dialect, mode)
    rng = random.Random(f"{dialect}-{mode}-{seed}")
    ended, found = 0, []
    for text in walk_texts(sql, vocab, rng, walks):
        ended += 1
        ok, detail = round_trips(text, sql.dialect)
        if not ok:
            found.append(f"FAIL {dialect} {mode} seed={seed}: {text!r} -> {detail[:200]!r}")
            continue
        why = suspect(text, sql.dialect)
        if why:
            found.append(f"SUSPECT {dialect} {mode} seed={seed}: {text!r} ({why})")
    return ended, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialects", default=",".join(MAIN))
    parser.add_argument("--walks", type=int, default=200, help="walks per dialect, mode, seed")
    parser.add_argument("--seed", default="1", help="seeds, comma-separated")
    parser.add_argument("--checking", action="store_true", help="also the checking language")
    parser.add_argument("--schema", action="store_true", help="also the schema-aware grammar")
    args = parser.parse_args()
    from typedgen._bundled import smollm2_tokenizer
    from typedgen.compiler.vocabulary import Vocabulary

    vocab = Vocabulary.from_tokenizer(smollm2_tokenizer())
    modes = ["generation", *(["checking"] if args.checking else [])]
    modes += ["schema"] if args.schema else []
    seeds = [int(s) for s in args.seed.split(",") if s]
    failures = 0
    for dialect in args.dialects.split(","):
        for mode in modes:
            for seed in seeds:
                start = time.perf_counter()
                ended, found = stress(dialect, mode, args.walks, seed, vocab)
                fails = sum(line.startswith("FAIL") for line in found)
                failures += fails
                took = time.perf_counter() - start
                print(
                    f"{dialect} {mode} seed={seed}: {ended}/{args.walks} ended, {fails} failed,"
                    f" {len(found) - fails} suspect ({took:.0f} s)",
                    flush=True,
                )
                for line in found:
                    print("  " + line, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

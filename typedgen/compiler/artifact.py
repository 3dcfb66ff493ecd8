"""The on-disk form of a lowered grammar: a versioned ``.npz`` of plain arrays and JSON.

What is stored is data, never live objects (no pickle): terminal automata as one table with
offsets, productions as flat arrays, names, lexing modes, priorities and origins as JSON.
Loading checks the format number, the engine version and the key, and refuses anything else
(the caller recompiles). Files are written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from typedgen.compiler.automata import DFA
from typedgen.compiler.lowering import ParserGrammar, Terminal
from typedgen.ir.grammar import Lexing
from typedgen.ir.origin import Origin

__all__ = ["ARTIFACT_FORMAT", "load_parser_grammar", "save_parser_grammar"]

ARTIFACT_FORMAT = 1


def _origin(o: Origin | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {"source": o.source, "line": o.line, "column": o.column, "path": o.path}


def _from_origin(d: dict[str, Any] | None) -> Origin | None:
    if d is None:
        return None
    return Origin(str(d["source"]), d.get("line"), d.get("column"), d.get("path"))


def save_parser_grammar(path: Path, pg: ParserGrammar, *, version: str, key: str) -> None:
    """Write ``pg`` to ``path`` atomically (errors are the caller's to ignore)."""
    meta = {
        "format": ARTIFACT_FORMAT,
        "version": version,
        "key": key,
        "terminals": [
            {
                "name": t.name,
                "lexing": t.lexing.value,
                "priority": t.priority,
                "literal": t.literal,
                "origin": _origin(t.origin),
            }
            for t in pg.terminals
        ],
        "nonterminals": list(pg.nonterminals),
        "nt_origins": [_origin(o) for o in pg.nt_origins],
        "start": pg.start,
        "ignore": list(pg.ignore),
        "follow": [format(f, "x") for f in pg.follow],
        "first": format(pg.first, "x"),
    }
    sizes = [t.dfa.n_states for t in pg.terminals]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    trans = (
        np.concatenate([t.dfa.trans for t in pg.terminals])
        if pg.terminals
        else np.zeros((0, 256), dtype=np.int32)
    )
    accept = (
        np.concatenate([t.dfa.accept for t in pg.terminals])
        if pg.terminals
        else np.zeros(0, dtype=bool)
    )
    lhs = np.array([p[0] for p in pg.productions], dtype=np.int32)
    rhs_len = np.array([len(p[1]) for p in pg.productions], dtype=np.int64)
    rhs_start = np.concatenate([[0], np.cumsum(rhs_len)]).astype(np.int64)
    rhs = np.array([s for p in pg.productions for s in p[1]], dtype=np.int32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(
                fh,
                meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                dfa_offsets=offsets,
                dfa_trans=trans.astype(np.int32),
                dfa_accept=accept.astype(bool),
                prod_lhs=lhs,
                rhs_start=rhs_start,
                rhs=rhs,
            )
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_parser_grammar(path: Path, *, version: str, key: str) -> ParserGrammar | None:
    """The grammar stored at ``path``, or ``None`` if it is missing, stale or malformed."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            if (
                meta.get("format") != ARTIFACT_FORMAT
                or meta.get("version") != version
                or meta.get("key") != key
            ):
                return None
            offsets = data["dfa_offsets"]
            trans = data["dfa_trans"]
            accept = data["dfa_accept"]
            lhs = data["prod_lhs"].tolist()
            rhs_start = data["rhs_start"].tolist()
            rhs = data["rhs"].tolist()
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, json.JSONDecodeError):
        return None
    try:
        terminals = []
        for i, t in enumerate(meta["terminals"]):
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            dfa = DFA(np.ascontiguousarray(trans[lo:hi]), np.ascontiguousarray(accept[lo:hi]))
            terminals.append(
                Terminal(
                    name=str(t["name"]),
                    dfa=dfa,
                    lexing=Lexing(t["lexing"]),
                    priority=int(t["priority"]),
                    literal=bool(t["literal"]),
                    origin=_from_origin(t["origin"]),
                )
            )
        productions = tuple(
            (int(lhs[p]), tuple(rhs[rhs_start[p] : rhs_start[p + 1]])) for p in range(len(lhs))
        )
        return ParserGrammar(
            terminals=tuple(terminals),
            nonterminals=tuple(meta["nonterminals"]),
            productions=productions,
            start=int(meta["start"]),
            ignore=tuple(int(t) for t in meta["ignore"]),
            nt_origins=tuple(_from_origin(o) for o in meta["nt_origins"]),
            follow=tuple(int(f, 16) for f in meta["follow"]),
            first=int(meta["first"], 16),
        )
    except (KeyError, ValueError, TypeError, IndexError):
        return None

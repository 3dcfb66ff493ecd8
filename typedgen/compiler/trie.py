"""The token trie: the per-vocabulary preprocessing every compiled grammar shares.

Tokens that can appear in text are sorted by their bytes and laid out as a prefix tree in flat
numpy arrays (children in compressed-sparse-row form), so that walking *every* token from an
automaton state is a breadth-first sweep of a few vectorised steps per byte of depth.
Built with numpy only (no Python loop over tokens) and cached on disk by vocabulary fingerprint.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from typedgen.compiler.vocabulary import Vocabulary

__all__ = ["TokenTrie", "build_trie", "load_or_build_trie"]

TRIE_FORMAT = 2
I32 = npt.NDArray[np.int32]


@dataclass(frozen=True, eq=False)
class TokenTrie:
    """Prefix tree of the text tokens of a vocabulary. Node 0 is the root (empty prefix)."""

    fingerprint: str
    n_ids: int
    child_start: I32
    child_node: I32
    child_byte: npt.NDArray[np.uint8]
    tok_start: I32
    tok_ids: I32
    depth: int
    subtree: I32
    """Per node: how many nodes its subtree holds (itself included): the work below it."""

    @property
    def n_nodes(self) -> int:
        return int(self.child_start.shape[0] - 1)

    def save(self, path: Path) -> None:
        """Write atomically as an ``.npz`` file."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                meta=np.array([TRIE_FORMAT, self.n_ids, self.depth], dtype=np.int64),
                fingerprint=np.frombuffer(self.fingerprint.encode(), dtype=np.uint8),
                child_start=self.child_start,
                child_node=self.child_node,
                child_byte=self.child_byte,
                tok_start=self.tok_start,
                tok_ids=self.tok_ids,
                subtree=self.subtree,
            )
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> TokenTrie | None:
        """Read a trie written by :meth:`save`; ``None`` if the file is stale or unreadable."""
        try:
            with np.load(path) as data:
                meta = data["meta"]
                if int(meta[0]) != TRIE_FORMAT:
                    return None
                return cls(
                    fingerprint=bytes(data["fingerprint"]).decode(),
                    n_ids=int(meta[1]),
                    child_start=data["child_start"],
                    child_node=data["child_node"],
                    child_byte=data["child_byte"],
                    tok_start=data["tok_start"],
                    tok_ids=data["tok_ids"],
                    depth=int(meta[2]),
                    subtree=data["subtree"],
                )
        except (OSError, KeyError, ValueError):
            return None


def build_trie(vocab: Vocabulary) -> TokenTrie:
    """Build the trie of ``vocab``'s text tokens (special and empty tokens are left out)."""
    ids = np.array(
        [i for i, tok in enumerate(vocab.tokens) if tok and i not in vocab.special_ids],
        dtype=np.int64,
    )
    toks = [vocab.tokens[i] for i in ids.tolist()]
    order = sorted(range(len(toks)), key=toks.__getitem__)
    ids = ids[order]
    toks = [toks[i] for i in order]
    n = len(toks)
    lengths = np.fromiter((len(t) for t in toks), dtype=np.int64, count=n)
    width = int(lengths.max()) if n else 0
    mat = np.zeros((n, width), dtype=np.uint8)
    flat = np.frombuffer(b"".join(toks), dtype=np.uint8)
    rows = np.repeat(np.arange(n), lengths)
    cols = np.arange(flat.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    mat[rows, cols] = flat
    # Longest common prefix with the previous token.
    lcp = np.zeros(n, dtype=np.int64)
    if n > 1:
        same = mat[1:] == mat[:-1]
        valid = np.arange(width)[None, :] < np.minimum(lengths[1:], lengths[:-1])[:, None]
        differs = ~(same & valid)
        first = np.where(differs.any(axis=1), differs.argmax(axis=1), width)
        lcp[1:] = np.minimum(first, np.minimum(lengths[1:], lengths[:-1]))
    created = np.maximum(lengths - lcp, 0)
    base = np.concatenate([[1], 1 + np.cumsum(created)[:-1]]) if n else np.zeros(0, np.int64)
    n_nodes = 1 + int(created.sum())
    # node_at[d][i]: node of token i's prefix of length d+1 (valid for d < length).
    parent = np.zeros(n_nodes, dtype=np.int64)
    node_depth = np.zeros(n_nodes, dtype=np.int64)
    byte = np.zeros(n_nodes, dtype=np.uint8)
    prev_level = np.zeros(n, dtype=np.int64)  # root for every token
    end_node = np.zeros(n, dtype=np.int64)
    idx = np.arange(n)
    for d in range(width):
        has = lengths > d
        new_here = has & (lcp <= d)
        node_new = np.where(new_here, base + (d - lcp), -1)
        # Tokens sharing this prefix with an earlier token reuse the creator's node.
        creator = np.maximum.accumulate(np.where(new_here, idx, -1))
        node = np.where(new_here, node_new, -1)
        shared = has & ~new_here
        node[shared] = node_new[creator[shared]] if shared.any() else node[shared]
        parent[node_new[new_here]] = prev_level[new_here]
        node_depth[node_new[new_here]] = d + 1
        byte[node_new[new_here]] = mat[new_here, d]
        ends = has & (lengths == d + 1)
        end_node[ends] = node[ends]
        prev_level = np.where(has, node, prev_level)
    # Children in CSR form, ordered by byte (node numbering is pre-order, so stable sort keeps it).
    kids = np.arange(1, n_nodes)
    order_k = np.argsort(parent[1:], kind="stable")
    kids = kids[order_k]
    counts = np.bincount(parent[1:], minlength=n_nodes)
    child_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    # Tokens by end node.
    order_t = np.argsort(end_node, kind="stable")
    tcounts = np.bincount(end_node, minlength=n_nodes)
    tok_start = np.concatenate([[0], np.cumsum(tcounts)]).astype(np.int32)
    subtree = np.ones(n_nodes, dtype=np.int64)
    by_depth = np.argsort(node_depth, kind="stable")
    bounds = np.searchsorted(node_depth[by_depth], np.arange(width + 2))
    for d in range(width, 0, -1):
        level = by_depth[bounds[d] : bounds[d + 1]]
        np.add.at(subtree, parent[level], subtree[level])
    return TokenTrie(
        fingerprint=vocab.fingerprint,
        n_ids=int(vocab.size),
        child_start=child_start,
        child_node=kids.astype(np.int32),
        child_byte=byte[kids],
        tok_start=tok_start,
        tok_ids=ids[order_t].astype(np.int32),
        depth=width,
        subtree=subtree.astype(np.int32),
    )


_MEMORY: dict[str, TokenTrie] = {}


def load_or_build_trie(vocab: Vocabulary, cache_dir: Path | None) -> TokenTrie:
    """The trie of ``vocab`` from memory, then disk, else built (and written to disk)."""
    trie = _MEMORY.get(vocab.fingerprint)
    if trie is not None:
        return trie
    path = (
        cache_dir / "tries" / f"{vocab.fingerprint[:32]}-v{TRIE_FORMAT}.npz" if cache_dir else None
    )
    if path is not None and path.exists():
        trie = TokenTrie.load(path)
        if trie is not None and trie.fingerprint != vocab.fingerprint:
            trie = None
    if trie is None:
        trie = build_trie(vocab)
        if path is not None:
            try:
                trie.save(path)
            except OSError:
                pass
    _MEMORY[vocab.fingerprint] = trie
    return trie


@dataclass(frozen=True, eq=False)
class TokenFeatures:
    """Per-token byte facts used to classify many tokens at once without walking them.

    ``ascii_lo``/``ascii_hi``: bitsets of the ASCII bytes a token contains (0-63, 64-127);
    ``utf8_ok``: the token is well-formed UTF-8 from a character boundary, possibly cut short
    at its end; ``flat``/``offsets``: all token bytes concatenated, for building sub-tries.
    """

    text: npt.NDArray[np.bool_]
    ascii_lo: npt.NDArray[np.uint64]
    ascii_hi: npt.NDArray[np.uint64]
    utf8_ok: npt.NDArray[np.bool_]
    ascii_only: npt.NDArray[np.bool_]
    first_byte: npt.NDArray[np.int16]
    """First byte of each text token; 256 for ids that are not text."""
    flat: npt.NDArray[np.uint8]
    offsets: npt.NDArray[np.int64]


_FEATURES: dict[str, TokenFeatures] = {}


def token_features(vocab: Vocabulary, cache_dir: Path | None = None) -> TokenFeatures:
    """The :class:`TokenFeatures` of ``vocab``: from memory, then ``cache_dir``, else built."""
    found = _FEATURES.get(vocab.fingerprint)
    if found is not None:
        return found
    path = (
        cache_dir / "tries" / f"{vocab.fingerprint[:32]}-features-v{TRIE_FORMAT}.npz"
        if cache_dir
        else None
    )
    if path is not None and path.exists():
        try:
            with np.load(path) as data:
                found = TokenFeatures(*(data[name] for name in _FEATURE_FIELDS))
        except (OSError, KeyError, ValueError):
            found = None
    if found is None:
        found = _build_features(vocab)
        if path is not None:
            _save_npz(path, {name: getattr(found, name) for name in _FEATURE_FIELDS})
    _FEATURES[vocab.fingerprint] = found
    return found


_FEATURE_FIELDS = (
    "text",
    "ascii_lo",
    "ascii_hi",
    "utf8_ok",
    "ascii_only",
    "first_byte",
    "flat",
    "offsets",
)


def _save_npz(path: Path, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError:
        pass


def _build_features(vocab: Vocabulary) -> TokenFeatures:
    import codecs

    tokens = vocab.tokens
    n = vocab.size
    text = np.zeros(n, dtype=bool)
    utf8_ok = np.zeros(n, dtype=bool)
    lengths = np.zeros(n, dtype=np.int64)
    for i, tok in enumerate(tokens):
        if tok and i not in vocab.special_ids:
            text[i] = True
            lengths[i] = len(tok)
            try:
                codecs.getincrementaldecoder("utf-8")().decode(tok, final=False)
                utf8_ok[i] = True
            except UnicodeDecodeError:
                pass
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    flat = np.frombuffer(
        b"".join(t if text[i] else b"" for i, t in enumerate(tokens)), dtype=np.uint8
    )
    owner = np.repeat(np.arange(n), lengths)
    lo = np.zeros(n, dtype=np.uint64)
    hi = np.zeros(n, dtype=np.uint64)
    small = flat < 64
    mid = (flat >= 64) & (flat < 128)
    np.bitwise_or.at(lo, owner[small], np.left_shift(np.uint64(1), flat[small].astype(np.uint64)))
    np.bitwise_or.at(
        hi, owner[mid], np.left_shift(np.uint64(1), (flat[mid] - 64).astype(np.uint64))
    )
    high = np.zeros(n, dtype=bool)
    high[np.unique(owner[flat >= 128])] = True
    first = np.full(n, 256, dtype=np.int16)
    first[text] = flat[offsets[:-1][text]]
    return TokenFeatures(text, lo, hi, utf8_ok, text & ~high, first, flat, offsets)


def chain_forest(
    features: TokenFeatures, ids: npt.NDArray[np.int64], fingerprint: str
) -> TokenTrie:
    """A trie-shaped structure over ``ids`` where every token is its own chain (no sharing).

    Cheap to build for a subset of the vocabulary; the sweep treats it like a trie.
    """
    starts = features.offsets[ids]
    lens = features.offsets[ids + 1] - starts
    n = int(ids.size)
    total = int(lens.sum())
    base = 1 + np.concatenate([[0], np.cumsum(lens)[:-1]]) if n else np.zeros(0, np.int64)
    last = base + lens - 1
    node_byte = np.zeros(total + 1, dtype=np.uint8)
    gather = np.arange(total) - np.repeat(base - 1, lens) + np.repeat(starts, lens)
    node_byte[1:] = features.flat[gather]
    is_last = np.zeros(total + 1, dtype=bool)
    is_last[last] = True
    counts = np.where(is_last, 0, 1)
    counts[0] = n
    nonlast = np.flatnonzero(~is_last[1:]) + 1
    child_node = np.concatenate([base, nonlast + 1]).astype(np.int32)
    child_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    tok_counts = is_last.astype(np.int64)
    tok_start = np.concatenate([[0], np.cumsum(tok_counts)]).astype(np.int32)
    # Below chain node j lie the rest of its chain: (last of its chain) - j + 1 nodes.
    chain_last = np.repeat(last, lens)
    subtree = np.empty(total + 1, dtype=np.int64)
    subtree[0] = total + 1
    subtree[1:] = chain_last - np.arange(1, total + 1) + 1
    return TokenTrie(
        fingerprint=fingerprint,
        n_ids=0,
        child_start=child_start,
        child_node=child_node,
        child_byte=node_byte[child_node],
        tok_start=tok_start,
        tok_ids=ids.astype(np.int32),
        depth=int(lens.max()) if n else 0,
        subtree=subtree.astype(np.int32),
    )

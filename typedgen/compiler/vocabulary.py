"""Token id -> exact bytes: the vocabulary the compiler and the runtime work over.

The engine runs over UTF-8 bytes, so it needs for every token id the bytes that token adds to the
text, plus the ids that can never be text (control tokens) and the ids that end a generation.
:meth:`Vocabulary.from_tokenizer` derives all of this from a Hugging Face tokenizer by replaying
its ``tokenizers`` decoder pipeline one token at a time (byte-level BPE, SentencePiece with
``<0xNN>`` byte fallback, ``Metaspace``, added tokens). It never guesses: a token or a decoder step
it cannot reproduce exactly raises :class:`~typedgen.errors.VocabularyError`. Non-special added
tokens go through the decoder exactly as ``tokenizer.decode`` sends them (in a byte-level
tokenizer an added token made only of byte-alphabet characters is byte-mapped, any other is raw
UTF-8), so the vocabulary and the tokenizer never disagree about the text.

``vocab.decode(ids)`` equals ``tokenizer.decode(ids, skip_special_tokens=True,
clean_up_tokenization_spaces=False).encode()`` whenever the latter is valid UTF-8, except for one
documented rule, :attr:`Vocabulary.leading_space_rule`: some SentencePiece decoders drop the space
that starts the decoded text (``"text"``: a ``Strip`` after ``Fuse``, as in Llama 2) or every
``▁`` of the first token (``"first-token"``: ``Metaspace`` with a prepend scheme). The vocabulary
keeps the raw bytes (``"▁Hello"`` is ``b" Hello"``) because that is what the grammar must see.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt

from typedgen.errors import VocabularyError

__all__ = ["LeadingSpaceRule", "TokenizerLike", "Vocabulary"]

LeadingSpaceRule: TypeAlias = Literal["none", "first-token", "text"]

#: Names of tokens that end a turn or a document in common chat models. They count as EOS when the
#: tokenizer marks them special: a grammar-complete output may stop on any of them, and none of
#: them may ever appear inside the text (vllm#42403: Gemma's ``<end_of_turn>`` escaped a mask that
#: only knew ``<eos>``).
KNOWN_STOP_TOKENS: frozenset[str] = frozenset(
    {
        "<|im_end|>",
        "<|endoftext|>",
        "<|end_of_text|>",
        "<end_of_turn>",
        "<|eot_id|>",
        "<|eom_id|>",
        "<|end|>",
        "<|return|>",
        "</s>",
        "<eos>",
    }
)

_FORMAT_MAGIC = b"TGVOCAB\x01"
_FINGERPRINT_TAG = b"typedgen.vocabulary/v1\x00"

IdArray: TypeAlias = npt.NDArray[np.int32]
BoolArray: TypeAlias = npt.NDArray[np.bool_]


# --------------------------------------------------------------------------------------------
# The tokenizer shapes we accept (duck typing: no transformers import needed)
# --------------------------------------------------------------------------------------------


@runtime_checkable
class BackendTokenizerLike(Protocol):
    """The parts of a ``tokenizers.Tokenizer`` that the vocabulary reads."""

    @property
    def decoder(self) -> Any: ...

    def get_vocab_size(self, with_added_tokens: bool = True) -> int: ...

    def id_to_token(self, id: int) -> str | None: ...

    def get_added_tokens_decoder(self) -> Mapping[int, Any]: ...

    def to_str(self, pretty: bool = False) -> str: ...


class TokenizerLike(Protocol):
    """A Hugging Face fast tokenizer (``PreTrainedTokenizerBase`` with a Rust backend)."""

    @property
    def backend_tokenizer(self) -> BackendTokenizerLike: ...

    def __len__(self) -> int: ...


# --------------------------------------------------------------------------------------------
# The vocabulary
# --------------------------------------------------------------------------------------------


class Vocabulary:
    """Exact token bytes for one tokenizer; immutable, picklable, keyed by :attr:`fingerprint`.

    A token id ``i`` may appear in text iff ``i < len(tokens)``, it is not in :attr:`special_ids`
    and its bytes are non-empty (:meth:`text_mask`). Ids in ``[len(tokens), size)`` are embedding
    padding and never allowed. EOS ids are always special: they end a generation, never add text.
    """

    __slots__ = (
        "_lengths",
        "_text_ids",
        "_text_mask",
        "eos_ids",
        "fingerprint",
        "leading_space_rule",
        "name",
        "size",
        "special_ids",
        "tokens",
    )

    tokens: tuple[bytes, ...]
    size: int
    special_ids: frozenset[int]
    eos_ids: frozenset[int]
    fingerprint: str
    name: str
    leading_space_rule: LeadingSpaceRule
    _lengths: npt.NDArray[np.int32] | None
    _text_mask: BoolArray | None
    _text_ids: IdArray | None

    def __init__(
        self,
        tokens: Iterable[bytes],
        *,
        size: int | None = None,
        special_ids: Iterable[int] = (),
        eos_ids: Iterable[int] = (),
        name: str = "",
        leading_space_rule: LeadingSpaceRule = "none",
    ) -> None:
        toks = [bytes(t) for t in tokens]
        n = len(toks)
        width = n if size is None else int(size)
        if width < n:
            raise VocabularyError(
                f"vocabulary size {width} is smaller than the number of tokens ({n})",
                hint="pass the model's embedding size (config.vocab_size) or leave it unset",
            )
        eos = frozenset(int(i) for i in eos_ids)
        special = frozenset(int(i) for i in special_ids) | eos
        bad = sorted(i for i in special if not 0 <= i < width)
        if bad:
            raise VocabularyError(
                f"special/EOS token ids {bad[:5]} lie outside [0, {width})",
                hint="check eos_token_ids and the vocabulary size",
            )
        for i in special:
            if i < n:
                toks[i] = b""
        if leading_space_rule not in ("none", "first-token", "text"):
            raise VocabularyError(f"unknown leading_space_rule {leading_space_rule!r}")
        _set(self, "tokens", tuple(toks))
        _set(self, "size", width)
        _set(self, "special_ids", special)
        _set(self, "eos_ids", eos)
        _set(self, "name", name)
        _set(self, "leading_space_rule", leading_space_rule)
        _set(self, "_lengths", None)
        _set(self, "_text_mask", None)
        _set(self, "_text_ids", None)
        _set(self, "fingerprint", self._compute_fingerprint())

    # -- construction from a tokenizer --------------------------------------------------------

    @classmethod
    def from_tokenizer(
        cls,
        hf_tokenizer: TokenizerLike | BackendTokenizerLike,
        *,
        vocab_size: int | None = None,
        eos_token_ids: Iterable[int] | None = None,
        on_unmappable: Literal["raise", "utf8"] = "raise",
        name: str | None = None,
    ) -> Vocabulary:
        """Derive exact token bytes from a fast HF tokenizer or a ``tokenizers.Tokenizer``.

        ``vocab_size`` is the mask width (the model's embedding rows) when it exceeds the
        tokenizer. ``eos_token_ids`` replaces the detected stop tokens (tokenizer EOS plus the
        special tokens named in :data:`KNOWN_STOP_TOKENS`); pass the ids from the model's
        ``generation_config`` when you have them. ``on_unmappable="utf8"`` accepts what
        ``tokenizer.decode`` does with a byte-level token outside the byte alphabet (its raw
        UTF-8) instead of raising.
        """
        backend = _backend_of(hf_tokenizer)
        n = int(backend.get_vocab_size(with_added_tokens=True))
        try:
            n = max(n, len(hf_tokenizer))  # type: ignore[arg-type]
        except TypeError:
            pass
        strings: list[str | None] = list(map(backend.id_to_token, range(n)))
        added = dict(backend.get_added_tokens_decoder())
        if added:
            top = max(added)
            if top >= n:
                strings.extend([None] * (top + 1 - n))
                for i, tok in added.items():
                    if i >= n:
                        strings[i] = str(tok.content)
                n = top + 1
        special = {i for i, tok in added.items() if bool(getattr(tok, "special", False))}
        special.update(_int_list(getattr(hf_tokenizer, "all_special_ids", None)))
        special = {i for i in special if 0 <= i < n}

        steps = _decoder_steps(backend)
        texts: list[int] = [i for i in range(n) if i not in special and strings[i] is not None]
        values: list[str | bytes] = [strings[i] for i in texts]  # type: ignore[misc]
        pipeline = _Pipeline(values, texts, frozenset(added))
        for step in steps:
            handler = _STEP_HANDLERS.get(str(step.get("type")))
            if handler is None:
                raise VocabularyError(
                    f"tokenizer decoder step {step.get('type')!r} is not supported",
                    hint="typedgen reproduces ByteLevel, Replace, ByteFallback, Fuse, Strip and "
                    "Metaspace decoders; build the Vocabulary by hand for other tokenizers",
                )
            handler(pipeline, step)
        pipeline.finish(strings, on_unmappable)

        out: list[bytes] = [b""] * n
        for i, v in zip(texts, pipeline.values, strict=True):
            out[i] = v if isinstance(v, bytes) else v.encode("utf-8")

        width = n if vocab_size is None else int(vocab_size)
        if width < n:
            raise VocabularyError(
                f"vocab_size={width} is smaller than the tokenizer ({n} token ids)",
                hint="pass the model's embedding size (config.vocab_size) or leave it unset",
            )
        if eos_token_ids is not None:
            eos = {int(i) for i in eos_token_ids}
        else:
            eos = set(_int_list(getattr(hf_tokenizer, "eos_token_id", None)))
            eos.update(
                i for i, tok in added.items() if i in special and tok.content in KNOWN_STOP_TOKENS
            )
        if name is None:
            name = str(getattr(hf_tokenizer, "name_or_path", "") or type(hf_tokenizer).__name__)
            name = Path(name).name if os.sep in name else name
        return cls(
            out,
            size=width,
            special_ids=special,
            eos_ids=eos,
            name=name,
            leading_space_rule=pipeline.leading_space_rule,
        )

    # -- queries -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.size

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes ``token_id`` adds to the text (``b""`` for special and padding ids)."""
        if not 0 <= token_id < self.size:
            raise IndexError(f"token id {token_id} outside [0, {self.size})")
        return self.tokens[token_id] if token_id < len(self.tokens) else b""

    def decode(self, ids: Iterable[int]) -> bytes:
        """Concatenate token bytes; special and padding ids contribute nothing."""
        toks, n, size = self.tokens, len(self.tokens), self.size
        parts = []
        for i in ids:
            if 0 <= i < n:
                parts.append(toks[i])
            elif not 0 <= i < size:
                raise IndexError(f"token id {i} outside [0, {size})")
        return b"".join(parts)

    def token_lengths(self) -> npt.NDArray[np.int32]:
        """Byte length per id (width :attr:`size`), for vectorised compile-time work."""
        if self._lengths is None:
            lengths = np.zeros(self.size, dtype=np.int32)
            lengths[: len(self.tokens)] = np.fromiter(
                map(len, self.tokens), dtype=np.int32, count=len(self.tokens)
            )
            lengths.setflags(write=False)
            _set(self, "_lengths", lengths)
            return lengths
        return self._lengths

    def text_mask(self) -> BoolArray:
        """Read-only bool array of width :attr:`size`: which ids can ever appear as text."""
        if self._text_mask is None:
            mask: BoolArray = self.token_lengths() > 0
            if self.special_ids:
                mask[np.fromiter(self.special_ids, dtype=np.int64)] = False
            mask.setflags(write=False)
            _set(self, "_text_mask", mask)
            return mask
        return self._text_mask

    def text_ids(self) -> IdArray:
        """Ids that can appear as text (non-special, non-empty), ascending, read-only."""
        if self._text_ids is None:
            ids = np.flatnonzero(self.text_mask()).astype(np.int32)
            ids.setflags(write=False)
            _set(self, "_text_ids", ids)
            return ids
        return self._text_ids

    # -- identity, pickling, persistence -------------------------------------------------------

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"Vocabulary is immutable (cannot set {key!r})")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"Vocabulary is immutable (cannot delete {key!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocabulary):
            return NotImplemented
        return self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return (
            f"Vocabulary(name={self.name!r}, size={self.size}, tokens={len(self.tokens)}, "
            f"special={len(self.special_ids)}, eos={sorted(self.eos_ids)}, "
            f"fingerprint={self.fingerprint[:12]}...)"
        )

    def __reduce__(self) -> tuple[Callable[..., Vocabulary], tuple[Any, ...]]:
        return (
            _restore,
            (
                self.tokens,
                self.size,
                self.special_ids,
                self.eos_ids,
                self.name,
                self.leading_space_rule,
                self.fingerprint,
            ),
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write a compact binary file (atomically: temp file + rename)."""
        header = json.dumps(
            {
                "name": self.name,
                "size": self.size,
                "n_tokens": len(self.tokens),
                "n_special": len(self.special_ids),
                "n_eos": len(self.eos_ids),
                "leading_space_rule": self.leading_space_rule,
                "fingerprint": self.fingerprint,
            },
            sort_keys=True,
        ).encode("utf-8")
        lengths = self.token_lengths()[: len(self.tokens)].astype("<u4")
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_FORMAT_MAGIC)
                f.write(struct.pack("<I", len(header)))
                f.write(header)
                f.write(lengths.tobytes())
                f.write(_u4(self.special_ids).tobytes())
                f.write(_u4(self.eos_ids).tobytes())
                f.write(b"".join(self.tokens))
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Vocabulary:
        """Read a file written by :meth:`save`; the fingerprint is re-checked."""
        data = Path(path).read_bytes()
        try:
            if not data.startswith(_FORMAT_MAGIC):
                raise ValueError("bad magic")
            pos = len(_FORMAT_MAGIC)
            (hlen,) = struct.unpack_from("<I", data, pos)
            pos += 4
            header = json.loads(data[pos : pos + hlen])
            pos += hlen
            n, ns, ne = int(header["n_tokens"]), int(header["n_special"]), int(header["n_eos"])
            lengths = np.frombuffer(data, dtype="<u4", count=n, offset=pos).astype(np.int64)
            pos += 4 * n
            special = np.frombuffer(data, dtype="<u4", count=ns, offset=pos).tolist()
            pos += 4 * ns
            eos = np.frombuffer(data, dtype="<u4", count=ne, offset=pos).tolist()
            pos += 4 * ne
            ends = np.cumsum(lengths) + pos
            if (int(ends[-1]) if n else pos) != len(data):
                raise ValueError("truncated token data")
            starts = (ends - lengths).tolist()
            tokens = tuple([data[a:b] for a, b in zip(starts, ends.tolist(), strict=True)])
        except (ValueError, KeyError, TypeError, struct.error) as exc:
            raise VocabularyError(
                f"{path}: not a typedgen vocabulary file ({exc})",
                hint="delete the file; it is rebuilt from the tokenizer",
            ) from exc
        vocab = cls(
            tokens,
            size=int(header["size"]),
            special_ids=special,
            eos_ids=eos,
            name=str(header["name"]),
            leading_space_rule=header["leading_space_rule"],
        )
        if vocab.fingerprint != header["fingerprint"]:
            raise VocabularyError(
                f"{path}: vocabulary file is corrupt (fingerprint mismatch)",
                hint="delete the file; it is rebuilt from the tokenizer",
            )
        return vocab

    def _compute_fingerprint(self) -> str:
        # Depends only on content, never on Python's hash() or the platform: a cache key that
        # must agree across processes and machines.
        h = hashlib.sha256(_FINGERPRINT_TAG)
        h.update(struct.pack("<QQ", self.size, len(self.tokens)))
        h.update(np.fromiter(map(len, self.tokens), dtype="<u4", count=len(self.tokens)).tobytes())
        h.update(b"".join(self.tokens))
        for ids in (self.special_ids, self.eos_ids):
            h.update(struct.pack("<Q", len(ids)))
            h.update(_u4(ids).tobytes())
        return h.hexdigest()


def _set(obj: Vocabulary, key: str, value: object) -> None:
    object.__setattr__(obj, key, value)


def _u4(ids: Iterable[int]) -> npt.NDArray[np.uint32]:
    return np.array(sorted(ids), dtype="<u4")


def _restore(
    tokens: tuple[bytes, ...],
    size: int,
    special_ids: frozenset[int],
    eos_ids: frozenset[int],
    name: str,
    leading_space_rule: LeadingSpaceRule,
    fingerprint: str,
) -> Vocabulary:
    # Unpickling trusts the stored fingerprint: pickles are trusted input anyway, and recomputing
    # it would cost a full pass over the token bytes.
    vocab = Vocabulary.__new__(Vocabulary)
    for key, value in (
        ("tokens", tokens),
        ("size", size),
        ("special_ids", special_ids),
        ("eos_ids", eos_ids),
        ("name", name),
        ("leading_space_rule", leading_space_rule),
        ("fingerprint", fingerprint),
        ("_lengths", None),
        ("_text_mask", None),
        ("_text_ids", None),
    ):
        _set(vocab, key, value)
    return vocab


def _int_list(value: object) -> list[int]:
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, Iterable):
        return [int(v) for v in value if v is not None]
    return []


# --------------------------------------------------------------------------------------------
# Replaying the tokenizers decoder pipeline per token
# --------------------------------------------------------------------------------------------


def _backend_of(tok: object) -> BackendTokenizerLike:
    backend = getattr(tok, "backend_tokenizer", None)
    if backend is None and isinstance(tok, BackendTokenizerLike):
        backend = tok
    if backend is None:
        raise VocabularyError(
            f"{type(tok).__name__} has no Rust backend (backend_tokenizer)",
            hint="load the tokenizer with AutoTokenizer.from_pretrained(..., use_fast=True) or "
            "pass a tokenizers.Tokenizer",
        )
    return backend  # type: ignore[no-any-return]


def _decoder_steps(backend: BackendTokenizerLike) -> list[dict[str, Any]]:
    """The decoder as a flat list of JSON step configs (Sequence flattened)."""
    decoder = backend.decoder
    if decoder is None:
        raise VocabularyError(
            "the tokenizer has no decoder (tokenizers would join tokens with spaces)",
            hint="typedgen needs byte-level BPE or SentencePiece-style decoders",
        )
    state = getattr(decoder, "__getstate__", None)
    config: Any = None
    if state is not None:
        try:
            config = json.loads(state())
        except (TypeError, ValueError):
            config = None
    if not isinstance(config, dict):
        config = json.loads(backend.to_str())["decoder"]

    def flatten(cfg: dict[str, Any]) -> list[dict[str, Any]]:
        if cfg.get("type") == "Sequence":
            return [s for sub in cfg.get("decoders", []) for s in flatten(sub)]
        return [cfg]

    return flatten(config)


class _Pipeline:
    """Per-token values flowing through the decoder steps.

    ``values`` holds one ``str`` (still text) or ``bytes`` (already raw bytes) per text token.
    Steps before ``Fuse`` act on each token independently, which is what makes a per-token
    vocabulary exact; after ``Fuse`` only the rules that touch the start of the text are known.
    """

    def __init__(self, values: list[str | bytes], ids: list[int], added: frozenset[int]) -> None:
        self.values = values
        self.ids = ids
        self.added = added
        self.fused = False
        self.leading_space_rule: LeadingSpaceRule = "none"
        # positions in values of model tokens that ByteLevel can only print as raw UTF-8
        self.unmappable: list[int] = []

    def require_unfused(self, step: Mapping[str, Any]) -> None:
        if self.fused:
            raise VocabularyError(
                f"decoder step {step.get('type')!r} after Fuse acts on the whole text",
                hint="typedgen cannot map this tokenizer to per-token bytes",
            )

    def finish(self, strings: Sequence[str | None], on_unmappable: str) -> None:
        if self.unmappable and on_unmappable == "raise":
            shown = ", ".join(
                f"{self.ids[k]} ({strings[self.ids[k]]!r})" for k in self.unmappable[:5]
            )
            raise VocabularyError(
                f"{len(self.unmappable)} byte-level token(s) contain characters outside the "
                f"byte alphabet and have no exact bytes: {shown}",
                code="vocabulary-unmappable",
                hint="pass on_unmappable='utf8' to use their raw UTF-8, as tokenizer.decode does",
            )


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte <-> printable-character table used by ByteLevel tokenizers."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    keep += list(range(ord("®"), ord("ÿ") + 1))
    table = {b: chr(b) for b in keep}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


_BYTE_TO_CHAR = _bytes_to_unicode()
# str.translate table: alphabet char -> the latin-1 char of its byte; every other char below 256
# -> a char above 255, so that .encode("latin-1") fails exactly for tokens outside the alphabet.
_BYTELEVEL_TRANSLATE: dict[int, int] = dict.fromkeys(range(256), 0x10FFFF)
_BYTELEVEL_TRANSLATE.update({ord(ch): b for b, ch in _BYTE_TO_CHAR.items()})


def _byte_fallback_table() -> dict[str, bytes]:
    # tokenizers parses "<0xNN>" with u8::from_str_radix: either case, and a leading "+".
    table: dict[str, bytes] = {}
    for b in range(256):
        hi, lo = f"{b:02x}"[0], f"{b:02x}"[1]
        for h in {hi, hi.upper()}:
            for lw in {lo, lo.upper()}:
                table[f"<0x{h}{lw}>"] = bytes([b])
        if b < 16:
            for lw in {lo, lo.upper()}:
                table[f"<0x+{lw}>"] = bytes([b])
    return table


_BYTE_FALLBACK = _byte_fallback_table()


def _step_byte_level(p: _Pipeline, step: Mapping[str, Any]) -> None:
    p.require_unfused(step)
    out: list[str | bytes] = []
    append = out.append
    for k, v in enumerate(p.values):
        if isinstance(v, bytes):
            append(v)
            continue
        try:
            append(v.translate(_BYTELEVEL_TRANSLATE).encode("latin-1"))
        except UnicodeEncodeError:
            # tokenizers' ByteLevel decoder emits the raw UTF-8 of such a token. That is the
            # designed behaviour for added tokens; for a model token it means a broken vocab.
            append(v.encode("utf-8"))
            if p.ids[k] not in p.added:
                p.unmappable.append(k)
    p.values = out
    p.fused = True  # tokenizers' ByteLevel decoder returns the whole text as one string


def _step_replace(p: _Pipeline, step: Mapping[str, Any]) -> None:
    pattern = step.get("pattern", {})
    content = str(step.get("content", ""))
    if "String" in pattern:
        old = str(pattern["String"])
        if p.fused and len(old) != 1:
            p.require_unfused(step)
        p.values = [v.replace(old, content) if isinstance(v, str) else v for v in p.values]
    elif "Regex" in pattern:
        p.require_unfused(step)
        rx = re.compile(str(pattern["Regex"]))
        p.values = [rx.sub(lambda _m: content, v) if isinstance(v, str) else v for v in p.values]
    else:
        raise VocabularyError(f"Replace decoder with an unknown pattern {pattern!r}")


def _step_byte_fallback(p: _Pipeline, step: Mapping[str, Any]) -> None:
    p.require_unfused(step)
    get = _BYTE_FALLBACK.get
    p.values = [get(v, v) if isinstance(v, str) else v for v in p.values]


def _step_fuse(p: _Pipeline, step: Mapping[str, Any]) -> None:
    p.fused = True


def _step_strip(p: _Pipeline, step: Mapping[str, Any]) -> None:
    content = str(step.get("content", " "))
    start, stop = int(step.get("start", 0)), int(step.get("stop", 0))
    if p.fused:
        # One fused string: the start of the whole text loses up to `start` copies of content.
        if stop or (start and (content != " " or start != 1)):
            raise VocabularyError(
                f"Strip(content={content!r}, start={start}, stop={stop}) after Fuse",
                hint="only the SentencePiece rule Strip(' ', 1, 0) is supported",
            )
        if start:
            p.leading_space_rule = "text"
        return

    def strip(v: str) -> str:
        i = 0
        while i < start and i < len(v) and v[i] == content:
            i += 1
        j = len(v)
        while stop and len(v) - j < stop and j > i and v[j - 1] == content:
            j -= 1
        return v[i:j]

    if any(isinstance(v, bytes) for v in p.values):
        raise VocabularyError("Strip after a byte-producing decoder step is not supported")
    p.values = [strip(v) for v in p.values]  # type: ignore[arg-type]


def _step_metaspace(p: _Pipeline, step: Mapping[str, Any]) -> None:
    p.require_unfused(step)
    replacement = str(step.get("replacement", "▁"))
    scheme = step.get("prepend_scheme")
    if scheme is None:  # older configs
        scheme = "always" if step.get("add_prefix_space", True) else "never"
    if scheme != "never":
        # tokenizers drops every replacement char of the first decoded token instead of
        # turning it into a space.
        p.leading_space_rule = "first-token"
    p.values = [v.replace(replacement, " ") if isinstance(v, str) else v for v in p.values]


_STEP_HANDLERS: dict[str, Callable[[_Pipeline, Mapping[str, Any]], None]] = {
    "ByteLevel": _step_byte_level,
    "Replace": _step_replace,
    "ByteFallback": _step_byte_fallback,
    "Fuse": _step_fuse,
    "Strip": _step_strip,
    "Metaspace": _step_metaspace,
}

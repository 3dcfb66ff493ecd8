"""Lowering code point ranges to UTF-8 byte-range sequences.

A range of Unicode scalar values becomes a small set of byte-range sequences whose union matches
exactly the UTF-8 encodings of the range (the classic split used by RE2 and regex-syntax).
"""

from __future__ import annotations

__all__ = ["ByteSeq", "utf8_sequences"]

ByteSeq = tuple[tuple[int, int], ...]
_MAX_BY_LEN = (0x7F, 0x7FF, 0xFFFF, 0x10FFFF)


def _encode(cp: int) -> bytes:
    return chr(cp).encode("utf-8", "surrogatepass")


def _split(lo: int, hi: int, out: list[ByteSeq]) -> None:
    # Split at encoding-length boundaries first.
    for max_cp in _MAX_BY_LEN:
        if lo <= max_cp < hi:
            _split(lo, max_cp, out)
            _split(max_cp + 1, hi, out)
            return
    if hi < 0x80:
        out.append(((lo, hi),))
        return
    n = len(_encode(lo))
    # Split until every continuation position spans a full or aligned sub-range.
    for i in range(1, n):
        mask = (1 << (6 * i)) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask != 0:
                _split(lo, lo | mask, out)
                _split((lo | mask) + 1, hi, out)
                return
            if hi & mask != mask:
                _split(lo, (hi & ~mask) - 1, out)
                _split(hi & ~mask, hi, out)
                return
    a, b = _encode(lo), _encode(hi)
    out.append(tuple((a[i], b[i]) for i in range(n)))


def utf8_sequences(lo: int, hi: int) -> list[ByteSeq]:
    """Byte-range sequences matching exactly the UTF-8 encodings of code points ``lo..hi``.

    Surrogates must already be excluded by the caller.
    """
    out: list[ByteSeq] = []
    _split(lo, hi, out)
    return out

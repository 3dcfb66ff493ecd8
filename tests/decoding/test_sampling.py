"""apply_token_bitmask: packed masks onto logits rows, checked against a bit-by-bit reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import typedgen
from typedgen.decoding.sampling import allowed_ids, unpack_masks


def _words(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """Masks with runs (like real ones) and a few scattered bits, zero past ``size``."""
    bits = np.zeros((n, 32 * ((size + 31) // 32)), dtype=bool)
    for row in bits:
        start = int(rng.integers(0, size))
        row[start : start + int(rng.integers(1, 500))] = True
        row[rng.integers(0, size, 20)] = True
        row[size:] = False
    return np.packbits(bits, axis=1, bitorder="little").view(np.int32)


def _reference(logits: torch.Tensor, words: np.ndarray, rows: list[int]) -> torch.Tensor:
    out = logits.clone()
    for i, r in enumerate(rows):
        keep = set(allowed_ids(words[i], out.shape[1]).tolist())
        for t in range(out.shape[1]):
            if t not in keep:
                out[r, t] = float("-inf")
    return out


@pytest.mark.parametrize("rows", [[0, 1, 2], [1, 2, 3], [3, 0, 2], [4]])
def test_matches_bit_by_bit_reference(rows: list[int]) -> None:
    rng = np.random.default_rng(len(rows) * 7 + rows[0])
    size = 1000
    words = _words(rng, len(rows), size)
    logits = torch.randn(5, size)
    expected = _reference(logits, words, rows)
    got = typedgen.apply_token_bitmask(logits.clone(), words, rows)
    assert torch.equal(got, expected)
    untouched = [r for r in range(5) if r not in rows]
    assert torch.equal(got[untouched], logits[untouched])


def test_logits_wider_than_the_mask_are_refused_past_it() -> None:
    rng = np.random.default_rng(1)
    words = _words(rng, 2, 70)  # 3 words = 96 bits, of which 70 may be set
    words[:, -1] = -1  # bits 64..95 all set: the 26 past the vocabulary too
    logits = torch.zeros(2, 130)  # padded to 130 > 96 bits
    typedgen.apply_token_bitmask(logits, words)
    assert torch.isinf(logits[:, 96:]).all()
    assert (logits[:, 64:96] == 0).all()


def test_tensor_words_and_numpy_words_agree() -> None:
    rng = np.random.default_rng(2)
    words = _words(rng, 3, 300)
    a = typedgen.apply_token_bitmask(torch.randn(3, 300).clone(), words)
    b = typedgen.apply_token_bitmask(a.clone().zero_(), torch.from_numpy(words))
    assert torch.equal(torch.isinf(a), torch.isinf(b))


def test_unpack_masks_shape_and_bits() -> None:
    words = np.array([[0b1011, -1]], dtype=np.int32)
    allowed = unpack_masks(words, 40, "cpu")
    assert allowed.shape == (1, 40)
    assert allowed[0, :4].tolist() == [True, True, False, True]
    assert not allowed[0, 4:32].any()
    assert allowed[0, 32:].all()


def test_row_count_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="2 bitmask rows for 1 logits rows"):
        typedgen.apply_token_bitmask(torch.zeros(3, 32), np.zeros((2, 1), np.int32), [0])

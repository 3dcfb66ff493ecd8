"""Vocabulary preprocessing speed on the bundled tokenizers (SmolLM2 49k, Gemma 3 262k).

Run: python benchmarks/vocab_bench.py [--repeat N]. Measures Vocabulary.from_tokenizer, the
fingerprint, save/load, pickle, and prints facts about each vocabulary (duplicates, bytes that no
token can produce, longest token).
"""

from __future__ import annotations

import argparse
import collections
import pickle
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typedgen._bundled import MissingBundledModelError, gemma3_tokenizer, smollm2_tokenizer
from typedgen.compiler.vocabulary import Vocabulary


def _timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def bench(name: str, loader: Callable[[], Any], repeat: int) -> None:
    t0 = time.perf_counter()
    try:
        tok = loader()
    except MissingBundledModelError as exc:
        print(f"{name}: skipped ({exc.hint})")
        return
    print(f"{name}: tokenizer load {time.perf_counter() - t0:.2f} s")
    build, vocab = _timed(lambda: Vocabulary.from_tokenizer(tok), repeat)
    fp, _ = _timed(vocab._compute_fingerprint, repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "v.bin"
        save, _ = _timed(lambda: vocab.save(path), repeat)
        load, loaded = _timed(lambda: Vocabulary.load(path), repeat)
        size_mb = path.stat().st_size / 1e6
    assert loaded == vocab
    blob = pickle.dumps(vocab)
    unpickle, _ = _timed(lambda: pickle.loads(blob), repeat)

    text = vocab.text_ids().tolist()
    counts = collections.Counter(vocab.tokens[i] for i in text)
    dups = {k: n for k, n in counts.items() if n > 1}
    single = {vocab.tokens[i][0] for i in text if len(vocab.tokens[i]) == 1}
    print(
        f"  size={vocab.size} text={len(text)} special={len(vocab.special_ids)} "
        f"eos={sorted(vocab.eos_ids)} leading_space_rule={vocab.leading_space_rule}"
    )
    print(
        f"  from_tokenizer {build * 1e3:.0f} ms (fingerprint {fp * 1e3:.0f} ms)  "
        f"save {save * 1e3:.0f} ms  load {load * 1e3:.0f} ms ({size_mb:.1f} MB)  "
        f"unpickle {unpickle * 1e3:.0f} ms"
    )
    print(
        f"  duplicate byte strings: {len(dups)} (e.g. {list(dups)[:6]}); "
        f"longest token {max(map(len, vocab.tokens))} bytes"
    )
    print(f"  bytes with no single-byte token: {sorted(set(range(256)) - single)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bench("SmolLM2-135M", smollm2_tokenizer, args.repeat)
    bench("Gemma-3-270M", gemma3_tokenizer, args.repeat)


if __name__ == "__main__":
    main()

"""Differential testing: the native engine against the Python reference, step by step.

Both engines run the same compiled grammar (the same lowered parser grammar: the automata of
the native core are checked equal to the Python ones separately). At every step the next-token
masks must be equal word for word, and acceptance, completeness and forced bytes must agree.
A mismatch names the grammar, the text so far and the first token on which the engines differ.

``python -m tests.runtime.differential [--vocab smollm2|gemma3|both] [--sets ...]`` runs every
source in full and prints a report; the test suite runs a bounded sample of each source
(``tests/runtime/test_differential.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import typedgen
from tests._support import EVALDATA, REPO, read_items
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.compiler.vocabulary import Vocabulary
from typedgen.errors import CompileError, GrammarError
from typedgen.ir import Grammar

PYTHON = typedgen.Compiler(engine="python", disk_cache=False)
NATIVE = typedgen.Compiler(engine="native", disk_cache=False)


class Mismatch(AssertionError):
    """The engines disagree (the message names the grammar, the prefix and the token)."""


@dataclass(frozen=True)
class Source:
    """One grammar with texts to teacher-force through it."""

    label: str
    build: Callable[[], Grammar]
    texts: tuple[str, ...] = ()
    rejects: tuple[str, ...] = ()


def compile_both(
    grammar: Grammar, vocab: Vocabulary
) -> tuple[CompiledGrammar, CompiledGrammar] | None:
    """The grammar for both engines, or ``None`` where it does not compile (for either: the
    two must agree on that too)."""
    errors: list[BaseException | None] = []
    out: list[CompiledGrammar] = []
    for compiler in (PYTHON, NATIVE):
        try:
            out.append(compiler.compile(grammar, vocab, cache=False))
            errors.append(None)
        except (GrammarError, CompileError) as exc:
            errors.append(exc)
    if errors[0] is None and errors[1] is None:
        return out[0], out[1]
    if (errors[0] is None) != (errors[1] is None):
        raise Mismatch(f"only one engine compiles: python {errors[0]!r}, native {errors[1]!r}")
    assert errors[0] is not None and errors[1] is not None
    a, b = errors[0], errors[1]
    if type(a) is not type(b) or getattr(a, "code", None) != getattr(b, "code", None):
        raise Mismatch(f"the engines refuse differently: python {a!r}, native {b!r}")
    return None


def _first_difference(a: np.ndarray, b: np.ndarray) -> int:
    diff = np.flatnonzero(np.unpackbits((a ^ b).view(np.uint8), bitorder="little"))
    return int(diff[0])


class Pair:
    """A python matcher and a native matcher driven in lock step."""

    def __init__(self, label: str, py: CompiledGrammar, nat: CompiledGrammar) -> None:
        self.label = label
        self.vocab = py.vocabulary
        self.py = py.matcher()
        self.nat = nat.matcher()
        width = (self.vocab.size + 31) // 32
        self._a = np.zeros(width, dtype=np.int32)
        self._b = np.zeros(width, dtype=np.int32)
        self.text = b""
        self.steps = 0

    def _where(self) -> str:
        return f"{self.label}: after {self.text[-80:]!r} (step {self.steps})"

    def check(self, *, forced: bool = True) -> np.ndarray:
        """Compare masks, completeness and forced bytes; return the (agreed) mask."""
        self.py.fill_next_token_bitmask(self._a)
        self.nat.fill_next_token_bitmask(self._b)
        if not np.array_equal(self._a, self._b):
            t = _first_difference(self._a, self._b)
            in_py = bool((self._a[t >> 5] >> (t & 31)) & 1)
            raise Mismatch(
                f"{self._where()}: masks differ first at token {t} {self.vocab.token_bytes(t)!r}"
                f" (python {'allows' if in_py else 'refuses'} it)"
            )
        if self.py.is_complete() != self.nat.is_complete():
            raise Mismatch(f"{self._where()}: is_complete differs")
        if forced and self.py.forced_bytes() != self.nat.forced_bytes():
            raise Mismatch(
                f"{self._where()}: forced bytes differ: {self.py.forced_bytes()!r} vs"
                f" {self.nat.forced_bytes()!r}"
            )
        return self._a

    def accept_token(self, token: int) -> bool:
        a, b = self.py.accept_token(token), self.nat.accept_token(token)
        if a != b:
            raise Mismatch(f"{self._where()}: token {token} accepted by only one engine")
        if a:
            self.text += self.vocab.token_bytes(token)
            self.steps += 1
        return a

    def accept_bytes(self, data: bytes) -> bool:
        a, b = self.py.accept_bytes(data), self.nat.accept_bytes(data)
        if a != b:
            raise Mismatch(f"{self._where()}: bytes {data!r} accepted by only one engine")
        if a:
            self.text += data
            self.steps += 1
        return a


def teacher_force(pair: Pair, ids: Sequence[int]) -> bool:
    """Walk ``ids``, comparing at every step; ``True`` if every token was accepted."""
    for t in ids:
        pair.check()
        if not pair.accept_token(t):
            return False
    pair.check()
    return True


def random_walk(pair: Pair, rng: random.Random, steps: int) -> None:
    """Pick allowed tokens at random (short ones preferred, to cross many lexemes)."""
    vocab = pair.vocab
    for _ in range(steps):
        words = pair.check(forced=rng.random() < 0.3)
        bits = np.unpackbits(words.view(np.uint8), bitorder="little")[: vocab.size]
        allowed = [t for t in np.flatnonzero(bits).tolist() if t not in vocab.eos_ids]
        if not allowed:
            return
        short = [t for t in allowed if len(vocab.token_bytes(t)) <= 2]
        pool = short if short and rng.random() < 0.7 else allowed
        assert pair.accept_token(rng.choice(pool))


def run_source(
    source: Source, vocab: Vocabulary, tokenize: Callable[[str], list[int]], *, walks: int = 2
) -> dict[str, int]:
    """Teacher-force every text, feed every reject byte by byte, and take random walks."""
    try:
        grammar = source.build()
    except GrammarError:
        return {"refused": 1}
    both = compile_both(grammar, vocab)
    if both is None:
        return {"refused": 1}
    py, nat = both
    counts = {"texts": 0, "rejects": 0, "walks": 0, "steps": 0}
    for text in source.texts:
        pair = Pair(f"{source.label} text {text[:40]!r}", py, nat)
        teacher_force(pair, tokenize(text))
        counts["texts"] += 1
        counts["steps"] += pair.steps
    for text in source.rejects:
        pair = Pair(f"{source.label} reject {text[:40]!r}", py, nat)
        for b in text.encode("utf-8"):
            pair.check(forced=False)
            if not pair.accept_bytes(bytes((b,))):
                break
        counts["rejects"] += 1
        counts["steps"] += pair.steps
    for i in range(walks):
        pair = Pair(f"{source.label} walk {i}", py, nat)
        random_walk(pair, random.Random(f"{source.label}/{i}"), 24)
        counts["walks"] += 1
        counts["steps"] += pair.steps
    return counts


# -- sources ------------------------------------------------------------------------------------
def _bench_sources() -> Iterator[Source]:
    bench = REPO / "benchmarks"
    pairs = [
        ("json.gbnf", "json_*"),
        ("arith.gbnf", "arith_*"),
        ("sql.lark", "sql_*"),
        ("sql.gbnf", "sql_*"),
    ]
    for name, pattern in pairs:
        text = (bench / "grammars" / name).read_text()
        docs = tuple(p.read_text().strip() for p in sorted((bench / "documents").glob(pattern)))

        def build(text: str = text, name: str = name) -> Grammar:
            return Grammar.from_gbnf(text) if name.endswith(".gbnf") else Grammar.from_lark(text)

        yield Source(f"benchmarks/{name}", build, docs)
    for doc in sorted((bench / "documents").glob("schema_*.json")):
        schema = json.loads((bench / "schemas" / doc.name).read_text())
        yield Source(
            f"benchmarks/schemas/{doc.name}",
            lambda schema=schema: Grammar.from_json_schema(schema),
            (doc.read_text().strip(),),
        )


def _library_sources() -> Iterator[Source]:
    from typedgen import grammars

    for name in grammars.names():
        samples = tuple(p.read_text(encoding="utf-8") for p in grammars.samples(name))
        yield Source(f"grammars/{name}", lambda name=name: grammars.load(name), samples)


def _conformance_sources(set_name: str) -> Iterator[Source]:
    from tests.conformance.runner import cases

    for case in cases(set_name):
        if case.build is None or case.expect_error:
            continue
        rejects = tuple(t.removeprefix("FINAL_REJECT:") for t in case.failing)
        yield Source(f"{set_name}/{case.name}", case.build, tuple(case.passing), rejects)


def _schema_sources(set_name: str) -> Iterator[Source]:
    for item in read_items(set_name):
        if item.get("split", "dev") == "heldout":
            continue
        tests = item.get("tests", [])
        valid = tuple(json.dumps(t["data"]) for t in tests if t.get("valid"))
        invalid = tuple(json.dumps(t["data"]) for t in tests if not t.get("valid"))
        schema = item["schema"]

        def build(schema: Any = schema) -> Grammar:
            return Grammar.from_json_schema(schema)

        yield Source(f"{set_name}/{item.get('name', '?')}", build, valid, invalid)


SOURCES: dict[str, Callable[[], Iterator[Source]]] = {
    "benchmarks": _bench_sources,
    "library": _library_sources,
    "llamacpp_grammar_integration": lambda: _conformance_sources("llamacpp_grammar_integration"),
    "llamacpp_grammar_llguidance": lambda: _conformance_sources("llamacpp_grammar_llguidance"),
    "lark_grammars": lambda: _conformance_sources("lark_grammars"),
    "lark_parser_tests": lambda: _conformance_sources("lark_parser_tests"),
    "llguidance_lark_tests": lambda: _conformance_sources("llguidance_lark_tests"),
    "xgrammar_tests": lambda: _conformance_sources("xgrammar_tests"),
    "gbnf_grammars": lambda: _conformance_sources("gbnf_grammars"),
    "json_schema_test_suite": lambda: _schema_sources("json_schema_test_suite"),
    "jsonschemabench": lambda: _schema_sources("jsonschemabench"),
}


def sources(name: str) -> list[Source]:
    """Every source of one set (empty where its data is absent)."""
    return list(SOURCES[name]())


def _main() -> None:  # pragma: no cover - the CLI report
    from typedgen._bundled import gemma3_tokenizer, smollm2_tokenizer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", default="smollm2", choices=["smollm2", "gemma3", "both"])
    parser.add_argument("--sets", default=",".join(SOURCES))
    parser.add_argument("--limit", type=int, default=0, help="sources per set (0: all)")
    args = parser.parse_args()
    loaders = {"smollm2": smollm2_tokenizer, "gemma3": gemma3_tokenizer}
    names = list(loaders) if args.vocab == "both" else [args.vocab]
    failures = 0
    print(f"evaldata: {EVALDATA}")
    for vname in names:
        hf = loaders[vname]()
        vocab = Vocabulary.from_tokenizer(hf)

        def tokenize(text: str, hf: Any = hf) -> list[int]:
            return list(hf(text, add_special_tokens=False)["input_ids"])

        for set_name in args.sets.split(","):
            t0 = time.perf_counter()
            totals: dict[str, int] = {}
            bad: list[str] = []
            items = sources(set_name)
            if args.limit:
                items = items[: args.limit]
            for source in items:
                try:
                    for k, v in run_source(source, vocab, tokenize).items():
                        totals[k] = totals.get(k, 0) + v
                except Mismatch as exc:
                    bad.append(str(exc))
                except Exception as exc:
                    bad.append(f"{source.label}: {type(exc).__name__}: {exc}")
            failures += len(bad)
            print(
                f"{vname:8} {set_name:30} sources {len(items):5} {totals}"
                f" mismatches {len(bad)} ({time.perf_counter() - t0:.0f} s)"
            )
            for line in bad[:20]:
                print(f"    {line[:300]}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":  # pragma: no cover
    _main()


__all__ = ["Mismatch", "Pair", "Source", "compile_both", "run_source", "sources", "teacher_force"]

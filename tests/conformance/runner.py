"""Run the grammar conformance sets of ../shared/evaldata through typedgen.

Every case is compiled for a byte vocabulary and each string fed byte by byte: a passing string
must be accepted and complete, a failing one rejected (a byte refused, or incomplete at the end;
``FINAL_REJECT:`` strings must have every byte accepted and be incomplete). A case whose grammar
uses a feature typedgen refuses counts as *refused*, never as passed.

``python -m tests.conformance.runner`` prints the rates per set and every failure with its reason.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests._support import byte_vocabulary, read_items
from typedgen import compile as tg_compile
from typedgen.compiler.compiled import CompiledGrammar
from typedgen.errors import CompileError, GrammarError, TypedgenError, UnsupportedFeatureError
from typedgen.ir import Grammar

VOCAB = byte_vocabulary()
FINAL = "FINAL_REJECT:"


@dataclass
class Case:
    set: str
    name: str
    build: Callable[[], Grammar] | None
    passing: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    expect_error: bool = False
    note: str = ""
    oracle: Callable[[str], bool | None] | None = None
    """lark's own verdict on a string (``None``: lark cannot judge): strings whose harvested
    label lark itself contradicts are mislabelled and left out, listed in the outcome."""
    library: Callable[[], bool] | None = None
    """For grammars without a start rule: whether lark itself also refuses to build them."""


@dataclass
class Outcome:
    status: str  # "pass" | "fail" | "refused" | "skipped"
    detail: str = ""
    mislabelled: list[str] = field(default_factory=list)


def _lark(
    text: str, start: str = "start", lexer: str = "contextual", **kw: Any
) -> Callable[[], Grammar]:
    return lambda: Grammar.from_lark(text, start=start, lexer=lexer, **kw)


def _gbnf(text: str) -> Callable[[], Grammar]:
    return lambda: Grammar.from_gbnf(text)


def _schema(schema: Any) -> Callable[[], Grammar]:
    # llama.cpp's schema tests check a generation grammar, which writes each number one way
    # ("-0" and "01" are failing strings there): typedgen's canonical spellings.
    return lambda: Grammar.from_json_schema(schema, whitespace="pretty", spellings="canonical")


def _regex(text: str) -> Callable[[], Grammar]:
    return lambda: Grammar.from_regex(text)


_items = read_items


def _llama_cases(set_name: str, fmt: str) -> Iterator[Case]:
    for it in _items(set_name):
        kind = it["kind"]
        if kind == "schema":
            yield Case(
                set_name,
                it["name"],
                _schema(it["schema"]),
                it.get("passing", []),
                it.get("failing", []),
            )
            continue
        build = _gbnf(it["grammar"]) if fmt == "gbnf" else _lark(it["grammar"])
        yield Case(
            set_name,
            it["name"],
            build,
            it.get("passing", []),
            it.get("failing", []),
            expect_error=kind == "build_fails",
        )


def _lark_oracle(text: str, **options: Any) -> Callable[[str], bool | None]:
    """lark's own verdict on strings for a grammar and options (``None``: lark cannot judge)."""
    import lark

    try:
        parser = lark.Lark(text, **options)
    except Exception:
        return lambda s: None

    def verdict(s: str) -> bool | None:
        try:
            parser.parse(s)
        except lark.exceptions.LarkError:
            return False
        except Exception:
            return None
        return True

    return verdict


def _library(text: str, **options: Any) -> Callable[[], bool]:
    def refused_by_lark() -> bool:
        import lark

        try:
            lark.Lark(text, **options)
        except Exception:
            return True
        return False

    return refused_by_lark


def _lark_parser_cases() -> Iterator[Case]:
    for it in _items("lark_parser_tests"):
        opts = dict(it.get("options") or {})
        lexer = opts.get("lexer")
        if lexer is None:
            lexer = "contextual" if opts.get("parser") == "lalr" else "dynamic"
        start = opts.get("start", "start")
        if isinstance(start, list):
            start = start[0]
        if opts.get("regex"):
            yield Case(
                "lark_parser_tests",
                it["name"],
                None,
                note="needs the third-party `regex` module (lark option regex=True)",
            )
            continue
        yield Case(
            "lark_parser_tests",
            it["name"],
            _lark(it["grammar"], start=start, lexer=lexer),
            it.get("passing", []),
            it.get("failing", []),
            oracle=_lark_oracle(it["grammar"], **opts),
            library=_library(it["grammar"], **{"start": start, **opts}),
        )


def _lark_grammar_cases() -> Iterator[Case]:
    for it in _items("lark_grammars"):
        imports = {Path(k).stem: v for k, v in (it.get("imports") or {}).items()}
        start = it.get("start") or "start"
        opts = {"parser": it["parser"]} if it.get("parser") else {}
        yield Case(
            "lark_grammars",
            it["name"],
            _lark(it["grammar"], start=start, imports=imports, source=Path(it["path"]).name),
            list(it.get("samples") or []),
            oracle=_lark_oracle(it["grammar"], start=start, **opts),
            library=_library(it["grammar"], start=start, **opts),
        )


def _llguidance_cases() -> Iterator[Case]:
    for it in _items("llguidance_lark_tests"):
        kind = it["kind"]
        yield Case(
            "llguidance_lark_tests",
            it["name"],
            _lark(it["grammar"]),
            it.get("passing", []) or [],
            it.get("failing", []) or [],
            expect_error=kind == "compile_error",
        )


# The upstream test selects a root rule that the harvested item does not record.
XGRAMMAR_ROOTS = {"test_custom_root_rule": "basic_string"}


def _xgrammar_cases() -> Iterator[Case]:
    for it in _items("xgrammar_tests"):
        root = XGRAMMAR_ROOTS.get(it.get("test", ""), "root")
        if it["kind"] == "regex":
            build = _regex(it["grammar"])
        else:
            build = (lambda text, r: lambda: Grammar.from_gbnf(text, start=r))(it["grammar"], root)
        yield Case(
            "xgrammar_tests", it["name"], build, it.get("passing", []), it.get("failing", [])
        )


def _gbnf_grammar_cases() -> Iterator[Case]:
    for it in _items("gbnf_grammars"):
        yield Case(
            "gbnf_grammars", it["name"], _gbnf(it["grammar"]), note="compile only: no strings"
        )


SETS: dict[str, Callable[[], Iterator[Case]]] = {
    "llamacpp_grammar_integration": lambda: _llama_cases("llamacpp_grammar_integration", "gbnf"),
    "llamacpp_grammar_llguidance": lambda: _llama_cases("llamacpp_grammar_llguidance", "lark"),
    "gbnf_grammars": _gbnf_grammar_cases,
    "lark_grammars": _lark_grammar_cases,
    "lark_parser_tests": _lark_parser_cases,
    "llguidance_lark_tests": _llguidance_cases,
    "xgrammar_tests": _xgrammar_cases,
}


def cases(set_name: str) -> list[Case]:
    return list(SETS[set_name]())


def _feed(compiled: CompiledGrammar, data: bytes) -> tuple[bool, bool]:
    """(every byte accepted, complete at the end)."""
    m = compiled.matcher()
    for b in data:
        if not m.accept_bytes(bytes((b,))):
            return False, False
    return True, m.is_complete()


def run(case: Case) -> Outcome:
    if case.build is None:
        return Outcome("skipped", case.note)
    try:
        grammar = case.build()
        compiled = tg_compile(grammar, VOCAB, cache=False)
    except UnsupportedFeatureError as exc:
        if case.expect_error:
            return Outcome("pass", f"refused as expected: {exc.code}")
        return Outcome("refused", f"{exc.code}: {exc.message}")
    except (GrammarError, CompileError) as exc:
        if case.expect_error:
            return Outcome("pass", f"rejected as expected: {exc.code}")
        if case.library is not None and case.library():
            return Outcome("skipped", f"lark refuses this grammar too ({exc.code})")
        return Outcome("fail", f"grammar error {exc.code}: {exc.message}")
    except TypedgenError as exc:  # pragma: no cover - defensive
        return Outcome("fail", f"{type(exc).__name__}: {exc}")
    if case.expect_error:
        return Outcome("fail", "grammar compiled but a build error was expected")
    problems = []
    mislabelled: list[str] = []
    if case.oracle is not None:
        oracle = case.oracle
        wrong_pass = [t for t in case.passing if oracle(t) is False]
        wrong_fail = [t for t in case.failing if oracle(t) is True]
        mislabelled = [f"passing {t!r}" for t in wrong_pass] + [
            f"failing {t!r}" for t in wrong_fail
        ]
        case = Case(
            case.set,
            case.name,
            case.build,
            [t for t in case.passing if t not in wrong_pass],
            [t for t in case.failing if t not in wrong_fail],
        )
    for text in case.passing:
        ok, done = _feed(compiled, text.encode("utf-8"))
        if not (ok and done):
            problems.append(f"passing {text!r} {'incomplete' if ok else 'rejected'}")
    for text in case.failing:
        final = text.startswith(FINAL)
        data = text[len(FINAL) :].encode("utf-8") if final else text.encode("utf-8")
        ok, done = _feed(compiled, data)
        if final and not ok:
            problems.append(f"FINAL_REJECT {data!r}: a prefix byte was refused")
        elif ok and done:
            problems.append(f"failing {text!r} accepted")
    if problems:
        return Outcome("fail", "; ".join(problems[:4]), mislabelled)
    if not case.passing and not case.failing and mislabelled:
        return Outcome("skipped", "every harvested string contradicts lark itself", mislabelled)
    return Outcome("pass", "", mislabelled)


def report(out: Any = sys.stdout) -> dict[str, Counter[str]]:
    totals: dict[str, Counter[str]] = {}
    for set_name in SETS:
        counts: Counter[str] = Counter()
        lines = []
        t0 = time.perf_counter()
        for case in cases(set_name):
            outcome = run(case)
            counts[outcome.status] += 1
            if outcome.status in {"fail", "refused"}:
                lines.append(f"  {outcome.status.upper():8} {case.name[:90]!r}: {outcome.detail}")
            if outcome.mislabelled:
                counts["mislabelled strings"] += len(outcome.mislabelled)
                lines.append(
                    f"  DATA     {case.name[:90]!r}: lark contradicts the harvested label of "
                    + ", ".join(outcome.mislabelled)[:200]
                )
        totals[set_name] = counts
        judged = counts["pass"] + counts["fail"] + counts["refused"]
        rate = counts["pass"] / judged if judged else 0.0
        print(
            f"{set_name}: pass {counts['pass']}/{judged} ({rate:.1%}), fail {counts['fail']},"
            f" refused {counts['refused']}, skipped {counts['skipped']},"
            f" mislabelled strings {counts['mislabelled strings']}"
            f"  [{time.perf_counter() - t0:.1f}s]",
            file=out,
        )
        for line in lines:
            print(line, file=out)
    return totals


if __name__ == "__main__":
    report()

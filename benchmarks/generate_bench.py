"""End-to-end generation on the default model: constrained vs unconstrained speed, and validity.

Run: python benchmarks/generate_bench.py [--part throughput|validity|both] [--workloads small,wide,
dates] [--prompts 3] [--repeats 1] [--schemas 50] [--max-tokens 256] [--threads N]
[--json out.json]

Throughput: per workload and prompt, typedgen's ``Generator`` runs with jump-forward off and on,
each on a freshly compiled grammar (cold: lazily built tables start empty) and then again (warm).
N = the tokens it generated; the unconstrained baselines then make exactly N greedy tokens from
the same chat-templated prompt: a loop on typedgen's own ``Forward`` harness (same KV cache code,
no masks) and transformers' ``generate``. Validity: the first ``--schemas`` jsonschemabench
schemas that typedgen compiles (round-robin over subsets), greedy unconstrained vs constrained,
each value checked by ``jsonschema``. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run from a checkout: the repository root goes first, so the working tree's typedgen is measured.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import typedgen
from typedgen.decoding.forward import Forward
from typedgen.decoding.loop import Speller, completion_need
from typedgen.prompts import encode_messages

Json = dict[str, Any]
DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
SMALL: Json = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "email": {"type": "string", "pattern": r"^[a-z0-9._]{1,20}@[a-z0-9]{1,12}\.(com|org|net)$"},
        "tags": {"type": "array", "items": {"enum": ["admin", "user", "guest"]}, "maxItems": 4},
    },
    "required": ["name", "age", "email", "tags"],
    "additionalProperties": False,
}
DIGIT_OR_BOOL = [{"type": "integer", "minimum": 0, "maximum": 9}, {"type": "boolean"}]
WIDE: Json = {
    "type": "object",
    "properties": {f"field_{i:02d}": DIGIT_OR_BOOL[1 - i % 2] for i in range(1, 61)},
    "required": [f"field_{i:02d}" for i in range(1, 61)],
    "additionalProperties": False,
}
WORKLOADS: dict[str, tuple[str, object, list[str]]] = {
    "small": (
        "object schema: name, age, email pattern, tags enum array",
        SMALL,
        [
            "Invent a user profile for a software engineer called Alice.",
            "Describe a retired schoolteacher as a user record.",
            "Create a user account for a guest visitor from Spain.",
        ],
    ),
    "wide": (
        "60 required properties field_01..field_60 (integer 0..9 / boolean)",
        WIDE,
        [
            "Fill in a form of sixty fields with small numbers and yes/no answers.",
            "Give a survey response: digits for ratings, booleans for yes/no questions.",
            "Return a random configuration record.",
        ],
    ),
    "dates": (
        f"regex: five ISO dates separated by ', ' ({DATE}(, {DATE}){{4}})",
        typedgen.Regex(f"{DATE}(, {DATE}){{4}}"),
        [
            "List five important dates from the history of computing, in ISO format.",
            "Give the dates of five public holidays in 2025 as YYYY-MM-DD.",
            "Name the birthdays of five famous scientists as ISO dates.",
        ],
    ),
}
VALIDITY_PROMPT = (
    "Generate a JSON object that is a valid instance of this JSON Schema. Reply with JSON only.\n\n"
)
TAG = {False: "jf_off", True: "jf_on"}
FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.S)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def encode(model: typedgen.LoadedModel, prompt: str) -> list[int]:
    return encode_messages(model.tokenizer, [{"role": "user", "content": prompt}])


def pad_id(model: typedgen.LoadedModel) -> int:
    pad = getattr(model.tokenizer, "pad_token_id", None)
    return int(pad if pad is not None else next(iter(model.vocabulary.eos_ids), 0))


def forward_greedy(
    model: typedgen.LoadedModel, prompt: str, n: int, stop: frozenset[int] = frozenset()
) -> tuple[list[int], int]:
    """Greedy tokens on ``Forward`` (prefill, then one token a pass): up to ``n``, or a stop id."""
    import torch

    ids = encode(model, prompt)
    fw = Forward(model.model, 1, model.device, pad_id(model))
    logits, _, offset = fw([ids], [len(ids) - 1])
    fw.advance(0, len(ids))
    last, out, passes = len(ids) - 1, [], 1
    while True:
        token = int(torch.argmax(logits[0, last - offset]))
        if token in stop:
            break
        out.append(token)
        if len(out) >= n:
            break
        logits, _, offset = fw([[token]], [0])
        fw.advance(0, 1)
        last, passes = 0, passes + 1
    return out, passes


def hf_generate(model: typedgen.LoadedModel, prompt: str, n: int) -> int:
    """transformers' greedy ``generate`` for exactly ``n`` new tokens (EOS suppressed)."""
    import torch

    ids = torch.tensor([encode(model, prompt)], device=model.device)
    out = model.model.generate(
        ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=n,
        min_new_tokens=n,
        do_sample=False,
        pad_token_id=pad_id(model),
    )
    return int(out.shape[1] - ids.shape[1])


def fresh_generator(
    output_type: object, model: typedgen.LoadedModel
) -> tuple[typedgen.Generator, float]:
    """A Generator on a grammar compiled just now (cache=False: its lazy tables start empty)."""
    gen = typedgen.Generator(output_type, model, max_retries=0)
    t0 = time.perf_counter()
    compiled = typedgen.compile(gen.grammar, model.vocabulary, cache=False)
    # Bypass the process-wide compile cache, which would hand back already warmed tables.
    gen._compiled[model.vocabulary.fingerprint] = compiled
    return gen, time.perf_counter() - t0


def constrained_run(gen: typedgen.Generator, prompt: str, jf: bool, max_tokens: int) -> Json:
    t0 = time.perf_counter()
    mode = "force" if jf else "off"
    d = gen(prompt, return_details=True, max_tokens=max_tokens, jump_forward=mode)
    seconds = time.perf_counter() - t0
    tokens = d.sampled_tokens + d.forced_tokens
    return {"seconds": seconds, "tokens": tokens, "forced": d.forced_tokens,
            "forward_passes": d.forward_passes, "text": d.text}  # fmt: skip


def throughput(model: typedgen.LoadedModel, args: argparse.Namespace) -> Json:
    log("warm-up: unconstrained Forward loop and HF generate, 8 tokens")
    forward_greedy(model, "Hello!", 8)
    hf_generate(model, "Hello!", 8)
    out: Json = {}
    for name in args.workloads:
        what, output_type, prompts = WORKLOADS[name]
        rows = []
        limit = args.throughput_max_tokens
        for prompt in prompts[: args.prompts]:
            row: Json = {"prompt": prompt, "loadavg_1min_before": os.getloadavg()[0]}
            gens: dict[bool, typedgen.Generator] = {}
            for jf in (False, True):
                gens[jf], row[f"compile_s_{TAG[jf]}"] = fresh_generator(output_type, model)
                cold = row[f"cold_{TAG[jf]}"] = constrained_run(gens[jf], prompt, jf, limit)
                log(f"[{name}] cold {TAG[jf]}: {cold['tokens']} tokens, {cold['seconds']:.2f}s")
            n = row["n"] = row["cold_jf_off"]["tokens"]
            # Warm and baseline runs take turns, so that load from elsewhere hits them alike.
            warm: dict[bool, list[Json]] = {False: [], True: []}
            fwd, hf = [], []
            for _ in range(args.repeats):
                for jf in (False, True):
                    warm[jf].append(constrained_run(gens[jf], prompt, jf, limit))
                fwd.append(timed(lambda p=prompt, n=n: forward_greedy(model, p, n)))
                hf.append(timed(lambda p=prompt, n=n: hf_generate(model, p, n)))
            for jf in (False, True):
                row[f"warm_{TAG[jf]}"] = min(warm[jf], key=lambda r: r["seconds"])
            row["forward_s"], (_, row["forward_passes"]) = min(fwd, key=lambda r: r[0])
            row["hf_s"], row["hf_tokens"] = min(hf, key=lambda r: r[0])
            runs = [row[f"{k}_{TAG[jf]}"] for k in ("cold", "warm") for jf in (False, True)]
            row["same_output"] = all(r["text"] == runs[0]["text"] for r in runs)
            log(
                f"[{name}] N={n} warm jf off {row['warm_jf_off']['seconds']:.2f}s"
                f" on {row['warm_jf_on']['seconds']:.2f}s, forward {row['forward_s']:.2f}s,"
                f" hf {row['hf_s']:.2f}s, load {os.getloadavg()[0]:.1f};"
                f" {runs[0]['text'][:60]!r}"
            )
            rows.append(row)
        out[name] = {"what": what, "rows": rows, "summary": summarise_throughput(rows)}
    return out


def summarise_throughput(rows: list[Json]) -> Json:
    n = sum(r["n"] for r in rows)
    s: Json = {"n": n, "same_output": all(r["same_output"] for r in rows)}
    for key in ("cold_jf_off", "warm_jf_off", "cold_jf_on", "warm_jf_on"):
        s[f"{key}_s"] = sum(r[key]["seconds"] for r in rows)
        s[f"{key}_passes"] = sum(r[key]["forward_passes"] for r in rows)
        s[f"{key}_tokens"] = sum(r[key]["tokens"] for r in rows)
    s["forward_s"] = sum(r["forward_s"] for r in rows)
    s["forward_passes"] = sum(r["forward_passes"] for r in rows)
    s["hf_s"] = sum(r["hf_s"] for r in rows)
    # Forced jump-forward may spell the output in fewer tokens than plain decoding (canonical
    # tokens for the forced bytes), so each run is judged by its own token count.
    for key in ("warm_jf_off", "warm_jf_on"):
        s[f"{key}_tok_s"] = s[f"{key}_tokens"] / s[f"{key}_s"] if s[f"{key}_s"] else 0.0
    for key in ("forward", "hf"):
        s[f"{key}_tok_s"] = n / s[f"{key}_s"] if s[f"{key}_s"] else 0.0
    for tag in ("jf_off", "jf_on"):
        s[f"overhead_{tag}"] = s["forward_tok_s"] / s[f"warm_{tag}_tok_s"] - 1
        s[f"overhead_{tag}_vs_hf"] = s["hf_tok_s"] / s[f"warm_{tag}_tok_s"] - 1
    return s


def print_throughput(res: Json) -> None:
    print("## Throughput (constrained vs unconstrained, same prompts, same N)\n")
    print("| workload | prompt | N | passes off/on/unc | cold off | warm off | cold on | warm on"
          " | Forward loop | HF generate | same text |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, w in res.items():
        for i, r in enumerate(w["rows"], 1):
            runs = [r[k] for k in ("warm_jf_off", "warm_jf_on")]
            passes = "/".join(
                str(x) for x in (*(q["forward_passes"] for q in runs), r["forward_passes"])
            )
            times = [r[k]["seconds"] for k in ("cold_jf_off", "warm_jf_off", "cold_jf_on")]
            secs = " | ".join(
                f"{x:.2f}" for x in (*times, runs[1]["seconds"], r["forward_s"], r["hf_s"])
            )
            same = "yes" if r["same_output"] else "NO"
            print(f"| {name} | {i} | {r['n']} | {passes} | {secs} | {same} |")
    print("\nSeconds per run. Summary per workload (sums over its prompts):\n")
    print("| workload | N | tok/s warm off | tok/s warm on | tok/s Forward | tok/s HF"
          " | overhead off | overhead on | on vs HF |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for name, w in res.items():
        s = w["summary"]
        print(
            f"| {name} | {s['n']} | {s['warm_jf_off_tok_s']:.1f} | {s['warm_jf_on_tok_s']:.1f}"
            f" | {s['forward_tok_s']:.1f} | {s['hf_tok_s']:.1f} | {s['overhead_jf_off']:+.1%}"
            f" | {s['overhead_jf_on']:+.1%} | {s['overhead_jf_on_vs_hf']:+.1%} |"
        )
    print(
        "\nOverhead = unconstrained tokens/s / constrained warm tokens/s - 1 (negative: faster);"
        " each constrained run counts its own tokens (forced jump-forward spells forced bytes"
        " canonically, often in fewer tokens than plain decoding)."
    )
    for name, w in res.items():
        print(f"* {name}: {w['what']}")
    print()


def extract_json(text: str) -> tuple[bool, Any]:
    """The first JSON value in a reply: inside a ``` fence if any, from the first { or [."""
    m = FENCE.search(text)
    body = m.group(1) if m else text
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    candidate = body[min(starts) :] if starts else body.lstrip()
    try:
        return True, json.JSONDecoder().raw_decode(candidate)[0]
    except ValueError:
        return False, None


def judge(schema: Any, ok: bool, value: Any) -> Json:
    """Outcome by the jsonschema oracle (plus the verdict with format checking)."""
    if not ok:
        return {"outcome": "unparseable"}
    import jsonschema

    try:
        cls: Any = jsonschema.validators.validator_for(schema)
        valid = cls(schema).is_valid(value)
        with_format = cls(schema, format_checker=cls.FORMAT_CHECKER).is_valid(value)
    except Exception as exc:  # a schema the oracle cannot use (unresolvable $ref, ...)
        return {"outcome": "oracle-error", "detail": f"{type(exc).__name__}: {exc}"[:200]}
    return {"outcome": "valid" if valid else "invalid", "valid_with_format": with_format}


def sample_schemas(
    model: typedgen.LoadedModel, args: argparse.Namespace
) -> tuple[list[Json], list[Json]]:
    """The first ``--schemas`` schemas that compile, round-robin over subsets sorted by name."""
    from tests._support import EVALDATA, read_items

    items = read_items("jsonschemabench")
    if not items:
        sys.exit(f"jsonschemabench not found under {EVALDATA} (set TYPEDGEN_EVALDATA)")
    subsets: dict[str, list[Json]] = defaultdict(list)
    for item in sorted(items, key=lambda i: (i.get("subset", ""), i["name"])):
        subsets[item.get("subset", "")].append(item)
    queues = [subsets[k] for k in sorted(subsets)]
    order = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
    limit = model.model.config.max_position_embeddings - args.max_tokens
    picked: list[Json] = []
    skipped: list[Json] = []
    for item in order:
        if len(picked) >= args.schemas:
            break
        prompt = VALIDITY_PROMPT + json.dumps(item["schema"])
        skip = {"name": item["name"], "subset": item.get("subset", "")}
        if len(encode(model, prompt)) > limit:
            skipped.append({**skip, "reason": "prompt too long", "detail": f"> {limit} tokens"})
            continue
        try:
            gen, compile_s = fresh_generator(item["schema"], model)
        except (typedgen.TypedgenError, RecursionError) as exc:
            skipped.append({**skip, "reason": type(exc).__name__, "detail": str(exc)[:160]})
            continue
        except Exception as exc:  # a typedgen bug: record it, keep sampling
            skipped.append({**skip, "reason": f"crash {type(exc).__name__}", "detail": str(exc)})
            continue
        # The shortest valid instance, in tokens: over the budget, no output can complete.
        need = completion_need(gen.compiled().matcher(), Speller(model.tokenizer, model.vocabulary))
        log(f"schema {len(picked) + 1}: {item['name']} (compiled in {compile_s:.2f}s,"
            f" shortest instance {need} tokens)")  # fmt: skip
        picked.append({**skip, "schema": item["schema"], "prompt": prompt, "gen": gen,
                       "compile_s": compile_s, "shortest_tokens": need})  # fmt: skip
    return picked, skipped


def constrained(p: Json, max_tokens: int, on_max_tokens: str, instructions: bool = True) -> Json:
    """One constrained attempt, judged by jsonschema (the binder's own check aside).

    With ``instructions`` (typedgen's default) the prompt is the request alone and the
    instructions carry the schema; without, the prompt carries it, as the unconstrained side's.
    """
    schema = p["schema"]
    prompt = VALIDITY_PROMPT.rstrip() if instructions else p["prompt"]
    t0 = time.perf_counter()
    con: Json
    try:
        d = p["gen"](
            prompt,
            return_details=True,
            max_tokens=max_tokens,
            on_max_tokens=on_max_tokens,
            instructions=instructions,
        )
        con = {**judge(schema, True, d.value), "tokens": d.sampled_tokens + d.forced_tokens,
               "text": d.text, "closed_early": d.closed_early}  # fmt: skip
    except typedgen.ValidationFailed as exc:  # the binder's check (with formats) refused it
        ctext = exc.attempts[-1].text
        con = {**judge(schema, *extract_json(ctext)), "text": ctext,
               "detail": f"binder: {exc.attempts[-1].error}"[:200]}  # fmt: skip
    except typedgen.IncompleteOutputError as exc:
        con = {"outcome": "incomplete", "tokens": max_tokens, "text": exc.partial_text}
    except Exception as exc:
        con = {"outcome": "error", "detail": f"{type(exc).__name__}: {exc}"[:200]}
    con["seconds"] = time.perf_counter() - t0
    return con


def validity(model: typedgen.LoadedModel, args: argparse.Namespace) -> Json:
    picked, skipped = sample_schemas(model, args)
    stop = frozenset(model.vocabulary.eos_ids) | {model.tokenizer.eos_token_id}
    results = []
    for k, p in enumerate(picked, 1):
        schema, prompt = p["schema"], p["prompt"]
        unc: Json = {"outcome": "skipped", "seconds": 0.0, "truncated": False}
        if not args.skip_unconstrained:
            secs, (tokens, _) = timed(
                lambda prompt=prompt: forward_greedy(model, prompt, args.max_tokens, stop)
            )
            text = model.tokenizer.decode(tokens, skip_special_tokens=True)
            unc = {**judge(schema, *extract_json(text)), "seconds": secs, "tokens": len(tokens),
                   "truncated": len(tokens) >= args.max_tokens, "text": text}  # fmt: skip
        # A greedy run with on_max_tokens="finish" decodes as "raise" does until it closes
        # (which it may do before the budget's end, where the output could still have ended by
        # itself): only the runs it closed are run again with "raise".
        fin = constrained(p, args.max_tokens, "finish", args.instructions == "on")
        con = dict(fin)
        if fin.get("closed_early"):
            con = constrained(p, args.max_tokens, "raise", args.instructions == "on")
        log(f"[{k}/{len(picked)}] {p['name']}: unconstrained {unc['outcome']},"
            f" constrained {con['outcome']}, finish {fin['outcome']}")  # fmt: skip
        results.append({"name": p["name"], "subset": p["subset"], "compile_s": p["compile_s"],
                        "shortest_tokens": p["shortest_tokens"],
                        "unconstrained": unc, "constrained": con, "finish": fin})  # fmt: skip
    return {"schemas": len(results), "skipped": skipped, "results": results}


def print_validity(res: Json, max_tokens: int) -> None:
    results, n = res["results"], res["schemas"]
    print(f"## Validity: {n} jsonschemabench schemas, greedy, max_tokens={max_tokens}\n")
    reasons = Counter(s["reason"] for s in res["skipped"])
    print(f"Skipped before reaching {n}: {len(res['skipped'])} {dict(reasons)}")
    for s in res["skipped"]:
        detail = " ".join(s["detail"].split())[:120]
        print(f"* skipped {s['name']} ({s['subset']}): {s['reason']}: {detail}")
    kinds = ("valid", "invalid", "unparseable", "incomplete", "error", "oracle-error")
    print("\n| side | valid fraction | " + " | ".join(kinds) + " | valid w/ format | seconds |")
    print("|---|---|" + "---|" * len(kinds) + "---|---|")
    for side in ("unconstrained", "constrained", "finish"):
        c = Counter(r[side]["outcome"] for r in results)
        fmt = sum(bool(r[side].get("valid_with_format")) for r in results)
        secs = sum(r[side]["seconds"] for r in results)
        frac = c["valid"] / n if n else 0.0
        counts = " | ".join(str(c[k]) for k in kinds)
        print(f"| {side} | {frac:.1%} | {counts} | {fmt} | {secs:.1f} |")
    unfit = [r for r in results if r.get("shortest_tokens", 0) > max_tokens]
    print(f"\nSchemas whose shortest valid instance is longer than {max_tokens} tokens (no output"
          f" can complete): {len(unfit)}", *(f"{r['name']} ({r['shortest_tokens']})"
          for r in unfit))  # fmt: skip
    trunc = sum(r["unconstrained"]["truncated"] for r in results)
    print(f"\nUnconstrained replies cut by max_tokens: {trunc}. Failures (not valid):")
    closed = sum(bool(r["finish"].get("closed_early")) for r in results)
    print(f"'finish' = constrained with on_max_tokens='finish'; closed early: {closed}.")
    for side in ("constrained", "finish", "unconstrained"):
        for r in results:
            o = r[side]
            if o["outcome"] not in ("valid", "skipped"):
                extra = f" ({o['detail']})" if o.get("detail") else ""
                print(f"* {side}: {r['name']} ({r['subset']}): {o['outcome']}{extra}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("throughput", "validity", "both"), default="both")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="throughput workloads")
    parser.add_argument("--prompts", type=int, default=3, help="prompts per workload (max 3)")
    parser.add_argument("--repeats", type=int, default=1, help="warm/baseline runs, fastest kept")
    parser.add_argument("--throughput-max-tokens", type=int, default=1024)
    parser.add_argument("--schemas", type=int, default=50)
    parser.add_argument("--max-tokens", type=int, default=256, help="validity token budget")
    parser.add_argument(
        "--instructions",
        choices=("on", "off"),
        default="on",
        help="validity: the schema in typedgen's instructions (the default) or in the prompt",
    )
    parser.add_argument(
        "--skip-unconstrained",
        action="store_true",
        help="validity: constrained sides only (the unconstrained one does not depend on typedgen)",
    )
    parser.add_argument("--json", help="also write every raw number here")
    parser.add_argument("--threads", type=int, help="torch.set_num_threads (default: untouched)")
    args = parser.parse_args()
    args.workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = set(args.workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; choose from {list(WORKLOADS)}")
    import torch
    import transformers

    transformers.logging.set_verbosity_error()
    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    model = typedgen.load_model()
    meta: Json = {
        "model": model.name, "device": str(model.device), "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__, "transformers": transformers.__version__,
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "load_s": time.perf_counter() - t0,
    }  # fmt: skip
    print(f"# generate_bench: {model.name} on {model.device}, torch {torch.__version__},"
          f" {meta['torch_threads']} threads, {meta['cpus']} CPUs\n")  # fmt: skip
    report: Json = {"meta": meta}
    if args.part in ("throughput", "both"):
        report["throughput"] = throughput(model, args)
        print_throughput(report["throughput"])
    if args.part in ("validity", "both"):
        report["validity"] = validity(model, args)
        print_validity(report["validity"], args.max_tokens)
    meta["wall_s"] = time.perf_counter() - t0
    meta["loadavg"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"wall time {meta['wall_s']:.0f} s, load average {meta['loadavg']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
        log(f"raw numbers written to {args.json}")


if __name__ == "__main__":
    main()

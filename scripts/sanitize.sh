#!/usr/bin/env bash
# Build the native core with AddressSanitizer and UndefinedBehaviorSanitizer and run the runtime,
# compiler and differential tests against it (any report aborts the run with a stack trace).
# Usage: bash scripts/sanitize.sh [pytest args]   (default: the engine-facing tests)
# Uses the venv of scripts/_setup.sh (run scripts/test.sh once first); the sanitized build lives
# in build/sanitize and is loaded through TYPEDGEN_NATIVE_LIB, the installed one is untouched.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${TYPEDGEN_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
BUILD="$ROOT/build/sanitize"
if [ ! -x "$PY" ]; then
  echo "no venv at $VENV: run 'bash scripts/test.sh' once first" >&2
  exit 2
fi
# nanobind is a build requirement of the wheel (pip's isolated build env has it, the venv not).
"$VENV/bin/pip" install -q -c "$ROOT/constraints.txt" nanobind
cmake -S "$ROOT/native" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DTYPEDGEN_SANITIZE=ON -DPython_EXECUTABLE="$PY" >/dev/null
cmake --build "$BUILD"
LIB="$(ls "$BUILD"/_native*.so)"
ASAN_LIB="$(gcc -print-file-name=libasan.so)"
UBSAN_LIB="$(gcc -print-file-name=libubsan.so)"
if [ $# -eq 0 ]; then
  set -- tests/runtime tests/compiler tests/conformance/test_soundness.py tests/frontends/test_regex.py
fi
echo "sanitized core: $LIB"
cd "$ROOT"
# Leak checking is off: CPython itself does not free everything at exit.
env LD_PRELOAD="$ASAN_LIB:$UBSAN_LIB" \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:check_initialization_order=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  TYPEDGEN_NATIVE_LIB="$LIB" TYPEDGEN_ENGINE=native \
  "$PY" -m pytest -q -p no:cacheprovider "$@"

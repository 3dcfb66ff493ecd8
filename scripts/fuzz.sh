#!/usr/bin/env bash
# Fuzz the frontends (JSON Schema, Lark, GBNF, regex, SQL DDL) through typedgen.compile with the
# SmolLM2 vocabulary, each for a bounded time (default 300 s per target).
# Every input must compile or raise a placed, hinted TypedgenError, within 10 s and a 4 GiB
# address space per input; failing inputs are saved under fuzz-out/<target>/ (replay one with
# `python -m tests.fuzz.driver --replay <file>`). Exit status 1 when anything failed.
# Usage: bash scripts/fuzz.sh [--target lark[,gbnf,...]|all] [--seconds 300] [--engine python]
# TYPEDGEN_SKIP_SETUP=1 runs in the existing .venv without installing anything.
set -euo pipefail
if [ -n "${TYPEDGEN_SKIP_SETUP:-}" ]; then
  cd "$(dirname "$0")/.."
  export PATH="${TYPEDGEN_VENV:-$PWD/.venv}/bin:$PATH"
else
  source "$(dirname "$0")/_setup.sh" "models,test"
fi
python -m tests.fuzz.driver "$@"

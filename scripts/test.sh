#!/usr/bin/env bash
# Set up .venv and run the checks and the test suite (the command CI runs).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k lark`.
source "$(dirname "$0")/_setup.sh" "models,test,dev"
ruff check typedgen tests benchmarks examples
ruff format --check typedgen tests examples
mypy
pytest -q "$@"

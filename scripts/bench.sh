#!/usr/bin/env bash
# Set up .venv with the peer engines and run the mask benchmark side by side.
source "$(dirname "$0")/_setup.sh" "models,bench"
python benchmarks/mask_bench.py "$@"

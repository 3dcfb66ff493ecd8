#!/usr/bin/env bash
# Set up .venv and run the quickstart example on the default model (SmolLM2-135M-Instruct).
source "$(dirname "$0")/_setup.sh" "models"
python examples/quickstart.py "$@"

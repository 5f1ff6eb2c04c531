#!/usr/bin/env bash
# Idempotent set-up: system tools through apt (sudo when not root), then .venv with hh and its test extras at
# the versions of constraints.txt (the set CI and the suite were run with; pyproject.toml has the lower bounds).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${VENV:-.venv}

need=()
command -v iverilog >/dev/null || need+=(iverilog)
command -v yosys >/dev/null || need+=(yosys)
command -v sta >/dev/null || need+=(opensta)
[ -f /usr/share/qflow/tech/osu018/osu018_stdcells.lib ] || need+=(qflow-tech-osu018)
[ -f /usr/share/qflow/tech/osu035/osu035_stdcells.lib ] || need+=(qflow-tech-osu035)
command -v ccache >/dev/null || need+=(ccache)
command -v perl >/dev/null || need+=(perl)
command -v bwrap >/dev/null || need+=(bubblewrap)   # the tool sandbox (limits.sandbox: required)
if [ "${HH_WITH_CHROMIUM:-0}" = 1 ] && ! command -v chromium >/dev/null; then need+=(chromium); fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

stamp="$VENV/.hh-installed"
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PY" -m venv "$VENV"
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  echo "setup: installing hyperheurist and test extras into $VENV (versions: constraints.txt)"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -c constraints.txt -e ".[test]"
  touch "$stamp"
fi
"$VENV/bin/hh" doctor >/dev/null || { "$VENV/bin/hh" doctor; exit 1; }
echo "setup: ok ($("$VENV/bin/hh" --version))"

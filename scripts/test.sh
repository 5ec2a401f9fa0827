#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine, then run every test:
# Chromium and Mesa's Vulkan drivers (lavapipe, for the native transport) from apt, Node.js/npm
# (apt, if missing), Python deps with wgpu (pip, into .venv), Pyodide and Dawn (npm ci), Mesa 25's
# lavapipe for Dawn (scripts/lavapipe.sh), then ruff, mypy and pytest (CPython unit tests, the GPU
# suites natively, on Dawn in Node and in headless Chromium). Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
apt_install() {
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
command -v npm >/dev/null || missing+=(nodejs npm)
python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)
[ ${#missing[@]} = 0 ] || apt_install "${missing[@]}"

# The Python test dependencies go into the project's own virtual environment, not the system's.
[ -x .venv/bin/python ] || python3 -m venv .venv
py=.venv/bin/python
"$py" -m pip install -q --disable-pip-version-check -e ".[test]"
if [ -n "$("$py" -c 'import serve; print(serve.node_modules_stale() or "")')" ]; then
  npm ci --no-audit --no-fund --loglevel=error  # node_modules missing or older than the lock
fi
bash scripts/lavapipe.sh  # Mesa 25's lavapipe for Dawn (the browser transport in Node), if not there yet
"$py" -m ruff check .
"$py" -m mypy
"$py" -m pytest "$@"

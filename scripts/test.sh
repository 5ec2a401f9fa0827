#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine, then run every test:
# Chromium (apt), Node.js/npm (apt, if missing), Python deps (pip), Pyodide (npm ci), then
# ruff and pytest (CPython unit tests + headless-Chromium end-to-end tests). Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
apt_install() {
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}
[ -x /usr/bin/chromium ] || apt_install chromium
command -v npm >/dev/null || apt_install nodejs npm

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
npm ci --no-audit --no-fund --loglevel=error
python3 -m ruff check .
python3 -m pytest "$@"

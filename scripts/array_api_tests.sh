#!/usr/bin/env bash
# The Python Array API standard's own test suite (github.com/data-apis/array-api-tests, with its
# `array-api` submodule) against pycore, through the synchronous adapter tests/array_api/: every
# `*_async` call run to completion by asyncio.run in a fresh event loop, the standard's array object
# made of pycore calls. One test file at a time; a summary line per file.
#
#   git clone --recursive https://github.com/data-apis/array-api-tests ../array-api-tests
#   .venv/bin/python -m pip install ndindex pytest-json-report   # (the suite's own dependencies)
#   bash scripts/array_api_tests.sh ../array-api-tests [OUT_DIR] [MAX_EXAMPLES]
#
# PYCORE_TRANSPORT=numpy (the default here) tests the NumPy backend; with a WebGPU transport
# (PYCORE_TRANSPORT=native) and AAT_DEVICE=gpu every array is a GpuArray. pycore has no 64-bit
# dtypes: the suite is told to skip them. AAT_FILES="array_api_tests/test_linalg.py ..." runs
# those files only.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite="$(cd "${1:?usage: array_api_tests.sh ARRAY_API_TESTS_DIR [OUT_DIR] [MAX_EXAMPLES]}" && pwd)"
out="$(mkdir -p "${2:-array-api-results}" && cd "${2:-array-api-results}" && pwd)"
max="${3:-100}"
py="$root/.venv/bin/python"
[ -x "$py" ] || py=python3
export ARRAY_API_TESTS_MODULE="exec('import sys; sys.path.insert(0, \"$root/tests/array_api\"); from suite_xp import xp')"
export ARRAY_API_TESTS_VERSION="${ARRAY_API_TESTS_VERSION:-2025.12}"
export ARRAY_API_TESTS_SKIP_DTYPES=uint64,int64,float64,complex128
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export PYCORE_TRANSPORT="${PYCORE_TRANSPORT:-numpy}"
cd "$suite"
for f in ${AAT_FILES:-array_api_tests/test_*.py}; do
  name=$(basename "$f" .py)
  "$py" -m pytest "$f" -q -p no:cacheprovider --max-examples "$max" --disable-deadline --derandomize \
    -rfE --tb=short > "$out/$name.log" 2>&1
  echo "$name: $(tail -1 "$out/$name.log")"
done

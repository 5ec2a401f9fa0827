#!/usr/bin/env bash
# Reproducibly build the NumPy wheel that pycore vendors for Pyodide 314.0.7.
#
# PyPI publishes no emscripten wheels and the npm pyodide package ships none, so we cross-compile
# the PyPI sdist with Debian sid's emscripten inside a throw-away sid chroot (root needed).
#   usage: sudo scripts/build-numpy-wheel.sh [OUTDIR]       (default: vendor/wheels)
# Needs: node_modules/pyodide (npm ci), debootstrap (installed if missing), the Debian archive and PyPI.
# Takes ~1 min for the chroot and ~3 min for the build on 2 cores. SOURCE_DATE_EPOCH makes the
# result byte-identical from run to run; compare with vendor/wheels/SHA256SUMS.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$here/vendor/wheels}")
stdlib_zip="$here/node_modules/pyodide/python_stdlib.zip"
root=${CHROOT:-/tmp/pycore-sid-chroot}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NUMPY_VERSION=2.4.6
NUMPY_SHA256=f3a3570c4a2a16746ac2c31a7c7c7b0c186b95ce902e33db6f28094ed7387dda

[ -f "$stdlib_zip" ] || { echo "missing $stdlib_zip: run 'npm ci' first" >&2; exit 1; }
command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q debootstrap; }

[ -d "$root/usr" ] || debootstrap --variant=minbase sid "$root" "$mirror"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# patchelf from Debian: meson-python asks for one and would otherwise try to build it from source.
packages="emscripten python3.14-dev python3.14-venv nodejs ca-certificates unzip patchelf"
if ! chroot "$root" dpkg -s $packages >/dev/null 2>&1; then
  chroot "$root" apt-get -q -o Acquire::Check-Valid-Until=false update
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $packages
fi
chroot "$root" emcc --version | head -1

work="$root/build"
rm -rf "$work" && mkdir -p "$work"
cp "$stdlib_zip" "$work/"
cp "$here/scripts/numpy-wheel-inner.sh" "$work/inner.sh"
# The host's CA bundle, so that pip inside works behind the same TLS-inspecting proxy, if any.
cp /etc/ssl/certs/ca-certificates.crt "$work/ca.crt"
chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root PIP_CERT=/build/ca.crt \
    NUMPY_VERSION=$NUMPY_VERSION NUMPY_SHA256=$NUMPY_SHA256 bash /build/inner.sh
mkdir -p "$out"
cp "$work"/dist/numpy-*.whl "$out/"
(cd "$out" && sha256sum numpy-*.whl)

#!/usr/bin/env bash
# pycore on a real GPU through the native transport (wgpu-py), also on a machine with no registry
# access: install what was brought along, check every op against its float64 reference on the GPU
# and every fused chain against the separate kernels, then run the benchmark and write its JSON.
#
# On a machine without network access, bring along (both git-ignored in your checkout):
#   .whl/  wgpu and its needs as wheels for that machine's Python:
#          pip download --no-deps --only-binary=:all: -d .whl wgpu==0.32.0 cffi pycparser rendercanvas
#          (with --python-version and --platform manylinux_2_28_x86_64 etc. when they differ)
#   .gl/   Debian's Vulkan and GL loaders, if the machine lacks them:
#          (cd .gl && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# then, on the GPU machine:  bash scripts/native-gpu-run.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: native-gpu-run.sh OUT_DIR}"
mkdir -p "$out"

if [ -d .gl ]; then  # the Vulkan loader (libvulkan1) and GL dispatch libraries, as Debian packages
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
if [ -d .whl ]; then  # wgpu and what it needs, as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$nvidia_icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
  export VK_DRIVER_FILES="$nvidia_icd"
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}" PYCORE_TRANSPORT=native PYCORE_CACHE_DIR=/tmp/pycore-cache PYTHONUNBUFFERED=1

python3 - <<'PY' 2>&1 | tee "$out/native-check.txt"
import asyncio, pycore
from tests.reference import case_ids, fused_chains_async, run_case_async

async def main():
    info = await pycore.init_async()
    print("transport:", info["transport"], "|", info["tier"], "|", info["versions"])
    if info["transport"] != "native":
        raise SystemExit(f"no native WebGPU: {info['reason']}")
    ids = case_ids()
    failed = [r for r in [await run_case_async(c, backend="gpu") for c in ids] if not r["ok"]]
    for r in failed:
        print("FAILED", r["case"], r["problems"])
    print(f"{len(ids) - len(failed)} of {len(ids)} op cases match their float64 references on the GPU")
    chains = await fused_chains_async()
    bad = {case: r for case, r in chains.items() if r["problems"] or len(r["fused"]) != 1}
    for case, r in bad.items():
        print("FAILED fused chain", case, r)
    print(f"{len(chains) - len(bad)} of {len(chains)} fused chains match the separate kernels "
          f"(largest difference {max(r['diff'] for r in chains.values()):.3g})")
    return len(failed) + len(bad)

raise SystemExit(asyncio.run(main()))
PY
python3 -m pycore.bench --native --repeats 9 --matrix-sizes 64,128,256,512,1000,1024 --out "$out/native-bench.json"

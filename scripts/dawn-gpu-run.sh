#!/usr/bin/env bash
# pycore's browser transport on a real GPU: Pyodide on Dawn (Chrome's WebGPU) in Node, with raw JS
# and TF.js in the same process. Checks every op case against its float64 reference and every
# fused chain on the GPU, measures where a call's time goes (scripts/call_cost.py), runs the
# benchmark sweep (scripts/bench.py --dawn) and the fft benchmark against jax-js
# (scripts/fft_bench.py) and the pipeline benchmark (scripts/pipeline_bench.py). Also on a machine
# with no registry access or Node:
#
# Bring along (git-ignored in your checkout), made on a Linux x86-64 machine that has them:
#   .dawn/node.xz               xz -c "$(command -v node)" > .dawn/node.xz  (a Node >= 20 binary)
#   .dawn/node_modules.tar.xz   tar -cJf .dawn/node_modules.tar.xz node_modules/webgpu/index.js \
#       node_modules/webgpu/package.json node_modules/webgpu/dist/linux-x64/dawn.node node_modules/pyodide \
#       node_modules/@tensorflow/tfjs-core/dist/tf-core.min.js \
#       node_modules/@tensorflow/tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js \
#       node_modules/@jax-js/jax/package.json node_modules/@jax-js/jax/dist
#   .gl/                        Debian's Vulkan loader, if the machine lacks it (see native-gpu-run.sh)
# then, on the GPU machine:  bash scripts/dawn-gpu-run.sh OUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: dawn-gpu-run.sh OUT_DIR}"
mkdir -p "$out"

if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$nvidia_icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
  export VK_DRIVER_FILES="$nvidia_icd"
fi
if ! command -v node >/dev/null && [ -f .dawn/node.xz ]; then
  mkdir -p /tmp/dawn-node/bin
  xz -dc .dawn/node.xz > /tmp/dawn-node/bin/node && chmod +x /tmp/dawn-node/bin/node
  export PATH="/tmp/dawn-node/bin:$PATH"
fi
if [ ! -f node_modules/webgpu/index.js ] && [ -f .dawn/node_modules.tar.xz ]; then
  tar -xJf .dawn/node_modules.tar.xz
fi
export PYTHONPATH="$PWD:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
command -v nvidia-smi >/dev/null && nvidia-smi -L

python3 - <<'PY' 2>&1 | tee "$out/dawn-check.txt"
from tests.harness import Dawn

worker = Dawn()
info = worker.ready()
print("Dawn:", info["tier"], "|", info["versions"])
if info["backend"] != "webgpu":
    raise SystemExit(f"no WebGPU adapter: {info['reason']}")
print(worker.py("""
from pycore_reference import case_ids, fused_chains_async, run_case_async
ids = case_ids()
failed = [r for r in [await run_case_async(c, backend="gpu") for c in ids] if not r["ok"]]
lines = [f"FAILED {r['case']} {r['problems']}" for r in failed]
lines.append(f"{len(ids) - len(failed)} of {len(ids)} op cases match their float64 references on the GPU")
chains = await fused_chains_async()
bad = {case: r for case, r in chains.items() if r["problems"] or len(r["fused"]) != 1}
lines += [f"FAILED fused chain {case} {r}" for case, r in bad.items()]
lines.append(f"{len(chains) - len(bad)} of {len(chains)} fused chains match the separate kernels "
             f"(largest difference {max(r['diff'] for r in chains.values()):.3g})")
"\\n".join(lines)
"""))
worker.close()
PY
python3 scripts/call_cost.py --out "$out/call-cost.json" 2>&1 | grep -v "^Warning" | tee "$out/call-cost.txt"
python3 scripts/bench.py --dawn --repeats 9 --out "$out/dawn-bench.json" 2>&1 | grep -v "^Warning" \
  | tee "$out/dawn-bench.txt"
python3 scripts/fft_bench.py --out "$out/fft-bench.json" 2>&1 | grep -v "^Warning" | tee "$out/fft-bench.txt"
python3 scripts/pipeline_bench.py --out "$out/pipelines.json" 2>&1 | grep -v "^Warning" | tee "$out/pipelines.txt"

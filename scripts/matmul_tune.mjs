// Times matmul kernels side by side on one device through Dawn (npm `webgpu`), in raw JavaScript:
// the kernels of shaders/matmul.wgsl plus candidate kernels written by
// `python3 scripts/matmul_wgsl.py --variants FILE`, each checked against a float64 product first.
//
//   node scripts/matmul_tune.mjs VARIANTS.json [sizes, default 256,512,1024,2048,4096] [rounds, default 3]
//
// For every size n and kernel: C = A @ B on n x n float32 matrices, `reps` dispatches in one submit
// (as many as take about 40 ms), timed from submit to onSubmittedWorkDone; rounds alternate the
// kernels, and the median per dispatch is printed (ms and TFLOP/s), then one JSON line.

import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [variantsFile, sizesArg, roundsArg] = process.argv.slice(2);
const sizes = (sizesArg ?? "256,512,1024,2048,4096").split(",").map(Number);
const rounds = Number(roundsArg ?? 3);

const { create, globals } = await import(pathToFileURL(path.join(ROOT, "node_modules", "webgpu", "index.js")));
Object.assign(globalThis, globals);
const gpu = create([]);  // kept referenced: Dawn's instance must outlive the device
globalThis.gpu = gpu;
const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
const info = adapter.info ?? {};
const device = await adapter.requestDevice({
  requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
    maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: adapter.limits.maxComputeInvocationsPerWorkgroup,
  },
});
let errors = 0;
device.addEventListener("uncapturederror", (e) => {
  if (errors++ < 3) console.log("GPU error:", e.error.message);
});
console.log(`adapter: ${info.vendor} / ${info.architecture} / ${info.description}`);

const base = await readFile(path.join(ROOT, "shaders", "matmul.wgsl"), "utf8");
const variants = JSON.parse(await readFile(variantsFile, "utf8"));
// name -> {entry, tile: [rows, cols], vec4: bool, code}
const kernels = {
  matmul_tiled: { entry: "matmul_tiled", tile: [64, 64], code: "" },
  ...variants,
};
const S = GPUBufferUsage.STORAGE, CD = GPUBufferUsage.COPY_DST, CS = GPUBufferUsage.COPY_SRC;

for (const [name, k] of Object.entries(kernels)) {
  const module = device.createShaderModule({ code: base + "\n" + k.code });
  const messages = (await module.getCompilationInfo()).messages.filter((m) => m.type === "error");
  if (messages.length) {
    console.log(`${name}: compile error ${messages.map((m) => `${m.lineNum}: ${m.message}`).join("; ")}`);
    delete kernels[name];
    continue;
  }
  const t0 = performance.now();
  k.pipeline = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: k.entry } });
  k.compileMs = performance.now() - t0;
}

function buffer(data, usage) {
  const b = device.createBuffer({ size: Math.max(16, data.byteLength), usage: usage | CD });
  device.queue.writeBuffer(b, 0, data);
  return b;
}

function bindings(k, a, b, c, dims) {
  return device.createBindGroup({
    layout: k.pipeline.getBindGroupLayout(0),
    entries: [a, b, c, dims].map((buf, i) => ({ binding: i, resource: { buffer: buf } })),
  });
}

function encode(k, group, m, n, reps) {
  const enc = device.createCommandEncoder();
  for (let r = 0; r < reps; r++) {
    const pass = enc.beginComputePass();
    pass.setPipeline(k.pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(n / k.tile[1]), Math.ceil(m / k.tile[0]));
    pass.end();
  }
  return enc;
}

async function product(k, A, B, m, n, kk) {
  const a = buffer(A, S), b = buffer(B, S), c = device.createBuffer({ size: m * n * 4, usage: S | CS });
  const dims = buffer(new Uint32Array([m, n, kk, 0, 0, 0, 0, 0]), GPUBufferUsage.UNIFORM | CD);
  const read = device.createBuffer({ size: m * n * 4, usage: GPUBufferUsage.MAP_READ | CD });
  const enc = encode(k, bindings(k, a, b, c, dims), m, n, 1);
  enc.copyBufferToBuffer(c, 0, read, 0, m * n * 4);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(read.getMappedRange().slice(0));
  for (const x of [a, b, c, dims, read]) x.destroy();
  return out;
}

function random(count, seed) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 32 - 0.5;
  }
  return out;
}

// Correctness first: shapes that are not multiples of any tile (N and K multiples of 4).
const shapes = [[133, 68, 76], [1, 4, 4], [257, 132, 36], [64, 64, 64], [200, 260, 1028]];
for (const [name, k] of Object.entries(kernels)) {
  let worst = 0;
  for (const [m, n, kk] of shapes) {
    const A = random(m * kk, m + 7), B = random(kk * n, n + 11);
    const C = await product(k, A, B, m, n, kk);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0, mag = 0;
        for (let q = 0; q < kk; q++) { s += A[i * kk + q] * B[q * n + j]; mag += Math.abs(A[i * kk + q] * B[q * n + j]); }
        worst = Math.max(worst, Math.abs(C[i * n + j] - s) / (mag + 1e-30));
      }
    }
  }
  k.error = worst;
  console.log(`${name}: compiled in ${k.compileMs.toFixed(1)} ms; worst |error| / sum|a*b| ${worst.toExponential(2)}`
              + (worst > 1e-5 ? "  WRONG" : ""));
  if (worst > 1e-5) delete kernels[name];
}

const results = {};
for (const n of sizes) {
  const a = buffer(random(n * n, 1), S), b = buffer(random(n * n, 2), S);
  const c = device.createBuffer({ size: n * n * 4, usage: S });
  const dims = buffer(new Uint32Array([n, n, n, 0, 0, 0, 0, 0]), GPUBufferUsage.UNIFORM | CD);
  const flops = 2 * n ** 3;
  const times = {};
  const groups = {};
  for (const [name, k] of Object.entries(kernels)) {
    groups[name] = bindings(k, a, b, c, dims);
    device.queue.submit([encode(k, groups[name], n, n, 2).finish()]);
    await device.queue.onSubmittedWorkDone();
    times[name] = [];
  }
  const reps = Math.max(4, Math.min(400, Math.round(40e-3 / (flops / 15e12))));
  for (let r = 0; r < rounds; r++) {
    for (const [name, k] of Object.entries(kernels)) {
      const cmd = encode(k, groups[name], n, n, reps).finish();
      const t0 = performance.now();
      device.queue.submit([cmd]);
      await device.queue.onSubmittedWorkDone();
      times[name].push((performance.now() - t0) / reps);
    }
  }
  const row = [];
  for (const [name, list] of Object.entries(times)) {
    list.sort((x, y) => x - y);
    const ms = list[Math.floor(list.length / 2)];
    results[`${name}@${n}`] = { ms, tflops: flops / ms / 1e9, all: list };
    row.push(`${name} ${ms.toFixed(3)} ms ${(flops / ms / 1e9).toFixed(1)} TF`);
  }
  console.log(`n=${n} (${reps} per submit): ${row.join(" | ")}`);
  for (const x of [a, b, c, dims]) x.destroy();
}
const adapterInfo = { vendor: info.vendor, architecture: info.architecture, description: info.description };
console.log(JSON.stringify({ adapter: adapterInfo, sizes, rounds, results }));
device.destroy();
process.exit(0);

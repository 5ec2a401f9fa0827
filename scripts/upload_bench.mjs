// Upload methods on Dawn in Node (`node scripts/upload_bench.mjs [repeats]`, npm `webgpu`): writeBuffer
// against a staging buffer mapped at creation (new each time) or mapped again after use, and a
// plain memcpy, each from a slice of one big ArrayBuffer (as from Pyodide's heap), then
// onSubmittedWorkDone; medians in ms per size. docs/benchmarks.md, "Uploads through staging buffers
// kept mapped", has a run on an H200.
import path from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { create, globals } = await import(pathToFileURL(path.join(ROOT, "node_modules", "webgpu", "index.js")));
Object.assign(globalThis, globals);
const gpu = create([]);
const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize } });
const info = adapter.info ?? {};
console.log(JSON.stringify({ adapter: info.description ?? info.device }));
const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const heap = new ArrayBuffer(256 << 20);
new Uint8Array(heap).fill(7);
const now = () => performance.now();
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const reps = Number(process.argv[2] ?? 15);
const out = {};
for (const mb of [4, 16, 32, 64]) {
  const n = mb << 20;
  const dst = device.createBuffer({ size: n, usage: STORAGE });
  const pool = [0, 1].map(() => device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true }));
  let turn = 0;
  const methods = {
    writeBuffer: async () => { device.queue.writeBuffer(dst, 0, heap, 4096, n); },
    writeBuffer_chunks4MB: async () => { for (let o = 0; o < n; o += 4 << 20) device.queue.writeBuffer(dst, o, heap, 4096 + o, Math.min(4 << 20, n - o)); },
    fresh_mapped: async () => {
      const s = device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
      new Uint8Array(s.getMappedRange()).set(new Uint8Array(heap, 4096, n));
      s.unmap();
      const e = device.createCommandEncoder(); e.copyBufferToBuffer(s, 0, dst, 0, n); device.queue.submit([e.finish()]);
      s.destroy();
    },
    reused_mapped: async () => {
      const s = pool[turn++ & 1];
      if (s.mapState !== "mapped") await s.mapAsync(GPUMapMode.WRITE);
      new Uint8Array(s.getMappedRange()).set(new Uint8Array(heap, 4096, n));
      s.unmap();
      const e = device.createCommandEncoder(); e.copyBufferToBuffer(s, 0, dst, 0, n); device.queue.submit([e.finish()]);
      s.mapAsync(GPUMapMode.WRITE);  // (mapped again in the background for a later upload)
    },
    memcpy_only: async () => { new Uint8Array(heap, 8 << 20 > n ? 0 : 0, n).set(new Uint8Array(heap, 128 << 20, n)); },
  };
  out[mb] = {};
  for (const [name, fn] of Object.entries(methods)) {
    const host = [], total = [];
    for (let r = 0; r < reps + 3; r++) {
      const t = now();
      await fn();
      const t1 = now();
      await device.queue.onSubmittedWorkDone();
      const t2 = now();
      if (r >= 3) { host.push(t1 - t); total.push(t2 - t); }
    }
    out[mb][name] = { host: +median(host).toFixed(3), total: +median(total).toFixed(3) };
  }
  for (const b of [dst, ...pool]) b.destroy();
}
// Reads: a GPU buffer copied into a MAP_READ staging buffer used again, mapAsync, the bytes copied
// out (whole, and in four pieces each copied as it lands)
const heapU8 = new Uint8Array(heap);
const reads = {};
for (const mb of [4, 16, 32]) {
  const n = mb << 20;
  const src = device.createBuffer({ size: n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const st = device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const sts = [0, 1, 2, 3].map(() => device.createBuffer({ size: n / 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
  const r = { submit_to_mapped: [], getMappedRange: [], set: [], total: [], chunks4_total: [], done_then_map: [] };
  for (let i = 0; i < 18; i++) {
    const t0 = now();
    const e = device.createCommandEncoder(); e.copyBufferToBuffer(src, 0, st, 0, n); device.queue.submit([e.finish()]);
    await st.mapAsync(GPUMapMode.READ);
    const t1 = now();
    const range = st.getMappedRange();
    const t2 = now();
    heapU8.set(new Uint8Array(range), 4096);
    const t3 = now();
    st.unmap();
    // the same in four pieces, each mapped and copied as it lands
    const t4 = now();
    const e2 = device.createCommandEncoder();
    sts.forEach((b, k) => e2.copyBufferToBuffer(src, k * n / 4, b, 0, n / 4));
    device.queue.submit([e2.finish()]);
    await Promise.all(sts.map((b, k) => b.mapAsync(GPUMapMode.READ).then(() => { heapU8.set(new Uint8Array(b.getMappedRange()), 4096 + k * n / 4); b.unmap(); })));
    const t5 = now();
    const e3 = device.createCommandEncoder(); e3.copyBufferToBuffer(src, 0, st, 0, n); device.queue.submit([e3.finish()]);
    await device.queue.onSubmittedWorkDone();
    const t6 = now();
    await st.mapAsync(GPUMapMode.READ); st.unmap();
    const t7 = now();
    if (i >= 3) {
      r.submit_to_mapped.push(t1 - t0); r.getMappedRange.push(t2 - t1); r.set.push(t3 - t2); r.total.push(t3 - t0);
      r.chunks4_total.push(t5 - t4); r.done_then_map.push(t7 - t6);
    }
  }
  reads[mb] = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, median(v)]));
  [src, st, ...sts].forEach((b) => b.destroy());
}
out.reads = reads;
console.log(JSON.stringify(out, null, 1));
process.exit(0);

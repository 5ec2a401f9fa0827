// The benchmark's yardsticks, measured in the same page as pycore (pycore/bench/peers.py calls them):
//
//   raw JavaScript on WebGPU: what the same work costs with no Python in between. It runs pycore's
//   own WGSL (fetched from /shaders/) on pycore's own GPUDevice, with buffers and bind groups made
//   once per size, so each call is only: writeBuffer, encode, submit, mapAsync, copy out.
//   rawFloor is the least a GPU round trip can cost: an empty dispatch and a 4-byte readback.
//
//   TF.js with its WebGPU backend (npm @tensorflow/tfjs-core + @tensorflow/tfjs-backend-webgpu,
//   served by serve.py under /npm/): what a JavaScript user would pick. Each call uploads a tensor,
//   runs the op and awaits data(), the same round trip as a pycore call on NumPy input.
//
//   jax-js (npm @jax-js/jax, served by serve.py under /npm/jax-js/; scripts/dawn.mjs preloads it as
//   globalThis.jaxjs) on its WebGPU backend: the fft yardstick (jaxFft), transforms chained on
//   arrays already on its GPU device, one sync at the end.
//
// Benchmark glue only: no op logic of pycore lives here. Times are medians in milliseconds.

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const UNIFORM = GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST;
const READ = GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
const TYPES = { read: "read-only-storage", write: "storage", uniform: "uniform" };

// op -> how pycore binds and dispatches it (see pycore/calls/programs.py). rawOp returns the head of its
// result, which pycore/bench/peers.py checks against NumPy on the same inputs (randomData).
const KERNELS = {
  relu: {  // the kernel pycore generates from relu_f (its source comes from pycore: `code`): the
    // words are the count, the first index, the offset, the shape and the stride
    family: null, entry: "strided", bindings: ["read", "write", "uniform"],
    inputs: ([n]) => [n], out: ([n]) => n, words: ([n]) => [n, 0, 0, n, 1],
    groups: ([n], s) => grid(Math.ceil(n / 4 / s.WORKGROUP)), pad: 4,
  },
  softmax: {  // a workgroup per row; the kernel pycore generates (kernels/rowwise.py: `code`)
    family: null, entry: "rows_tree", bindings: ["read", "write", "uniform"],
    inputs: ([r, c]) => [r * c], out: ([r, c]) => r * c, words: softmaxWords,
    groups: ([r]) => grid(r), pad: 4,
  },
  softmax_thread: {  // pycore's choice on CPU adapters for many rows (kernels/rowwise.py: uses_tree)
    family: null, entry: "rows_thread", bindings: ["read", "write", "uniform"],
    inputs: ([r, c]) => [r * c], out: ([r, c]) => r * c, words: softmaxWords,
    groups: ([r], s) => grid(Math.ceil(r / s.THREAD_GROUP)), pad: 4,
  },
};

/** The row-wise kernel's words for (r, c) rows along the last axis, as kernels/rowwise.py lays
 *  them out: rows, columns, offset, the strides along the row, -inf's bits, then the rows' shape
 *  and strides (none for a single row). */
function softmaxWords([r, c]) {
  return r === 1 ? [r, c, 0, 1, 1, 0xff800000, 0] : [r, c, 0, 1, 1, 0xff800000, 0, r, c, c];  // (word 6: eps)
}

/** One of pycore's matmul kernels (programs.Matmul.kernel_for names it): vec4 bindings (whole
 *  16-byte words) for all but the two scalar ones. */
function matmulKernel(entry) {
  return {
    family: "matmul", entry, bindings: ["read", "read", "write", "uniform"],
    inputs: ([n]) => [n * n, n * n], out: ([n]) => n * n,
    words: ([n]) => [n, n, n], groups: ([n], s, tile) => [Math.ceil(n / tile[1]), Math.ceil(n / tile[0]), 1],
    pad: entry === "matmul" || entry === "matmul_tiled" ? 4 : 16,
  };
}

function grid(groups) {
  if (groups <= 65535) return [Math.max(groups, 1), 1, 1];
  const y = Math.ceil(groups / 65535);
  return [Math.ceil(groups / y), y, 1];
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function timeRuns(run, repeats) {
  await run(); // warm: pipelines compiled, first-use costs paid
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    await run();
    runs.push(performance.now() - t);
  }
  return { ms: median(runs), runs };
}

function randomData(n) {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.sin(i * 12.9898) * 2;
  return a;
}

const sources = new Map();
async function wgsl(family) {
  if (!sources.has(family)) {
    const [common, own] = await Promise.all(
      ["common", family].map((f) => fetch(`/shaders/${f}.wgsl`).then((r) => r.text())));
    sources.set(family, common + "\n" + own);
  }
  return sources.get(family);
}

// The workgroup sizes, read from shaders/common.wgsl, which owns them (as pycore/kernels/wgsl.py does).
let workgroupSizes = null;
async function sizes() {
  if (!workgroupSizes) {
    const common = await fetch("/shaders/common.wgsl").then((r) => r.text());
    const read = (name) => Number(common.match(new RegExp(`^const ${name}: u32 = (\\d+)u;`, "m"))[1]);
    workgroupSizes = { WORKGROUP: read("WORKGROUP"), THREAD_GROUP: read("THREAD_GROUP") };
  }
  return workgroupSizes;
}

const pipelines = new WeakMap(); // device -> Map(key -> pipeline)
// `code`: a kernel pycore generates (its element-wise ops), given whole; else shaders/<family>.wgsl.
async function pipeline(device, family, entry, bindings, code = null) {
  if (!pipelines.has(device)) pipelines.set(device, new Map());
  const cache = pipelines.get(device);
  const key = code ?? `${family}.${entry}`;
  if (!cache.has(key)) {
    const layout = device.createBindGroupLayout({
      entries: bindings.map((kind, i) => ({ binding: i, visibility: GPUShaderStage.COMPUTE,
                                            buffer: { type: TYPES[kind] } })),
    });
    const module = device.createShaderModule({ code: code ?? await wgsl(family) });
    cache.set(key, await device.createComputePipelineAsync({
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: entry },
    }));
  }
  return cache.get(key);
}

const roundUp = (n, m) => Math.ceil(n / m) * m;

/** One dispatch, then `result.length` floats of `dst` read back through `staging`, in one submit. */
async function dispatchAndRead(device, pipe, bind, groups, dst, staging, result) {
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipe);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(...groups);
  pass.end();
  enc.copyBufferToBuffer(dst, 0, staging, 0, result.byteLength);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  result.set(new Float32Array(staging.getMappedRange()));
  staging.unmap();
}

/** An empty dispatch and a 4-byte readback: the floor of any GPU round trip in this page. */
export async function rawFloor(device, repeats) {
  const code = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n" +
               "@compute @workgroup_size(1) fn main() { }";
  const module = device.createShaderModule({ code });
  const pipe = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "main" } });
  const buf = device.createBuffer({ size: 4, usage: STORAGE });
  const staging = device.createBuffer({ size: 4, usage: READ });
  const out = new Uint32Array(1);
  try {
    return await timeRuns(async () => {
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipe);
      pass.dispatchWorkgroups(1);
      pass.end();
      enc.copyBufferToBuffer(buf, 0, staging, 0, 4);
      device.queue.submit([enc.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      out.set(new Uint32Array(staging.getMappedRange()));
      staging.unmap();
    }, repeats);
  } finally {
    buf.destroy();
    staging.destroy();
  }
}

/** `op` (relu | softmax | softmax_thread | a matmul kernel's entry) on `shape` written directly
 * against WebGPU, pycore's WGSL. */
export async function rawOp(device, op, shape, repeats, tile = null, code = null) {
  const k = KERNELS[op] ?? matmulKernel(op);
  const pipe = await pipeline(device, k.family, k.entry, k.bindings, code);
  const inputs = k.inputs(shape).map(randomData);
  const outBytes = k.out(shape) * 4;
  const ins = inputs.map((a) => device.createBuffer({ size: roundUp(a.byteLength, 16), usage: STORAGE }));
  const dst = device.createBuffer({ size: roundUp(outBytes, 16), usage: STORAGE });
  const params = device.createBuffer({ size: 64, usage: UNIFORM });
  const staging = device.createBuffer({ size: outBytes, usage: READ });
  const bind = device.createBindGroup({
    layout: pipe.getBindGroupLayout(0),
    entries: [...ins, dst, params].map((buffer, i) => ({
      binding: i,
      resource: { buffer, size: buffer === params ? 64 : roundUp(buffer.size, k.pad) } })),
  });
  const result = new Float32Array(outBytes / 4);
  const groups = k.groups(shape, await sizes(), tile);  // tile: [rows, columns] of C a matmul group computes
  try {
    const timed = await timeRuns(async () => {
      inputs.forEach((a, i) => device.queue.writeBuffer(ins[i], 0, a));
      device.queue.writeBuffer(params, 0, new Uint32Array([...k.words(shape), ...Array(16).fill(0)].slice(0, 16)));
      await dispatchAndRead(device, pipe, bind, groups, dst, staging, result);
    }, repeats);
    return { ...timed, head: Array.from(result.subarray(0, 8)) };
  } finally {
    [...ins, dst, params, staging].forEach((b) => b.destroy());
  }
}

// A classic (UMD) script: a <script> in a page; in a worker (no DOM; a module worker has no
// importScripts either) its text, evaluated in the global scope.
async function loadScript(src) {
  if (typeof document === "undefined") {
    const res = await fetch(src);
    if (!res.ok) throw new Error(`could not load ${src}: HTTP ${res.status}`);
    (0, eval)(`${await res.text()}\n//# sourceURL=${src}`);
    return;
  }
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(s);
  });
}

let tfReady = null;
/** TF.js on its WebGPU backend (loaded on first use); its version and adapter. */
export function tfjs() {
  tfReady ??= (async () => {
    if (!globalThis.tf) await loadScript("/npm/tfjs-core/tf-core.min.js");
    if (!globalThis.tf.findBackendFactory("webgpu")) await loadScript("/npm/tfjs-backend-webgpu/tf-backend-webgpu.min.js");
    if (!(await globalThis.tf.setBackend("webgpu"))) throw new Error("TF.js could not start its WebGPU backend");
    await globalThis.tf.ready();
    return { version: globalThis.tf.version_core, backend: globalThis.tf.getBackend() };
  })();
  return tfReady;
}

/** `op` (relu | softmax | matmul) on `shape` through TF.js: upload, run, await data(). */
export async function tfjsOp(op, shape, repeats) {
  await tfjs();
  const tf = globalThis.tf;
  const n = op === "matmul" ? shape[0] : 0;
  const data = randomData(op === "matmul" ? n * n : shape.reduce((a, b) => a * b, 1));
  const run = {
    relu: () => tf.relu(tf.tensor1d(data)),
    softmax: () => tf.softmax(tf.tensor2d(data, shape)),
    // two tensors, as pycore's matmul(a, b) uploads two arrays (a @ a would upload one)
    matmul: () => tf.matMul(tf.tensor2d(data, [n, n]), tf.tensor2d(data, [n, n])),
  }[op];
  return await timeRuns(async () => {
    const out = tf.tidy(run);
    await out.data();
    out.dispose();
  }, repeats);
}

/** `count` chained n x n matmuls through TF.js on tensors already on the GPU (x = x @ b, b scaled by
 *  1/sqrt(n) so values stay finite), one data() at the end: milliseconds per matmul. */
export async function tfjsMatmulChain(n, count, repeats) {
  await tfjs();
  const tf = globalThis.tf;
  const a = tf.tensor2d(randomData(n * n), [n, n]);
  const b = tf.tidy(() => tf.mul(tf.tensor2d(randomData(n * n), [n, n]), 1 / Math.sqrt(n)));
  try {
    const timed = await timeRuns(async () => {
      const out = tf.tidy(() => {
        let x = a;
        for (let i = 0; i < count; i++) x = tf.matMul(x, b);
        return x;
      });
      await out.data();
      out.dispose();
    }, repeats);
    return { ...timed, ms: timed.ms / count };
  } finally {
    a.dispose();
    b.dispose();
  }
}

/** relu -> scale(s) -> add on n floats written directly against WebGPU: upload x and y, one
 *  dispatch of `code` (pycore's fused kernel for the chain, entry "fused": in0, in1, out, params),
 *  one readback. What a CommandBatch does, without Python. x = y = randomData(n). */
export async function rawChain(device, code, n, s, repeats) {
  const module = device.createShaderModule({ code });
  const pipe = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "fused" } });
  const data = randomData(n);
  const bytes = roundUp(n * 4, 16);
  const [x, y, dst] = [0, 1, 2].map(() => device.createBuffer({ size: bytes, usage: STORAGE }));
  const params = device.createBuffer({ size: 16, usage: UNIFORM });
  device.queue.writeBuffer(params, 0, new Float32Array([s, 0, 0, 0]));
  const staging = device.createBuffer({ size: n * 4, usage: READ });
  const bind = device.createBindGroup({ layout: pipe.getBindGroupLayout(0),
    entries: [x, y, dst, params].map((buffer, i) => ({ binding: i, resource: { buffer } })) });
  const result = new Float32Array(n);
  const groups = grid(Math.ceil(n / 4 / (await sizes()).WORKGROUP));
  try {
    const timed = await timeRuns(async () => {
      device.queue.writeBuffer(x, 0, data);
      device.queue.writeBuffer(y, 0, data);
      await dispatchAndRead(device, pipe, bind, groups, dst, staging, result);
    }, repeats);
    return { ...timed, head: Array.from(result.subarray(0, 8)) };
  } finally {
    [x, y, dst, params, staging].forEach((b) => b.destroy());
  }
}

let jaxReady = null;
let jaxModule = null;
/** jax-js on its WebGPU backend (loaded and started on first use; its own GPUDevice, on the adapter
 *  navigator.gpu gives for "high-performance"): its version, backend and adapter. Throws where it
 *  has no WebGPU backend rather than timing its CPU (wasm) one. */
export function jaxjs() {
  jaxReady ??= (async () => {
    const jax = globalThis.jaxjs ?? (await import("/npm/jax-js/dist/index.js"));
    if (!(await jax.init("webgpu")).includes("webgpu")) throw new Error("jax-js could not start its WebGPU backend");
    jax.defaultDevice("webgpu");
    jaxModule = jax;
    const info = jax.getWebGPUDevice().adapterInfo ?? {};
    const adapter = [info.vendor, info.architecture, info.description].filter(Boolean).join(" / ");
    const version = globalThis.jaxjsVersion ?? (await fetch("/npm/jax-js/package.json")
      .then((res) => res.json()).then((pkg) => pkg.version, () => null));
    return { version, backend: jax.defaultDevice(), adapter };
  })();
  return jaxReady;
}

/** The complex input of jaxFft over `size` elements: real parts randomData(2 size)[:size], imaginary
 *  parts randomData(2 size)[size:] (pycore/bench/peers.py's jax_fft_input makes the same in NumPy). */
function complexData(size) {
  const data = randomData(2 * size);
  return [data.subarray(0, size), data.subarray(size)];
}

/** jax-js's n-d fft (numpy.fft.fftn over `axes`) of a complex64 array of `shape` made on its WebGPU
 *  device (real and imaginary float32 arrays, its ComplexPair): after a warm-up chain (its kernels
 *  compiled), `repeats` chains of `count` transforms (fft and ifft in turn, so values stay finite;
 *  each reads the one before's result) with one sync (blockUntilReady) at the end. With `jitted`,
 *  the transforms are jax.jit functions. Returns ms per transform (the median chain / count), the
 *  backend the arrays lived on, and `sample`: one fft's values at up to 64 flat indices spread over
 *  the array ([index, real, imag] each), for the caller to check against NumPy. */
export async function jaxFft(shape, axes, count, repeats, jitted = false) {
  const info = await jaxjs();
  const jax = jaxModule;
  const np = jax.numpy;
  const size = shape.reduce((a, b) => a * b, 1);
  const [reData, imData] = complexData(size);
  const re = np.array(reData, { device: "webgpu" }).reshape(shape);
  const im = np.array(imData, { device: "webgpu" }).reshape(shape);
  await jax.blockUntilReady([re, im]);  // (the upload done; not consumed)
  const transform = (fn) => (a, b) => {
    const out = fn({ real: a, imag: b }, axes);
    return [out.real, out.imag];
  };
  let fwd = transform(np.fft.fftn);
  let inv = transform(np.fft.ifftn);
  if (jitted) [fwd, inv] = [jax.jit(fwd), jax.jit(inv)];
  const chain = async (k) => {
    let pair = [re.ref, im.ref];
    for (let i = 0; i < k; i++) pair = (i % 2 ? inv : fwd)(...pair);
    await jax.blockUntilReady(pair);
    return pair;
  };
  try {
    const devices = [re.device, im.device];
    const timed = await timeRuns(async () => (await chain(count)).forEach((a) => a.dispose()), repeats);
    const [outRe, outIm] = await chain(1);
    devices.push(outRe.device, outIm.device);
    const [real, imag] = [await outRe.data(), await outIm.data()];
    const step = Math.max(1, Math.floor(size / 64));
    const sample = [];
    for (let i = 0; i < size && sample.length < 64; i += step) sample.push([i, real[i], imag[i]]);
    return { ...timed, ms: timed.ms / count, runs: timed.runs.map((t) => t / count), count, jitted,
             devices: [...new Set(devices)], sample, ...info };
  } finally {
    re.dispose();
    im.dispose();
    if (jitted) [fwd, inv].forEach((f) => f.dispose?.());
  }
}

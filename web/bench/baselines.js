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
//   The pipelines (pycore/bench/pipelines.py): the same computations in TF.js and jax-js (PIPELINES;
//   tfPipeline, jaxPipeline), resident and round trip, beside a raw-JS transfer floor (transferFloor)
//   and a copy kernel's bandwidth on pycore's device (copyBandwidth).
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

// The pipelines' timings start with WARM_MS of the same work: the GPU clocked up (one idle for a few
// hundred ms clocks down, and takes about 250 ms of load to clock up again; pycore/bench/pipelines.py's
// WARM_S, the same for pycore).
const WARM_MS = 300;

/** Median ms of `repeats` runs after a warm-up: one run (pipelines compiled, first-use costs paid),
 *  and more until `warmMs` have passed. */
async function timeRuns(run, repeats, warmMs = 0) {
  const start = performance.now();
  do await run(); while (performance.now() - start < warmMs);
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
 *  dispatch of `code` (pycore's fused kernel for the chain, entry "strided": in0, in1, out, and its
 *  uniform `words`), one readback. What a CommandBatch does, without Python. x = y = randomData(n). */
export async function rawChain(device, code, n, words, repeats) {
  const module = device.createShaderModule({ code });
  const pipe = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "strided" } });
  const data = randomData(n);
  const bytes = roundUp(n * 4, 16);
  const [x, y, dst] = [0, 1, 2].map(() => device.createBuffer({ size: bytes, usage: STORAGE }));
  const block = new Uint32Array(words);
  const params = device.createBuffer({ size: block.byteLength, usage: UNIFORM });
  device.queue.writeBuffer(params, 0, block);
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

// ---------------------------------------------------------------- the pipelines

// Attention over heads (pycore/bench/pipelines.py's attention and attention_long: the same work)
const ATTENTION = {
  tf: (tf, [q, k, v]) => {
    const scores = tf.div(tf.matMul(q, k, false, true), Math.sqrt(q.shape[3]));
    return tf.matMul(tf.softmax(scores), v);
  },
  jax: (jax, q, k, v) => {
    const np = jax.numpy;
    const scale = 1 / Math.sqrt(q.shape[3]);
    return np.matmul(jax.nn.softmax(np.matmul(q, np.swapaxes(k, -1, -2)).mul(scale), -1), v);
  },
};

// pycore/bench/pipelines.py's pipelines, written as a user of each library would write them. tf: TF.js
// ops on tensors (tf.tidy disposes the intermediates). jax: jax-js functions that take ownership of
// their arguments (`.ref` where an array is used again), eager or under jax.jit.
const PIPELINES = {
  dense: {
    tf: (tf, [x, w, b]) => tf.relu(tf.add(tf.matMul(x, w), b)),
    jax: (jax, x, w, b) => jax.nn.relu(jax.numpy.matmul(x, w).add(b)),
  },
  standardize: {
    tf: (tf, [x]) => {
      const { mean, variance } = tf.moments(x, 0);
      return tf.div(tf.sub(x, mean), tf.sqrt(variance));
    },
    jax: (jax, x) => {
      const np = jax.numpy;
      const mean = np.mean(x.ref, 0);
      return x.ref.sub(mean).div(np.std(x, 0));
    },
  },
  kmeans: {
    tf: (tf, [x, c]) => {
      const k = c.shape[0];
      const dist = tf.sub(tf.sum(tf.square(c), 1), tf.mul(tf.matMul(x, c, false, true), 2));
      const onehot = tf.oneHot(tf.argMin(dist, 1), k, 1, 0, "float32");
      const counts = tf.maximum(tf.sum(onehot, 0), 1);
      return tf.div(tf.matMul(onehot, x, true, false), tf.expandDims(counts, 1));
    },
    jax: (jax, x, c) => {
      const np = jax.numpy;
      const k = c.shape[0];
      const c2 = np.sum(np.square(c.ref), 1);
      const dist = c2.sub(np.matmul(x.ref, np.swapaxes(c, 0, 1)).mul(2));
      const onehot = jax.nn.oneHot(np.argmin(dist, 1), k).astype(np.float32);
      const counts = np.maximum(np.sum(onehot.ref, 0), 1).reshape([k, 1]);
      return np.matmul(np.swapaxes(onehot, 0, 1), x).div(counts);
    },
  },
  blur_clip: {
    // (N, 1, H, W) images are (N, H, W, 1) in TF.js's NHWC; the (1, 1, 3, 3) filter is its (3, 3, 1, 1)
    tf: (tf, [x, w]) => {
      const [n, , h, wd] = x.shape;
      const y = tf.conv2d(tf.reshape(x, [n, h, wd, 1]), tf.reshape(w, [3, 3, 1, 1]), 1, "same");
      return tf.reshape(tf.clipByValue(tf.add(tf.mul(tf.sub(y, 0.5), 4), 0.5), 0, 1), x.shape);
    },
    jax: (jax, x, w) => jax.numpy.clip(jax.lax.conv(x, w, [1, 1], "SAME").sub(0.5).mul(4).add(0.5), 0, 1),
  },
  attention: ATTENTION,
  attention_long: ATTENTION,
  mlp_block: {
    tf: (tf, [x, g, b, w1, b1, w2, b2]) => {
      const { mean, variance } = tf.moments(x, -1, true);
      const n = tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
      const h = tf.add(tf.matMul(n, w1), b1);
      const inner = tf.mul(tf.add(h, tf.mul(tf.mul(tf.mul(h, h), h), 0.044715)), Math.sqrt(2 / Math.PI));
      const gelu = tf.mul(tf.mul(h, 0.5), tf.add(tf.tanh(inner), 1));
      return tf.add(tf.matMul(gelu, w2), b2);
    },
    jax: (jax, x, g, b, w1, b1, w2, b2) => {
      const np = jax.numpy;
      const centred = x.ref.sub(np.mean(x, -1, { keepdims: true }));
      const variance = np.mean(np.square(centred.ref), -1, { keepdims: true });
      const n = centred.div(np.sqrt(variance.add(1e-5))).mul(g).add(b);
      const h = jax.nn.gelu(np.matmul(n, w1).add(b1), { approximate: true });
      return np.matmul(h, w2).add(b2);
    },
  },
  cross_entropy: {
    tf: (tf, [logits, t]) => tf.losses.softmaxCrossEntropy(tf.oneHot(t, logits.shape[1]), logits),
    jax: (jax, logits, t) => {
      const np = jax.numpy;
      const logp = jax.nn.logSoftmax(logits, -1);
      return np.mean(np.takeAlongAxis(logp, t.reshape([-1, 1]), 1)).mul(-1);
    },
  },
};

/** Python's [shape, typed array, dtype] inputs. */
const unpack = (inputs) => Array.from(inputs, ([shape, data, dtype]) => [Array.from(shape), data, String(dtype)]);

/** Median ms per run of `repeats` chains of `count` runs after a warm-up chain (runChain(k)
 *  resolves once the k-th run's result is read back), and the median ms of `repeats` round trips
 *  (roundTrip() resolves to the result as a Float32Array) after a warm-up one; the round trip's result. */
async function timeModes(runChain, roundTrip, count, repeats) {
  const resident = await timeRuns(() => runChain(count), repeats, WARM_MS);
  let out = null;
  const trip = await timeRuns(async () => { out = await roundTrip(); }, repeats, WARM_MS);
  return { resident_ms: resident.ms / count, resident_runs: resident.runs.map((t) => t / count),
           round_trip_ms: trip.ms, round_trip_runs: trip.runs, out: Float32Array.from(out) };
}

/** Pipeline `name` in TF.js on its WebGPU backend. Resident: tensors made once from the inputs (and
 *  used once before timing, so they are on the GPU); each chain runs the pipeline `count` times and
 *  awaits the last result's data(). Round trip: tensors from the host arrays, the pipeline, data(). */
export async function tfPipeline(name, inputs, count, repeats) {
  const info = await tfjs();
  const tf = globalThis.tf;
  const fn = PIPELINES[name].tf;
  const arrays = unpack(inputs);
  const make = () => arrays.map(([shape, data, dtype]) => tf.tensor(data, shape, dtype === "int32" ? "int32" : "float32"));
  const kept = make();
  try {
    const runChain = async (k) => {
      const outs = [];
      for (let i = 0; i < k; i++) outs.push(tf.tidy(() => fn(tf, kept)));
      await outs[k - 1].data();
      outs.forEach((t) => t.dispose());
    };
    const roundTrip = async () => {
      const ins = make();
      const out = tf.tidy(() => fn(tf, ins));
      const data = await out.data();
      [...ins, out].forEach((t) => t.dispose());
      return data;
    };
    return { ...(await timeModes(runChain, roundTrip, count, repeats)), backend: info.backend, version: info.version };
  } finally {
    kept.forEach((t) => t.dispose());
  }
}

/** Pipeline `name` in jax-js on its WebGPU backend, eager or (`jitted`) as one jax.jit function.
 *  Resident: arrays made once on its WebGPU device; each chain runs the pipeline `count` times, waits
 *  for every result (blockUntilReady: jax-js computes only what is realized) and reads the last
 *  (data()). Round trip: arrays from the host arrays, the pipeline, data(). */
export async function jaxPipeline(name, inputs, count, repeats, jitted = false) {
  const info = await jaxjs();
  const jax = jaxModule;
  const np = jax.numpy;
  const body = PIPELINES[name].jax;
  const plain = (...xs) => body(jax, ...xs);
  const fn = jitted ? jax.jit(plain) : plain;
  const arrays = unpack(inputs);
  const make = () => arrays.map(([shape, data, dtype]) =>
    np.array(data, { shape, dtype: dtype === "int32" ? np.int32 : np.float32, device: "webgpu" }));
  const kept = make();
  await jax.blockUntilReady(kept);
  const devices = new Set(kept.map((a) => a.device));
  try {
    const runChain = async (k) => {
      const outs = [];
      for (let i = 0; i < k; i++) outs.push(fn(...kept.map((a) => a.ref)));
      devices.add(outs[k - 1].device);
      // jax-js is lazy: a result never realized is never computed, so every run's result is waited
      // for (blockUntilReady dispatches them all), then the last one read
      await jax.blockUntilReady(outs);
      await outs[k - 1].data();
      outs.slice(0, -1).forEach((a) => a.dispose());
    };
    const roundTrip = async () => await fn(...make()).data();
    const timed = await timeModes(runChain, roundTrip, count, repeats);
    return { ...timed, jitted, devices: [...devices], ...info };
  } finally {
    kept.forEach((a) => a.dispose());
    if (jitted) fn.dispose?.();
  }
}

/** The transfer floor of a pipeline on `device` (pycore's): every input uploaded into GPU buffers
 *  made once, one copy of `outBytes` to a staging buffer, mapAsync and the bytes copied out; no
 *  kernel. Uploads through writeBuffer, or (`staged`) those of STAGED_MIN bytes or more through
 *  staging buffers kept mapped between runs (copied into, unmapped, copied from on the GPU, mapped
 *  again), as pycore uploads them. Median ms of `repeats` after a warm-up. */
const STAGED_MIN = 1 << 20;
export async function transferFloor(device, inputs, outBytes, repeats, staged = false) {
  const arrays = unpack(inputs);
  const bufs = arrays.map(([, data]) => device.createBuffer({ size: roundUp(data.byteLength, 16), usage: STORAGE }));
  const ups = arrays.map(([, data]) => (staged && data.byteLength >= STAGED_MIN && data.byteLength % 4 === 0
    ? device.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
                            mappedAtCreation: true })
    : null));
  const out = device.createBuffer({ size: roundUp(outBytes, 16), usage: STORAGE });
  const staging = device.createBuffer({ size: roundUp(outBytes, 16), usage: READ });
  const host = new Uint8Array(roundUp(outBytes, 16));
  const mapped = ups.map(() => null);  // (each staging buffer's mapping in flight, from the last run)
  try {
    return await timeRuns(async () => {
      const enc = device.createCommandEncoder();
      for (const [i, [, data]] of arrays.entries()) {
        const up = ups[i];
        if (!up) {
          device.queue.writeBuffer(bufs[i], 0, data);
          continue;
        }
        if (mapped[i]) await mapped[i];
        new Uint8Array(up.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        up.unmap();
        enc.copyBufferToBuffer(up, 0, bufs[i], 0, data.byteLength);
      }
      enc.copyBufferToBuffer(out, 0, staging, 0, staging.size);
      device.queue.submit([enc.finish()]);
      ups.forEach((up, i) => { if (up) mapped[i] = up.mapAsync(GPUMapMode.WRITE); });
      await staging.mapAsync(GPUMapMode.READ);
      host.set(new Uint8Array(staging.getMappedRange()));
      staging.unmap();
    }, repeats, WARM_MS);
  } finally {
    await Promise.all(mapped.filter((m) => m).map((m) => m.catch(() => null)));
    [...bufs, ...ups.filter((u) => u), out, staging].forEach((b) => b.destroy());
  }
}

/** A copy kernel's bandwidth on `device`: dst[i] = src[i] over `bytes` (vec4 words), `count`
 *  dispatches in one submit, then onSubmittedWorkDone; median of `repeats` after a warm-up. GB/s
 *  counts the bytes read and written (2 x bytes per copy). */
export async function copyBandwidth(device, bytes, count, repeats) {
  const { WORKGROUP } = await sizes();
  bytes = roundUp(bytes, 16);
  const words = bytes / 16;
  const code = `@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(${WORKGROUP}) fn main(@builtin(global_invocation_id) id: vec3<u32>,
                                            @builtin(num_workgroups) groups: vec3<u32>) {
  let i = id.x + id.y * groups.x * ${WORKGROUP}u;
  if (i < ${words}u) { dst[i] = src[i]; }
}`;
  const pipe = await device.createComputePipelineAsync({
    layout: "auto", compute: { module: device.createShaderModule({ code }), entryPoint: "main" } });
  const src = device.createBuffer({ size: bytes, usage: STORAGE });
  const dst = device.createBuffer({ size: bytes, usage: STORAGE });
  device.queue.writeBuffer(src, 0, randomData(Math.min(bytes / 4, 1 << 20)));
  const bind = device.createBindGroup({ layout: pipe.getBindGroupLayout(0),
    entries: [src, dst].map((buffer, i) => ({ binding: i, resource: { buffer } })) });
  const groups = grid(Math.ceil(words / WORKGROUP));
  device.pushErrorScope("validation");
  try {
    const timed = await timeRuns(async () => {
      const enc = device.createCommandEncoder();
      for (let i = 0; i < count; i++) {
        const pass = enc.beginComputePass();
        pass.setPipeline(pipe);
        pass.setBindGroup(0, bind);
        pass.dispatchWorkgroups(...groups);
        pass.end();
      }
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();
    }, repeats);
    const error = await device.popErrorScope();
    if (error) throw new Error(`copyBandwidth of ${bytes} bytes: ${error.message}`);
    const ms = timed.ms / count;
    return { ms, bytes, count, gbps: (2 * bytes) / ms / 1e6 };
  } finally {
    src.destroy();
    dst.destroy();
  }
}

// The JavaScript half of pycore's browser transport, read once by pycore/engine/bridge.py and evaluated
// with Pyodide's run_js: a few functions that do in one FFI call what would otherwise take dozens
// (encoding a command buffer, copying between the WebAssembly heap and GPU buffers), and the
// IndexedDB settings store (pycore/engine/settings.py). `m` is Pyodide's Emscripten module, whose HEAPU8
// is the heap (looked up on each use: it is replaced when the heap grows). No op logic lives here.
(m) => {
  const heap = () => m.HEAPU8;
  function scoped(device) {
    device.pushErrorScope("out-of-memory");
    device.pushErrorScope("validation");
  }
  function scopeErrors(device) {  // after scoped(): a promise of the errors' text, or null
    return Promise.all([device.popErrorScope(), device.popErrorScope()]).then(([validation, oom]) => {
      const found = [];
      if (validation) found.push("validation error: " + validation.message);
      if (oom) found.push("out-of-memory error: " + oom.message);
      return found.length ? found.join("; ") : null;
    }, (e) => "device error: " + (e?.message ?? e));
  }
  // Bind groups, made once per (pipeline, bound ranges) and reused: most calls bind buffers the
  // pool handed out before. Up to GROUPS per device, the oldest dropped first; a destroyed
  // buffer's groups are dropped with it (see destroy).
  const GROUPS = 2048;
  const ids = new WeakMap();  // GPU object -> number, for the groups' keys
  let nextId = 1;
  const idOf = (o) => {
    let id = ids.get(o);
    if (id === undefined) ids.set(o, (id = nextId++));
    return id;
  };
  const cache = new WeakMap();  // device -> {groups: key -> [group, buffer ids], keys: buffer id -> Set}
  function cacheOf(device) {
    let c = cache.get(device);
    if (!c) cache.set(device, (c = { groups: new Map(), keys: new Map() }));
    return c;
  }
  function bindGroup(device, pipeline, flat, at, n) {
    const c = cacheOf(device);
    let key = "" + idOf(pipeline);
    const bufs = [];
    for (let j = at; j < at + 3 * n; j += 3) {
      const id = idOf(flat[j]);
      bufs.push(id);
      key += "," + id + ":" + flat[j + 1] + ":" + flat[j + 2];
    }
    const known = c.groups.get(key);
    if (known) return known[0];
    const entries = [];
    for (let j = 0; j < n; j++) {
      const k = at + 3 * j;
      entries.push({ binding: j, resource: { buffer: flat[k], size: flat[k + 1], offset: flat[k + 2] } });
    }
    const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    c.groups.set(key, [group, bufs]);
    for (const id of bufs) {
      let keys = c.keys.get(id);
      if (!keys) c.keys.set(id, (keys = new Set()));
      keys.add(key);
    }
    if (c.groups.size > GROUPS) forget(c, c.groups.keys().next().value);
    return group;
  }
  function forget(c, key) {
    const known = c.groups.get(key);
    if (!known) return;
    c.groups.delete(key);
    for (const id of known[1]) {
      const keys = c.keys.get(id);
      if (keys) { keys.delete(key); if (!keys.size) c.keys.delete(id); }
    }
  }
  // Uploads of STAGED_MIN bytes or more go through staging buffers (MAP_WRITE | COPY_SRC) that stay
  // mapped between uploads: the bytes are copied into one, it is unmapped, a copy to the destination
  // is submitted, and it is mapped again in the background for a later upload of its size class.
  // On an H200's host through Dawn, 32 MB took 2.3 ms that way and 12.8 ms through writeBuffer
  // (whose staging memory is new at each call, as a staging buffer's is at its first use). Without a
  // mapped one at hand (all in flight, or past STAGED_BYTES per device) an upload takes writeBuffer.
  // In the queue's order either way: the copy is submitted at the call, as writeBuffer writes.
  const STAGED_MIN = 1 << 20;
  const STAGED_MAX = 128 << 20;  // (one upload's staging at most)
  const STAGED_BYTES = 256 << 20;  // (a device's staging buffers at most, mapped or in flight)
  const staging = new WeakMap();  // device -> {bytes, classes: size -> [buffer], ready: Set of mapped ones}
  function stagedClass(n) {  // n rounded up to a quarter step between powers of two (at most 25% over)
    const top = 2 ** Math.ceil(Math.log2(n));
    const step = Math.max(top / 8, 4);
    return Math.ceil(n / step) * step;
  }
  function stagingOf(device) {
    let st = staging.get(device);
    if (!st) staging.set(device, (st = { bytes: 0, classes: new Map(), ready: new Set() }));
    return st;
  }
  function stagedBuffer(device, n) {  // a mapped staging buffer of n's class, or null
    const st = stagingOf(device), size = stagedClass(n);
    const list = st.classes.get(size) ?? [];
    for (const b of list) if (st.ready.has(b)) { st.ready.delete(b); return b; }
    if (st.bytes + size > STAGED_BYTES) {  // room made from mapped buffers of other sizes, the first-made sizes first
      for (const [other, bufs] of st.classes) {
        for (const b of [...bufs]) {
          if (st.bytes + size <= STAGED_BYTES) break;
          if (other === size || !st.ready.has(b)) continue;
          st.ready.delete(b);
          bufs.splice(bufs.indexOf(b), 1);
          st.bytes -= other;
          b.destroy();
        }
      }
      if (st.bytes + size > STAGED_BYTES) return null;
    }
    const b = device.createBuffer({ size, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
                                    mappedAtCreation: true, label: "upload staging" });
    list.push(b);
    st.classes.set(size, list);
    st.bytes += size;
    return b;
  }
  function upload(device, buffer, ptr, nbytes) {
    const s = nbytes >= STAGED_MIN && nbytes <= STAGED_MAX && nbytes % 4 === 0 ? stagedBuffer(device, nbytes) : null;
    if (!s) {
      device.queue.writeBuffer(buffer, 0, heap(), ptr, nbytes);
      return;
    }
    new Uint8Array(s.getMappedRange(0, nbytes)).set(heap().subarray(ptr, ptr + nbytes));
    s.unmap();
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(s, 0, buffer, 0, nbytes);
    device.queue.submit([encoder.finish()]);
    const st = stagingOf(device);
    s.mapAsync(GPUMapMode.WRITE).then(() => st.ready.add(s), () => {  // (a lost device: dropped)
      const list = st.classes.get(s.size);
      if (list && list.includes(s)) { list.splice(list.indexOf(s), 1); st.bytes -= s.size; }
    });
  }
  // `flat`: the commands one after another, as browser.py's _flat lays them out:
  //   0, pipeline, x, y, z, n, then n times (buffer, size, offset)   a dispatch
  //   1, src, dst, nbytes, src offset, dst offset                     a copy
  function encode(device, flat) {
    scoped(device);
    const encoder = device.createCommandEncoder();
    let pass = null;
    for (let i = 0; i < flat.length;) {
      if (flat[i] === 0) {
        const pipeline = flat[i + 1], n = flat[i + 5];
        const group = bindGroup(device, pipeline, flat, i + 6, n);
        pass ??= encoder.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(flat[i + 2], flat[i + 3], flat[i + 4]);
        i += 6 + 3 * n;
      } else {
        if (pass) { pass.end(); pass = null; }
        encoder.copyBufferToBuffer(flat[i + 1], flat[i + 4], flat[i + 2], flat[i + 5], flat[i + 3]);
        i += 6;
      }
    }
    if (pass) pass.end();
    device.queue.submit([encoder.finish()]);
    return scopeErrors(device);
  }
  return {
    // GPU time of `reps` dispatches of one pipeline in one compute pass, from the pass's timestamps
    // (the device must have "timestamp-query"): nanoseconds per dispatch. `bindings`: [buffer, size,
    // offset] each, in binding order.
    async timeDispatch(device, pipeline, bindings, x, y, z, reps) {
      const querySet = device.createQuerySet({ type: "timestamp", count: 2 });
      const resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      const entries = bindings.map(([buffer, size, offset], binding) => ({ binding, resource: { buffer, size, offset } }));
      const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass({
        timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      for (let i = 0; i < reps; i++) pass.dispatchWorkgroups(x, y, z);
      pass.end();
      encoder.resolveQuerySet(querySet, 0, 2, resolved, 0);
      encoder.copyBufferToBuffer(resolved, 0, read, 0, 16);
      device.queue.submit([encoder.finish()]);
      await read.mapAsync(GPUMapMode.READ);
      const stamps = new BigInt64Array(read.getMappedRange());
      const ns = Number(stamps[1] - stamps[0]) / reps;
      read.unmap();
      for (const b of [resolved, read]) b.destroy();
      querySet.destroy();
      return ns;
    },
    lostWithin(device, ms) {
      return Promise.race([device.lost.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);
    },
    create(device, size, usage, label) { return device.createBuffer({ size, usage, label }); },
    createChecked(device, size, usage, label) {
      scoped(device);
      const buffer = device.createBuffer({ size, usage, label });
      return [buffer, scopeErrors(device)];
    },
    write(device, buffer, ptr, nbytes) { upload(device, buffer, ptr, nbytes); },
    // bytes of the upload staging buffers `device` keeps (mapped, or in flight)
    stagedBytes(device) { return staging.get(device)?.bytes ?? 0; },
    destroy(device, buffer) {
      const c = cache.get(device), id = ids.get(buffer);
      if (c && id !== undefined) for (const key of [...(c.keys.get(id) ?? [])]) forget(c, key);
      buffer.destroy();
    },
    groupsCached(device) { return cacheOf(device).groups.size; },
    // Settings kept in IndexedDB (database "pycore", store "settings"), for a worker that has no
    // localStorage and no store from its page (a JupyterLite kernel, say): every value is read once
    // here, so that reads stay synchronous; writes go through to the database. Resolves with
    // {getItem, setItem, removeItem}, or with the reason there is none (a string).
    async openStore(ms) {
      if (typeof indexedDB === "undefined") return "this worker has no IndexedDB";
      const opened = new Promise((resolve, reject) => {
        const req = indexedDB.open("pycore", 1);
        req.onupgradeneeded = () => req.result.createObjectStore("settings");
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
        req.onblocked = () => reject(new Error("the database is blocked by another page"));
      });
      try {
        const db = await Promise.race([opened, new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`IndexedDB did not open within ${ms} ms`)), ms))]);
        const values = new Map();
        await new Promise((resolve, reject) => {
          const req = db.transaction("settings", "readonly").objectStore("settings").openCursor();
          req.onsuccess = () => {
            const c = req.result;
            if (!c) return resolve();
            values.set(String(c.key), String(c.value));
            c.continue();
          };
          req.onerror = () => reject(req.error);
        });
        const write = (change) => {
          try { change(db.transaction("settings", "readwrite").objectStore("settings")); } catch (e) {}
        };
        return {
          getItem: (key) => (values.has(key) ? values.get(key) : null),
          setItem: (key, text) => { values.set(key, String(text)); write((s) => s.put(String(text), key)); },
          removeItem: (key) => { values.delete(key); write((s) => s.delete(key)); },
        };
      } catch (e) {
        return "IndexedDB is unusable here: " + (e?.message ?? e);
      }
    },
    submit: encode,
    // A mark of the work submitted to `queue` so far: {done, finished}, done once the GPU has
    // finished it (a rejected wait counts as finished: the device is gone).
    mark(queue) {
      const m = { done: false };
      m.finished = queue.onSubmittedWorkDone().then(() => { m.done = true; }, () => { m.done = true; });
      return m;
    },
    // Resolves with true once `mark` is done, or with "interrupted" if `interrupt` (as for
    // submitAndRead) is signalled first, taking the signal.
    waitMark(mark, interrupt) {
      if (mark.done) return true;
      const done = mark.finished.then(() => true);
      if (!interrupt || typeof Atomics.waitAsync !== "function") return done;
      return Promise.race([done, signalled(interrupt, done)]);
    },
    // Resolves with the encode time (ms) when neither this work (if any) nor the `earlier` checks (an array
    // of their promises, or null) report an error; else with [earlier errors, error, map error,
    // encode ms]; or, if `interrupt` (an Int32Array on a SharedArrayBuffer: Pyodide's interrupt
    // buffer, or null) is signalled first, with "interrupted", taking the signal: the result is
    // then never copied (the caller discards `staging`).
    submitAndRead(device, commands, staging, nbytes, ptr, earlier, interrupt) {
      const start = performance.now();
      const errors = commands.length ? encode(device, commands) : null;  // (none: submitted before)
      const encodeMs = performance.now() - start;
      const mapped = staging.mapAsync(GPUMapMode.READ, 0, nbytes)
        .then(() => null, (e) => "mapAsync failed: " + (e?.message ?? e));
      let abandoned = false;
      const before = earlier ? Promise.all(earlier) : null;
      const work = Promise.all([before, errors, mapped]).then(([before, error, mapError]) => {
        if (!mapError && !abandoned) {
          if (!error) heap().set(new Uint8Array(staging.getMappedRange(0, nbytes)), ptr);
          staging.unmap();
        }
        if (!error && !mapError && !(before && before.some((e) => e))) return encodeMs;
        return [before ?? [], error, mapError, encodeMs];
      });
      if (!interrupt || typeof Atomics.waitAsync !== "function") return work;
      return Promise.race([work, signalled(interrupt, work)]).then((got) => {
        if (got !== "interrupted") return got;
        abandoned = true;
        return "interrupted";
      });
    },
  };
  // Resolves with "interrupted" once a signal is written to `buffer` (the page notifies), taking it;
  // never, once `done` has settled (it wakes its own waiter).
  function signalled(buffer, done) {
    let over = false;
    done.finally(() => { over = true; Atomics.notify(buffer, 0); });
    return (async () => {
      while (!over) {
        const signal = Atomics.load(buffer, 0);
        if (signal !== 0) {
          if (Atomics.compareExchange(buffer, 0, signal, 0) === signal) return "interrupted";
          continue;
        }
        const wait = Atomics.waitAsync(buffer, 0, 0);
        if (wait.async) await wait.value;
      }
      return new Promise(() => {});
    })();
  }
}

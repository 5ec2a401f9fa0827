"""CommandBatch in the browser: one submit for the whole batch, right answers, buffers given back."""

from __future__ import annotations

import pytest

CHAIN = """
x_host = np.random.default_rng(2).normal(size=(64, 48)).astype(np.float32)
w_host = np.random.default_rng(3).normal(size=(48, 16)).astype(np.float32)
dev = pycore.engine.runtime.RUNTIME.device.transport
submits = []
real_submit = dev.submit
dev.submit = lambda commands: (submits.append(len(commands)), real_submit(commands))[1]
before = pycore.info()["memory"]["bytes_in_use"]
try:
    b = pycore.CommandBatch()
    x = b.upload(x_host)
    chain = b.vec_add(b.scale(b.relu(x), 0.5), x)
    probs = b.softmax(b.matmul(chain, b.upload(w_host)))
    total = b.sum(probs)
    biggest = b.max(chain)
    await b.execute_async()
    during = len(submits)
finally:
    dev.submit = real_submit
chain_ref = np.maximum(x_host, 0) * np.float32(0.5) + x_host
logits = chain_ref.astype(np.float64) @ w_host
e = np.exp(logits - logits.max(axis=1, keepdims=True))
probs_ref = e / e.sum(axis=1, keepdims=True)
got_chain, got_probs = await b.read_async(chain), await b.read_async(probs)
out = {"submits": during, "commands": submits[:1],
       "chain": bool(np.array_equal(got_chain, chain_ref)),
       "probs": float(np.abs(got_probs - probs_ref).max()),
       "total": await b.read_async(total), "biggest": await b.read_async(biggest),
       "biggest_ref": float(chain_ref.max()),
       "backend": [t for t in pycore.trace() if t["op"] == "batch"][-1]["backend"]}
b.release()
out["after"] = pycore.info()["memory"]["bytes_in_use"] - before
out
"""


def test_a_batch_is_one_submit_and_matches_numpy(gpu):
    r = gpu.py(CHAIN)
    assert r["submits"] == 1 and r["commands"][0] > 6  # every dispatch in one command buffer
    assert r["backend"] == "webgpu"
    assert r["chain"] and r["probs"] < 1e-5
    assert abs(r["total"] - 64) < 1e-3 and r["biggest"] == r["biggest_ref"]
    assert r["after"] == 0


@pytest.mark.parametrize("n", [1, 255, 256, 257, 1000, 1025, 65_537, 1_000_000])
def test_batch_dot_is_right_at_every_size(gpu, n):
    # The reference library's batch dot kept one partial per workgroup and was wrong past 256.
    r = gpu.py(f"""
rng = np.random.default_rng({n})
a, c = rng.normal(size={n}).astype(np.float32), rng.normal(size={n}).astype(np.float32)
async with pycore.CommandBatch() as b:
    h = b.dot(b.upload(a), b.upload(c))
    await b.execute_async()
    got = await b.read_async(h)
ref = float(a.astype(np.float64) @ c.astype(np.float64))
bound = 1e-6 + (np.log2({n}) + 16) * np.finfo(np.float32).eps * float(np.abs(a.astype(np.float64) * c).sum())
{{"err": abs(got - ref), "bound": bound}}
""")
    assert r["err"] <= r["bound"]


def test_batch_takes_gpu_arrays_and_checks_misuse(gpu):
    r = gpu.py("""
t = await pycore.to_gpu_async(np.arange(4, dtype=np.float32))
errors = []
b = pycore.CommandBatch()
h = b.relu(b.vec_sub(t, [2, 2, 2, 2]))
for bad in (lambda: b.matmul(h, [[1.0]]), lambda: b.clip(h, 1, 0), lambda: pycore.CommandBatch().relu(h)):
    try:
        bad()
    except ValueError as exc:
        errors.append(str(exc))
try:
    await b.read_async(h)
except RuntimeError as exc:
    errors.append(str(exc))
await b.execute_async()
value = (await b.read_async(h)).tolist()
b.release()
still = (await t.to_numpy_async()).tolist()  # the GpuArray stays the caller's
t.release()
{"value": value, "still": still, "errors": errors}
""")
    assert r["value"] == [0, 0, 0, 1] and r["still"] == [0, 1, 2, 3]
    assert "matmul: a (4,) and b (1, 1) do not match" in r["errors"][0]
    assert "min (1.0) is greater than max (0.0)" in r["errors"][1]
    assert "another CommandBatch" in r["errors"][2]
    assert "before execute_async" in r["errors"][3]


def test_batch_reads_gpu_array_views_runs_once_and_guards_uploaded_arrays(gpu):
    # A view or an int32 GpuArray was bound as a plain float32 buffer (wrong values); two concurrent
    # execute_async both ran (misaligned values); an upload handle read after its array's release
    # read whatever the pool had put in that buffer since.
    r = gpu.py("""
import asyncio
x = np.arange(6, dtype=np.float32).reshape(2, 3)
t, ti, p = [await pycore.to_gpu_async(v) for v in (x, x.astype(np.int32), x[0])]
b = pycore.CommandBatch()
ht, hr, hi, hp = b.upload(t.T), b.relu(b.scale(t[:, ::-1], 2.0)), b.upload(ti), b.upload(p)
hs = [b.relu(np.full(1000, i, np.float32)) for i in range(4)]
done = await asyncio.gather(b.execute_async(), b.execute_async(), return_exceptions=True)
out = {"done": [repr(d) for d in done], "T": await b.read_async(ht), "r": await b.read_async(hr),
       "i": await b.read_async(hi), "p": await b.read_async(hp),
       "hs": [float((await b.read_async(h))[0]) for h in hs]}
p.release()
other = await pycore.to_gpu_async(np.full(3, 9.0, np.float32))  # (may take p's buffer)
try:
    out["after"] = await b.read_async(hp)
except RuntimeError as exc:
    out["after"] = str(exc)
b.release()
for v in (t, ti, other):
    v.release()
out
""")
    assert r["T"] == [[0, 3], [1, 4], [2, 5]] and r["r"] == [[4, 2, 0], [10, 8, 6]]
    assert r["i"] == [[0, 1, 2], [3, 4, 5]] and r["p"] == [0, 1, 2]
    assert r["done"][0] == "None" and r["done"][1].startswith("RuntimeError(")
    assert r["hs"] == [0.0, 1.0, 2.0, 3.0]
    assert "GpuArray the batch read where it lies" in r["after"] and "was released" in r["after"]


def test_batch_on_the_fallback(fallback_page):
    r = fallback_page.py("""
b = pycore.CommandBatch()
h = b.softmax(b.upload([[0.0, 0.0]]))
d = b.dot([1, 2], [3, 4])
await b.execute_async()
{"softmax": (await b.read_async(h)).tolist(), "dot": await b.read_async(d)}
""")
    assert r == {"softmax": [[0.5, 0.5]], "dot": 11.0}



def test_fused_chains_compute_what_the_separate_kernels_do(gpu):
    # Every unary op inside vec_mul(op(vec_sub(x, y)), y): with the intermediate handles dropped the
    # batch runs one generated kernel; with them held, three kernels. The answers agree (to a few
    # float32 ulps: a fused multiply-add may round once where two kernels round twice).
    gpu.load_reference()
    results = gpu.py("from pycore_reference import fused_chains_async\nawait fused_chains_async()")
    assert len(results) == 10
    for case, r in results.items():
        entry = "gelu_erf" if "False" in case else case.split()[0].replace("tanh", "tanh_")
        params = ",p" * (case.count(":") - ("approximate" in case))
        assert r["fused"] == [f"vec_mul({entry}(vec_sub(x0,x1){params}),x1)"], case
        assert r["apart"] == [] and r["problems"] == [], (case, r)


def test_a_wide_sum_is_split_within_the_binding_limit(gpu):
    r = gpu.py("""
rng = np.random.default_rng(9)
xs = [rng.normal(size=1000).astype(np.float32) for _ in range(12)]
async with pycore.CommandBatch() as b:
    total = b.upload(xs[0])
    for x in xs[1:]:
        total = b.vec_add(total, x)
    await b.execute_async()
    got = await b.read_async(total)
expect = np.zeros(1000, np.float32)
for x in xs:
    expect = expect + x
limit = pycore.engine.runtime.RUNTIME.device.limits.get("maxStorageBuffersPerShaderStage", 8)
{"kernels": b.fused, "limit": limit, "equal": bool(np.array_equal(got, expect))}
""")
    assert r["equal"]  # same additions in the same order: exact
    assert len(r["kernels"]) >= -(-12 // (r["limit"] - 1))  # 12 inputs, at most limit - 1 a kernel
    assert all(name.count("x") <= r["limit"] - 1 for name in r["kernels"])


def test_steps_after_an_empty_reduction_run_on_its_value(gpu):
    # sum of nothing runs on NumPy inside the batch; the GPU steps after it read that value
    r = gpu.py("""
async with pycore.CommandBatch() as b:
    total = b.sum(b.upload(np.zeros(0, np.float32)))
    fused = b.scale(b.vec_add(b.relu(total), total), 2.0)
    kept = b.relu(total)
    await b.execute_async()
    out = [float(await b.read_async(h)) for h in (total, fused, kept)]
out + [b.fused]
""")
    assert r == [0.0, 0.0, 0.0, ["scale(vec_add(relu(x0),x0),p)"]]

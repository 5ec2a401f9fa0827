"""jax-js, the fft yardstick of scripts/fft_bench.py, in the same process as pycore on Dawn: scripts/dawn.mjs
loads it, web/bench/baselines.js's jaxFft times chains of its transforms on its WebGPU backend, and
pycore/bench/peers.py's jax_fft_async checks where it ran and its values. Here, on tiny sizes, its
whole result is compared with NumPy's in float64 independently of that check, eagerly and jitted,
for a 1-D transform, fft2 and a transform along the first axis; and the check itself must refuse
values that are not the transform asked for.
"""

from __future__ import annotations

YARDSTICK = '''
from pyodide.ffi import to_js
from pycore.bench.peers import _baselines_module, jax_fft_async, jax_fft_input

notes = []
module = await _baselines_module(notes.append)
rows, failures = [], []
for shape, axes in (((1, 64), (1,)), ((8, 8), (0, 1)), ((8, 4), (0,))):
    want = np.fft.fftn(jax_fft_input(shape).astype(np.complex128), axes=axes).ravel()
    for jitted in (False, True):
        raw = (await module.jaxFft(to_js(list(shape)), to_js(list(axes)), 2, 1, jitted)).to_py()
        at = [int(i) for i, _, _ in raw["sample"]]
        got = np.array([complex(re, im) for _, re, im in raw["sample"]])
        if at != list(range(len(want))):
            failures.append(f"{shape} {axes}: sampled {at}")
        elif not np.allclose(got, want, rtol=0, atol=1e-4 * np.abs(want).max()):
            failures.append(f"{shape} {axes} jitted={jitted}: {got[:4]} vs {want[:4]}")
        row = await jax_fft_async(module, shape, axes, 2, 1, jitted)
        rows.append({k: row[k] for k in ("ms", "backend", "devices", "error", "count", "jitted", "adapter")})
class Wrong:  # baselines.js's jaxFft over another axis than asked
    def jaxFft(self, shape, axes, count, repeats, jitted=False):
        return module.jaxFft(shape, to_js([0]), count, repeats, jitted)
refused = None
try:
    await jax_fft_async(Wrong(), (4, 8), (1,), 2, 1)
    failures.append("jax_fft_async took the values of another transform")
except AssertionError as exc:
    refused = str(exc)
{"rows": rows, "failures": failures, "notes": notes, "refused": refused,
 "version": (await module.jaxjs()).to_py()["version"]}
'''


def test_jax_fft_yardstick_runs_on_webgpu_with_numpy_values(dawn):
    r = dawn.py(YARDSTICK)
    assert r["failures"] == [] and r["notes"] == []
    assert r["version"] == "0.1.25"  # (package.json pins it)
    assert len(r["rows"]) == 6
    for row in r["rows"]:
        assert row["backend"] == "webgpu" and row["devices"] == ["webgpu"], row
        assert row["ms"] > 0 and row["count"] == 2 and row["error"] < 1e-4, row
        assert row["adapter"], row
    assert "error" in r["refused"] and "against NumPy" in r["refused"]

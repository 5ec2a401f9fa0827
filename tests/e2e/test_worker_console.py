"""Python runs in a worker: the page never freezes, Ctrl+C interrupts, and the console says when it
is busy and keeps what is typed meanwhile. Times are measured in the page (event timestamps against
when the page handled or printed something), not from the test process."""

from __future__ import annotations

import json
import time

from tests.conftest import ARTIFACTS, boot
from tests.e2e.test_console import output_after, type_line

BUSY = "document.querySelector('#console').getAttribute('aria-busy') === 'true'"
IDLE = "document.querySelector('#console').getAttribute('aria-busy') === 'false'"
INTERRUPT_MS = 100

# Records, in the page, when Ctrl+C was pressed and when "KeyboardInterrupt" was first printed after it.
WATCH_INTERRUPT = """() => {
  const w = globalThis.__interrupt = { key: null, printed: null };
  if (globalThis.__interruptWatch) return;
  globalThis.__interruptWatch = true;
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "c" && ev.ctrlKey) { __interrupt.key = ev.timeStamp; __interrupt.printed = null; }
  }, true);
  new MutationObserver((records) => {
    const w = globalThis.__interrupt;
    if (w.key === null || w.printed !== null) return;
    for (const r of records) for (const n of r.addedNodes) {
      if (n.textContent.includes("KeyboardInterrupt")) w.printed = performance.now();
    }
  }).observe(document.getElementById("console-output"), { childList: true });
  // the page's own long tasks (its main thread busy: the key or the output handled late)
  globalThis.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) __longTasks.push([e.startTime, e.duration]);
  }).observe({ type: "longtask" });
}"""

# Records, in the worker, the garbage collector's pauses of 10 ms or more (epoch ms, ms, generation).
WATCH_PAUSES = """
import gc, sys, time, types
if "_test_pauses" not in sys.modules:
    _m = sys.modules["_test_pauses"] = types.ModuleType("_test_pauses")
    _m.pauses, _m.started = [], [0.0]
    def _gc_pause(phase, info, m=_m):
        if phase == "start":
            m.started[0] = time.perf_counter()
        elif (ms := (time.perf_counter() - m.started[0]) * 1e3) >= 10:
            m.pauses.append([time.time() * 1e3 - ms, ms, info["generation"]])
    gc.callbacks.append(_gc_pause)
sys.modules["_test_pauses"].pauses.clear()
"""


def start(page, code: str) -> None:
    """Enter `code` in the console without waiting for it to finish."""
    page.evaluate(WATCH_INTERRUPT)
    box = page.locator("#console-input")
    box.fill(code)
    box.press("Enter")
    page.wait_for_function(BUSY, timeout=15_000)


def interrupt(page) -> float:
    """Press Ctrl+C; the milliseconds from the key to KeyboardInterrupt printed."""
    page.locator("#console-input").press("Control+c")
    page.wait_for_function(IDLE, timeout=60_000)
    w = page.evaluate("() => globalThis.__interrupt")
    assert w["printed"] is not None, "no KeyboardInterrupt was printed"
    return w["printed"] - w["key"]


def quick_interrupt(gpu_page, code: str, wait_s: float, attempts: int = 3) -> None:
    """Start `code` in the console, press Ctrl+C after `wait_s`: KeyboardInterrupt within
    INTERRUPT_MS. A slow attempt is tried again (up to `attempts` in all: a pause of the machine
    running the tests is no fault of the page); the failure names what else was busy meanwhile:
    the page's main thread (its long tasks) and the worker's garbage collector (its pauses)."""
    page, slow = gpu_page.page, []
    for _ in range(attempts):
        gpu_page.py(WATCH_PAUSES)
        start(page, code)
        time.sleep(wait_s)
        ms = interrupt(page)
        if ms < INTERRUPT_MS:
            return
        key = page.evaluate("() => performance.timeOrigin + __interrupt.key")
        window = [key - 1000, key + ms]
        tasks = page.evaluate("() => __longTasks.map(([t, d]) => [performance.timeOrigin + t, d])")
        pauses = gpu_page.py("import sys\nsys.modules['_test_pauses'].pauses")
        near = [(round(t - key), round(d), *more) for t, d, *more in (*tasks, *pauses)
                if t + d > window[0] and t < window[1]]
        busy = {"page long tasks": [n for n in near if len(n) == 2],
                "worker gc pauses (and generation)": [n for n in near if len(n) == 3]}
        slow.append(f"{ms:.0f} ms (ms from the key, ms taken: {busy})")
    raise AssertionError(f"KeyboardInterrupt came after {INTERRUPT_MS} ms or more each time: {slow}")


def as_console(page, code: str):
    """Run `code` in the page as the console runs a command (interrupts are for its code); the
    value of its last expression."""
    return page.py(f"from pyodide.code import eval_code_async\n"
                   f"await eval_code_async({code!r}, globals(), filename='<console>')")


def test_python_runs_in_a_worker_on_both_pages(gpu_page, fallback_page, browser, server):
    where = "import js\nstr(js.constructor.name)"
    for page in (gpu_page, fallback_page):
        assert page.page.evaluate("(c) => pyodide.runPythonAsync(c)", where) == "DedicatedWorkerGlobalScope"
    assert gpu_page.page.evaluate("() => pyodide.runPythonAsync('1 + 1')") == 2
    assert gpu_page.page.evaluate("() => pyodide.runPythonAsync('[1]')") is None  # only str, number, bool
    viz = boot(browser, server.url + "/viz.html")
    try:
        viz.page.evaluate("() => vizState.ready")
        assert viz.page.evaluate("(c) => pyodide.runPythonAsync(c)", where) == "DedicatedWorkerGlobalScope"
        assert viz.page.evaluate("() => vizBackend") == "webgpu" and viz.page.evaluate(
            "() => vizState.data.matmul.c.length") == 64
    finally:
        viz.close()


def test_the_cycle_collector_skips_what_boot_made(gpu_page):
    """The modules loaded at boot are frozen out of the cycle collector's walks: a full collection
    walks only what code made since (before, each took 55-85 ms in the console's loops)."""
    assert gpu_page.py("import gc\ngc.get_freeze_count()") > 20_000


def test_ctrl_c_stops_a_pure_python_loop(gpu_page):
    page = gpu_page.page
    quick_interrupt(gpu_page, "n = 0\nwhile True:\n    n += 1", 0.5)
    assert "KeyboardInterrupt" in output_after(page, ">>> n = 0")
    type_line(page, "n > 1000, 6 * 7")
    assert "(True, 42)" in output_after(page, ">>> n > 1000")


def test_ctrl_c_during_a_long_numpy_call_stops_when_it_returns(gpu_page):
    """A NumPy call is C code, which no signal interrupts: KeyboardInterrupt comes right after the
    call running at the key press returns, at the next Python steps."""
    page = gpu_page.page
    type_line(page, "import js\na = np.random.default_rng(0).random((1000, 1000))")
    start(page, "t = js.performance.now()\nb = a @ a\n"
                "returned = js.performance.timeOrigin + js.performance.now()\n"
                "call_ms = js.performance.now() - t\nn = 0\nwhile True:\n    n += 1")
    time.sleep(0.1)
    interrupt(page)
    key, printed = page.evaluate(
        "() => [__interrupt.key, __interrupt.printed].map((t) => t + performance.timeOrigin)")
    type_line(page, "import json; print(json.dumps([returned, call_ms]))")
    returned, call_ms = json.loads(output_after(page, ">>> import json; print").split("\n")[1])
    assert key < returned, "the key came after the call: make the call longer"
    assert printed - returned < INTERRUPT_MS, (printed - returned, call_ms)


def test_ctrl_c_stops_a_chain_of_gpu_ops_and_pycore_stays_consistent(gpu_page):
    page = gpu_page.page
    type_line(page, "import gc; gc.collect(); _before = pycore.info()['memory']['buffers_in_use']")
    # round trips (each waits for a readback), then ops on GpuArrays (queued, never waiting); a
    # call waiting for its kernel's first compile stops once the compile ends: compile them first
    type_line(page, "x = np.random.default_rng(1).random((512, 512)).astype(np.float32)\n"
                    "y = await pycore.matmul_async(x, x, backend='gpu')")
    quick_interrupt(gpu_page, "for i in range(100000):\n"
                              "    y = await pycore.matmul_async(x, x, backend='gpu')", 1.0)
    type_line(page, "i > 2")  # (it ran: a 512² product's round trip takes 0.1 s on a slow CPU adapter)
    assert output_after(page, ">>> i > 2").strip().endswith("True")
    quick_interrupt(gpu_page, "chained = await pycore.to_gpu_async(x)\nfor i in range(100000):\n"
                              "    chained = await pycore.scale_async(chained, 1.0)", 1.0)
    type_line(page, "i > 10")
    assert output_after(page, ">>> i > 10").strip().endswith("True")
    out = output_after(page, ">>> chained = await")
    assert out.count("KeyboardInterrupt") == 1 and "pycore/" not in out  # ends in the user's frame
    # every trace entry is whole, the device still works, no buffer leaked (x and y are the user's)
    type_line(page, "del chained; gc.collect(); "
                    "pycore.info()['backend'], all('total_ms' in e for e in pycore.trace())")
    assert "('webgpu', True)" in output_after(page, ">>> del chained")
    type_line(page, "pycore.info()['memory']['buffers_in_use'] - _before")
    assert output_after(page, "- _before").strip().endswith("0")
    type_line(page, "r = await pycore.matmul_async(x, x, backend='gpu'); "
                    "float(np.abs(r - x.astype(np.float64) @ x).max()) < 1e-2")
    assert output_after(page, ">>> r = await").strip().endswith("True")


def test_ctrl_c_is_for_the_console_command_not_python_running_beside_it(gpu_page):
    """A script's request to the page runs Python while a console command awaits the GPU: Ctrl+C
    meanwhile interrupts the command (once the request's code yields), never the request."""
    page = gpu_page.page
    type_line(page, "xs = np.random.default_rng(2).random((64, 64)).astype(np.float32)\n"
                    "ys = await pycore.matmul_async(xs, xs, backend='gpu')")
    start(page, "for i in range(1000000):\n    ys = await pycore.matmul_async(xs, xs, backend='gpu')\n"
                "    if i == 2: print('three laps')")
    page.wait_for_function("() => document.querySelector('#console-output').innerText.includes('three laps')",
                           timeout=30_000)  # (the loop is under way: `i > 0` below)
    beside = ("import js, time\nstarted = js.Date.now()\nt = time.perf_counter()\n"
              "while time.perf_counter() - t < 1.5: pass\nf'{started} {js.Date.now()}'")
    page.evaluate("(c) => { globalThis.__beside = pyodide.runPythonAsync(c).then(String, "
                  "(e) => 'interrupted: ' + e.message.slice(-60)); }", beside)
    time.sleep(0.5)
    key = page.evaluate("() => Date.now()")
    interrupt(page)
    got = page.evaluate("() => globalThis.__beside")
    assert not got.startswith("interrupted"), got
    started, ended = map(float, got.split())
    assert started < key < ended, "the request did not run at the key press: start it earlier"
    out = output_after(page, ">>> for i in range(1000000)")
    assert out.count("KeyboardInterrupt") == 1
    type_line(page, "del ys; i > 0")
    assert output_after(page, ">>> del ys; i > 0").strip().endswith("True")


def test_ctrl_c_during_a_read_cancels_the_queued_gpu_work(gpu_page):
    """A read that waits for queued GPU work says so in the status line; Ctrl+C during the wait drops
    the work not yet handed to the GPU (SwiftShader here): a small op right after is fast, the
    dropped result raises when read, and its inputs stay readable."""
    page = gpu_page.page
    type_line(page, "import time\nfrom pycore.tables.ops import OPS\n"
                    "from pycore.choice.selector import SELECTOR\n"
                    "xq = np.random.default_rng(4).random((256, 256), np.float32) / 256\n"
                    "xq = await pycore.to_gpu_async(xq)\n"
                    "zq = await pycore.matmul_async(xq, xq, backend='gpu')\n_ = await zq.to_numpy_async()\n"
                    "t0 = time.perf_counter(); zq = await pycore.matmul_async(zq, xq, backend='gpu'); "
                    "zq = await pycore.matmul_async(zq, xq, backend='gpu'); "
                    "zq = await pycore.matmul_async(zq, xq, backend='gpu'); _ = await zq.to_numpy_async()\n"
                    "per_ms = (time.perf_counter() - t0) * 1e3 / 3\n"
                    # (about 3 s of work, by the cost model or by the time measured, whichever says more:
                    # a rate that earlier calls on this shared page corrected must not make it short)
                    "nq = max(int(3000 / SELECTOR.work_ms(OPS['matmul'], [(256, 256), (256, 256)])), "
                    "int(3000 / per_ms))")
    page.evaluate("""() => {
      globalThis.__statuses = [];
      const text = document.getElementById("console-status-text");
      new MutationObserver(() => __statuses.push(text.textContent))
        .observe(text, { childList: true, characterData: true, subtree: true });
    }""")
    slow = []  # (a slow attempt is tried again, as quick_interrupt does: a pause of the machine)
    for _ in range(3):
        start(page, "for _ in range(nq):\n    zq = await pycore.matmul_async(zq, xq, backend='gpu')\n"
                    "await zq.to_numpy_async()")
        page.wait_for_function("document.getElementById('console-status-text').textContent"
                               ".includes('waiting for the GPU: ')", timeout=30_000)
        time.sleep(0.2)
        ms = interrupt(page)
        if ms < INTERRUPT_MS:
            break
        slow.append(round(ms))
        type_line(page, "zq = await pycore.matmul_async(xq, xq, backend='gpu')\n"
                        "_ = await zq.to_numpy_async()")
    else:
        raise AssertionError(f"KeyboardInterrupt came after {INTERRUPT_MS} ms or more each time: {slow} ms")
    statuses = page.evaluate("() => __statuses")
    assert any("waiting for the GPU: " in s and " queued kernels, ~" in s for s in statuses), statuses
    type_line(page, "t = time.perf_counter()\n"
                    "small = await pycore.relu_async(np.array([-1.0, 2.0], np.float32), backend='gpu')\n"
                    "small_ms = (time.perf_counter() - t) * 1e3\n"
                    "dropped = None  # (None if the read does not raise: the assertion says so)\n"
                    "try:\n    await zq.to_numpy_async()\nexcept pycore.CancelledWorkError as exc:\n"
                    "    dropped = str(exc)")
    type_line(page, "import json; print(json.dumps([small_ms, small.tolist(), dropped, "
                    "bool((await xq.to_numpy_async()).any()), "
                    "len(pycore.engine.runtime.RUNTIME.device.queued)]))")
    small_ms, small, dropped, inputs_read, held = json.loads(output_after(page, ">>> import json; print")
                                                             .split("\n")[1])
    assert small == [0.0, 2.0] and small_ms < 1000, small_ms
    assert "cancelled by an interrupt (KeyboardInterrupt)" in dropped and inputs_read and held == 0
    type_line(page, "xq.release(); zq.release(); del xq, zq")  # (the page is shared: its GPU memory too)


def test_a_command_batch_interrupted_mid_execute_raises(gpu_page):
    """The interrupt is signalled from inside execute_async, while it encodes its 20th matmul (the
    code runs as the console's: interrupts are for it)."""
    result = as_console(gpu_page, """
import gc, js
from pycore.calls.programs import PROGRAMS
gc.collect()
before = pycore.info()['memory']['buffers_in_use']
matmul, encoded = PROGRAMS["matmul"], []
real = type(matmul).gpu_async
async def signalling(gpu, op, arrays, params):
    encoded.append(1)
    if len(encoded) == 20:
        js.pycoreInterrupt[0] = 2  # what the page's Ctrl+C writes
    return await real(matmul, gpu, op, arrays, params)
a = np.random.default_rng(2).random((64, 64)).astype(np.float32) / 8
b = pycore.CommandBatch()
h = b.upload(a)
for i in range(40):
    h = b.matmul(h, a)
matmul.gpu_async = signalling
try:
    await b.execute_async()
    raised = None
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
finally:
    del matmul.gpu_async
stopped_at = len(encoded)
try:
    await b.read_async(h)
    read = "read a result"
except RuntimeError as exc:
    read = str(exc)
gc.collect()
leaked = pycore.info()['memory']['buffers_in_use'] - before
await b.execute_async()  # it can run again, from scratch, and then computes the right thing
want = a.astype(np.float64)
for i in range(40):
    want = want @ a
got = await b.read_async(h)
b.release()
{"raised": raised, "stopped_at": stopped_at, "executed_after": b.executed, "read": read,
 "leaked": leaked, "error": float(np.abs(got - want).max() / np.abs(want).max())}
""")
    assert result["raised"] == "KeyboardInterrupt" and 20 <= result["stopped_at"] < 40
    assert "before execute_async" in result["read"]
    assert result["leaked"] == 0
    assert result["error"] < 1e-4


def test_page_stays_responsive_during_five_seconds_of_numpy(gpu_page):
    page = gpu_page.page
    page.evaluate("""() => {
      globalThis.__latency = [];
      const note = (ev) => __latency.push(performance.now() - ev.timeStamp);
      document.querySelector(".brand").addEventListener("click", note);
      document.addEventListener("keyup", note);
    }""")
    start(page, "import time\na = np.random.default_rng(3).random((200, 200))\nt = time.perf_counter()\n"
                "while time.perf_counter() - t < 5:\n    b = a @ a")
    page.evaluate("() => { __latency.length = 0; }")  # (the Enter that started it)
    for _ in range(4):
        time.sleep(0.6)
        page.click(".brand")
        page.keyboard.press("Shift")
    assert page.evaluate(BUSY)  # still computing while the page answered
    latency = page.evaluate("() => __latency")
    assert len(latency) == 8 and max(latency) < 100, latency
    page.wait_for_function(IDLE, timeout=30_000)


def test_busy_state_elapsed_time_and_input_typed_meanwhile(gpu_page):
    page = gpu_page.page
    start(page, "import time\nt = time.perf_counter()\nwhile time.perf_counter() - t < 2.5:\n    pass")
    assert page.locator("#console-status").is_visible()
    assert page.locator("#console-stop").is_visible()
    page.wait_for_function(
        "/running \\d+\\.\\d s/.test(document.querySelector('#console-status').textContent)")
    box = page.locator("#console-input")
    box.fill("6 * 7")
    box.press("Enter")  # typed while busy: queued, then run
    assert "1 queued" in page.inner_text("#console-status")
    box.fill("half-typed")  # and text still being typed stays in the line
    page.wait_for_function(IDLE, timeout=30_000)
    assert output_after(page, ">>> 6 * 7").strip().endswith("42")
    assert box.input_value() == "half-typed"
    assert not page.locator("#console-status").is_visible()
    box.fill("")


SESSION = [  # the README's screenshot: a short session, then long work running
    "x = np.linspace(-2, 2, 5)",
    "await pycore.relu_async(x)",
    "g = await pycore.to_gpu_async(np.random.default_rng(0).random((1024, 1024)))\ng",
    "pycore.matmul_async(g, g)",
    "await pycore.matmul_async(np.ones((2, 3)), np.ones((2, 3)))",
    "{k: pycore.info()[k] for k in ('backend', 'tier', 'memory')}",
]


def test_long_pycore_work_reports_progress(browser, server):
    booted = boot(browser, server.url + "/")
    page = booted.page
    try:
        for line in SESSION:
            type_line(page, line)
        page.evaluate("""() => {
          globalThis.__statuses = [];
          const text = document.getElementById("console-status-text");
          new MutationObserver(() => __statuses.push(text.textContent))
            .observe(text, { childList: true, characterData: true, subtree: true });
        }""")
        start(page, "cal = await pycore.calibrate_async()")
        page.wait_for_function("/running \\d+\\.\\d s · calibrate \\d+\\/\\d+/.test("
                               "document.getElementById('console-status-text').textContent)", timeout=60_000)
        box = page.locator("#console-input")
        box.fill("cal['gpu_gflops']['matmul']")
        box.press("Enter")  # queued meanwhile
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "console.png"))
        page.wait_for_function(IDLE, timeout=120_000)
        statuses = page.evaluate("() => __statuses")
        assert any("calibrate" in s and "/" in s for s in statuses), statuses
        assert output_after(page, ">>> cal['gpu_gflops']").split("\n")[1].replace(".", "").isdigit()
    finally:
        booted.close()


def test_without_cross_origin_isolation_it_works_without_interrupt(browser, server):
    def not_isolated(route):
        resp = route.fetch()
        headers = {k: v for k, v in resp.headers.items() if not k.lower().startswith("cross-origin-")}
        route.fulfill(response=resp, headers=headers)

    context = browser.new_context()
    try:
        page = context.new_page()
        page.route(server.url + "/", not_isolated)
        page.goto(server.url + "/")
        info = page.evaluate("() => pycoreReady")
        assert info["backend"] in ("webgpu", "numpy")
        assert page.evaluate("crossOriginIsolated") is False
        page.wait_for_selector("#console-input:not([disabled])")
        out = page.inner_text("#console-output")
        assert out.count("cannot interrupt") == 1  # said once
        type_line(page, "await pycore.relu_async(np.array([-1.0, 2.0]))")
        assert "array([0., 2.], dtype=float32)" in output_after(page, ">>> await pycore.relu_async")
        assert page.inner_text("#console-output").count("cannot interrupt") == 1
    finally:
        context.close()


def test_a_worker_that_cannot_start_fails_the_runtime_stage(browser, server):
    """(A worker that never starts is reported like a stalled stage.)"""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route("**/worker.js", lambda route: route.fulfill(status=404, body="gone"))
        page.goto(server.url + "/?stageTimeout=8000")
        error = page.evaluate("() => pycoreReady.then(() => null, (e) => e.message)")
        assert error
        page.wait_for_selector("#error-panel:not([hidden])")
        assert page.inner_text("#error-stage") == "Python runtime"
    finally:
        context.close()

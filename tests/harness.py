"""Starting serve.py and booting the app in headless Chromium, or pycore on the native transport in a
worker process: shared by the test fixtures and the scripts that measure (scripts/error_table.py).
A booted page and a native worker answer the same calls (py, load_reference, run_case), so a test
of pycore's GPU path runs on either."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("PYCORE_CHROMIUM", "/usr/bin/chromium")
# Headless, quiet and offline-friendly; WebGPU is enabled per browser below (SwiftShader here).
CHROMIUM_ARGS = ["--no-sandbox", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic",
                 "--disable-default-apps", "--disable-extensions"]
BOOT_TIMEOUT_MS = 180_000


class Server:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-u", str(ROOT / "serve.py"), "--port", "0", "--quiet"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = []
        assert self.proc.stdout is not None  # (stdout=PIPE)
        for line in self.proc.stdout:  # npm ci may print first
            lines.append(line)
            found = re.search(r"serving .* at (http://\S+)", line)
            if found:
                self.url = found.group(1).rstrip("/")
                return
        raise RuntimeError("serve.py did not start:\n" + "".join(lines))

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def launch(pw: Any, webgpu: bool) -> Any:
    args = CHROMIUM_ARGS + (["--enable-unsafe-webgpu"] if webgpu else [])
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)


class Snippets:
    """What a test runs through `py` on either target."""

    def py(self, code: str) -> Any:
        raise NotImplementedError

    def run_case(self, case_id: str, backend: str = "auto") -> dict[str, Any]:
        """One case of tests/reference.py, checked where it ran (see load_reference)."""
        return self.py(f"from pycore_reference import run_case_async\n"
                       f"await run_case_async({case_id!r}, backend={backend!r})")


class Booted(Snippets):
    """A page that has loaded the app, with every request URL it made recorded."""

    def __init__(self, browser: Any, url: str, init_script: str | None = None) -> None:
        self.context = browser.new_context(viewport={"width": 1200, "height": 760})
        self.requests: list[str] = []
        self.context.on("request", lambda req: self.requests.append(req.url))
        if init_script:  # for the page, and for its Python worker (which init scripts do not reach)
            self.context.add_init_script(init_script)
            self.context.route("**/worker.js", lambda route: route.fulfill(
                response=(r := route.fetch()), body=init_script + "\n" + r.text()))
        self.page = self.context.new_page()
        self.console_messages: list[str] = []
        self.page.on("console", lambda msg: self.console_messages.append(f"{msg.type}: {msg.text}"))
        if "calibrate=" not in url:  # no calibration in the background: tests set the selector up themselves
            url += ("&" if "?" in url else "?") + "calibrate=manual"
        self.page.goto(url)

    def ready(self) -> dict[str, Any]:
        """pycore.info() once boot has finished (raises with the page's error if boot failed)."""
        return self.page.evaluate("() => pycoreReady")

    def py(self, code: str) -> Any:
        """Run Python in the page (in its Python worker); returns the last expression's value
        through JSON (NaN and Infinity survive: Python's json reads them)."""
        source = "import numpy as np\nimport pycore\n" + code
        return json.loads(self.page.evaluate(
            "(code) => pyodide.runPythonAsync(code)",
            "import json\nfrom pyodide.code import eval_code_async\n"
            f"json.dumps(await eval_code_async({source!r}, globals()), default=lambda o: o.tolist())"))

    def load_reference(self) -> None:
        """Make tests/reference.py importable in the page as `pycore_reference`."""
        source = (ROOT / "tests" / "reference.py").read_text()
        self.page.evaluate("(code) => pyodide.runPythonAsync(code)", f"""
import importlib, os, sys
os.makedirs("/tmp/pycore_tests", exist_ok=True)
with open("/tmp/pycore_tests/pycore_reference.py", "w") as f:
    f.write({source!r})
sys.path.insert(0, "/tmp/pycore_tests")
sys.modules.pop("pycore_reference", None)
importlib.invalidate_caches()
""")

    def close(self) -> None:
        self.context.close()


def boot(browser: Any, url: str, init_script: str | None = None) -> Booted:
    page = Booted(browser, url, init_script)
    page.page.set_default_timeout(BOOT_TIMEOUT_MS)
    page.ready()
    return page




class Worker(Snippets):
    """A process that runs pycore and answers snippets, one JSON line each way (see
    tests/native_worker.py and scripts/dawn.mjs): its RUNTIME is not the test process's."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None  # (stdout=PIPE)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker exited (code {self.proc.wait()})")
        return json.loads(line)

    def py(self, code: str) -> Any:
        """Run Python in the worker; returns the last expression's value through JSON."""
        assert self.proc.stdin is not None  # (stdin=PIPE)
        self.proc.stdin.write(json.dumps({"code": "import numpy as np\nimport pycore\n" + code}) + "\n")
        self.proc.stdin.flush()
        reply = self._reply()
        if "error" in reply:
            raise RuntimeError("the snippet failed in the worker:\n" + reply["error"])
        return json.loads(reply["value"])

    def ready(self) -> dict[str, Any]:
        return self.py("await pycore.init_async()")

    def load_reference(self) -> None:
        """tests/reference.py is importable in the worker as `pycore_reference` from the start."""

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Native(Worker):
    """pycore on the native transport (wgpu-py), in a Python process of its own."""

    def __init__(self, transport: str = "native") -> None:
        env = {"PYCORE_TRANSPORT": transport, "PYTHONUNBUFFERED": "1"}
        env.setdefault("XDG_RUNTIME_DIR", os.environ.get("XDG_RUNTIME_DIR", "/tmp"))  # Mesa's loader wants it
        super().__init__([sys.executable, "-m", "tests.native_worker"], env)


LAVAPIPE_ICD = ROOT / ".cache" / "mesa" / "icd.json"  # made by scripts/lavapipe.sh


def dawn_env() -> dict[str, str]:
    """Where Dawn finds its adapter: $PYCORE_DAWN_ICD, else Mesa 25's lavapipe from
    scripts/lavapipe.sh if it is there and no GPU driver is set, else Vulkan's own search."""
    env = {"XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "/tmp")}
    icd = os.environ.get("PYCORE_DAWN_ICD") or (
        str(LAVAPIPE_ICD) if LAVAPIPE_ICD.exists() and not os.environ.get("VK_DRIVER_FILES")
        and not os.environ.get("VK_ICD_FILENAMES") else None)
    if icd:
        env["VK_ICD_FILENAMES"] = icd
    return env


class Dawn(Worker):
    """pycore's browser transport in Pyodide on Dawn (Chrome's WebGPU) in Node: scripts/dawn.mjs."""

    def __init__(self, toggles: tuple[str, ...] = ()) -> None:
        super().__init__(["node", str(ROOT / "scripts" / "dawn.mjs"), *toggles], dawn_env())
        first = self._reply()
        if "error" in first:
            self.close()
            raise RuntimeError(first["error"])
        self.info = first["ready"]

    def ready(self) -> dict[str, Any]:
        return self.info


def gpu_worker(native: bool = False) -> Worker | None:
    """A worker on Dawn (native: wgpu-py) that has a WebGPU adapter, for the benchmark scripts;
    None where there is none (the reason printed to stderr)."""
    worker: Worker = Native() if native else Dawn()
    info = worker.ready()
    if info.get("backend", "webgpu") != "webgpu" or info.get("transport") == "none":
        print(f"no WebGPU adapter: {info.get('reason')}", file=sys.stderr)
        worker.close()
        return None
    return worker


def run_bench(code: str, report: Any, native: bool = False, out: Path | None = None) -> int:
    """A benchmark script's end: its worker code (which returns JSON, with a `no_timestamps` key
    where the adapter has no timestamp queries) run in a worker with a WebGPU adapter
    (gpu_worker), `report(result)` printed and the result written to `out`; the exit status (1
    where there is no adapter or no timestamps, the reason printed to stderr)."""
    worker = gpu_worker(native)
    if worker is None:
        return 1
    try:
        result = json.loads(worker.py(code))
    finally:
        worker.close()
    if result.get("no_timestamps"):
        print("this adapter has no timestamp queries", file=sys.stderr)
        return 1
    print(report(result))
    if out:
        out.write_text(json.dumps(result, indent=1))
    return 0

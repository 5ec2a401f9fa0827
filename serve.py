#!/usr/bin/env python3
"""Serve the pycore page, fully offline, from this checkout.

    python serve.py [--host 127.0.0.1] [--port 8000] [--open]

What it serves (nothing else; everything else is a 404):
  /                  web/            the pages and their glue JavaScript
  /pyodide/          node_modules/pyodide/   the Pyodide runtime (npm, pinned in package.json)
  /shaders/          shaders/        the WGSL sources (also packed into the pycore wheel)
  /wheels/           vendor/wheels/  NumPy for Pyodide, micropip, packaging (see SHA256SUMS)
  /npm/<name>/       node_modules/<package>/dist/   browser bundles of npm packages the pages use
                     (Chart.js for /viz.html; TF.js and its WebGPU backend, the benchmarks' peer;
                     jax-js, the fft benchmark's)
  /wheels/pycore-<version>-py3-none-any.whl   the standard build of pyproject.toml (pip wheel .)
  /wheels/pycore-<version>-py3-none-any.<cache tag>-pyc.zip   its modules compiled by the page's
                     Pyodide, which the page unpacks beside the installed wheel (see PycCache)
  /pyodide-lock.json Pyodide's lock file, rewritten to point at /wheels/
  /pyodide/console.html, /pyodide/pyodide-lock.json, /pyodide/<vendored wheel>
                     Pyodide's own console page as an offline distribution: its jQuery from npm
                     (/npm/jquery*/), its lock file listing the vendored wheels, served beside it
  /lite/             build/lite/     the JupyterLite site with pycore (python3 scripts/lite.py builds it)

The pycore wheel is rebuilt whenever a file it is made from changes, so editing Python
or WGSL and reloading the page is the whole development loop. If node_modules is missing or older
than package-lock.json, `npm ci` is run first (or the exact command to run is printed).

Limits, so that slow or stalled clients cannot pin the server: a request's line and headers must
arrive in full within REQUEST_TIMEOUT_S (10 s) of the connection; a read or a write that makes no
progress for IO_TIMEOUT_S (10 s) closes the connection (a client that stops reading a large file
lets it go); at most MAX_HANDLERS (64) connections are handled at once, one thread each, and a
connection beyond them waits in the listen queue (LISTEN_QUEUE, 512 deep) and then up to
SLOT_WAIT_S (5 s) for a free handler, else is answered 503. A malformed request is a 400; an
unexpected error is a 500 that says only that, its detail going to the server's log (stderr,
even with --quiet).
"""

from __future__ import annotations

import argparse
import errno
import functools
import hashlib
import http.server
import io
import ipaddress
import json
import os
import posixpath
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import traceback
import urllib.parse
import webbrowser
import zipfile
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
PYODIDE = ROOT / "node_modules" / "pyodide"
SHADERS = ROOT / "shaders"
WHEELS = ROOT / "vendor" / "wheels"
PACKAGE = ROOT / "pycore"
NPM = ROOT / "node_modules"

# URL prefix -> directory. Order matters only for readability: prefixes do not overlap.
MOUNTS: dict[str, Path] = {
    "/pyodide/": PYODIDE,
    # the peer the benchmarks compare with (npm devDependencies; only their browser bundles)
    "/npm/tfjs-core/": NPM / "@tensorflow" / "tfjs-core" / "dist",
    "/npm/tfjs-backend-webgpu/": NPM / "@tensorflow" / "tfjs-backend-webgpu" / "dist",
    "/npm/jax-js/": NPM / "@jax-js" / "jax",  # the fft yardstick: dist/ (ES modules), package.json
    "/npm/chart.js/": NPM / "chart.js" / "dist",  # the visualization page's charts
    # what Pyodide's own console page (/pyodide/console.html) loads from a CDN, served from npm
    "/npm/jquery/": NPM / "jquery" / "dist",
    "/npm/jquery.terminal/": NPM / "jquery.terminal",
    "/shaders/": SHADERS,
    "/wheels/": WHEELS,
    "/lite/": ROOT / "build" / "lite",  # the JupyterLite site, once scripts/lite.py has built it
    "/": WEB,
}
LITE_NOTEBOOK = "/lite/notebooks/index.html?path=pycore.ipynb"

# Cross-origin isolation: every resource is same-origin anyway, and an isolated page's clock
# (performance.now(), hence Python's time.perf_counter() in Pyodide) ticks in 5 µs steps instead of
# 100 µs, which the benchmarks and the cost model's measurements of sub-millisecond calls need.
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".wgsl": "text/wgsl; charset=utf-8",
    ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".tar": "application/x-tar",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}
OCTET = "application/octet-stream"

REQUEST_TIMEOUT_S = 10.0  # a request's line and headers must arrive in full within this
IO_TIMEOUT_S = 10.0  # a read or write that makes no progress for this long closes the connection
MAX_HANDLERS = 64  # connections handled at once (a thread each)
SLOT_WAIT_S = 5.0  # how long a connection beyond those waits for a free handler before a 503
LISTEN_QUEUE = 512  # connections the OS holds until they are accepted
SEND_CHUNK = 256 << 10  # a response is written in pieces of this size, each within IO_TIMEOUT_S


# ---------------------------------------------------------------- preparing node_modules
def node_modules_stale() -> str | None:
    """Why `npm ci` must run (None when node_modules matches package-lock.json)."""
    lock = ROOT / "package-lock.json"
    installed = ROOT / "node_modules" / ".package-lock.json"
    if not (PYODIDE / "pyodide.mjs").exists() or not installed.exists():
        return "node_modules/pyodide is missing"
    if not (NPM / "webgpu" / "index.js").exists():  # (a dev dependency: the tests' Dawn target)
        return "node_modules/webgpu is missing"
    if lock.stat().st_mtime > installed.stat().st_mtime:
        return "package-lock.json is newer than node_modules"
    return None


def prepare_node_modules() -> None:
    reason = node_modules_stale()
    if reason is None:
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(f"serve.py: {reason}, and npm is not installed.\n"
                 f"  Install Node.js and npm (Debian: apt-get install -y npm), then run: "
                 f"cd {ROOT} && npm ci")
    print(f"serve.py: {reason}; running npm ci ...", flush=True)
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"serve.py: npm ci failed (exit {done.returncode}); run it yourself in {ROOT}")


# ---------------------------------------------------------------- the pycore wheel
def project_meta() -> tuple[str, str, list[str]]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return meta["name"], meta["version"], list(meta.get("dependencies", []))


def wheel_inputs() -> list[Path]:
    """Every file the pycore wheel is made from (its build reads these and nothing else):
    pyproject.toml, README.md (the wheel's description), pycore/ and shaders/."""
    files = [ROOT / "pyproject.toml", ROOT / "README.md"]
    files += sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return files + sorted(SHADERS.glob("*.wgsl"))


def build_pycore_wheel() -> tuple[str, bytes]:
    """The pycore wheel as the project's build backend makes it (hatchling, configured in
    pyproject.toml, through `pip wheel`: the standard build, with the shaders inside as
    pycore/shaders/): (file name, bytes). The build is reproducible: the same sources give the same
    bytes. Where hatchling is importable the build uses it; else pip installs the pinned one in an
    isolated environment (once; pip caches it)."""
    import importlib.util
    import tempfile

    with tempfile.TemporaryDirectory(prefix="pycore-wheel-") as out:
        cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check",
               "--wheel-dir", out, str(ROOT)]
        if importlib.util.find_spec("hatchling") is not None:
            cmd.insert(4, "--no-build-isolation")
        done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PIP_NO_INPUT": "1"})
        wheels = sorted(Path(out).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise RuntimeError(f"building the pycore wheel failed: {' '.join(cmd[:5])} ... exited "
                               f"{done.returncode}\n{(done.stderr or done.stdout)[-3000:]}")
        return wheels[0].name, wheels[0].read_bytes()


class WheelCache:
    """Rebuilds the pycore wheel only when a source file changed (keyed on names and mtimes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: object = None
        self._wheel: tuple[str, bytes] | None = None

    def get(self) -> tuple[str, bytes]:
        key = tuple((p, p.stat().st_mtime_ns) for p in wheel_inputs())
        with self._lock:
            if key != self._key or self._wheel is None:
                self._wheel, self._key = build_pycore_wheel(), key
            return self._wheel


# ---------------------------------------------------------------- the wheel's bytecode
_COMPILE_JS = r"""
// Compiles the .py files under argv[3] with the Pyodide in argv[2], as checked-hash .pyc files.
const path = require("path");
const [pyodideDir, work] = process.argv.slice(2);
require(path.join(pyodideDir, "pyodide.js")).loadPyodide({
  indexURL: pyodideDir + "/", stdout: () => {}, stderr: (t) => process.stderr.write(t + "\n"),
}).then((py) => {
  py.FS.mkdirTree("/work");
  py.mountNodeFS("/work", work);
  process.stdout.write(py.runPython(`
import compileall, py_compile, sys
ok = compileall.compile_dir("/work", quiet=1, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
sys.implementation.cache_tag if ok else ""`));
  process.exit(0);
}).catch((e) => { process.stderr.write(String(e?.stack ?? e) + "\n"); process.exit(1); });
"""


def build_pycore_bytecode(wheel: bytes) -> tuple[str, bytes] | None:
    """The wheel's modules compiled by the page's own Pyodide (run in Node), as (cache tag, zip of
    pycore/**/__pycache__/*.pyc), for the page to unpack into site-packages next to the installed
    wheel: `import pycore` then reads bytecode instead of compiling 70 ms of sources. They are
    checked-hash .pyc files (PEP 552): Python uses one only while its source is byte for byte the
    one it was compiled from, so a stale one never runs. None without Node or Pyodide's npm files
    (the page then compiles the modules as it imports them)."""
    node = shutil.which("node")
    if node is None or not (PYODIDE / "pyodide.js").is_file():
        return None
    with tempfile.TemporaryDirectory(prefix="pycore-pyc-") as tmp:
        work, script = Path(tmp) / "src", Path(tmp) / "compile.cjs"
        with zipfile.ZipFile(io.BytesIO(wheel)) as zf:
            for name in zf.namelist():
                if name.endswith(".py"):
                    zf.extract(name, work)
        script.write_text(_COMPILE_JS)
        done = subprocess.run([node, str(script), str(PYODIDE), str(work)], capture_output=True,
                              text=True, timeout=300)
        tag = done.stdout.strip()
        if done.returncode != 0 or not tag:
            raise RuntimeError(f"compiling pycore with Pyodide failed: {done.stderr.strip()[-2000:]}")
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for pyc in sorted(work.rglob("*.pyc")):
                info = zipfile.ZipInfo(pyc.relative_to(work).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                zf.writestr(info, pyc.read_bytes(), zipfile.ZIP_DEFLATED)
    return tag, out.getvalue()


class PycCache:
    """The bytecode of the current wheel, built in the background (a request never waits for it):
    get() answers the file name and bytes once they are built for that wheel, else None."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._for: str | None = None  # the wheel's sha256 the build is (being) made for
        self._built: tuple[str, bytes] | None = None
        self.error: str | None = None

    def get(self, wheel: tuple[str, bytes]) -> tuple[str, bytes] | None:
        digest = hashlib.sha256(wheel[1]).hexdigest()
        with self._lock:
            if self._for != digest:
                self._for, self._built, self.error = digest, None, None
                threading.Thread(target=self._build, args=(wheel, digest), daemon=True).start()
            return self._built

    def _build(self, wheel: tuple[str, bytes], digest: str) -> None:
        try:
            made = build_pycore_bytecode(wheel[1])
            built = (f"{wheel[0][:-len('.whl')]}.{made[0]}-pyc.zip", made[1]) if made else None
            error = None if made else "no Node or no node_modules/pyodide"
        except Exception as exc:  # (the page works without it)
            built, error = None, str(exc)
        with self._lock:
            if self._for == digest:
                self._built, self.error = built, error


# ---------------------------------------------------------------- the lock file
def vendored_wheels() -> dict[str, str]:
    """file name -> sha256, as recorded in vendor/wheels/SHA256SUMS."""
    sums = {}
    for line in (WHEELS / "SHA256SUMS").read_text().splitlines():
        if line.strip():
            digest, fname = line.split()
            sums[fname.lstrip("*")] = digest
    return sums


def _wheel_facts(wheel: Path) -> tuple[list[str], list[str]]:
    """(top-level import names, names of required distributions) read from a wheel."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [line.split(":", 1)[1].strip() for line in zf.read(meta).decode().splitlines()
                    if line.startswith("Requires-Dist:") and "extra ==" not in line]
    tops = {n.split("/")[0] for n in names if n.endswith("/__init__.py")}
    imports = sorted(t for t in tops if ".dist-info" not in t and ".data" not in t)
    deps = [re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0].replace("_", "-").lower() for r in requires]
    return imports, deps


def build_lock() -> dict:
    """Pyodide's own lock file, with its package list replaced by our vendored wheels only."""
    upstream = json.loads((PYODIDE / "pyodide-lock.json").read_text())
    packages: dict[str, dict[str, Any]] = {}
    for fname, digest in vendored_wheels().items():
        dist, version = fname.split("-")[:2]
        name = dist.replace("_", "-").lower()
        imports, deps = _wheel_facts(WHEELS / fname)
        packages[name] = {
            "name": name, "version": version, "file_name": fname, "install_dir": "site",
            "sha256": digest, "package_type": "package", "imports": imports,
            "depends": deps, "unvendored_tests": False, "tool": {},
        }
    for pkg in packages.values():  # only what we vendor can be loaded
        missing = [d for d in pkg["depends"] if d not in packages]
        if missing:
            raise RuntimeError(f"vendor/wheels: {pkg['file_name']} needs {missing}, which are not vendored")
    return {"info": upstream["info"], "packages": packages}


# ---------------------------------------------------------------- Pyodide's own console page
CONSOLE_CDN = {  # what node_modules/pyodide/console.html loads from a CDN -> the same files from npm
    r"https://cdn\.jsdelivr\.net/npm/jquery@[\d.]+": "/npm/jquery/jquery.min.js",
    r"https://cdn\.jsdelivr\.net/npm/jquery\.terminal@[\d.]+/js/jquery\.terminal\.min\.js":
        "/npm/jquery.terminal/js/jquery.terminal.min.js",
    r"https://cdn\.jsdelivr\.net/npm/jquery\.terminal@[\d.]+/js/unix_formatting\.min\.js":
        "/npm/jquery.terminal/js/unix_formatting.js",
    r"https://cdn\.jsdelivr\.net/npm/jquery\.terminal@[\d.]+/css/jquery\.terminal\.min\.css":
        "/npm/jquery.terminal/css/jquery.terminal.min.css",
}


def pyodide_console_page() -> bytes:
    """node_modules/pyodide/console.html with its CDN scripts and styles served from npm instead.
    Raises if the page still loads anything from elsewhere (a new Pyodide may add a dependency)."""
    page = (PYODIDE / "console.html").read_text()
    for pattern, local in CONSOLE_CDN.items():
        page = re.sub(pattern + r'(?=")', local, page)
    remote = re.findall(r'<(?:script[^>]*\ssrc|link[^>]*\shref)="(https?://[^"]+)"', page)
    if remote:
        raise RuntimeError(f"node_modules/pyodide/console.html loads {remote}, which serve.py does not "
                           "serve locally; add it to CONSOLE_CDN")
    return page.encode()


# ---------------------------------------------------------------- the HTTP side
VERSIONED = "/pyodide@"  # /pyodide@<installed version>/...: Pyodide's files under a URL of their own


@functools.cache
def pyodide_version() -> str | None:
    """The installed Pyodide's version (node_modules/pyodide/package.json), or None."""
    try:
        return str(json.loads((PYODIDE / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def immutable(url_path: str) -> bool:
    """Whether a response may be cached for good: Pyodide's files under their versioned URL (a
    new version is a new URL), so the browser keeps them, and its compiled WebAssembly, without
    asking again."""
    return url_path.startswith(VERSIONED)


def resolve(url_path: str) -> Path | None:
    """Map a URL path to a file under one of MOUNTS, or None (a 404).

    The path is percent-decoded once; any '..' segment, backslash or NUL is refused outright
    (no normalising them away), and the result must still lie inside its mount after symlinks."""
    path = urllib.parse.unquote(url_path, errors="strict")
    if "\\" in path or "\0" in path or not path.startswith("/"):
        return None
    if any(seg in ("..", ".") or len(seg.encode()) > 255 for seg in path.split("/")):
        return None  # (a segment over 255 bytes is no file name: the OS would refuse it)
    trailing = "/" if path.endswith("/") and path != "/" else ""
    path = posixpath.normpath(path) + trailing
    if path.startswith(VERSIONED):  # only the installed version: another one's files are not here
        version, _, rest = path[len(VERSIONED):].partition("/")
        if version != pyodide_version() or not rest:
            return None
        path = "/pyodide/" + rest
    for prefix, base in MOUNTS.items():
        if path.startswith(prefix) or path + "/" == prefix:
            rel = path[len(prefix):].lstrip("/")
            target = (base / rel) if rel else base
            try:
                if target.is_dir():
                    target = target / "index.html"
                real, real_base = target.resolve(strict=True), base.resolve(strict=True)
            except (FileNotFoundError, OSError):
                return None
            if real.is_file() and real.is_relative_to(real_base):
                return real
            return None
    return None


def host_allowed(host: str | None) -> bool:
    """Whether a request's Host header names this server by address or as localhost. A page on
    another site can point a name of its own at 127.0.0.1 (DNS rebinding) and read what is
    served; its requests carry that name, so any other name is refused.

    >>> [host_allowed(h) for h in ("127.0.0.1:8000", "localhost", "[::1]:80", "evil.example:8000")]
    [True, True, True, False]
    """
    if host is None:  # HTTP/1.0 without Host: not a browser
        return True
    name = host.strip().lower()
    if name.startswith("["):
        name = name[1:name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":")[0]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def mime_type(path: str) -> str:
    return MIME_TYPES.get(posixpath.splitext(path)[1].lower(), OCTET)


class _RequestReader(io.RawIOBase):
    """The connection's reads for one handler: each waits at most the handler's `timeout`, and
    while a request's line and headers are awaited (its `deadline` set) no longer than until the
    deadline, so a client trickling a byte at a time is cut off too."""

    def __init__(self, sock: socket.socket, handler: Handler) -> None:
        self.sock, self.handler = sock, handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        wait, deadline = self.handler.timeout, self.handler.deadline
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the request did not arrive within {self.handler.request_timeout:g} s")
            wait = left if wait is None else min(wait, left)
        self.sock.settimeout(wait)
        return self.sock.recv_into(buffer)


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "pycore-serve"
    wheels = WheelCache()
    pycs = PycCache()
    quiet = False
    timeout = IO_TIMEOUT_S  # seconds a read or write may make no progress before the connection closes
    request_timeout = REQUEST_TIMEOUT_S  # seconds for a request's line and headers to arrive in full
    deadline: float | None = None  # when the request being read must have arrived (monotonic)

    def setup(self) -> None:
        super().setup()
        self.rfile = io.BufferedReader(_RequestReader(self.connection, self))

    def handle_one_request(self) -> None:
        self.deadline = time.monotonic() + self.request_timeout
        super().handle_one_request()

    def parse_request(self) -> bool:
        ok = super().parse_request()  # (reads the headers: the request has arrived)
        self.deadline = None
        self.connection.settimeout(self.timeout)  # (for the writes)
        return ok

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def do_GET(self) -> None:
        self._serve(head=False)

    def _serve(self, head: bool) -> None:
        if not host_allowed(self.headers.get("Host")):
            return self._send(403, b"403 this server answers only to localhost and IP addresses\n",
                              "text/plain; charset=utf-8", head)
        try:
            url_path = urllib.parse.urlsplit(self.path).path
        except ValueError:  # (e.g. "GET http://[::1 HTTP/1.1": an unclosed IPv6 address)
            return self._send(400, b"400 bad request\n", "text/plain; charset=utf-8", head)
        try:
            body, ctype = self._generated(url_path) or self._static(url_path)
        except FileNotFoundError:
            return self._send(404, b"404 not found\n", "text/plain; charset=utf-8", head)
        except Exception:  # (a broken build, say): why goes to the log (even with --quiet), not the page
            when = self.log_date_time_string()
            sys.stderr.write(f"{when} 500 for {self.path!r}:\n{traceback.format_exc()}")
            return self._send(500, b"500 internal server error (the server's log says why)\n",
                              "text/plain; charset=utf-8", head)
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        if self.headers.get("If-None-Match") == etag:
            return self._send(304, b"", ctype, head=True, etag=etag)
        self._send(200, body, ctype, head, etag=etag)

    def _generated(self, url_path: str) -> tuple[bytes, str] | None:
        if url_path in ("/pyodide-lock.json", "/pyodide/pyodide-lock.json"):
            return json.dumps(build_lock(), indent=1).encode(), MIME_TYPES[".json"]
        if url_path == "/pyodide/console.html":
            return pyodide_console_page(), MIME_TYPES[".html"]
        if url_path.startswith("/pyodide/") and url_path[len("/pyodide/"):] in vendored_wheels():
            return (WHEELS / url_path[len("/pyodide/"):]).read_bytes(), MIME_TYPES[".whl"]
        if url_path.startswith("/wheels/pycore-"):
            wheel = self.wheels.get()
            if url_path == "/wheels/" + wheel[0]:
                return wheel[1], MIME_TYPES[".whl"]
            pyc = self.pycs.get(wheel)
            if pyc is not None and url_path == "/wheels/" + pyc[0]:
                return pyc[1], OCTET
            raise FileNotFoundError(url_path)
        if url_path == "/pycore-wheel.json":  # tells the page the current wheel (and its bytecode)
            wheel = self.wheels.get()
            pyc = self.pycs.get(wheel)
            found = {"url": "/wheels/" + wheel[0]} | ({"bytecode": "/wheels/" + pyc[0]} if pyc else {})
            return json.dumps(found).encode(), MIME_TYPES[".json"]
        return None

    def _static(self, url_path: str) -> tuple[bytes, str]:
        try:
            target = resolve(url_path)
        except UnicodeDecodeError:
            target = None
        if target is None:
            raise FileNotFoundError(url_path)
        return target.read_bytes(), mime_type(target.name)

    def _send(self, code: int, body: bytes, ctype: str, head: bool, etag: str | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        # revalidate by ETag (edits show on reload), except what a versioned URL names
        self.send_header("Cache-Control", "public, max-age=31536000, immutable"
                         if code == 200 and immutable(self.path) else "no-cache")
        if etag:
            self.send_header("ETag", etag)
        for name, value in ISOLATION_HEADERS.items():
            if name != "Cross-Origin-Embedder-Policy" or not self.path.startswith("/lite/"):
                self.send_header(name, value)
        self.end_headers()
        if not head and code != 304:
            with memoryview(body) as view:  # (each piece within the timeout: a reader that stops is let go)
                for start in range(0, len(view), SEND_CHUNK):
                    self.wfile.write(view[start:start + SEND_CHUNK])

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        if not self.quiet:
            sys.stderr.write(f"{self.log_date_time_string()} {format % args}\n")


def open_browser(url: str) -> None:
    """Open `url` in the default browser, or say that none could be opened."""
    try:
        opened = webbrowser.open(url)
    except Exception:  # (webbrowser raises on some broken setups)
        opened = False
    if not opened:
        print(f"pycore: no browser could be opened here; open {url} yourself", flush=True)


def prepare_wheel() -> None:
    """Build the wheel and start its bytecode now rather than on the first page load."""
    try:
        Handler.pycs.get(Handler.wheels.get())
    except Exception:  # (a broken build is reported to the request that needs it)
        pass


class Server(http.server.ThreadingHTTPServer):
    """A thread per connection, at most `handlers` at once (see the module doc): a connection
    beyond them waits up to `slot_wait_s` for one to finish, else is answered 503 and closed."""

    daemon_threads = True
    request_queue_size = LISTEN_QUEUE

    def __init__(self, address: tuple[str, int], handlers: int = MAX_HANDLERS,
                 slot_wait_s: float = SLOT_WAIT_S) -> None:
        self.slots = threading.BoundedSemaphore(handlers)
        self.slot_wait_s = slot_wait_s
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(timeout=self.slot_wait_s):
            self._refuse(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)  # (starts the handler's thread)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    @staticmethod
    def _refuse(request: socket.socket) -> None:
        """A 503 written without a thread (what the client sent is read first where it has
        arrived, so that closing does not reset the connection before the answer is read)."""
        body = b"503 the server is busy; try again\n"
        head = (f"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
        try:
            request.setblocking(False)
            try:
                request.recv(65536)
            except OSError:
                pass
            request.settimeout(1.0)
            request.sendall(head.encode() + body)
        except OSError:
            pass


def make_server(host: str, port: int, quiet: bool = False, handlers: int = MAX_HANDLERS,
                slot_wait_s: float = SLOT_WAIT_S) -> Server:
    Handler.quiet = quiet
    return Server((host, port), handlers, slot_wait_s)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    ap.add_argument("--port", type=int, default=8000, help="port (0 picks a free one)")
    ap.add_argument("--open", action="store_true", help="open the page in a browser")
    ap.add_argument("--quiet", action="store_true", help="do not log each request")
    ap.add_argument("--path", default="/", help="the page to print and open (default: /)")
    args = ap.parse_args(argv)

    prepare_node_modules()
    try:
        server = make_server(args.host, args.port, args.quiet)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(f"serve.py: port {args.port} on {args.host} is in use (another serve.py?); "
                  f"pick another with --port, e.g. --port {args.port + 1}", file=sys.stderr)
            return 1
        print(f"serve.py: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    host, port = cast(tuple[str, int], server.server_address[:2])  # (an IP socket's: a str host)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}{args.path}"
    try:
        print(f"pycore: serving {ROOT.name} at {url}  (Ctrl+C stops)", flush=True)
        threading.Thread(target=prepare_wheel, daemon=True).start()
        if args.open:
            threading.Timer(0.3, open_browser, args=(url,)).start()
        server.serve_forever()
    except KeyboardInterrupt:
        print("\npycore: stopped", flush=True)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())

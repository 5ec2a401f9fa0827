"""serve.py: what it serves, what it refuses, the lock file and the pycore wheel."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from io import BytesIO
from types import SimpleNamespace

import pytest

import serve
from tests.conftest import ROOT


def get(server, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(method, path)  # sent as-is: no client-side normalising of '..'
    res = conn.getresponse()
    body = res.read()
    conn.close()
    return res.status, {k.lower(): v for k, v in res.getheaders()}, body


@pytest.mark.parametrize("path", [
    "/../serve.py", "/..%2fserve.py", "/%2e%2e/serve.py", "/%2E%2E%2Fpyproject.toml",
    "/pyodide/../../serve.py", "/pyodide/%2e%2e/%2e%2e/serve.py", "/wheels/..%5c..%5cserve.py",
    "/web/index.html", "/pycore/__init__.py", "/serve.py", "/node_modules/pyodide/pyodide.mjs",
    "/.git/HEAD", "/%00index.html", "/index.html%00.png", "/nope.html", "/%ff%fe",
    "/shaders/../pycore/tables/ops.py", "/./index.html",
])
def test_paths_outside_the_web_roots_are_404(server, path):
    status, _, body = get(server, path)
    assert status == 404, (path, body[:80])


def test_resolve_refuses_escapes_without_a_server():
    assert serve.resolve("/index.html") == (ROOT / "web" / "index.html").resolve()
    assert serve.resolve("/") == (ROOT / "web" / "index.html").resolve()
    for bad in ["/../README.md", "/..%2FREADME.md", "/a/..%2f..%2fREADME.md", "/%5c..%5cREADME.md",
                "//etc/passwd"]:
        assert serve.resolve(bad) is None, bad


@pytest.mark.parametrize("path, mime", [
    ("/", "text/html"),
    ("/index.html", "text/html"),
    ("/boot.js", "text/javascript"),
    ("/pyodide/pyodide.mjs", "text/javascript"),
    ("/pyodide/pyodide.asm.wasm", "application/wasm"),
    ("/pyodide/python_stdlib.zip", "application/zip"),
    ("/shaders/elementwise.wgsl", "text/wgsl"),
    ("/wheels/numpy-2.4.6-cp314-cp314-pyemscripten_2026_0_wasm32.whl", "application/zip"),
    ("/pyodide-lock.json", "application/json"),
    ("/console.py", "text/x-python"),
])
def test_mime_types(server, path, mime):
    status, headers, body = get(server, path, "HEAD")
    assert status == 200
    assert headers["content-type"].split(";")[0] == mime
    assert int(headers["content-length"]) > 0 and body == b""


def test_etag_revalidation(server):
    _, headers, _ = get(server, "/index.html")
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", "/index.html", headers={"If-None-Match": headers["etag"]})
    assert conn.getresponse().status == 304
    assert headers["cache-control"] == "no-cache"


def test_isolation_headers_on_every_response(server):
    for path in ("/", "/pyodide/pyodide.asm.wasm", "/no-such-file"):
        _, headers, _ = get(server, path, "HEAD")
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert headers["cross-origin-embedder-policy"] == "require-corp"


def test_the_jupyterlite_site_is_served_without_coep():
    # JupyterLite's cross-origin-isolated kernel stops replying after a WebGPU call (README): /lite/
    # keeps the other two headers but not COEP, so its kernel runs in its plain worker.
    handler = serve.Handler.__new__(serve.Handler)
    sent: dict[str, str] = {}
    handler.send_response = lambda code: None
    handler.send_header = lambda name, value: sent.__setitem__(name.lower(), value)
    handler.end_headers = lambda: None
    handler.wfile = BytesIO()
    for path, coep in (("/lite/index.html", False), ("/index.html", True)):
        sent.clear()
        handler.path = path
        handler._send(200, b"x", "text/html", head=True)
        assert sent["cross-origin-opener-policy"] == "same-origin"
        assert ("cross-origin-embedder-policy" in sent) == coep, path


def test_pyodides_own_console_page_loads_nothing_from_elsewhere(server):
    status, _, page = get(server, "/pyodide/console.html")
    assert status == 200
    text = page.decode()
    assert "cdn." not in text and 'src="/npm/jquery/jquery.min.js"' in text
    for url in ("/npm/jquery/jquery.min.js", "/npm/jquery.terminal/js/jquery.terminal.min.js",
                "/npm/jquery.terminal/js/unix_formatting.js",
                "/npm/jquery.terminal/css/jquery.terminal.min.css"):
        assert get(server, url, "HEAD")[0] == 200, url
    # its lock file lists the vendored wheels, served beside it with their recorded hashes
    _, _, body = get(server, "/pyodide/pyodide-lock.json")
    lock = json.loads(body)
    for pkg in lock["packages"].values():
        st, _, wheel = get(server, "/pyodide/" + pkg["file_name"])
        assert st == 200 and hashlib.sha256(wheel).hexdigest() == pkg["sha256"]


def test_vendored_wheels_match_their_recorded_sha256():
    sums = serve.vendored_wheels()
    assert set(sums) == {p.name for p in serve.WHEELS.glob("*.whl")}
    for name, digest in sums.items():
        assert hashlib.sha256((serve.WHEELS / name).read_bytes()).hexdigest() == digest, name


def test_lock_file_lists_only_local_wheels_with_their_hashes(server):
    status, _, body = get(server, "/pyodide-lock.json")
    lock = json.loads(body)
    assert status == 200 and lock["info"]["python"].startswith("3.14")
    assert {"numpy", "micropip", "packaging"} <= set(lock["packages"])
    for pkg in lock["packages"].values():
        assert "/" not in pkg["file_name"], "served relative to /wheels/, never from elsewhere"
        st, _, wheel = get(server, "/wheels/" + pkg["file_name"])
        assert st == 200 and hashlib.sha256(wheel).hexdigest() == pkg["sha256"]
    assert lock["packages"]["numpy"]["imports"] == ["numpy"]


def test_pycore_wheel_carries_the_package_the_bridge_and_the_shaders(server):
    _, _, body = get(server, "/pycore-wheel.json")
    url = json.loads(body)["url"]
    status, _headers, wheel = get(server, url)
    assert status == 200 and url.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(BytesIO(wheel)).namelist()
    assert "pycore/__init__.py" in names and "pycore/engine/browser.py" in names
    bridge = zipfile.ZipFile(BytesIO(wheel)).read("pycore/engine/bridge.js")  # the browser transport's JS
    assert bridge == (ROOT / "pycore" / "engine" / "bridge.js").read_bytes()
    shaders = {p.name for p in (ROOT / "shaders").glob("*.wgsl")}
    assert shaders and {f"pycore/shaders/{s}" for s in shaders} <= set(names)
    record = zipfile.ZipFile(BytesIO(wheel)).read(next(n for n in names if n.endswith("RECORD"))).decode()
    assert all(line.split(",")[0] in names for line in record.splitlines())


def wheel_facts(server, timeout: float = 180.0) -> dict:
    """/pycore-wheel.json once it names the wheel's bytecode (serve.py builds it in the background)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        facts = json.loads(get(server, "/pycore-wheel.json")[2])
        if "bytecode" in facts or time.monotonic() > deadline:
            return facts
        time.sleep(0.5)


def test_the_wheels_modules_come_compiled_by_pyodide_as_checked_hash_pycs(server):
    facts = wheel_facts(server)
    assert facts.get("bytecode", "").endswith(".cpython-314-pyc.zip"), facts
    wheel = zipfile.ZipFile(BytesIO(get(server, facts["url"])[2]))
    status, _, body = get(server, facts["bytecode"])
    assert status == 200
    pycs = zipfile.ZipFile(BytesIO(body))
    modules = [n for n in wheel.namelist() if n.endswith(".py")]
    want = {f"{n.rsplit('/', 1)[0]}/__pycache__/{n.rsplit('/', 1)[1][:-3]}.cpython-314.pyc" for n in modules}
    assert set(pycs.namelist()) == want
    for name in want:  # PEP 552 flags 0b11: hash-based, checked against the source on import
        assert int.from_bytes(pycs.read(name)[4:8], "little") == 3, name


def test_wheel_is_the_reproducible_standard_build_and_is_rebuilt_when_a_shader_changes(
        tmp_path, monkeypatch):
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "pycore", tmp_path / "pycore", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "shaders", tmp_path / "shaders")
    monkeypatch.setattr(serve, "ROOT", tmp_path)
    monkeypatch.setattr(serve, "PACKAGE", tmp_path / "pycore")
    monkeypatch.setattr(serve, "SHADERS", tmp_path / "shaders")
    cache = serve.WheelCache()
    name, first = cache.get()
    assert name == f"pycore-{serve.project_meta()[1]}-py3-none-any.whl"
    assert cache.get()[1] is first  # unchanged sources: not rebuilt
    assert serve.build_pycore_wheel()[1] == first  # a build again gives the same bytes
    wheel = zipfile.ZipFile(BytesIO(first))
    assert "Generator: hatchling" in wheel.read(f"pycore-{serve.project_meta()[1]}.dist-info/WHEEL").decode()
    shader = tmp_path / "shaders" / "common.wgsl"
    shader.write_text(shader.read_text() + "\n// changed\n")
    second = cache.get()[1]
    assert second != first
    assert zipfile.ZipFile(BytesIO(second)).read("pycore/shaders/common.wgsl").endswith(b"// changed\n")


def test_node_modules_staleness(monkeypatch, tmp_path):
    monkeypatch.setattr(serve, "ROOT", tmp_path)
    monkeypatch.setattr(serve, "PYODIDE", tmp_path / "node_modules" / "pyodide")
    (tmp_path / "package-lock.json").write_text("{}")
    assert "missing" in serve.node_modules_stale()
    serve.PYODIDE.mkdir(parents=True)
    (serve.PYODIDE / "pyodide.mjs").write_text("")
    (tmp_path / "node_modules" / ".package-lock.json").write_text("{}")
    assert serve.node_modules_stale() is None


def test_binds_loopback_by_default_and_stops_cleanly_on_ctrl_c():
    proc = subprocess.Popen([sys.executable, "-u", "serve.py", "--port", "0", "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    assert "http://127.0.0.1:" in line
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and "stopped" in out and "Traceback" not in out


def test_overlong_path_segments_are_404_and_errors_never_show_the_checkout(server):
    for path in ["/" + "a" * 300, "/pyodide/" + "b" * 256 + "/x.js", "/" + "%41" * 260]:
        status, _, body = get(server, path)
        assert status == 404, (path[:40], body[:80])
        assert str(ROOT).encode() not in body


def request_with_host(server, host: str) -> int:
    hostname, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(hostname, int(port), timeout=30)
    conn.putrequest("GET", "/index.html", skip_host=True)
    conn.putheader("Host", host)
    conn.endheaders()
    status = conn.getresponse().status
    conn.close()
    return status


@pytest.mark.parametrize("host, status", [
    ("127.0.0.1:8000", 200), ("localhost:8000", 200), ("LOCALHOST", 200), ("[::1]:8000", 200),
    ("app.localhost", 200), ("evil.example", 403), ("evil.example:8000", 403), ("127.0.0.1.nip.io", 403),
])
def test_only_loopback_names_and_addresses_are_answered(server, host, status):
    # A DNS-rebinding page reaches 127.0.0.1 under a name of its own: that name is refused.
    assert request_with_host(server, host) == status


def test_idle_connections_are_closed():
    import socket
    import time

    assert serve.Handler.timeout and serve.Handler.timeout <= 60
    srv = serve.make_server("127.0.0.1", 0, quiet=True)
    saved, serve.Handler.timeout = serve.Handler.timeout, 0.5
    thread = __import__("threading").Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        sock = socket.create_connection(srv.server_address[:2])
        sock.settimeout(5)
        start = time.monotonic()
        assert sock.recv(1) == b""  # the server hung up on the silent client
        assert time.monotonic() - start < 4
        sock.close()
    finally:
        serve.Handler.timeout = saved
        srv.shutdown()
        srv.server_close()


def test_a_port_in_use_is_one_line_naming_it(capsys):
    taken = serve.make_server("127.0.0.1", 0, quiet=True)
    port = taken.server_address[1]
    try:
        assert serve.main(["--port", str(port), "--quiet"]) == 1
    finally:
        taken.server_close()
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"port {port}" in err and "--port" in err and "Traceback" not in err


def test_pyodide_under_its_versioned_url_is_cached_for_good_and_only_that_version(server):
    version = serve.pyodide_version()
    assert version and version == json.loads((serve.PYODIDE / "package.json").read_text())["version"]
    status, headers, _ = get(server, f"/pyodide@{version}/pyodide.asm.wasm", "HEAD")
    assert status == 200 and headers["content-type"] == "application/wasm"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    _, plain, _ = get(server, "/pyodide/pyodide.asm.wasm", "HEAD")
    assert plain["cache-control"] == "no-cache"  # (the unversioned name may change meaning)
    for other in ("/pyodide@0.0.1/pyodide.asm.wasm", f"/pyodide@{version}/",
                  f"/pyodide@{version}/../serve.py", f"/pyodide@{version}"):
        st, headers, _ = get(server, other, "HEAD")
        assert st == 404 and headers["cache-control"] == "no-cache", other


# ---------------------------------------------------------------- slow, stalled and many clients
@contextlib.contextmanager
def running(**options):
    """serve.py's server in this process on 127.0.0.1, stopped (and its threads joined) after."""
    srv = serve.make_server("127.0.0.1", 0, quiet=True, **options)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(10)


def handler_threads() -> int:
    return sum("process_request_thread" in t.name for t in threading.enumerate() if t.is_alive())


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has hung up (reading what it sent, without waiting)."""
    while select.select([sock], [], [], 0)[0]:
        try:
            if not sock.recv(65536):
                return True
        except OSError:
            return True
    return False


def raw_request(srv, data: bytes) -> bytes:
    with socket.create_connection(srv.server_address[:2], timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_timeouts_are_short_by_default():
    assert serve.Handler.timeout == serve.IO_TIMEOUT_S <= 10
    assert serve.Handler.request_timeout == serve.REQUEST_TIMEOUT_S <= 10


def test_a_request_trickling_in_is_cut_off(monkeypatch):
    # slowloris: a byte every 0.1 s keeps each read within the I/O timeout, never the request's
    monkeypatch.setattr(serve.Handler, "request_timeout", 1.0, raising=False)
    monkeypatch.setattr(serve.Handler, "timeout", 5.0)
    with running() as srv, socket.create_connection(srv.server_address[:2]) as sock:
        start = time.monotonic()
        trickle = b"GET /index.html HTTP/1.1\r\n" + b"X-Slow: y\r\n" * 100
        closed = False
        for byte in trickle:
            if time.monotonic() - start > 6:
                break
            try:
                sock.send(bytes([byte]))
            except OSError:
                closed = True
                break
            if closed_by_server(sock):
                closed = True
                break
            time.sleep(0.1)
        assert closed and time.monotonic() - start < 3


def test_handler_threads_are_bounded_and_excess_connections_wait_then_get_503(monkeypatch):
    monkeypatch.setattr(serve.Handler, "request_timeout", 30.0, raising=False)
    with running(handlers=3, slot_wait_s=0.3) as srv:
        address = srv.server_address[:2]
        holders = [socket.create_connection(address) for _ in range(3)]  # silent: each holds a handler
        extra = [socket.create_connection(address) for _ in range(3)]
        try:
            time.sleep(0.5)
            assert handler_threads() == 3
            status, _, body = get(srv_url(srv), "/index.html")
            assert status == 503 and b"busy" in body
            assert handler_threads() == 3
            for sock in extra:  # (answered 503 meanwhile, each after waiting slot_wait_s)
                sock.settimeout(5)
                assert sock.recv(100).startswith(b"HTTP/1.0 503")
        finally:
            for sock in holders + extra:
                sock.close()
        deadline = time.monotonic() + 5
        while handler_threads() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert get(srv_url(srv), "/index.html")[0] == 200  # the handlers are free again


def srv_url(srv) -> SimpleNamespace:
    host, port = srv.server_address[:2]
    return SimpleNamespace(url=f"http://{host}:{port}")


def test_a_client_that_stops_reading_a_large_file_is_dropped(monkeypatch):
    monkeypatch.setattr(serve.Handler, "timeout", 1.0)
    with running() as srv:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(srv.server_address[:2])
        try:
            sock.sendall(b"GET /pyodide/pyodide.asm.wasm HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            time.sleep(0.3)
            assert handler_threads() == 1  # writing 9.6 MB the client does not read
            start = time.monotonic()
            while handler_threads() and time.monotonic() - start < 5:
                time.sleep(0.05)
            assert handler_threads() == 0 and time.monotonic() - start < 3  # let go, its memory with it
        finally:
            sock.close()


def test_a_slow_but_steady_reader_gets_the_whole_file(monkeypatch):
    # the timeout is for a write that makes no progress, not for the whole response
    monkeypatch.setattr(serve.Handler, "timeout", 0.5)
    want = (serve.PYODIDE / "pyodide.asm.wasm").read_bytes()
    with running() as srv:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
        sock.settimeout(5)
        sock.connect(srv.server_address[:2])
        with sock:
            sock.sendall(b"GET /pyodide/pyodide.asm.wasm HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            start, got = time.monotonic(), bytearray()
            while chunk := sock.recv(64 << 10):
                got += chunk
                time.sleep(0.02)  # at most 3.2 MB/s: the 9.6 MB take about 3 s, a 256 KiB piece 0.1 s
            assert time.monotonic() - start > 1.5
    assert got.endswith(want)


def test_a_500_names_no_path_and_shows_no_traceback(monkeypatch, capsys):
    def broken() -> dict:
        raise RuntimeError(f"cannot read {serve.ROOT}/vendor/wheels/x.whl nor /etc/secret/place")

    monkeypatch.setattr(serve, "build_lock", broken)
    with running() as srv:
        status, headers, body = get(srv_url(srv), "/pyodide-lock.json")
    assert status == 500 and headers["content-type"].startswith("text/plain")
    assert body == b"500 internal server error (the server's log says why)\n"
    log = capsys.readouterr().err
    assert "/etc/secret/place" in log and "Traceback" in log and "RuntimeError" in log


@pytest.mark.parametrize("line", [b"GET http://[::1 HTTP/1.1", b"HEAD http://[ HTTP/1.0",
                                  b"GET http://a]b/index.html HTTP/1.1"])
def test_a_malformed_request_target_is_400(line):
    with running() as srv:
        reply = raw_request(srv, line + b"\r\nHost: 127.0.0.1\r\n\r\n")
        assert reply.split(b"\r\n", 1)[0].split()[1] == b"400", reply[:200]
        assert get(srv_url(srv), "/index.html")[0] == 200  # the server goes on


def test_300_concurrent_requests_are_all_answered():
    # (with a listen queue of 5, about half of them timed out, even given 10 s)
    with running() as srv:
        n = 300
        barrier = threading.Barrier(n)
        statuses: list[int | str] = []

        def one() -> None:
            host, port = srv.server_address[:2]
            try:
                barrier.wait(10)
                conn = http.client.HTTPConnection(host, port, timeout=10)
                conn.request("GET", "/boot.js")
                res = conn.getresponse()
                res.read()
                statuses.append(res.status)
                conn.close()
            except Exception as exc:
                statuses.append(f"{type(exc).__name__}: {exc}")

        clients = [threading.Thread(target=one) for _ in range(n)]
        for t in clients:
            t.start()
        for t in clients:
            t.join(60)
    assert statuses == [200] * n, sorted(set(map(str, statuses)))
    assert srv.request_queue_size >= 128

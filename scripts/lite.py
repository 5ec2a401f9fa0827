#!/usr/bin/env python3
"""Build the offline JupyterLite site with pycore, then serve it:

    python3 scripts/lite.py [--open] [--port 8000] [--build-only]

What goes into build/lite/ (nothing is fetched from a CDN; the packages below come from PyPI and
npm once, then from local caches):
  - JupyterLite (jupyterlite-core and jupyterlite-pyodide-kernel, pinned in pyproject.toml's `lite`
    extra), installed into .venv if the running Python lacks them;
  - Pyodide from node_modules/pyodide, as static/pyodide/, with the project's vendored wheels
    (NumPy, micropip, packaging) and a lock file that lists only those;
  - the pycore wheel (the standard build of pyproject.toml, the file serve.py serves too) and the
    pure-Python wheels the kernel itself installs (IPython and its dependencies, pinned below),
    offered to `%pip install` through piplite, with the fallback to PyPI switched off;
  - the notebooks of examples/.
The site is static: serve.py serves it at /lite/ (and any static server can serve build/lite/).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import serve  # noqa: E402  (the lock file, the wheel, node_modules: made as serve.py makes them)

BUILD = ROOT / "build"
OUT = BUILD / "lite"
STAGE = BUILD / "lite-src"  # the JupyterLite "lite dir": its config and static/pyodide
CACHE = BUILD / "lite-wheels"  # the kernel's own wheels, downloaded once
EXAMPLES = ROOT / "examples"
KERNEL_ID = "@jupyterlite/pyodide-kernel-extension:kernel"
# What the Pyodide kernel installs at its start (ipykernel, comm, pyodide-kernel, jedi, ipython)
# needs these from PyPI (pure Python; ipykernel, piplite and pyodide-kernel come with the kernel).
KERNEL_WHEELS = [
    "asttokens==3.0.2", "comm==0.2.3", "decorator==5.3.1", "executing==2.3.0", "ipython==9.12.0",
    "ipython-pygments-lexers==1.1.1", "jedi==0.20.1", "matplotlib-inline==0.2.2", "parso==0.8.7",
    "pexpect==4.9.0", "prompt-toolkit==3.0.53", "ptyprocess==0.7.0", "pure-eval==0.2.4",
    "pygments==2.21.0", "stack-data==0.6.3", "traitlets==5.16.1", "wcwidth==0.9.4",
]
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide.js", "package.json")


def lite_requirements() -> list[str]:
    """The JupyterLite packages pinned in pyproject.toml's `lite` extra."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return list(meta["optional-dependencies"]["lite"])


def ensure_jupyterlite(argv: list[str]) -> None:
    """Run under a Python that has JupyterLite: this one, or .venv (made and filled if need be)."""
    needed = ("jupyterlite_core", "jupyterlite_pyodide_kernel", "jupyter_server")
    if all(importlib.util.find_spec(m) for m in needed):
        return
    venv_python = ROOT / ".venv" / "bin" / "python"
    if Path(sys.executable).resolve() == venv_python.resolve() and os.environ.get("PYCORE_LITE_BOOTSTRAPPED"):
        sys.exit("scripts/lite.py: JupyterLite is still missing from .venv after installing it")
    if not venv_python.exists():
        print("scripts/lite.py: making .venv ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(ROOT / ".venv")], check=True)
    print(f"scripts/lite.py: installing {', '.join(lite_requirements())} into .venv ...", flush=True)
    subprocess.run([str(venv_python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *lite_requirements()], check=True)
    os.environ["PYCORE_LITE_BOOTSTRAPPED"] = "1"
    os.execv(str(venv_python), [str(venv_python), str(Path(__file__).resolve()), *argv])


def kernel_wheels() -> list[Path]:
    """KERNEL_WHEELS as files in CACHE, downloaded from PyPI the first time."""
    def present() -> list[Path]:
        found = []
        for spec in KERNEL_WHEELS:
            name, version = spec.split("==")
            stem = f"{name.replace('-', '_')}-{version}-"
            found += [p for p in CACHE.glob("*.whl") if p.name.lower().startswith(stem.lower())]
        return found

    if len(present()) < len(KERNEL_WHEELS):
        CACHE.mkdir(parents=True, exist_ok=True)
        print(f"scripts/lite.py: downloading {len(KERNEL_WHEELS)} pure-Python wheels for the kernel ...",
              flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--no-deps", "--only-binary=:all:", "--python-version", "3.14", "--implementation",
                        "py", "--abi", "none", "--platform", "any", "-d", str(CACHE), *KERNEL_WHEELS],
                       check=True)
    found = present()
    if len(found) != len(KERNEL_WHEELS):
        sys.exit(f"scripts/lite.py: expected {len(KERNEL_WHEELS)} wheels in {CACHE}, found {len(found)}")
    return found


def stage_pyodide(dest: Path) -> None:
    """Pyodide's runtime files, the vendored wheels and a lock file listing only those."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(serve.PYODIDE / name, dest / name)
    for fname in serve.vendored_wheels():
        shutil.copy2(serve.WHEELS / fname, dest / fname)
    (dest / "pyodide-lock.json").write_text(json.dumps(serve.build_lock()))


def build(out: Path = OUT) -> Path:
    """Build the site into `out`; returns it."""
    serve.prepare_node_modules()
    wheels = BUILD / "lite-pycore"
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    name, data = serve.build_pycore_wheel()
    (wheels / name).write_bytes(data)
    if STAGE.exists():
        shutil.rmtree(STAGE)
    stage_pyodide(STAGE / "static" / "pyodide")
    (STAGE / "jupyter-lite.json").write_text(json.dumps({
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "pycore",
            "litePluginSettings": {KERNEL_ID: {"disablePyPIFallback": True}},
        },
    }, indent=1))
    # every cell rendered (not only those in view): a short notebook, and its outputs findable
    (STAGE / "overrides.json").write_text(json.dumps({
        "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}, indent=1))
    (STAGE / "jupyter_lite_config.json").write_text(json.dumps({
        "LiteBuildConfig": {
            "contents": [str(p) for p in sorted(EXAMPLES.glob("*.ipynb"))],
            "output_dir": str(out),
            "no_sourcemaps": True,
        },
        "PipliteAddon": {"piplite_urls": [str(p) for p in [wheels / name, *kernel_wheels()]]},
    }, indent=1))
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [str(jupyter) if jupyter.exists() else "jupyter", "lite", "build", "--lite-dir", str(STAGE)]
    print(f"scripts/lite.py: {' '.join(cmd[1:3])} -> {out.relative_to(ROOT)}", flush=True)
    done = subprocess.run(cmd, cwd=STAGE, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"scripts/lite.py: jupyter lite build failed ({done.returncode}):\n"
                 f"{(done.stdout + done.stderr)[-4000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-only", action="store_true", help="build build/lite/ and stop")
    ap.add_argument("--open", action="store_true", help="open the notebook in a browser")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    args = ap.parse_args(argv)
    ensure_jupyterlite(argv)
    build()
    if args.build_only:
        return 0
    serve_args = ["--host", args.host, "--port", str(args.port), "--path", serve.LITE_NOTEBOOK]
    return serve.main(serve_args + (["--open"] if args.open else []))


if __name__ == "__main__":
    sys.exit(main())

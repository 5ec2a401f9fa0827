#!/usr/bin/env bash
# Runs inside the sid chroot made by build-numpy-wheel.sh; /build holds python_stdlib.zip.
set -euo pipefail
cd /build
export SOURCE_DATE_EPOCH=1767225600
export PATH=/build/venv/bin:$PATH  # meson, ninja, cython
python3.14 -m venv /build/venv
/build/venv/bin/pip install -q meson-python==0.22.1 meson==1.12.1 ninja==1.13.2 cython==3.3.1 build==1.6.1
# The sdist itself, found through PyPI's simple index (pip download would build its build
# dependencies from source; the hash is checked below).
SSL_CERT_FILE=${PIP_CERT:-} /build/venv/bin/python - <<'PY'
import os, re, urllib.request
version = os.environ["NUMPY_VERSION"]
index = urllib.request.urlopen("https://pypi.org/simple/numpy/").read().decode()
url = re.search(rf'href="([^"#]*/numpy-{re.escape(version)}\.tar\.gz)', index).group(1)
urllib.request.urlretrieve(url, f"/build/numpy-{version}.tar.gz")
PY
echo "$NUMPY_SHA256  numpy-$NUMPY_VERSION.tar.gz" | sha256sum -c -
tar xzf "numpy-$NUMPY_VERSION.tar.gz"
src=/build/numpy-$NUMPY_VERSION
# Pyodide's main module exports no backtrace(): numpy must not probe for it.
sed -i "s/'backtrace',\? *//" "$src/numpy/_core/meson.build"
grep -q "'backtrace'" "$src/numpy/_core/meson.build" && { echo "backtrace patch failed" >&2; exit 1; }

# The target's sysconfig (from Pyodide's stdlib) and a pyconfig.h that matches it.
mkdir -p sysconfig include
unzip -p python_stdlib.zip _sysconfigdata__emscripten_wasm32-emscripten.py > sysconfig/_sysconfigdata__emscripten_wasm32-emscripten.py
cp -r /usr/include/python3.14/. include/
/build/venv/bin/python - <<'PY'
import re, sys
sys.path.insert(0, "/build/sysconfig")
from importlib import import_module
vars_ = import_module("_sysconfigdata__emscripten_wasm32-emscripten").build_time_vars
src = open("/usr/include/x86_64-linux-gnu/python3.14/pyconfig.h").read()
def fix(m):
    name = m.group(2)
    val = vars_.get(name)
    if isinstance(val, int) and val:
        return f"#define {name} {val}"
    if isinstance(val, str) and val:
        return f"#define {name} {val}"
    return f"/* #undef {name} */"
out = re.sub(r"^(#define|/\* #undef) (\w+)\b.*$", fix, src, flags=re.M)
open("/build/include/pyconfig.h", "w").write(out)
PY
# meson-python takes the include dir from the build Python, so the chroot's own header is replaced
# (Debian's is a multiarch wrapper that refuses wasm32); the chroot exists only for this build.
cp /build/include/pyconfig.h /usr/include/python3.14/pyconfig.h

# No exe_wrapper: every link makes a side module (-sSIDE_MODULE=1), which node cannot run, so
# meson must skip its run checks (needs_exe_wrapper without a wrapper does that).
cat > cross.ini <<'INI'
[binaries]
c = 'emcc'
cpp = 'em++'
ar = 'emar'
[host_machine]
system = 'emscripten'
cpu_family = 'wasm32'
cpu = 'wasm'
endian = 'little'
[properties]
needs_exe_wrapper = true
longdouble_format = 'IEEE_QUAD_LE'
[built-in options]
c_args = ['-O2', '-g0', '-fPIC', '-fwasm-exceptions', '-Wno-return-type']
cpp_args = ['-O2', '-g0', '-fPIC', '-fwasm-exceptions', '-Wno-return-type']
c_link_args = ['-O2', '-g0', '-sWASM_BIGINT', '-fwasm-exceptions', '-sSIDE_MODULE=1']
cpp_link_args = ['-O2', '-g0', '-sWASM_BIGINT', '-fwasm-exceptions', '-sSIDE_MODULE=1']
INI

export _PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata__emscripten_wasm32-emscripten
export _PYTHON_HOST_PLATFORM=pyemscripten_2026_0_wasm32
export PYTHONPATH=/build/sysconfig
cd "$src"
/build/venv/bin/python -m build --wheel --no-isolation --outdir /build/dist \
  -Csetup-args=--cross-file=/build/cross.ini \
  -Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none -Csetup-args=-Dallow-noblas=true \
  -Csetup-args=-Ddisable-threading=true \
  -Cinstall-args=--tags=runtime,python-runtime,devel  # no tests: Pyodide unvendors them too
ls -l /build/dist

"""pycore on the native transport (wgpu-py) in a process of its own, driven like a page: the tests
send Python snippets, one JSON line each on stdin, and read one JSON line back per snippet.

A snippet runs as Pyodide's eval_code_async runs it in the page: top-level await allowed, the value
of a final expression returned, one namespace kept between snippets. Its own prints go to stderr.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import json
import os
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def eval_code_async(code: str, namespace: dict) -> object:
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = eval(compile(tree, "<snippet>", "exec", flags=flags), namespace)
    if asyncio.iscoroutine(body):
        await body
    if last is None:
        return None
    value = eval(compile(ast.Expression(last.value), "<snippet>", "eval", flags=flags), namespace)
    return await value if asyncio.iscoroutine(value) else value


def main() -> None:
    os.environ.setdefault("PYCORE_TRANSPORT", "native")
    sys.path.insert(0, str(ROOT))
    sys.modules["pycore_reference"] = importlib.import_module("tests.reference")  # as load_reference does
    replies, sys.stdout = sys.stdout, sys.stderr
    loop = asyncio.new_event_loop()
    namespace: dict = {}
    for line in sys.stdin:
        try:
            value = loop.run_until_complete(eval_code_async(json.loads(line)["code"], namespace))
            reply = {"value": json.dumps(value, default=lambda o: o.tolist())}
        except BaseException:  # the test shows the snippet's traceback
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()

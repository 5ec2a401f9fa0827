"""A pool of GPU buffers, keyed by usage and size class, with live-byte accounting.

Creating a GPUBuffer costs a round through the browser's GPU process and a zero fill before its
first use (about 0.3 ms for 26 MB on an H200 through Dawn); reusing one is free. Sizes are rounded
up to a size class (powers of two, with four steps between each, so at most 25% slack) and a
released buffer waits on a free list for the next request of the same class. The pool's footprint
(buffers in use and free) stays within the most bytes the program had in use at once
(`peak_bytes`: its working set), or `max_free_bytes` above what it uses now, whichever is more:
free buffers past that are destroyed, oldest first, when one is released and before one is made.
So a loop whose every pass makes and drops the same large arrays reuses them all, however large,
and the pool never holds more than the program did.

The pool knows nothing of WebGPU: `create(size, usage)` and `destroy(buffer)` are given to it.

>>> made = []
>>> pool = BufferPool(lambda size, usage: made.append(size) or object(), lambda b: None)
>>> b = pool.acquire(1000, usage=1); pool.release(b); b2 = pool.acquire(900, usage=1)
>>> b2 is b, made, pool.stats()["bytes_in_use"]
(True, [1024], 1024)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

LARGE = 128 << 20  # above this, sizes round up to whole 4 KiB pages only


def size_class(nbytes: int) -> int:
    """Round up to 2**k * (4, 5, 6 or 7) / 4, at least 256 bytes (a multiple of 4 always); past
    128 MiB, to a multiple of 4 KiB only (a device may be unable to allocate a rounded-up size:
    SwiftShader fails at exactly its 1 GiB maxBufferSize).

    >>> size_class(1000), size_class(900 << 20) == 900 << 20, size_class((1 << 30) - 8000)
    (1024, True, 1073737728)
    """
    nbytes = max(int(nbytes), 256)
    if nbytes > LARGE:
        return -(-nbytes // 4096) * 4096
    top = 1 << (nbytes - 1).bit_length()  # next power of two
    step = top // 8
    return -(-nbytes // step) * step


class BufferPool:
    def __init__(self, create: Callable[[int, int], Any], destroy: Callable[[Any], None],
                 max_free_bytes: int = 256 << 20) -> None:
        self._create, self._destroy = create, destroy
        self.max_free_bytes = max_free_bytes
        self._free: OrderedDict[int, tuple[Any, int, int]] = OrderedDict()  # id -> (buf, size, usage)
        self._in_use: dict[int, int] = {}  # id(buffer) -> size
        self._size: dict[int, tuple[int, int]] = {}  # id(buffer) -> (size, usage), every live buffer
        self._classes: dict[tuple[int, int], list[int]] = {}  # (size, usage) -> ids of free buffers
        self._free_bytes = 0
        self._in_use_bytes = 0
        self.peak_bytes = 0  # the most bytes in use at once (see the module doc)
        self.allocations = 0
        self.reuses = 0
        # buffers a captured program keeps (hold): never handed out, and never freed by their owner's
        # release while held; id -> holds, and the held ones their owner released meanwhile
        self._holds: dict[int, int] = {}
        self._orphans: set[int] = set()
        self.trimming = True  # False: no free buffer is destroyed (while a program is captured)

    def acquire(self, nbytes: int, usage: int, fresh: bool = False) -> Any:
        """A buffer of at least `nbytes` with exactly `usage` flags, reused when one is free
        (fresh: a new one, never used before)."""
        size = size_class(nbytes)
        keys = None if fresh else self._classes.get((size, usage))
        if keys:
            key = keys.pop()
            buf, _, _ = self._free.pop(key)
            self._free_bytes -= size
            self._in_use[key] = size
            self._using(size)
            self.reuses += 1
            return buf
        peak = self.peak_bytes
        self._using(size)
        self._trim()  # (room for it: free buffers of other classes may go first)
        try:
            buf = self._create(size, usage)
        except BaseException:
            self._in_use_bytes, self.peak_bytes = self._in_use_bytes - size, peak
            raise
        self.allocations += 1
        self._size[id(buf)] = (size, usage)
        self._in_use[id(buf)] = size
        return buf

    def _using(self, size: int) -> None:
        self._in_use_bytes += size
        self.peak_bytes = max(self.peak_bytes, self._in_use_bytes)

    def release(self, buf: Any) -> None:
        key = id(buf)
        if key in self._holds:  # (a captured program still uses it: freed when it lets go)
            if key in self._orphans or key not in self._in_use:
                raise ValueError("buffer released twice or not from this pool")
            self._orphans.add(key)
            return
        if key not in self._in_use:
            raise ValueError("buffer released twice or not from this pool")
        size = self._in_use.pop(key)
        self._in_use_bytes -= size
        usage = self._size[key][1]
        self._free[key] = (buf, size, usage)
        self._classes.setdefault((size, usage), []).append(key)
        self._free_bytes += size
        self._trim()

    def hold(self, buf: Any) -> None:
        """Keep `buf` for a captured program (see capture.py): a free buffer leaves the free list,
        and one in use is not freed by its owner's release until every hold is let go (`unhold`)."""
        key = id(buf)
        if key in self._free:
            _, size, usage = self._free.pop(key)
            self._classes[(size, usage)].remove(key)
            self._free_bytes -= size
            self._in_use[key] = size
            self._using(size)
            self._orphans.add(key)  # (no owner but its holders)
        elif key not in self._in_use:
            raise ValueError("only a buffer of this pool can be held")
        self._holds[key] = self._holds.get(key, 0) + 1

    def held(self, buf: Any) -> bool:
        """Whether a captured program holds `buf` (see hold)."""
        return id(buf) in self._holds

    def unhold(self, buf: Any) -> None:
        """Let go of one hold of `buf`; the last one frees it if its owner released it meanwhile."""
        key = id(buf)
        left = self._holds[key] - 1
        if left:
            self._holds[key] = left
            return
        del self._holds[key]
        if key in self._orphans:
            self._orphans.discard(key)
            self.release(buf)

    def in_use(self) -> set[int]:
        """The ids of the buffers in use now."""
        return set(self._in_use)

    def owns(self, buf: Any) -> bool:
        """Whether `buf` is a live buffer of this pool (in use or free)."""
        return id(buf) in self._size

    def class_of(self, buf: Any) -> tuple[int, int]:
        """(size class, usage) of a live buffer of this pool."""
        return self._size[id(buf)]

    def discard(self, buf: Any) -> None:
        """Destroy a buffer in use instead of pooling it (its allocation may have failed)."""
        key = id(buf)
        size = self._in_use.pop(key, None)
        if size is None:
            raise ValueError("buffer discarded twice or not from this pool")
        self._in_use_bytes -= size
        del self._size[key]
        self._destroy(buf)

    def _drop_oldest(self) -> None:
        key, (buf, size, usage) = self._free.popitem(last=False)
        self._classes[(size, usage)].remove(key)
        self._free_bytes -= size
        del self._size[key]
        self._destroy(buf)

    def trim(self) -> None:
        """Destroy free buffers past the footprint's bound now (after a time of `trimming` off)."""
        self._trim()

    def _trim(self) -> None:
        """Destroy the oldest free buffers while the footprint is past its bound (the module doc)."""
        if not self.trimming:
            return
        limit = max(self.max_free_bytes, self.peak_bytes - self._in_use_bytes)
        while self._free and self._free_bytes > limit:
            self._drop_oldest()

    def free_bytes(self) -> int:
        return self._free_bytes

    def clear(self) -> None:
        """Destroy the free buffers (buffers in use stay theirs to release); the working set
        starts again from what is in use."""
        while self._free:
            self._drop_oldest()
        self.peak_bytes = self._in_use_bytes

    def stats(self) -> dict[str, int]:
        """bytes_in_use: held by running ops or live arrays; bytes_pooled: free for reuse;
        bytes_peak: the most in use at once."""
        return {
            "bytes_in_use": self._in_use_bytes,
            "bytes_peak": self.peak_bytes,
            "bytes_pooled": self.free_bytes(),
            "buffers_in_use": len(self._in_use),
            "buffers_pooled": len(self._free),
            "allocations": self.allocations,
            "reuses": self.reuses,
        }

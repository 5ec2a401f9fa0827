"""The GPU buffer pool's bookkeeping, with fake buffers."""

import pytest

from pycore.engine.pool import BufferPool, size_class


def test_size_classes_are_tight_and_aligned():
    assert size_class(0) == size_class(1) == 256
    for n in [256, 257, 1000, 4096, 5000, 123_457, 10**8]:
        c = size_class(n)
        assert c >= n and c % 4 == 0 and c <= n * 1.25 + 256


def make_pool(**kw):
    made, destroyed = [], []
    pool = BufferPool(lambda size, usage: made.append((size, usage)) or object(), destroyed.append, **kw)
    return pool, made, destroyed


def test_reuse_by_class_and_usage():
    pool, made, _ = make_pool()
    a = pool.acquire(1000, usage=1)
    pool.release(a)
    assert pool.acquire(1010, usage=2) is not a  # other usage: a new buffer
    assert pool.acquire(900, usage=1) is a
    assert pool.stats()["reuses"] == 1 and pool.stats()["allocations"] == 2 == len(made)


def test_live_bytes_return_to_zero_and_trim_destroys_oldest():
    pool, _, destroyed = make_pool(max_free_bytes=2048)
    bufs = [pool.acquire(1024, usage=1) for _ in range(4)]
    assert pool.stats()["bytes_in_use"] == 4096
    for b in bufs:
        pool.release(b)
    st = pool.stats()
    assert st["bytes_in_use"] == 0 and st["bytes_pooled"] == 2048
    assert destroyed == bufs[:2]
    pool.clear()
    assert pool.stats()["bytes_pooled"] == 0 and len(destroyed) == 4


def test_double_release_is_an_error():
    pool, _, _ = make_pool()
    b = pool.acquire(10, usage=1)
    pool.release(b)
    with pytest.raises(ValueError, match="released twice"):
        pool.release(b)

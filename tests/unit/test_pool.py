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


def test_live_bytes_return_to_zero_and_the_working_set_stays_pooled():
    pool, _, destroyed = make_pool(max_free_bytes=2048)
    bufs = [pool.acquire(1024, usage=1) for _ in range(4)]
    assert pool.stats()["bytes_in_use"] == 4096
    for b in bufs:
        pool.release(b)
    st = pool.stats()  # (all four were in use at once: the next pass of the loop takes them again)
    assert st["bytes_in_use"] == 0 and st["bytes_pooled"] == 4096 == st["bytes_peak"] and not destroyed
    again = [pool.acquire(1000, usage=1) for _ in range(4)]
    assert {id(b) for b in again} == {id(b) for b in bufs} and pool.stats()["allocations"] == 4
    for b in again:
        pool.release(b)
    pool.clear()
    assert pool.stats()["bytes_pooled"] == 0 and len(destroyed) == 4 and pool.stats()["bytes_peak"] == 0


def test_the_footprint_stays_within_the_peak_or_max_free_bytes_above_what_is_in_use():
    pool, _, destroyed = make_pool(max_free_bytes=2048)

    def bounded():
        st = pool.stats()
        return st["bytes_in_use"] + st["bytes_pooled"] <= max(st["bytes_peak"], st["bytes_in_use"] + 2048)

    bufs = [pool.acquire(1024, usage=1) for _ in range(4)]
    for b in bufs:
        pool.release(b)
    # buffers of another class: the oldest free ones go before one is made, as far as the bound asks
    other = []
    for _ in range(3):
        other.append(pool.acquire(2048, usage=1))
        assert bounded()
    st = pool.stats()
    assert destroyed == bufs[:2] and st["bytes_pooled"] == 2048
    assert st["bytes_in_use"] == 6144 == st["bytes_peak"]
    for b in other:
        pool.release(b)
        assert bounded()
    assert pool.stats()["bytes_pooled"] == 6144 and destroyed == bufs  # (the new working set)
    small = pool.acquire(256, usage=2)  # (256 in use: 5888 may be free, so one 2048 goes)
    assert destroyed == [*bufs, other[0]] and pool.stats()["bytes_pooled"] == 4096 and bounded()
    pool.release(small)


def test_a_failed_allocation_leaves_the_counts_as_they_were():
    def create(size, usage):
        raise MemoryError("out of memory")
    pool = BufferPool(create, lambda b: None)
    with pytest.raises(MemoryError):
        pool.acquire(4096, usage=1)
    assert pool.stats()["bytes_in_use"] == 0 == pool.stats()["bytes_peak"]


def test_double_release_is_an_error():
    pool, _, _ = make_pool()
    b = pool.acquire(10, usage=1)
    pool.release(b)
    with pytest.raises(ValueError, match="released twice"):
        pool.release(b)

"""pycore.nn (pycore/calls/nn.py) on the NumPy backend against float64 references written here
directly (loops and closed forms, not the module's composition): values, special cases (causal and
bool masks, -inf logits, label smoothing, groups, dilation, padding, stride) and bad input. The GPU
path is tests/e2e/test_nn.py."""

from __future__ import annotations

import asyncio
import itertools
import math
from typing import Any

import numpy as np
import pytest

import pycore

nn = pycore.nn
RNG = np.random.default_rng(7)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def close(got: Any, want: np.ndarray, tol: float = 2e-5) -> None:
    got = np.asarray(got)
    assert got.dtype == np.float32, got.dtype
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


# ---------------------------------------------------------------- float64 references


def ref_layer_norm(x: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    x = x.astype(np.float64)
    n = math.prod(x.shape[a] for a in axes)
    mean = x.sum(axis=axes, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / n
    return (x - mean) / np.sqrt(var + eps)


def ref_logsumexp(x: np.ndarray, axis: Any) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.log(np.exp(x.astype(np.float64)).sum(axis=axis))


def ref_cross_entropy(logits: np.ndarray, targets: np.ndarray, smoothing: float) -> np.ndarray:
    """Row by row over (batch, classes) logits: -sum_c q_c log p_c, q the smoothed one-hot."""
    out = np.empty(len(logits))
    for i, row in enumerate(logits.astype(np.float64)):
        c = len(row)
        m = row.max()
        logp = row - m - math.log(sum(math.exp(v - m) for v in row))
        q = np.full(c, smoothing / c)
        q[targets[i]] += 1 - smoothing
        with np.errstate(invalid="ignore"):
            out[i] = -sum(qi * lp for qi, lp in zip(q, logp, strict=True) if qi)
    return out


def ref_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, keep: np.ndarray | None,
                  add: np.ndarray | None, scale: float) -> np.ndarray:
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    lq, s = q.shape[-2], k.shape[-2]
    out = np.zeros((*q.shape[:-1], v.shape[-1]))
    for b in np.ndindex(*q.shape[:-2]):
        for i in range(lq):
            w = np.array([float(q[b][i] @ k[b][j]) * scale for j in range(s)])
            if add is not None:
                w = w + np.broadcast_to(add, (*q.shape[:-2], lq, s))[b][i]
            if keep is not None:
                w = np.where(np.broadcast_to(keep, (*q.shape[:-2], lq, s))[b][i], w, -np.inf)
            e = np.exp(w - w.max())
            out[b][i] = (e / e.sum()) @ v[b]
    return out


def ref_conv(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: tuple[int, ...],
             padding: tuple[int, ...], dilation: tuple[int, ...], groups: int) -> np.ndarray:
    """The direct convolution: every output element summed over its group's channels and kernel."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n = x.shape[0]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    xp = np.pad(x, [(0, 0), (0, 0), *[(p, p) for p in padding]])
    out = tuple((m + 2 * p - d * (k - 1) - 1) // s + 1
                for m, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation, strict=True))
    y = np.zeros((n, o, *out))
    og = o // groups
    for b, oc in itertools.product(range(n), range(o)):
        g = oc // og
        for pos in np.ndindex(*out):
            total = 0.0 if bias is None else float(bias[oc])
            for ic in range(cg):
                for off in np.ndindex(*kernel):
                    at = tuple(p * s + f * d for p, s, f, d in zip(pos, stride, off, dilation, strict=True))
                    total += xp[(b, g * cg + ic, *at)] * w[(oc, ic, *off)]
            y[(b, oc, *pos)] = total
    return y


def ref_pool(x: np.ndarray, k: tuple[int, ...], s: tuple[int, ...], p: tuple[int, ...], kind: str,
             dilation: tuple[int, ...] | None = None, ceil_mode: bool = False,
             include_pad: bool = True) -> np.ndarray:
    """PyTorch's max_poolNd / avg_poolNd, window by window: each axis' taps start + t * dilation
    (t < k) that fall inside x; an average divides by the taps inside x padded by p (include_pad:
    from the window's start to min(start + k, n + p)) or inside x only."""
    d = x.ndim - 2
    dilation = dilation or (1,) * d
    x64 = x.astype(np.float64)
    outs = []
    for a in range(d):
        n, span = x.shape[2 + a], dilation[a] * (k[a] - 1) + 1
        o = (n + 2 * p[a] - span + (s[a] - 1 if ceil_mode else 0)) // s[a] + 1
        if ceil_mode and (o - 1) * s[a] >= n + p[a]:
            o -= 1
        outs.append(o)
    y = np.zeros((*x.shape[:2], *outs))
    for q in itertools.product(*(range(o) for o in outs)):
        taps, count = [], 1
        for a in range(d):
            start, n = q[a] * s[a] - p[a], x.shape[2 + a]
            inside = [start + t * dilation[a] for t in range(k[a]) if 0 <= start + t * dilation[a] < n]
            taps.append(np.array(inside))
            count *= (min(start + k[a], n + p[a]) - start) if include_pad else len(inside)
        win = x64[np.ix_(np.arange(x.shape[0]), np.arange(x.shape[1]), *taps)]
        axes = tuple(range(2, 2 + d))
        y[(slice(None), slice(None), *q)] = (win.max(axis=axes) if kind == "max"
                                             else win.sum(axis=axes) / count)
    return y


# ---------------------------------------------------------------- values


def test_layer_norm_over_trailing_shape_and_axes() -> None:
    x = f32(2, 3, 4) * 3 + 5
    weight, bias = f32(3, 4), f32(3, 4)
    want = ref_layer_norm(x, (1, 2), 1e-5) * weight + bias
    close(run(nn.layer_norm_async(x, (3, 4), weight, bias)), want)
    close(run(nn.layer_norm_async(x, axes=(0, 2))), ref_layer_norm(x, (0, 2), 1e-5))
    close(run(nn.layer_norm_async(x, 4, eps=0.5)), ref_layer_norm(x, (2,), 0.5))
    const = np.full((2, 5), 3.0, np.float32)  # zero variance: 0, not NaN
    close(run(nn.layer_norm_async(const, 5)), np.zeros((2, 5)))


def test_rms_norm() -> None:
    x, weight = f32(3, 6), f32(6)
    x64 = x.astype(np.float64)
    want = x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + 1e-6) * weight
    close(run(nn.rms_norm_async(x, -1, weight)), want)
    want = x64 / np.sqrt((x64 ** 2).mean((0, 1), keepdims=True) + 0.1)
    close(run(nn.rms_norm_async(x, (0, 1), eps=0.1)), want)


def test_logsumexp_stable_and_special_rows() -> None:
    x = f32(4, 5) * 10
    close(run(nn.logsumexp_async(x, 1)), ref_logsumexp(x, 1))
    close(run(nn.logsumexp_async(x, (0, 1), keepdims=True)), ref_logsumexp(x, (0, 1)).reshape(1, 1))
    whole = run(nn.logsumexp_async(x))
    assert isinstance(whole, np.float32) and abs(whole - ref_logsumexp(x, None)) < 1e-4
    big = np.array([[1000.0, 1000.0, 999.0]], np.float32)  # exp overflows float32 unshifted
    close(run(nn.logsumexp_async(big, -1)), np.array([1000 + math.log(2 + math.exp(-1))]))
    special = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [-np.inf, 2.0]], np.float32)
    got = run(nn.logsumexp_async(special, 1))
    np.testing.assert_array_equal(got[:3], [-np.inf, np.inf, np.nan])
    assert abs(got[3] - 2.0) < 1e-6


def test_one_hot_and_embedding() -> None:
    idx = np.array([[0, 3], [2, 7]], np.int32)
    want = np.zeros((2, 2, 4))
    for i, j in np.ndindex(2, 2):
        if idx[i, j] < 4:
            want[i, j, idx[i, j]] = 1
    close(run(nn.one_hot_async(idx, 4)), want)
    got = run(nn.one_hot_async(np.array([1], np.uint8), 2, dtype=pycore.int32))
    assert got.dtype == np.int32 and got.tolist() == [[0, 1]]
    table = f32(5, 3)
    got = run(nn.embedding_async(np.array([[4, 0, 4]], np.int32), table))
    assert got.shape == (1, 3, 3) and np.array_equal(got[0], table[[4, 0, 4]])
    with pytest.raises(IndexError):
        run(nn.embedding_async(np.array([5], np.int32), table))


def test_cross_entropy_reductions_smoothing_and_inf_logits() -> None:
    logits, targets = f32(6, 5) * 3, RNG.integers(0, 5, 6).astype(np.int32)
    for s in (0.0, 0.1, 1.0):
        want = ref_cross_entropy(logits, targets, s)
        close(run(nn.cross_entropy_async(logits, targets, reduction="none", label_smoothing=s)), want)
        close(np.asarray(run(nn.cross_entropy_async(logits, targets, label_smoothing=s))),
              np.array(want.mean()))
        close(np.asarray(run(nn.cross_entropy_async(logits, targets, reduction="sum", label_smoothing=s))),
              np.array(want.sum()), 1e-4)
    # classes along axis 1 of (batch, classes, positions), as PyTorch's (N, C, d)
    moved = f32(2, 4, 3)
    t = RNG.integers(0, 4, (2, 3)).astype(np.int32)
    want = ref_cross_entropy(np.moveaxis(moved, 1, -1).reshape(6, 4), t.reshape(6), 0.0).reshape(2, 3)
    close(run(nn.cross_entropy_async(moved, t, axis=1, reduction="none")), want)
    masked = np.array([[-np.inf, 0.0, 1.0], [0.0, -np.inf, -np.inf]], np.float32)
    got = run(nn.cross_entropy_async(masked, np.array([2, 0], np.int32), reduction="none"))
    close(got, np.array([math.log(1 + math.e) - 1, 0.0]))
    got = run(nn.cross_entropy_async(masked, np.array([0, 0], np.int32), reduction="none"))
    assert got[0] == np.inf


def test_attention_masks_and_scale() -> None:
    q, k, v = f32(2, 3, 4, 8), f32(2, 3, 5, 8), f32(2, 3, 5, 6)
    scale = 1 / math.sqrt(8)
    close(run(nn.scaled_dot_product_attention_async(q, k, v)), ref_attention(q, k, v, None, None, scale))
    causal = np.tri(4, 5, dtype=bool)
    close(run(nn.scaled_dot_product_attention_async(q, k, v, is_causal=True)),
          ref_attention(q, k, v, causal, None, scale))
    keep = RNG.random((3, 4, 5)) < 0.7
    keep[..., 0] = True
    close(run(nn.scaled_dot_product_attention_async(q, k, v, mask=keep, scale=0.5)),
          ref_attention(q, k, v, keep, None, 0.5))
    add = f32(4, 5)
    close(run(nn.scaled_dot_product_attention_async(q, k, v, mask=add, is_causal=True)),
          ref_attention(q, k, v, causal, add, scale))
    # shared keys and values across the heads (batch axes broadcast)
    close(run(nn.scaled_dot_product_attention_async(q, k[:, :1], v[:, :1])),
          ref_attention(q, np.broadcast_to(k[:, :1], k.shape), np.broadcast_to(v[:, :1], v.shape), None, None,
                        scale))
    none = np.zeros((4, 5), bool)  # a row with no key: NaN
    assert np.isnan(run(nn.scaled_dot_product_attention_async(q, k, v, mask=none))).all()


@pytest.mark.parametrize(("xs", "ws", "stride", "padding", "dilation", "groups"), [
    ((2, 4, 9), (6, 2, 3), (2,), (1,), (2,), 2),
    ((1, 3, 7, 6), (4, 3, 3, 2), (1, 2), (1, 0), (1, 1), 1),
    ((2, 4, 6, 7), (4, 1, 3, 3), (2, 1), (2, 1), (2, 1), 4),
    ((1, 2, 5, 4, 4), (2, 2, 2, 3, 2), (1, 1, 2), (0, 1, 1), (2, 1, 1), 1),
])
def test_conv_against_direct_convolution(xs: tuple[int, ...], ws: tuple[int, ...], stride: tuple[int, ...],
                                         padding: tuple[int, ...], dilation: tuple[int, ...],
                                         groups: int) -> None:
    x, w, b = f32(*xs), f32(*ws), f32(ws[0])
    want = ref_conv(x, w, b, stride, padding, dilation, groups)
    close(run(nn.conv_async(x, w, b, stride, padding, dilation, groups)), want, 1e-4)
    close(run(nn.conv_async(x, w, None, stride, padding, dilation, groups)),
          want - b.reshape(-1, *[1] * (len(xs) - 2)), 1e-4)


def test_conv_same_and_valid_padding() -> None:
    x, w = f32(1, 2, 6, 5), f32(3, 2, 3, 2)
    got = run(nn.conv_async(x, w, padding="same"))
    assert got.shape == (1, 3, 6, 5)
    # "same" pads (1, 1) rows and (0, 1) columns: a direct convolution of x padded so
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 1)])
    close(got, ref_conv(padded, w, None, (1, 1), (0, 0), (1, 1), 1), 1e-4)
    close(run(nn.conv_async(x, w, padding="valid")), ref_conv(x, w, None, (1, 1), (0, 0), (1, 1), 1), 1e-4)


def test_pools() -> None:
    x = f32(2, 3, 7, 6)
    for k, s, p in [((2, 2), (2, 2), (0, 0)), ((3, 2), (2, 1), (1, 1)), ((3, 3), (1, 2), (1, 0))]:
        close(run(nn.max_pool2d_async(x, k, s, p)), ref_pool(x, k, s, p, "max"))
        close(run(nn.avg_pool2d_async(x, k, s, p)), ref_pool(x, k, s, p, "avg"))
    close(run(nn.max_pool2d_async(x, 3)), ref_pool(x, (3, 3), (3, 3), (0, 0), "max"))
    x[0, 0, 0, 0] = np.nan
    assert np.isnan(run(nn.max_pool2d_async(x, 2))[0, 0, 0, 0])


@pytest.mark.parametrize(("shape", "k", "s", "p", "dilation", "ceil_mode"), [
    ((2, 3, 11), (3,), (2,), (1,), (1,), False),
    ((2, 3, 11), (3,), (2,), (1,), (1,), True),
    ((1, 2, 10), (2,), (3,), (0,), (1,), True),  # (a last window of one tap)
    ((2, 2, 12), (3,), (1,), (2,), (2,), False),  # (dilated: a span of 5)
    ((2, 3, 7, 6), (3, 2), (2, 2), (1, 1), (1, 1), True),
    ((1, 2, 9, 8), (3, 3), (2, 1), (2, 1), (2, 1), True),
    ((1, 2, 5, 6, 4), (2, 3, 2), (2, 2, 1), (1, 1, 0), (1, 1, 1), True),
    ((2, 1, 6, 7, 5), (3, 2, 2), (1, 2, 2), (1, 0, 1), (1, 2, 1), False),
])
def test_pools_of_one_to_three_axes(shape: tuple[int, ...], k: tuple[int, ...], s: tuple[int, ...],
                                    p: tuple[int, ...], dilation: tuple[int, ...], ceil_mode: bool) -> None:
    x = f32(*shape)
    close(run(nn.max_pool_async(x, k, s, p, dilation, ceil_mode)),
          ref_pool(x, k, s, p, "max", dilation, ceil_mode))
    if all(di == 1 for di in dilation):  # (an average pool has no dilation)
        for include in (True, False):
            close(run(nn.avg_pool_async(x, k, s, p, ceil_mode, include)),
                  ref_pool(x, k, s, p, "avg", None, ceil_mode, include))


def test_pool_windows_and_their_counts() -> None:
    x = np.arange(1, 6, dtype=np.float32)[None, None]  # [1 2 3 4 5]
    # windows of 2 from -1: [pad 1] [2 3] [4 5]; ceil_mode adds none (it would start in the padding after)
    assert run(nn.max_pool_async(x, 2, 2, 1)).tolist() == [[[1, 3, 5]]]
    assert run(nn.avg_pool_async(x, 2, 2, 1)).tolist() == [[[0.5, 2.5, 4.5]]]
    assert run(nn.avg_pool_async(x, 2, 2, 1, count_include_pad=False)).tolist() == [[[1, 2.5, 4.5]]]
    # windows of 3, 2 apart over [1 .. 6], ceil_mode: [1 2 3] [3 4 5] [5 6]: the last counts its two taps
    six = np.arange(1, 7, dtype=np.float32)[None, None]
    assert run(nn.avg_pool_async(six, 3, 2, 0)).tolist() == [[[2, 4]]]
    assert run(nn.avg_pool_async(six, 3, 2, 0, ceil_mode=True)).tolist() == [[[2, 4, 5.5]]]
    assert run(nn.max_pool_async(x, 2, dilation=3)).tolist() == [[[4]]]  # (taps 1 and 4)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("call", "error", "names"), [
    (lambda: nn.layer_norm_async(f32(2, 3), (2,)), ValueError, "normalized_shape"),
    (lambda: nn.layer_norm_async(f32(2, 3)), TypeError, "normalized_shape"),
    (lambda: nn.layer_norm_async(f32(2, 3), 3, f32(2)), ValueError, "weight"),
    (lambda: nn.layer_norm_async(np.ones((2, 3), np.int32), 3), TypeError, "x"),
    (lambda: nn.rms_norm_async(f32(2, 3), 2), ValueError, "axes"),
    (lambda: nn.logsumexp_async(f32(2, 3), axis=3), ValueError, "axis"),
    (lambda: nn.logsumexp_async(f32(2, 0), axis=1), ValueError, "axis"),
    (lambda: nn.one_hot_async(np.array([1], np.int32), 0), ValueError, "num_classes"),
    (lambda: nn.one_hot_async(f32(2), 3), TypeError, "indices"),
    (lambda: nn.embedding_async(np.array([1], np.int32), f32(3)), ValueError, "table"),
    (lambda: nn.cross_entropy_async(f32(4, 3), np.zeros(3, np.int32)), ValueError, "targets"),
    (lambda: nn.cross_entropy_async(f32(4, 3), np.zeros(4, np.int32), reduction="max"), ValueError,
     "reduction"),
    (lambda: nn.cross_entropy_async(f32(4, 3), np.zeros(4, np.int32), label_smoothing=2), ValueError,
     "label_smoothing"),
    (lambda: nn.cross_entropy_async(f32(4, 3), f32(4)), TypeError, "targets"),
    (lambda: nn.scaled_dot_product_attention_async(f32(2, 3, 4), f32(2, 3, 5), f32(2, 3, 4)), ValueError,
     "k"),
    (lambda: nn.scaled_dot_product_attention_async(f32(2, 3, 4), f32(2, 5, 4), f32(2, 4, 4)), ValueError,
     "v"),
    (lambda: nn.scaled_dot_product_attention_async(f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 4), mask=f32(3, 4)),
     ValueError, "mask"),
    (lambda: nn.scaled_dot_product_attention_async(f32(3, 4), f32(5, 4), f32(5, 4),
                                                   mask=np.ones((3, 5), np.int32)), TypeError, "mask"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 2, 3), groups=3), ValueError, "groups"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(3, 2, 3), groups=2), ValueError, "groups"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 3, 3)), ValueError, "channels"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 4, 3, 3)), ValueError, "w"),
    (lambda: nn.conv_async(f32(4, 5), f32(2, 4)), ValueError, "x"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 4, 3), stride=0), ValueError, "stride"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 4, 3), padding=(1, 1)), ValueError, "padding"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 4, 3), stride=2, padding="same"), ValueError, "same"),
    (lambda: nn.conv_async(f32(1, 4, 2), f32(2, 4, 3)), ValueError, "kernel"),
    (lambda: nn.conv_async(f32(1, 4, 5), f32(2, 4, 3), bias=f32(3)), ValueError, "bias"),
    (lambda: nn.max_pool2d_async(f32(1, 4, 5), 2), ValueError, "x"),
    (lambda: nn.max_pool2d_async(f32(1, 1, 4, 4), 2, padding=2), ValueError, "padding"),
    (lambda: nn.avg_pool2d_async(f32(1, 1, 4, 4), (2, 2, 2)), ValueError, "kernel_size"),
    (lambda: nn.max_pool_async(f32(1, 1, 2, 2, 2, 2), 2), ValueError, "1 to 3 spatial axes"),
    (lambda: nn.max_pool_async(f32(1, 1, 8), 3, padding=2), ValueError, "padding"),
    (lambda: nn.max_pool_async(f32(1, 1, 8), 3, padding=2, dilation=2), None, ""),  # (a span of 5: allowed)
    (lambda: nn.max_pool_async(f32(1, 1, 8), 3, dilation=0), ValueError, "dilation"),
    (lambda: nn.max_pool_async(f32(1, 1, 8), 9), ValueError, "kernel_size"),
    (lambda: nn.max_pool_async(f32(1, 1, 8), 2, ceil_mode="yes"), TypeError, "ceil_mode"),
    (lambda: nn.avg_pool_async(f32(1, 1, 8), 2, count_include_pad=1), TypeError, "count_include_pad"),
    (lambda: nn.avg_pool_async(f32(1, 1, 8, 8), (2, 2, 2)), ValueError, "kernel_size"),
    (lambda: nn.avg_pool_async(np.ones((1, 1, 4), np.int32), 2), TypeError, "x"),
])
def test_bad_input_names_the_argument(call: Any, error: type | None, names: str) -> None:
    if error is None:  # (the edge that is allowed)
        run(call())
        return
    with pytest.raises(error, match=names):
        run(call())


def test_examples_run_as_shown() -> None:
    import doctest

    from pycore.calls import nn as module
    from tests.unit.test_cpython_api import in_thread

    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    finder = doctest.DocTestFinder(recurse=False)

    def examples() -> None:
        for fn in (module, *module.NN.values()):
            for test in finder.find(fn, getattr(fn, "__name__", "nn"), module=False, globs={}):
                runner.run(test)

    in_thread(examples)
    assert runner.failures == 0 and runner.tries >= 20


def test_float16_inputs_give_float16_results() -> None:
    x = f32(2, 3, 6, 5)
    h = x.astype(np.float16)
    x64 = h.astype(np.float64)
    w = f32(4, 3, 3, 3).astype(np.float16)

    def half(got: Any, want: np.ndarray) -> None:
        got = np.asarray(got)
        assert got.dtype == np.float16 and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-2, atol=1e-2)

    half(run(nn.layer_norm_async(h, 5)), ref_layer_norm(x64, (3,), 1e-5))
    half(run(nn.logsumexp_async(h, 3)), ref_logsumexp(x64, 3))
    half(run(nn.scaled_dot_product_attention_async(h, h, h, is_causal=True)),
         ref_attention(x64, x64, x64, np.tri(6, 6, dtype=bool), None, 1 / math.sqrt(5)))
    half(run(nn.conv_async(h, w, padding=1)), ref_conv(x64, w, None, (1, 1), (1, 1), (1, 1), 1))
    half(run(nn.avg_pool2d_async(h, 2)), ref_pool(x64, (2, 2), (2, 2), (0, 0), "avg"))
    half(run(nn.max_pool_async(h[0], 3, 2, 1, ceil_mode=True)), ref_pool(x64[0], (3,), (2,), (1,), "max",
                                                                           None, True))
    t = np.array([0, 4, 2], np.int32)
    half(run(nn.cross_entropy_async(h[0, 0, :3], t, reduction="none")),
         ref_cross_entropy(x64[0, 0, :3], t, 0.0))


def test_the_direct_conv_plan_reads_float16_operands_from_words() -> None:
    """kernels/conv.py: a float16 x, w or bias is bound as u32 words and read from them (f32_loader);
    the output is float32 (calls/nn.py rounds a float16 result after it)."""
    from pycore.array.layout import Layout
    from pycore.kernels.conv import plan_conv
    from pycore.kernels.plan import Facts

    x, w, b = Layout.contiguous((2, 3, 9, 9)), Layout.contiguous((4, 3, 3, 3)), Layout.contiguous((4,))
    plain = plan_conv(x, w, b, (1, 1), ((1, 1), (1, 1)), (1, 1), 1, Facts())
    half = plan_conv(x, w, b, (1, 1), ((1, 1), (1, 1)), (1, 1), 1, Facts(), (True, False, True))
    (step,), (plain_step,) = half.steps, plain.steps
    assert plain_step.kernel.name == "conv:2d+bias" and step.kernel.name == "conv:2d+bias:f16=xb"
    source = step.kernel.source()
    assert "var<storage, read> x: array<u32>;" in source and "var<storage, read> w: array<f32>;" in source
    assert "fn bias_at(i: u32) -> f32 { return unpack2x16float(bias[(i) / 2u])[(i) % 2u]; }" in source
    assert "return w[i];" in source
    assert "x_at(u32(" in source and half.outputs[0].dtype == np.float32
    assert step.words == plain_step.words


def test_the_fused_attention_plan() -> None:
    """kernels/attention.py plans one kernel for any batch layout, and refuses what the kernel or
    the device cannot take (nn composes the attention of other calls then)."""
    from pycore.array.layout import Layout
    from pycore.kernels.attention import MAX_DIM, loop_iterations, plan_attention
    from pycore.kernels.plan import Facts, Slot, Step

    q, k = Layout.contiguous((2, 3, 300, 10)), Layout.contiguous((2, 1, 100, 10))
    v = Layout.contiguous((100, 7))
    mask = Layout.contiguous((300, 100))
    gpu, cpu = Facts(), Facts(cpu_adapter=True, loop_cap=65_535)
    plan = plan_attention(q, k, v, mask, "bool", True, 0.5, gpu)
    (step,) = plan.steps
    assert plan.outputs[0].shape == (2, 3, 300, 7)
    assert step.kernel.name == "attend:3x2:256x64:prefetch:bool:causal[2]" and step.grid == (2 * 3 * 2, 1, 1)
    # (a GPU's kernel reads each tile of k and v ahead: three elements of a row of k, two of v a thread)
    source = step.kernel.source()
    assert "var pk: array<f32, 3>;" in source and "var pv: array<f32, 2>;" in source
    rolled = plan_attention(q, k, v, None, "", False, 0.5, cpu).steps[0].kernel
    assert rolled.name == "attend:3x2:64x64:rolled[2]" and "var pk" not in rolled.source()
    odd = Layout.contiguous((4, 36))  # (tiles of 32 keys of 9 vec4s: not whole elements a thread)
    assert plan_attention(odd, odd, odd, None, "", False, 1.0, gpu).steps[0].kernel.name == (
        "attend:9x9:256x32[0]")
    wide = Layout.contiguous((4, MAX_DIM + 1))
    with pytest.raises(ValueError, match="exceed"):
        plan_attention(wide, wide, wide, None, "", False, 1.0, gpu)
    keys = Layout.contiguous((20_000, 8))
    assert loop_iterations(2, 2, 64, 64, 20_000) > 65_535
    with pytest.raises(ValueError, match="loop iterations"):
        plan_attention(Layout.contiguous((4, 8)), keys, keys, None, "", False, 1.0, cpu)
    assert plan_attention(Layout.contiguous((4, 8)), keys, keys, None, "", False, 1.0, gpu).steps
    with pytest.raises(ValueError, match="binding"):
        plan_attention(q, k, v, None, "", False, 1.0, Facts(max_binding=1024))
    # few blocks of queries on a GPU: the keys in parts, each a workgroup's, then their combination
    one = Layout.contiguous((1, 300, 64))
    long = Layout.contiguous((1, 4096, 64))
    split = plan_attention(one, long, long, None, "", False, 0.125, gpu)
    attend, combine = split.steps
    assert isinstance(attend, Step) and isinstance(combine, Step)
    assert attend.kernel.name == "attend:16x16:256x32:prefetch:parts[1]" and attend.slots[3] == Slot("tmp", 0)
    assert attend.words[20:22] == (512, 8) and attend.grid == (2 * 8, 1, 1)  # (2 blocks x 8 parts)
    assert split.scratch == (4 * 300 * 8 * (64 + 2),)  # (each row's parts: its output row, m and l)
    assert combine.kernel.family == "attention_parts" and combine.words == (300, 64, 8)
    assert combine.slots == (Slot("tmp", 0), Slot("out", 0), Slot("meta")) and combine.grid == (75, 1, 1)
    assert "out[ob + dv + 1u] = l;" in attend.kernel.source()
    # causal: parts of 1,024 keys (a long block over several workgroups), whole tiles of keys
    causal = plan_attention(Layout.contiguous((8, 4096, 64)), long, long, None, "", True, 0.125, gpu)
    assert causal.steps[0].words[20:22] == (1024, 4) and causal.steps[0].grid == (8 * 16 * 4, 1, 1)
    assert plan_attention(q, k, v, None, "", False, 0.5, gpu, parts=3).steps[0].words[20:22] == (64, 2)
    # none on a CPU adapter, or where the parts would not fit one binding
    assert len(plan_attention(one, long, long, None, "", False, 0.125, Facts(cpu_adapter=True)).steps) == 1
    # float16 q, k, v: read from their u32 words, computed in float32 (a float32 output)
    half = plan_attention(q, k, v, None, "", False, 0.5, gpu, halves=(True, False, True)).steps[0].kernel
    source = half.source()
    assert half.name == "attend:3x2:256x64:prefetch:f16=qv[2]"
    assert "var<storage, read> q: array<u32>;" in source and "var<storage, read> k: array<f32>;" in source
    assert "fn v_at(i: u32) -> f32 { return unpack2x16float(v[(i) / 2u])[(i) % 2u]; }" in source
    assert "return k[i];" in source
    many = Layout.contiguous((1, 1000, 64))  # (parts of 1000 rows: 2.1 MB)
    assert len(plan_attention(many, long, long, None, "", False, 0.125, gpu).steps) == 2
    tight = Facts(max_binding=1_100_000)
    assert len(plan_attention(many, long, long, None, "", False, 0.125, tight).steps) == 1

"""Type stub of pycore.nn (neural-network building blocks, made in pycore/calls/nn.py),
written by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.nn import ROUTES as ROUTES

async def layer_norm_async(x: Any, /, normalized_shape: Any = None, weight: Any = None, bias: Any = None, eps: float = 1e-05, *, axes: Any = None) -> Any:
    """Layer normalization: (x - mean) / sqrt(var + eps) * weight + bias, the mean and the (biased) variance over the trailing `normalized_shape` (an int or a tuple, as PyTorch's) or over `axes` (any axes, as JAX's; give one of them). weight and bias broadcast to x's shape."""
async def rms_norm_async(x: Any, /, axes: Any = -1, weight: Any = None, eps: float = 1e-06) -> Any:
    """Root-mean-square normalization: x / sqrt(mean(x^2 over `axes`) + eps) * weight (weight broadcasts to x's shape)."""
async def logsumexp_async(x: Any, /, axis: Any = None, keepdims: bool = False) -> Any:
    """log(sum(exp(x))) over `axis` (an int, a tuple, None: every axis), computed shifted by the max so that large values do not overflow: rows of -inf give -inf, rows with +inf give +inf, NaN gives NaN."""
async def one_hot_async(indices: Any, /, num_classes: int, dtype: Any = None) -> Any:
    """indices (integers, any shape) as one-hot vectors along a new last axis of num_classes: 1 where the class is the index, 0 elsewhere (an index outside [0, num_classes) gives a row of zeros); dtype None: float32."""
async def embedding_async(indices: Any, table: Any, /) -> Any:
    """The rows of `table` (num_embeddings, dim) at `indices` (integers, any shape): shape (*indices.shape, dim). IndexError for an index outside the table."""
async def cross_entropy_async(logits: Any, targets: Any, /, axis: int = -1, reduction: str = 'mean', label_smoothing: float = 0.0) -> Any:
    """The cross-entropy of `logits` (classes along `axis`) against `targets`, class indices of the logits' shape without that axis: -log_softmax(logits)[target], mixed with label_smoothing times the mean of -log_softmax over the classes (as PyTorch's); reduction "mean", "sum" or "none"."""
async def scaled_dot_product_attention_async(q: Any, k: Any, v: Any, /, mask: Any = None, is_causal: bool = False, scale: float | None = None) -> Any:
    """softmax(q k^T * scale + mask) v on (..., heads, seq, dim) arrays (any leading batch axes, broadcast): q (..., L, D), k (..., S, D), v (..., S, Dv) -> (..., L, Dv). scale None: 1/sqrt(D). mask broadcasts to (..., L, S): bool (True: attend) or float (added to the scores); is_causal keeps key j for query i where j <= i (the top-left-aligned lower triangle, as PyTorch's). A row that masks every key gives NaN, as PyTorch's."""
async def conv_async(x: Any, w: Any, /, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """The 1-D, 2-D or 3-D convolution (cross-correlation, as PyTorch's convNd) of x (N, C, *spatial) with w (O, C // groups, *kernel): (N, O, *out), out = (n + 2 padding - dilation (k - 1) - 1) // stride + 1. stride, padding and dilation: an int or one per spatial axis (padding also "valid" or "same"); groups divides C and O; bias (O,) is added per output channel."""
async def max_pool_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False) -> Any:
    """The max of each window of x (N, C, *spatial), 1 to 3 spatial axes, as PyTorch's max_poolNd: windows of kernel_size taps `dilation` apart, `stride` apart (None: kernel_size), over x padded by `padding` (-inf, at most half the dilated kernel) on each side; ceil_mode keeps a last, partial window that starts inside x or its padding before. kernel_size, stride, padding and dilation: an int or one per spatial axis. NaN propagates. (N, C, *out)."""
async def avg_pool_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Any:
    """The mean of each window of x (N, C, *spatial), 1 to 3 spatial axes, as PyTorch's avg_poolNd: windows of kernel_size, `stride` apart (None: kernel_size), over x padded by `padding` (zeros, at most half the kernel) on each side; ceil_mode keeps a last, partial window that starts inside x or its padding before. Each window's sum is divided by its taps inside x and the padding (count_include_pad, the default) or inside x only; a partial window's taps past the padding never count. (N, C, *out)."""
async def max_pool2d_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False) -> Any:
    """max_pool of x (N, C, H, W) only: (N, C, H_out, W_out)."""
async def avg_pool2d_async(x: Any, /, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False, count_include_pad: bool = True) -> Any:
    """avg_pool of x (N, C, H, W) only: (N, C, H_out, W_out)."""

"""Type stub of pycore.fft (the Array API's fft extension, made in pycore/calls/fft.py), written
by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.fft import ROUTES as ROUTES

async def fft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The 1-D discrete Fourier transform along `axis`: X[k] = sum_j x[j] exp(-2 pi i jk / n), the axis cropped or zero-padded to n values first (None: its length); norm "backward" (no scaling), "ortho" (1/sqrt(n)) or "forward" (1/n). complex64."""
async def ifft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The inverse of fft along `axis`: x[j] = (1/n) sum_k X[k] exp(2 pi i jk / n) under norm "backward" ("ortho": 1/sqrt(n), "forward": no scaling); n as fft's. complex64."""
async def fftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The n-d discrete Fourier transform over `axes` (None: every axis), each axis cropped or zero-padded to its length in `s` first (s[i] for axes[i]; -1: the input's length; s needs axes). norm as fft's, over the product of the lengths. complex64."""
async def ifftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The inverse of fftn over `axes` (None: every axis); s and norm as fftn's. complex64."""
async def rfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """fft of a real `x` along `axis`, its non-negative frequencies only: n//2 + 1 values (complex64). x must be real (TypeError for complex input)."""
async def irfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The inverse of rfft: n real values (None: 2 * (m - 1), m the input's length along `axis`) from the first n//2 + 1 values of a Hermitian sequence (cropped or zero-padded to them; the imaginary parts of the zero frequency, and of n/2 for even n, are ignored). float32."""
async def rfftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """fftn of a real `x`, the last of `axes` cut to its non-negative frequencies (s[-1]//2 + 1 values); s and norm as fftn's. complex64."""
async def irfftn_async(x: Any, /, *, s: Any = None, axes: Any = None, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The inverse of rfftn: inverse transforms over `axes`, the last of them from the first half of a Hermitian sequence to s[-1] real values (None or -1: 2 * (m - 1)). float32."""
async def hfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half: n real values (None: 2 * (m - 1)); irfft of the conjugate, with the norm's scaling of a forward transform. float32."""
async def ihfft_async(x: Any, /, *, n: Any = None, axis: Any = -1, norm: Any = 'backward', backend: str = 'auto') -> Any:
    """The inverse of hfft: the conjugate of rfft of a real `x`, with the norm's scaling of an inverse transform: n//2 + 1 values. complex64; x must be real."""
async def fftfreq_async(n: Any, /, *, d: Any = 1.0, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., n//2 - 1 (n even) or (n-1)//2 (n odd), -(n//2), ..., -1] / (d n), float32 (dtype: float32); a GpuArray for device="gpu"."""
async def rfftfreq_async(n: Any, /, *, d: Any = 1.0, dtype: Any = None, device: Any = None) -> Any:
    """The non-negative sample frequencies of an n-point rfft: [0, 1, ..., n//2] / (d n), float32; a GpuArray for device="gpu"."""
async def fftshift_async(x: Any, /, *, axes: Any = None) -> Any:
    """x with the zero frequency moved to the middle: rolled by n//2 along each of `axes` (an int or a sequence; None: every axis). On a GpuArray a roll on the GPU; complex NumPy arrays too."""
async def ifftshift_async(x: Any, /, *, axes: Any = None) -> Any:
    """The inverse of fftshift: rolled back by n//2 along each of `axes` (None: every axis)."""

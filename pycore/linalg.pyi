"""Type stub of pycore.linalg (the Array API's linalg extension, made in
pycore/calls/linalg.py), written by scripts/stubs.py (do not edit)."""

from typing import Any

from .calls.linalg import ROUTES as ROUTES
from .calls.linalg import EighResult as EighResult
from .calls.linalg import EigResult as EigResult
from .calls.linalg import QRResult as QRResult
from .calls.linalg import SlogdetResult as SlogdetResult
from .calls.linalg import SVDResult as SVDResult

async def cholesky_async(x: Any, /, *, upper: bool = False) -> Any:
    """The Cholesky factors of x's symmetric positive-definite matrices: lower triangular L with x = L @ L.T, or (upper=True) U with x = U.T @ U; on NumPy (numpy.linalg.LinAlgError where a matrix is not positive definite)."""
async def cross_async(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """The cross products of x1's and x2's 3-vectors along `axis` (a negative int; the other axes broadcast), on the GPU from the components' views: multiplies, subtracts and a stack."""
async def det_async(x: Any, /) -> Any:
    """The determinants of x's square matrices (on NumPy, float64, narrowed to float32)."""
async def diagonal_async(x: Any, /, *, offset: Any = 0) -> Any:
    """The diagonals of x's matrices (a view): the awaitable form of pycore.linalg.diagonal."""
async def eig_async(x: Any, /) -> EigResult:
    """The eigenvalues and right eigenvectors (columns) of x's square matrices, as EigResult(eigenvalues, eigenvectors), complex64 always (as the standard says, even where they are real); computed on NumPy, GpuArrays for a GpuArray x."""
async def eigh_async(x: Any, /) -> EighResult:
    """The eigenvalues (ascending) and eigenvectors (columns) of x's symmetric matrices (from the lower triangles), as EighResult(eigenvalues, eigenvectors); on NumPy."""
async def eigvals_async(x: Any, /) -> Any:
    """The eigenvalues of x's square matrices, complex64 always; computed on NumPy (a GpuArray for a GpuArray x)."""
async def eigvalsh_async(x: Any, /) -> Any:
    """The eigenvalues (ascending) of x's symmetric matrices (from the lower triangles); on NumPy."""
async def inv_async(x: Any, /) -> Any:
    """The inverses of x's square matrices (on NumPy; numpy.linalg.LinAlgError for a singular one)."""
async def matmul_async(x1: Any, x2: Any, /) -> Any:
    """x1 @ x2 (the batched matmul of pycore.matmul_async): (..., m, k) @ (..., k, n) -> (..., m, n), the batch axes broadcast, a 1-D operand as a row (x1) or a column (x2); int32 and uint32 operands multiply in their dtype, the others in float32."""
async def matrix_norm_async(x: Any, /, *, keepdims: bool = False, ord: Any = 'fro') -> Any:
    """The matrix norms of x's matrices (its last two axes): ord "fro" (the default, Frobenius), 1 or -1 (the largest or smallest column sum of |x|), inf or -inf (row sums) on the GPU as element-wise ops and reductions; 2, -2 (the largest, smallest singular value) and "nuc" (their sum) on NumPy. float32 or complex64 (the entry-wise norms of its magnitudes)."""
async def matrix_power_async(x: Any, n: Any, /) -> Any:
    """x's square matrices raised to the integer power n (n = 0: identity matrices; n < 0: the inverse's power), on the GPU by repeated squaring with the batched matmul (the inverse on NumPy). float32 or complex64."""
async def matrix_rank_async(x: Any, /, *, rtol: Any = None) -> Any:
    """The ranks of x's matrices: how many singular values exceed rtol times the largest (rtol None: max(M, N) * float32's eps); int32, on NumPy."""
async def matrix_transpose_async(x: Any, /) -> Any:
    """x's matrices (its last two axes) transposed (a view): the awaitable form of pycore.linalg.matrix_transpose."""
async def outer_async(x1: Any, x2: Any, /) -> Any:
    """The outer product of vectors x1 (length m) and x2 (length n): the (m, n) products, on the GPU as one broadcast multiply."""
async def pinv_async(x: Any, /, *, rtol: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverses of x's matrices (M, N) -> (N, M): singular values at or below rtol times the largest are taken as zero (rtol None: max(M, N) * float32's eps); on NumPy."""
async def qr_async(x: Any, /, *, mode: str = 'reduced') -> QRResult:
    """The QR factorizations of x's matrices (M, N), as QRResult(Q, R): mode "reduced" (Q (M, K), R (K, N), K = min(M, N)) or "complete" (Q (M, M), R (M, N)); on NumPy."""
async def slogdet_async(x: Any, /) -> SlogdetResult:
    """The signs and the natural logs of the magnitudes of the determinants of x's square matrices (sign 0 and logabsdet -inf for a singular one), as SlogdetResult(sign, logabsdet); on NumPy."""
async def solve_async(x1: Any, x2: Any, /) -> Any:
    """The solutions X of x1 @ X = x2 for x1's square matrices: x2 a vector (1-D: one right-hand side for every matrix) or a stack of matrices (..., M, K), the batch axes broadcast; on NumPy (numpy.linalg.LinAlgError for a singular x1)."""
async def svd_async(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decompositions x = U @ diag(S) @ Vh of x's matrices (M, N), as SVDResult(U, S, Vh), S descending: full_matrices=True U (M, M) and Vh (N, N), else (M, K) and (K, N), K = min(M, N); on NumPy."""
async def svdvals_async(x: Any, /) -> Any:
    """The singular values of x's matrices, descending; on NumPy."""
async def tensordot_async(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """The sum of products of x1 and x2 over the axes `axes` names: an int N (x1's last N axes with x2's first N) or a pair of sequences (x1's axes, x2's axes, contracted in pairs). The result has x1's other axes, then x2's. On the GPU as one matmul of the operands permuted and reshaped."""
async def trace_async(x: Any, /, *, offset: Any = 0, dtype: Any = None) -> Any:
    """The sums of x's matrices' diagonals (offset as diagonal's), in `dtype` (None: x's dtype), on the GPU as a sum along the diagonal view."""
async def vecdot_async(x1: Any, x2: Any, /, *, axis: Any = -1) -> Any:
    """The dot products of x1's and x2's vectors along `axis` (a negative int: counted from the last axis, the other axes broadcast): sum(conj(x1) * x2, axis=axis) (conj: complex x1 only), on the GPU as a multiply and a sum."""
async def vector_norm_async(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    """The vector p-norms of x over `axis` (an int, a tuple of ints, None: every axis): ord 2 (the default, sqrt(sum(x**2))), 1, inf (the largest |x|), -inf (the smallest), 0 (the count of nonzero elements) or any other p: sum(|x|**p)**(1/p). float32, or complex64 (the norms of its magnitudes); on the GPU as element-wise ops and a reduction (sums of squares overflow past 1.8e19, as NumPy's float32 norm does)."""
def diagonal(x: Any, /, *, offset: Any = 0) -> Any:
    """The diagonals of x's matrices (its last two axes): offset 0 the main one, > 0 above it, < 0 below; a view (on a GpuArray a strided one: stride = the row stride + the column stride)."""
def matrix_transpose(x: Any, /) -> Any:
    """x's matrices (its last two axes) transposed: a view."""

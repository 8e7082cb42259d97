"""NumPy kernels of the linear algebra ops, computed as TensorFlow's CPU kernels compute them.

TensorFlow runs Eigen on each matrix of a batch (row-major maps). The partially pivoted LU
(det, slogdet, inv, solve), the LLT (cholesky) and the triangular substitutions below follow
Eigen's unblocked algorithms step by step: its pivot choice (the first largest |a|; a NaN is
chosen only in first place), divisions and reciprocal multiplications, and its checks, so
TensorFlow's decisions are taken on the same numbers (an exact zero pivot makes inv and solve
raise "Input is not invertible."; a non-positive LLT pivot fills the factor with NaN). Matrices
above 16 rows are where Eigen switches to blocked kernels, which round in another order.
eigh runs Eigen's eigensolver (eigen_solvers.py: TensorFlow does not normalize the signs of
eigenvectors, so they are the algorithm's) and svd Eigen's JacobiSVD (eigen_svd.py), both
ported; LAPACK (np.linalg) takes over above 64 rows (eigh) or 16 columns (svd).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from gradcli.core.ops import eigen_solvers, eigen_svd


class NotInvertible(ValueError):
    """Where TensorFlow's kernel raises InvalidArgumentError (the message says why)."""


def _stack(a) -> tuple[np.ndarray, tuple[int, ...]]:
    """The matrices of a as one (count, m, n) array (a copy), and the batch shape."""
    a = np.asarray(a)
    batch = a.shape[:-2]
    return np.array(a.reshape((int(np.prod(batch)), *a.shape[-2:])), copy=True), batch


def _where(index: int, batch: tuple[int, ...]) -> str:
    """' (matrix [1, 0] of the batch)' for a flat batch index, '' without a batch."""
    if not batch:
        return ""
    at = ", ".join(map(str, np.unravel_index(index, batch)))
    return f" (matrix [{at}] of the batch)"


_MEMO: OrderedDict = OrderedDict()
MEMO_SIZE = 8


def _memoized(fn):
    """fn(a) remembered for the last few inputs: a graph asks eigh for its eigenvalues and its
    eigenvectors, and svd for s, U and V, in separate nodes of the same matrix."""

    def cached(a):
        a = np.ascontiguousarray(a)
        key = (fn.__name__, a.dtype.str, a.shape, a.tobytes())
        found = _MEMO.get(key)
        if found is None:
            found = _MEMO[key] = fn(a)
            while len(_MEMO) > MEMO_SIZE:
                _MEMO.popitem(last=False)
        else:
            _MEMO.move_to_end(key)
        return tuple(x.copy() for x in found)

    cached.__doc__ = fn.__doc__
    return cached


def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


# --- LU with partial pivoting ---------------------------------------------------------------
def _pivot_rows(col: np.ndarray) -> np.ndarray:
    """Eigen's maxCoeff over |col| per row of col: the first largest, NaN skipped unless it
    comes first (its visitor keeps a value only when it is greater than the one held)."""
    score = np.abs(col)
    nan = np.isnan(score)
    best = np.argmax(np.where(nan, -np.inf, score), axis=-1)
    return np.where(nan[:, 0], 0, best)


def lu(a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(LU, perm, odd) of every matrix: Eigen's unblocked PartialPivLU, L unit lower and U in
    one matrix, row k of LU from row perm[k] of a, odd when the row swaps are odd."""
    m, batch = _stack(a)
    count, n, _ = m.shape
    perm = np.tile(np.arange(n), (count, 1))
    odd = np.zeros(count, bool)
    rows = np.arange(count)
    with np.errstate(all="ignore"):
        for k in range(n):
            p = _pivot_rows(m[:, k:, k]) + k
            pivot = m[rows, p, k]
            live = pivot != 0  # a zero column is left as it is (Eigen records the pivot)
            swap = live & (p != k)
            if swap.any():
                s, q = rows[swap], p[swap]
                m[s, k], m[s, q] = m[s, q], m[s, k].copy()
                perm[s, k], perm[s, q] = perm[s, q], perm[s, k].copy()
                odd[s] ^= True
            if k + 1 < n:
                m[live, k + 1 :, k] /= pivot[live, None]
                # the rank-1 update of the trailing block: a_ij - l_ik * u_kj
                m[:, k + 1 :, k + 1 :] -= m[:, k + 1 :, k, None] * m[:, k, None, k + 1 :]
    return m.reshape(*batch, n, n), perm.reshape(*batch, n), odd.reshape(batch)


def slogdet(a) -> tuple[np.ndarray, np.ndarray]:
    """TensorFlow's (sign, log|det|): the permutation's sign times the signs of U's diagonal
    (0 for a zero pivot, NaN for a NaN one) and the sum of log|u_ii|; an empty matrix gives
    (1, 0). A singular matrix gives (±0, -inf)."""
    factors, _, odd = lu(a)
    d = np.diagonal(factors, axis1=-2, axis2=-1)
    with np.errstate(all="ignore"):
        logabs = np.sum(np.log(np.abs(d)), axis=-1)
        sign = np.where(odd, -1.0, 1.0).astype(d.dtype) * np.prod(np.sign(d), axis=-1)
    return sign, logabs


def det(a) -> np.ndarray:
    """TensorFlow's determinant: sign * exp(log|det|) (so det([[3]]) is 3.0000000000000004)."""
    sign, logabs = slogdet(a)
    with np.errstate(all="ignore"):
        return sign * np.exp(logabs)


def _invertible(factors: np.ndarray) -> np.ndarray:
    """TensorFlow's test per matrix: the smallest |u_ii| (Eigen's minCoeff: NaN skipped unless
    first) is > 0."""
    d = np.abs(np.diagonal(factors, axis1=-2, axis2=-1))
    if d.shape[-1] == 0:
        return np.ones(d.shape[:-1], bool)
    least = d[..., 0]
    for k in range(1, d.shape[-1]):
        least = np.where(d[..., k] < least, d[..., k], least)
    return least > 0


def _check(factors: np.ndarray, message: str) -> None:
    ok = _invertible(factors).reshape(-1)
    if not ok.all():
        raise NotInvertible(message + _where(int(np.argmin(ok)), factors.shape[:-2]))


# --- triangular substitution ----------------------------------------------------------------
def _dot_solve(t: np.ndarray, b: np.ndarray, lower: bool, unit: bool) -> np.ndarray:
    """x with t x = b, row by row (Eigen's kernel for a row-major triangle): x_i = (b_i -
    sum_k t_ik x_k) * (1 / t_ii), the sum from +0 in k order."""
    n = t.shape[-1]
    x = np.empty(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    done: list[int] = []
    with np.errstate(all="ignore"):
        for i in order:
            acc = np.zeros(x.shape[:-2] + x.shape[-1:], x.dtype)
            if n <= 16:
                for k in sorted(done):
                    acc = acc + t[..., i, k, None] * x[..., k, :]
            elif done:
                ks = sorted(done)
                acc = acc + np.einsum("...k,...kj->...j", t[..., i, ks], x[..., ks, :])
            r = b[..., i, :] - acc
            x[..., i, :] = r if unit else r * (1 / t[..., i, i, None])
            done.append(i)
    return x


def _axpy_solve(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """x with t x = b column by column (Eigen's kernel for a column-major triangle, such as
    the adjoint of a row-major one): x_i = b_i * (1 / t_ii), then b_r -= x_i * t_ri below."""
    n = t.shape[-1]
    x = np.array(np.broadcast_to(b, np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:]))
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            x[..., i, :] = x[..., i, :] * (1 / t[..., i, i, None])
            rest = slice(i + 1, n) if lower else slice(0, i)
            x[..., rest, :] -= x[..., i, None, :] * t[..., rest, i, None]
    return x


def triangular_solve(a, b, lower: bool = True, adjoint: bool = False) -> np.ndarray:
    """tf.linalg.triangular_solve: x with a x = b (adjoint: a^T x = b), reading only the
    lower (or upper) triangle of a; batch dimensions broadcast; a zero diagonal gives inf."""
    a, b = np.asarray(a), np.asarray(b)
    if adjoint:  # the transpose of a row-major triangle is a column-major one
        return _axpy_solve(_swap(a), b, not lower)
    return _dot_solve(a, b, lower, unit=False)


def _lu_solve(factors: np.ndarray, perm: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with a x = b from a's LU: P b, then the unit lower and the upper substitutions."""
    pb = np.take_along_axis(b, perm[..., None], axis=-2)
    y = _dot_solve(factors, pb, lower=True, unit=True)
    return _dot_solve(factors, y, lower=False, unit=False)


def inverse(a, adjoint: bool = False) -> np.ndarray:
    """tf.linalg.inv: Eigen's PartialPivLU inverse (of a^T when adjoint); raises where
    TensorFlow raises, at an exact zero (or leading NaN) pivot."""
    a = np.asarray(a)
    factors, perm, _ = lu(_swap(a) if adjoint else a)
    _check(factors, "the matrix is not invertible (TensorFlow: 'Input is not invertible.')")
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return _lu_solve(factors, perm, eye)


def solve(a, b, adjoint: bool = False) -> np.ndarray:
    """tf.linalg.solve: x with a x = b (adjoint: a^T x = b) by Eigen's PartialPivLU."""
    a, b = np.asarray(a), np.asarray(b)
    factors, perm, _ = lu(_swap(a) if adjoint else a)
    _check(
        factors,
        "the matrix is not invertible (TensorFlow: 'Input matrix is not invertible.')",
    )
    return _lu_solve(factors, perm, b)


# --- Cholesky ------------------------------------------------------------------------------
def cholesky(a) -> np.ndarray:
    """tf.linalg.cholesky: Eigen's unblocked LLT of the lower triangle (the upper one is never
    read). Where a pivot is <= 0 (not positive definite) TensorFlow fills the lower triangle
    with NaN and leaves the upper one uninitialized; gradcli leaves it 0. A NaN pivot is not
    a failure (NaN <= 0 is false): NaN spreads through the factor."""
    m, batch = _stack(a)
    count, n, _ = m.shape
    m = np.tril(m)
    failed = np.zeros(count, bool)
    with np.errstate(all="ignore"):
        for k in range(n):
            x = m[:, k, k] - np.sum(m[:, k, :k] * m[:, k, :k], axis=-1) if k else m[:, k, k]
            failed |= x <= 0
            root = np.sqrt(x)
            m[:, k, k] = root
            if k + 1 < n:
                below = m[:, k + 1 :, k]
                if k:
                    below = below - np.einsum("bij,bj->bi", m[:, k + 1 :, :k], m[:, k, :k])
                m[:, k + 1 :, k] = below / root[:, None]
    if failed.any():
        m[failed] = np.where(np.tri(n, dtype=bool), np.nan, 0.0)
    return m.reshape(*batch, n, n)


# --- eigh, svd -----------------------------------------------------------------------------
@_memoized
def eigh(a) -> tuple[np.ndarray, np.ndarray]:
    """tf.linalg.eigh from the lower triangle: eigenvalues ascending and eigenvectors
    (columns), by Eigen's algorithm (eigen_solvers.py), so with TensorFlow's signs. Where
    Eigen's solver does not converge (NaN in the matrix, Inf mostly: it scales by the
    largest |a|), TensorFlow raises, and so does gradcli."""
    m, batch = _stack(a)
    count, n = m.shape[0], m.shape[-1]
    e = np.empty((count, n), m.dtype)
    v = np.empty((count, n, n), m.dtype)
    for k in range(count if n else 0):
        try:
            if n <= eigen_solvers.MAX_PORTED:
                e[k], v[k] = eigen_solvers.eigh_one(m[k])
            elif np.isfinite(np.tril(m[k])).all():
                e[k], v[k] = np.linalg.eigh(m[k], UPLO="L")
            else:
                raise eigen_solvers.NoConvergence
        except eigen_solvers.NoConvergence:
            raise NotInvertible(
                "the matrix holds NaN or Inf, where TensorFlow's solver fails ('Self-adjoint "
                "eigen decomposition was not successful')" + _where(k, batch)
            ) from None
    return e.reshape(*batch, n), v.reshape(*batch, n, n)


@_memoized
def svd_full(a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, u, v) as tf.linalg.svd(full_matrices=True): u (rows, rows), v (cols, cols); the
    same s and leading columns as svd(a)."""
    m, batch = _stack(a)
    count, rows, cols = m.shape
    p = min(rows, cols)
    s = np.full((count, p), np.nan, m.dtype)
    u = np.full((count, rows, rows), np.nan, m.dtype)
    v = np.full((count, cols, cols), np.nan, m.dtype)
    good = np.isfinite(m).reshape(count, -1).all(axis=1)
    if cols < eigen_svd.JACOBI_BELOW:
        for k in np.flatnonzero(good):
            s[k], u[k], v[k] = eigen_svd.jacobi_svd(m[k], full=True)
    elif good.any():
        uu, s[good], vh = np.linalg.svd(m[good], full_matrices=True)
        u[good], v[good] = uu, _swap(vh)
    return s.reshape(*batch, p), u.reshape(*batch, rows, rows), v.reshape(*batch, cols, cols)


@_memoized
def svd(a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, u, v) as tf.linalg.svd(full_matrices=False): s descending, a = u diag(s) v^T. Below
    16 columns this is Eigen's JacobiSVD (eigen_svd.py), as TensorFlow's BDCSVD hands such
    matrices to it (exact zeros for rank-deficient 2 x 2 blocks); above, LAPACK's. A matrix
    holding NaN or Inf gives NaN: Eigen refuses it and TensorFlow fills the outputs with NaN."""
    m, batch = _stack(a)
    count, rows, cols = m.shape
    p = min(rows, cols)
    s = np.full((count, p), np.nan, m.dtype)
    u = np.full((count, rows, p), np.nan, m.dtype)
    v = np.full((count, cols, p), np.nan, m.dtype)
    good = np.isfinite(m).reshape(count, -1).all(axis=1)
    if p and cols < eigen_svd.JACOBI_BELOW:
        for k in np.flatnonzero(good):
            s[k], u[k], v[k] = eigen_svd.jacobi_svd(m[k])
    elif p and good.any():
        uu, s[good], vh = np.linalg.svd(m[good], full_matrices=False)
        u[good], v[good] = uu, _swap(vh)
    return s.reshape(*batch, p), u.reshape(*batch, rows, p), v.reshape(*batch, cols, p)

"""Eigen's JacobiSVD, step by step in numpy: TensorFlow's svd on the CPU below 16 columns.

TensorFlow's Svd kernel calls Eigen's BDCSVD, which hands matrices with fewer than 16
columns to JacobiSVD: the matrix scaled by its largest |a|, reduced to a square R by a
column-pivoted Householder QR when it is not square (of its transpose when it is wide),
then two-sided Jacobi sweeps (a rotation making each 2 x 2 block symmetric, then the
rotation diagonalizing it) until every off-diagonal entry is at most 2 eps times the
largest diagonal one; singular values made positive and sorted, U and V accumulated.
Square matrices give TensorFlow's values to the bit; the QR's norms round in numpy's
order, an ulp or two away.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.eigen_solvers import householder, scalars

JACOBI_BELOW = 16  # Eigen's BDCSVD algoswap: fewer columns than this run JacobiSVD


def _reflect(block: np.ndarray, essential: np.ndarray, tau, t) -> None:
    """Eigen's applyHouseholderOnTheLeft: block = (I - tau v v^T) block, v = [1, essential]."""
    if block.shape[0] == 1:
        block *= t(1) - tau
    elif tau != 0 and block.size:
        tmp = essential @ block[1:] + block[0]
        block[0] -= tau * tmp
        block[1:] -= np.outer(tau * essential, tmp)


def _col_piv_qr(a: np.ndarray, sqrt, t, full=False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigen's ColPivHouseholderQR of a tall matrix: (R, thin Q (full Q when full), column
    order), the largest remaining column norm first (norms downdated as LAPACK's xGEQPF,
    recomputed when the downdate loses accuracy)."""
    rows, cols = a.shape
    a = a.copy()
    order = np.arange(cols)
    direct = [sqrt(t(np.dot(column, column))) for column in a.T]
    updated = list(direct)
    threshold = sqrt(t(np.finfo(a.dtype).eps))
    taus = []
    for k in range(cols):
        best = k
        for j in range(k + 1, cols):
            if updated[j] > updated[best]:
                best = j
        if best != k:
            a[:, [k, best]] = a[:, [best, k]]
            order[[k, best]] = order[[best, k]]
            updated[k], updated[best] = updated[best], updated[k]
            direct[k], direct[best] = direct[best], direct[k]
        essential, tau, beta = householder(a[k:, k].copy(), sqrt, t)
        a[k, k] = beta
        a[k + 1 :, k] = essential
        taus.append(tau)
        _reflect(a[k:, k + 1 :], essential, tau, t)
        for j in range(k + 1, cols):
            if updated[j] != 0:
                r = abs(t(a[k, j])) / updated[j]
                r = (t(1) + r) * (t(1) - r)
                r = t(0) if r < 0 else r
                ratio = updated[j] / direct[j]
                if r * (ratio * ratio) <= threshold:
                    tail = a[k + 1 :, j]
                    direct[j] = updated[j] = sqrt(t(np.dot(tail, tail)))
                else:
                    updated[j] = updated[j] * sqrt(r)
    q = np.eye(rows, rows if full else cols, dtype=a.dtype)
    for k in range(cols - 1, -1, -1):  # Q = H_0 ... H_{cols-1} applied to the thin identity
        _reflect(q[k:], a[k + 1 :, k], taus[k], t)
    return np.triu(a[:cols, :cols]), q, order


def _jacobi(x, y, z, sqrt, t, tiny):
    """Eigen's makeJacobi(x, y, z): (c, s) diagonalizing the symmetric [[x, y], [y, z]]."""
    deno = t(2) * abs(y)
    if deno < tiny:
        return t(1), t(0)
    tau = (x - z) / deno
    w = sqrt(tau * tau + t(1))
    tt = t(1) / (tau + w) if tau > 0 else t(1) / (tau - w)
    sign = t(1) if tt > 0 else t(-1)
    n = t(1) / sqrt(tt * tt + t(1))
    return n, -sign * (y / abs(y)) * abs(tt) * n


def _rotate(w, u, v, p, q, sqrt, t, tiny) -> None:
    """One 2 x 2 step on rows/columns p, q (Eigen's real_2x2_jacobi_svd and its updates)."""
    m00, m01, m10, m11 = t(w[p, p]), t(w[p, q]), t(w[q, p]), t(w[q, q])
    total, diff = m00 + m11, m10 - m01
    if abs(diff) < tiny:
        c1, s1 = t(1), t(0)
    else:
        ratio = total / diff
        root = sqrt(t(1) + ratio * ratio)
        c1, s1 = ratio / root, t(1) / root
    # rot1 applied on the left of the block makes it symmetric
    m00, m01, m11 = c1 * m00 + s1 * m10, c1 * m01 + s1 * m11, -s1 * m01 + c1 * m11
    cr, sr = _jacobi(m00, m01, m11, sqrt, t, tiny)
    # j_left = rot1 * j_right^T (JacobiRotation's product)
    cl, sl = c1 * cr - s1 * (-sr), c1 * (-sr) + s1 * cr
    x, y = w[p].copy(), w[q].copy()
    w[p], w[q] = cl * x + sl * y, -sl * x + cl * y
    for mat, c, s in ((w, cr, sr), (u, cl, -sl), (v, cr, sr)):  # columns: rotation^T
        x, y = mat[:, p].copy(), mat[:, q].copy()
        mat[:, p], mat[:, q] = c * x - s * y, s * x + c * y


def jacobi_svd(a: np.ndarray, full=False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s descending, U, V) of one finite matrix, as Eigen's JacobiSVD computes them: thin U
    and V, or with full the square ones (the QR's whole Q: the rotations and the sort only
    touch the first min(rows, cols) columns)."""
    t, sqrt = scalars(a.dtype)
    tiny = np.finfo(a.dtype).tiny
    rows, cols = a.shape
    scale = t(np.max(np.abs(a))) if a.size else t(0)
    scale = t(1) if scale == 0 else scale
    if rows > cols:
        w, u, order = _col_piv_qr(a / scale, sqrt, t, full)
        v = np.eye(cols, dtype=a.dtype)[np.argsort(order)]  # the permutation as a matrix
    elif cols > rows:
        r, v, order = _col_piv_qr((a / scale).T.copy(), sqrt, t, full)
        w, u = r.T.copy(), np.eye(rows, dtype=a.dtype)[np.argsort(order)]
    else:
        w, u, v = a / scale, np.eye(rows, dtype=a.dtype), np.eye(cols, dtype=a.dtype)
    n = w.shape[0]
    precision = t(2) * t(np.finfo(a.dtype).eps)
    biggest = t(np.max(np.abs(np.diagonal(w)))) if n else t(0)
    finished = False
    while not finished:
        finished = True
        for p in range(1, n):
            for q in range(p):
                threshold = max(t(tiny), precision * biggest)
                if abs(t(w[p, q])) > threshold or abs(t(w[q, p])) > threshold:
                    finished = False
                    _rotate(w, u, v, p, q, sqrt, t, tiny)
                    biggest = max(biggest, abs(t(w[p, p])), abs(t(w[q, q])))
    d = np.diagonal(w)
    u[:, np.flatnonzero(d < 0)] *= -1
    s = np.abs(d) * scale
    for i in range(n):  # selection by the first largest; stop at the zeros
        pos = i + int(np.argmax(s[i:]))
        if s[pos] == 0:
            break
        if pos != i:
            swap, back = [i, pos], [pos, i]
            s[swap], u[:, swap], v[:, swap] = s[back], u[:, back], v[:, back]
    return s, u, v

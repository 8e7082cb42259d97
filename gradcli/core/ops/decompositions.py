"""Decompositions: cholesky, logdet, eigh, eigvalsh and svd (singular values), as tf.linalg.

Values come from linalg_kernels.py; the gradient rules are linalg_grad.py's, written with
graph ops (matmul, triangular_solve, diag, diag_part, matrix_part), so second
derivatives go through the same rules. Conventions that follow TensorFlow:

- cholesky and eigh read only the lower triangle. TensorFlow's cholesky gradient is the
  gradient for a symmetric input (half on a_ij and half on a_ji), its eigh gradient the
  one of the lower triangle (0 above the diagonal); finite differences (check) follow
  cholesky's convention through `at_point`: the input is read as its lower triangle,
  symmetrized, plus the symmetric part of a perturbation.
- eigh is a multi-output op: its outputs are the nodes `eigvalsh` and `eigh_vectors`.
  The eigenvector gradient uses F_ij = 1 / (e_j - e_i) broadened as TensorFlow's
  _SafeReciprocal, x / (x*x + 1e-20): finite (and 0) at tied eigenvalues.
- svd is tf.linalg.svd: the singular values (compute_uv=False, the spec language's default),
  or the three outputs `svd_values`, `svd_u` and `svd_v` (compute_uv=True). The values'
  gradient is U diag(g) V^T; the vectors' rules are TensorFlow's _SvdGrad with only that
  output's gradient nonzero (its gradient is linear in the three, so their sum is
  TensorFlow's up to rounding), full_matrices included (defined by TensorFlow only when the
  dimensions differ by at most 1). U and V have TensorFlow's signs below 16 columns (Eigen's
  JacobiSVD, ported), LAPACK's above.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import linalg_kernels as kernels
from gradcli.core.ops.composite import composite_op, evaluate
from gradcli.core.ops.linalg_common import (
    diag,
    diag_part,
    mT,
    need_matrix,
    output_printer,
    safe_reciprocal,
    square_infer,
)
from gradcli.core.ops.registry import ATOM, Attr, AttrKind, Op, ShapeError, Transport, register
from gradcli.core.ops.sym import number, obj

OPAQUE = Transport.OPAQUE
NO_SYMPY = "no closed form SymPy can differentiate in general: check uses finite differences"


# --- cholesky -------------------------------------------------------------------------------
def _cholesky_grad(b, n, g):
    # A = L L^T: with Phi(M) the lower triangle of M with its diagonal halved,
    # dL = L Phi(L^-1 dA L^-T), so the gradient is L^-T Phi(L^T g) L^-1, symmetrized:
    # 0.5 (G + G^T) (TensorFlow's _CholeskyGrad, L^-1 from a triangular solve)
    l = n.id
    eye = b.const(np.eye(b.shape(l)[-1]), like=l)
    l_inv = b.triangular_solve(l, eye, lower=True)
    middle = b.matrix_part(b.matmul(mT(b, l), g), part="lower_half_diagonal")
    grad = b.matmul(b.matmul(mT(b, l_inv), middle), l_inv)
    return b.mul(b.add(grad, mT(b, grad)), b.const(0.5, like=l))


def _symmetric_around(x0: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x0 read as its lower triangle, symmetrized, plus the symmetric part of x - x0: equal to
    x0's lower triangle at x = x0, with TensorFlow's symmetric derivative."""
    lower = np.tril(x0) + np.swapaxes(np.tril(x0, -1), -1, -2)
    delta = x - x0
    return lower + (delta + np.swapaxes(delta, -1, -2)) / 2


def _symmetric_at_point(forward):
    """at_point for an op TensorFlow differentiates as a function of a symmetric matrix."""

    def at_point(node, args, raw):
        x0 = np.asarray(raw[0], dtype=np.float64)
        return forward(_symmetric_around(x0, np.asarray(args[0], dtype=np.float64)))

    return at_point


def _cholesky_sympy(sp, attrs, args, values):
    x, x0 = obj(args[0]), np.asarray(values[0], dtype=np.float64)
    lower = np.tril(x0) + np.swapaxes(np.tril(x0, -1), -1, -2)
    out = np.empty(x.shape, dtype=object)
    n = x.shape[-1]
    for idx in np.ndindex(x.shape[:-2]):
        a, a0, s = x[idx], x0[idx], lower[idx]
        # the symmetric reading of the input, as _symmetric_around
        m = [
            [
                number(sp, s[i, j])
                + ((a[i, j] - number(sp, a0[i, j])) + (a[j, i] - number(sp, a0[j, i]))) / 2
                for j in range(n)
            ]
            for i in range(n)
        ]
        lo = [[sp.Integer(0)] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1):
                acc = sum((lo[i][k] * lo[j][k] for k in range(j)), sp.Integer(0))
                if i == j:
                    lo[i][i] = sp.sqrt(m[i][i] - acc)
                else:
                    lo[i][j] = (m[i][j] - acc) / lo[j][j]
        out[idx] = np.array(lo, dtype=object)
    return out


register(
    Op(
        "cholesky",
        square_infer("cholesky"),
        forward=kernels.cholesky,
        grads=(_cholesky_grad,),
        sympy=_cholesky_sympy,
        at_point=_symmetric_at_point(kernels.cholesky),
        no_convention="smooth: the symmetric reading of the input is a parametrisation",
        public=True,
        arity=1,
        accepts="float",
        overflows=True,
        transport=OPAQUE,
        doc="tf.linalg.cholesky: L with L L^T = x, from x's lower triangle; NaN in the lower "
        "triangle where x is not positive definite",
    )
)


# --- logdet: tf.linalg.logdet = 2 * sum(log(diag_part(cholesky(x))), -1) --------------------
def _logdet_expand(b, attrs, x):
    chol = b.cholesky(x)
    return b.mul(b.const(2.0, like=x), b.sum(b.log(diag_part(b, chol)), axis=-1))


register(
    composite_op(
        "logdet",
        _logdet_expand,
        square_infer("logdet", drop=2),
        at_point=_symmetric_at_point(lambda x: evaluate(_logdet_expand)({})(x)),
        arity=1,
        transport=OPAQUE,
        doc="tf.linalg.logdet: log det x of a symmetric positive definite x, through its "
        "Cholesky factor (nan where x is not positive definite)",
    )
)


# --- eigh, eigvalsh -------------------------------------------------------------------------
def _lower_symmetrized(b, grad):
    # the forward reads the lower triangle: band_part(G + G^T, -1, 0), diagonal halved
    return b.matrix_part(b.add(grad, mT(b, grad)), part="lower_half_diagonal")


def _eigvalsh_grad(b, n, g):
    # de_i = v_i^T dA v_i: the gradient is V diag(g) V^T (TensorFlow recomputes V)
    v = b.eigh_vectors(n.inputs[0])
    return _lower_symmetrized(b, b.matmul(v, b.matmul(diag(b, g), mT(b, v))))


def _eigh_vectors_grad(b, n, g):
    # dv_j = sum_{i != j} v_i (v_i^T dA v_j) / (e_j - e_i): the gradient is
    # V (F * (V^T g)) V^T with F_ij = 1 / (e_j - e_i) off the diagonal (broadened)
    x, v = n.inputs[0], n.id
    e = b.eigvalsh(x)
    gaps = b.sub(b.expand_dims(e, axis=-2), b.expand_dims(e, axis=-1))
    f = b.matrix_part(safe_reciprocal(b, gaps), part="off_diagonal")
    inner = b.mul(f, b.matmul(mT(b, v), g))
    return _lower_symmetrized(b, b.matmul(v, b.matmul(inner, mT(b, v))))


def _eigh_unpack(b, attrs, x):
    need_matrix("eigh", b.node(x))
    return [b.eigvalsh(x), b.eigh_vectors(x)]


register(
    Op(
        "eigh",
        square_infer("eigh"),
        unpack=_eigh_unpack,
        public=True,
        arity=1,
        accepts="float",
        doc="tf.linalg.eigh: (eigenvalues ascending, eigenvectors as columns) of the symmetric "
        "matrix in x's lower triangle",
    )
)
register(
    Op(
        "eigvalsh",
        square_infer("eigvalsh", drop=1),
        forward=lambda x: kernels.eigh(x)[0],
        grads=(_eigvalsh_grad,),
        no_sympy=NO_SYMPY,
        public=True,
        arity=1,
        accepts="float",
        transport=OPAQUE,
        doc="tf.linalg.eigvalsh: the eigenvalues (ascending) of the symmetric matrix in x's "
        "lower triangle",
    )
)
register(
    Op(
        "eigh_vectors",
        square_infer("eigh"),
        forward=lambda x: kernels.eigh(x)[1],
        grads=(_eigh_vectors_grad,),
        no_sympy=NO_SYMPY,
        arity=1,
        printer=output_printer("eigh", 1),
        accepts="float",
        transport=OPAQUE,
        doc="the eigenvectors output of eigh (columns; LAPACK's signs)",
    )
)


# --- svd: the singular values and vectors ----------------------------------------------------
def _full(attrs, shape) -> bool:
    """Whether U or V is square and larger than thin (full_matrices on a non-square matrix)."""
    return bool(attrs.get("full_matrices")) and shape[-1] != shape[-2]


def _svd_infer(which: str):
    def infer(attrs, x):
        need_matrix("svd", x, square=False)
        rows, cols = x.shape[-2:]
        p = min(rows, cols)
        full = _full(attrs, x.shape)
        tail = {"s": (p,), "u": (rows, rows if full else p), "v": (cols, cols if full else p)}
        return x.shape[:-2] + tail[which], x.dtype

    return infer


def _svd_kernel(k: int):
    def bind(attrs):
        def forward(x):
            x = np.asarray(x)
            return (kernels.svd_full if _full(attrs, x.shape) else kernels.svd)(x)[k]

        return forward

    return bind


def _svd_grad(b, n, g):
    # ds_i = u_i^T dA v_i: the gradient is U diag(g) V^T
    x = n.inputs[0]
    u, v = b.svd_u(x), b.svd_v(x)
    return b.matmul(u, b.matmul(diag(b, g), mT(b, v)))


def _columns(b, t: int, start: int, stop: int | None) -> int:
    """The columns start:stop of each matrix of t."""
    rank = len(b.shape(t))
    return b.getitem(t, index=(*(slice(None),) * (rank - 1), slice(start, stop)))


def _vectors_grad(which: str):
    """TensorFlow's _SvdGrad with only the gradient of U (or of V) nonzero."""

    def rule(b, n, g):
        x = n.inputs[0]
        rows, cols = b.shape(x)[-2:]
        p = min(rows, cols)
        full = _full(n.attrs, b.shape(x))
        if full and abs(rows - cols) > 1:
            raise ShapeError(
                f"the gradient of svd with full_matrices=true is not defined for a {rows} x "
                f"{cols} matrix: TensorFlow raises NotImplementedError when the dimensions "
                "differ by more than 1"
            )
        g2 = _columns(b, g, p, None) if full else None  # the columns beyond min(rows, cols)
        g = _columns(b, g, 0, p) if full else g
        s = b.svd_values(x)
        u = n.id if which == "u" and not full else b.svd_u(x)
        v = n.id if which == "v" and not full else b.svd_v(x)
        gu, gv = (g, None) if which == "u" else (None, g)
        tall = rows > cols
        if tall:  # differentiate A^T = V S U^T, and transpose back
            u, v, gu, gv, rows, cols = v, u, gv, gu, cols, rows
        # F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, broadened as _SafeReciprocal
        s2 = b.square(s)
        gaps = b.sub(b.expand_dims(s2, axis=-2), b.expand_dims(s2, axis=-1))
        f = b.matrix_part(safe_reciprocal(b, gaps), part="off_diagonal")
        if gu is not None:  # dU: U ((F * U^T gU) + its transpose) S V^T
            fu = b.mul(f, b.matmul(mT(b, u), gu))
            middle = b.matmul(b.add(fu, mT(b, fu)), diag(b, s))
        else:  # dV: U S ((F * V^T gV) + its transpose) V^T
            fv = b.mul(f, b.matmul(mT(b, v), gv))
            middle = b.matmul(diag(b, s), b.add(fv, mT(b, fv)))
        grad = b.matmul(u, b.matmul(middle, mT(b, v)))
        if gv is not None and rows != cols:
            # the part of gV outside the span of V: U S^-1 (gV^T - gV^T V V^T), and with full
            # matrices - U S^-1 (V^T gV2) V2^T for the extra columns V2 of the full V
            gvt = mT(b, gv)
            rest = b.sub(gvt, b.matmul(b.matmul(gvt, v), mT(b, v)))
            if full:
                v2 = _columns(b, n.id, p, None)
                rest = b.sub(rest, b.matmul(b.matmul(mT(b, v), g2), mT(b, v2)))
            u_s_inv = b.matmul(u, diag(b, safe_reciprocal(b, s)))
            grad = b.add(grad, b.matmul(u_s_inv, rest))
        return mT(b, grad) if tall else grad

    return rule


def _svd_unpack(b, attrs, x):
    need_matrix("svd", b.node(x), square=False)
    if not attrs.get("compute_uv", False):
        return b.svd_values(x)  # one tensor, not a tuple
    full = {"full_matrices": True} if _full(attrs, b.shape(x)) else {}
    return [b.svd_values(x, compute_uv=True), b.svd_u(x, **full), b.svd_v(x, **full)]


def _values_printer(node, first, index_text):
    shown = f"svd({first[0]})"
    return (f"{shown[:-1]}, compute_uv=true)[0]" if node.attrs.get("compute_uv") else shown), ATOM


register(
    Op(
        "svd",
        _svd_infer("s"),
        unpack=_svd_unpack,
        public=True,
        arity=1,
        accepts="float",
        attrs=(
            Attr("full_matrices", AttrKind.BOOL, False),
            Attr("compute_uv", AttrKind.BOOL, False),
        ),
        doc="tf.linalg.svd: the singular values, descending (compute_uv=false, gradcli's "
        "default); with compute_uv=true TensorFlow's (s, u, v), a = u diag(s) v^T",
    )
)
register(
    Op(
        "svd_values",
        _svd_infer("s"),
        bind=_svd_kernel(0),
        grads=(_svd_grad,),
        no_sympy=NO_SYMPY,
        arity=1,
        accepts="float",
        transport=OPAQUE,
        printer=_values_printer,
        doc="the singular values output of svd, descending",
    )
)
for _which, _index in (("u", 1), ("v", 2)):
    register(
        Op(
            f"svd_{_which}",
            _svd_infer(_which),
            bind=_svd_kernel(_index),
            grads=(_vectors_grad(_which),),
            no_sympy=NO_SYMPY,
            arity=1,
            accepts="float",
            transport=OPAQUE,
            printer=output_printer("svd", _index),
            doc=f"the singular vectors {_which.upper()} of svd (columns; full_matrices when "
            "its attribute says), with TensorFlow's _SvdGrad",
        )
    )

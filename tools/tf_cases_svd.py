"""TensorFlow reference cases: svd's singular vectors (tf.linalg.svd's (s, u, v)).

Below 16 columns gradcli runs Eigen's JacobiSVD, as TensorFlow's BDCSVD does there, so u and
v are compared with their signs. From 16 columns gradcli uses LAPACK, whose signs are its
own: those cases compare sign-invariant functions (u * u, the reconstruction u diag(s) v^T).
Each case weights the three outputs differently, so every term of TensorFlow's _SvdGrad
(the values' U diag(g) V^T, the vectors' F terms, the part of gV outside the span of V and,
with full_matrices, the extra columns) is exercised.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import In, hessian, spec

_RNG = np.random.default_rng(5150)


def normal(*shape) -> list:
    return np.round(_RNG.normal(size=shape), 3).tolist()


def weighted(x, full, ws, wu, wv):
    s, u, v = tf.linalg.svd(x, full_matrices=full)
    f = tf.reduce_sum(s * ws) + tf.reduce_sum(u * wu) + tf.reduce_sum(v * wv)
    return {"f": f, "s": s, "u": u, "v": v}


# OpenBLAS's LAPACK takes CPU-specific kernels: the vectors' gradients agree to about 7 ulps
# across machines (4 was exact on one CPU only)
LAPACK_ULPS = 16
LAPACK_NOTE = (
    "OpenBLAS's LAPACK takes CPU-specific kernels: the vectors' gradients agree to about 7 "
    "ulps across machines"
)


def svd_case(id, x, *, full=False, dtype="float64", note=""):
    a = np.asarray(x)
    rows, cols = a.shape[-2:]
    p = min(rows, cols)
    batch = a.shape[:-2]
    ushape = (*batch, rows, rows if full else p)
    vshape = (*batch, cols, cols if full else p)
    flag = ", full_matrices=true" if full else ""
    spec(
        id,
        {
            "x": In(x, dtype),
            "ws": In(normal(*batch, p), dtype, False),
            "wu": In(normal(*ushape), dtype, False),
            "wv": In(normal(*vshape), dtype, False),
        },
        {
            "s, u, v": f"svd(x, compute_uv=true{flag})",
            "f": "sum(s * ws) + sum(u * wu) + sum(v * wv)",
        },
        lambda v: weighted(v.x, full, v.ws, v.wu, v.wv),
        wrt=["x"],
        note=f"{note}; {LAPACK_NOTE}" if note else LAPACK_NOTE,
        outputs=["f", "s", "u", "v"],
        ulps=LAPACK_ULPS,
    )


svd_case("svd_vectors_square", normal(3, 3))
svd_case("svd_vectors_tall", normal(4, 2))
svd_case("svd_vectors_wide", normal(2, 5))
svd_case("svd_vectors_batch", normal(2, 3, 3))
svd_case("svd_vectors_float32", normal(3, 2), dtype="float32")
svd_case(
    "svd_vectors_tied",
    [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]],
    note="tied singular values: _SafeReciprocal's F is 0 there, a finite gradient",
)
svd_case("svd_vectors_full_tall", normal(3, 2), full=True, note="U is 3 x 3: the extra column")
svd_case("svd_vectors_full_wide", normal(3, 4), full=True, note="V is 4 x 4: the extra column")
svd_case("svd_vectors_full_square", normal(3, 3), full=True)

LARGE = normal(18, 16)
spec(
    "svd_vectors_lapack_sign_invariant",
    {"x": LARGE, "w": In(normal(18, 16), "float64", False)},
    {"s, u, v": "svd(x, compute_uv=true)", "f": "sum(u * u * w) + sum(v * v) + sum(s)"},
    lambda v: (
        lambda s, u, vv: tf.reduce_sum(u * u * v.w) + tf.reduce_sum(vv * vv) + tf.reduce_sum(s)
    )(*tf.linalg.svd(v.x)),
    wrt=["x"],
    note="16 columns: LAPACK's signs, so only functions of u * u and v * v are compared; "
    "LAPACK's and BDCSVD's vectors differ by rounding, which the gradient's 1 / (s_j^2 - "
    "s_i^2) terms amplify to about 1200 ulps of its largest element",
    ulps=2000,
)
spec(
    "svd_vectors_lapack_reconstruction",
    {"x": LARGE},
    {"s, u, v": "svd(x, compute_uv=true)", "f": "matmul(u * s, transpose(v))"},
    lambda v: (lambda s, u, vv: tf.matmul(u * s, vv, transpose_b=True))(*tf.linalg.svd(v.x)),
    note="u diag(s) v^T is x whatever the signs; its gradient is the identity map",
    ulps=256,
)
hessian(
    "svd_vectors_hessian",
    "sum(svd(x, compute_uv=true)[1] * w) + sum(svd(x, compute_uv=true)[2] * w)",
    {"x": normal(3, 3), "w": normal(3, 3)},
    lambda v: (lambda s, u, vv: tf.reduce_sum(u * v.w) + tf.reduce_sum(vv * v.w))(
        *tf.linalg.svd(v.x)
    ),
    wrt=["x"],
)
hessian(
    "svd_vectors_hessian_tall",
    "sum(svd(x, compute_uv=true)[2] * w)",
    {"x": normal(3, 2), "w": normal(2, 2)},
    lambda v: tf.reduce_sum(tf.linalg.svd(v.x)[2] * v.w),
    wrt=["x"],
)

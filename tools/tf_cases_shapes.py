"""TensorFlow reference cases: contractions (einsum, tensordot, outer).

Operands are small multiples of 1/4 (dyadic), so every product and partial sum is exact
in any order and TensorFlow's Eigen contractions and gradcli's numpy ones agree bit for
bit. Repeated labels (diagonals, traces) and '...' broadcasting exercise TensorFlow's
_EinsumGrad: labels only one operand has are broadcast back, broadcast batch dimensions
are summed.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import expr, hessian

_RNG = np.random.default_rng(1313)


def q(*shape):
    """Dyadic values (multiples of 1/4 in [-2, 2]), their own stream: other modules' stay put."""
    return (_RNG.integers(-8, 9, size=shape) / 4.0).tolist()


EINSUM = [
    ("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("implicit", "ij,jk", [(2, 3), (3, 4)]),
    ("transpose", "ij->ji", [(2, 3)]),
    ("sum_all", "ij->", [(2, 3)]),
    ("sum_axis", "ijk->j", [(2, 3, 4)]),
    ("diag", "ii->i", [(3, 3)]),
    ("trace", "ii", [(3, 3)]),
    ("trace_explicit", "ii->", [(3, 3)]),
    ("outer", "i,j->ij", [(3,), (2,)]),
    ("dot", "i,i->", [(4,), (4,)]),
    ("hadamard", "ij,ij->ij", [(2, 3), (2, 3)]),
    ("batch", "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ellipsis_batch", "...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ellipsis_mid", "i...j,j->i...", [(2, 3, 4), (4,)]),
    ("reduced_other", "ij,k->i", [(2, 3), (4,)]),
    ("diag_times", "iij,jk->ik", [(2, 2, 3), (3, 2)]),
    ("three", "ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("spaces", "ij, jk -> ik", [(2, 2), (2, 2)]),
]
NAMES = "abc"
for _id, _eq, _shapes in EINSUM:
    _names = NAMES[: len(_shapes)]
    _w = q(*np.einsum(_eq, *(np.zeros(s) for s in _shapes)).shape)
    expr(
        f"einsum_{_id}",
        f"sum(einsum('{_eq}', {', '.join(_names)}) * w)",
        {**{n: q(*s) for n, s in zip(_names, _shapes)}, "w": _w},
        lambda v, eq=_eq, names=_names: tf.reduce_sum(
            tf.einsum(eq, *(getattr(v, n) for n in names)) * v.w
        ),
        exact=True,
    )
expr(
    "einsum_empty",
    "sum(einsum('ij,jk->ik', a, reshape(b, [0, 3])) * w)",
    {"a": [[], []], "b": [], "w": q(2, 3)},
    lambda v: tf.reduce_sum(tf.einsum("ij,jk->ik", v.a, tf.reshape(v.b, [0, 3])) * v.w),
    exact=True,
)
hessian(
    "h_einsum",
    "sum(einsum('ij,jk->ik', x, x) * einsum('ii->i', x))",
    {"x": q(3, 3)},
    lambda v: tf.reduce_sum(tf.einsum("ij,jk->ik", v.x, v.x) * tf.einsum("ii->i", v.x)),
    exact=True,
)

# --- outer: tf.experimental.numpy.outer flattens both operands --------------------------------
expr(
    "outer",
    "sum(outer(a, b) * w)",
    {"a": q(3), "b": [-0.0, 0.0, 1.5, -2.0], "w": q(3, 4)},
    lambda v: tf.reduce_sum(tf.experimental.numpy.outer(v.a, v.b) * v.w),
    exact=True,
)
expr(
    "outer_matrices",
    "sum(outer(a, b) * w)",
    {"a": q(2, 2), "b": q(3), "w": q(4, 3)},
    lambda v: tf.reduce_sum(tf.experimental.numpy.outer(v.a, v.b) * v.w),
    exact=True,
)

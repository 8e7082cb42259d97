"""Linear algebra: matmul, with its gradient rules."""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.infer import fmt, need_numeric, same_dtype
from gradcli.core.ops.registry import (
    Op,
    Operator,
    ShapeError,
    Transport,
    lead_aligned,
    register,
)


# --- matmul -------------------------------------------------------------------------------
def _matmul_infer(attrs, a, b):
    dtype = same_dtype("matmul", a, b)
    need_numeric("matmul", a)
    if not a.shape or not b.shape:
        raise ShapeError("matmul needs tensors of rank 1 or more (use * for scalars)")
    k_a = a.shape[-1]
    k_b = b.shape[-2] if len(b.shape) >= 2 else b.shape[0]
    if k_a != k_b:
        raise ShapeError(
            f"matmul: shapes {fmt(a.shape)} and {fmt(b.shape)} do not align ({k_a} != {k_b})"
        )
    batch_a = a.shape[:-2] if len(a.shape) >= 2 else ()
    batch_b = b.shape[:-2] if len(b.shape) >= 2 else ()
    try:
        batch = np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        raise ShapeError(
            f"matmul: batch dimensions of {fmt(a.shape)} and {fmt(b.shape)} do not broadcast"
        ) from None
    rows = (a.shape[-2],) if len(a.shape) >= 2 else ()
    cols = (b.shape[-1],) if len(b.shape) >= 2 else ()
    return tuple(batch) + rows + cols, dtype


def _swap_last(b, i):
    """The transpose of the last two axes (a view in numpy, like TF's transpose_b flag)."""
    rank = len(b.shape(i))
    return b.transpose(i, axes=(*range(rank - 2), rank - 1, rank - 2))


def _as_matrices(b, n, g):
    """The operands and g with 1-D operands promoted to matrices, as numpy's matmul does."""
    x, y = n.inputs
    if len(b.shape(x)) == 1:
        x = b.reshape(x, shape=(1, b.shape(x)[0]))
    if len(b.shape(y)) == 1:
        y = b.reshape(y, shape=(b.shape(y)[0], 1))
    batch = np.broadcast_shapes(b.shape(x)[:-2], b.shape(y)[:-2])
    out_shape = (*batch, b.shape(x)[-2], b.shape(y)[-1])
    if b.shape(g) != out_shape:
        g = b.reshape(g, shape=out_shape)
    return x, y, g


def _matmul_batched(node, probed):
    """matmul over a leading seed axis: numpy's stacked matmul, one product per seed as in a
    pass per seed. A 1-D operand (a vector, not a stack of them) runs once per seed."""
    if len(node.shape) < 2:
        return None
    rank = len(node.shape)

    def forward(a, b):
        if a.ndim - probed[0] < 2 or b.ndim - probed[1] < 2:
            return None
        return np.matmul(lead_aligned(a, rank) if probed[0] else a,
                         lead_aligned(b, rank) if probed[1] else b)  # fmt: skip

    return forward


def _matmul_grad_a(b, n, g):
    _, y, g = _as_matrices(b, n, g)
    out = b.matmul(g, _swap_last(b, y))
    a_shape = b.shape(n.inputs[0])
    return b.reshape(out, shape=b.shape(out)[:-2] + a_shape) if len(a_shape) == 1 else out


def _matmul_grad_b(b, n, g):
    x, _, g = _as_matrices(b, n, g)
    out = b.matmul(_swap_last(b, x), g)
    b_shape = b.shape(n.inputs[1])
    return b.reshape(out, shape=b.shape(out)[:-2] + b_shape) if len(b_shape) == 1 else out


register(
    Op(
        "matmul",
        _matmul_infer,
        forward=np.matmul,
        grads=(_matmul_grad_a, _matmul_grad_b),
        public=True,
        arity=2,
        sympy=lambda sp, attrs, args, values: np.matmul(args[0], args[1]),
        operator=Operator("@", 20),
        overflows=True,
        transport=Transport.CONTRACTION,
        batched=_matmul_batched,
    )
)

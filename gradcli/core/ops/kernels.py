"""Internal elementwise kernels that gradient rules emit: fused gradients and the no-NaN products.

Each is one block, like a public op: TensorFlow's kernels (SqrtGrad, TanhGrad, ReluGrad,
MulNoNan, DivNoNan), so that gradients are bit for bit those of TensorFlow.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.elementwise import _x, _y, binary
from gradcli.core.ops.registry import BROADCAST, KINK, MASK, ZERO_GRAD
from gradcli.core.ops.sym import each, each_at


# mul_no_nan(a, b) = a * b, but 0 where b == 0 (TensorFlow's MulNoNan)
def _mul_no_nan_sympy(sp, xs, vs):
    # x * y, whose derivative to y is x even at y == 0; the constant 0 only where x is inf or nan
    return sp.Integer(0) if vs[1] == 0 and not np.isfinite(vs[0]) else xs[0] * xs[1]


binary(
    "mul_no_nan",
    lambda a, b: np.where(np.equal(b, 0), np.zeros((), np.result_type(a, b)), np.multiply(a, b)),
    lambda a, b: 0.0 if b == 0.0 else a * b,
    (lambda b, n, g: b.mul_no_nan(g, _y(n)), lambda b, n, g: b.mul_no_nan(_x(n), g)),
    behavior=MASK,
    public=True,
    sympy=each_at(_mul_no_nan_sympy),
    doc="x * y, but 0 where y == 0 even if x is inf or nan, TensorFlow's MulNoNan",
    overflows=True,
)


# div_no_nan(a, b) = a / b, but 0 where b == 0 even if a is inf or nan (the cumprod
# gradient uses it; TensorFlow's DivNoNan and its gradient)
def _div_no_nan_forward(a, b):
    with np.errstate(all="ignore"):
        quotient = np.true_divide(a, b)
    return np.where(np.equal(b, 0), np.zeros((), quotient.dtype), quotient)


def _div_no_nan_grad_y(b, n, g):
    x, y = n.inputs
    return b.mul(g, b.div_no_nan(b.div_no_nan(b.neg(x), y), y))


binary(
    "div_no_nan",
    _div_no_nan_forward,
    lambda a, b: 0.0 if b == 0.0 else a / b,
    (lambda b, n, g: b.div_no_nan(g, _y(n)), _div_no_nan_grad_y),
    public=True,
    overflows=True,
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[1] == 0 else xs[0] / xs[1]),
    doc="x / y, but 0 where y == 0 even if x is inf or nan, TensorFlow's DivNoNan",
)


# --- gradient kernels (internal): TensorFlow's fused gradient ops and their own gradients ----
def _sqrt_grad_forward(y, dy):
    with np.errstate(all="ignore"):
        return np.where(np.equal(dy, 0), np.zeros((), np.result_type(y, dy)), 0.5 * dy / y)


def _sqrt_grad_scalar(y, dy):
    return 0.0 if dy == 0.0 else 0.5 * dy / y


def _sqrt_grad_grad_y(b, n, g):
    # TensorFlow's SqrtGradGrad: ga = g / y; d/dy = -ga * out
    y = _x(n)
    return b.mul(b.neg(b.div(g, y)), n.id)


def _sqrt_grad_grad_dy(b, n, g):
    y = _x(n)
    return b.mul(b.const(0.5, like=y), b.div(g, y))


binary(
    "sqrt_grad",
    _sqrt_grad_forward,
    _sqrt_grad_scalar,
    (_sqrt_grad_grad_y, _sqrt_grad_grad_dy),
    public=False,
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[1] == 0 else xs[1] / (2 * xs[0])),
    overflows=True,
    pole=lambda y, dy: y == 0,
)


def _tanh_grad_grad_y(b, n, g):
    # d/dy [dy * (1 - y^2)] = -2 * dy * y
    y, dy = n.inputs
    return b.mul(b.mul(b.mul(g, b.const(-2.0, like=y)), dy), y)


def _tanh_grad_forward(y, dy, out=None):
    """dy * (1 - y*y), the same three roundings, with one array instead of three temporaries.

    out (a dead buffer of the result's shape and dtype, from the executor) takes y*y unless
    it holds dy, which is still to be read.
    """
    t = np.multiply(y, y, out=None if out is None or np.may_share_memory(out, dy) else out)
    if type(t) is not np.ndarray:  # 0-d values: numpy scalars, no buffer to reuse
        return dy * (1.0 - t)
    np.subtract(1.0, t, out=t)
    dest = t if out is None else out
    if (
        np.broadcast_shapes(np.shape(dy), t.shape) != dest.shape
        or np.result_type(dy, t) != dest.dtype
    ):
        return dy * t
    return np.multiply(dy, t, out=dest)


binary(
    "tanh_grad",
    _tanh_grad_forward,
    lambda y, dy: dy * (1.0 - y * y),
    (_tanh_grad_grad_y, lambda b, n, g: b.tanh_grad(_x(n), g)),
    public=False,
    sympy=each(lambda sp, y, dy: dy * (1 - y**2)),
    overflows=True,
)


def _sigmoid_grad_grad_y(b, n, g):
    # d/dy [dy * y * (1 - y)] = dy - 2 * dy * y
    y, dy = n.inputs
    gb = b.mul(g, dy)
    return b.sub(gb, b.mul(b.mul(b.const(2.0, like=y), gb), y))


binary(
    "sigmoid_grad",
    lambda y, dy: dy * y * (1.0 - y),
    lambda y, dy: dy * y * (1.0 - y),
    (_sigmoid_grad_grad_y, lambda b, n, g: b.sigmoid_grad(_x(n), g)),
    public=False,
    sympy=each(lambda sp, y, dy: dy * y * (1 - y)),
    overflows=True,
)


def _relu_grad_forward(dy, out):
    # dy * (out > 0), as TensorFlow's ReluGrad kernel: inf * 0 is nan there too
    return dy * np.greater(out, 0).astype(np.result_type(dy, out))


def _relu_grad_scalar(dy, out):
    return dy * (1.0 if out > 0.0 else 0.0)


def _relu_grad_selection(graph, node, value):
    # relu_grad(dy, out) gives 0 where out <= 0 and passes dy elsewhere
    return ~(value(node.inputs[1]) > 0), node.inputs[0]


binary(
    "relu_grad",
    _relu_grad_forward,
    _relu_grad_scalar,
    (lambda b, n, g: b.relu_grad(g, _y(n)), lambda b, n, g: ZERO_GRAD),
    behavior=KINK,
    public=False,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[1] > 0 else sp.Integer(0)),
    overflows=True,
    selects=True,
    selection=_relu_grad_selection,
    batched=BROADCAST,
)

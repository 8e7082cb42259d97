"""TensorFlow reference cases: higher orders through ops whose gradient reads their output.

TensorFlow's gradient of these ops takes the forward output y as an input (MaxPoolGrad(x,
y, g), ReluGrad(g, y), TanhGrad(y, g), SqrtGrad(y, g), exp's g * y, softmax's (g - sum(g *
y)) * y, erfinv's exp(square(y)), ...). The gradient of such a kernel then sends something
to y, even a zeros_like (MaxPoolGradGrad's, ReluGradGrad's): that flows back through the
forward op's own gradient, so x stays connected at every order (a connected zero, not
None). Each case is a nested-tape derivative of orders 1 to 4, and mixed orders with a
second input where one fits (tools/tf_reference.py's tf_nested; tests/conformance/
test_tf_reference.py compares `gradcli derivative` with it).
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import derivative

S4 = ["x", "x,x", "x,x,x", "x,x,x,x"]
MIXED = [*S4, "x,w,x", "w,x,x", "x,x,w", "x,w,x,x"]
X3 = [-1.25, 0.5, 2.0]
W3 = [1.5, -0.5, 2.0]
A2 = [[2.0, 0.5], [-0.25, 1.5]]
SPD2 = [[2.0, 0.5], [0.5, 1.5]]


def _sum_w(fn):
    return lambda v: tf.reduce_sum(fn(v.x) * v.w)


# --- pools: MaxPoolGrad(x, y, g) and MaxPoolGradGrad(x, y, gg), zeros to x and y ---------
derivative(
    "o_max_pool1d",
    "sum(max_pool1d(x, 2, 2, 'VALID') * w)",
    {"x": [[[0.5], [-1.25], [2.0], [0.75]]], "w": [[[1.5], [-0.5]]]},
    _sum_w(lambda x: tf.nn.max_pool1d(x, 2, 2, "VALID")),
    MIXED,
    exact=True,
    note="d2/dx2 is MaxPoolGradGrad's zeros, sent through y = max_pool(x): connected zeros",
)
derivative(
    "o_max_pool2d",
    "sum(max_pool2d(x, 2, 2, 'VALID'))",
    {"x": [[[[0.5], [-1.25], [2.0], [0.75]], [[1.0], [3.0], [-0.5], [0.25]]]]},
    lambda v: tf.reduce_sum(tf.nn.max_pool2d(v.x, 2, 2, "VALID")),
    S4,
    exact=True,
    note="the third derivative is a connected zero (TensorFlow's MaxPoolGrad reads y)",
)
derivative(
    "o_max_pool2d_square",
    "sum(square(max_pool2d(x, 2, 1, 'SAME')))",
    {"x": [[[[0.5], [-1.25]], [[1.0], [3.0]]]]},
    lambda v: tf.reduce_sum(tf.square(tf.nn.max_pool2d(v.x, 2, 1, "SAME"))),
    S4,
    exact=True,
)
derivative(
    "o_max_pool3d",
    "sum(cast(max_pool3d(cast(x, 'float32'), 2, 2, 'VALID'), 'float64') * w)",
    {
        "x": [[[[[0.5], [-1.25]], [[2.0], [0.75]]], [[[1.0], [3.0]], [[-0.5], [0.25]]]]],
        "w": [[[[[-1.5]]]]],
    },
    lambda v: tf.reduce_sum(
        tf.cast(tf.nn.max_pool3d(tf.cast(v.x, tf.float32), 2, 2, "VALID"), tf.float64) * v.w
    ),
    MIXED,
    exact=True,
)

# --- kinks: ReluGrad(g, y), Relu6Grad(g, y) with zeros to y; EluGrad, SeluGrad -----------
derivative(
    "o_relu_w",
    "sum(relu(x) * w)",
    {"x": [-1.0, 0.0, 2.0], "w": W3},
    _sum_w(tf.nn.relu),
    MIXED,
    exact=True,
)
derivative(
    "o_relu6",
    "sum(relu6(x) * w)",
    {"x": [-1.0, 3.0, 7.0], "w": W3},
    _sum_w(tf.nn.relu6),
    MIXED,
    exact=True,
)
derivative(
    "o_hard_sigmoid",
    "sum(hard_sigmoid(x))",
    {"x": [-4.0, 0.5, 1.5]},
    lambda v: tf.reduce_sum(tf.nn.relu6(v.x + 3.0) / 6.0),
    S4,
    note="Keras 3's relu6(x + 3) / 6: the division by 6 rounds",
)
derivative(
    "o_leaky_relu",
    "sum(leaky_relu(x) * w)",
    {"x": [-1.0, 0.5, 2.0], "w": W3},
    _sum_w(tf.nn.leaky_relu),
    MIXED,
    exact=True,
    note="LeakyReluGrad(g, x) reads the input, not the output: its zeros_like(x) ends there",
)
derivative(
    "o_elu",
    "sum(elu(x) * w)",
    {"x": [-1.0, 0.5, 2.0], "w": W3},
    _sum_w(tf.nn.elu),
    MIXED,
    note="EluGrad(g, y): where(y < 0, g * dy, zeros) to y; the positive side stays connected",
)
derivative(
    "o_selu",
    "sum(selu(x) * w)",
    {"x": [-1.0, 0.5, 2.0], "w": W3},
    _sum_w(tf.nn.selu),
    MIXED,
    note="SeluGrad(g, y), as EluGrad",
)

# --- smooth ops whose gradient kernel reads y ---------------------------------------------
# cumulative_logsumexp's third derivative at x, x, x (and x, w, x) differs from
# TensorFlow's in where its NaNs fall (TensorFlow's is all NaN: its log-split of the
# upstream gradient meets exact zeros); kept to the orders that agree, see the note
LSE_SEQS = ["x", "x,x", "w,x,x", "x,w,x,x"]
for _name, _text, _fn, _at in [
    ("exp", "exp(x)", tf.exp, X3),
    ("tanh", "tanh(x)", tf.tanh, X3),
    ("sigmoid", "sigmoid(x)", tf.sigmoid, X3),
    ("sqrt", "sqrt(x)", tf.sqrt, [0.25, 1.5, 4.0]),
    ("rsqrt", "rsqrt(x)", tf.math.rsqrt, [0.25, 1.5, 4.0]),
    ("reciprocal", "reciprocal(x)", tf.math.reciprocal, X3),
    ("asinh", "asinh(x)", tf.asinh, X3),
    ("acosh", "acosh(x)", tf.acosh, [1.25, 1.5, 3.0]),
    ("softplus", "softplus(x)", tf.nn.softplus, X3),
    ("softmax", "softmax(x)", tf.nn.softmax, X3),
    ("log_softmax", "log_softmax(x)", tf.nn.log_softmax, X3),
    ("cumprod", "cumprod(x)", tf.math.cumprod, [-2.0, 0.5, 4.0]),  # exact divisions
    ("cumulative_logsumexp", "cumulative_logsumexp(x)", tf.math.cumulative_logsumexp, X3),
    ("l2_normalize", "l2_normalize(x)", tf.math.l2_normalize, X3),
]:
    derivative(
        f"o_{_name}",
        f"sum({_text} * w)",
        {"x": _at, "w": W3},
        _sum_w(_fn),
        LSE_SEQS if _name == "cumulative_logsumexp" else MIXED,
        ulps=16 if _name in ("cumulative_logsumexp", "log_softmax", "softmax") else None,
        note="TensorFlow's gradient reads the output; the third and fourth derivatives "
        "cancel: a few ulps of their largest element"
        if _name in ("cumulative_logsumexp", "log_softmax", "softmax")
        else f"TensorFlow's gradient of {_name} reads its output",
    )
derivative(
    "o_pow_exponent",
    "sum(x ** y)",
    {"x": [0.5, 2.0, 1.5], "y": [1.5, -1.0, 2.0]},
    lambda v: tf.reduce_sum(v.x**v.y),
    ["y", "y,y", "y,y,y", "y,x,y", "x,y,y,y"],
    note="pow's gradient to the exponent is g * z * log(x), z its output",
)

# --- linear algebra: det (c), inv (ainv), solve and triangular_solve (c), cholesky (l) -----
derivative(
    "o_det",
    "det(x)",
    {"x": [[2.0, 1.0], [1.0, 1.0]]},
    lambda v: tf.linalg.det(v.x),
    S4,
    note="a point where LU and the inverse are exact: the third and fourth derivatives of "
    "a 2x2 determinant are exact zeros, connected",
)
derivative(
    "o_inv",
    "sum(inv(x) * w)",
    {"x": A2, "w": [[1.0, -0.5], [0.25, 2.0]]},
    _sum_w(tf.linalg.inv),
    ["x", "x,x", "x,x,x", "x,w,x", "w,x,x"],
)
derivative(
    "o_solve",
    "sum(solve(x, w))",
    {"x": A2, "w": [[1.0], [-0.5]]},
    lambda v: tf.reduce_sum(tf.linalg.solve(v.x, v.w)),
    ["x", "x,x", "x,x,x", "x,w,x", "w,x,x", "w,w"],
)
derivative(
    "o_triangular_solve",
    "sum(triangular_solve(x, w))",
    {"x": [[2.0, 0.0], [-0.25, 1.5]], "w": [[1.0], [-0.5]]},
    lambda v: tf.reduce_sum(tf.linalg.triangular_solve(v.x, v.w)),
    ["x", "x,x", "x,x,x", "x,w,x", "w,x,x", "w,w"],
)
derivative(
    "o_cholesky",
    "sum(cholesky(x) * w)",
    {"x": SPD2, "w": [[1.0, 0.0], [-0.5, 2.0]]},
    _sum_w(tf.linalg.cholesky),
    ["x", "x,x", "x,x,x", "x,w,x", "w,x,x"],
)

# --- cross entropy: the fused kernel's gradient is its second output ------------------------
derivative(
    "o_sparse_xent",
    "sum(sparse_softmax_cross_entropy([2, 0], x))",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]},
    lambda v: tf.reduce_sum(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=v.x)
    ),
    ["x", "x,x", "x,x,x"],
    ulps=16,
    note="softmax's terms of both signs cancel in the third derivative",
)

# --- sort and max: the gradient reads the indices or y (through a comparison only) --------
derivative(
    "o_sort_top_k",
    "sum(sort(x) * w) + sum(top_k(x, 2) * c)",
    {"x": [0.5, -1.25, 2.0], "w": W3, "c": [1.0, -2.0]},
    lambda v: tf.reduce_sum(tf.sort(v.x) * v.w) + tf.reduce_sum(tf.math.top_k(v.x, 2)[0] * v.c),
    ["x", "x,x", "x,w", "w,x", "x,c,x"],
    exact=True,
    note="the gradient is a scatter of g by the indices: d2/dx2 is None, d2/dxdw is not",
)
derivative(
    "o_max_reduce",
    "max(x * w)",
    {"x": X3, "w": W3},
    lambda v: tf.reduce_max(v.x * v.w),
    ["x", "x,x", "x,w", "x,w,x", "x,w,w"],
    exact=True,
    note="_MinOrMaxGrad reads y only through equal(y, x): no gradient goes through it",
)

"""TensorFlow reference cases: activations (tf.nn, tf.math and Keras 3 definitions).

Kinks are exercised at TensorFlow's own decision points: leaky_relu at 0 (x > 0 passes
g), relu6 at 0 and 6, hard_sigmoid at -3 and 3 (and just below 3, where x + 3 rounds to
6), elu and selu at 0 and where exp(x) - 1 rounds to -1 (the gradient is 0 there).
"""

from __future__ import annotations

import keras
import tensorflow as tf
from tf_cases import M23, X4, expr, hessian, spec

NAN, INF = float("nan"), float("inf")
KINK = [-1.5, -0.25, -0.0, 0.0, 0.5, 2.0]
TAILS = [-800.0, -40.0, -1e-10, 0.0, 1e-10, 40.0, 800.0]

# --- leaky_relu: alpha is a float32 attribute ----------------------------------------------
expr("leaky_relu", "leaky_relu(x)", {"x": X4}, lambda v: tf.nn.leaky_relu(v.x), exact=True)
expr(
    "leaky_relu_kink",
    "leaky_relu(x)",
    {"x": KINK},
    lambda v: tf.nn.leaky_relu(v.x),
    exact=True,
    note="at 0 the gradient is alpha (LeakyReluGrad passes g only where x > 0)",
)
for _alpha in (0.1, 0.5, 0.0, 2.0, -0.5):
    expr(
        f"leaky_relu_alpha_{_alpha}",
        f"leaky_relu(x, alpha={_alpha})",
        {"x": KINK},
        lambda v, a=_alpha: tf.nn.leaky_relu(v.x, alpha=a),
        exact=True,
    )
expr(
    "leaky_relu_positional_alpha",
    "leaky_relu(x, 0.3) * y",
    {"x": [-2.0, 3.0], "y": [1.5, -0.5]},
    lambda v: tf.nn.leaky_relu(v.x, alpha=0.3) * v.y,
    exact=True,
)
expr(
    "leaky_relu_nonfinite",
    "leaky_relu(x)",
    {"x": [NAN, INF, -INF]},
    lambda v: tf.nn.leaky_relu(v.x),
    exact=True,
)

# --- relu6, hard_sigmoid ---------------------------------------------------------------------
expr(
    "relu6",
    "relu6(x)",
    {"x": [-1.0, -0.0, 0.0, 3.0, 5.999999999999999, 6.0, 7.0, NAN]},
    lambda v: tf.nn.relu6(v.x),
    exact=True,
    note="Relu6Grad passes g where 0 < y < 6: zero at both kinks and at nan",
)
spec(
    "relu6_grad_inf_upstream",
    {"x": [-1.0, 3.0, 7.0]},
    {"f": "relu6(x)"},
    lambda v: tf.nn.relu6(v.x),
    grad_ys={"f": [INF, INF, INF]},
    exact=True,
    note="Relu6Grad multiplies by the mask: inf * 0 is nan outside (0, 6)",
)
expr(
    "hard_sigmoid",
    "hard_sigmoid(x)",
    {"x": [-4.0, -3.0, -2.5, -0.0, 0.75, 2.9999999999999996, 3.0, 4.0]},
    lambda v: keras.activations.hard_sigmoid(v.x),
    exact=True,
    note="just below 3, x + 3 rounds to 6: saturated, as Keras' relu6(x + 3) / 6",
)

# --- elu, selu: exp(x) - 1 (not expm1); EluGrad/SeluGrad read the output ---------------------
expr("elu", "elu(x)", {"x": X4}, lambda v: tf.nn.elu(v.x))
expr("elu_edges", "elu(x)", {"x": [*TAILS, -0.0]}, lambda v: tf.nn.elu(v.x))
expr("selu", "selu(x)", {"x": X4}, lambda v: tf.nn.selu(v.x))
expr("selu_edges", "selu(x)", {"x": [*TAILS, -0.0]}, lambda v: tf.nn.selu(v.x))

# --- smooth activations ------------------------------------------------------------------------
expr("silu", "silu(x)", {"x": X4}, lambda v: tf.nn.silu(v.x))
expr("silu_edges", "silu(x)", {"x": TAILS}, lambda v: tf.nn.silu(v.x))
expr("swish", "swish(x) * y", {"x": X4, "y": X4}, lambda v: tf.nn.swish(v.x) * v.y)
expr("softsign", "softsign(x)", {"x": X4}, lambda v: tf.nn.softsign(v.x), exact=True)
expr(
    "softsign_edges",
    "softsign(x)",
    {"x": [-1e300, -0.0, 0.0, 1e-10, 1e300]},
    lambda v: tf.nn.softsign(v.x),
    exact=True,
)
expr("log_sigmoid", "log_sigmoid(x)", {"x": X4}, lambda v: tf.math.log_sigmoid(v.x))
expr("log_sigmoid_edges", "log_sigmoid(x)", {"x": TAILS}, lambda v: tf.math.log_sigmoid(v.x))
expr("mish", "mish(x)", {"x": X4}, lambda v: keras.activations.mish(v.x))
expr("mish_edges", "mish(x)", {"x": TAILS}, lambda v: keras.activations.mish(v.x))

# --- log_softmax -------------------------------------------------------------------------------
W23 = [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]
expr(
    "log_softmax",
    "sum(log_softmax(x) * w)",
    {"x": M23, "w": W23},
    lambda v: tf.reduce_sum(tf.nn.log_softmax(v.x) * v.w),
)
expr(
    "log_softmax_axis0",
    "log_softmax(x, axis=0) * w",
    {"x": M23, "w": W23},
    lambda v: tf.nn.log_softmax(v.x, axis=0) * v.w,
)
expr(
    "log_softmax_neg_inf",
    "log_softmax(x)",
    {"x": [[-INF, 0.0, 1.0], [2.0, 2.0, 2.0]]},
    lambda v: tf.nn.log_softmax(v.x),
)

# --- second order --------------------------------------------------------------------------------
H = [-0.75, 0.0, 0.5, 1.25, 7.0, -40.0]
hessian(
    "h_leaky_relu",
    "sum(leaky_relu(x, alpha=0.25) * x)",
    {"x": H},
    lambda v: tf.reduce_sum(tf.nn.leaky_relu(v.x, alpha=0.25) * v.x),
    exact=True,
)
hessian(
    "h_relu6",
    "sum(relu6(x) * x)",
    {"x": H},
    lambda v: tf.reduce_sum(tf.nn.relu6(v.x) * v.x),
    exact=True,
)
hessian(
    "h_hard_sigmoid",
    "sum(hard_sigmoid(x) * x)",
    {"x": [-4.0, -3.0, 0.5, 3.0]},
    lambda v: tf.reduce_sum(keras.activations.hard_sigmoid(v.x) * v.x),
    exact=True,
)
hessian("h_elu", "sum(elu(x))", {"x": H}, lambda v: tf.reduce_sum(tf.nn.elu(v.x)))
hessian("h_elu_times_x", "sum(elu(x) * x)", {"x": H}, lambda v: tf.reduce_sum(tf.nn.elu(v.x) * v.x))
hessian("h_selu", "sum(selu(x) * x)", {"x": H}, lambda v: tf.reduce_sum(tf.nn.selu(v.x) * v.x))
hessian("h_silu", "sum(silu(x))", {"x": H}, lambda v: tf.reduce_sum(tf.nn.silu(v.x)))
hessian(
    "h_log_sigmoid",
    "sum(log_sigmoid(x))",
    {"x": H},
    lambda v: tf.reduce_sum(tf.math.log_sigmoid(v.x)),
)
hessian("h_mish", "sum(mish(x))", {"x": H}, lambda v: tf.reduce_sum(keras.activations.mish(v.x)))
hessian(
    "h_log_softmax",
    "sum(log_softmax(x) * w)",
    {"x": [-0.75, 0.5, 1.25], "w": [1.0, -2.0, 0.5]},
    lambda v: tf.reduce_sum(tf.nn.log_softmax(v.x) * v.w),
)

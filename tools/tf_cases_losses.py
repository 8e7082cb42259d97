"""TensorFlow reference cases: gelu, losses and statistics (smooth_activations.py, losses.py,
statistics.py).

gelu in both forms (tf.nn.gelu's compositions, whose autodiff is the gradient), the
losses as TensorFlow computes them (tf.nn.softmax_cross_entropy_with_logits and its
sparse form, tf.nn.sigmoid_cross_entropy_with_logits, tf.nn.l2_loss, Keras' huber) and
the statistics (tf.math.reduce_variance, reduce_std, tf.norm, tf.math.l2_normalize).
"""

from __future__ import annotations

import keras
import tensorflow as tf
from tf_cases import M23, NAN, X4, expr, hessian

GELU_X = [-40.0, -3.0, -1.5, -0.25, -0.0, 0.0, 0.5, 2.0, 7.0, 40.0]

# --- gelu ---------------------------------------------------------------------------------------
expr("gelu", "gelu(x)", {"x": GELU_X}, lambda v: tf.nn.gelu(v.x))
expr(
    "gelu_approximate",
    "gelu(x, approximate=true)",
    {"x": GELU_X},
    lambda v: tf.nn.gelu(v.x, approximate=True),
)
expr("gelu_nan", "gelu(x) + gelu(x, approximate=true)", {"x": [NAN]},
     lambda v: tf.nn.gelu(v.x) + tf.nn.gelu(v.x, approximate=True))  # fmt: skip
expr("gelu_matrix", "gelu(x) * w", {"x": M23, "w": [[1.5, -0.5, 2.0], [0.25, -2.0, 1.0]]},
     lambda v: tf.nn.gelu(v.x) * v.w)  # fmt: skip
hessian("gelu_second_order", "sum(gelu(x))", {"x": X4}, lambda v: tf.reduce_sum(tf.nn.gelu(v.x)))
hessian(
    "gelu_approximate_second_order",
    "sum(gelu(x, approximate=true))",
    {"x": X4},
    lambda v: tf.reduce_sum(tf.nn.gelu(v.x, approximate=True)),
)

# --- sigmoid_cross_entropy, huber, l2_loss --------------------------------------------------------
LOGITS = [-800.0, -40.0, -2.5, -0.0, 0.0, 0.5, 3.0, 800.0]
LABELS = [0.0, 1.0, 0.25, 1.0, 0.5, 0.0, 1.0, 0.75]
expr(
    "sigmoid_cross_entropy",
    "sigmoid_cross_entropy(z, x)",
    {"z": LABELS, "x": LOGITS},
    lambda v: tf.nn.sigmoid_cross_entropy_with_logits(labels=v.z, logits=v.x),
    note="the tails: -|x| keeps exp from overflowing; at 0 the x >= 0 side is taken",
)
hessian(
    "sigmoid_cross_entropy_second_order",
    "sum(sigmoid_cross_entropy(z, x))",
    {"z": [0.0, 0.25, 1.0, 0.5], "x": X4},
    lambda v: tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=v.z, logits=v.x)),
)
HUBER_TRUE = [[0.0, 1.0, -2.0, 0.5], [3.0, -1.0, 0.0, 2.0]]
HUBER_PRED = [[0.5, 1.0, 1.0, -0.5], [3.25, -3.5, 1.0, 2.0]]  # |e| = 1 and 0 included
expr("huber", "huber(t, p)", {"t": HUBER_TRUE, "p": HUBER_PRED},
     lambda v: keras.losses.huber(v.t, v.p), exact=True)  # fmt: skip
expr("huber_delta", "huber(t, p, delta=0.5)", {"t": HUBER_TRUE, "p": HUBER_PRED},
     lambda v: keras.losses.huber(v.t, v.p, delta=0.5), exact=True)  # fmt: skip
hessian(
    "huber_second_order",
    "sum(huber(t, p, delta=2))",
    {"t": HUBER_TRUE, "p": HUBER_PRED},
    lambda v: tf.reduce_sum(keras.losses.huber(v.t, v.p, delta=2.0)),
    exact=True,
)
expr("l2_loss", "l2_loss(x)", {"x": M23}, lambda v: tf.nn.l2_loss(v.x), exact=True)
expr("l2_loss_empty", "l2_loss(x)", {"x": []}, lambda v: tf.nn.l2_loss(v.x), exact=True)
hessian("l2_loss_second_order", "l2_loss(x) * l2_loss(x)", {"x": X4},
        lambda v: tf.nn.l2_loss(v.x) * tf.nn.l2_loss(v.x), exact=True)  # fmt: skip

# --- var, std ------------------------------------------------------------------------------------
for _text, _fn in (
    ("var(x)", lambda v: tf.math.reduce_variance(v.x)),
    ("var(x, axis=1)", lambda v: tf.math.reduce_variance(v.x, axis=1)),
    ("std(x, axis=0, keepdims=true)", lambda v: tf.math.reduce_std(v.x, axis=0, keepdims=True)),
    ("std(x)", lambda v: tf.math.reduce_std(v.x)),
):
    expr(f"stat_{_text}", _text, {"x": M23}, _fn)
expr("std_constant_row", "std(x, axis=1)", {"x": [[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]]},
     lambda v: tf.math.reduce_std(v.x, axis=1),
     note="a constant row: sqrt'(0) is inf, and g * 0 gives nan as in TensorFlow")  # fmt: skip
hessian("var_second_order", "var(x)", {"x": X4}, lambda v: tf.math.reduce_variance(v.x))
hessian("std_second_order", "std(x)", {"x": X4}, lambda v: tf.math.reduce_std(v.x))

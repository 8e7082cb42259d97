"""TensorFlow reference cases: gelu, losses and statistics (smooth_activations.py, losses.py,
statistics.py).

gelu in both forms (tf.nn.gelu's compositions, whose autodiff is the gradient), the
losses as TensorFlow computes them (tf.nn.softmax_cross_entropy_with_logits and its
sparse form, tf.nn.sigmoid_cross_entropy_with_logits, tf.nn.l2_loss, Keras' huber) and
the statistics (tf.math.reduce_variance, reduce_std, tf.norm, tf.math.l2_normalize).
"""

from __future__ import annotations

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

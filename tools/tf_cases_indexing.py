"""TensorFlow reference cases: gather, the segment sums and one_hot.

Repeated indices make TensorFlow's gradient an IndexedSlices whose densification sums the
repeated slices in order (UnsortedSegmentSum); gradcli returns that dense sum. The values
are chosen so that the order of the additions matters (0.1 + 0.2 + 0.3 is not exact):
'exact' holds only when the additions happen in TensorFlow's order.
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import M23, X4, In, expr, spec

I32 = tf.int32
TENTHS = [0.1, 0.7, 0.2, 0.3, 1e16, -1e16]

expr(
    "gather",
    "gather(x, [3, 0, 3, 1])",
    {"x": X4},
    lambda v: tf.gather(v.x, [3, 0, 3, 1]),
    exact=True,
)
expr(
    "gather_repeated_rounding",
    "gather(x, [0, 4, 1, 5, 2, 3, 0]) * y",
    {"x": TENTHS, "y": [0.1, 0.2, 0.3, 0.7, 0.3, 0.9, 0.6]},
    lambda v: tf.gather(v.x, [0, 4, 1, 5, 2, 3, 0]) * v.y,
    exact=True,
    note="repeated indices: the slices add in order (UnsortedSegmentSum)",
)
expr(
    "gather_axis1",
    "gather(x, [[2, 0], [2, 2]], axis=1) * 3",
    {"x": M23},
    lambda v: tf.gather(v.x, [[2, 0], [2, 2]], axis=1) * 3,
    exact=True,
)
expr(
    "gather_negative_axis",
    "gather(x, [1, 1, 0], axis=-2)",
    {"x": M23},
    lambda v: tf.gather(v.x, [1, 1, 0], axis=-2),
    exact=True,
)
expr(
    "gather_batch_dims",
    "gather(x, [[2, 2, 0], [1, 0, 1]], axis=1, batch_dims=1) * w",
    {"x": M23, "w": [[0.25, 0.5, 2.0], [1.5, -1.0, 4.0]]},
    lambda v: tf.gather(v.x, [[2, 2, 0], [1, 0, 1]], axis=1, batch_dims=1) * v.w,
    exact=True,
)
spec(
    "gather_int_input",
    {"x": M23, "i": In([1, 0, 1], "int32")},
    {"f": "gather(x, i) * x[0:1]"},
    lambda v: tf.gather(v.x, v.i) * v.x[0:1],
    exact=True,
)
spec(
    "gather_int64_input",
    {"x": X4, "i": In([[0, 0], [3, 2]], "int64")},
    {"f": "gather(x, i) ** 2"},
    lambda v: tf.gather(v.x, v.i) ** 2,
    exact=True,
)
spec(
    "gather_empty_indices",
    {"x": X4, "i": In([], "int32")},
    {"f": "sum(gather(x, i)) + x"},
    lambda v: tf.reduce_sum(tf.gather(v.x, v.i)) + v.x,
    exact=True,
)
spec(
    "gather_second_order_path",
    {"x": X4},
    {"h": "gather(x, [1, 1, 2]) ** 3", "f": "sum(h)"},
    lambda v: tf.reduce_sum(tf.gather(v.x, [1, 1, 2]) ** 3),
    exact=True,
)

expr(
    "unsorted_segment_sum",
    "unsorted_segment_sum(x, [1, -1, 1, 3], 4) * [1, 2, 3, 4]",
    {"x": X4},
    lambda v: tf.math.unsorted_segment_sum(v.x, [1, -1, 1, 3], 4) * [1.0, 2.0, 3.0, 4.0],
    exact=True,
    note="a negative id drops its row; its gradient is 0",
)
expr(
    "unsorted_segment_sum_rows",
    "unsorted_segment_sum(x, [2, 0], 3) ** 2",
    {"x": M23},
    lambda v: tf.math.unsorted_segment_sum(v.x, [2, 0], 3) ** 2,
    exact=True,
)
expr(
    "unsorted_segment_sum_rounding",
    "unsorted_segment_sum(x, [0, 1, 0, 0, 1, 0], 2)",
    {"x": TENTHS},
    lambda v: tf.math.unsorted_segment_sum(v.x, [0, 1, 0, 0, 1, 0], 2),
    exact=True,
    note="sums in the order of the rows",
)
expr(
    "segment_sum",
    "segment_sum(x, [0, 0, 2, 2, 2, 3]) * [1, 2, 3, 4]",
    {"x": TENTHS},
    lambda v: tf.math.segment_sum(v.x, [0, 0, 2, 2, 2, 3]) * [1.0, 2.0, 3.0, 4.0],
    exact=True,
    note="an id that never occurs (1) is an empty segment: 0",
)
expr(
    "segment_sum_rows",
    "segment_sum(x, [0, 0]) * x[1]",
    {"x": M23},
    lambda v: tf.math.segment_sum(v.x, [0, 0]) * v.x[1],
    exact=True,
)

expr(
    "one_hot",
    "one_hot([0, 2, -1, 5, 1], 3) * x",
    {"x": [1.5, -2.0, 0.25]},
    lambda v: tf.one_hot([0, 2, -1, 5, 1], 3, dtype=tf.float64) * v.x,
    exact=True,
    note="out-of-range indices give a row of off_value",
)
expr(
    "one_hot_axis_values",
    "one_hot([[1, 0], [2, 2]], 3, on_value=2.5, off_value=-1, axis=0) * x",
    {"x": [[1.5], [-2.0]]},
    lambda v: (
        tf.one_hot([[1, 0], [2, 2]], 3, on_value=2.5, off_value=-1.0, axis=0, dtype=tf.float64)
        * v.x
    ),
    exact=True,
)

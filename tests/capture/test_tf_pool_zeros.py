"""The kind of zeros born at a TensorFlow max pool, read with TensorFlow's own kernels;
each expectation is worked out by hand from the windows."""

from types import SimpleNamespace

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow", reason="the pool's reading runs TensorFlow's kernels")

from gradcli.capture.tf_conv_zeros import kind_at  # noqa: E402

KW = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "data_format": "NHWC"}


def _pool():
    return SimpleNamespace(extra={"type": "MaxPool", "attrs": dict(KW)}, inputs=(0,))


def test_a_max_pool_names_the_elements_no_window_picks_unselected():
    # a 2x4 input, two 2x2 windows: the left one picks 4.0 (index [0, 1]), the right one
    # 8.0 (index [1, 3]); the other 6 elements get no gradient from any window
    x = np.array([[1.0, 4.0, 2.0, 3.0], [0.5, 2.0, 7.0, 8.0]], np.float32).reshape(1, 2, 4, 1)
    gy = np.array([1.0, -2.0], np.float32).reshape(1, 1, 2, 1)
    gx = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=tf.nn.max_pool2d(x, 2, 2, "VALID"),
                                grad=gy, **KW).numpy()  # fmt: skip
    assert np.count_nonzero(gx == 0) == 6
    assert kind_at(_pool(), 0, gy, gx, [x]) == ("unselected", 6)
    # the right window received a zero: its maximum's zero was received, not made here
    gy = np.array([1.0, 0.0], np.float32).reshape(1, 1, 2, 1)
    gx = np.where(np.arange(8).reshape(1, 2, 4, 1) == 1, 1.0, 0.0).astype(np.float32)
    assert kind_at(_pool(), 0, gy, gx, [x]) == ("unselected", 6)


def test_a_max_pool_without_its_input_is_not_read():
    gy = np.ones((1, 1, 2, 1), np.float32)
    assert kind_at(_pool(), 0, gy, np.zeros((1, 2, 4, 1)), [None]) is None

"""The TensorFlow run mode's NumPy wrappers and per-op zeros, through real TensorFlow runs:
values are checked against TensorFlow computing the same thing directly, and the cause
kinds and lines against what the scripts do (worked out by hand)."""

from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
tf = pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")


def _run(tmp_path, source: str):
    from gradcli.cli.run_commands import read_run
    from gradcli.views.run_report import document

    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    program, diagnosis = read_run(str(path), None, (), "all", 0, 60)
    return document(program, diagnosis, with_pairs=True)


def _causes(doc, source):
    pair = next(p for p in doc["pairs"] if p["input"] == source)
    return [(c["kind"], c["line"]) for c in pair["causes"]]


def test_numpy_through_numpy_functions_is_a_round_trip_and_numpy_is_restored(tmp_path):
    doc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            sq = np.square(w * 3.0)
            both = np.concatenate([sq, sq])
            loss = tf.reduce_sum(tf.constant(both))
        print(tape.gradient(loss, w))
        """,
    )
    # the value left at line 6 (np.square of a tensor); np.concatenate carried it on, and
    # tf.constant at line 8 rebuilt a tensor from that very array
    assert _causes(doc, "w")[:2] == [("leaves_tape", 6), ("rewrapped", 8)]
    assert isinstance(np.square, np.ufunc)
    assert type(np.concatenate).__name__ == "_ArrayFunctionDispatcher"


def test_a_variable_given_to_numpy_leaves_at_that_line(tmp_path):
    doc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        v = tf.Variable([1.0, -1.0])
        with tf.GradientTape() as tape:
            padded = np.concatenate([v, v])
            loss = tf.reduce_sum(tf.constant(padded) * 2.0)
        print(tape.gradient(loss, v))
        """,
    )
    assert _causes(doc, "v")[0] == ("leaves_tape", 6)


def test_dead_relu_units_are_inactive_at_the_relu_and_values_are_tensorflows(tmp_path):
    doc = _run(
        tmp_path,
        """
        import tensorflow as tf
        w = tf.Variable([[1.0, -1.0], [2.0, -3.0]])
        x = tf.constant([[1.0, 1.0]])
        with tf.GradientTape() as tape:
            h = tf.nn.relu(x @ w)
            loss = tf.reduce_sum(h)
        print(tape.gradient(loss, w))
        """,
    )
    # x @ w = [3, -4]: the second unit is dead, so w's second column gets no gradient
    assert _causes(doc, "w")[0] == ("inactive", 6)
    w = tf.Variable([[1.0, -1.0], [2.0, -3.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.relu(tf.constant([[1.0, 1.0]]) @ w))
    expected = tape.gradient(loss, w).numpy()
    got = np.asarray(doc["calls"][0]["gradients"][0]["value"], dtype=np.float32)
    assert np.array_equal(got, expected)


def test_a_bias_whose_batch_terms_cancel_is_named_as_a_cancellation(tmp_path):
    doc = _run(
        tmp_path,
        """
        import tensorflow as tf
        b = tf.Variable([0.5])
        x = tf.constant([[1.0], [-1.0]])
        with tf.GradientTape() as tape:
            y = x * 2.0 + b
            loss = tf.reduce_sum(y * tf.constant([[1.0], [-1.0]]))
        print(tape.gradient(loss, b))
        """,
    )
    # d loss / d b = 1 - 1 = 0: the broadcast add's terms cancel at line 6
    assert _causes(doc, "b")[0] == ("cancellation", 6)


def test_a_py_function_body_that_takes_numpy_is_the_cut_and_py_function_is_restored(tmp_path):
    original = tf.py_function
    doc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        def body(t):
            doubled = t * 2.0
            return doubled + np.square(t.numpy())
        w = tf.Variable([1.0, 3.0])
        with tf.GradientTape() as tape:
            out = tf.py_function(body, [w * 1.0], tf.float32)
            loss = tf.reduce_sum(out)
        print(tape.gradient(loss, w))
        """,
    )
    # TensorFlow differentiates the body through its TF ops only: t * 2.0 gives 2 per
    # element, the NumPy square (line 6) nothing; the body's arguments are the op's inputs
    w = tf.Variable([1.0, 3.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(
            tf.py_function(lambda t: t * 2.0 + np.square(t.numpy()), [w * 1.0], tf.float32)
        )
    expected = tape.gradient(loss, w).numpy()
    got = np.asarray(doc["calls"][0]["gradients"][0]["value"], dtype=np.float32)
    assert np.array_equal(got, expected) and expected.tolist() == [2.0, 2.0]
    # a gradient with no zeros: nothing to explain (the exit inside is not a cut of it)
    pair = next(p for p in doc["pairs"] if p["input"] == "w")
    assert (pair["status"], pair["causes"]) == ("connected", [])
    assert tf.py_function is original


def test_a_py_function_body_made_only_of_numpy_gives_zeros_cut_in_the_body(tmp_path):
    doc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        def body(t):
            return np.square(t.numpy())
        w = tf.Variable([1.0, 3.0])
        with tf.GradientTape() as tape:
            out = tf.py_function(body, [w * 1.0], tf.float32)
            loss = tf.reduce_sum(out)
        print(tape.gradient(loss, w))
        """,
    )
    # TensorFlow returns a zero (not None; a 0-d one here, whatever w's shape): the body
    # reaches its input through no TF op
    w = tf.Variable([1.0, 3.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.py_function(lambda t: np.square(t.numpy()), [w * 1.0], tf.float32))
    expected = tape.gradient(loss, w)
    got = doc["calls"][0]["gradients"][0]
    assert got["value"] == expected.numpy().tolist() == 0.0
    assert got["shape"] == list(expected.shape)
    cause = next(p for p in doc["pairs"] if p["input"] == "w")["causes"][0]
    assert (cause["kind"], cause["line"]) == ("leaves_tape", 5)
    assert "tf.py_function runs at line 8" in cause["detail"]


def test_a_tensor_given_to_a_numpy_scalar_type_leaves_at_that_line(tmp_path):
    """np.float32(t) reads the tensor through the buffer protocol (no hook sees it): the
    script's text says the op's result is that call's argument."""
    doc = _run(
        tmp_path,
        """
        import numpy as np
        import tensorflow as tf
        from numpy import float64
        w = tf.Variable(2.0)
        v = tf.Variable(3.0)
        u = tf.Variable(4.0)
        def scaled(np):
            return np.float32(u * 2.0)
        with tf.GradientTape() as tape:
            f = np.float32(w * 1.5)
            g = float64(v + 1.0)
            h = scaled(np)
            loss = tf.reduce_sum(tf.ones(3)) * f + g + h
        print(tape.gradient(loss, [w, v, u]))
        """,
    )
    assert [g["value"] for g in doc["calls"][0]["gradients"]] == [None, None, None]
    assert _causes(doc, "w")[0] == ("leaves_tape", 11)
    assert _causes(doc, "v")[0] == ("leaves_tape", 12)
    # inside scaled, `np` is a parameter: the global binding says nothing about it
    assert _causes(doc, "u")[0] == ("no_path", 9)


@pytest.mark.parametrize(
    ("image", "weights", "expected", "kind"),
    [
        # the filter's right column only ever meets the image's zero columns: every product
        # behind its gradient is zero
        ([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]],
         [[3.0, 0.0], [5.0, 0.0]], "mask"),
        # nonzero products whose weights of opposite sign sum to zero
        ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, -1.0], [-1.0, 1.0]],
         [[0.0, 0.0], [0.0, 0.0]], "cancellation"),
    ],
)  # fmt: skip
def test_zeros_born_at_a_conv2d_filter_are_read_with_tensorflows_kernels(
    tmp_path, image, weights, expected, kind
):
    doc = _run(
        tmp_path,
        f"""
        import numpy as np
        import tensorflow as tf
        x = tf.constant(np.array({image}, np.float32).reshape(1, 3, 3, 1))
        k = tf.Variable(np.ones((2, 2, 1, 1), np.float32))
        weights = tf.constant(np.array({weights}, np.float32).reshape(1, 2, 2, 1))
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d(x, k, strides=1, padding="VALID")
            loss = tf.reduce_sum(y * weights)
        print(tape.gradient(loss, k))
        """,
    )
    x = tf.constant(np.array(image, np.float32).reshape(1, 3, 3, 1))
    k = tf.Variable(np.ones((2, 2, 1, 1), np.float32))
    weights = tf.constant(np.array(weights, np.float32).reshape(1, 2, 2, 1))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.conv2d(x, k, strides=1, padding="VALID") * weights)
    got = np.asarray(doc["calls"][0]["gradients"][0]["value"], dtype=np.float32)
    assert np.array_equal(got, tape.gradient(loss, k).numpy())
    assert got[:, :, 0, 0].tolist() == expected
    assert _causes(doc, "k")[0] == (kind, 8)

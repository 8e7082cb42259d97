"""The reader's Keras BatchNormalization, LayerNormalization, SimpleRNN, GRU and LSTM:
weights, paths and variable lists as Keras 3.15.1 printed them on TensorFlow 2.21, forward
values against the formulas written out in NumPy here (float64 layers), the moving
statistics' update, and what stays refused. Gradient values against TensorFlow are in
test_tfcode_reference.py (keras_batchnorm_*, keras_layernorm, keras_simple_rnn, keras_gru,
keras_lstm, keras_rnn_unused)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import interpret_tf

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.interpret import Interpreter

CODE = Path(__file__).parents[1] / "data" / "tf_code"


interpret = interpret_tf  # the reader's interpreter after a program (tests/helpers.py)


def get(it: Interpreter, expr: str):
    return it.expr(ast.parse(expr, mode="eval").body, it.globals)


def array(it: Interpreter, expr: str) -> np.ndarray:
    return it.value(it.tensor_id(get(it, expr), read=False))


X = [[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]]


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


# Keras printed: ['lstm/lstm_cell/kernel', 'lstm/lstm_cell/recurrent_kernel',
# 'lstm/lstm_cell/bias'] with shapes (2, 8), (2, 8), (8,), the bias [0 0 1 1 0 0 0 0];
# gru/gru_cell/bias (2, 6); batch_normalization's non-trainable moving_mean, moving_variance
def test_weights_paths_shapes_and_lists_are_kerass():
    it = interpret(f"""
        import tensorflow as tf
        x = tf.constant({X})
        s = tf.keras.layers.SimpleRNN(2)
        g = tf.keras.layers.GRU(2)
        l = tf.keras.layers.LSTM(2)
        outs = [s(x), g(x), l(x)]
        bn = tf.keras.layers.BatchNormalization()
        ln = tf.keras.layers.LayerNormalization(axis=[1, 2])
        y = ln(bn(x))
    """)
    assert [v.path for v in get(it, "l.weights")] == [
        "lstm/lstm_cell/kernel", "lstm/lstm_cell/recurrent_kernel", "lstm/lstm_cell/bias"
    ]  # fmt: skip
    assert [tuple(it.g[v.value].shape) for v in get(it, "l.weights")] == [(2, 8), (2, 8), (8,)]
    # Keras 3 printed l.variables with the third cell's seed generator state last (int64)
    seeded = get(it, "l.variables")
    assert [v.path for v in seeded[3:]] == ["seed_generator_2/seed_generator_state"]
    assert it.g[seeded[3].value].dtype == "int64"
    assert [v.path for v in get(it, "l.non_trainable_variables")] == [seeded[3].path]
    assert get(it, "l.non_trainable_weights") == []
    assert array(it, "l.cell.bias").tolist() == [0, 0, 1, 1, 0, 0, 0, 0]
    kernel = get(it, "s.trainable_variables")[0]
    assert kernel.path == "simple_rnn/simple_rnn_cell/kernel"
    assert tuple(it.g[get(it, "g.cell.bias").value].shape) == (2, 6)
    assert [v.path for v in get(it, "bn.trainable_variables")] == [
        "batch_normalization/gamma", "batch_normalization/beta"
    ]  # fmt: skip
    assert [v.path for v in get(it, "bn.non_trainable_variables")] == [
        "batch_normalization/moving_mean", "batch_normalization/moving_variance"
    ]  # fmt: skip
    assert [tuple(it.g[v.value].shape) for v in get(it, "ln.variables")] == [(3, 2), (3, 2)]
    # the orthogonal recurrent kernel (2, 8): orthonormal rows
    q = array(it, "l.cell.recurrent_kernel").astype(float)
    assert np.allclose(q @ q.T, np.eye(2), atol=1e-6)


def test_batch_normalization_training_updates_the_moving_statistics():
    it = interpret("""
        import tensorflow as tf
        bn = tf.keras.layers.BatchNormalization(momentum=0.9, epsilon=0.01, dtype="float64")
        x = tf.constant([[1.0, 2.0], [3.0, -1.0], [-0.5, 0.25]], dtype=tf.float64)
        before = bn(x)
        trained = bn(x, training=True)
        after = bn(x)
    """)
    x = np.array([[1.0, 2.0], [3.0, -1.0], [-0.5, 0.25]])
    mean, var = x.mean(0), x.var(0)
    assert np.allclose(array(it, "before"), x / np.sqrt(1 + 0.01), rtol=1e-15)
    assert np.allclose(array(it, "trained"), (x - mean) / np.sqrt(var + 0.01), rtol=1e-14)
    moving_mean, moving_var = 0.1 * mean, 0.9 + 0.1 * var
    assert np.allclose(array(it, "bn.moving_mean"), moving_mean, rtol=1e-15)
    assert np.allclose(array(it, "bn.moving_variance"), moving_var, rtol=1e-15)
    assert np.allclose(array(it, "after"), (x - moving_mean) / np.sqrt(moving_var + 0.01))


def test_a_symbolic_build_and_a_frozen_layer_assign_nothing():
    it = interpret("""
        import tensorflow as tf
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.BatchNormalization()])
        frozen = tf.keras.layers.BatchNormalization()
        frozen.trainable = False
        y = frozen(tf.constant([[1.0, 2.0], [3.0, 5.0]]), training=True)
    """)
    assert array(it, "model.layers[0].moving_mean").tolist() == [0, 0]
    assert array(it, "frozen.moving_mean").tolist() == [0, 0]
    assert np.allclose(array(it, "y"), np.array([[1, 2], [3, 5]]) / np.sqrt(1.001), rtol=1e-6)


def _rnn_program(layer: str) -> Interpreter:
    return interpret(f"""
        import numpy as np
        import tensorflow as tf
        x = tf.constant({X}, dtype=tf.float64)
        layer = tf.keras.layers.{layer}
        out = layer(x)
    """)


def test_simple_rnn_goes_backwards_over_the_steps():
    it = _rnn_program("SimpleRNN(3, return_sequences=True, go_backwards=True, dtype='float64')")
    k, r, b = (array(it, f"layer.cell.{n}") for n in ("kernel", "recurrent_kernel", "bias"))
    h = np.zeros((2, 3))
    want = []
    for t in (2, 1, 0):
        h = np.tanh(np.array(X)[:, t] @ k + b + h @ r)
        want.append(h)
    assert np.allclose(array(it, "out"), np.stack(want, 1), rtol=1e-13)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_is_kerass_formula(reset_after):
    it = _rnn_program(
        f"GRU(3, return_state=True, reset_after={reset_after}, dtype='float64', "
        "bias_initializer=tf.keras.initializers.RandomNormal())"
    )
    k, r, b = (array(it, f"layer.cell.{n}") for n in ("kernel", "recurrent_kernel", "bias"))
    h = np.zeros((2, 3))
    for t in range(3):
        xt = np.array(X)[:, t]
        if reset_after:  # gates z, r, h; input and recurrent biases
            mx, mi = xt @ k + b[0], h @ r + b[1]
            z, rr = sigmoid(mx[:, :3] + mi[:, :3]), sigmoid(mx[:, 3:6] + mi[:, 3:6])
            hh = np.tanh(mx[:, 6:] + rr * mi[:, 6:])
        else:
            mx = xt @ k + b
            z = sigmoid(mx[:, :3] + h @ r[:, :3])
            rr = sigmoid(mx[:, 3:6] + h @ r[:, 3:6])
            hh = np.tanh(mx[:, 6:] + (rr * h) @ r[:, 6:])
        h = z * h + (1 - z) * hh
    out, state = get(it, "out")
    assert np.allclose(it.value(out.id), h, rtol=1e-13)
    assert np.allclose(it.value(state.id), h, rtol=1e-13)


def test_lstm_is_kerass_formula_with_gates_i_f_c_o():
    it = _rnn_program(
        "LSTM(3, return_state=True, dtype='float64', "
        "bias_initializer=tf.keras.initializers.RandomUniform())"
    )
    k, r, b = (array(it, f"layer.cell.{n}") for n in ("kernel", "recurrent_kernel", "bias"))
    assert np.all(b[3:6] == 1.0) and np.all(np.abs(b[:3]) <= 0.05)  # unit_forget_bias
    h, c = np.zeros((2, 3)), np.zeros((2, 3))
    for t in range(3):
        z = np.array(X)[:, t] @ k + h @ r + b
        i, f, o = sigmoid(z[:, :3]), sigmoid(z[:, 3:6]), sigmoid(z[:, 9:])
        c = f * c + i * np.tanh(z[:, 6:9])
        h = o * np.tanh(c)
    out, hs, cs = get(it, "out")
    for got, want in ((out, h), (hs, h), (cs, c)):
        assert np.allclose(it.value(got.id), want, rtol=1e-13)


def test_layer_normalization_without_center_or_scale():
    it = interpret("""
        import tensorflow as tf
        ln = tf.keras.layers.LayerNormalization(center=False, scale=False, epsilon=0.5,
                                                dtype="float64")
        y = ln(tf.constant([[1.0, 2.0, 6.0]], dtype=tf.float64))
    """)
    x = np.array([[1.0, 2.0, 6.0]])
    assert get(it, "ln.variables") == []
    assert np.allclose(array(it, "y"), (x - x.mean()) / np.sqrt(x.var() + 0.5), rtol=1e-15)


@pytest.mark.parametrize("name", ["keras_gru", "keras_batchnorm_training", "keras_layernorm"])
def test_check_agrees(name):
    res = CliRunner().invoke(cli, ["check", str(CODE / f"{name}.py")])
    assert res.exit_code == 0, res.stdout
    assert "check ok" in res.stdout


REFUSED = [
    ("l = tf.keras.layers.LSTM(2, dropout=0.5)", "dropout", 2),
    ("l = tf.keras.layers.GRU(2, stateful=True)", "stateful", 2),
    ("l = tf.keras.layers.BatchNormalization(renorm=True)", "renorm", 2),
    ("l = tf.keras.layers.LayerNormalization(rms_scaling=True)", "rms_scaling", 2),
    ("l = tf.keras.layers.SimpleRNN(2)\ny = l(tf.ones((2, 3)))", "rank-2", 3),
    ("l = tf.keras.layers.LSTM(2, kernel_regularizer='l2')", "kernel_regularizer", 2),
]


@pytest.mark.parametrize(("code", "construct", "line"), REFUSED)
def test_what_stays_out_is_refused_at_its_line(code, construct, line):
    source = "import tensorflow as tf\n" + code + "\n"
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "r.py")
    assert construct in exc.value.message
    assert exc.value.pos.line == line

"""The reader's Keras masks, add_loss, TimeDistributed and Bidirectional: what Keras 3.15.1
on TensorFlow 2.21 printed for the same programs (supports_masking, _keras_mask, names,
errors), and gradients derived by hand (the snippets with TensorFlow's gradient values are
in tests/data/tf_code/keras_mask_*.py, keras_add_loss_*.py, keras_bidirectional_*.py and
keras_time_distributed.py)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import interpret_tf

from gradcli.cli.main import cli
from gradcli.explain.analysis import explain_sum
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.keras.masking import get_mask

CODE = Path(__file__).parents[1] / "data" / "tf_code"


def value(it, expr: str):
    return it.expr(ast.parse(expr, mode="eval").body, it.globals)


def grads(source: str, call: int = 0) -> list:
    program = read_program(textwrap.dedent(source).encode(), "m.py")
    values = program.calls[call].evaluation.gradients.values()
    return [None if g is None else np.asarray(g) for g in values]


def test_supports_masking_is_keras_3s():
    # Keras printed: True True True False False False True True True True False True
    it = interpret_tf(
        """
        import tensorflow as tf

        class WithMask(tf.keras.layers.Layer):
            def call(self, x):
                return x

            def compute_mask(self, x, mask=None):
                return mask

        class Plain(tf.keras.layers.Layer):
            def call(self, x):
                return x

        class Opted(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.supports_masking = True

            def call(self, x):
                return x

        layers = [tf.keras.layers.Dense(2), tf.keras.layers.Dropout(0.1),
                  tf.keras.layers.LayerNormalization(), tf.keras.layers.Flatten(),
                  tf.keras.layers.Embedding(3, 2), tf.keras.layers.Conv1D(2, 1),
                  tf.keras.layers.Embedding(3, 2, mask_zero=True), tf.keras.layers.LSTM(2),
                  tf.keras.layers.Concatenate(), WithMask(), Plain(), Opted()]
        """
    )
    got = [value(it, f"layers[{k}].supports_masking") for k in range(12)]
    assert got == [True, True, True, False, False, False, True, True, True, True, False, True]


def test_the_mask_rides_on_layer_outputs_not_on_tf_ops():
    it = interpret_tf(
        """
        import numpy as np
        import tensorflow as tf

        ids = np.array([[1, 0, 2]])
        e = tf.keras.layers.Embedding(3, 2, mask_zero=True)(ids)
        d = tf.keras.layers.Dense(2)(e)
        f = tf.keras.layers.Flatten()(e)
        r = tf.keras.layers.SimpleRNN(2)(e)
        twice = e * 2.0
        """
    )
    mask = value(it, "e._keras_mask")
    assert it.value(mask.id).tolist() == [[True, False, True]]
    assert value(it, "d._keras_mask") == mask  # Dense passes it on
    for name in ("f", "r", "twice"):  # Flatten drops it, an RNN's last output has none
        assert get_mask(it, value(it, name)) is None


def test_a_tensor_without_a_mask_has_no_keras_mask_attribute():
    source = "import tensorflow as tf\nt = tf.keras.layers.Dense(2)(tf.ones((1, 2)))\n"
    source += "m = t._keras_mask\n"
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    assert "AttributeError" in exc.value.message and "_keras_mask" in exc.value.message
    assert exc.value.pos.line == 3


# a SimpleRNN of one unit that outputs its input (linear, kernel 1, recurrent 0): with the
# mask [True, False, True] the sequence output is [x0, x0, x2], so d sum / dx = [2, 0, 1]
IDENTITY_RNN = """
import tensorflow as tf

x = tf.constant([[[1.0], [2.0], [3.0]]])
rnn = tf.keras.layers.SimpleRNN(1, activation=None, return_sequences=RS, kernel_initializer="ones",
                                recurrent_initializer="zeros")
with tf.GradientTape() as tape:
    tape.watch(x)
    out = rnn(x, mask=tf.constant([[True, False, True]]))
    loss = tf.reduce_sum(out)
print(tape.gradient(loss, x))
"""


@pytest.mark.parametrize(("rs", "want"), [("True", [2.0, 0.0, 1.0]), ("False", [0.0, 0.0, 1.0])])
def test_a_masked_step_repeats_the_previous_output(rs, want):
    (g,) = grads(IDENTITY_RNN.replace("RS", rs))
    assert g.reshape(-1).tolist() == want


def test_masked_steps_at_the_start_output_zeros():
    source = IDENTITY_RNN.replace("RS", "True")
    source = source.replace("[[True, False, True]]", "[[False, True, True]]")
    (g,) = grads(source)
    assert g.reshape(-1).tolist() == [0.0, 1.0, 1.0]


# y_pred (1, 3, 1) masked at step 1: MSE values (y_pred - 0)^2 per step; 'sum' weighs them by
# the 0/1 mask, 'sum_over_batch_size' by total/valid = 3/2 then divides by 3: both 2 * p at
# the valid steps (times 1/2 for the mean), 0 at the masked one
LOSS = """
import tensorflow as tf

p = tf.constant([[[1.0], [2.0], [3.0]]])
masking = tf.keras.layers.Masking(mask_value=2.0)
loss_fn = tf.keras.losses.MeanSquaredError(REDUCTION)
with tf.GradientTape() as tape:
    tape.watch(p)
    loss = loss_fn(tf.zeros((1, 3, 1)), masking(p)SW)
print(tape.gradient(loss, p))
"""


@pytest.mark.parametrize(
    ("reduction", "sw", "want"),
    [
        ("reduction='sum'", "", [2.0, 0.0, 6.0]),
        ("", "", [1.0, 0.0, 3.0]),
        ("reduction='sum'", ", sample_weight=tf.constant([[0.5, 1.0, 2.0]])", [1.0, 0.0, 12.0]),
        ("", ", sample_weight=tf.constant([[0.5, 1.0, 2.0]])", [0.5, 0.0, 6.0]),
    ],
)
def test_the_loss_weighs_by_the_mask_of_y_pred(reduction, sw, want):
    (g,) = grads(LOSS.replace("REDUCTION", reduction).replace("SW", sw))
    assert g.reshape(-1).tolist() == pytest.approx(want)


def test_explain_names_the_where_of_a_masked_step():
    program = read_program(textwrap.dedent(IDENTITY_RNN.replace("RS", "True")).encode(), "m.py")
    call = program.calls[0]
    pair = explain_sum(call.problem, call.problem.wrt)[call.problem.wrt[0]]
    assert "1 of 3 elements is zero" in pair.reason
    assert "where in out (line 9) selects the other side" in pair.reason


def test_check_agrees_on_a_masked_model(tmp_path):
    res = CliRunner().invoke(cli, ["check", str(CODE / "keras_mask_masking_layer.py")])
    assert res.exit_code == 0, res.stdout
    assert "agree" in res.stdout


def test_add_loss_is_reset_by_the_next_outermost_call():
    source = """
    import tensorflow as tf

    class Penalized(tf.keras.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    layer = Penalized()
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        layer(v * 3.0)
        layer(v * 5.0)
        loss = tf.add_n(layer.losses)
    print(tape.gradient(loss, v))
    """
    (g,) = grads(source)
    assert float(g) == 5.0  # Keras printed 1 loss: the second call's


def test_add_loss_of_a_python_number_is_keras_s_value_error():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        class Bad(tf.keras.layers.Layer):
            def call(self, x):
                self.add_loss(1.0)
                return x

        Bad()(tf.ones((1, 2)))
        """
    )
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    message = exc.value.message  # Keras: ValueError, Exception encountered when calling ...
    assert "ValueError" in message and "Bad.call()" in message and "add_loss()" in message
    assert exc.value.pos.line == 6


def test_fit_without_any_loss_is_keras_s_value_error():
    source = textwrap.dedent(
        """
        import numpy as np
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer="sgd")
        model.fit(np.ones((2, 2)), verbose=0)
        """
    )
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    assert "ValueError: No loss to compute. Provide a `loss` argument" in exc.value.message
    assert exc.value.pos.line == 7


def test_bidirectional_and_time_distributed_names():
    # Keras printed these paths, and forward_gru / backward_gru
    it = interpret_tf(
        """
        import tensorflow as tf

        b = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(2), merge_mode="sum")
        y = b(tf.ones((1, 3, 2)))
        td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3))
        z = td(tf.ones((2, 4, 5)))
        """
    )
    assert [v.path for v in value(it, "b.weights")] == [
        f"bidirectional/{d}_gru/gru_cell/{w}"
        for d in ("forward", "backward")
        for w in ("kernel", "recurrent_kernel", "bias")
    ]
    assert value(it, "b.forward_layer.name") == "forward_gru"
    assert value(it, "b.backward_layer.name") == "backward_gru"
    assert value(it, "y.shape") == (1, 2)
    assert [v.path for v in value(it, "td.weights")] == [
        "time_distributed/dense/kernel",
        "time_distributed/dense/bias",
    ]
    assert value(it, "z.shape") == (2, 4, 3)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), merge_mode='max')",
         "ValueError: Invalid merge mode"),
        ("tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), "
         "backward_layer=tf.keras.layers.LSTM(2))",
         "ValueError: Forward layer and backward layer should have different `go_backwards`"),
        ("tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))(tf.ones((2, 3)))",
         "ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3"),
        ("tf.keras.layers.TimeDistributed(3)", "TimeDistributed of a"),
    ],
)  # fmt: skip
def test_wrapper_errors_are_keras_s(code, message):
    source = "import tensorflow as tf\nx = " + code + "\n"
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    assert message in exc.value.message
    assert exc.value.pos.line == 2


def test_a_dropped_mask_and_a_masked_loss_are_noted():
    path = CODE / "keras_mask_custom_layer.py"
    program = read_program(path.read_bytes(), str(path))
    assert any("'plain' (Plain, line 40)" in n and "dropped" in n for n in program.calls[1].notes)
    path = CODE / "keras_mask_fit.py"
    program = read_program(path.read_bytes(), str(path))
    assert any("weighed by the Keras mask of y_pred" in n for n in program.calls[0].notes)


def test_add_loss_on_a_functional_model_is_keras_s_not_implemented_error():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        inp = tf.keras.Input(shape=(2,))
        out = tf.keras.layers.Dense(1)(inp)
        model = tf.keras.Model(inp, out)
        model.add_loss(tf.reduce_sum(tf.ones((2,))))
        """
    )
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    assert "NotImplementedError" in exc.value.message
    assert exc.value.pos.line == 7


def test_wrappers_built_directly_name_their_weights_in_their_scope():
    # Keras printed bidirectional/forward_lstm/lstm_cell/kernel ... and time_distributed/dense/*
    it = interpret_tf(
        """
        import tensorflow as tf

        b = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2))
        b.build((None, 3, 2))
        td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))
        td.build((None, 3, 4))
        """
    )
    assert [v.path for v in value(it, "b.weights")][::3] == [
        "bidirectional/forward_lstm/lstm_cell/kernel",
        "bidirectional/backward_lstm/lstm_cell/kernel",
    ]
    assert [v.path for v in value(it, "td.weights")] == [
        "time_distributed/dense/kernel",
        "time_distributed/dense/bias",
    ]


def test_rnn_cells_are_named_as_keras():
    # Keras printed these (cells auto-named; the LSTMCell's seed generator in variables)
    it = interpret_tf(
        """
        import tensorflow as tf

        x = tf.ones((1, 3, 2))
        r = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(2))
        y = r(x)
        c = tf.keras.layers.GRUCell(3)
        r3 = tf.keras.layers.RNN(tf.keras.layers.SimpleRNNCell(2), go_backwards=True,
                                 return_state=True)
        out = r3(x)
        """
    )
    assert [v.path for v in value(it, "r.variables")] == [
        "rnn/lstm_cell/kernel",
        "rnn/lstm_cell/recurrent_kernel",
        "rnn/lstm_cell/bias",
        "seed_generator/seed_generator_state",
    ]
    assert value(it, "c.name") == "gru_cell"
    assert len(value(it, "out")) == 2
    assert value(it, "r3.weights")[0].path == "rnn_1/simple_rnn_cell/kernel"


def test_a_cell_without_state_size_is_keras_s_value_error():
    source = textwrap.dedent(
        """
        import tensorflow as tf

        class Cell(tf.keras.layers.Layer):
            def call(self, inputs, states):
                return inputs, states

        r = tf.keras.layers.RNN(Cell())
        """
    )
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "m.py")
    assert "ValueError: The RNN cell should have a `state_size` attribute" in exc.value.message
    assert exc.value.pos.line == 8


def test_bidirectional_of_an_rnn_of_a_keras_cell():
    # Keras printed these paths (the clones' cells keep the name lstm_cell)
    it = interpret_tf(
        """
        import tensorflow as tf

        cell = tf.keras.layers.LSTMCell(2)
        b = tf.keras.layers.Bidirectional(tf.keras.layers.RNN(cell, return_sequences=True))
        y = b(tf.ones((1, 3, 2)))
        """
    )
    assert value(it, "y.shape") == (1, 3, 4)
    assert [v.path for v in value(it, "b.variables")] == [
        "bidirectional/forward_rnn/lstm_cell/kernel",
        "bidirectional/forward_rnn/lstm_cell/recurrent_kernel",
        "bidirectional/forward_rnn/lstm_cell/bias",
        "seed_generator_1/seed_generator_state",
        "bidirectional/backward_rnn/lstm_cell/kernel",
        "bidirectional/backward_rnn/lstm_cell/recurrent_kernel",
        "bidirectional/backward_rnn/lstm_cell/bias",
        "seed_generator_2/seed_generator_state",
    ]

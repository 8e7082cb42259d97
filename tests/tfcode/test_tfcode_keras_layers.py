"""The reader's Keras layers (conv, pooling, Flatten/Reshape, Embedding, Dropout, Activation,
Lambda, the merge layers) and regularizers: names, weight paths and shapes, output shapes,
penalties, explain's causes and check.

Expected names, paths, shapes and penalties were printed by Keras 3.15.1 on TensorFlow 2.21
for the same programs (gradient values are compared with TensorFlow's by
test_tfcode_reference.py: keras_cnn_fixed, keras_conv_pool_layers, keras_embedding,
keras_merge_layers, keras_regularizers).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.interpret import Interpreter

CODE = Path(__file__).parents[1] / "data" / "tf_code"


def interpret(source: str) -> Interpreter:
    source = textwrap.dedent(source)
    it = Interpreter("t.py", source.splitlines())
    it.run_module(ast.parse(source))
    assert not it.refusals, it.refusals.error().message
    return it


def shape_of(it: Interpreter, name: str) -> tuple:
    return tuple(it.g[it.tensor_id(it.globals.vars[name], read=False)].shape)


# Keras printed (2, 3, 3, 4) (2, 3, 3, 2) (2, 11, 11, 2) (2, 10, 10, 2) (2, 15, 15, 1)
# (2, 2, 2, 3); (2, 7, 2) (2, 3, 3); (1, 2, 3) float32; and the weights
# [('conv2d', [('conv2d/kernel', (3, 3, 3, 4)), ('conv2d/bias', (4,))]), ('conv2d_1', ...
# (1, 2, 3, 2) ...), ('conv2d_transpose', [('conv2d_transpose/kernel', (3, 3, 2, 3)), ...]),
# ('conv2d_transpose_2', [(..., (1, 1, 1, 3)), ...]), ('conv1d', [('conv1d/kernel', (3, 3, 2)),
# ('conv1d/bias', (2,))]), ('max_pooling2d', []), ('embedding', [('embedding/embeddings',
# (4, 3))])]
SHAPES = """
import tensorflow as tf
x = tf.ones((2, 5, 5, 3))
c1 = tf.keras.layers.Conv2D(4, 3)
c2 = tf.keras.layers.Conv2D(2, (1, 2), padding="same", strides=2)
t1 = tf.keras.layers.Conv2DTranspose(2, 3, strides=2)
t2 = tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same")
t3 = tf.keras.layers.Conv2DTranspose(1, 1, strides=3)
c3 = tf.keras.layers.Conv1D(2, 3, dilation_rate=2, padding="same")
mp = tf.keras.layers.MaxPooling2D()
ap = tf.keras.layers.AveragePooling1D(3, padding="same")
e = tf.keras.layers.Embedding(4, 3)
y1, y2, y3, y4, y5, y6 = c1(x), c2(x), t1(x), t2(x), t3(x), mp(x)
y7, y8 = c3(tf.ones((2, 7, 3))), ap(tf.ones((2, 7, 3)))
y9 = e(tf.constant([[1.0, 3.0]]))
f = tf.keras.layers.Flatten()(tf.ones((2,)))
names = [tf.keras.layers.Add().name, tf.keras.layers.Concatenate().name,
         tf.keras.layers.Lambda(lambda t: t).name, tf.keras.layers.Activation("relu").name,
         tf.keras.layers.Dropout(0.1).name, tf.keras.layers.GlobalAveragePooling2D().name]
"""


@pytest.fixture(scope="module")
def shapes() -> Interpreter:
    return interpret(SHAPES)


def test_output_shapes_are_kerass(shapes):
    got = [shape_of(shapes, f"y{k}") for k in range(1, 10)]
    assert got == [(2, 3, 3, 4), (2, 3, 3, 2), (2, 11, 11, 2), (2, 10, 10, 2), (2, 15, 15, 1),
                   (2, 2, 2, 3), (2, 7, 2), (2, 3, 3), (1, 2, 3)]  # fmt: skip
    assert shapes.g[shapes.globals.vars["y9"].id].dtype == "float32"
    assert shape_of(shapes, "f") == (2, 1)


def test_weight_names_paths_and_shapes_are_kerass(shapes):
    g = shapes.globals.vars
    got = [
        (g[k].layer.name, [(w.path, tuple(shapes.g[w.value].shape)) for w in g[k].layer.weights])
        for k in ("c1", "c2", "t1", "t3", "c3", "mp", "e")
    ]
    assert got == [
        ("conv2d", [("conv2d/kernel", (3, 3, 3, 4)), ("conv2d/bias", (4,))]),
        ("conv2d_1", [("conv2d_1/kernel", (1, 2, 3, 2)), ("conv2d_1/bias", (2,))]),
        ("conv2d_transpose", [("conv2d_transpose/kernel", (3, 3, 2, 3)),
                              ("conv2d_transpose/bias", (2,))]),
        ("conv2d_transpose_2", [("conv2d_transpose_2/kernel", (1, 1, 1, 3)),
                                ("conv2d_transpose_2/bias", (1,))]),
        ("conv1d", [("conv1d/kernel", (3, 3, 2)), ("conv1d/bias", (2,))]),
        ("max_pooling2d", []),
        ("embedding", [("embedding/embeddings", (4, 3))]),
    ]  # fmt: skip
    assert g["names"] == [
        "add", "concatenate", "lambda", "activation", "dropout", "global_average_pooling2d"
    ]  # fmt: skip
    # Keras's 'uniform' embeddings initializer: RandomUniform(-0.05, 0.05)
    table = shapes.value(g["e"].attrs["embeddings"].value)
    assert np.all(np.abs(table) <= 0.05) and table.std() > 0


# Keras printed L2 0.1425, L1 0.065, L1L2 0.0, L1L2 6.8125, L1L2 0.0, L2 0.1425; a Dense with
# kernel_regularizer="l2", bias_regularizer=l1(0.5), bias ones: [] before it is built, then
# 2 losses, the second 1.0
PENALTIES = """
import tensorflow as tf
w = tf.constant([[1.0, -2.0], [0.5, 3.0]])
values = [r(w) for r in (tf.keras.regularizers.l2(), tf.keras.regularizers.l1(),
                         tf.keras.regularizers.l1_l2(), tf.keras.regularizers.L1L2(0.5, 0.25))]
half = tf.keras.regularizers.l1(0.5)
d = tf.keras.layers.Dense(2, kernel_regularizer="l2", bias_regularizer=half,
                          bias_initializer="ones")
before = d.losses
d(tf.ones((1, 3)))
after = d.losses
"""


def test_regularizer_penalties_and_layer_losses():
    it = interpret(PENALTIES)
    g = it.globals.vars
    got = [float(it.value(v.id)) for v in g["values"]]
    want = np.float32([0.01 * 14.25, 0.01 * 6.5, 0.0, 0.5 * 6.5 + 0.25 * 14.25])
    assert got == want.tolist()
    assert g["before"] == [] and len(g["after"]) == 2
    assert float(it.value(g["after"][1].id)) == 1.0  # 0.5 * |1| + 0.5 * |1|
    kernel = it.value(g["d"].attrs["kernel"].value)
    assert float(it.value(g["after"][0].id)) == pytest.approx(0.01 * float(np.sum(kernel**2)))


def test_l1_l2_as_a_string_is_kerass_value_error():
    src = b"import tensorflow as tf\nd = tf.keras.layers.Dense(1, kernel_regularizer='l1_l2')\n"
    with pytest.raises(GradcliError) as exc:
        read_program(src, "t.py")
    assert "ValueError: Could not interpret regularizer identifier: l1_l2" in exc.value.message
    assert exc.value.pos.line == 2


def test_dropout_is_the_identity_outside_training_and_a_fresh_mask_in_training():
    it = interpret(
        """
        import tensorflow as tf
        x = tf.ones((4, 8))
        drop = tf.keras.layers.Dropout(0.5, seed=3)
        model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), drop])
        a, b, c = drop(x), drop(x, training=False), model(x)
        z = tf.keras.layers.Dropout(0.0)(x, training=True)
        t1 = model(x, training=True)
        t2 = drop(x, training=True)
        """
    )
    g = it.globals.vars
    assert g["a"] is g["x"] and g["b"] is g["x"] and g["c"] is g["x"] and g["z"] is g["x"]
    m1, m2 = it.value(g["t1"].id), it.value(g["t2"].id)
    # kept elements scaled by 1 / (1 - rate), the others 0 (Keras's inverted dropout)
    assert set(np.unique(m1)) <= {0.0, 2.0} and set(np.unique(m2)) <= {0.0, 2.0}
    assert it.g[g["t1"].id].op == "dropout" and not np.array_equal(m1, m2)  # a new mask


def test_lambda_passes_arguments_and_tf_functions():
    it = interpret(
        """
        import tensorflow as tf
        def scale(t, k=1.0):
            return t * k
        x = tf.constant([[1.0, -2.0]])
        a = tf.keras.layers.Lambda(scale, arguments={"k": 3.0})(x)
        b = tf.keras.layers.Lambda(tf.nn.relu)(x)
        c = tf.keras.layers.Activation(tf.keras.activations.relu)(x)
        d = tf.keras.layers.Reshape((-1, 1))(x)
        """
    )
    g = it.globals.vars
    assert it.value(g["a"].id).tolist() == [[3.0, -6.0]]
    assert it.value(g["b"].id).tolist() == [[1.0, 0.0]] == it.value(g["c"].id).tolist()
    assert shape_of(it, "d") == (1, 2, 1)


def test_merge_layers_want_a_list():
    src = b"import tensorflow as tf\ny = tf.keras.layers.Add()(tf.ones((2, 3)))\n"
    with pytest.raises(GradcliError) as exc:
        read_program(src, "t.py")
    # Keras 3's text names the input_shape (tests/data/tf_errors.json): refused, not copied
    assert "an Add layer" in exc.value.message or "a Add layer" in exc.value.message
    assert "--run" in exc.value.message
    assert exc.value.pos.line == 2


def test_explain_names_the_embedding_rows_never_looked_up():
    res = CliRunner().invoke(cli, ["explain", str(CODE / "keras_embedding.py")])
    assert "unselected" in res.stdout and "4 of 10 elements" in res.stdout


def test_explain_names_the_max_pools_dead_elements():
    import json

    doc = json.loads((CODE.parent / "tf_code_reference.json").read_text())
    case = next(c for c in doc["cases"] if c["id"] == "keras_cnn_fixed")
    image_grad = np.array(case["calls"][0]["result"][4]["value"], dtype=float)
    zeros = int(np.sum(image_grad == 0))  # TensorFlow's zeros of the image's gradient
    assert zeros > 0
    res = CliRunner().invoke(cli, ["explain", str(CODE / "keras_cnn_fixed.py")])
    assert f"{zeros} of 72 elements are zero" in res.stdout
    assert "unselected" in res.stdout and "max_pool2d" in res.stdout


@pytest.mark.parametrize("snippet", ["keras_cnn_fixed.py", "keras_merge_layers.py"])
def test_check_agrees_on_the_layers(snippet):
    res = CliRunner().invoke(cli, ["check", str(CODE / snippet)])
    assert res.exit_code == 0, res.stdout
    assert "agree" in res.stdout


def test_explain_names_the_elements_a_training_dropout_dropped(tmp_path):
    program = tmp_path / "drop.py"
    program.write_text(
        textwrap.dedent(
            """
            import tensorflow as tf
            drop = tf.keras.layers.Dropout(0.5)
            h = tf.ones((4, 8))
            with tf.GradientTape() as tape:
                tape.watch(h)
                loss = tf.reduce_sum(drop(h, training=True))
            print(tape.gradient(loss, h))
            """
        )
    )
    grads = read_program(program.read_bytes(), str(program)).calls[0].evaluation.gradients
    dropped = int(np.sum(np.asarray(next(iter(grads.values()))) == 0))
    assert 0 < dropped < 32  # the kept elements' gradient is 1 / (1 - rate) = 2
    # which elements are dropped is gradcli's draw, not TensorFlow's: explain does not
    # claim them, it refuses at the dropout's line naming --run (tfcode/drawn.py)
    res = CliRunner().invoke(cli, ["explain", str(program)])
    assert res.exit_code == 2 and res.stdout == ""
    assert f"{program}:7:" in res.stderr and "numbers drawn at random at line 7" in res.stderr
    assert "--run" in res.stderr and res.stderr.count("\n") == 1

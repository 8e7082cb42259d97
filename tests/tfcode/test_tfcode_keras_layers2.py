"""The reader's second set of Keras layers (activation, shape, merge functions and Dot,
depthwise/separable and grouped convolutions, channels_first, noise and activity
regularisation): names, weight paths and shapes, output shapes, Keras's errors, explain's
causes and check.

Expected names, paths, shapes and error messages were printed by Keras 3.15.1 on
TensorFlow 2.21 for the same programs (gradient values are compared with TensorFlow's by
test_tfcode_reference.py: the keras_layers_* snippets).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

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


def shape_of(it: Interpreter, value) -> tuple:
    return tuple(it.g[it.tensor_id(value, read=False)].shape)


WEIGHTS = """
import tensorflow as tf
x4 = tf.ones((2, 5, 5, 4))
x3 = tf.ones((2, 6, 4))
ls = [tf.keras.layers.PReLU(shared_axes=[1, 2]),
      tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=2),
      tf.keras.layers.SeparableConv2D(3, 2), tf.keras.layers.SeparableConv1D(2, 3),
      tf.keras.layers.DepthwiseConv1D(2), tf.keras.layers.Conv2D(6, 2, groups=2),
      tf.keras.layers.Conv1D(4, 2, groups=4)]
ins = [x4, x4, x4, x3, x3, x4, x3]
outs = [l(i) for l, i in zip(ls, ins)]
names = [tf.keras.layers.ReLU().name, tf.keras.layers.LeakyReLU().name, tf.keras.layers.ELU().name,
         tf.keras.layers.Softmax().name, tf.keras.layers.ThresholdedReLU().name,
         tf.keras.layers.Permute((1,)).name, tf.keras.layers.RepeatVector(2).name,
         tf.keras.layers.UpSampling1D().name, tf.keras.layers.UpSampling2D().name,
         tf.keras.layers.ZeroPadding1D().name, tf.keras.layers.ZeroPadding2D().name,
         tf.keras.layers.Cropping1D().name, tf.keras.layers.Cropping2D().name,
         tf.keras.layers.Identity().name, tf.keras.layers.Rescaling(1.0).name,
         tf.keras.layers.Normalization(mean=0.0, variance=1.0).name, tf.keras.layers.Dot(1).name,
         tf.keras.layers.GaussianNoise(0.1).name, tf.keras.layers.GaussianDropout(0.1).name,
         tf.keras.layers.SpatialDropout2D(0.1).name, tf.keras.layers.AlphaDropout(0.1).name,
         tf.keras.layers.ActivityRegularization().name, tf.keras.layers.InputLayer(shape=(2,)).name]
a = tf.keras.layers.UpSampling2D(size=(2, 3))(x4)
b = tf.keras.layers.Cropping2D(((1, 0), (2, 1)))(x4)
c = tf.keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(x4)
d = tf.keras.layers.Dot(axes=(1, 2))([tf.ones((2, 3, 4)), tf.ones((2, 5, 3))])
e = tf.keras.layers.Dot(axes=1)([tf.ones((2, 3)), tf.ones((2, 3, 5))])
"""


@pytest.fixture(scope="module")
def weights() -> Interpreter:
    return interpret(WEIGHTS)


def test_weight_names_paths_and_shapes_are_kerass(weights):
    ls = weights.globals.vars["ls"]
    got = [(lay.layer.name, [(w.path, shape_of(weights, w)) for w in lay.layer.weights])
           for lay in ls]  # fmt: skip
    assert got == [
        ("p_re_lu", [("p_re_lu/alpha", (1, 1, 4))]),
        ("depthwise_conv2d", [("depthwise_conv2d/kernel", (3, 3, 4, 2)),
                              ("depthwise_conv2d/bias", (8,))]),
        ("separable_conv2d", [("separable_conv2d/depthwise_kernel", (2, 2, 4, 1)),
                              ("separable_conv2d/pointwise_kernel", (1, 1, 4, 3)),
                              ("separable_conv2d/bias", (3,))]),
        ("separable_conv1d", [("separable_conv1d/depthwise_kernel", (3, 4, 1)),
                              ("separable_conv1d/pointwise_kernel", (1, 4, 2)),
                              ("separable_conv1d/bias", (2,))]),
        ("depthwise_conv1d", [("depthwise_conv1d/kernel", (2, 4, 1)),
                              ("depthwise_conv1d/bias", (4,))]),
        ("conv2d", [("conv2d/kernel", (2, 2, 2, 6)), ("conv2d/bias", (6,))]),
        ("conv1d", [("conv1d/kernel", (2, 1, 4)), ("conv1d/bias", (4,))]),
    ]  # fmt: skip


def test_output_shapes_and_names_are_kerass(weights):
    g = weights.globals.vars
    assert [shape_of(weights, o) for o in g["outs"]] == [
        (2, 5, 5, 4), (2, 3, 3, 8), (2, 4, 4, 3), (2, 4, 2), (2, 5, 4), (2, 4, 4, 6), (2, 5, 4)
    ]  # fmt: skip
    assert [shape_of(weights, g[k]) for k in "abcde"] == [
        (2, 10, 15, 4), (2, 4, 2, 4), (2, 6, 8, 4), (2, 4, 5), (2, 5)
    ]  # fmt: skip
    assert g["names"] == [
        "re_lu", "leaky_re_lu", "elu", "softmax", "thresholded_re_lu", "permute",
        "repeat_vector", "up_sampling1d", "up_sampling2d", "zero_padding1d", "zero_padding2d",
        "cropping1d", "cropping2d", "identity", "rescaling", "normalization", "dot",
        "gaussian_noise", "gaussian_dropout", "spatial_dropout2d", "alpha_dropout",
        "activity_regularization", "input_layer",
    ]  # fmt: skip


# (code after "import tensorflow as tf", the start of Keras's message)
KERAS_ERRORS = [
    ("tf.keras.layers.ReLU(max_value=-1.0)",
     "ValueError: max_value of a ReLU layer cannot be a negative value. Received: max_value=-1.0"),
    ("tf.keras.layers.Permute((1, 3))",
     "ValueError: Invalid permutation argument `dims` for Permute Layer."),
    ("tf.keras.layers.AveragePooling2D()",
     "TypeError: AveragePooling2D.__init__() missing 1 required positional argument: "
     "'pool_size'"),
    ("tf.keras.layers.Conv2D(3, 2, groups=2)",
     "ValueError: The number of filters must be evenly divisible by the number of groups. "
     "Received: groups=2, filters=3."),
    ("tf.keras.layers.Conv2D(4, 2, groups=4)(tf.ones((1, 3, 3, 6)))",
     "ValueError: The number of input channels must be evenly divisible by the number of "
     "groups. Received groups=4, but the input has 6 channels (full input shape is "
     "(1, 3, 3, 6))."),
    ("tf.keras.layers.Cropping1D((2, 2))(tf.ones((1, 4, 2)))",
     "ValueError: Exception encountered when calling Cropping1D.call()."),
    ("tf.keras.layers.Dot(axes=(1, 2, 3))",
     "ValueError: Invalid format for argument `axes`: it should contain two elements. "
     "Received: axes=(1, 2, 3)"),
    ("tf.keras.layers.LeakyReLU(negative_slope=-1.0)",
     "ValueError: The negative_slope value of a Leaky ReLU layer cannot be None or negative "
     "value. Expected a float. Received: negative_slope=-1.0"),
    ("tf.keras.layers.RepeatVector(0)",
     "ValueError: Argument `n` should be a positive integer. Received: n=0"),
    ("tf.keras.layers.Normalization(mean=1.0)",
     "ValueError: When setting values directly, both `mean` and `variance` must be set. "
     "Received: mean=1.0 and variance=None"),
    ("tf.keras.layers.Permute((2, 1))(tf.ones((2, 3)))",
     "ValueError: Input 0 with name 'None' of layer 'permute' is incompatible with the layer: "
     "expected ndim=3, found ndim=2. Full shape received: (2, 3)"),
    ("tf.keras.layers.SpatialDropout1D(0.5)(tf.ones((2, 3)))",
     "ValueError: Input 0 with name 'None' of layer 'spatial_dropout1d' is incompatible"),
    ("tf.keras.layers.Dropout(0.5)(tf.ones((2, 3)), True)",
     "ValueError: Only input tensors may be passed as positional arguments. The following "
     "argument value should be passed as a keyword argument: True (of type <class 'bool'>)"),
    ("tf.keras.layers.Dense(2)([[1.0, 2.0]])",
     "ValueError: Only input tensors may be passed as positional arguments. The following "
     "argument value should be passed as a keyword argument: 1.0 (of type <class 'float'>)"),
    ("tf.keras.layers.Conv2D(2, 3, data_format='channels_first')(tf.ones((1, 3, 5, 5)))",
     "UnimplementedError: Exception encountered when calling Conv2D.call()."),
    ("tf.keras.layers.Conv2DTranspose(2, 3, data_format='channels_first')(tf.ones((1, 3, 5, 5)))",
     "InvalidArgumentError: Exception encountered when calling Conv2DTranspose.call()."),
]  # fmt: skip


@pytest.mark.parametrize(("code", "message"), KERAS_ERRORS)
def test_kerass_errors_at_their_line(code, message):
    src = f"import tensorflow as tf\n{code}\n"
    with pytest.raises(GradcliError) as exc:
        read_program(src.encode(), "t.py")
    assert exc.value.message.startswith(message), exc.value.message
    assert exc.value.pos.line == src.count("\n")


def test_leaky_relu_alpha_is_the_deprecated_negative_slope():
    it = interpret(
        """
        import tensorflow as tf
        y = tf.keras.layers.LeakyReLU(alpha=0.5)(tf.constant([-2.0, 4.0]))
        """
    )
    assert it.value(it.globals.vars["y"].id).tolist() == [-1.0, 4.0]


def test_merge_functions_make_a_named_layer_and_work_on_keras_inputs():
    it = interpret(
        """
        import tensorflow as tf
        a = tf.keras.Input(shape=(3,))
        b = tf.keras.Input(shape=(3,))
        s = tf.keras.layers.add([a, b])
        m = tf.keras.Model([a, b], tf.keras.layers.concatenate([s, b], axis=1))
        names = [layer.name for layer in m.layers]
        """
    )
    assert it.globals.vars["names"] == ["input_layer", "input_layer_1", "add", "concatenate"]


def test_explain_names_what_cropping_and_thresholded_relu_cut(tmp_path):
    (tmp_path / "crop.py").write_text(EXPLAIN)
    res = CliRunner().invoke(cli, ["explain", str(tmp_path / "crop.py")])
    out = " ".join(res.stdout.split())
    assert "7 of 8 elements are zero" in out
    assert "unselected" in out and "mask" in out and "non_differentiable" in out


EXPLAIN = """import tensorflow as tf

x = tf.constant([[[1.0, -2.0], [3.0, 0.5], [0.25, 2.0], [-1.0, 4.0]]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.keras.layers.Cropping1D(cropping=(1, 2))(x)
    z = tf.keras.layers.ThresholdedReLU(theta=0.5)(y)
    loss = tf.reduce_sum(z)
print(tape.gradient(loss, x))
"""


def test_explain_names_the_channels_a_spatial_dropout_dropped(tmp_path):
    src = """import tensorflow as tf

h = tf.ones((2, 5, 8))
drop = tf.keras.layers.SpatialDropout1D(0.5)
with tf.GradientTape() as tape:
    tape.watch(h)
    loss = tf.reduce_sum(drop(h, training=True))
print(tape.gradient(loss, h))
"""
    program = read_program(src.encode(), "t.py")
    grad = next(iter(program.calls[0].evaluation.gradients.values()))
    # whole channels: each (sample, channel) column is all zero or all 2 = 1 / (1 - rate)
    columns = grad.transpose(0, 2, 1).reshape(16, 5)
    assert all(set(col.tolist()) in ({0.0}, {2.0}) for col in columns)
    (tmp_path / "drop.py").write_text(src)
    res = CliRunner().invoke(cli, ["explain", str(tmp_path / "drop.py")])
    assert res.exit_code == 2  # gradcli's draw, not TensorFlow's: not claimed (drawn.py)
    assert "drop.py:7:" in res.stderr and "numbers drawn at random at line 7" in res.stderr


@pytest.mark.parametrize(
    "snippet",
    ["keras_layers_activations.py", "keras_layers_merge_functions.py",
     "keras_layers_reshaping.py", "keras_layers_grouped_conv.py"],
)  # fmt: skip
def test_check_agrees_on_the_layers(snippet):
    res = CliRunner().invoke(cli, ["check", str(CODE / snippet)])
    assert res.exit_code == 0, res.stdout
    assert "agree" in res.stdout

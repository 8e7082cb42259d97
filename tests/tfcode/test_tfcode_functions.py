"""The reader's functions with their own gradients (@tf.custom_gradient) beyond the snippets:
TensorFlow's errors, check's view of them, and what explain names."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.check.run import run_check
from gradcli.core.jacobian import hessian
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program


def read(text: str):
    return read_program(text.encode(), "t.py")


HEAD = "import tensorflow as tf\n"


def test_a_body_reading_a_variable_needs_a_variables_parameter():
    code = HEAD + (
        "v = tf.Variable(2.0)\n"
        "@tf.custom_gradient\n"
        "def f(x):\n"
        "    def grad(dy):\n"
        "        return dy\n"
        "    return x * v, grad\n"
        "x = tf.constant(1.0)\n"
        "y = f(x)\n"
    )
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 9
    # TensorFlow 2.21 raises TypeError here, its text naming the variable's repr (numpy=2.0,
    # tests/data/tf_errors.json): the reader refuses rather than approximate that text
    assert "without a variables= parameter" in exc.value.message
    assert "--run" in exc.value.message


def test_too_few_gradients_is_tensorflows_error_at_the_gradient_call():
    code = HEAD + (
        "@tf.custom_gradient\n"
        "def f(x, y):\n"
        "    def grad(dy):\n"
        "        return dy\n"
        "    return x * y, grad\n"
        "x = tf.Variable(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    z = f(x, 2.0)\n"
        "g = tape.gradient(z, x)\n"
    )
    call = read(code).calls[0]
    assert call.error == {
        "type": "ValueError",
        "message": "custom_gradient function expected to return 2 gradients, but returned 1 "
        "instead.",
    }
    assert call.evaluation.gradients["x"] == 1.0  # gradcli still answers


def test_a_gradient_of_another_shape_is_refused_with_the_grad_functions_line():
    code = HEAD + (
        "@tf.custom_gradient\n"
        "def f(x):\n"
        "    def grad(dy):\n"
        "        return tf.reduce_sum(dy)\n"
        "    return tf.identity(x), grad\n"
        "x = tf.Variable([1.0, 2.0])\n"
        "y = f(x)\n"
    )
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 4 and "shape ()" in exc.value.message


CLIP = HEAD + (
    "@tf.custom_gradient\n"
    "def clip(x):\n"
    "    def grad(dy):\n"
    "        return tf.clip_by_value(dy, -0.5, 0.5)\n"
    "    return tf.identity(x), grad\n"
    "x = tf.Variable([1.0, -2.0], dtype=tf.float64)\n"
    "with tf.GradientTape() as tape:\n"
    "    loss = tf.reduce_sum(clip(x) ** 2)\n"
    "g = tape.gradient(loss, x)\n"
)


def test_check_does_not_pretend_to_check_a_gradient_that_transforms_dy():
    report = run_check(read(CLIP).calls[0].evaluation, "auto")
    check = report.inputs["x"]
    assert check.verdict == "skipped" and "not linear in its upstream gradient" in check.note
    assert report.ok


def test_check_compares_a_custom_gradient_with_its_bodys_derivative():
    code = HEAD + (
        "@tf.custom_gradient\n"
        "def double_relu(x):\n"
        "    def grad(dy):\n"
        "        return dy * tf.cast(x > 0, tf.float64) * 2.0\n"
        "    return tf.nn.relu(x), grad\n"
        "x = tf.Variable([1.0, -2.0, 3.0], dtype=tf.float64)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.reduce_sum(double_relu(x))\n"
        "g = tape.gradient(loss, x)\n"
    )
    report = run_check(read(code).calls[0].evaluation, "auto", customs=True)
    assert report.inputs["x"].verdict == "agree"  # the chain uses the gradient as given
    [custom] = report.customs
    assert custom.function == "double_relu" and custom.parameter == "x"
    assert custom.factor == 2.0 and not custom.ok


def test_hessian_differentiates_the_grad_function_through_what_it_reads():
    code = HEAD + (
        "@tf.custom_gradient\n"
        "def log1pexp(x):\n"
        "    e = tf.exp(x)\n"
        "    def grad(dy):\n"
        "        return dy * (1 - 1 / (1 + e))\n"
        "    return tf.math.log(1 + e), grad\n"
        "x = tf.constant(2.0, dtype=tf.float64)\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = log1pexp(x)\n"
        "g = tape.gradient(y, x)\n"
    )
    block = hessian(read(code).calls[0].problem)["x"]["x"]
    s = 1 / (1 + np.exp(-2.0))
    assert block.status == "connected" and np.isclose(block.value, s * (1 - s), rtol=1e-14)


def test_py_function_differentiates_its_inputs_only_as_tensorflow_does():
    code = HEAD + (
        "x = tf.constant([1.0, 2.0])\n"
        "w = tf.Variable(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.py_function(lambda a: a * w, [x], tf.float32)\n"
        "    loss = tf.reduce_sum(y)\n"
        "g = tape.gradient(loss, [w, x])\n"
    )
    grads = read(code).calls[0].evaluation.gradients
    assert grads["w"] is None  # read by the function, not an input: TensorFlow gives None
    assert grads["x"].tolist() == [3.0, 3.0]


def test_py_function_returning_a_tensor_of_another_dtype_is_refused():
    code = HEAD + (
        "x = tf.constant([1.0, 2.0])\n"
        "w = tf.Variable(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = tf.py_function(lambda a: tf.cast(a, tf.float64), [x * w], tf.float32)\n"
        "    loss = tf.reduce_sum(y)\n"
        "g = tape.gradient(loss, w)\n"
    )
    # TensorFlow 2.21 raises InvalidArgumentError whose text names its kernel and the tensor
    # (tests/data/tf_errors.json py_function_wrong_dtype): refused, not approximated
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 5
    assert "returning float64 for Tout float32" in exc.value.message
    assert "--run" in exc.value.message


def test_numpy_function_keeps_the_arrays_dtype_and_gives_no_gradient():
    code = (
        HEAD
        + "import numpy as np\n"
        + (
            "x = tf.constant([1.0, 2.0])\n"
            "w = tf.Variable(3.0)\n"
            "with tf.GradientTape() as tape:\n"
            "    y = tf.numpy_function(lambda a: a.astype(np.float64) * 2, [x * w], tf.float32)\n"
            "    loss = tf.reduce_sum(y)\n"
            "g = tape.gradient(loss, w)\n"
        )
    )
    call = read(code).calls[0]
    assert call.evaluation.outputs["loss"].dtype == np.float64  # as TensorFlow in eager mode
    assert call.evaluation.gradients["w"] is None


TF_FUNCTION_OUTPUTS = HEAD + (
    "acts = []\n"
    "@tf.function\n"
    "def f(x):\n"
    "    h = tf.tanh(x)\n"
    "    acts.append(h)\n"
    "    return h * 2.0, tf.reduce_sum(h * h)\n"
    "x = tf.constant([0.5, -1.0])\n"
    "with tf.GradientTape(persistent=True) as tape:\n"
    "    tape.watch(x)\n"
    "    a, loss = f(x)\n"
    "    z = tf.reduce_sum(a * 3.0)\n"
    "print(tape.gradient({target}, {source}))\n"
)


@pytest.mark.parametrize("target, source", [("loss", "acts[0]"), ("z", "acts[0]")])
def test_a_source_made_inside_a_tf_function_call_the_target_is_computed_in_is_refused(
    target, source
):
    # a tape outside the call records it as one op: TensorFlow 2.21 printed None for each
    # (the inlined body would give a gradient)
    with pytest.raises(GradcliError) as exc:
        read(TF_FUNCTION_OUTPUTS.format(target=target, source=source))
    assert exc.value.pos.line == 13 and "@tf.function f" in exc.value.message
    assert "--run" in exc.value.message


def test_a_tf_function_output_used_after_the_call_is_differentiated():
    # z is computed from the output a outside the call: TensorFlow 2.21 printed [3. 3.];
    # loss is not computed from a at all: None
    [call] = read(TF_FUNCTION_OUTPUTS.format(target="z", source="a")).calls
    assert call.evaluation.gradients["a"].tolist() == [3.0, 3.0]
    [call] = read(TF_FUNCTION_OUTPUTS.format(target="loss", source="a")).calls
    assert call.evaluation.gradients["a"] is None


def test_a_jacobian_of_an_empty_target_is_refused():
    # TensorFlow 2.21 gives an empty (0, 4) Jacobian (tests/data/tf_threads)
    code = HEAD + (
        "v = tf.Variable(1.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = v * tf.zeros((0, 4))\n"
        "print(tape.jacobian(y, v))\n"
    )
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 5 and "empty target" in exc.value.message


@pytest.mark.parametrize(
    "use", ["loss = f(x) + tf.reduce_sum(acts[0])", "loss = f(x)\n    z = acts[0] * 2.0"]
)
def test_a_tensor_a_tf_function_call_keeps_in_python_state_is_refused_where_used(use):
    # a graph tensor the call made and did not return: TensorFlow 2.21 fails where it is used,
    # on the line that uses it ("TypeError: <tf.Tensor 'Tanh:0' shape=(2,) dtype=float32> is
    # out of scope and cannot be used here", tests/data/tf_never_wrong)
    code = HEAD + (
        "acts = []\n"
        "@tf.function\n"
        "def f(x):\n"
        "    h = tf.tanh(x)\n"
        "    acts.append(h)\n"
        "    return tf.reduce_sum(h * h)\n"
        "x = tf.constant([0.5, -1.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        f"    {use}\n"
        "print(tape.gradient(loss, x))\n"
    )
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 11 + use.count("\n")
    assert "@tf.function f" in exc.value.message and "--run" in exc.value.message


def test_watching_an_outer_tape_inside_a_tf_function_is_refused():
    # the traced tape.watch sees the graph's placeholder: TensorFlow 2.21 printed None for
    # the outer tape's gradient (the reader would watch the eager x and give [2. 4.])
    code = HEAD + (
        "@tf.function\n"
        "def f(x, tape):\n"
        "    tape.watch(x)\n"
        "    return tf.reduce_sum(x * x)\n"
        "x = tf.constant([1.0, 2.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    y = f(x, tape)\n"
        "print(tape.gradient(y, x))\n"
    )
    with pytest.raises(GradcliError) as exc:
        read(code)
    assert exc.value.pos.line == 4 and "made outside it" in exc.value.message

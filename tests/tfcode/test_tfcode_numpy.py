"""NumPy around TensorFlow code: constructors, np.random, shape functions, scalar
constructors and keras.utils.to_categorical read as NumPy values (NumPy's own results are the
expected values: NumPy is what runs there), leaves_tape on tensors, tf.random.uniform's
integer form and its TensorFlow errors (checked against TensorFlow 2.21 by hand)."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from gradcli.explain.analysis import explain_sum
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import feeds, read_program
from gradcli.tfcode.interpret import Interpreter
from gradcli.tfcode.values import NP, Tensor

HEAD = "import numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\n"


def run(code: str) -> Interpreter:
    tree = ast.parse(HEAD + code)
    it = Interpreter("t.py", (HEAD + code).splitlines(), feeds(tree))
    it.run_module(tree)
    assert not it.refusals.items, it.refusals.items
    assert it.error is None, it.error
    return it


def value(it: Interpreter, name: str):
    v = it.globals.vars[name]
    if isinstance(v, Tensor):
        assert v.kind == NP, v
        return it.as_array(v, None)
    return v


@pytest.mark.parametrize(
    "expr",
    [
        "np.arange(5)",
        "np.arange(1, 7, 2)",
        "np.arange(0.0, 1.0, 0.25)",
        "np.arange(4, dtype=np.float32)",
        "np.linspace(0.0, 1.0, 5)",
        "np.linspace(-1, 1, num=4, endpoint=False, dtype=np.float32)",
        "np.zeros_like(np.arange(3))",
        "np.ones_like([[1.0, 2.0]], dtype=np.int32)",
        "np.full_like(np.arange(3), 7)",
        "np.full((2, 2), 0.5)",
        "np.eye(3)",
        "np.eye(2, 3, k=1, dtype=np.int64)",
        "np.identity(2)",
        "np.concatenate([np.arange(2), np.arange(3)])",
        "np.concatenate([np.eye(2), np.eye(2)], axis=1)",
        "np.stack([np.arange(2), np.arange(2)], axis=1)",
        "np.vstack([np.arange(3), np.arange(3)])",
        "np.hstack([np.arange(3), np.arange(2)])",
        "np.hstack([np.eye(2), np.eye(2)])",
        "np.expand_dims(np.arange(3), 0)",
        "np.reshape(np.arange(6), (2, 3))",
        "np.transpose(np.reshape(np.arange(6), (2, 3)))",
        "np.squeeze(np.ones((1, 3, 1)), axis=0)",
        "np.argmin(np.array([3.0, -1.0, 2.0]))",
        "np.where(np.array([True, False]), np.array([1.0, 2.0]), np.array([3.0, 4.0]))",
        "np.std(np.array([1.0, 2.0, 4.0]))",
        "np.var(np.array([[1.0, 2.0], [3.0, 5.0]]), axis=0)",
        "np.log1p(np.array([0.0, 1.0]))",
        "np.arcsin(np.array([0.5]))",
        "np.tile(np.arange(2), 3)",
        "np.tile(np.eye(2), (1, 2))",
        "np.outer(np.arange(2.0), np.arange(3.0))",
        "np.float32(2.5)",
        "np.int32(7)",
        "np.float64([1, 2])",
        "np.arange(6).reshape(2, 3)",
        "np.arange(6).reshape((3, 2)).T",
        "np.arange(6.0).reshape(2, -1).transpose()",
        "np.eye(3).flatten()",
        "np.eye(2).ravel().copy()",
        "np.arange(6).reshape(2, 3).sum(axis=0)",
        "np.arange(6.0).reshape(2, 3).mean()",
        "np.arange(6.0).reshape(2, 3).max(axis=1)",
        "np.argmax(np.array([[1.0, 5.0], [7.0, 2.0]]))",
        "np.array([[1.0, 5.0], [7.0, 2.0]]).argmax(axis=1)",
        "np.arange(7) % 3",
        "np.arange(7) // 2",
        "np.arange(-3.0, 3.0) % 2.0",
        "np.mean(np.arange(4) > 1)",
        "np.sum(np.arange(5) > 1)",
        "np.mean([1, 2, 4])",
        "np.std(np.arange(5), axis=0)",
        "np.reshape(np.arange(12.0), (4, 3))[np.array([2, 0, -1])]",
        "np.arange(5.0)[[4, 1]]",
    ],
)
def test_numpy_functions_give_numpys_values_and_dtypes(expr):
    got = value(run(f"x = {expr}\n"), "x")
    want = eval(expr, {"np": np})  # NumPy itself is the reference for NumPy's functions
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-15)


def test_to_categorical_is_keras_numpy_one_hot():
    it = run(
        "a = keras.utils.to_categorical([0, 2, 1])\n"
        "b = tf.keras.utils.to_categorical(np.array([[1], [0]]), num_classes=3)\n"
    )
    a, b = value(it, "a"), value(it, "b")
    assert a.dtype == np.float64 and a.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert b.shape == (2, 3) and b.tolist() == [[0, 1, 0], [1, 0, 0]]  # (n, 1) -> (n, 3)


def test_numpy_random_functions_give_numpys_structure():
    it = run(
        "a = np.random.randint(0, 5, size=(2, 3))\nb = np.random.randint(4)\n"
        "c = np.random.random((2,))\nd = np.random.random()\n"
        "e = np.random.choice(5, size=3, replace=False)\nf = np.random.permutation(4)\n"
        "g = np.random.standard_normal(size=(3, 1))\nidx = np.arange(4)\n"
        "np.random.shuffle(idx)\nh = np.random.choice([1.0, 2.0])\n"
    )
    a = value(it, "a")
    assert a.shape == (2, 3) and a.dtype == np.int64 and a.min() >= 0 and a.max() < 5
    assert isinstance(value(it, "b"), int) and 0 <= value(it, "b") < 4
    assert value(it, "c").shape == (2,) and isinstance(value(it, "d"), float)
    assert sorted(value(it, "f").tolist()) == [0, 1, 2, 3]
    assert len(set(value(it, "e").tolist())) == 3
    assert value(it, "g").shape == (3, 1)
    assert value(it, "h") in (1.0, 2.0)
    empty = run("e = np.empty((2, 3), dtype=np.float32)\n")
    assert value(empty, "e").shape == (2, 3) and value(empty, "e").dtype == np.float32


def test_numpy_on_a_tensor_inside_a_tape_leaves_it():
    program = read_program(
        (
            HEAD + "w = tf.Variable([1.0, 2.0])\n"
            "with tf.GradientTape() as tape:\n"
            "    y = w * 3.0\n"
            "    z = np.concatenate([y, y])\n"
            "    s = np.float32(tf.reduce_sum(w))\n"
            "    loss = tf.reduce_sum(tf.constant(z)) * s\n"
            "g = tape.gradient(loss, w)\n"
        ).encode(),
        "t.py",
    )
    [call] = program.calls
    assert list(call.evaluation.gradients.values()) == [None]
    pair = explain_sum(call.problem, call.problem.wrt)[call.problem.wrt[0]]
    lines = sorted({c.line for c in pair.causes if c.kind == "leaves_tape"})
    assert lines == [7, 8]
    assert "use tf.concat" in pair.reason or any(
        "use tf.concat" in (c.detail or "") for c in pair.causes
    )


def test_tf_float32_is_not_callable_as_in_tensorflow():
    with pytest.raises(GradcliError) as exc:
        read_program((HEAD + "x = tf.float32(2.0)\n").encode(), "t.py")
    assert "TypeError: 'DType' object is not callable" in exc.value.message


def test_integer_uniform_draws_in_range_and_gets_no_gradient():
    it = run(
        "i = tf.random.uniform([50], minval=2, maxval=6, dtype=tf.int32)\n"
        "j = tf.random.uniform([3], maxval=3, dtype=tf.int64)\n"
    )
    i = it.as_array(it.globals.vars["i"], None)
    j = it.as_array(it.globals.vars["j"], None)
    assert i.dtype == np.int32 and i.min() >= 2 and i.max() < 6
    assert j.dtype == np.int64 and j.shape == (3,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("tf.random.uniform([3], dtype=tf.int32)", "ValueError: Must specify maxval for integer "
         "dtype tf.int32"),
        ("tf.random.uniform([3], minval=0.5, maxval=10, dtype=tf.int32)",
         "TypeError: Cannot convert 0.5 to EagerTensor of dtype int32"),
    ],
)  # fmt: skip
def test_integer_uniform_errors_are_tensorflows(call, message):
    with pytest.raises(GradcliError) as exc:
        read_program((HEAD + f"x = {call}\n").encode(), "t.py")
    assert message in exc.value.message


def test_np_where_with_one_argument_is_refused_by_name():
    with pytest.raises(GradcliError) as exc:
        read_program((HEAD + "x = np.where(np.arange(3) > 0)\n").encode(), "t.py")
    assert "np.where(condition)" in exc.value.message


def test_numpy_integer_indexing_out_of_bounds_is_numpys_index_error():
    with pytest.raises(GradcliError) as exc:
        read_program((HEAD + "x = np.arange(3.0)[np.array([0, 3])]\n").encode(), "t.py")
    assert "IndexError: index 3 is out of bounds for axis 0 with size 3" in exc.value.message

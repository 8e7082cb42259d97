"""Loops in TensorFlow code: Python while/for with break/continue/else, tf.while_loop and
tf.TensorArray beyond the snippets (their bounds, refusals and TensorFlow's errors)."""

from __future__ import annotations

import pytest

from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

HEAD = "import tensorflow as tf\n"


def read(text: str):
    return read_program(text.encode(), "t.py")


def grad_of(code: str):
    program = read(HEAD + code)
    [call] = program.calls
    return list(call.evaluation.gradients.values())


def test_break_continue_and_else_follow_python():
    # z = 1 + w*(1 + 3 + 4) after the while; the for multiplies by w twice then breaks
    [g] = grad_of(
        "w = tf.Variable(2.0, dtype=tf.float64)\n"
        "with tf.GradientTape() as tape:\n"
        "    z = tf.constant(1.0, tf.float64)\n"
        "    k = 0\n"
        "    while k < 10:\n"
        "        k += 1\n"
        "        if k == 2:\n"
        "            continue\n"
        "        if k == 5:\n"
        "            break\n"
        "        z = z + w * k\n"
        "    else:\n"
        "        z = z * 100.0\n"
        "    for j in range(5):\n"
        "        z = z * w\n"
        "        if j == 1:\n"
        "            break\n"
        "    else:\n"
        "        z = z * 100.0\n"
        "g = tape.gradient(z, w)\n"
    )
    w = 2.0  # z = (1 + 8 w) w^2: dz/dw = 2 w + 24 w^2
    assert g == 2 * w + 24 * w**2


def test_a_while_else_runs_when_the_condition_ends_the_loop():
    [g] = grad_of(
        "w = tf.Variable(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    n = 0\n"
        "    y = w\n"
        "    while n < 2:\n"
        "        n += 1\n"
        "    else:\n"
        "        y = y * w\n"
        "g = tape.gradient(y, w)\n"
    )
    assert g == 6.0


def test_iterating_an_eager_tensor_gives_its_rows():
    [g] = grad_of(
        "x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])\n"
        "with tf.GradientTape() as tape:\n"
        "    total = 0.0\n"
        "    for row in x:\n"
        "        total = total + tf.reduce_sum(row * row)\n"
        "g = tape.gradient(total, x)\n"
    )
    assert g.tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_while_loop_maximum_iterations_and_tuple_results():
    program = read(
        HEAD + "w = tf.Variable(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    out = tf.while_loop(lambda i, y: True, lambda i, y: (i + 1, y * w), (0, 1.0),\n"
        "                        maximum_iterations=3)\n"
        "g = tape.gradient(out[1], w)\n"
    )
    [call] = program.calls
    assert call.evaluation.gradients["w"] == 12.0  # w^3


def test_an_unknowable_while_condition_is_refused_at_the_loop():
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "x = tf.signal.stft(1.0)\nwhile x > 0:\n    x = x - 1\n")
    assert "line 3:1: a while loop whose condition gradcli cannot know" in exc.value.message
    assert "line 2:5: tf.signal.stft" in exc.value.message


def test_a_loop_past_the_node_limit_is_refused_with_the_bound(monkeypatch):
    monkeypatch.setattr(limits, "current", limits.Limits(max_nodes=200))
    code = "x = tf.constant(1.0)\nfor i in range(1000):\n    x = x * 1.5\n"
    with pytest.raises(GradcliError) as exc:
        read(HEAD + code)
    assert exc.value.pos.line == 3
    assert "passes 200 nodes" in exc.value.message and "--max-nodes" in exc.value.message
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "x = tf.constant(1.0)\nwhile x > 0:\n    x = x * 1.5\n")
    assert exc.value.pos.line == 3 and "passes 200 nodes" in exc.value.message


def test_a_graph_mode_python_while_on_a_tensor_is_refused():
    with pytest.raises(GradcliError) as exc:
        read(
            HEAD + "tf.compat.v1.disable_eager_execution()\n"
            "x = tf.constant(1.0)\nwhile x < 3.0:\n    x = x + 1.0\n"
        )
    assert exc.value.pos.line == 4 and "use tf.while_loop" in exc.value.message


def test_a_while_loop_body_must_return_the_loop_variables():
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "r = tf.while_loop(lambda x: x < 5, lambda x: x + 1, [0])\n")
    assert "a tf.while_loop body returning" in exc.value.message


def test_tensor_array_errors_are_tensorflows():
    program = read(
        HEAD + "ta = tf.TensorArray(tf.float32, size=2)\n"
        "ta.write(0, 1.0)\n"
        "a = ta.read(0)\n"
        "w = tf.Variable(1.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = w * 2.0\n"
        "g = tape.gradient(y, w)\n"
        "b = ta.read(0)\n"
    )
    assert program.error["type"] == "InvalidArgumentError" and program.error["line"] == 9
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "ta = tf.TensorArray(tf.float32, size=2)\nta = ta.write(2, 1.0)\n")
    assert "OutOfRangeError" in exc.value.message and exc.value.pos.line == 3


def test_a_cleared_element_stacks_as_zeros_in_eager_mode():
    [g] = grad_of(
        "w = tf.Variable([1.0, 2.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    ta = tf.TensorArray(tf.float32, size=2)\n"
        "    ta = ta.write(0, w * 3.0).write(1, w * 5.0)\n"
        "    first = ta.read(0)\n"
        "    loss = tf.reduce_sum(ta.stack()) + tf.reduce_sum(first)\n"
        "g = tape.gradient(loss, w)\n"
    )
    assert g.tolist() == [8.0, 8.0]  # the stack's row 0 is zeros after the read

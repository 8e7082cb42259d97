"""TF1 graph-mode optimizers and collections beyond the snippets: TensorFlow 2.21's errors and
names (checked against TensorFlow 2.21 by hand: the messages below are what it printed),
var_list forms, the train op in Session.run, eager var_list=None."""

from __future__ import annotations

import pytest

from gradcli.explain.analysis import explain_sum
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

GRAPH = "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n"
V = "tf.compat.v1"
OPT = f"opt = {V}.train.GradientDescentOptimizer(0.1)\n"


def read(text: str):
    return read_program(text.encode(), "t.py")


def grads(call) -> list:
    return [None if g is None else g.tolist() for g in call.evaluation.gradients.values()]


def test_graph_names_are_unique_and_scoped_as_tensorflows():
    # TensorFlow 2.21's message names them: s/Variable, s/w, n/w, g, w, w_1, s_1/Variable
    program = read(
        GRAPH + f"with {V}.variable_scope('s'):\n    v = tf.Variable(1.0)\n"
        "    w = tf.Variable(1.0, name='w')\n"
        "with tf.name_scope('n'):\n    z = tf.Variable(1.0, name='w')\n"
        f"    g = {V}.get_variable('g', shape=[])\n"
        "w2 = tf.Variable(1.0, name='w')\nw3 = tf.Variable(1.0, name='w')\n"
        f"with {V}.variable_scope('s'):\n    v2 = tf.Variable(1.0)\n"
        "loss = tf.cast(tf.argmax([v, w, z, g, w2, w3, v2]), tf.float32)\n"
        f"{OPT}op = opt.minimize(loss)\n"
    )
    names = ["s/Variable", "s/w", "n/w", "g", "w", "w_1", "s_1/Variable"]
    texts = [f"<tf.Variable '{n}:0' shape=() dtype=float32>" for n in names]
    assert f"between variables {texts!r} and loss" in program.error["message"]
    assert program.error["message"].endswith('loss Tensor("Cast:0", shape=(), dtype=float32).')


def test_an_empty_var_list_is_tensorflows_no_variables_to_optimize():
    with pytest.raises(GradcliError) as exc:
        read(GRAPH + "w = tf.Variable(1.0)\n" + OPT + "op = opt.minimize(w * 2.0, var_list=[])\n")
    assert "ValueError: No variables to optimize." in exc.value.message
    assert exc.value.pos.line == 5


def test_the_default_var_list_is_every_trainable_variable_in_creation_order():
    program = read(
        GRAPH + "x = tf.compat.v1.placeholder(tf.float32, shape=[2])\n"
        "a = tf.Variable([1.0, 2.0])\nfrozen = tf.Variable(3.0, trainable=False)\n"
        f"b = {V}.get_variable('b', shape=[], initializer=tf.ones_initializer())\n"
        "loss = tf.reduce_sum(a * x) * frozen\n"
        f"{OPT}gv = opt.compute_gradients(loss)\n"
        f"with {V}.Session() as sess:\n"
        "    r = sess.run([g for g, v in gv if g is not None], feed_dict={x: [1.0, -1.0]})\n"
    )
    [call] = program.calls
    assert call.kind == "compute_gradients"
    assert call.sources == [f"{V}.trainable_variables()[0]", f"{V}.trainable_variables()[1]"]
    assert grads(call) == [[3.0, -3.0], None]  # d/da = x * frozen; b unused
    assert any("[0] a (line 4), [1] b (line 6)" in n for n in call.notes)
    pairs = explain_sum(call.problem, call.problem.wrt)
    b = pairs[call.problem.wrt[1]]
    assert [c.kind for c in b.causes if c.kind == "no_path"] == ["no_path"]


@pytest.mark.parametrize(
    ("var_list", "names"),
    [("{'b': b, 'a': a}", ["a", "b"]), ("a", ["a"]), ("(b, a)", ["b", "a"])],
)
def test_var_list_is_flattened_as_tf_nest_does(var_list, names):
    program = read(
        GRAPH + "a = tf.Variable(2.0)\nb = tf.Variable(3.0)\nloss = a * a * b\n"
        f"{OPT}gv = opt.compute_gradients(loss, var_list={var_list})\n"
    )
    [call] = program.calls
    assert call.sources == names
    want = {"a": 12.0, "b": 4.0}  # d(a^2 b)/da = 2ab, /db = a^2
    assert grads(call) == [want[n] for n in names]


def test_session_run_gives_none_for_the_train_op_even_among_other_fetches():
    program = read(
        GRAPH + "w = tf.Variable(2.0)\nloss = w * w\n"
        f"train = {V}.train.AdamOptimizer(0.1).minimize(loss)\n"
        f"with {V}.Session() as sess:\n    out = sess.run([train, loss])\n"
        "    single = sess.run(train)\n"
        "    g = tf.gradients(w * (float(out[0] is None) + float(single is None)), [w])\n"
    )
    assert program.error is None
    assert grads(program.calls[1]) == [2.0]
    call = program.calls[0]
    assert call.kind == "minimize" and grads(call) == [4.0]


def test_a_loss_that_is_not_a_float_is_tensorflows_invalid_type():
    with pytest.raises(GradcliError) as exc:
        read(
            GRAPH
            + "w = tf.Variable([1.0, 3.0])\nloss = tf.argmax(w)\n"
            + OPT
            + "opt.minimize(loss)\n"
        )
    assert (
        "ValueError: Invalid type tf.int64 for ArgMax:0, expected: [tf.float32, tf.float64, "
        "tf.float16, tf.bfloat16]." in exc.value.message
    )


def test_every_gradient_none_is_tensorflows_value_error_after_the_call():
    program = read(
        GRAPH + "w = tf.Variable([1.0, 3.0], name='w')\nb = tf.Variable(0.5)\n"
        "loss = tf.reduce_sum(tf.cast(tf.argmax(w * b), tf.float32))\n"
        + OPT
        + "opt.minimize(loss)\n"
    )
    [call] = program.calls
    assert grads(call) == [None, None]
    assert program.error["type"] == "ValueError"
    assert program.error["message"] == (
        "No gradients provided for any variable, check your graph for ops that do not support "
        "gradients, between variables [\"<tf.Variable 'w:0' shape=(2,) dtype=float32>\", "
        "\"<tf.Variable 'Variable:0' shape=() dtype=float32>\"] and loss "
        'Tensor("Sum:0", shape=(), dtype=float32).'
    )


def test_collections_are_empty_eagerly_and_the_global_step_is_an_int64_variable():
    program = read(
        "import tensorflow as tf\nw = tf.Variable(1.0)\n"
        f"n = len({V}.trainable_variables()) + len({V}.global_variables())\n"
        f"step = {V}.train.get_or_create_global_step()\n"
        f"same = step is {V}.train.get_global_step()\n"
        f"lr = {V}.train.exponential_decay(0.1, step, 10, 0.5)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = w * lr + w * n + w * tf.cast(step + 3, tf.float32) * float(same)\n"
        "g = tape.gradient(loss, [w, step])\n"
    )
    [call] = program.calls
    assert grads(call) == [pytest.approx(3.1), None]  # lr 0.1 at step 0, n = 0, step 0


def test_graph_mode_collections_list_every_variable_in_creation_order():
    program = read(
        GRAPH + "a = tf.Variable(1.0)\nb = tf.Variable(2.0, trainable=False)\n"
        f"c = {V}.get_variable('c', shape=[], initializer=tf.ones_initializer())\n"
        f"n = len({V}.trainable_variables()) * 10 + len({V}.global_variables())\n"
        f"m = len({V}.trainable_variables(scope='c'))\n"
        "g = tf.gradients(a * n + c * m, [a, c])\n"
    )
    [call] = program.calls
    assert grads(call) == [23.0, 1.0]


def test_eager_var_list_none_takes_the_variables_read_in_creation_order():
    program = read(
        "import tensorflow as tf\na = tf.Variable(1.0)\nb = tf.Variable(2.0)\n"
        "c = tf.Variable(3.0, trainable=False)\nd = tf.Variable(4.0)\n"
        f"opt = {V}.train.GradientDescentOptimizer(0.1)\n"
        "gv = opt.compute_gradients(lambda: d * b * c + a * 0.0)\n"
    )
    [call] = program.calls
    assert call.sources == [f"tape.watched_variables()[{k}]" for k in range(3)]
    assert grads(call) == [0.0, 12.0, 6.0]  # a, b, d: creation order, c not watched


def test_eager_minimize_of_a_function_reading_no_variable_is_refused():
    with pytest.raises(GradcliError) as exc:
        read(
            "import tensorflow as tf\n"
            f"opt = {V}.train.GradientDescentOptimizer(0.1)\n"
            "opt.minimize(lambda: tf.constant(1.0))\n"
        )
    # TensorFlow 2.21's ValueError names the loss function's address (no stable record): refused
    assert "minimize of a loss that reads no variable" in exc.value.message
    assert "--run" in exc.value.message


def test_graph_mode_minimize_of_a_loss_function_uses_a_tape():
    program = read(
        GRAPH + "w = tf.Variable(3.0)\n" + OPT + "op = opt.minimize(lambda: w * w, var_list=[w])\n"
    )
    [call] = program.calls
    assert grads(call) == [6.0]


def test_get_collection_reads_the_variable_collections_and_empty_others():
    program = read(
        GRAPH + "a = tf.Variable(1.0)\nb = tf.Variable(2.0, trainable=False)\n"
        f"t = len({V}.get_collection({V}.GraphKeys.TRAINABLE_VARIABLES))\n"
        f"g = len({V}.get_collection({V}.GraphKeys.GLOBAL_VARIABLES))\n"
        f"u = len({V}.get_collection({V}.GraphKeys.UPDATE_OPS))\n"
        f"s = len({V}.get_collection('variables', scope='Variable_1'))\n"
        "with tf.control_dependencies([a]):\n    y = a * (100 * t + 10 * g + u + 1000 * s)\n"
        "grads = tf.gradients(y, [a])\n"
    )
    [call] = program.calls
    assert grads(call) == [1120.0]


def test_tf_compat_v1_layers_are_tensorflows_attribute_error():
    program = read(
        GRAPH + "x = tf.compat.v1.placeholder(tf.float32, [2])\nw = tf.Variable([1.0, 2.0])\n"
        "g = tf.compat.v1.gradients(tf.reduce_sum(w * x), [w])\n"
        "h = tf.compat.v1.layers.dense(x, 3)\n"
        "with tf.compat.v1.Session() as s:\n    s.run(g, feed_dict={x: [3.0, 4.0]})\n"
    )
    assert grads(program.calls[0]) == [[3.0, 4.0]]
    assert program.error["type"] == "AttributeError"
    assert program.error["message"] == "`dense` is not available with Keras 3."
    assert program.error["line"] == 6


def test_tf1_losses_reduce_as_tensorflow_does():
    # mean over the non-zero weights: ((1 - 0)^2 * 2 + (3 - 1)^2 * 0) / 1 = 2; d/dp0 = 4
    program = read(
        GRAPH + "p = tf.Variable([1.0, 3.0])\n"
        "loss = tf.compat.v1.losses.mean_squared_error([0.0, 1.0], p, weights=[2.0, 0.0])\n"
        "total = tf.compat.v1.losses.absolute_difference([0.0, 1.0], p,\n"
        "    reduction=tf.compat.v1.losses.Reduction.SUM)\n"
        "grads = tf.gradients([loss, total], [p])\n"
    )
    [call] = program.calls
    assert grads(call) == [[5.0, 1.0]]  # 4 + 1 (|p0 - 0|'s), 0 + 1 (|p1 - 1|'s)


def test_gate_gradients_constants_are_read_and_ignored():
    program = read(
        GRAPH + "w = tf.Variable(2.0)\n" + OPT + "gv = opt.compute_gradients(w * w * 3.0, "
        "var_list=[w], gate_gradients=opt.GATE_NONE + opt.GATE_OP + opt.GATE_GRAPH)\n"
    )
    [call] = program.calls
    assert grads(call) == [12.0]


def test_a_feed_bound_in_the_training_loop_is_its_first_batch():
    program = read(
        "import numpy as np\n" + GRAPH + "data = np.arange(8.0).reshape(4, 2)\n"
        "x = tf.compat.v1.placeholder(tf.float64, [None, 2])\n"
        "w = tf.Variable([1.0, 1.0], dtype=tf.float64)\n"
        "loss = tf.reduce_sum(x * w)\n" + OPT + "train = opt.minimize(loss)\n"
        f"with {V}.Session() as sess:\n"
        "    for step in range(2):\n"
        "        batch = data[step * 2:(step + 1) * 2]\n"
        "        sess.run(train, feed_dict={x: batch})\n"
    )
    [call] = program.calls
    assert grads(call) == [[2.0, 4.0]]  # the first batch's column sums: [0+2, 1+3]


def test_a_feed_from_unread_code_makes_the_gradient_unknown():
    program = read(
        GRAPH + "from mydata import load\n"
        "x = tf.compat.v1.placeholder(tf.float32, [2])\nw = tf.Variable([1.0, 2.0])\n"
        "g = tf.gradients(tf.reduce_sum(x * w), [w])\n"
        f"with {V}.Session() as sess:\n    batch = load()\n"
        "    sess.run(g, feed_dict={x: batch})\n"
        "    sess.run(g, feed_dict={x: batch})\n"
    )
    [call] = program.calls
    assert call.unknown is not None and call.unknown["line"] == 8


def test_a_feed_that_is_never_computed_is_refused_by_name():
    with pytest.raises(GradcliError) as exc:
        read(
            GRAPH + "x = tf.compat.v1.placeholder(tf.float32, [2])\nw = tf.Variable([1.0, 2.0])\n"
            "g = tf.gradients(tf.reduce_sum(x * w), [w])\n"
            f"with {V}.Session() as sess:\n    sess.run(g, feed_dict={{x: never_bound}})\n"
        )
    assert "a placeholder (x) fed with never_bound, which gradcli could not compute" in (
        exc.value.message
    )


def test_the_textually_first_feed_is_read_not_a_later_evaluation_feed():
    program = read(
        "import numpy as np\n" + GRAPH + "x_train = np.ones((2, 2))\nx_test = np.zeros((2, 2))\n"
        "x = tf.compat.v1.placeholder(tf.float64, [None, 2])\n"
        "w = tf.Variable([1.0, 1.0], dtype=tf.float64)\n"
        "loss = tf.reduce_sum(x * w)\n" + OPT + "train = opt.minimize(loss)\n"
        f"with {V}.Session() as sess:\n"
        "    for step in range(2):\n"
        "        sess.run(train, feed_dict={x: x_train})\n"
        "    final = sess.run(loss, feed_dict={x: x_test})\n"
    )
    [call] = program.calls
    assert grads(call) == [[2.0, 2.0]]  # x_train's column sums (x_test's would be zeros)


def test_a_keep_prob_placeholder_is_dropouts_rate_and_apply_gradients_is_a_train_op():
    program = read(
        GRAPH + "x = tf.compat.v1.placeholder(tf.float32, [2])\n"
        "keep = tf.compat.v1.placeholder(tf.float32)\nw = tf.Variable([1.0, 2.0])\n"
        "loss = tf.reduce_sum(tf.nn.dropout(w * x, rate=1 - keep))\n"
        + OPT
        + "gv = opt.compute_gradients(loss)\ntrain = opt.apply_gradients(gv)\n"
        f"with {V}.Session() as sess:\n"
        "    out = sess.run([train, loss], feed_dict={x: [3.0, 4.0], keep: 1.0})\n"
    )
    assert program.error is None  # the train op is fetched as None, not a None gradient
    [call] = program.calls
    assert grads(call) == [[3.0, 4.0]]  # keep_prob 1: nothing dropped


def test_a_feed_given_positionally_is_read_as_feed_dict():
    # Session.run(fetches, {x: ...}) feeds as feed_dict= does; TensorFlow
    # 2.21 printed [[1.], [1.], [1.]] and 0.25 everywhere for this program
    body = (
        "import numpy as np\n" + GRAPH + f"x = {V}.placeholder(tf.float32, [None, 3])\n"
        "w = tf.Variable(np.full((3, 1), 0.5, dtype='float32'))\n"
        "loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))\n"
        "grads = tf.gradients(loss, [w, x])\n"
        f"with {V}.Session() as sess:\n"
        f"    sess.run({V}.global_variables_initializer())\n"
    )
    [call] = read(
        body + "    print(sess.run(grads, {x: np.ones((2, 3), dtype='float32')}))\n"
    ).calls
    assert grads(call) == [[[1.0], [1.0], [1.0]], [[0.25] * 3] * 2]

"""Keras's training APIs around fit: History, callbacks, fit's data options, predict,
evaluate and the model methods around training. Expected values are what Keras 3.15.1 on
TensorFlow 2.21 gave for the same programs (run once with a scratch TensorFlow; the
snippets keras_fit_*.py carry the gradient values in tests/data/tf_code_reference.json)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.callbacks import Reported
from gradcli.tfcode.values import Opaque, Tensor

HEAD = """import numpy as np
import tensorflow as tf
from tensorflow import keras

x = np.array([[0.0, 0.1, 0.2], [0.3, 0.4, 0.5], [0.6, 0.7, 0.8], [0.9, 1.0, 1.1],
              [1.2, 1.3, 1.4], [1.5, 1.6, 1.7], [1.8, 1.9, 2.0], [2.1, 2.2, 2.3]])
y = np.ones((8, 2))
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_initializer="ones")])
"""


def run(code: str):
    """The program's globals after reading HEAD + code (and its Interpreter)."""
    import ast

    from gradcli.tfcode.interpret import Interpreter
    from gradcli.tfcode.refusals import Refusals

    source = HEAD + code
    tree = ast.parse(source)
    it = Interpreter("t.py", source.splitlines(), {})
    it.refusals = Refusals("t.py")
    it.run_module(tree)
    if it.refusals:
        raise it.refusals.error()
    return it.globals.vars, it


# (compile and fit arguments, History keys, epoch, params) as Keras 3 gave them
HISTORIES = [
    ("loss='mse'", "verbose=0", ["loss"], [0], {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse'", "", ["loss"], [0], {"verbose": "auto", "epochs": 1, "steps": 1}),
    ("loss='mse'", "steps_per_epoch=2, verbose=0", ["loss"], [0],
     {"verbose": 0, "epochs": 1, "steps": 2}),
    ("loss='mse'", "batch_size=3, verbose=2", ["loss"], [0],
     {"verbose": 2, "epochs": 1, "steps": 3}),
    ("loss='mse'", "validation_split=0.3, batch_size=2, verbose=0", ["loss", "val_loss"], [0],
     {"verbose": 0, "epochs": 1, "steps": 3}),
    ("loss='mse'", "epochs=3, initial_epoch=1, verbose=0", ["loss"], [1, 2],
     {"verbose": 0, "epochs": 3, "steps": 1}),
    ("loss='mse', metrics=['acc']", "validation_data=(x, y), verbose=0",
     ["acc", "loss", "val_acc", "val_loss"], [0], {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse', metrics=['mse', 'mean_squared_error']", "verbose=0",
     ["loss", "mean_squared_error", "mse"], [0], {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse', metrics=[keras.metrics.AUC(), keras.metrics.RootMeanSquaredError(name='rm')]",
     "verbose=0", ["auc", "loss", "rm"], [0], {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse', metrics=['mae', 'mae']", "verbose=0", ["loss", "mae", "mae_1"], [0],
     {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse', weighted_metrics=['mae'], metrics=['mse']", "verbose=0",
     ["loss", "mae", "mse"], [0], {"verbose": 0, "epochs": 1, "steps": 1}),
    ("loss='mse'", "epochs=5, verbose=0, callbacks=[keras.callbacks.EarlyStopping(patience=4)]",
     ["loss"], [0, 1, 2, 3, 4], {"verbose": 0, "epochs": 5, "steps": 1}),
]  # fmt: skip


@pytest.mark.parametrize(("compile_args", "fit_args", "keys", "epoch", "params"), HISTORIES)
def test_fit_returns_kerass_history(compile_args, fit_args, keys, epoch, params):
    env, _ = run(
        f"model.compile(optimizer='sgd', {compile_args})\nh = model.fit(x, y, {fit_args})\n"
    )
    h = env["h"]
    assert list(h.attrs["history"]) == keys
    assert h.attrs["epoch"] == epoch and h.attrs["params"] == params
    assert env["model"].attrs["history"] is h  # model.history
    for values in h.attrs["history"].values():  # one opaque value per epoch logged
        assert all(isinstance(v, Reported) for v in values)
        assert "gradcli reads only the first step's gradient and does not train" in (
            values[0].reason()
        )


def test_no_epoch_to_run_gives_an_empty_history_and_no_call():
    env, it = run("model.compile(loss='mse')\nh = model.fit(x, y, epochs=0, verbose=0)\n")
    assert env["h"].attrs["history"] == {} and env["h"].attrs["epoch"] == []
    assert env["h"].attrs["params"] == {"verbose": 0, "epochs": 0, "steps": 1}
    assert it.calls == []


def test_a_callback_that_may_stop_training_makes_the_epochs_opaque():
    # each fit on a model of its own: a second fit of one model is refused (its train step
    # is at weights Keras trained, which gradcli does not compute)
    fresh = (
        "m{k} = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, "
        "kernel_initializer='ones')])\nm{k}.compile(loss='mse')\n"
    )
    env, _ = run(
        fresh.format(k=1)
        + "h = m1.fit(x, y, epochs=5, verbose=0, callbacks=[keras.callbacks.EarlyStopping("
        "monitor='loss', patience=1)])\n"
        + fresh.format(k=2)
        + "h2 = m2.fit(x, y, epochs=3, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])\n"
        + fresh.format(k=3)
        + "h3 = m3.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.EarlyStopping()])\n"
    )
    for name in ("h", "h2"):
        assert isinstance(env[name].attrs["epoch"], Reported)
        assert isinstance(env[name].attrs["history"], Reported)
    # monitors val_loss without validation data: Keras warns and never stops
    assert env["h3"].attrs["epoch"] == [0, 1]


def test_a_second_fit_of_one_model_is_refused_naming_run():
    with pytest.raises(GradcliError) as exc:
        run(
            "model.compile(loss='mse')\nh = model.fit(x, y, epochs=2, verbose=0)\n"
            "h2 = model.fit(x, y, epochs=1, verbose=0)\n"
        )
    assert exc.value.pos.line == HEAD.count("\n") + 3
    assert "a train step after Keras trained the weights at line" in exc.value.message
    assert "gradcli explain --run t.py (needs TensorFlow)" in exc.value.message


def test_a_users_history_callback_is_the_one_fit_returns():
    env, _ = run(
        "model.compile(loss='mse')\nhist = keras.callbacks.History()\n"
        "h = model.fit(x, y, epochs=2, verbose=0, callbacks=[hist])\n"
    )
    assert env["h"] is env["hist"] and env["hist"].attrs["epoch"] == [0, 1]


def test_history_values_in_a_gradient_are_unknown_beyond_the_fit_line():
    env, it = run(
        "model.compile(loss='mse')\nh = model.fit(x, y, verbose=0)\n"
        "v = tf.Variable(1.0)\n"
        "with tf.GradientTape() as tape:\n    t = v * h.history['loss'][-1]\n"
        "g = tape.gradient(t, v)\n"
        "n = len(h.history['loss']) + len(h.history) + ('loss' in h.history)\n"
    )
    call = it.calls[-1]
    assert call.unknown["line"] == 10
    assert "does not train" in call.unknown["reason"]
    assert env["n"] == 3


# (code, TensorFlow's error type and message) as Keras 3 raised them
ERRORS = [
    ("model.compile(loss='mse')\nmodel.fit(x, y, sample_weight=np.ones(8), class_weight={0: 1.0})",
     "ValueError", "You cannot `class_weight` and `sample_weight` at the same time."),
    ("model.compile(loss='mse')\n"
     "model.train_on_batch(x, y, sample_weight=np.ones(8), class_weight={0: 1.0})", "ValueError",
     "Arguments `sample_weight` and `class_weight` cannot be specified at the same time. "
     "Received: sample_weight=[1. 1. 1. 1. 1. 1. 1. 1.], class_weight={0: 1.0}"),
    ("model.compile(loss='mse')\nmodel.fit(x, y, validation_split=0.99)", "ValueError",
     "Training data contains 8 samples, which is not sufficient to split it into a validation "
     "and training set as specified by `validation_split=0.99`. Either provide more data, or a "
     "different value for the `validation_split` argument."),
    ("model.compile(loss='mse', loss_weights=2)", "ValueError",
     "Expected `loss_weights` argument to be a float (single output case) or a list, tuple, or "
     "dict (multiple output case). Received instead: loss_weights=2 of type <class 'int'>"),
    ("model.compile(loss={'nope': 'mse'})\nmodel.fit(x, y)", "TypeError",
     "'NoneType' object is not iterable"),
    ("model.evaluate(x, y)", "ValueError", "You must call `compile()` before using the model."),
    ("o = model.optimizer", "AttributeError", "'Sequential' object has no attribute 'optimizer'"),
]  # fmt: skip


@pytest.mark.parametrize(("code", "kind", "message"), ERRORS)
def test_kerass_errors(code, kind, message):
    _, it = run(code + "\n")
    assert it.error is not None
    assert (it.error.kind, it.error.message) == (kind, message)


def test_predict_is_numpy_and_leaves_the_tape_at_its_line():
    env, it = run(
        "model.compile(loss='mse')\n"
        "p = model.predict(x, verbose=0)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.reduce_mean(model.predict(x, batch_size=2) - y)\n"
        "g = tape.gradient(loss, model.trainable_variables)\n"
    )
    p = env["p"]
    assert isinstance(p, Tensor) and p.kind == "np"
    want = [
        0.30000001192092896,
        1.2000000476837158,
        2.0999999046325684,
        3.0,
        3.9000000953674316,
        4.800000190734863,
        5.699999809265137,
        6.600000381469727,
    ]
    assert it.value(p.id)[:, 0].tolist() == want and it.value(p.id).dtype == np.float32
    assert env["g"] == [None, None]
    from gradcli.explain.analysis import explain_sum

    call = it.calls[0]
    pairs = explain_sum(call.problem, call.problem.wrt)
    for w in call.problem.wrt:
        cause = next(c for c in pairs[w].causes if c.kind != "connected")
        assert (cause.kind, cause.line) == ("leaves_tape", 12), pairs[w].reason
        assert "model(x, training=False)" in cause.detail


def test_evaluate_returns_the_compiled_loss_and_opaque_metrics():
    env, it = run(
        "model.compile(loss='mse', metrics=['mae'])\n"
        "ev = model.evaluate(x, y, batch_size=3, verbose=0)\n"
        "d = model.evaluate(x, y, verbose=0, return_dict=True)\n"
        "one = model.test_on_batch(x[:3], y[:3])\n"
        "names = model.metrics_names\n"
    )
    loss, mae = env["ev"]
    assert isinstance(loss, Tensor) and loss.kind == "py" and isinstance(mae, Reported)
    # batches of 3, 3, 2 averaged by Keras's float32 loss tracker (the mean of all 8 is
    # 10.255000114440918: the batched float32 sums round differently)
    assert float(it.value(loss.id)) == 10.255001068115234
    assert list(env["d"]) == ["loss", "mae"]
    assert float(it.value(env["d"]["loss"].id)) == 10.255000114440918
    assert float(it.value(env["one"][0].id)) == 0.5799999237060547
    assert env["names"] == ["loss", "compile_metrics"]


def test_after_fit_the_models_results_are_opaque():
    env, _ = run(
        "model.compile(loss='mse')\nmodel.fit(x, y, verbose=0)\n"
        "p = model.predict(x)\nev = model.evaluate(x, y)\n"
    )
    assert isinstance(env["p"], Reported) and "trained at line 10" in env["p"].reason()
    assert "leaves_tape" in env["p"].reason()
    assert isinstance(env["ev"], Reported)


def test_load_weights_makes_the_model_opaque():
    _, it = run(
        "model.compile(loss='mse')\nmodel.load_weights('w.weights.h5')\n"
        "with tf.GradientTape() as tape:\n    loss = tf.reduce_sum(model(x))\n"
        "g = tape.gradient(loss, model.trainable_variables)\nmodel.fit(x, y)\n"
    )
    assert [c.unknown["line"] for c in it.calls] == [10, 10]
    assert it.calls[1].kind == "fit"


def test_the_methods_around_training_are_read():
    env, _ = run(
        "model.compile(optimizer=keras.optimizers.Adam(1e-3), loss='mse')\nmodel.summary()\n"
        "model.save('m.keras')\nmodel.save_weights('m.weights.h5')\n"
        "n = model.count_params()\nc = model.get_config()\nopt = model.optimizer\n"
    )
    assert env["n"] == 8 and isinstance(env["c"], Opaque)
    assert env["opt"].cls.name == "Adam"


def test_refused_at_its_line():
    with pytest.raises(GradcliError) as exc:
        run("model.compile(loss='mse')\nmodel.fit(x, y, callbacks=[print])\n")
    assert "a callback that is" in exc.value.message and exc.value.pos.line == 10


def test_the_cli_json_shows_the_fit_call_and_the_history_values_unknown(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(
        HEAD + "model.compile(optimizer='adam', loss='mse', metrics=['mae'])\n"
        "history = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)\n"
        "print(history.history['loss'])\n"
        "v = tf.Variable(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    bad = v * history.history['loss'][-1]\n"
        "    p = tf.reduce_sum(v * model.predict(x))\n"
        "print(tape.gradient([bad, p], v))\n"
    )
    res = CliRunner().invoke(cli, ["eval", str(path), "--format", "json"])
    fit_call, unknown = json.loads(res.stdout)["calls"]
    assert fit_call["kind"] == "fit" and fit_call["line"] == 10
    assert all(g["status"] != "unknown" for g in fit_call["gradients"])
    assert unknown["unknown"]["line"] == 10
    assert "history.history['loss']" in unknown["unknown"]["what"]
    assert "does not train" in unknown["gradients"][0]["reason"]
    assert res.exit_code == 1


def test_eval_refuses_the_numbers_of_a_shuffled_first_batch(tmp_path):
    # Keras draws fit's first batch of 4 of the 8 samples at random: its numbers are not
    # gradcli's first 4 (explain still answers: None-ness and cuts do not depend on them)
    path = tmp_path / "train.py"
    path.write_text(HEAD + "model.compile(optimizer='sgd', loss='mse')\n"
                    "model.fit(x, y, batch_size=4, verbose=0)\n")  # fmt: skip
    res = CliRunner().invoke(cli, ["eval", str(path), "--format", "json"])
    assert res.exit_code == 2 and res.stdout == ""
    assert f"{path}:10:1: the gradients' numbers at line 10" in res.stderr
    assert res.stderr.rstrip().endswith(f"gradcli eval --run {path} (needs TensorFlow)")
    res = CliRunner().invoke(cli, ["explain", str(path), "--format", "json"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert all(p["status"] == "connected" and p["zero_elements"] is None for p in doc["pairs"])
    assert any("numbers drawn at random at line 10" in n for n in doc["calls"][0]["notes"])


def test_a_multi_output_models_history_and_evaluate_follow_keras():
    env, it = run(
        "inp = keras.Input(shape=(3,))\n"
        "a = keras.layers.Dense(2, kernel_initializer='ones', name='out_a')(inp)\n"
        "b = keras.layers.Dense(1, kernel_initializer='ones', name='out_b')(inp)\n"
        "mm = keras.Model(inp, [a, b])\n"
        "mm.compile(optimizer='sgd', loss={'out_a': 'mse', 'out_b': 'mae'},\n"
        "           loss_weights={'out_a': 1.0, 'out_b': 0.5}, metrics={'out_a': 'mae'})\n"
        "ev = mm.evaluate(x, [y, y[:, :1]], verbose=0)\n"
        "h = mm.fit(x, {'out_a': y, 'out_b': y[:, :1]}, verbose=0)\n"
        "names = mm.metrics_names\n"
    )
    # Keras 3: History keys sorted; metrics_names gains each output's loss once built
    assert list(env["h"].attrs["history"]) == ["loss", "out_a_loss", "out_a_mae", "out_b_loss"]
    assert env["names"] == ["loss", "compile_metrics", "out_a_loss", "out_b_loss"]
    loss, out_a, out_b, mae = env["ev"]  # Keras's order: loss, output losses, the rest
    assert isinstance(loss, Tensor) and all(isinstance(v, Reported) for v in (out_a, out_b, mae))
    assert "out_b_loss" in out_b.what and "out_a_mae" in mae.what
    # mse of (row sum - 1) + 0.5 * mae of it: both outputs compute the row sums
    rows = np.float32([0.3, 1.2, 2.1, 3.0, 3.9, 4.8, 5.7, 6.6]) - np.float32(1)
    want = np.mean(rows.astype(np.float64) ** 2) + 0.5 * np.mean(np.abs(rows))
    assert abs(float(it.value(loss.id)) - want) < 1e-5


def test_fit_labels_its_nodes_y_pred_and_compiled_loss_not_the_statements_name():
    """explain names the model's output in a fit call as Keras's train_step does (y_pred),
    not `history` (the statement's target)."""
    from gradcli.explain.analysis import explain_sum
    from gradcli.tfcode import read_program

    text = (
        "import numpy as np\nimport tensorflow as tf\n"
        "model = tf.keras.Sequential([tf.keras.Input(shape=(2,)),"
        " tf.keras.layers.Dense(2, activation='relu', kernel_initializer='ones')])\n"
        "model.compile(loss='mse')\n"
        "history = model.fit(np.array([[-1.0, -2.0], [-1.0, -1.0]]), np.ones((2, 2)))\n"
    )
    [call] = read_program(text.encode(), "t.py").calls
    pairs = explain_sum(call.problem, call.problem.wrt)
    pair = pairs[call.problem.wrt[0]]
    assert [c.node for c in pair.causes if c.kind == "inactive"] == ["y_pred"]
    assert "history" not in pair.reason

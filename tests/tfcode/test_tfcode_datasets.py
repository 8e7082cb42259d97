"""tf.data datasets in TensorFlow code beyond the data_* snippets: element dtypes, cardinality,
iteration forms, element_spec, TensorFlow's errors, and refusals of loops that never end.
Expected values are TensorFlow 2.21's (run once with the scratch TensorFlow) or derived by
hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

CODE = Path(__file__).parents[1] / "data" / "tf_code"
HEAD = "import numpy as np\nimport tensorflow as tf\n"


def read(text: str):
    return read_program((HEAD + text).encode(), "t.py")


def refused(text: str) -> GradcliError:
    with pytest.raises(GradcliError) as exc:
        read(text)
    return exc.value


def grads(text: str) -> list:
    """Each gradient call's first gradient, in order."""
    return [next(iter(c.evaluation.gradients.values())) for c in read(text).calls]


def run(text: str):
    from gradcli.tfcode.interpret import Interpreter
    from gradcli.tfcode.parse import parse

    tree, lines = parse((HEAD + text).encode(), "t.py")
    it = Interpreter("t.py", lines)
    it.run_module(tree)
    assert not it.refusals, it.refusals.items
    return it


def value(it, name: str):
    v = it.globals.vars[name]
    if isinstance(v, (int, float, tuple, list)):
        return v
    return it.value(it.tensor_id(v, read=False)).tolist()


@pytest.mark.parametrize(
    ("make", "dtype"),
    [  # TensorFlow 2.21's element dtypes
        ("tf.data.Dataset.from_tensor_slices([1.0, 2.0])", "float32"),
        ("tf.data.Dataset.from_tensor_slices([1, 2])", "int32"),
        ("tf.data.Dataset.from_tensor_slices(np.array([1, 2]))", "int64"),
        ("tf.data.Dataset.from_tensor_slices(np.array([[1.0, 2.0]]))", "float64"),
        ("tf.data.Dataset.from_tensors([1.0, 2.0])", "float32"),
        ("tf.data.Dataset.range(3)", "int64"),
        ("tf.data.Dataset.range(3, output_type=tf.int32)", "int32"),
        ("tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(lambda v: 2.0)", "float32"),
        ("tf.data.Dataset.from_tensor_slices([True, False])", "bool"),
    ],
)
def test_elements_have_tensorflows_dtypes(make, dtype):
    it = run(f"ds = {make}\nfirst = next(iter(ds))\nfor e in ds:\n    loop = e\n    break\n")
    for name in ("first", "loop"):
        v = it.globals.vars[name]
        assert it.g[v.id].dtype == dtype and v.kind == "tf"


@pytest.mark.parametrize(
    ("make", "card"),
    [  # TensorFlow 2.21's cardinality()
        ("tf.data.Dataset.range(10).take(3)", 3),
        ("tf.data.Dataset.range(10).skip(3)", 7),
        ("tf.data.Dataset.range(10).repeat(2)", 20),
        ("tf.data.Dataset.range(5).repeat()", -1),
        ("tf.data.Dataset.range(5).filter(lambda v: v > 2)", -2),
        ("tf.data.Dataset.range(5).batch(2).unbatch()", -2),
        ("tf.data.Dataset.range(3).batch(2)", 2),
        ("tf.data.Dataset.range(3).batch(2, drop_remainder=True)", 1),
        ("tf.data.Dataset.range(3).skip(-1)", 0),
        ("tf.data.Dataset.range(3).take(-1)", 3),
        ("tf.data.Dataset.range(3).repeat(0)", 0),
        ("tf.data.Dataset.range(5).shuffle(10)", 5),
        ("tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(5)))", 3),
        ("tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(4))", 6),
    ],
)
def test_cardinality_is_tensorflows(make, card):
    it = run(f"c = ({make}).cardinality()\nd = tf.data.experimental.cardinality({make})\n")
    assert value(it, "c") == card and value(it, "d") == card


def test_elements_values_follow_the_pipeline():
    it = run(
        "a = list(tf.data.Dataset.range(10).filter(lambda n: n % 3 == 0).as_numpy_iterator())\n"
        "b = [e for e in tf.data.Dataset.range(1, 7, 2).repeat(2).skip(1).take(4)]\n"
        "c = [k for k, _ in tf.data.Dataset.range(2).enumerate(start=5)]\n"
        "d = [e for e in tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]])"
        ".batch(2).unbatch()]\n"
        "e = [e for e in tf.data.Dataset.range(5).batch(2)]\n"
        "f = len(tf.data.Dataset.range(7).batch(3))\n"
    )
    assert [int(it.value(v.id)) for v in value(it, "a")] == [0, 3, 6, 9]
    assert [int(it.value(v.id)) for v in value(it, "b")] == [3, 5, 1, 3]
    assert [int(it.value(v.id)) for v in value(it, "c")] == [5, 6]
    assert [it.value(v.id).tolist() for v in value(it, "d")] == [[1, 2], [3, 4], [5, 6]]
    assert [it.value(v.id).tolist() for v in value(it, "e")] == [[0, 1], [2, 3], [4]]
    assert value(it, "f") == 3
    kinds = {v.kind for v in value(it, "a")}
    assert kinds == {"np"}  # as_numpy_iterator gives NumPy values


def test_map_passes_tuples_as_arguments_and_returns_lists_as_tuples():
    it = run(
        "ds = tf.data.Dataset.from_tensor_slices(({'a': [1.0, 2.0]}, [3.0, 4.0]))\n"
        "ds = ds.map(lambda d, y: [d['a'] * y, y])\n"
        "first = next(iter(ds))\n"
        "spec = ds.batch(2).element_spec\n"
    )
    first = it.globals.vars["first"]
    assert isinstance(first, tuple) and len(first) == 2
    assert it.value(first[0].id).tolist() == 3.0
    spec = it.globals.vars["spec"]
    assert [s.shape for s in spec] == [(None,), (None,)]  # TensorFlow: (None,) each


def test_element_spec_is_tensorflows():
    it = run(
        "x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
        "ds = tf.data.Dataset.from_tensor_slices((x, [1, 2, 3]))\n"
        "s1 = ds.element_spec\n"
        "s2 = ds.batch(2).element_spec\n"
        "s3 = ds.batch(2, drop_remainder=True).map(lambda a, b: a * 2.0).element_spec\n"
        "s4 = tf.data.Dataset.from_tensors(x).element_spec\n"
    )
    specs = {k: it.globals.vars[k] for k in ("s1", "s2", "s3", "s4")}
    assert [(s.shape, s.dtype) for s in specs["s1"]] == [((2,), "float64"), ((), "int32")]
    assert [(s.shape, s.dtype) for s in specs["s2"]] == [((None, 2), "float64"), ((None,), "int32")]
    assert (specs["s3"].shape, specs["s4"].shape) == ((2, 2), (3, 2))


def test_gradients_do_not_flow_back_through_a_dataset():
    # TensorFlow: elements are new tensors, so a variable sliced or captured by map is None
    program = read(
        "w = tf.Variable([1.0, 2.0])\n"
        "ds = tf.data.Dataset.from_tensor_slices(w).map(lambda v: v * w[0])\n"
        "with tf.GradientTape() as tape:\n"
        "    for e in ds:\n"
        "        loss = e * 3.0\n"
        "        break\n"
        "g = tape.gradient(loss, w)\n"
    )
    [call] = program.calls
    assert list(call.evaluation.gradients.values()) == [None]


def test_an_endless_repeat_in_a_loop_without_break_is_refused_at_the_loop():
    err = refused(
        "w = tf.Variable(1.0)\n"
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).shuffle(2).repeat()\n"
        "for x in ds:\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = w * x\n"
        "    g = tape.gradient(loss, w)\n"
    )
    assert err.pos.line == 5
    assert "iterating over an infinite dataset (repeat() without a count, line 4)" in err.message
    assert "take(n)" in err.message


@pytest.mark.parametrize(
    "code",
    [
        "for k, x in enumerate(ds.batch(2)):\n    pass\n",
        "xs = [x for x in ds]\n",
        "xs = list(ds.map(lambda v: v * 2.0))\n",
        "for x, y in zip(ds, ds):\n    pass\n",
        "for x in ds.as_numpy_iterator():\n    pass\n",
    ],
)
def test_every_form_of_an_endless_iteration_is_refused(code):
    err = refused("ds = tf.data.Dataset.range(3).repeat()\n" + code)
    assert err.pos.line == 4 and "infinite dataset" in err.message


def test_an_endless_dataset_is_read_where_the_loop_breaks_or_takes():
    [g0, g1, g2] = grads(
        "w = tf.Variable(2.0, dtype=tf.float64)\n"
        "ds = tf.data.Dataset.from_tensor_slices(np.array([1.0, 3.0])).repeat()\n"
        "for x in ds.take(2):\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = w * w * x\n"
        "    g = tape.gradient(loss, w)\n"
        "for k, x in zip(range(5), ds.skip(1)):\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = w * x\n"
        "    g = tape.gradient(loss, w)\n"
        "    break\n"
    )
    assert (g0, g1, g2) == (4.0, 12.0, 3.0)  # d(w^2 x)/dw = 2 w x; d(w x)/dw = x


def test_fit_on_an_endless_dataset_needs_steps_per_epoch():
    err = refused(
        "x = np.ones((4, 3))\ny = np.ones((4, 1))\n"
        "ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2).repeat()\n"
        "model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])\n"
        "model.compile(optimizer='sgd', loss='mse')\n"
        "model.fit(ds, epochs=2)\n"
    )
    assert err.pos.line == 8 and "without steps_per_epoch" in err.message


@pytest.mark.parametrize(
    ("code", "kind", "message"),
    [  # TensorFlow 2.21's errors
        ("len(tf.data.Dataset.range(3).repeat())", "TypeError", "The dataset is infinite."),
        (
            "len(tf.data.Dataset.range(3).filter(lambda v: v > 1))",
            "TypeError",
            "The dataset length is unknown.",
        ),
        (
            "tf.data.Dataset.from_tensor_slices((np.ones((3, 2)), [1.0, 2.0]))",
            "ValueError",
            "Dimensions 3 and 2 are not compatible",
        ),
        (
            "tf.data.Dataset.from_tensor_slices(3.0)",
            "ValueError",
            "Unbatching a tensor is only supported for rank >= 1",
        ),
        (
            "tf.data.Dataset.range(3).unbatch()",
            "ValueError",
            "Cannot unbatch an input with scalar components.",
        ),
        ("tf.data.Dataset.range(3).batch(0)", "InvalidArgumentError", "Batch size must be"),
        # TensorFlow 2.21's words, its function name counting padded_batch's components
        (
            "tf.data.Dataset.range(3).batch(-1)",
            "InvalidArgumentError",
            "{{function_node __wrapped__BatchDatasetV2_device_/job:localhost/replica:0/task:0/"
            "device:CPU:0}} Batch size must be greater than zero. [Op:BatchDatasetV2] name: ",
        ),
        (
            "tf.data.Dataset.from_tensor_slices(([1., 2.], [[1, 2], [3, 4]], [3, 4]))"
            ".padded_batch(0)",
            "InvalidArgumentError",
            "{{function_node __wrapped__PaddedBatchDatasetV2_N_3_Toutput_types_3_device_/job:"
            "localhost/replica:0/task:0/device:CPU:0}} Batch size must be greater than zero. "
            "[Op:PaddedBatchDatasetV2] name: ",
        ),
        (
            "tf.data.Dataset.from_tensor_slices({'a': [1., 2.], 'b': [3, 4]}).padded_batch(-1)",
            "InvalidArgumentError",
            "__wrapped__PaddedBatchDatasetV2_N_2_Toutput_types_2_device_",
        ),
        ("tf.data.Dataset.range(6).filter(lambda v: v)", "ValueError", "Invalid `predicate`"),
        ("tf.data.Dataset.range(1.5)", "TypeError", "Cannot convert 1.5 to EagerTensor"),
        ("next(tf.data.Dataset.range(2))", "TypeError", "'_RangeDataset' object is not an"),
        ("next(iter(tf.data.Dataset.range(0)))", "StopIteration", ""),
        (
            "tf.data.Dataset.range(2).map(lambda v: v.numpy())",
            "AttributeError",
            "'SymbolicTensor' object has no attribute 'numpy'",
        ),
    ],
)
def test_tensorflows_errors(code, kind, message):
    err = refused(f"r = {code}\n")
    assert err.pos.line == 3 and kind in err.message and message in err.message


def test_fit_on_a_dataset_with_y_is_kerass_error():
    err = refused(
        "x = np.ones((4, 3))\ny = np.ones((4, 1))\n"
        "ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)\n"
        "model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])\n"
        "model.compile(optimizer='sgd', loss='mse')\n"
        "model.fit(ds, y)\n"
    )
    assert "`y` should not be passed" in err.message and err.pos.line == 8


def test_unread_data_and_unread_methods_are_refused_by_name():
    err = refused(
        "import pandas as pd\n"
        "df = pd.read_csv('a.csv')\n"
        "ds = tf.data.Dataset.from_tensor_slices(dict(df))\n"
        "ds2 = tf.data.Dataset.range(4).window(2)\n"
        "ds3 = tf.data.Dataset.from_generator(lambda: iter([1]), output_types=tf.int32)\n"
    )
    assert "Dataset.window" in err.message
    assert "tf.data.Dataset.from_generator" in err.message


def test_the_cli_reads_a_dataset_loop():
    res = CliRunner().invoke(cli, ["eval", str(CODE / "data_slices_loop.py"), "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert len(out["calls"]) == 2


def test_check_agrees_on_a_dataset_loop():
    res = CliRunner().invoke(cli, ["check", str(CODE / "data_python_floats.py")])
    assert res.exit_code == 0, res.output
    assert "check ok" in res.output


def test_explain_names_the_numpy_call_in_each_iteration():
    res = CliRunner().invoke(cli, ["explain", str(CODE / "data_numpy_in_loop.py")])
    assert res.output.count("leaves_tape at scores, line 15") == 2, res.output


def test_a_shuffled_dataset_notes_that_values_differ():
    program = read_program((CODE / "data_shuffle_fit.py").read_bytes(), "data_shuffle_fit.py")
    [call] = program.calls
    assert any("the dataset is shuffled (line 10)" in n for n in call.notes)


def test_padded_batch_reduce_shard_take_while_are_tensorflows():
    it = run(
        "ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.ones(n, dtype=tf.int64) * n)\n"
        "a = list(ds.padded_batch(2).as_numpy_iterator())\n"
        "b = list(ds.padded_batch(2, padded_shapes=[5], "
        "padding_values=tf.constant(-1, tf.int64)))\n"
        "c = ds.padded_batch(2).element_spec.shape\n"
        "d = ds.padded_batch(3, drop_remainder=True).cardinality()\n"
        "e = tf.data.Dataset.range(5).reduce(tf.constant(0, tf.int64), lambda s, v: s + v)\n"
        "f = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).reduce(0.0, lambda s, v: s + v)\n"
        "g = list(tf.data.Dataset.range(10).shard(3, 1))\n"
        "h = list(tf.data.Dataset.range(10).take_while(lambda v: v < 3))\n"
        "i = tf.data.Dataset.range(1).get_single_element()\n"
    )
    # TensorFlow 2.21's results
    assert [it.value(v.id).tolist() for v in value(it, "a")] == [
        [[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]
    ]  # fmt: skip
    assert [it.value(v.id).tolist() for v in value(it, "b")] == [
        [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]], [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]
    ]  # fmt: skip
    assert value(it, "c") == (None, None) and value(it, "d") == 1
    assert value(it, "e") == 10 and it.g[it.globals.vars["f"].id].dtype == "float32"
    assert value(it, "f") == 3.0
    assert [int(it.value(v.id)) for v in value(it, "g")] == [1, 4, 7]
    assert [int(it.value(v.id)) for v in value(it, "h")] == [0, 1, 2]
    assert value(it, "i") == 0


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("tf.data.Dataset.range(2).get_single_element()", "Dataset had more than one element."),
        ("tf.data.Dataset.range(0).get_single_element()", "Dataset was empty."),
    ],
)
def test_more_tensorflow_errors(code, message):
    err = refused(f"r = {code}\n")
    assert message in err.message


def test_padding_to_a_smaller_shape_is_refused():
    # TensorFlow 2.21 raises ValueError at padded_batch for a static shape, DataLossError at
    # the iteration for a dynamic one (tests/data/tf_errors.json): the reader does not tell
    err = refused(
        "r = list(tf.data.Dataset.range(1, 3).map(lambda n: tf.ones(n)).padded_batch(2, [1]))\n"
    )
    assert "padded_shapes" in err.message and "--run" in err.message


def test_a_return_ends_a_loop_over_an_endless_dataset_and_an_inner_break_does_not():
    [g] = grads(
        "w = tf.Variable(2.0, dtype=tf.float64)\n"
        "ds = tf.data.Dataset.from_tensor_slices(np.array([1.0, 3.0])).repeat()\n"
        "def first_grad():\n"
        "    for x in ds:\n"
        "        with tf.GradientTape() as tape:\n"
        "            loss = w * x\n"
        "        return tape.gradient(loss, w)\n"
        "g = first_grad()\n"
    )
    assert g == 1.0
    err = refused(
        "ds = tf.data.Dataset.range(3).repeat()\n"
        "for x in ds:\n"
        "    for k in range(2):\n"
        "        break\n"
    )
    assert err.pos.line == 4 and "infinite dataset" in err.message


def test_numpy_rand_takes_its_arguments_as_the_shape():
    # np.random.rand(100, 3) once read 100 and 3 as the bounds (an internal error)
    it = run("a = np.random.rand(100, 3)\nb = np.random.randn(2, 5)\n")
    a, b = (it.value(it.globals.vars[k].id) for k in ("a", "b"))
    assert a.shape == (100, 3) and a.min() >= 0.0 and a.max() < 1.0 and b.shape == (2, 5)


FIT = (
    "x = np.ones((4, 3))\ny = np.ones((4, 1))\n"
    "ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)\n"
    "model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])\n"
    "model.compile(optimizer='sgd', loss='mse')\n"
)


def test_fit_on_a_dataset_follows_keras():
    # Keras 3.15: sample_weight with a dataset is its ValueError; an empty dataset trains no
    # step (a warning); a list element is (x, y)
    err = refused(FIT + "model.fit(ds, sample_weight=np.ones(4))\n")
    assert "`sample_weights` should not be passed" in err.message
    assert read(FIT + "model.fit(ds.take(0))\n").calls == []
    [call] = read(FIT + "model.fit(ds.map(lambda a, b: [a, b]), steps_per_epoch=0)\n").calls
    assert call.kind == "fit"


def test_tf_data_constants_are_tensorflows():
    it = run(
        "ds = tf.data.Dataset.range(3).repeat()\n"
        "a = tf.data.experimental.cardinality(ds) == tf.data.INFINITE_CARDINALITY\n"
        "b = tf.data.AUTOTUNE\n"
        "c = tf.data.experimental.UNKNOWN_CARDINALITY\n"
        "d = ds.batch(2).prefetch(tf.data.experimental.AUTOTUNE).cardinality()\n"
    )
    assert value(it, "a") is True and (value(it, "b"), value(it, "c"), value(it, "d")) == (
        -1, -2, -1
    )  # fmt: skip


def test_enumerate_of_a_dataset_takes_a_start():
    it = run(
        "ks = [k for k, _ in enumerate(tf.data.Dataset.range(3), 1)]\n"
        "js = [j for j, _ in enumerate(tf.data.Dataset.range(2), start=4)]\n"
    )
    assert value(it, "ks") == [1, 2, 3] and value(it, "js") == [4, 5]


def test_a_loop_over_a_dataset_inside_tf_function_is_traced_once():
    # AutoGraph turns the loop into one traced body: one gradient call is listed (the first
    # element's), while every iteration still counts in the values (6 = 1 + 2 + 3)
    program = read(
        "w = tf.Variable(2.0)\n"
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])\n"
        "@tf.function\n"
        "def epoch(ds):\n"
        "    total = tf.constant(0.0)\n"
        "    for x in ds:\n"
        "        with tf.GradientTape() as tape:\n"
        "            loss = w * x\n"
        "        total += tape.gradient(loss, w)\n"
        "    return total\n"
        "t = epoch(ds)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = t * w\n"
        "g = tape.gradient(loss, w)\n"
    )
    first, last = program.calls
    assert list(first.evaluation.gradients.values()) == [1.0]
    assert list(last.evaluation.gradients.values()) == [6.0]


def test_map_takes_bound_methods_and_layers():
    # TensorFlow 2.21: 18.0 (sum([2, 4]) * 3) and [[3.0]] (a Dense of ones on [1, 2])
    it = run(
        "class Pre:\n"
        "    def __init__(self, s):\n"
        "        self.s = s\n"
        "    def scale(self, x, y):\n"
        "        return x * self.s, y\n"
        "p = Pre(2.0)\n"
        "layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
        "ds = tf.data.Dataset.from_tensor_slices(([[1.0, 2.0]], [3.0]))\n"
        "x, y = next(iter(ds.map(p.scale)))\n"
        "v = next(iter(tf.data.Dataset.from_tensor_slices([[1.0, 2.0]]).batch(1).map(layer)))\n"
    )
    assert value(it, "x") == [2.0, 4.0] and value(it, "y") == 3.0 and value(it, "v") == [[3.0]]


def test_a_dataset_of_x_y_sample_weight_weighs_the_first_batch_as_fit_with_arrays():
    """Keras 3 unpacks a 3-tuple element as (x, y, sample_weight): the first step's gradient
    is fit's on the same first batch with sample_weight= (TensorFlow-checked in
    keras_fit_sample_weight)."""
    base = (
        "x = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [1.0, 1.1, 1.2]])\n"
        "y = np.ones((4, 1))\n"
        "sw = np.array([1.0, 3.0, 0.5, 2.0])\n"
        "model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),"
        " tf.keras.layers.Dense(1, kernel_initializer='ones')])\n"
        "model.compile(optimizer='sgd', loss='mse')\n"
    )
    via_dataset = grads(
        base + "model.fit(tf.data.Dataset.from_tensor_slices((x, y, sw)).batch(2))\n"
    )
    via_arrays = grads(base + "model.fit(x, y, sample_weight=sw, batch_size=2, shuffle=False)\n")
    unweighted = grads(base + "model.fit(x, y, batch_size=2, shuffle=False)\n")
    assert via_dataset[0].tolist() == via_arrays[0].tolist() != unweighted[0].tolist()


def test_reduce_over_a_variable_under_a_tape_is_refused_at_the_reduce():
    # TensorFlow 2.21 (tensorflow#36306): ReduceDataset records no gradient, so
    # tape.gradient(ds.reduce(0., lambda s, y: s + (y - u) ** 2), u) is None
    err = refused(
        "u = tf.Variable(1.0)\n"
        "ds = tf.data.Dataset.from_tensor_slices(tf.range(3, dtype=tf.float32))\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = ds.reduce(tf.constant(0.0), lambda s, y: s + (y - u) ** 2)\n"
        "g = tape.gradient(loss, u)\n"
    )
    assert "Dataset.reduce" in err.message and "--run" in err.message
    assert err.pos.line == HEAD.count("\n") + 4


def test_reduce_outside_any_tape_of_constants_is_read():
    it = run("r = tf.data.Dataset.range(4).reduce(tf.constant(0, tf.int64), lambda s, y: s + y)\n")
    assert int(it.value(it.tensor_id(it.globals.vars["r"], read=False))) == 6

"""The TensorFlow-name table is checked against the op registry; stop ops carry their words."""

from __future__ import annotations

from gradcli.core.ops import REGISTRY, AttrKind, Behavior
from gradcli.core.ops.tape import TapeCause
from gradcli.explain import wording
from gradcli.tfcode import api_table as api


def test_every_table_row_names_a_registered_op_and_its_attributes():
    from gradcli.tfcode.api_keras import KERAS

    wrong = []
    for name, row in {**api.TF, **api.NP, **KERAS}.items():
        op = REGISTRY.get(row.op)
        if op is None:
            wrong.append(f"{name}: no op {row.op}")
            continue
        for param, (attr, _) in row.attrs.items():
            if attr not in op.kwargs:
                wrong.append(f"{name}: {param} -> {attr}, not an attribute of {row.op}")
            if param not in row.params:
                wrong.append(f"{name}: {param} is not one of its parameters")
        if not set(row.tensors) <= set(row.params):
            wrong.append(f"{name}: a tensor input is not a parameter")
        # tensors passed like attributes (silu's beta) may be left out: their defaults
        keyed = sum(a.kind is AttrKind.TENSOR for a in op.attrs)
        given = len(row.tensors)
        if op.arity is not None and not row.listed and not op.arity - keyed <= given <= op.arity:
            wrong.append(f"{name}: {given} tensors for {row.op}'s {op.arity} inputs")
        if not set(row.optional) <= set(row.tensors):
            wrong.append(f"{name}: an optional tensor is not one of its tensors")
    assert not wrong, "\n".join(wrong)


def test_names_waiting_for_an_op_do_not_have_it_yet():
    for name, op in api.NOT_YET.items():
        assert api.lookup(name) is None, name
        assert op not in REGISTRY, f"{op} is registered now: add a row for {name}"


def test_every_stop_op_carries_explains_words():
    for op in REGISTRY.values():
        if op.behavior is Behavior.STOP:
            assert op.cut_words is not None and len(op.cut_words) == 3, op.name


def test_cause_kinds_are_defined_once():
    """The code-level kinds, and non_differentiable for a copy into a variable (STORED)."""
    kinds = {
        wording.LEAVES_TAPE,
        wording.NOT_WATCHED,
        wording.OUTSIDE_TAPE,
        wording.NON_DIFFERENTIABLE,
    }
    assert kinds == {c.value for c in TapeCause}


def test_the_reading_code_page_lists_every_name_the_reader_maps():
    from helpers import ROOT

    from gradcli.tfcode.api_listing import END, START, listing

    text = (ROOT / "docs" / "reading-code.md").read_text()
    assert text.count(START) == 1 and text.count(END) == 1, "one generated list, once"
    shown = text[text.index(START) : text.index(END) + len(END)]
    assert shown == listing(), "regenerate docs/reading-code.md's names from api_listing.listing()"


def test_every_raw_op_row_names_a_registered_op_and_takes_tensorflows_arguments():
    from gradcli.tfcode.api_raw_ops import RAW, RAW_PARAMS, SOURCES

    assert sorted(RAW) == sorted(f"tf.raw_ops.{raw}" for raw in SOURCES)
    assert set(RAW_PARAMS) == set(SOURCES)  # regenerate with tools/raw_ops_table.py
    flags = {"transpose_a", "transpose_b", "adj_x", "adj_y"}  # refused unless False
    wrong = []
    for name, row in RAW.items():
        op = REGISTRY.get(row.op)
        raw = name.rsplit(".", 1)[1]
        if op is None or not row.keyword_only or row.params != RAW_PARAMS[raw]:
            wrong.append(f"{name}: {row.op}, {row.params}")
            continue
        for attr, _ in row.attrs.values():
            if attr not in op.kwargs:
                wrong.append(f"{name}: {attr} is not an attribute of {row.op}")
        for param in row.params:
            if not (param in row.tensors or param in row.attrs or param in row.ignored
                    or param in flags):  # fmt: skip
                wrong.append(f"{name}: TensorFlow's argument {param} is not read")
        if not set(row.tensors) <= set(row.params):
            wrong.append(f"{name}: a tensor input is not one of its arguments")
    assert not wrong, "\n".join(wrong)


def test_argmax_output_type_gives_the_dtype_tensorflow_gives():
    # tf.argmax(..., output_type=tf.int32) is int32 (it was read as int64 and then met int32
    # labels in tf.equal as a dtype error TensorFlow does not raise)
    from gradcli.tfcode import read_program

    code = (
        "import tensorflow as tf\n"
        "x = tf.Variable([[1.0, 3.0], [4.0, 2.0]])\n"
        "labels = tf.constant([1, 0])\n"
        "with tf.GradientTape() as t:\n"
        "    p = tf.argmax(x, axis=-1, output_type=tf.int32)\n"
        "    q = tf.math.argmin(x, 1)\n"
        "    ok = tf.cast(tf.equal(p, labels), tf.float32)\n"
        "    y = tf.reduce_sum(x * tf.expand_dims(ok, 1)) + tf.cast(tf.reduce_sum(q), tf.float32)\n"
        "g = t.gradient(y, x)\n"
    )
    (call,) = read_program(code.encode(), "t.py").calls
    graph = call.problem.graph
    dtypes = {n.op: n.dtype for n in graph.nodes if n.op in ("argmax", "argmin")}
    assert dtypes == {"argmax": "int32", "argmin": "int64"}
    assert call.evaluation.gradients["x"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_argmax_output_type_in_specs():
    from helpers import invoke

    res = invoke("eval", "-e", "argmax(x, axis=1, output_type='int32')", "--at",
                 "x=[[1, 3], [4, 2]]", "--format", "json")  # fmt: skip
    assert res.code == 0 and '"dtype": "int32"' in res.stdout
    res = invoke("eval", "-e", "argmax(x, output_type='float32')", "--at", "x=[1, 3]")
    assert res.code == 2 and "output_type must be 'int32' or 'int64'" in res.stderr


def test_keras_rows_are_found_and_keras_handlers_are_not_rows():
    from gradcli.tfcode.api_keras import KERAS
    from gradcli.tfcode.api_keras_calls import HANDLERS

    assert all(api.lookup(name) is row for name, row in KERAS.items())
    assert not set(HANDLERS) & set(KERAS)  # a handler would shadow its row
    assert api.lookup("keras.ops.mean").attrs["keepdims"] == ("keepdims", False)
    assert api.lookup("tf.keras.backend.argmax").attrs["axis"] == ("axis", -1)  # legacy default

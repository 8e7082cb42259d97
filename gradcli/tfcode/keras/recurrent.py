"""Keras 3's SimpleRNN, GRU and LSTM for the reader: the cell's step written with gradcli's
ops, unrolled over the (static) time steps.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- The layer holds a cell named `simple_rnn_cell`, `gru_cell` or `lstm_cell` (that fixed
  name, not made unique), so the weights are `lstm/lstm_cell/kernel` (input_dim, k * units),
  `lstm/lstm_cell/recurrent_kernel` (units, k * units) and `lstm/lstm_cell/bias`, made in
  that order when the layer is first called; k is 1, 3 (gates z, r, h) or 4 (i, f, c, o).
- Initializers: kernel glorot_uniform, recurrent_kernel orthogonal, bias zeros; LSTM's
  unit_forget_bias=True makes the forget gate's bias part ones; GRU's reset_after=True
  (the default) has a bias of shape (2, 3 * units): input and recurrent biases.
- activation tanh, recurrent_activation sigmoid (keras.activations, i.e. tf.nn's); the
  initial state is zeros; the time steps run first to last (last to first with
  go_backwards, the sequence output then in that reversed order). The result is the last
  output, the stacked outputs with return_sequences, followed by the final states
  (h; h and c for LSTM) with return_state.
- The cell's seed generator is made in __init__, as Keras's: a non-trainable int64
  `seed_generator_N/seed_generator_state` in `layer.variables`, not in `weights`
  (layers.add_seed_generator).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.keras import initializers
from gradcli.tfcode.keras.layers import LAYER, _opt, add_seed_generator, layer_init, make_weight
from gradcli.tfcode.keras.library import activation
from gradcli.tfcode.keras.masking import masked_step
from gradcli.tfcode.keras.objects import Builtin, Class, Initializer, Instance, LayerState
from gradcli.tfcode.keras.protocol import scoped
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

# layer class -> (cell name, gates per unit, the constructor's leading parameter names)
KINDS = {"SimpleRNN": ("simple_rnn_cell", 1), "GRU": ("gru_cell", 3), "LSTM": ("lstm_cell", 4)}
OPTIONS = {
    "SimpleRNN": ("units", "activation", "use_bias", "kernel_initializer",
                  "recurrent_initializer", "bias_initializer"),
    "GRU": ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
            "recurrent_initializer", "bias_initializer"),
    "LSTM": ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
             "recurrent_initializer", "bias_initializer", "unit_forget_bias"),
}  # fmt: skip
FLAGS = {"return_sequences": False, "return_state": False, "go_backwards": False,
         "stateful": False, "unroll": False, "reset_after": True, "unit_forget_bias": True,
         "implementation": 2, "zero_output_for_mask": False, "use_cudnn": "auto"}  # fmt: skip
REFUSED = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
           "activity_regularizer", "kernel_constraint", "recurrent_constraint",
           "bias_constraint")  # fmt: skip


def _rnn_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """SimpleRNN/GRU/LSTM(units, activation="tanh", ..., return_sequences=False, ...)."""
    kind = obj.cls.name
    names = OPTIONS[kind]
    bound = dict(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        if k in names or k in FLAGS or k in REFUSED or k in ("dropout", "recurrent_dropout",
                                                              "seed"):  # fmt: skip
            bound[k] = v
        else:
            rest[k] = v
    for k in REFUSED:
        if bound.get(k) is not None:
            it.refuse(node, f"{kind}(..., {k}=...)")
    for k in ("dropout", "recurrent_dropout"):
        if bound.get(k, 0.0) not in (0, 0.0):
            it.refuse(node, f"{kind}(..., {k}=...)", "recurrent dropout is not read")
    for k in ("stateful", "unroll"):
        if bound.get(k, False) not in (False, True) or (k == "stateful" and bound.get(k)):
            it.refuse(node, f"{kind}(..., {k}=...)")
    units = bound.get("units")
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        it.refuse(node, f"{kind}(units={_describe(units)})", "give a positive Python integer")
    layer_init(it, obj, [], rest, node)
    flags = {k: bound.get(k, v) for k, v in FLAGS.items()}
    for k in ("return_sequences", "return_state", "go_backwards", "reset_after",
              "unit_forget_bias"):  # fmt: skip
        if not isinstance(flags[k], bool):
            it.refuse(node, f"{kind}({k}={_describe(flags[k])})", "give True or False")
    cell_name = KINDS[kind][0]
    cell = Instance(CELL)
    cell.layer = LayerState(cell_name, obj.layer.trainable)
    add_seed_generator(it, cell, node)  # the cell's, for its dropout masks
    cell.data.update(cell_data(it, kind, bound, obj.data.get("dtype", "float32"), node))
    cell.data.update(reset_after=flags["reset_after"], unit_forget_bias=flags["unit_forget_bias"])
    obj.data.update(flags)
    obj.attrs["cell"] = cell
    return None


def cell_data(it: Interpreter, kind: str, bound: dict, dtype: str, node) -> dict:
    """What a SimpleRNN/GRU/LSTM cell keeps: units, gates, activations, initializers."""
    return dict(
        kind=kind, units=bound["units"], gates=KINDS[kind][1], dtype=dtype,
        activation=activation(it, bound.get("activation", "tanh"), node),
        recurrent_activation=activation(it, bound.get("recurrent_activation", "sigmoid"), node),
        use_bias=bool(bound.get("use_bias", True)),
        kernel_init=initializers.get(it, bound.get("kernel_initializer"), node,
                                     default="glorot_uniform"),
        recurrent_init=initializers.get(it, bound.get("recurrent_initializer"), node,
                                        default="orthogonal"),
        bias_init=initializers.get(it, bound.get("bias_initializer"), node, default="zeros"),
        reset_after=bound.get("reset_after", True),
        unit_forget_bias=bound.get("unit_forget_bias", True),
    )  # fmt: skip


def _rnn_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "sequences_shape")
    if not isinstance(shape, (list, tuple)) or not isinstance(shape[-1], int):
        it.refuse(node, f"{obj.cls.name}.build({_describe(shape)})", "give (batch, time, dim)")
    if len(shape) != 3:
        it.refuse(node, f"a {obj.cls.name} layer on a rank-{len(shape)} input", "give rank 3")
    with scoped(it, obj):
        build_cell(it, obj.attrs["cell"], shape[-1], node)
    obj.layer.built = True
    return None


def build_cell(it: Interpreter, cell: Instance, input_dim: int, node) -> None:
    """The cell's kernel, recurrent_kernel and bias (in the scopes entered, then the cell's)."""
    d = cell.data
    u, k, dtype = d["units"], d["gates"], d["dtype"]
    cell.attrs["kernel"] = make_weight(
        it, cell, "kernel", (input_dim, k * u), dtype, d["kernel_init"], True, node
    )
    cell.attrs["recurrent_kernel"] = make_weight(
        it, cell, "recurrent_kernel", (u, k * u), dtype, d["recurrent_init"], True, node
    )
    cell.attrs["bias"] = None
    if d["use_bias"]:
        shape_b = (2, 3 * u) if d["kind"] == "GRU" and d["reset_after"] else (k * u,)
        init = d["bias_init"]
        if d["kind"] == "LSTM" and d["unit_forget_bias"]:
            # Keras's bias initializer: [init(units), ones(units), init(2 * units)]
            parts = [initializers.value(it, init, (u,), dtype, node), np.ones(u, dtype),
                     initializers.value(it, init, (2 * u,), dtype, node)]  # fmt: skip
            init = Initializer("constant", np.concatenate(parts))
        cell.attrs["bias"] = make_weight(it, cell, "bias", shape_b, dtype, init, True, node)
    cell.layer.built = True


def _split(it, x, n: int, axis: int, node) -> list:
    return it.op_call("split", [x], {"num_or_size_splits": n, "axis": axis}, node)


def _columns(it, x, start: int, stop: int, node):
    """x[:, start:stop]."""
    i = it.tensor_id(x)
    return Tensor(it.emit("getitem", [i], {"index": (slice(None), slice(start, stop))}, node))


def _step(it: Interpreter, cell: Instance, x, states: list, node) -> tuple:
    """One cell step: (output, new states), as the Keras cell's call (implementation 2)."""
    d = cell.data
    a = cell.attrs
    u = d["units"]
    act, rec = d["activation"], d["recurrent_activation"]

    def op(name, *xs, **attrs):
        return it.op_call(name, list(xs), attrs, node)

    def apply(fn, v):
        return fn(it, v, node) if fn is not None else v

    kind = d["kind"]
    if kind == "SimpleRNN":
        h = op("matmul", x, a["kernel"])
        if a["bias"] is not None:
            h = op("add", h, a["bias"])
        out = apply(act, op("add", h, op("matmul", states[0], a["recurrent_kernel"])))
        return out, [out]
    if kind == "LSTM":
        h_prev, c_prev = states
        z = op("add", op("matmul", x, a["kernel"]), op("matmul", h_prev, a["recurrent_kernel"]))
        if a["bias"] is not None:
            z = op("add", z, a["bias"])
        z0, z1, z2, z3 = _split(it, z, 4, 1, node)
        i, f, o = apply(rec, z0), apply(rec, z1), apply(rec, z3)
        c = op("add", op("mul", f, c_prev), op("mul", i, apply(act, z2)))
        h = op("mul", o, apply(act, c))
        return h, [h, c]
    # GRU
    h_prev = states[0]
    input_bias = recurrent_bias = None
    if a["bias"] is not None:
        if d["reset_after"]:
            input_bias, recurrent_bias = (
                op("squeeze", e, axis=[0]) for e in _split(it, a["bias"], 2, 0, node)
            )
        else:
            input_bias = a["bias"]
    matrix_x = op("matmul", x, a["kernel"])
    if input_bias is not None:
        matrix_x = op("add", matrix_x, input_bias)
    x_z, x_r, x_h = _split(it, matrix_x, 3, -1, node)
    if d["reset_after"]:
        inner = op("matmul", h_prev, a["recurrent_kernel"])
        if recurrent_bias is not None:
            inner = op("add", inner, recurrent_bias)
    else:
        inner = op("matmul", h_prev, _columns(it, a["recurrent_kernel"], 0, 2 * u, node))
    z = apply(rec, op("add", x_z, _columns(it, inner, 0, u, node)))
    r = apply(rec, op("add", x_r, _columns(it, inner, u, 2 * u, node)))
    if d["reset_after"]:
        recurrent_h = op("mul", r, _columns(it, inner, 2 * u, 3 * u, node))
    else:
        recurrent_h = op(
            "matmul", op("mul", r, h_prev), _columns(it, a["recurrent_kernel"], 2 * u, 3 * u, node)
        )
    hh = apply(act, op("add", x_h, recurrent_h))
    h = op("add", op("mul", z, h_prev), op("mul", op("sub", 1.0, z), hh))
    return h, [h]


def _rnn_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """RNN.call(sequences, initial_state=None, mask=None, training=False): the cell over
    every time step."""
    x = _opt(args, kwargs, 0, "sequences")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a {obj.cls.name} layer called on {_describe(x)}")
    mask = _opt(args, kwargs, 2, "mask")
    if isinstance(mask, (list, tuple)):
        mask = mask[0] if mask else None
    if mask is not None and not isinstance(mask, (Tensor, Variable)):
        it.refuse(node, f"{obj.cls.name}(..., mask={_describe(mask)})")
    shape = it.g[it.tensor_id(x, read=False)].shape
    if len(shape) != 3:
        it.refuse(node, f"a {obj.cls.name} layer on a rank-{len(shape)} input")
    cell = obj.attrs["cell"]
    sizes, dtype = state_sizes(it, cell, obj, node)
    initial = _opt(args, kwargs, 1, "initial_state")
    if initial is None:
        states = [it.leaf(np.zeros((shape[0], n), dtype=dtype), node) for n in sizes]
    else:
        states = list(initial) if isinstance(initial, (list, tuple)) else [initial]
        if len(states) != len(sizes) or not all(isinstance(s, (Tensor, Variable)) for s in states):
            it.refuse(node, f"{obj.cls.name}(..., initial_state={_describe(initial)})")
    steps = it.op_call("unstack", [x], {"axis": 1}, node) if shape[1] else []
    masks = [None] * len(steps)
    if mask is not None:
        if mask_shape(it, mask) != tuple(shape[:2]):
            it.refuse(node, f"a {obj.cls.name} mask of shape {mask_shape(it, mask)}")
        if it.g[it.tensor_id(mask, read=False)].dtype != "bool":
            mask = it.op_call("cast", [mask], {"dtype": "bool"}, node)
        masks = it.op_call("unstack", [mask], {"axis": 1}, node)
    if obj.data["go_backwards"]:
        steps, masks = steps[::-1], masks[::-1]
    if not steps:
        it.refuse(node, f"a {obj.cls.name} layer over zero time steps")
    outputs = []
    previous = None
    for xt, mt in zip(steps, masks):
        new, new_states = cell_step(it, cell, xt, states, kwargs.get("training"), node)
        if mt is None:
            out, states = new, new_states
        else:  # a masked step keeps the states, and the previous output (or zeros)
            if previous is None or obj.data["zero_output_for_mask"]:
                zeros = np.zeros(it.g[it.tensor_id(new, read=False)].shape, dtype=dtype)
                previous = it.leaf(zeros, node)
            out = masked_step(it, mt, new, previous, node)
            states = [masked_step(it, mt, n, o, node) for n, o in zip(new_states, states)]
        previous = out
        outputs.append(out)
    result = outputs[-1]
    if obj.data["return_sequences"]:
        result = it.op_call("stack", outputs, {"axis": 1}, node)
    if obj.data["return_state"]:
        return (result, *states)
    return result


def state_sizes(it: Interpreter, cell: Instance, obj: Instance, node) -> tuple:
    """The cell's state sizes and dtype: units (twice for LSTM) for Keras's cells, the
    `state_size` (an int or a list) a user's cell sets."""
    if "kind" in cell.data:
        d = cell.data
        return [d["units"]] * (2 if d["kind"] == "LSTM" else 1), d["dtype"]
    size = cell.attrs.get("state_size")
    if "state_size" not in cell.attrs:  # a @property (or a class attribute) of the cell's class
        from gradcli.tfcode.keras.protocol import get_attribute

        size = get_attribute(it, node, cell, "state_size")
    sizes = list(size) if isinstance(size, (list, tuple)) else [size]
    if not sizes or not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
        it.refuse(node, f"an RNN cell whose state_size is {_describe(size)}", "give ints")
    return sizes, cell.data.get("dtype", obj.data.get("dtype", "float32"))


def cell_step(it: Interpreter, cell: Instance, x, states: list, training, node) -> tuple:
    """One step: Keras's cells as their call (_step), a user's cell through its __call__
    (cell(inputs, states) -> (output, new states))."""
    if "kind" in cell.data:
        return _step(it, cell, x, states, node)
    from gradcli.tfcode.keras.protocol import call_object

    extra = {} if training is None else {"training": training}
    result = call_object(it, cell, [x, list(states)], extra, node)
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        it.refuse(node, f"an RNN cell returning {_describe(result)}", "return (output, states)")
    out, new_states = result
    new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
    if len(new_states) != len(states):
        it.refuse(node, f"an RNN cell returning {len(new_states)} states for {len(states)}")
    return out, new_states


def mask_shape(it: Interpreter, mask) -> tuple:
    return tuple(it.g[it.tensor_id(mask, read=False)].shape)


def _cell_call(it: Interpreter, obj: Instance, args, kwargs, node):
    it.refuse(node, "calling a recurrent layer's cell directly")


CELL = Class("RNNCell", (LAYER,), {"call": Builtin(_cell_call)})
RNN_METHODS = {"__init__": Builtin(_rnn_init), "build": Builtin(_rnn_build),
               "call": Builtin(_rnn_call)}  # fmt: skip
SIMPLE_RNN = Class("SimpleRNN", (LAYER,), dict(RNN_METHODS))
GRU = Class("GRU", (LAYER,), dict(RNN_METHODS))
LSTM = Class("LSTM", (LAYER,), dict(RNN_METHODS))
CLASSES = {"layers.SimpleRNN": SIMPLE_RNN, "layers.GRU": GRU, "layers.LSTM": LSTM}

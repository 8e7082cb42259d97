"""Keras 3's generic RNN layer and its cells for the reader: `tf.keras.layers.RNN(cell)` with
`SimpleRNNCell`, `GRUCell`, `LSTMCell` or a cell class of the file (a layer with
`state_size` whose `call(inputs, states)` returns `(output, new_states)`).

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- The cells are auto-named (`lstm_cell`, `lstm_cell_1`, ..., `minimal_rnn_cell`), so the
  weights are `rnn/lstm_cell/kernel` ...; the RNN builds its cell with the shape of one time
  step, (batch, features), in its own scope. A Keras cell makes its seed generator in
  __init__, as the layers' cells do.
- RNN(cell, return_sequences=False, return_state=False, go_backwards=False,
  stateful=False, unroll=False, zero_output_for_mask=False) runs the cell over the steps as
  SimpleRNN/GRU/LSTM do (recurrent.py: zeros as the initial states, masks, go_backwards); a
  user's cell is called through its __call__ with (inputs, states), states a list.
- A Keras cell called directly, cell(x, states), returns (h, [h]) ((h, [h, c]) for LSTM).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.layers import LAYER, _opt, add_seed_generator, layer_init
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import call_member, scoped
from gradcli.tfcode.keras.recurrent import (
    FLAGS,
    OPTIONS,
    REFUSED,
    _rnn_call,
    _step,
    build_cell,
    cell_data,
)
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

CELL_KINDS = {"SimpleRNNCell": "SimpleRNN", "GRUCell": "GRU", "LSTMCell": "LSTM"}
RNN_FLAGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")  # fmt: skip


def _units(it, kind: str, units, node) -> int:
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        it.refuse(node, f"{kind}(units={_describe(units)})", "give a positive Python integer")
    return units


# --- the cells ---------------------------------------------------------------------------------
def _cell_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """SimpleRNNCell/GRUCell/LSTMCell(units, activation=..., ..., reset_after=,
    unit_forget_bias=)."""
    kind = CELL_KINDS[obj.cls.name]
    names = OPTIONS[kind]
    bound = dict(zip(names, args))
    rest = {}
    extra = (*REFUSED, "dropout", "recurrent_dropout", "seed", "reset_after", "unit_forget_bias",
             "implementation")  # fmt: skip
    for k, v in kwargs.items():
        (bound if k in names or k in extra else rest)[k] = v
    for k in REFUSED:
        if bound.get(k) is not None:
            it.refuse(node, f"{obj.cls.name}(..., {k}=...)")
    for k in ("dropout", "recurrent_dropout"):
        if bound.get(k, 0.0) not in (0, 0.0):
            it.refuse(node, f"{obj.cls.name}(..., {k}=...)", "recurrent dropout is not read")
    _units(it, obj.cls.name, bound.get("units"), node)
    layer_init(it, obj, [], rest, node)
    add_seed_generator(it, obj, node)
    obj.data.update(cell_data(it, kind, bound, obj.data.get("dtype", "float32"), node))
    return None


def _cell_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "input_shape")
    if not isinstance(shape, (list, tuple)) or not shape or not isinstance(shape[-1], int):
        it.refuse(node, f"{obj.cls.name}.build({_describe(shape)})", "give (batch, features)")
    build_cell(it, obj, shape[-1], node)
    return None


def _cell_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """cell(inputs, states): (output, new states), one step."""
    x = _opt(args, kwargs, 0, "inputs")
    states = _opt(args, kwargs, 1, "states")
    states = list(states) if isinstance(states, (list, tuple)) else [states]
    n = 2 if obj.data["kind"] == "LSTM" else 1
    if not isinstance(x, (Tensor, Variable)) or len(states) != n:
        it.refuse(node, f"calling a {obj.cls.name} on {_describe(x)} and {len(states)} states")
    return _step(it, obj, x, states, node)


CELL_CLASSES = {
    name: Class(name, (LAYER,), {"__init__": Builtin(_cell_init), "build": Builtin(_cell_build),
                                 "call": Builtin(_cell_call)})
    for name in CELL_KINDS
}  # fmt: skip


# --- RNN(cell) ---------------------------------------------------------------------------------
def _rnn_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """RNN(cell, return_sequences=False, return_state=False, go_backwards=False, ...)."""
    names = ("cell", *RNN_FLAGS)
    bound = dict(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        (bound if k in names else rest)[k] = v
    cell = bound.get("cell")
    if isinstance(cell, (list, tuple)):
        it.refuse(node, "RNN of a list of cells (StackedRNNCells)")
    if not (isinstance(cell, Instance) and cell.layer is not None):
        raise GradcliError(
            "ValueError: Argument `cell` should have a `call` method. Received: cell="
            + (repr(cell) if isinstance(cell, (int, float, str)) else _describe(cell)),
            it.pos(node),
        )
    has_size = "state_size" in cell.attrs or cell.cls.lookup("state_size")[0] is not None
    if cell.cls.name not in CELL_KINDS and not has_size:  # a @property or class attribute counts
        raise GradcliError(
            "ValueError: The RNN cell should have a `state_size` attribute (single integer or "
            "list of integers, one integer per RNN state). Received: "
            f"cell=<{cell.cls.name} name={cell.layer.name}, built={cell.layer.built}>",
            it.pos(node),
        )
    for k in ("stateful", "unroll"):
        if bound.get(k) not in (None, False) and (k == "stateful" or bound[k] is not True):
            it.refuse(node, f"RNN(..., {k}=...)")
    for k in ("return_sequences", "return_state", "go_backwards", "zero_output_for_mask"):
        if not isinstance(bound.get(k, False), bool):
            it.refuse(node, f"RNN({k}={_describe(bound[k])})", "give True or False")
    layer_init(it, obj, [], rest, node)
    obj.data.update({k: bound.get(k, FLAGS.get(k, False)) for k in RNN_FLAGS})
    obj.attrs["cell"] = cell
    return None


def _rnn_build(it: Interpreter, obj: Instance, args, kwargs, node):
    """The cell built with one time step's shape (batch, features), in the RNN's scope."""
    shape = _opt(args, kwargs, 0, "sequences_shape")
    if not isinstance(shape, (list, tuple)) or len(shape) != 3:
        it.refuse(node, f"an RNN layer on an input of shape {_describe(shape)}", "give rank 3")
    cell = obj.attrs["cell"]
    if not cell.layer.built:
        build, owner = cell.cls.lookup("build")
        with scoped(it, obj), scoped(it, cell):
            call_member(it, cell, build, owner, [(shape[0], *shape[2:])], {}, node)
        cell.layer.built = True
    obj.layer.built = True
    return None


RNN = Class(
    "RNN",
    (LAYER,),
    {"__init__": Builtin(_rnn_init), "build": Builtin(_rnn_build), "call": Builtin(_rnn_call)},
)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {"layers.RNN": RNN, **{f"layers.{n}": c for n, c in CELL_CLASSES.items()}}

"""Keras's layer wrappers for the reader: TimeDistributed and Bidirectional (and Masking,
the masking.py layer).

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- TimeDistributed(layer) holds the layer (`time_distributed/dense/kernel`: the inner
  layer's own name, made when the wrapper builds it with the shape without the time axis);
  its call transposes to time-major, runs the inner layer's call (not __call__) on every
  step (one set of weights), stacks and transposes back; mask= goes to the inner call per
  step when it takes one; the input's mask is passed on.
- Bidirectional(layer, merge_mode='concat', backward_layer=None) clones the RNN layer from
  its config twice: `forward_<name>` and `backward_<name>` (go_backwards=True), fresh
  weights (`bidirectional/forward_lstm/lstm_cell/kernel` ...: forward's, then backward's),
  each with a new seed generator; the layer given is never built (an RNN of a Keras
  cell too: `bidirectional/forward_rnn/lstm_cell/kernel`). Both get
  zero_output_for_mask = return_sequences. The backward sequence output is reversed along
  time before the merge: 'concat' (last axis), 'sum', 'mul', 'ave' ((y + y_rev) / 2) or
  None (the pair); return_state appends the forward states, then the backward ones;
  initial_state= is split in halves (forward's first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.layers import LAYER, _opt, add_seed_generator, layer_init
from gradcli.tfcode.keras.masking import masking_class
from gradcli.tfcode.keras.objects import Builtin, Class, Instance, LayerState
from gradcli.tfcode.keras.protocol import call_member, call_object, scoped, state
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

RNNS = ("SimpleRNN", "GRU", "LSTM")
MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _is_layer(value) -> bool:
    return isinstance(value, Instance) and value.layer is not None


def _shape(it: Interpreter, x) -> tuple:
    return tuple(it.g[it.tensor_id(x, read=False)].shape)


# --- TimeDistributed ---------------------------------------------------------------------------
def _td_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """TimeDistributed(layer, **kwargs)."""
    layer = args[0] if args else kwargs.pop("layer", None)
    kwargs.pop("layer", None)
    if not _is_layer(layer):
        it.refuse(node, f"TimeDistributed of {_describe(layer)}", UNRECORDED)
    layer_init(it, obj, [], kwargs, node)
    obj.attrs["layer"] = layer
    return None


def _td_build(it: Interpreter, obj: Instance, args, kwargs, node):
    """Wrapper.build(input shape without the time axis) of the inner layer."""
    shape = _opt(args, kwargs, 0, "input_shape")
    if not isinstance(shape, (list, tuple)) or len(shape) < 3:
        raise GradcliError(
            "ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at "
            f"least 3 dimensions, received: {shape}",
            it.pos(node),
        )
    inner = obj.attrs["layer"]
    if not inner.layer.built:
        build, owner = inner.cls.lookup("build")
        with scoped(it, obj), scoped(it, inner):  # also when build is called directly
            call_member(it, inner, build, owner, [(shape[0], *shape[2:])], {}, node)
        inner.layer.built = True
    obj.layer.built = True
    return None


def _td_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """call(inputs, training=None, mask=None): the inner call on each time step."""
    x = _opt(args, kwargs, 0, "inputs")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a TimeDistributed layer called on {_describe(x)}")
    shape = _shape(it, x)
    mask = kwargs.get("mask")
    if mask is not None and _shape(it, mask)[:2] != shape[:2]:
        it.refuse(node, f"a TimeDistributed mask of shape {_shape(it, mask)}", UNRECORDED)
    inner = obj.attrs["layer"]
    fn, owner = inner.cls.lookup("call")
    params: set | None = None
    if isinstance(fn, PyFunction):
        params = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs]}
    from gradcli.tfcode.keras.masking import takes_mask

    def time_major(v):
        axes = [1, 0, *range(2, len(_shape(it, v)))]
        return it.op_call("transpose", [v], {"axes": axes}, node)

    steps = it.op_call("unstack", [time_major(x)], {"axis": 0}, node)
    step_masks = [None] * len(steps)
    if mask is not None and takes_mask(inner, fn):
        step_masks = it.op_call("unstack", [time_major(mask)], {"axis": 0}, node)
    training = state(it).training[-1] if state(it).training else None
    outputs = []
    for xt, mt in zip(steps, step_masks):
        extra = {}
        if mt is not None:
            extra["mask"] = mt
        if params is not None and "training" in params and training is not None:
            extra["training"] = training
        outputs.append(call_member(it, inner, fn, owner, [xt], extra, node))
    if not all(isinstance(o, (Tensor, Variable)) for o in outputs):
        it.refuse(node, "a TimeDistributed layer whose inner layer returns several tensors")
    return time_major(it.op_call("stack", outputs, {"axis": 0}, node))


TIME_DISTRIBUTED = Class(
    "TimeDistributed",
    (LAYER,),
    {"__init__": Builtin(_td_init), "build": Builtin(_td_build), "call": Builtin(_td_call)},
)


# --- Bidirectional -----------------------------------------------------------------------------
def _clone_rnn(it: Interpreter, layer: Instance, name: str, go_backwards: bool, node):
    """serialize + deserialize of a SimpleRNN/GRU/LSTM: the same options, a new layer
    (unbuilt, its own cell and seed generator)."""
    cell = layer.attrs["cell"]
    clone = Instance(layer.cls)
    clone.layer = LayerState(name, layer.layer.trainable)
    clone.data = dict(layer.data)
    clone.data["go_backwards"] = go_backwards
    new_cell = Instance(cell.cls)
    new_cell.layer = LayerState(cell.layer.name, layer.layer.trainable)
    add_seed_generator(it, new_cell, node)
    new_cell.data = dict(cell.data)
    clone.attrs["cell"] = new_cell
    return clone


def _remove_prefix(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


def _bidi_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Bidirectional(layer, merge_mode='concat', weights=None, backward_layer=None)."""
    names = ("layer", "merge_mode", "weights", "backward_layer")
    bound = dict(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        (bound if k in names else rest)[k] = v
    layer, backward = bound.get("layer"), bound.get("backward_layer")
    if not _is_layer(layer):
        it.refuse(node, f"Bidirectional of {_describe(layer)}", UNRECORDED)
    if backward is not None and not _is_layer(backward):
        it.refuse(node, f"Bidirectional(backward_layer={_describe(backward)})", UNRECORDED)
    mode = bound.get("merge_mode", "concat")
    if mode not in MERGE_MODES:
        raise GradcliError(
            f"ValueError: Invalid merge mode. Received: {mode}. Merge mode should be one of "
            '{"sum", "mul", "ave", "concat", None}',
            it.pos(node),
        )
    if bound.get("weights") is not None:
        it.refuse(node, "Bidirectional(..., weights=...)", "call set_weights after building")
    for v in (layer, backward):
        keras_cell = v is not None and v.cls.name == "RNN" and "kind" in v.attrs["cell"].data
        if v is not None and (v.cls.user or (v.cls.name not in RNNS and not keras_cell)):
            it.refuse(node, f"Bidirectional of a {v.cls.name}", "give SimpleRNN, GRU or LSTM")
    layer_init(it, obj, [], rest, node)
    forward = _clone_rnn(
        it, layer, f"forward_{_remove_prefix(layer.layer.name, 'forward_')}",
        layer.data["go_backwards"], node,
    )  # fmt: skip
    if backward is None:
        name = f"backward_{_remove_prefix(layer.layer.name, 'backward_')}"
        backward = _clone_rnn(it, layer, name, True, node)
    if forward.data["go_backwards"] == backward.data["go_backwards"]:
        raise GradcliError(
            "ValueError: Forward layer and backward layer should have different `go_backwards` "
            f"value. Received: forward_layer.go_backwards {forward.data['go_backwards']}, "
            f"backward_layer.go_backwards={backward.data['go_backwards']}",
            it.pos(node),
        )
    for a in ("stateful", "return_sequences", "return_state"):
        if forward.data.get(a) != backward.data.get(a):
            raise GradcliError(
                "ValueError: Forward layer and backward layer are expected to have the same "
                f'value for attribute "{a}", got "{forward.data.get(a)}" for forward layer and '
                f'"{backward.data.get(a)}" for backward layer',
                it.pos(node),
            )
    for sub in (forward, backward):
        sub.data["zero_output_for_mask"] = sub.data["return_sequences"]
    obj.data.update(merge_mode=mode, return_sequences=forward.data["return_sequences"],
                    return_state=forward.data["return_state"])  # fmt: skip
    obj.attrs["forward_layer"] = forward
    obj.attrs["backward_layer"] = backward
    return None


def _bidi_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "sequences_shape")
    for sub in (obj.attrs["forward_layer"], obj.attrs["backward_layer"]):
        if not sub.layer.built:
            build, owner = sub.cls.lookup("build")
            with scoped(it, obj):  # also when build is called directly
                call_member(it, sub, build, owner, [shape], {}, node)
    obj.layer.built = True
    return None


def _bidi_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """call(sequences, initial_state=None, mask=None, training=None)."""
    x = _opt(args, kwargs, 0, "sequences")
    initial = _opt(args, kwargs, 1, "initial_state")
    extra = {k: kwargs[k] for k in ("mask", "training") if kwargs.get(k) is not None}
    fwd_state = bwd_state = None
    if initial is not None:
        if not isinstance(initial, (list, tuple)):
            it.refuse(node, f"Bidirectional(..., initial_state={_describe(initial)})")
        half = len(initial) // 2
        fwd_state, bwd_state = list(initial[:half]), list(initial[half:])
    y = call_object(it, obj.attrs["forward_layer"], [x], {"initial_state": fwd_state, **extra},
                    node)  # fmt: skip
    y_rev = call_object(
        it, obj.attrs["backward_layer"], [x], {"initial_state": bwd_state, **extra}, node
    )
    states: tuple = ()
    if obj.data["return_state"]:
        states = (*y[1:], *y_rev[1:])
        y, y_rev = y[0], y_rev[0]
    if obj.data["return_sequences"]:
        y_rev = it.op_call("reverse", [y_rev], {"axis": [1]}, node)
    mode = obj.data["merge_mode"]
    if mode == "concat":
        out = it.op_call("concat", [y, y_rev], {"axis": -1}, node)
    elif mode == "sum":
        out = it.op_call("add", [y, y_rev], {}, node)
    elif mode == "ave":
        out = it.op_call("div", [it.op_call("add", [y, y_rev], {}, node), 2.0], {}, node)
    elif mode == "mul":
        out = it.op_call("mul", [y, y_rev], {}, node)
    else:
        out = (y, y_rev)
    if obj.data["return_state"]:
        return (*out, *states) if mode is None else (out, *states)
    return out


def bidirectional_mask(obj: Instance, mask):
    """Bidirectional.compute_mask: the mask on the output(s) with return_sequences."""
    if isinstance(mask, list):
        mask = mask[0]
    if obj.data["return_sequences"]:
        return (mask, mask) if not obj.data["merge_mode"] else mask
    return (None, None) if not obj.data["merge_mode"] else None


BIDIRECTIONAL = Class(
    "Bidirectional",
    (LAYER,),
    {"__init__": Builtin(_bidi_init), "build": Builtin(_bidi_build), "call": Builtin(_bidi_call)},
)
MASKING = masking_class(LAYER)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    "layers.TimeDistributed": TIME_DISTRIBUTED,
    "layers.Bidirectional": BIDIRECTIONAL,
    "layers.Masking": MASKING,
}

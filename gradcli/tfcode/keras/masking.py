"""Keras 3's masks for the reader: `Embedding(mask_zero=True)` and `Masking` make a boolean
mask (batch, steps) that rides on the output tensor (`_keras_mask`), and Layer.__call__
passes it on as Keras 3.15.1 on TensorFlow 2.21 does (verified in /work/tfref):

- Before call: the mask of the only tensor argument is passed as `mask=` to a call that
  takes it (and was given none); the previous mask is `mask=` or the first argument's.
- After call: a layer with `supports_masking` puts `compute_mask(inputs, previous_mask)`
  on the outputs that have no mask yet. The default compute_mask returns the previous
  mask (Dense, Dropout, Activation, LayerNormalization, BatchNormalization pass it on);
  Embedding gives `inputs != 0`, Masking `any(inputs != mask_value, axis=-1)`, an RNN the
  mask with return_sequences (else None), GlobalAveragePooling1D None, the merge layers the
  OR of their inputs' masks (None unless every input has one). A layer without
  supports_masking (Flatten, Reshape, Conv, Lambda, a user layer without compute_mask)
  drops the mask. A TensorFlow op's result never has one.
- Uses: an RNN keeps the previous output and states at a masked step (`tf.where`; zeros
  as the output with zero_output_for_mask, which Bidirectional sets to return_sequences);
  GlobalAveragePooling1D averages the unmasked steps; Multiply/Maximum/Minimum merge only
  unmasked values; a Loss weighs values by the mask of y_pred: total / valid at the valid
  entries and 0 elsewhere for 'sum_over_batch_size' (so the mean is over the valid ones),
  the 0/1 mask for 'sum' and 'none'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.keras.objects import Builtin, Class, Instance, Property
from gradcli.tfcode.keras.protocol import call_member, state
from gradcli.tfcode.support import _describe, _flatten
from gradcli.tfcode.values import PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

# Keras classes whose supports_masking is True (Embedding: mask_zero; verified in /work/tfref
# for every layer class the reader has)
SUPPORTS = {"Dense", "Dropout", "Activation", "LayerNormalization", "BatchNormalization",
            "Masking", "GlobalAveragePooling1D", "SimpleRNN", "GRU", "LSTM", "RNN", "Add",
            "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot",
            "TimeDistributed", "Bidirectional", "ActivityRegularization", "AlphaDropout",
            "GaussianDropout", "GaussianNoise", "SpatialDropout1D", "SpatialDropout2D",
            "SpatialDropout3D", "Identity", "ReLU", "LeakyReLU", "ELU", "PReLU", "Softmax",
            "Normalization", "Rescaling"}  # fmt: skip
# Keras classes whose call takes mask= (filled in from the input's mask)
TAKES_MASK = {"SimpleRNN", "GRU", "LSTM", "RNN", "GlobalAveragePooling1D", "BatchNormalization",
              "TimeDistributed", "Bidirectional", "Lambda", "Softmax"}  # fmt: skip
MERGES = {"Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate"}


def keras_class(obj: Instance) -> str:
    """The name of the first Keras (not user) class in obj's MRO."""
    for c in obj.cls.mro():
        if not c.user:
            return c.name
    return ""


def get_mask(it: Interpreter, value):
    """value._keras_mask (None when it has none), mapped over lists and tuples."""
    if isinstance(value, (list, tuple)):
        return type(value)(get_mask(it, v) for v in value)
    if isinstance(value, Tensor) and it.keras is not None:
        return it.keras.masks.get(value.id)
    return None


def keras_mask(it: Interpreter, value, node):
    """t._keras_mask: the mask, else TensorFlow's AttributeError (a tensor without one)."""
    mask = get_mask(it, value)
    if mask is None:
        from gradcli.tfcode.support import Raises

        kind = "EagerTensor" if isinstance(value, Tensor) else "ResourceVariable"
        raise Raises(
            "AttributeError",
            f"'tensorflow.python.framework.ops.{kind}' object has no attribute '_keras_mask'",
            it.pos(node),
            "only a Keras layer's output carries a mask (Embedding(mask_zero=True), Masking, "
            "and the layers that pass it on)",
        )
    return mask


def set_mask(it: Interpreter, value, mask) -> None:
    if isinstance(value, Tensor) and isinstance(mask, (Tensor, Variable)):
        state(it).masks[value.id] = mask


def keep_masks(it: Interpreter, before, after) -> None:
    """Layer.__call__'s input conversion keeps each input's mask (maybe_convert)."""
    for a, b in zip(_flatten([before]), _flatten([after])):
        m = get_mask(it, a)
        if m is not None and get_mask(it, b) is None:
            set_mask(it, b, m)


def supports(obj: Instance) -> bool:
    """layer.supports_masking: set by the layer, else True when its class defines
    compute_mask, else Keras's own class's."""
    if "supports_masking" in obj.data:
        return bool(obj.data["supports_masking"])
    fn, owner = obj.cls.lookup("compute_mask")
    if isinstance(fn, PyFunction) and owner is not None and owner.user:
        return True
    name = keras_class(obj)
    if name == "Embedding":
        return bool(obj.data.get("mask_zero"))
    return name in SUPPORTS


def takes_mask(obj: Instance, fn) -> bool:
    if isinstance(fn, PyFunction):
        return any(a.arg == "mask" for a in [*fn.args.args, *fn.args.kwonlyargs])
    return keras_class(obj) in TAKES_MASK


def _tensor_args(args, kwargs) -> list:
    """call_spec.tensor_arguments_dict: the arguments holding tensors (not mask/training)."""
    items = [*args, *(v for k, v in kwargs.items() if k not in ("mask", "training"))]
    return [v for v in items if any(isinstance(x, (Tensor, Variable)) for x in _flatten([v]))]


def before_call(it: Interpreter, obj: Instance, fn, args, kwargs):
    """Fill mask= from the only tensor argument; the previous mask (Layer.__call__ step 6)."""
    if takes_mask(obj, fn) and kwargs.get("mask") is None:
        tensors = _tensor_args(args, kwargs)
        if len(tensors) == 1:
            mask = get_mask(it, tensors[0])
            if any(m is not None for m in _flatten([mask])):
                kwargs["mask"] = mask
    if kwargs.get("mask") is not None:
        return kwargs["mask"]
    first = args[0] if args else next(iter(kwargs.values()), None)
    return get_mask(it, first)


def after_call(it: Interpreter, obj: Instance, args, kwargs, outputs, previous, node) -> None:
    """_set_mask_metadata: compute_mask's masks on the outputs that have none (a layer that
    does not support masking drops the mask: Keras warns, gradcli notes it on the calls
    whose gradient goes through the layer)."""
    if not supports(obj):
        dropped = all(get_mask(it, x) is None for x in _flatten([outputs]))
        if dropped and any(m is not None for m in _flatten([previous])):
            note = (
                f"layer '{obj.layer.name}' ({obj.cls.name}, line {node.lineno}) was passed an "
                "input with a Keras mask but does not support masking: the mask is dropped "
                "(Keras warns), so the layers and the loss after it see every step"
            )
            for x in _flatten([outputs]):
                if isinstance(x, Tensor):
                    it.notes.setdefault(x.id, (None, note))
        return
    flat = _flatten([outputs])
    if all(get_mask(it, x) is not None for x in flat):
        return
    first = args[0] if args else next(iter(kwargs.values()), None)
    fn, owner = obj.cls.lookup("compute_mask")
    masks = call_member(it, obj, fn, owner, [first, previous], {}, node)
    if masks is None:
        return
    for x, m in zip(flat, _flatten([masks])):
        if get_mask(it, x) is None and m is not None:
            set_mask(it, x, m)


# --- compute_mask of Keras's classes ------------------------------------------------------------
def _op(it, name, *xs, node, **attrs):
    return it.op_call(name, list(xs), attrs, node)


def compute_mask(it: Interpreter, obj: Instance, args, kwargs, node):
    """Layer.compute_mask(inputs, previous_mask) of Keras's own classes."""
    inputs = args[0] if args else kwargs.get("inputs")
    mask = args[1] if len(args) > 1 else kwargs.get("mask", kwargs.get("previous_mask"))
    name = keras_class(obj)
    if name == "Embedding":
        if not obj.data.get("mask_zero"):
            return None
        return _op(it, "not_equal", inputs, 0, node=node)
    if name == "Masking":
        return any_not_equal(it, inputs, obj.data["mask_value"], False, node)
    if name in ("SimpleRNN", "GRU", "LSTM", "RNN"):
        mask = _flatten([mask])[0] if isinstance(mask, (list, tuple)) else mask
        out = mask if obj.data.get("return_sequences") else None
        return [out, None, None, None] if obj.data.get("return_state") else out  # states: none
    if name in ("GlobalAveragePooling1D", "Dot"):
        return None
    if name == "Lambda":  # Lambda(mask=): a function of (inputs, mask), or the mask itself
        given = obj.data.get("mask")
        if isinstance(given, PyFunction):
            return it.call_function(given, [inputs, mask], {}, node)
        return given
    if name == "Bidirectional":
        from gradcli.tfcode.keras.wrappers import bidirectional_mask

        return bidirectional_mask(obj, mask)
    if name in MERGES:
        return _merge_mask(it, name, obj, inputs, mask, node)
    return mask


def any_not_equal(it: Interpreter, x, value, keepdims: bool, node):
    """ops.any(ops.not_equal(x, value), axis=-1): as max over the last axis of the 0/1
    float (TensorFlow's reduce_any gives the same booleans)."""
    ne = _op(it, "cast", _op(it, "not_equal", x, value, node=node), node=node, dtype="float32")
    top = _op(it, "max", ne, node=node, axis=-1, keepdims=keepdims)
    return _op(it, "greater", top, 0.0, node=node)


def _merge_mask(it: Interpreter, name: str, obj: Instance, inputs, mask, node):
    if mask is None:
        return None
    if not isinstance(mask, (list, tuple)) or not isinstance(inputs, (list, tuple)):
        it.refuse(node, f"a {name} layer's mask of {_describe(mask)}")
    if name != "Concatenate":
        if any(m is None for m in mask):
            return None
        out = mask[0]
        for m in mask[1:]:
            out = _op(it, "logical_or", out, m, node=node)
        return out
    if all(m is None for m in mask):
        return None
    parts = []
    for x, m in zip(inputs, mask):
        shape = tuple(it.g[it.tensor_id(x, read=False)].shape)
        if m is None:
            parts.append(it.leaf(np.ones(shape, dtype=bool), node))
            continue
        if len(it.g[it.tensor_id(m, read=False)].shape) < len(shape):
            zeros = it.leaf(np.zeros(shape, dtype=bool), node)
            m = _op(it, "logical_or", _op(it, "expand_dims", m, node=node, axis=-1), zeros,
                    node=node)  # fmt: skip
        parts.append(m)
    cat = _op(it, "concat", *parts, node=node, axis=obj.data.get("axis", -1))
    top = _op(it, "max", _op(it, "cast", cat, node=node, dtype="float32"), node=node, axis=-1)
    return _op(it, "greater", top, 0.0, node=node)


# --- uses of the mask --------------------------------------------------------------------------
def _expanded(it: Interpreter, mask, x, node):
    """The mask (batch, ...) broadcast to x's shape along new trailing axes (bool)."""
    rank = len(it.g[it.tensor_id(x, read=False)].shape)
    m = mask
    while len(it.g[it.tensor_id(m, read=False)].shape) < rank:
        m = _op(it, "expand_dims", m, node=node, axis=-1)
    shape = list(it.g[it.tensor_id(x, read=False)].shape)
    mshape = list(it.g[it.tensor_id(m, read=False)].shape)
    multiples = [s // ms if ms else 1 for s, ms in zip(shape, mshape)]
    return _op(it, "tile", m, node=node, multiples=multiples)  # _expand_mask's tf.tile


def masked_step(it: Interpreter, mask_t, new, old, node):
    """tf.where(tiled mask_t, new, old): the RNN's masked output or state at one step."""
    return _op(it, "where", _expanded(it, mask_t, new, node), new, old, node=node)


def masked_mean(it: Interpreter, x, mask, keepdims: bool, node):
    """GlobalAveragePooling1D with a mask: sum of the unmasked steps / their count."""
    if it.g[it.tensor_id(mask, read=False)].dtype != "bool":
        mask = _op(it, "cast", mask, node=node, dtype="bool")
    m = _op(it, "expand_dims", mask, node=node, axis=2)
    dtype = it.g[it.tensor_id(x, read=False)].dtype
    x = _op(it, "where", m, x, 0.0, node=node)
    total = _op(it, "sum", x, node=node, axis=1, keepdims=keepdims)
    count = _op(it, "sum", _op(it, "cast", m, node=node, dtype=dtype), node=node, axis=1,
                keepdims=keepdims)  # fmt: skip
    return _op(it, "div", total, count, node=node)


def masked_merge(it: Interpreter, name: str, inputs: list, node):
    """Multiply, Maximum, Minimum of masked inputs (merging/multiply.py, base_merge.py); None
    when no input has a mask (the plain fold applies)."""
    masks = [get_mask(it, x) for x in inputs]
    if all(m is None for m in masks):
        return None
    if name == "Multiply":
        every = all(m is not None for m in masks)
        output = out_mask = None
        for x, m in zip(inputs, masks):
            if m is not None:
                m = _expanded(it, m, x, node)
                x = _op(it, "where", m, x, 1.0, node=node)  # 1s outside the mask
                if every:
                    out_mask = m if out_mask is None else _op(it, "logical_or", out_mask, m,
                                                               node=node)  # fmt: skip
            output = x if output is None else _op(it, "mul", output, x, node=node)
        if every:
            output = _op(it, "where", out_mask, output, 0.0, node=node)
            set_mask(it, output, _any_last(it, out_mask, node))
        return output
    fold = "maximum" if name == "Maximum" else "minimum"
    output = out_mask = None
    for x, m in zip(inputs, masks):
        if m is not None:
            m = _expanded(it, m, x, node)
        if output is None:
            output, out_mask = x, m
            continue
        if m is not None:
            x = _op(it, "where", m, x, output, node=node)
        if out_mask is not None:
            output = _op(it, "where", out_mask, output, x, node=node)
        out_mask = (
            _op(it, "logical_or", out_mask, m, node=node)
            if m is not None and out_mask is not None
            else None
        )
        output = _op(it, fold, output, x, node=node)
    if out_mask is not None:
        set_mask(it, output, _any_last(it, out_mask, node))
    return output


def _any_last(it, m, node):
    top = _op(it, "max", _op(it, "cast", m, node=node, dtype="float32"), node=node, axis=-1)
    return _op(it, "greater", top, 0.0, node=node)


def loss_weight(it: Interpreter, mask, weight, values, reduction, dtype: str, node):
    """Loss.__call__'s apply_mask: the mask of y_pred merged into sample_weight."""
    if mask is None:
        return weight
    shape = tuple(it.g[it.tensor_id(mask, read=False)].shape)
    if reduction in ("mean", "sum_over_batch_size"):
        total = float(np.prod(shape, dtype=np.int64))
        valid = _op(it, "sum", _op(it, "cast", mask, node=node, dtype=dtype), node=node)
        total_t = it.leaf(np.asarray(total, dtype=dtype), node)
        share = _op(it, "div_no_nan", total_t, valid, node=node)
        float_mask = _op(it, "where", mask, share, 0.0, node=node)
    else:
        float_mask = _op(it, "cast", mask, node=node, dtype=dtype)
    note = (
        f"the loss (line {node.lineno}) is weighed by the Keras mask of y_pred: masked entries "
        "count 0"
        + (
            " and the mean is over the valid ones"
            if reduction in ("mean", "sum_over_batch_size")
            else ""
        )
        + " (their gradients are zero)"
    )
    if isinstance(float_mask, Tensor):
        it.notes.setdefault(float_mask.id, (None, note))
    if weight is None:
        return float_mask
    from gradcli.tfcode.keras.library import _same_rank

    float_mask, weight = _same_rank(it, float_mask, weight, node)
    return _op(it, "mul", weight, float_mask, node=node)


# --- the Masking layer -------------------------------------------------------------------------
def _masking_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Masking(mask_value=0.0)."""
    from gradcli.tfcode.keras.layers import layer_init

    value = args[0] if args else kwargs.pop("mask_value", 0.0)
    kwargs.pop("mask_value", None)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        it.refuse(node, f"Masking(mask_value={_describe(value)})", "give a Python number")
    layer_init(it, obj, [], kwargs, node)
    obj.data["mask_value"] = float(value)
    return None


def _masking_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """where(any(x != mask_value, -1, keepdims), x, 0), its mask set on the output."""
    x = args[0] if args else kwargs.get("inputs")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a Masking layer called on {_describe(x)}")
    keep = any_not_equal(it, x, obj.data["mask_value"], True, node)
    out = _op(it, "where", keep, x, 0.0, node=node)
    set_mask(it, out, _op(it, "squeeze", keep, node=node, axis=[-1]))
    return out


def _supports_get(it, obj, args, kwargs, node):
    return supports(obj)


def _supports_set(it, obj, args, kwargs, node):
    obj.data["supports_masking"] = args[0]
    return None


SUPPORTS_MASKING = Property(Builtin(_supports_get), Builtin(_supports_set))
COMPUTE_MASK = Builtin(compute_mask)


def masking_class(layer: Class) -> Class:
    return Class(
        "Masking", (layer,), {"__init__": Builtin(_masking_init), "call": Builtin(_masking_call)}
    )

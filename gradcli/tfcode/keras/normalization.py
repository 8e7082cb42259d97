"""Keras 3's BatchNormalization and LayerNormalization for the reader, built from gradcli's
`moments`, `rsqrt` and elementwise ops in the order Keras's TensorFlow backend computes.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- BatchNormalization(axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True) makes
  gamma (ones), beta (zeros), then moving_mean (zeros) and moving_variance (ones), the last
  two with trainable=False (in `non_trainable_variables`, not watched by tapes). Only when
  called with training=True (given, or the enclosing layer call's) on a trainable layer does
  it use the batch's `tf.nn.moments` over every axis but `axis`, and assign
  moving = moving * momentum + batch * (1 - momentum) (assigns no tape records; later reads
  see them); otherwise (inference, or `trainable = False`) it uses the moving statistics.
  The output is tf.nn.batch_normalization's x * inv + (beta - mean * inv) with
  inv = rsqrt(variance + epsilon) * gamma.
- LayerNormalization(axis=-1, epsilon=1e-3, center=True, scale=True): gamma and beta over
  the normalised axes; moments with keepdims, inv = rsqrt(variance + epsilon) * gamma,
  x * inv + (-mean * inv + beta).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.keras import initializers
from gradcli.tfcode.keras.layers import LAYER, _opt, layer_init, make_weight
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import state
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

REGULARIZERS = ("beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint")


def _bind(it, obj, args, kwargs, node, names, defaults, cls_name):
    """Split a constructor's arguments into the layer's own options and Layer's."""
    bound = dict(defaults)
    bound.update(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        if k in defaults:
            bound[k] = v
        else:
            rest[k] = v
    for k in REGULARIZERS:
        if bound.get(k) is not None:
            it.refuse(node, f"{cls_name}(..., {k}=...)")
    layer_init(it, obj, [], rest, node)
    for k in ("center", "scale"):
        if not isinstance(bound[k], bool):
            it.refuse(node, f"{cls_name}({k}={_describe(bound[k])})", "give True or False")
    for k in ("epsilon", "momentum"):
        if k in bound and (isinstance(bound[k], bool) or not isinstance(bound[k], (int, float))):
            it.refuse(node, f"{cls_name}({k}={_describe(bound[k])})", "give a Python number")
    return bound


def _input(it: Interpreter, obj: Instance, args, kwargs, node):
    x = _opt(args, kwargs, 0, "inputs")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a {obj.cls.name} layer called on {_describe(x)}")
    if kwargs.get("mask") is not None:
        it.refuse(node, f"{obj.cls.name}(..., mask=...)")
    return x, len(it.g[it.tensor_id(x, read=False)].shape)


def _normalize_axis(it, axis, rank: int, node, cls_name: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        it.refuse(node, f"{cls_name}(axis={_describe(axis)}) on a rank-{rank} input")
    return axis % rank


def _broadcast(it, v, rank: int, axes: list[int], shape, node):
    """A per-axis parameter reshaped to broadcast against the input (1 elsewhere)."""
    target = [1] * rank
    for a in axes:
        target[a] = shape[a]
    return it.op_call("reshape", [v], {"shape": target}, node)


# --- BatchNormalization ------------------------------------------------------------------------
BN_NAMES = ("axis", "momentum", "epsilon", "center", "scale", "beta_initializer",
            "gamma_initializer", "moving_mean_initializer",
            "moving_variance_initializer")  # fmt: skip
BN_DEFAULTS = {"axis": -1, "momentum": 0.99, "epsilon": 1e-3, "center": True, "scale": True,
               "beta_initializer": None, "gamma_initializer": None,
               "moving_mean_initializer": None, "moving_variance_initializer": None,
               "beta_regularizer": None, "gamma_regularizer": None, "beta_constraint": None,
               "gamma_constraint": None, "renorm": False, "synchronized": False}  # fmt: skip


def _bn_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """BatchNormalization(axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, ...)."""
    bound = _bind(it, obj, args, kwargs, node, BN_NAMES, BN_DEFAULTS, "BatchNormalization")
    if bound["renorm"]:
        it.refuse(node, "BatchNormalization(renorm=True)")
    if not isinstance(bound["axis"], int) or isinstance(bound["axis"], bool):
        it.refuse(node, f"BatchNormalization(axis={_describe(bound['axis'])})", "give an int")
    inits = {}
    for k, default in (("gamma", "ones"), ("beta", "zeros"), ("moving_mean", "zeros"),
                       ("moving_variance", "ones")):  # fmt: skip
        inits[k] = initializers.get(it, bound[f"{k}_initializer"], node, default=default)
    obj.data.update(
        axis=bound["axis"], momentum=float(bound["momentum"]), epsilon=float(bound["epsilon"]),
        center=bound["center"], scale=bound["scale"], inits=inits,
    )  # fmt: skip
    return None


def _bn_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "input_shape")
    if not isinstance(shape, (list, tuple)) or not shape:
        it.refuse(node, f"BatchNormalization.build({_describe(shape)})")
    d = obj.data
    axis = _normalize_axis(it, d["axis"], len(shape), node, "BatchNormalization")
    if not isinstance(shape[axis], int):
        it.refuse(node, "BatchNormalization on an axis of unknown size")
    size = (shape[axis],)
    dtype = d.get("dtype", "float32")
    made = [("gamma", d["scale"], True), ("beta", d["center"], True),
            ("moving_mean", True, False), ("moving_variance", True, False)]  # fmt: skip
    for name, wanted, trainable in made:
        obj.attrs[name] = (
            make_weight(it, obj, name, size, dtype, d["inits"][name], trainable, node)
            if wanted
            else None
        )
    obj.layer.built = True
    return None


def _bn_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """BatchNormalization.call(inputs, training=None): batch statistics (and the moving
    averages' update) when training on a trainable layer, else the moving statistics."""
    mask = kwargs.pop("mask", None)  # Keras uses it only for the batch statistics
    x, rank = _input(it, obj, args, kwargs, node)
    d = obj.data
    st = state(it)
    training = kwargs.get("training")
    if training is None and st.training:
        training = st.training[-1]
    if mask is not None and training and obj.layer.trainable:
        it.refuse(node, "BatchNormalization training on a masked input (masked moments)")
    if isinstance(training, (Tensor, Variable)):
        it.refuse(node, "BatchNormalization(..., training=<a tensor>)", "give True or False")
    axis = _normalize_axis(it, d["axis"], rank, node, "BatchNormalization")
    shape = it.g[it.tensor_id(x, read=False)].shape
    a = obj.attrs
    moving_mean, moving_variance = a["moving_mean"], a["moving_variance"]
    if training and obj.layer.trainable:
        reduce = [k for k in range(rank) if k != axis]
        mean, variance = it.op_call("moments", [x], {"axes": reduce, "keepdims": False}, node)
        if not it.quiet:  # the stand-in call of a symbolic build assigns nothing
            m = d["momentum"]
            for var, batch in ((moving_mean, mean), (moving_variance, variance)):
                kept = it.op_call("mul", [var, m], {}, node)
                new = it.op_call("add", [kept, it.op_call("mul", [batch, 1.0 - m], {}, node)],
                                 {}, node)  # fmt: skip
                it.assign_variable(var, "assign", [new], {}, node)
    else:
        mean, variance = moving_mean, moving_variance
    gamma, beta = a.get("gamma"), a.get("beta")
    if d["axis"] != -1:  # Keras reshapes the statistics and parameters for another axis
        mean, variance = (_broadcast(it, v, rank, [axis], shape, node) for v in (mean, variance))
        gamma = _broadcast(it, gamma, rank, [axis], shape, node) if gamma is not None else None
        beta = _broadcast(it, beta, rank, [axis], shape, node) if beta is not None else None
    inv = it.op_call("rsqrt", [it.op_call("add", [variance, d["epsilon"]], {}, node)], {}, node)
    if gamma is not None:
        inv = it.op_call("mul", [inv, gamma], {}, node)
    shift = it.op_call("mul", [mean, inv], {}, node)
    shift = (
        it.op_call("sub", [beta, shift], {}, node)
        if beta is not None
        else it.op_call("neg", [shift], {}, node)
    )
    return it.op_call("add", [it.op_call("mul", [x, inv], {}, node), shift], {}, node)


BATCH_NORMALIZATION = Class(
    "BatchNormalization",
    (LAYER,),
    {"__init__": Builtin(_bn_init), "build": Builtin(_bn_build), "call": Builtin(_bn_call)},
)


# --- LayerNormalization ------------------------------------------------------------------------
LN_NAMES = ("axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer")
LN_DEFAULTS = {"axis": -1, "epsilon": 1e-3, "center": True, "scale": True,
               "beta_initializer": None, "gamma_initializer": None, "beta_regularizer": None,
               "gamma_regularizer": None, "beta_constraint": None, "gamma_constraint": None,
               "rms_scaling": False}  # fmt: skip


def _ln_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """LayerNormalization(axis=-1, epsilon=1e-3, center=True, scale=True, ...)."""
    bound = _bind(it, obj, args, kwargs, node, LN_NAMES, LN_DEFAULTS, "LayerNormalization")
    if bound["rms_scaling"]:
        it.refuse(node, "LayerNormalization(rms_scaling=True)")
    axis = bound["axis"]
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not axes or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        it.refuse(node, f"LayerNormalization(axis={_describe(axis)})", "give ints")
    obj.data["autocast"] = False  # Keras's LayerNormalization: self.autocast = False
    obj.data.update(
        axes=sorted(axes), epsilon=float(bound["epsilon"]), center=bound["center"],
        scale=bound["scale"],
        gamma_init=initializers.get(it, bound["gamma_initializer"], node, default="ones"),
        beta_init=initializers.get(it, bound["beta_initializer"], node, default="zeros"),
    )  # fmt: skip
    return None


def _ln_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "input_shape")
    if not isinstance(shape, (list, tuple)) or not shape:
        it.refuse(node, f"LayerNormalization.build({_describe(shape)})")
    d = obj.data
    axes = [_normalize_axis(it, a, len(shape), node, "LayerNormalization") for a in d["axes"]]
    size = tuple(shape[a] for a in d["axes"])
    if not all(isinstance(s, int) for s in size):
        it.refuse(node, "LayerNormalization over an axis of unknown size")
    d["param_axes"] = axes
    obj.attrs["gamma"] = (
        make_weight(it, obj, "gamma", size, d["dtype"], d["gamma_init"], True, node)
        if d["scale"]
        else None
    )
    obj.attrs["beta"] = (
        make_weight(it, obj, "beta", size, d["dtype"], d["beta_init"], True, node)
        if d["center"]
        else None
    )
    obj.layer.built = True
    return None


def _ln_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """LayerNormalization.call: keras.ops.layer_normalization on the TensorFlow backend."""
    x, rank = _input(it, obj, args, kwargs, node)
    d = obj.data
    axes = [_normalize_axis(it, a, rank, node, "LayerNormalization") for a in d["axes"]]
    shape = it.g[it.tensor_id(x, read=False)].shape
    # Keras does not autocast this layer's input: it normalises in result_type(x, float32)
    # (float64 stays float64), with gamma and beta cast to that, then casts the result to the
    # layer's compute dtype
    compute = d.get("dtype", "float32")
    x_dtype = it.g[it.tensor_id(x, read=False)].dtype
    if x_dtype != "float64":
        x, x_dtype = _cast(it, x, "float32", node), "float32"
    mean, variance = it.op_call("moments", [x], {"axes": axes, "keepdims": True}, node)
    gamma, beta = (_cast(it, obj.attrs.get(w), x_dtype, node) for w in ("gamma", "beta"))
    # Keras reshapes gamma/beta to the broadcast shape unless they are already of the
    # input's rank or the axis is the last one, written as [rank - 1]
    reshape = d["axes"] != [rank - 1]
    if gamma is not None and reshape:
        gamma = _broadcast(it, gamma, rank, axes, shape, node)
    if beta is not None and reshape:
        beta = _broadcast(it, beta, rank, axes, shape, node)
    inv = it.op_call("rsqrt", [it.op_call("add", [variance, d["epsilon"]], {}, node)], {}, node)
    if gamma is not None:
        inv = it.op_call("mul", [inv, gamma], {}, node)
    res = it.op_call("mul", [it.op_call("neg", [mean], {}, node), inv], {}, node)
    if beta is not None:
        res = it.op_call("add", [res, beta], {}, node)
    out = it.op_call("add", [it.op_call("mul", [x, inv], {}, node), res], {}, node)
    return _cast(it, out, compute, node)


def _cast(it: Interpreter, value, dtype: str, node):
    """value as a dtype tensor (None stays None; a tensor of that dtype is itself)."""
    if value is None or it.g[it.tensor_id(value, read=False)].dtype == dtype:
        return value
    return it.op_call("cast", [value], {"dtype": dtype}, node)


LAYER_NORMALIZATION = Class(
    "LayerNormalization",
    (LAYER,),
    {"__init__": Builtin(_ln_init), "build": Builtin(_ln_build), "call": Builtin(_ln_call)},
)

CLASSES = {"layers.BatchNormalization": BATCH_NORMALIZATION,
           "layers.LayerNormalization": LAYER_NORMALIZATION}  # fmt: skip

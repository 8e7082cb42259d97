"""Keras's activation layers for the reader: ReLU, LeakyReLU, ELU, PReLU, Softmax and
tf.keras's legacy ThresholdedReLU, with keras.activations.relu's options.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- keras.activations.relu(x, negative_slope, max_value, threshold) (ReLU's call) is
  tf.nn.leaky_relu when only negative_slope is set; otherwise relu(x) (relu6 when
  max_value == 6 and no threshold; where(x > threshold, x, 0) with a threshold), clipped to
  [0, max_value] by tf.clip_by_value, minus negative_slope * relu(-x + threshold).
- LeakyReLU(negative_slope=0.3) (alpha= is Keras's deprecated name, with a warning);
  ELU(alpha=1.0) is tf.nn.elu, times alpha where x <= 0 when alpha != 1.
- PReLU makes `alpha` of shape input_shape[1:] (1 on shared_axes), zeros by default:
  relu(x) + (-alpha) * relu(-x).
- Softmax(axis=-1) is keras.activations.softmax (its output keeps its logits, as
  Dense(activation="softmax")); several axes: exp(x - logsumexp(x, axis, keepdims)).
- ThresholdedReLU(theta=1.0) is only tf.keras's (keras._legacy): x * cast(x > theta);
  keras.layers has no such name (AttributeError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras import initializers
from gradcli.tfcode.keras.conv_layers import bind, shape, tensor_arg
from gradcli.tfcode.keras.layers import LAYER, make_weight
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.regularizers import regularizer, set_regularizer
from gradcli.tfcode.support import _describe

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _number(it, value, what: str, node, none_ok: bool = False):
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        it.refuse(node, f"{what}={_describe(value)}", "give a Python number")
    return value


def keras_relu(it: Interpreter, x, negative_slope, max_value, threshold, node):
    """keras.activations.relu's static_call on the TensorFlow backend (module docstring)."""
    if negative_slope != 0.0:
        if max_value is None and threshold == 0:
            return it.call_api("tf.nn.leaky_relu", [x], {"alpha": negative_slope}, node, None)
        shifted = it.op_call("neg", [x], {}, node)
        if threshold != 0:
            shifted = it.op_call("add", [shifted, threshold], {}, node)
        negative_part = it.op_call("relu", [shifted], {}, node)
    clip_max = max_value is not None
    if threshold != 0:
        above = it.op_call("greater", [x, float(threshold)], {}, node)
        y = it.op_call("where", [above, x, 0.0], {}, node)
    elif max_value == 6:
        y, clip_max = it.op_call("relu6", [x], {}, node), False
    else:
        y = it.op_call("relu", [x], {}, node)
    if clip_max:
        y = it.call_api("tf.clip_by_value", [y, 0.0, float(max_value)], {}, node, None)
    if negative_slope != 0.0:
        y = it.op_call("sub", [y, it.op_call("mul", [negative_slope, negative_part], {}, node)],
                       {}, node)  # fmt: skip
    return y


# --- ReLU, LeakyReLU, ELU, ThresholdedReLU ------------------------------------------------------
def _relu_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """ReLU(max_value=None, negative_slope=0.0, threshold=0.0) (Keras's ValueErrors)."""
    names = ("max_value", "negative_slope", "threshold")
    b = bind(it, obj, args, kwargs, node, names, {"negative_slope": 0.0, "threshold": 0.0})
    for k in names:
        _number(it, b.get(k), k, node, none_ok=True)
    m, s, t = b.get("max_value"), b["negative_slope"], b["threshold"]
    problem = None
    if m is not None and m < 0:
        problem = f"max_value of a ReLU layer cannot be a negative value. Received: max_value={m}"
    elif s is None or s < 0:
        problem = (f"negative_slope of a ReLU layer cannot be None or a negative value. "
                   f"Received: negative_slope={s}")  # fmt: skip
    elif t is None or t < 0:
        problem = (f"threshold of a ReLU layer cannot be None or a negative value. "
                   f"Received: threshold={t}")  # fmt: skip
    if problem:
        raise GradcliError(f"ValueError: {problem}", it.pos(node))
    obj.data.update(max_value=m, negative_slope=s, threshold=t)
    return None


def _relu_call(it: Interpreter, obj: Instance, args, kwargs, node):
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    return keras_relu(it, x, d["negative_slope"], d["max_value"], d["threshold"], node)


def _leaky_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """LeakyReLU(negative_slope=0.3) (alpha=: Keras's deprecated spelling of it)."""
    if "alpha" in kwargs:
        kwargs["negative_slope"] = kwargs.pop("alpha")
    b = bind(it, obj, args, kwargs, node, ("negative_slope",), {"negative_slope": 0.3})
    s = _number(it, b["negative_slope"], "negative_slope", node, none_ok=True)
    if s is None or s < 0:
        raise GradcliError(
            "ValueError: The negative_slope value of a Leaky ReLU layer cannot be None or "
            f"negative value. Expected a float. Received: negative_slope={s}",
            it.pos(node),
        )
    obj.data["negative_slope"] = s
    return None


def _leaky_call(it: Interpreter, obj: Instance, args, kwargs, node):
    x = tensor_arg(it, obj, args, kwargs, node)
    return it.call_api("tf.nn.leaky_relu", [x], {"alpha": obj.data["negative_slope"]}, node, None)


def _elu_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """ELU(alpha=1.0)."""
    b = bind(it, obj, args, kwargs, node, ("alpha",), {"alpha": 1.0})
    obj.data["alpha"] = _number(it, b["alpha"], "alpha", node)
    return None


def keras_elu(it: Interpreter, x, alpha, node):
    """keras.activations.elu: tf.nn.elu, scaled by alpha where x <= 0 unless alpha == 1."""
    res = it.op_call("elu", [x], {}, node)
    if alpha == 1:
        return res
    positive = it.op_call("greater", [x, 0.0], {}, node)
    return it.op_call("where", [positive, res, it.op_call("mul", [alpha, res], {}, node)], {},
                      node)  # fmt: skip


def _elu_call(it: Interpreter, obj: Instance, args, kwargs, node):
    return keras_elu(it, tensor_arg(it, obj, args, kwargs, node), obj.data["alpha"], node)


def _thresholded_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """ThresholdedReLU(theta=1.0) (tf.keras's legacy layer)."""
    b = bind(it, obj, args, kwargs, node, ("theta",), {"theta": 1.0})
    theta = _number(it, b["theta"], "theta", node, none_ok=True)
    if theta is None:
        raise GradcliError("ValueError: Theta of a Thresholded ReLU layer cannot be None, "
                           "expecting a float. Received: None", it.pos(node))  # fmt: skip
    if theta < 0:
        raise GradcliError("ValueError: The theta value of a Thresholded ReLU layer should be "
                           f">=0. Received: {theta}", it.pos(node))  # fmt: skip
    obj.data["theta"] = float(theta)
    return None


def _thresholded_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """inputs * cast(inputs > theta, dtype): no gradient through the mask."""
    x = tensor_arg(it, obj, args, kwargs, node)
    mask = it.op_call("greater", [x, obj.data["theta"]], {}, node)
    dtype = it.g[it.tensor_id(x, read=False)].dtype
    return it.op_call("mul", [x, it.op_call("cast", [mask], {"dtype": dtype}, node)], {}, node)


# --- PReLU -------------------------------------------------------------------------------------
PRELU_NAMES = ("alpha_initializer", "alpha_regularizer", "alpha_constraint", "shared_axes")


def _prelu_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """PReLU(alpha_initializer='Zeros', alpha_regularizer=None, alpha_constraint=None,
    shared_axes=None)."""
    b = bind(it, obj, args, kwargs, node, PRELU_NAMES, {})
    if b.get("alpha_constraint") is not None:
        it.refuse(node, "PReLU(..., alpha_constraint=...)")
    axes = b.get("shared_axes")
    if axes is not None and not isinstance(axes, (list, tuple)):
        axes = [axes]
    if axes is not None and not all(isinstance(a, int) and a >= 1 for a in axes):
        it.refuse(node, f"PReLU(shared_axes={_describe(axes)})", "give axes from 1")
    obj.data.update(
        init=initializers.get(it, b.get("alpha_initializer"), node, default="zeros"),
        reg=regularizer(it, b.get("alpha_regularizer"), node),
        shared_axes=list(axes) if axes is not None else None,
    )
    return None


def _prelu_build(it: Interpreter, obj: Instance, args, kwargs, node):
    input_shape = args[0] if args else kwargs.get("input_shape")
    if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2:
        it.refuse(node, f"PReLU.build({_describe(input_shape)})")
    param = list(input_shape[1:])
    for a in obj.data["shared_axes"] or []:
        if a - 1 < len(param):
            param[a - 1] = 1
    if not all(isinstance(d, int) for d in param):
        it.refuse(node, "a PReLU input with an unknown dimension outside shared_axes")
    alpha = make_weight(it, obj, "alpha", tuple(param), obj.data.get("dtype", "float32"),
                        obj.data["init"], True, node)  # fmt: skip
    set_regularizer(alpha, obj.data["reg"])
    obj.attrs["alpha"] = alpha
    obj.layer.built = True
    return None


def _prelu_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """relu(x) + (-alpha) * relu(-x)."""
    x = tensor_arg(it, obj, args, kwargs, node)
    pos = it.op_call("relu", [x], {}, node)
    neg_alpha = it.op_call("neg", [obj.attrs["alpha"]], {}, node)
    relu_neg = it.op_call("relu", [it.op_call("neg", [x], {}, node)], {}, node)
    return it.op_call("add", [pos, it.op_call("mul", [neg_alpha, relu_neg], {}, node)], {}, node)


# --- Softmax -----------------------------------------------------------------------------------
def _softmax_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Softmax(axis=-1) (an int or a list of ints)."""
    b = bind(it, obj, args, kwargs, node, ("axis",), {"axis": -1})
    axis = b["axis"]
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not axes or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        it.refuse(node, f"Softmax(axis={_describe(axis)})", "give an int or a list of ints")
    obj.data["axis"] = axis
    return None


def _softmax_call(it: Interpreter, obj: Instance, args, kwargs, node):
    from gradcli.tfcode.keras.library import apply_activation

    if kwargs.get("mask") is not None:
        it.refuse(node, "a Softmax layer called with mask=")
    x = tensor_arg(it, obj, args, kwargs, node)
    axis = obj.data["axis"]
    if isinstance(axis, (list, tuple)) and len(axis) > 1:
        rank = len(shape(it, x))
        axes = sorted(a % rank for a in axis)
        lse = it.op_call("logsumexp", [x], {"axis": axes, "keepdims": True}, node)
        return it.op_call("exp", [it.op_call("sub", [x, lse], {}, node)], {}, node)
    if isinstance(axis, (list, tuple)):
        axis = axis[0]
    return apply_activation(it, "softmax", [x], {"axis": axis}, node)


def _class(name: str, init, call, build=None) -> Class:
    methods = {"__init__": Builtin(init), "call": Builtin(call)}
    if build is not None:
        methods["build"] = Builtin(build)
    return Class(name, (LAYER,), methods)


RELU = _class("ReLU", _relu_init, _relu_call)
LEAKY_RELU = _class("LeakyReLU", _leaky_init, _leaky_call)
ELU = _class("ELU", _elu_init, _elu_call)
PRELU = _class("PReLU", _prelu_init, _prelu_call, _prelu_build)
SOFTMAX = _class("Softmax", _softmax_init, _softmax_call)
THRESHOLDED_RELU = _class("ThresholdedReLU", _thresholded_init, _thresholded_call)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {f"layers.{c.name}": c for c in (RELU, LEAKY_RELU, ELU, PRELU, SOFTMAX,
                                            THRESHOLDED_RELU)}  # fmt: skip
# names only tf.keras has (keras.layers.ThresholdedReLU is an AttributeError)
TF_KERAS_ONLY = {"layers.ThresholdedReLU"}

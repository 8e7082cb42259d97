"""Keras's random regularisation layers and activity regularisation for the reader:
GaussianNoise, GaussianDropout, SpatialDropout1D/2D, AlphaDropout, ActivityRegularization
(and any layer's activity_regularizer=).

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- Each is the identity unless called with training=True (given, or the enclosing layer
  call's) and its rate (stddev) is above 0; only then does the layer have a seed generator
  (`seed_generator_N/seed_generator_state`, in `variables`), made in __init__.
- GaussianNoise(stddev): x + normal(0, stddev); GaussianDropout(rate): x * normal(1,
  sqrt(rate / (1 - rate))); SpatialDropout1D/2D(rate): dropout with the noise shape
  (batch, 1, channels) ((batch, 1, 1, channels); channels_first (batch, channels, 1, 1)):
  whole channels dropped; AlphaDropout(rate): kept = uniform >= rate, then
  a * (x * kept + alpha_p * (1 - kept)) + b with SELU's alpha_p. The numbers come from
  gradcli's generator, not Keras's streams.
- activity_regularizer= (ActivityRegularization(l1=0.0, l2=0.0) is the identity with
  L1L2(l1, l2)): after each call Keras adds regularizer(output) / batch size
  (divide_no_nan) to the layer's losses, cleared when the outermost layer call starts;
  `layer.losses` lists them (the layer's own, then its sub-layers' in Keras's
  _flatten_layers order) before the weight penalties.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import bind, shape, tensor_arg
from gradcli.tfcode.keras.layers import LAYER, add_seed_generator, sublayers
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import state
from gradcli.tfcode.support import _describe

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _rate(it: Interpreter, value, what: str, node) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise GradcliError(
            f"ValueError: Invalid value received for argument `{what}`. Expected a float value "
            f"between 0 and 1. Received: {what}={value!r}",
            it.pos(node),
        )
    return float(value)


def _init(what: str, names: tuple):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """GaussianNoise(stddev, seed=None), GaussianDropout(rate, seed=None), ..."""
        from gradcli.tfcode.keras.shape_layers import data_format

        b = bind(it, obj, args, kwargs, node, names, {})
        if what not in b:
            raise GradcliError(
                f"TypeError: {obj.cls.name}.__init__() missing 1 required positional argument: "
                f"'{what}'",
                it.pos(node),
            )
        if b.get("noise_shape") is not None:
            it.refuse(node, f"{obj.cls.name}(..., noise_shape=...)")
        obj.data["rate"] = _rate(it, b[what], what, node)
        obj.data["data_format"] = data_format(it, b.get("data_format"), node)
        if obj.data["rate"] > 0:
            add_seed_generator(it, obj, node)
        return None

    return init


def _training(it: Interpreter, kwargs) -> bool:
    st = state(it)
    return bool(st.training[-1] if st.training else kwargs.get("training"))


def _call(it: Interpreter, obj: Instance, args, kwargs, node):
    """The identity outside training; the layer's noise in training."""
    from gradcli.tfcode.keras.shape_layers import _rank_check

    x = tensor_arg(it, obj, args, kwargs, node)
    name = obj.cls.name
    if name.startswith("SpatialDropout"):  # Keras's InputSpec, checked in every call
        _rank_check(it, obj, x, 3 if name.endswith("1D") else 4, node)
    rate = obj.data["rate"]
    if not _training(it, kwargs) or rate == 0:
        return x
    xs = list(shape(it, x))
    dtype = it.g[it.tensor_id(x, read=False)].dtype
    if name == "GaussianNoise":
        noise = it.call_api("tf.random.normal", [xs], {"stddev": rate, "dtype": dtype}, node, None)
        return it.op_call("add", [x, noise], {}, node)
    if name == "GaussianDropout":
        std = math.sqrt(rate / (1.0 - rate))
        noise = it.call_api("tf.random.normal", [xs], {"mean": 1.0, "stddev": std,
                                                      "dtype": dtype}, node, None)  # fmt: skip
        return it.op_call("mul", [x, noise], {}, node)
    if name.startswith("SpatialDropout"):
        noise = [xs[0], *[1] * (len(xs) - 2), xs[-1]]
        if obj.data["data_format"] == "channels_first":
            noise = [xs[0], xs[1], *[1] * (len(xs) - 2)]
        return it.call_api("tf.nn.dropout", [x], {"rate": rate, "noise_shape": noise}, node, None)
    # AlphaDropout: SELU's saturation value where dropped, then an affine correction
    alpha_p = -SELU_ALPHA * SELU_SCALE
    uniform = it.call_api("tf.random.uniform", [xs], {"dtype": dtype}, node, None)
    kept = it.op_call("cast", [it.op_call("greater_equal", [uniform, rate], {}, node)],
                      {"dtype": dtype}, node)  # fmt: skip
    a = ((1 - rate) * (1 + rate * alpha_p**2)) ** -0.5
    b = -a * alpha_p * rate
    dropped = it.op_call("mul", [alpha_p, it.op_call("sub", [1.0, kept], {}, node)], {}, node)
    y = it.op_call("add", [it.op_call("mul", [x, kept], {}, node), dropped], {}, node)
    return it.op_call("add", [it.op_call("mul", [a, y], {}, node), b], {}, node)


def _class(name: str, what: str, names: tuple) -> Class:
    return Class(name, (LAYER,), {"__init__": Builtin(_init(what, names)),
                                  "call": Builtin(_call)})  # fmt: skip


GAUSSIAN_NOISE = _class("GaussianNoise", "stddev", ("stddev", "seed"))
GAUSSIAN_DROPOUT = _class("GaussianDropout", "rate", ("rate", "seed"))
SPATIAL_DROPOUT1D = _class("SpatialDropout1D", "rate", ("rate", "seed"))
SPATIAL_DROPOUT2D = _class("SpatialDropout2D", "rate", ("rate", "data_format", "seed"))
ALPHA_DROPOUT = _class("AlphaDropout", "rate", ("rate", "noise_shape", "seed"))


# --- activity regularisation -------------------------------------------------------------------
def _activity_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """ActivityRegularization(l1=0.0, l2=0.0): the identity with an L1L2 activity penalty."""
    from gradcli.tfcode.keras.regularizers import FACTORS, REGULARIZER_CLASSES

    b = bind(it, obj, args, kwargs, node, ("l1", "l2"), {"l1": 0.0, "l2": 0.0})
    reg = Instance(REGULARIZER_CLASSES["L1L2"])
    for k in FACTORS["L1L2"][0]:
        if isinstance(b[k], bool) or not isinstance(b[k], (int, float)):
            it.refuse(node, f"ActivityRegularization({k}={_describe(b[k])})", "give a number")
        reg.data[k] = float(b[k])
    obj.data["activity_regularizer"] = reg
    return None


def _activity_call(it: Interpreter, obj: Instance, args, kwargs, node):
    return args[0] if args else kwargs.get("inputs")


ACTIVITY_REGULARIZATION = Class(
    "ActivityRegularization",
    (LAYER,),
    {"__init__": Builtin(_activity_init), "call": Builtin(_activity_call)},
)


def clear_activity_losses(obj: Instance) -> None:
    """Keras's _clear_losses at the outermost layer call: the layer's and its sub-layers'."""
    stack, seen = [obj], set()
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        layer.data.pop("activity_losses", None)
        stack.extend(sublayers(layer))


def record_activity(it: Interpreter, obj: Instance, outputs, node) -> None:
    """After a call of a layer with an activity regularizer: its penalty on each output
    tensor, divided by the batch size (divide_no_nan), added to the layer's losses."""
    from gradcli.tfcode.keras.regularizers import penalty
    from gradcli.tfcode.support import _flatten
    from gradcli.tfcode.values import Tensor, Variable

    reg = obj.data.get("activity_regularizer")
    if reg is None or it.quiet or state(it).symbolic:
        return
    for out in _flatten([outputs]):
        if not isinstance(out, (Tensor, Variable)):
            continue
        loss = penalty(it, reg, out, node)
        dims = shape(it, out)
        if dims:
            dtype = it.g[it.tensor_id(loss, read=False)].dtype
            batch = it.op_call("cast", [dims[0]], {"dtype": dtype}, node)
            loss = it.op_call("div_no_nan", [loss, batch], {}, node)
        obj.data.setdefault("activity_losses", []).append(loss)


def activity_losses(obj: Instance) -> list:
    """The activity penalties in layer.losses: own, then sub-layers' in Keras's
    _flatten_layers order (a deque: each layer's children pushed to the front reversed)."""
    out = list(obj.data.get("activity_losses", []))
    queue, seen = list(sublayers(obj)), set()
    while queue:
        layer = queue.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        out.extend(layer.data.get("activity_losses", []))
        queue[:0] = list(reversed(sublayers(layer)))
    return out


# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    f"layers.{c.name}": c
    for c in (GAUSSIAN_NOISE, GAUSSIAN_DROPOUT, SPATIAL_DROPOUT1D, SPATIAL_DROPOUT2D,
              ALPHA_DROPOUT, ACTIVITY_REGULARIZATION)
}  # fmt: skip

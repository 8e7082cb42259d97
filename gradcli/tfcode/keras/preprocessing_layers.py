"""Keras's preprocessing layers the reader reads: Rescaling, Normalization with given
statistics, CenterCrop.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- Rescaling(scale, offset=0.0) is cast(x, float32) * scale + offset (integer images too).
- Normalization(axis=-1, mean=, variance=, invert=False) with given statistics is
  (x - mean) / maximum(sqrt(variance), 1e-7), the statistics as float32 constants broadcast
  over the kept axes (no weights); invert=True gives mean + x * maximum(sqrt(variance),
  1e-7). adapt() (statistics computed from data) is not read.
- CenterCrop(height, width) casts to float32 and slices the centred window (start
  (size - crop) // 2 on each axis); a crop larger than the image makes Keras resize it
  (smart_resize), which is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import bind, shape, tensor_arg
from gradcli.tfcode.keras.layers import LAYER
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.shape_layers import _int
from gradcli.tfcode.support import _describe

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

EPSILON = 1e-7  # keras.backend.epsilon()


# --- Rescaling, Normalization ------------------------------------------------------------------
def _rescaling_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Rescaling(scale, offset=0.0)."""
    b = bind(it, obj, args, kwargs, node, ("scale", "offset"), {"offset": 0.0})
    if "scale" not in b:
        raise GradcliError(
            "TypeError: Rescaling.__init__() missing 1 required positional argument: 'scale'",
            it.pos(node),
        )
    obj.data.update(scale=b["scale"], offset=b["offset"], non_tensor_args=True)
    return None


def _constant(it: Interpreter, value, dtype: str, node):
    """A Python number or list (or a tensor's value) as a dtype constant."""
    return it.leaf(np.asarray(it.as_array(value, node), dtype=dtype), node)


def _rescaling_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """cast(x, compute dtype) * scale + offset."""
    x = tensor_arg(it, obj, args, kwargs, node)
    dtype = obj.data.get("dtype", "float32")
    if it.g[it.tensor_id(x, read=False)].dtype != dtype:
        x = it.op_call("cast", [x], {"dtype": dtype}, node)
    scale = _constant(it, obj.data["scale"], dtype, node)
    offset = _constant(it, obj.data["offset"], dtype, node)
    return it.op_call("add", [it.op_call("mul", [x, scale], {}, node), offset], {}, node)


NORMALIZATION_NAMES = ("axis", "mean", "variance", "invert")


def _normalization_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Normalization(axis=-1, mean=None, variance=None, invert=False)."""
    b = bind(it, obj, args, kwargs, node, NORMALIZATION_NAMES, {"axis": -1, "invert": False})
    axis = b["axis"]
    axis = () if axis is None else ((axis,) if _int(axis) else tuple(axis))
    if not all(map(_int, axis)):
        it.refuse(node, f"Normalization(axis={_describe(b['axis'])})", "give ints")
    mean, variance = b.get("mean"), b.get("variance")
    if (mean is None) != (variance is None):
        raise GradcliError(
            "ValueError: When setting values directly, both `mean` and `variance` must be "
            f"set. Received: mean={mean!r} and variance={variance!r}",
            it.pos(node),
        )
    if mean is None:
        it.refuse(node, "Normalization without mean= and variance=",
                  "adapt() (statistics computed from data) is not read: give the statistics "
                  "as mean= and variance=")  # fmt: skip
    mean_arr, var_arr = it.as_array(mean, node), it.as_array(variance, node)
    if mean_arr.shape != var_arr.shape:
        raise GradcliError(
            "ValueError: When setting values directly, `mean` and `variance` must have the "
            f"same shape. Received: mean shape {mean_arr.shape} and variance shape "
            f"{var_arr.shape}",
            it.pos(node),
        )
    if mean_arr.ndim > len(axis):
        raise GradcliError(
            f"ValueError: The rank of `mean` must be less than or equal to the number of axes "
            f"({len(axis)}). Received: mean shape {mean_arr.shape} for axis {axis}",
            it.pos(node),
        )
    obj.data.update(axis=axis, mean=mean_arr, variance=var_arr, invert=bool(b["invert"]),
                    non_tensor_args=True)  # fmt: skip
    return None


def _normalization_adapt(it: Interpreter, obj: Instance, args, kwargs, node):
    it.refuse(node, "Normalization.adapt(...)",
              "statistics computed from data are not read: give mean= and variance=")  # fmt: skip


def _normalization_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """(x - mean) / maximum(sqrt(variance), 1e-7) (or its inverse)."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = shape(it, x)
    ndim = len(xs)
    if any(a < -ndim or a >= ndim for a in d["axis"]):
        raise GradcliError(
            "ValueError: All `axis` values must be in the range [-ndim, ndim). Received "
            f"inputs with ndim={ndim}, while axis={d['axis']}",
            it.pos(node),
        )
    keep = sorted(a % ndim for a in d["axis"])
    target = [xs[a] if a in keep else 1 for a in range(ndim)]
    dtype = d.get("dtype", "float32")
    stats = []
    for arr in (d["mean"], d["variance"]):
        expanded = [1] * ndim
        for i in range(1, arr.ndim + 1):  # aligned with the kept axes from the right
            expanded[keep[-i]] = arr.shape[-i]
        stats.append(np.broadcast_to(arr.reshape(expanded), target).astype(dtype))
    mean, variance = (it.leaf(np.array(s), node) for s in stats)
    if it.g[it.tensor_id(x, read=False)].dtype != dtype:
        x = it.op_call("cast", [x], {"dtype": dtype}, node)
    scale = it.op_call("maximum", [it.op_call("sqrt", [variance], {}, node), EPSILON], {}, node)
    if d["invert"]:
        return it.op_call("add", [mean, it.op_call("mul", [x, scale], {}, node)], {}, node)
    return it.op_call("div", [it.op_call("sub", [x, mean], {}, node), scale], {}, node)


def _center_crop_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """CenterCrop(height, width, data_format=None)."""
    from gradcli.tfcode.keras.shape_layers import data_format

    b = bind(it, obj, args, kwargs, node, ("height", "width", "data_format"), {})
    for k in ("height", "width"):
        if not _int(b.get(k)) or b[k] <= 0:
            it.refuse(node, f"CenterCrop({k}={_describe(b.get(k))})", "give a positive int")
    obj.data.update(height=b["height"], width=b["width"], non_tensor_args=True,
                    data_format=data_format(it, b.get("data_format"), node))  # fmt: skip
    return None


def _center_crop_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """cast(x, float32), then the centred height x width window (start (size - crop) // 2);
    an image smaller than the crop is resized by Keras (smart_resize): refused."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    dtype = d.get("dtype", "float32")
    if it.g[it.tensor_id(x, read=False)].dtype != dtype:
        x = it.op_call("cast", [x], {"dtype": dtype}, node)
    xs = shape(it, x)
    if len(xs) not in (3, 4):
        it.refuse(node, f"a CenterCrop on a rank-{len(xs)} input")
    first = d["data_format"] == "channels_first"
    h_axis = len(xs) - (2 if first else 3)
    index = [slice(None)] * len(xs)
    for axis, size in ((h_axis, d["height"]), (h_axis + 1, d["width"])):
        if xs[axis] < size:
            it.refuse(node, "a CenterCrop larger than its image",
                      "Keras resizes such images (smart_resize), which is not read")  # fmt: skip
        start = (xs[axis] - size) // 2
        index[axis] = slice(start, start + size)
    return it.subscript(node, x, tuple(index))


CENTER_CROP = Class(
    "CenterCrop",
    (LAYER,),
    {"__init__": Builtin(_center_crop_init), "call": Builtin(_center_crop_call)},
)
RESCALING = Class(
    "Rescaling", (LAYER,), {"__init__": Builtin(_rescaling_init), "call": Builtin(_rescaling_call)}
)
NORMALIZATION = Class(
    "Normalization",
    (LAYER,),
    {
        "__init__": Builtin(_normalization_init),
        "call": Builtin(_normalization_call),
        "adapt": Builtin(_normalization_adapt),
    },
)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {"layers.Rescaling": RESCALING, "layers.Normalization": NORMALIZATION,
           "layers.CenterCrop": CENTER_CROP}  # fmt: skip

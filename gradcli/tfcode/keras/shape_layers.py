"""Keras's reshaping layers for the reader: Permute, RepeatVector, UpSampling1D/2D,
ZeroPadding1D/2D, Cropping1D/2D, Identity, InputLayer (preprocessing_layers.py has
Rescaling and Normalization).

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- Permute(dims) is transpose(x, (0, *dims)) (dims a permutation of 1..rank-1, else
  Keras's ValueError); RepeatVector(n) reshapes (batch, d) to (batch, 1, d) and tf.repeat's
  n along axis 1.
- UpSampling1D(size=2) repeats along the steps; UpSampling2D(size=(2, 2), data_format,
  interpolation='nearest') repeats rows then columns (channels_first: transposed to
  channels_last and back); 'bilinear' is tf.image.resize's half-pixel bilinear
  interpolation (read as one interpolation matrix per axis; its gradient, ResizeBilinearGrad,
  is NotDifferentiable in TensorFlow, so no second derivative passes through it); the other
  interpolations are refused.
- ZeroPadding1D/2D are tf.pad with zeros on the steps (rows, columns) axes; Cropping1D/2D
  slice them (Keras's ValueError when the cropping is not smaller than the axis).
- Identity returns its input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import bind, shape, tensor_arg
from gradcli.tfcode.keras.functional import INPUT_LAYER
from gradcli.tfcode.keras.layers import LAYER
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Tensor

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def standard_tuple(it: Interpreter, value, n: int, name: str, node, allow_zero=False) -> tuple:
    """keras's standardize_tuple: an int or n ints, positive (non-negative with allow_zero)."""
    if _int(value):
        out = (value,) * n
    elif isinstance(value, (list, tuple)) and len(value) == n and all(map(_int, value)):
        out = tuple(value)
    else:
        raise GradcliError(
            f"ValueError: The `{name}` argument must be a tuple of {n} integers. "
            f"Received {name}={value!r}",
            it.pos(node),
        )
    bad = [v for v in out if v < 0 or (v == 0 and not allow_zero)]
    if bad:
        req = ">= 0" if allow_zero else "> 0"
        raise GradcliError(
            f"ValueError: The `{name}` argument must be a tuple of {n} integers. "
            f"Received {name}={value!r}, including values {set(bad)} that do not "
            f"satisfy `value {req}`",
            it.pos(node),
        )
    return out


def data_format(it: Interpreter, value, node) -> str:
    """keras's standardize_data_format (None is channels_last, Keras's default)."""
    if value is None:
        return "channels_last"
    if value not in ("channels_last", "channels_first"):
        it.refuse(node, f"data_format={value!r}", UNRECORDED)
    return value


def _rank_check(it: Interpreter, obj: Instance, x, rank: int, node) -> tuple:
    xs = shape(it, x)
    if len(xs) != rank:
        raise GradcliError(
            f"ValueError: Input 0 with name 'None' of layer '{obj.layer.name}' is incompatible "
            "with the layer: "
            f"expected ndim={rank}, found ndim={len(xs)}. Full shape received: {xs}",
            it.pos(node),
        )
    return xs


# --- Permute, RepeatVector, Identity ------------------------------------------------------------
def _permute_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Permute(dims)."""
    b = bind(it, obj, args, kwargs, node, ("dims",), {})
    dims = b.get("dims")
    if not isinstance(dims, (list, tuple)) or not all(map(_int, dims)):
        it.refuse(node, f"Permute(dims={_describe(dims)})", "give a tuple of ints")
    if sorted(dims) != list(range(1, len(dims) + 1)):
        raise GradcliError(
            "ValueError: Invalid permutation argument `dims` for Permute Layer. The set of "
            "indices in `dims` must be consecutive and start from 1. "
            f"Received dims={dims!r}",
            it.pos(node),
        )
    obj.data["dims"] = tuple(dims)
    return None


def _permute_call(it: Interpreter, obj: Instance, args, kwargs, node):
    x = tensor_arg(it, obj, args, kwargs, node)
    _rank_check(it, obj, x, len(obj.data["dims"]) + 1, node)
    return it.op_call("transpose", [x], {"axes": [0, *obj.data["dims"]]}, node)


def _repeat_vector_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """RepeatVector(n)."""
    b = bind(it, obj, args, kwargs, node, ("n",), {})
    n = b.get("n")
    if not _int(n):
        raise GradcliError(
            f"TypeError: Expected an integer value for `n`, got {type(n)}.", it.pos(node)
        )
    if n <= 0:
        raise GradcliError(
            f"ValueError: Argument `n` should be a positive integer. Received: n={n}",
            it.pos(node),
        )
    obj.data["n"] = n
    return None


def _repeat_vector_call(it: Interpreter, obj: Instance, args, kwargs, node):
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = _rank_check(it, obj, x, 2, node)
    x = it.op_call("reshape", [x], {"shape": [xs[0], 1, xs[1]]}, node)
    return it.op_call("repeat", [x], {"repeats": obj.data["n"], "axis": 1}, node)


def _identity_init(it: Interpreter, obj: Instance, args, kwargs, node):
    bind(it, obj, args, kwargs, node, (), {})
    return None


def _identity_call(it: Interpreter, obj: Instance, args, kwargs, node):
    return args[0] if args else kwargs.get("inputs")


# --- UpSampling --------------------------------------------------------------------------------
def _upsampling1d_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """UpSampling1D(size=2)."""
    b = bind(it, obj, args, kwargs, node, ("size",), {"size": 2})
    size = b["size"]
    if not _int(size):
        raise GradcliError(
            f"TypeError: Expected an integer value for `size`, got {type(size)}.", it.pos(node)
        )
    if size <= 0:
        raise GradcliError(
            f"ValueError: Argument `size` should be a positive integer. Received: size={size}",
            it.pos(node),
        )
    obj.data.update(size=(size,), rank=1, data_format="channels_last")
    return None


def _upsampling2d_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """UpSampling2D(size=(2, 2), data_format=None, interpolation='nearest')."""
    names = ("size", "data_format", "interpolation")
    b = bind(it, obj, args, kwargs, node, names, {"size": (2, 2), "interpolation": "nearest"})
    interpolation = b["interpolation"]
    if not isinstance(interpolation, str) or interpolation.lower() not in INTERPOLATIONS:
        it.refuse(node, f"UpSampling2D(interpolation={interpolation!r})",
                  "gradcli reads 'nearest' and 'bilinear'")  # fmt: skip
    obj.data.update(
        interpolation=interpolation.lower(),
        size=standard_tuple(it, b["size"], 2, "size", node),
        rank=2,
        data_format=data_format(it, b.get("data_format"), node),
    )
    return None


def _upsampling_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Nearest neighbour: tf.repeat along each spatial axis (channels_last)."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    _rank_check(it, obj, x, d["rank"] + 2, node)
    first = d["data_format"] == "channels_first"
    if d["rank"] == 3:  # UpSampling3D repeats in place (channels_first: axes 2, 3, 4)
        for k, size in enumerate(d["size"]):
            x = it.op_call("repeat", [x], {"repeats": size, "axis": k + (2 if first else 1)},
                           node)  # fmt: skip
        return x
    if first:
        x = it.op_call("transpose", [x], {"axes": [0, 2, 3, 1]}, node)
    if d.get("interpolation") == "bilinear":
        x = _bilinear(it, x, d["size"], node)
    else:
        for k, size in enumerate(d["size"]):
            x = it.op_call("repeat", [x], {"repeats": size, "axis": k + 1}, node)
    if first:
        x = it.op_call("transpose", [x], {"axes": [0, 3, 1, 2]}, node)
    return x


INTERPOLATIONS = ("nearest", "bilinear")


def _bilinear_weights(n_in: int, n_out: int) -> np.ndarray:
    """TensorFlow's ResizeBilinear with half-pixel centres along one axis, as an (out, in)
    matrix: source position (i + 0.5) * in / out - 0.5 (float32), its floor and ceiling
    clamped to the axis, weighted by the fraction above the floor."""
    scale = np.float32(n_in) / np.float32(n_out)
    w = np.zeros((n_out, n_in), dtype=np.float32)
    for i in range(n_out):
        src = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        lower, frac = int(np.floor(src)), src - np.floor(src)
        w[i, min(max(lower, 0), n_in - 1)] += np.float32(1) - frac
        w[i, min(int(np.ceil(src)), n_in - 1)] += frac
    return w


def _bilinear(it: Interpreter, x, size: tuple, node):
    """tf.image.resize(x, (h * size[0], w * size[1]), 'bilinear') (channels_last): each
    spatial axis through its interpolation matrix (a constant). TensorFlow's gradient is
    ResizeBilinearGrad, the transposed map, which is NotDifferentiable: a custom node whose
    gradient is that map behind no_gradient, so a second derivative through it is cut
    (non_differentiable, as the run mode reads TensorFlow's NotDifferentiable)."""
    from gradcli.core.graph import CUSTOM_OP, CUSTOM_PARAMS
    from gradcli.tfcode.custom import CustomFunction, _function_key, _record

    _, h, w, _ = shape(it, x)
    dtype = it.g[it.tensor_id(x, read=False)].dtype
    rows = _bilinear_weights(h, h * size[0]).astype(dtype)
    cols = _bilinear_weights(w, w * size[1]).astype(dtype)
    y = it.op_call("einsum", [it.leaf(rows, node), x], {"equation": "ah,nhwc->nawc"}, node)
    y = it.op_call("einsum", [it.leaf(cols, node), y], {"equation": "bw,nawc->nabc"}, node)
    param = it.tensor_id(x)
    fn = CustomFunction(["images"], ["ResizeBilinearGrad"])
    key = _function_key(it, "resize_bilinear", fn, node)
    attrs = {"function": key, "grad": _resize_grad(rows, cols), CUSTOM_PARAMS: 1}
    out = it.emit(CUSTOM_OP, [param, it.tensor_id(y)], attrs, node, record=False)
    _record(it, out, [param])
    return Tensor(out)


def _resize_grad(rows: np.ndarray, cols: np.ndarray):
    """ResizeBilinearGrad as the custom node's rule: dy through both matrices transposed,
    then no_gradient (TensorFlow registers no gradient for it)."""

    def rule(b, node, g: int, i: int):
        if i != 0:
            return None
        m_rows, m_cols = b.const(rows, like=g), b.const(cols, like=g)
        t = b.emit("einsum", m_cols, g, equation="bw,nabc->nawc")
        t = b.emit("einsum", m_rows, t, equation="ah,nawc->nhwc")
        return b.emit("no_gradient", t)

    return rule


# --- ZeroPadding, Cropping ---------------------------------------------------------------------
ORDINALS = ("1st", "2nd", "3rd")


def _pairs(it: Interpreter, value, what: str, node, n: int = 2) -> tuple:
    """An int, n ints (symmetric per axis) or n pairs (2D/3D padding and cropping)."""
    if _int(value):
        if value < 0:
            raise GradcliError(f"ValueError: `{what}` cannot be negative. Received: "
                               f"{what}={value}.", it.pos(node))  # fmt: skip
        return ((value, value),) * n
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            count = "two" if n == 2 else n
            shown = f"{what}={value!r}" if n == 2 else repr(value)  # Keras's 3D text differs
            raise GradcliError(
                f"ValueError: `{what}` should have {count} elements. Received: {shown}.",
                it.pos(node),
            )
        return tuple(
            standard_tuple(it, v, 2, f"{k} entry of {what}", node, allow_zero=True)
            for k, v in zip(ORDINALS, value)
        )
    it.refuse(node, f"{what}={value!r}", UNRECORDED)


def _zero_padding_init(rank: int):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """ZeroPadding1D(padding=1, data_format=None), ZeroPadding2D(padding=(1, 1), ...)."""
        default = {1: 1, 2: (1, 1), 3: ((1, 1),) * 3}[rank]
        b = bind(it, obj, args, kwargs, node, ("padding", "data_format"), {"padding": default})
        if rank == 1:
            pads = (standard_tuple(it, b["padding"], 2, "padding", node, allow_zero=True),)
        else:
            pads = _pairs(it, b["padding"], "padding", node, rank)
        obj.data.update(rank=rank, pads=pads, data_format=data_format(it, b.get("data_format"),
                                                                      node))  # fmt: skip
        return None

    return init


def _zero_padding_call(it: Interpreter, obj: Instance, args, kwargs, node):
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    _rank_check(it, obj, x, d["rank"] + 2, node)
    spatial = [list(p) for p in d["pads"]]
    if d["data_format"] == "channels_first":
        paddings = [[0, 0], [0, 0], *spatial]
    else:
        paddings = [[0, 0], *spatial, [0, 0]]
    return it.op_call("pad", [x], {"paddings": paddings}, node)


def _cropping_init(rank: int):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """Cropping1D(cropping=(1, 1)), Cropping2D(cropping=((0, 0), (0, 0)), data_format)."""
        if rank == 1:
            b = bind(it, obj, args, kwargs, node, ("cropping",), {"cropping": (1, 1)})
            crops = (standard_tuple(it, b["cropping"], 2, "cropping", node, allow_zero=True),)
            fmt = "channels_last"
        else:
            default = ((0, 0), (0, 0)) if rank == 2 else ((1, 1),) * 3
            b = bind(it, obj, args, kwargs, node, ("cropping", "data_format"),
                     {"cropping": default})  # fmt: skip
            crops = _pairs(it, b["cropping"], "cropping", node, rank)
            fmt = data_format(it, b.get("data_format"), node)
        obj.data.update(rank=rank, crops=crops, data_format=fmt)
        return None

    return init


def _cropping_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """x[:, a:-b, ...] on each spatial axis (a:None when b is 0)."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = _rank_check(it, obj, x, d["rank"] + 2, node)
    first = d["data_format"] == "channels_first"
    axes = [k + (2 if first else 1) for k in range(d["rank"])]
    for axis, (a, b) in zip(axes, d["crops"]):
        if a + b >= xs[axis]:
            what = (
                "`cropping` parameter of `Cropping1D` layer must be smaller than the input length"
                if d["rank"] == 1
                else "Values in `cropping` argument should be smaller than the corresponding "
                "spatial dimension of the input"
            )
            raise Raises(  # raised inside call(): Keras wraps it
                "ValueError",
                f"Exception encountered when calling {obj.cls.name}.call().",
                it.pos(node),
                f"{what}. Received: inputs.shape={xs}, cropping={d['crops']}",
            )
    index = [slice(None)] * len(xs)
    for axis, (a, b) in zip(axes, d["crops"]):
        index[axis] = slice(a, -b if b else None)
    return it.subscript(node, x, tuple(index))


def _class(name: str, init, call, extra: dict | None = None) -> Class:
    return Class(name, (LAYER,), {"__init__": Builtin(init), "call": Builtin(call),
                                  **(extra or {})})  # fmt: skip


PERMUTE = _class("Permute", _permute_init, _permute_call)
REPEAT_VECTOR = _class("RepeatVector", _repeat_vector_init, _repeat_vector_call)
IDENTITY = _class("Identity", _identity_init, _identity_call)
UPSAMPLING1D = _class("UpSampling1D", _upsampling1d_init, _upsampling_call)
UPSAMPLING2D = _class("UpSampling2D", _upsampling2d_init, _upsampling_call)
ZERO_PADDING1D = _class("ZeroPadding1D", _zero_padding_init(1), _zero_padding_call)
ZERO_PADDING2D = _class("ZeroPadding2D", _zero_padding_init(2), _zero_padding_call)
CROPPING1D = _class("Cropping1D", _cropping_init(1), _cropping_call)
CROPPING2D = _class("Cropping2D", _cropping_init(2), _cropping_call)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    f"layers.{c.name}": c
    for c in (PERMUTE, REPEAT_VECTOR, IDENTITY, UPSAMPLING1D, UPSAMPLING2D, ZERO_PADDING1D,
              ZERO_PADDING2D, CROPPING1D, CROPPING2D, INPUT_LAYER)
}  # fmt: skip

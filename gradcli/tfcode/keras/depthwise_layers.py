"""Keras's depthwise and separable convolutions for the reader: DepthwiseConv1D/2D and
SeparableConv1D/2D.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- DepthwiseConv(kernel_size, strides=1, padding='valid', depth_multiplier=1, ...) makes
  `kernel` (*kernel_size, in_channels, depth_multiplier) then `bias` (in_channels *
  depth_multiplier,); the call is tf.nn.depthwise_conv2d (the 1D layers on a unit row axis:
  input expanded at axis 1, kernel at axis 0, the output squeezed), + the reshaped bias, then
  the activation.
- SeparableConv(filters, kernel_size, ...) makes `depthwise_kernel` (*kernel_size, in,
  depth_multiplier), `pointwise_kernel` (1, ..., in * depth_multiplier, filters), then
  `bias` (filters,); the call is tf.nn.separable_conv2d: the depthwise convolution, then a
  1x1 "VALID" tf.nn.conv2d with the pointwise kernel.
- channels_first: TensorFlow's CPU kernels are channels_last only, so Keras transposes the
  input to channels_last and the result back; the bias is added in channels_first.
- strides and dilation_rate both above 1: Keras 3.15 decomposes the convolution (dilated at
  stride 1, then subsampled); the reader refuses that combination.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras import initializers
from gradcli.tfcode.keras.conv_layers import (
    _data_format,
    _padding,
    bind,
    shape,
    tensor_arg,
    transpose_first,
    transpose_last,
    tuple_arg,
)
from gradcli.tfcode.keras.layers import LAYER, make_weight
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.regularizers import regularizer, set_regularizer

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

COMMON = ("strides", "padding", "depth_multiplier", "data_format", "dilation_rate", "activation",
          "use_bias", "depthwise_initializer")  # fmt: skip
DEPTHWISE_NAMES = ("kernel_size", *COMMON, "bias_initializer", "depthwise_regularizer",
                   "bias_regularizer", "activity_regularizer", "depthwise_constraint",
                   "bias_constraint")  # fmt: skip
SEPARABLE_NAMES = ("filters", "kernel_size", "strides", "padding", "data_format",
                   "dilation_rate", "depth_multiplier", "activation", "use_bias",
                   "depthwise_initializer", "pointwise_initializer", "bias_initializer",
                   "depthwise_regularizer", "pointwise_regularizer", "bias_regularizer",
                   "activity_regularizer", "depthwise_constraint", "pointwise_constraint",
                   "bias_constraint")  # fmt: skip


INIT_DEFAULTS = (("depthwise", "glorot_uniform"), ("pointwise", "glorot_uniform"),
                 ("bias", "zeros"))  # fmt: skip


def _init(rank: int, separable: bool):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """DepthwiseConvND(kernel_size, ...), SeparableConvND(filters, kernel_size, ...)."""
        from gradcli.tfcode.keras.library import activation

        names = SEPARABLE_NAMES if separable else DEPTHWISE_NAMES
        b = bind(it, obj, args, kwargs, node, names, {"strides": 1, "padding": "valid",
                                                       "depth_multiplier": 1, "dilation_rate": 1,
                                                       "use_bias": True})  # fmt: skip
        for k in ("depthwise_constraint", "pointwise_constraint", "bias_constraint"):
            if b.get(k) is not None:
                it.refuse(node, f"{obj.cls.name}(..., {k}=...)")
        if b.get("activity_regularizer") is not None:  # Layer's (noise_layers.py)
            obj.data["activity_regularizer"] = regularizer(it, b["activity_regularizer"], node)
        multiplier = b["depth_multiplier"]
        if not isinstance(multiplier, int) or isinstance(multiplier, bool) or multiplier <= 0:
            raise GradcliError(
                "ValueError: Invalid value for argument `depth_multiplier`. Expected a strictly "
                f"positive value. Received depth_multiplier={multiplier}.",
                it.pos(node),
            )
        filters = b.get("filters")
        if separable and (not isinstance(filters, int) or filters <= 0):
            raise GradcliError(
                "ValueError: Invalid value for argument `filters`. Expected a strictly positive "
                f"value. Received filters={filters}.",
                it.pos(node),
            )
        d = obj.data
        d.update(
            rank=rank,
            separable=separable,
            filters=filters,
            multiplier=multiplier,
            kernel_size=tuple_arg(it, b.get("kernel_size"), rank, "kernel_size", node),
            strides=tuple_arg(it, b["strides"], rank, "strides", node),
            dilation_rate=tuple_arg(it, b["dilation_rate"], rank, "dilation_rate", node),
            padding=_padding(it, b["padding"], node),
            data_format=_data_format(it, b.get("data_format"), node),
            activation=activation(it, b.get("activation"), node, obj),
            use_bias=bool(b["use_bias"]),
            inits={
                k: initializers.get(it, b.get(f"{k}_initializer"), node, default)
                for k, default in INIT_DEFAULTS
            },
            regs={k: regularizer(it, b.get(f"{k}_regularizer"), node) for k, _ in INIT_DEFAULTS},
        )
        if max(d["strides"]) > 1 and max(d["dilation_rate"]) > 1:
            it.refuse(node, f"{obj.cls.name} with both strides and dilation_rate above 1")
        obj.attrs["bias"] = None
        return None

    return init


def _build(it: Interpreter, obj: Instance, args, kwargs, node):
    d = obj.data
    input_shape = args[0] if args else kwargs.get("input_shape")
    if not isinstance(input_shape, (list, tuple)) or len(input_shape) != d["rank"] + 2:
        it.refuse(node, f"{obj.cls.name}.build of a rank-{len(input_shape or ())} shape")
    channels = input_shape[1 if d["data_format"] == "channels_first" else -1]
    if not isinstance(channels, int):
        it.refuse(node, f"a {obj.cls.name} input without a known channel count")
    dtype = d.get("dtype", "float32")
    depthwise = (*d["kernel_size"], channels, d["multiplier"])
    made = [("depthwise_kernel" if d["separable"] else "kernel", depthwise, "depthwise")]
    if d["separable"]:
        pointwise = (*(1,) * d["rank"], channels * d["multiplier"], d["filters"])
        made.append(("pointwise_kernel", pointwise, "pointwise"))
    if d["use_bias"]:
        width = d["filters"] if d["separable"] else channels * d["multiplier"]
        made.append(("bias", (width,), "bias"))
    for name, weight_shape, kind in made:
        var = make_weight(it, obj, name, weight_shape, dtype, d["inits"][kind], True, node)
        set_regularizer(var, d["regs"][kind])
        obj.attrs[name] = var
    d["width"] = made[-1][1][0] if d["use_bias"] else None
    obj.layer.built = True
    return None


def _call(it: Interpreter, obj: Instance, args, kwargs, node):
    """tf.nn.depthwise_conv2d (then the 1x1 pointwise conv2d), bias, activation."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    if len(shape(it, x)) != d["rank"] + 2:
        it.refuse(node, f"a {obj.cls.name} on a rank-{len(shape(it, x))} input")
    first = d["data_format"] == "channels_first"
    if first:
        x = transpose_last(it, x, node)
    depthwise = obj.attrs["depthwise_kernel" if d["separable"] else "kernel"]
    pointwise = obj.attrs.get("pointwise_kernel")
    strides, dilations = list(d["strides"]), list(d["dilation_rate"])
    if d["rank"] == 1:  # a unit row axis
        x = it.op_call("expand_dims", [x], {"axis": 1}, node)
        depthwise = it.op_call("expand_dims", [depthwise], {"axis": 0}, node)
        if pointwise is not None:
            pointwise = it.op_call("expand_dims", [pointwise], {"axis": 0}, node)
        strides, dilations = strides * 2, [1, *dilations]
    attrs = {"strides": [1, *strides, 1], "padding": d["padding"].upper(), "dilations": dilations}
    y = it.call_api("tf.nn.depthwise_conv2d", [x, depthwise], attrs, node, None)
    if pointwise is not None:
        unit = {"strides": [1, 1, 1, 1], "padding": "VALID"}
        y = it.call_api("tf.nn.conv2d", [y, pointwise], unit, node, None)
    if d["rank"] == 1:
        y = it.op_call("squeeze", [y], {"axis": [1]}, node)
    if first:
        y = transpose_first(it, y, node)
    bias = obj.attrs.get("bias")
    if bias is not None:
        target = [1] * (d["rank"] + 2)
        target[1 if first else -1] = d["width"]
        y = it.op_call("add", [y, it.op_call("reshape", [bias], {"shape": target}, node)], {},
                       node)  # fmt: skip
    act = d["activation"]
    return act(it, y, node) if act is not None else y


def _class(name: str, rank: int, separable: bool) -> Class:
    return Class(
        name,
        (LAYER,),
        {
            "__init__": Builtin(_init(rank, separable)),
            "build": Builtin(_build),
            "call": Builtin(_call),
        },
    )


DEPTHWISE_CONV1D = _class("DepthwiseConv1D", 1, False)
DEPTHWISE_CONV2D = _class("DepthwiseConv2D", 2, False)
SEPARABLE_CONV1D = _class("SeparableConv1D", 1, True)
SEPARABLE_CONV2D = _class("SeparableConv2D", 2, True)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    f"layers.{c.name}": c
    for c in (DEPTHWISE_CONV1D, DEPTHWISE_CONV2D, SEPARABLE_CONV1D, SEPARABLE_CONV2D)
}
CLASSES.update({"layers.SeparableConvolution1D": SEPARABLE_CONV1D,
                "layers.SeparableConvolution2D": SEPARABLE_CONV2D})  # fmt: skip

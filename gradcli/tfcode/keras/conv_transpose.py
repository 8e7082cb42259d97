"""Keras's transposed convolutions for the reader: Conv2DTranspose's call and
Conv1DTranspose, with output_padding (conv_layers.py has the layers' construction).

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- The output length per spatial axis (keras's compute_conv_transpose_output_shape), with
  k = (kernel - 1) * dilation + 1: "valid" gives (size - 1) * stride + k + output_padding
  (output_padding None: max(k, stride) - k); "same" gives size * stride (output_padding None)
  or (size - 1) * stride + k % 2 + output_padding. output_padding must be below the
  stride on every axis (Keras's ValueError).
- The call is tf.nn.conv_transpose with that output shape; Conv1DTranspose is TensorFlow's
  conv1d_transpose: a conv2d_transpose on a unit row axis (input expanded at axis 1, kernel
  at axis 0, strides and dilations (1, s), (1, d)), squeezed back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import _conv_class, shape, tuple_arg
from gradcli.tfcode.keras.objects import Instance

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def output_padding(it: Interpreter, obj: Instance, value, node) -> tuple | None:
    """output_padding=: None, an int or rank ints, each below its stride."""
    if value is None:
        return None
    d = obj.data
    pads = tuple_arg(it, value, d["rank"], "output_padding", node)
    for i, (op, s) in enumerate(zip(pads, d["strides"])):
        if op >= s:
            raise GradcliError(
                "ValueError: `output_padding` must be strictly less than `strides` for all "
                f"dimensions. At dimension {i}, `output_padding` is {op} but `strides` is "
                f"{s}. Received: output_padding={pads}, strides={d['strides']}",
                it.pos(node),
            )
    return pads


def length(size: int, kernel: int, stride: int, padding: str, dilation: int, extra) -> int:
    """Keras's output length of a transposed convolution along one axis."""
    k = (kernel - 1) * dilation + 1
    if padding == "valid":
        return (size - 1) * stride + k + (max(k, stride) - k if extra is None else extra)
    return size * stride if extra is None else (size - 1) * stride + k % 2 + extra


def transpose_call(it: Interpreter, obj: Instance, x, node):
    """tf.nn.conv_transpose(x, kernel, output_shape, strides, padding, dilations)."""
    d = obj.data
    xs = shape(it, x)
    pads = d.get("output_padding") or (None,) * d["rank"]
    out = [
        length(xs[1 + k], d["kernel_size"][k], d["strides"][k], d["padding"],
               d["dilation_rate"][k], pads[k])
        for k in range(d["rank"])
    ]  # fmt: skip
    kernel = obj.attrs["kernel"]
    strides, dilations = list(d["strides"]), list(d["dilation_rate"])
    if d["rank"] == 1:  # conv1d_transpose: a unit row axis
        x = it.op_call("expand_dims", [x], {"axis": 1}, node)
        kernel = it.op_call("expand_dims", [kernel], {"axis": 0}, node)
        out, strides, dilations = [1, *out], [1, *strides], [1, *dilations]
    attrs = {"output_shape": [xs[0], *out, d["filters"]], "strides": strides,
             "padding": d["padding"].upper(), "dilations": dilations}  # fmt: skip
    y = it.call_api("tf.nn.conv2d_transpose", [x, kernel], attrs, node, None)
    if d["rank"] == 1:
        y = it.op_call("squeeze", [y], {"axis": [1]}, node)
    return y


CONV1D_TRANSPOSE = _conv_class("Conv1DTranspose", 1, transpose=True)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {"layers.Conv1DTranspose": CONV1D_TRANSPOSE,
           "layers.Convolution1DTranspose": CONV1D_TRANSPOSE}  # fmt: skip

"""Keras's 3D layers for the reader: Conv3D, MaxPooling3D, AveragePooling3D,
GlobalAverage/MaxPooling3D, UpSampling3D, ZeroPadding3D, Cropping3D, SpatialDropout3D,
built from the same code as their 1D/2D forms.

Keras 3.15.1 on TensorFlow 2.21 (verified in /work/tfref):
- Conv3D: kernel (*kernel_size, in, filters), `tf.nn.conv3d` (5 strides and dilations);
  channels_first runs through XLA in Keras (TensorFlow's CPU kernel is NDHWC only): the
  reader transposes to channels_last and back (the same sums). groups above 1 is refused.
- MaxPooling3D(pool_size=(2, 2, 2)), AveragePooling3D(pool_size) (no default): `max_pool3d`
  /`avg_pool3d`; the global pools reduce axes 1..3 (channels_first 2..4).
- UpSampling3D(size=(2, 2, 2)) repeats along the three spatial axes in place;
  ZeroPadding3D(padding=((1, 1),) * 3) and Cropping3D(cropping=((1, 1),) * 3) pad and slice
  them; SpatialDropout3D(rate) drops whole channels (noise shape (batch, 1, 1, 1, channels)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.keras import noise_layers, shape_layers
from gradcli.tfcode.keras.conv_layers import (
    _conv_class,
    _global_class,
    _pool_class,
    bind,
    tensor_arg,
)
from gradcli.tfcode.keras.layers import LAYER
from gradcli.tfcode.keras.objects import Builtin, Class, Instance

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _conv3d_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Conv3D(filters, kernel_size, ...) as Conv2D's, groups=1 only."""
    init, _ = CONV2D_INIT
    init.fn(it, obj, args, kwargs, node)
    if obj.data.get("groups", 1) != 1:
        it.refuse(node, f"Conv3D(..., groups={obj.data['groups']})")
    return None


CONV3D = _conv_class("Conv3D", 3)
CONV2D_INIT = CONV3D.lookup("__init__")
CONV3D.methods["__init__"] = Builtin(_conv3d_init)


def _upsampling3d_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """UpSampling3D(size=(2, 2, 2), data_format=None)."""
    b = bind(it, obj, args, kwargs, node, ("size", "data_format"), {"size": (2, 2, 2)})
    obj.data.update(
        size=shape_layers.standard_tuple(it, b["size"], 3, "size", node),
        rank=3,
        data_format=shape_layers.data_format(it, b.get("data_format"), node),
    )
    return None


def _spatial3d_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """SpatialDropout3D: Keras's InputSpec (rank 5), then dropout of whole channels."""
    x = tensor_arg(it, obj, args, kwargs, node)
    shape_layers._rank_check(it, obj, x, 5, node)
    if not noise_layers._training(it, kwargs) or obj.data["rate"] == 0:
        return x
    xs = shape_layers.shape(it, x)
    noise = [xs[0], 1, 1, 1, xs[4]]
    if obj.data["data_format"] == "channels_first":
        noise = [xs[0], xs[1], 1, 1, 1]
    attrs = {"rate": obj.data["rate"], "noise_shape": noise}
    return it.call_api("tf.nn.dropout", [x], attrs, node, None)


def _class(name: str, init, call) -> Class:
    return Class(name, (LAYER,), {"__init__": Builtin(init), "call": Builtin(call)})


MAX_POOLING3D = _pool_class("MaxPooling3D", 3, "max")
AVERAGE_POOLING3D = _pool_class("AveragePooling3D", 3, "avg")
GLOBAL_AVERAGE_POOLING3D = _global_class("GlobalAveragePooling3D", 3, "avg")
GLOBAL_MAX_POOLING3D = _global_class("GlobalMaxPooling3D", 3, "max")
UPSAMPLING3D = _class("UpSampling3D", _upsampling3d_init, shape_layers._upsampling_call)
ZERO_PADDING3D = _class("ZeroPadding3D", shape_layers._zero_padding_init(3),
                        shape_layers._zero_padding_call)  # fmt: skip
CROPPING3D = _class("Cropping3D", shape_layers._cropping_init(3), shape_layers._cropping_call)
SPATIAL_DROPOUT3D = _class(
    "SpatialDropout3D", noise_layers._init("rate", ("rate", "data_format", "seed")), _spatial3d_call
)

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    f"layers.{c.name}": c
    for c in (CONV3D, MAX_POOLING3D, AVERAGE_POOLING3D, GLOBAL_AVERAGE_POOLING3D,
              GLOBAL_MAX_POOLING3D, UPSAMPLING3D, ZERO_PADDING3D, CROPPING3D, SPATIAL_DROPOUT3D)
}  # fmt: skip
CLASSES.update({
    "layers.Convolution3D": CONV3D, "layers.MaxPool3D": MAX_POOLING3D,
    "layers.AvgPool3D": AVERAGE_POOLING3D, "layers.GlobalAvgPool3D": GLOBAL_AVERAGE_POOLING3D,
    "layers.GlobalMaxPool3D": GLOBAL_MAX_POOLING3D,
})  # fmt: skip

"""Keras's convolution and pooling layers for the reader: Conv1D, Conv2D, Conv2DTranspose,
MaxPooling1D/2D, AveragePooling1D/2D, GlobalAveragePooling1D/2D, GlobalMaxPooling1D/2D.

Keras 3 on TensorFlow 2.21 (verified with Keras 3.15.1):
- Conv kernels are (*kernel_size, in_channels, filters) (Conv2DTranspose:
  (*kernel_size, filters, in_channels)), made before the bias (filters,), named
  `conv2d/kernel`, `conv2d/bias`; glorot_uniform and zeros by default; the call is
  `tf.nn.convolution(x, kernel, strides, padding.upper(), dilations)` then `+ reshape(bias,
  (1, ..., filters))` then the activation; padding "valid" by default, channels_last;
  Conv1D's "causal" pads (kernel_size - 1) * dilation_rate zeros on the left, then "valid".
- Pooling layers call `tf.nn.max_pool`/`avg_pool` with strides = pool_size unless given,
  padding "valid"; the global ones are `reduce_mean`/`reduce_max` over the steps axes.
  AveragePooling1D/2D have no default pool_size (MaxPooling's is 2).
- data_format="channels_first": TensorFlow 2.21's CPU kernels refuse NCHW convolutions,
  so Conv1D/Conv2D raise UnimplementedError and Conv2DTranspose InvalidArgumentError when
  called (after building the kernel from the channels at axis 1); pooling transposes to
  channels_last, pools and transposes back; the global pools reduce axes 2.. instead.
- groups=g (Conv1D/Conv2D): kernel (*kernel_size, in // g, filters), Keras runs one grouped
  convolution (XLA, which takes channels_first too); the reader computes each group's
  convolution on its slice of the channels with its filters // g filters, concatenated in
  order (the same sums; channels_first between two transposes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras import initializers
from gradcli.tfcode.keras.layers import LAYER, layer_init, make_weight
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.regularizers import regularizer, set_regularizer
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def bind(it: Interpreter, obj: Instance, args, kwargs, node, names, defaults: dict):
    """A built-in layer's __init__ arguments: `names` positionally or by keyword (defaults
    filled in), the Layer options passed on to Layer.__init__, anything else refused."""
    if len(args) > len(names):
        it.refuse(node, f"{obj.cls.name} with {len(args)} positional arguments")
    bound = dict(defaults)
    bound.update(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        if k in names:
            bound[k] = v
        else:
            rest[k] = v
    layer_init(it, obj, [], rest, node)
    return bound


def tensor_arg(it: Interpreter, obj: Instance, args, kwargs, node):
    """The inputs a layer's call is given (one tensor)."""
    x = args[0] if args else kwargs.get("inputs")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a {obj.cls.name} layer called on {_describe(x)}")
    return x


def shape(it: Interpreter, x) -> tuple:
    return tuple(it.g[it.tensor_id(x, read=False)].shape)


def tuple_arg(it: Interpreter, value, rank: int, what: str, node) -> tuple:
    """An int or a tuple of `rank` ints (kernel_size, strides, pool_size ...)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * rank
    if (
        isinstance(value, (list, tuple))
        and len(value) == rank
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return tuple(value)
    it.refuse(node, f"{what}={_describe(value)}", f"give an int or {rank} ints")


def _padding(it: Interpreter, value, node, allowed=("valid", "same")) -> str:
    if not isinstance(value, str) or value.lower() not in allowed:
        it.refuse(node, f"padding={value!r}", "gradcli reads " + ", ".join(map(repr, allowed)))
    return value.lower()


def _data_format(it: Interpreter, value, node) -> str:
    from gradcli.tfcode.keras.shape_layers import data_format

    return data_format(it, value, node)


def transpose_last(it: Interpreter, x, node):
    """channels_first to channels_last (NCW -> NWC, NCHW -> NHWC)."""
    rank = len(shape(it, x))
    return it.op_call("transpose", [x], {"axes": [0, *range(2, rank), 1]}, node)


def transpose_first(it: Interpreter, x, node):
    """channels_last back to channels_first."""
    rank = len(shape(it, x))
    return it.op_call("transpose", [x], {"axes": [0, rank - 1, *range(1, rank - 1)]}, node)


# --- convolutions ------------------------------------------------------------------------------
CONV_NAMES = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "groups", "activation", "use_bias", "kernel_initializer", "bias_initializer",
              "kernel_regularizer", "bias_regularizer", "activity_regularizer",
              "kernel_constraint", "bias_constraint")  # fmt: skip
TRANSPOSE_NAMES = ("filters", "kernel_size", "strides", "padding", "output_padding",
                   "data_format", "dilation_rate", "activation", "use_bias",
                   "kernel_initializer", "bias_initializer", "kernel_regularizer",
                   "bias_regularizer", "activity_regularizer", "kernel_constraint",
                   "bias_constraint")  # fmt: skip


CAUSAL = ("valid", "same", "causal")  # Conv1D's paddings


def _conv_init(rank: int, transpose: bool = False):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """ConvND(filters, kernel_size, strides=1, padding='valid', ...)."""
        names = TRANSPOSE_NAMES if transpose else CONV_NAMES
        b = bind(it, obj, args, kwargs, node, names, {"strides": 1, "padding": "valid",
                                                       "dilation_rate": 1, "groups": 1,
                                                       "use_bias": True})  # fmt: skip
        for k in ("kernel_constraint", "bias_constraint"):
            if b.get(k) is not None:
                it.refuse(node, f"{obj.cls.name}(..., {k}=...)")
        if b.get("activity_regularizer") is not None:  # Layer's (noise_layers.py)
            obj.data["activity_regularizer"] = regularizer(it, b["activity_regularizer"], node)
        groups = b.get("groups", 1)
        if not isinstance(groups, int) or isinstance(groups, bool):
            it.refuse(node, f"{obj.cls.name}(..., groups={_describe(groups)})")
        if groups <= 0:
            raise GradcliError("ValueError: The number of groups must be a positive integer. "
                               f"Received: groups={groups}.", it.pos(node))  # fmt: skip
        filters = b.get("filters")
        if not isinstance(filters, int) or isinstance(filters, bool) or filters <= 0:
            it.refuse(node, f"{obj.cls.name}(filters={_describe(filters)})")
        if filters % groups:
            raise GradcliError(
                "ValueError: The number of filters must be evenly divisible by the number of "
                f"groups. Received: groups={groups}, filters={filters}.",
                it.pos(node),
            )
        fmt = _data_format(it, b.get("data_format"), node)
        from gradcli.tfcode.keras.library import activation

        d = obj.data
        d.update(
            rank=rank,
            filters=filters,
            groups=groups,
            data_format=fmt,
            kernel_size=tuple_arg(it, b.get("kernel_size"), rank, "kernel_size", node),
            strides=tuple_arg(it, b["strides"], rank, "strides", node),
            dilation_rate=tuple_arg(it, b["dilation_rate"], rank, "dilation_rate", node),
            padding=_padding(
                it, b["padding"], node, CAUSAL if rank == 1 and not transpose else ("valid", "same")
            ),
            activation=activation(it, b.get("activation"), node, obj),
            use_bias=bool(b["use_bias"]),
            kernel_initializer=initializers.get(
                it, b.get("kernel_initializer"), node, default="glorot_uniform"
            ),
            bias_initializer=initializers.get(it, b.get("bias_initializer"), node, "zeros"),
            kernel_regularizer=regularizer(it, b.get("kernel_regularizer"), node),
            bias_regularizer=regularizer(it, b.get("bias_regularizer"), node),
            transpose=transpose,
        )
        if max(d["strides"]) > 1 and max(d["dilation_rate"]) > 1:
            it.refuse(node, f"{obj.cls.name} with both strides and dilation_rate above 1")
        if transpose:
            from gradcli.tfcode.keras.conv_transpose import output_padding

            d["output_padding"] = output_padding(it, obj, b.get("output_padding"), node)
        obj.attrs["bias"] = None
        return None

    return init


def _conv_build(it: Interpreter, obj: Instance, args, kwargs, node):
    """kernel (*kernel_size, in, filters) (transposed: (..., filters, in)), then bias."""
    d = obj.data
    input_shape = args[0] if args else kwargs.get("input_shape")
    if not isinstance(input_shape, (list, tuple)) or len(input_shape) != d["rank"] + 2:
        it.refuse(node, f"{obj.cls.name}.build({_describe(input_shape)})",
                  f"a {obj.cls.name} takes inputs of rank {d['rank'] + 2}")  # fmt: skip
    channels = input_shape[1 if d.get("data_format") == "channels_first" else -1]
    if not isinstance(channels, int):
        it.refuse(node, f"a {obj.cls.name} input without a known channel count")
    groups = d.get("groups", 1)
    if channels % groups:
        raise GradcliError(
            "ValueError: The number of input channels must be evenly divisible by the number "
            f"of groups. Received groups={groups}, but the input has {channels} channels (full "
            f"input shape is {tuple(input_shape)}).",
            it.pos(node),
        )
    channels //= groups
    pair = (d["filters"], channels) if d["transpose"] else (channels, d["filters"])
    dtype = d.get("dtype", "float32")
    kernel = make_weight(
        it, obj, "kernel", (*d["kernel_size"], *pair), dtype, d["kernel_initializer"], True, node
    )
    set_regularizer(kernel, d["kernel_regularizer"])
    obj.attrs["kernel"] = kernel
    if d["use_bias"]:
        bias = make_weight(
            it, obj, "bias", (d["filters"],), dtype, d["bias_initializer"], True, node
        )
        set_regularizer(bias, d["bias_regularizer"])
        obj.attrs["bias"] = bias
    obj.layer.built = True
    return None


def _conv_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """tf.nn.convolution (or conv_transpose), + the reshaped bias, then the activation."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = shape(it, x)
    if len(xs) != d["rank"] + 2:
        it.refuse(node, f"a {obj.cls.name} on a rank-{len(xs)} input")
    if d.get("data_format") == "channels_first":
        if d["rank"] != 3 and d.get("groups", 1) == 1:
            _nchw_error(it, obj, node)
        # Keras runs channels_first Conv3D and grouped convolutions through XLA: the same
        # sums as channels_last
        d = {**d, "data_format": "channels_last"}
        inner = Instance(obj.cls, obj.attrs, obj.layer, d)
        y = _conv_call(it, inner, [transpose_last(it, x, node)], {}, node)
        return transpose_first(it, y, node)
    if d.get("groups", 1) != 1:
        return _finish(it, obj, _grouped(it, obj, x, node), node)
    padding = d["padding"]
    if padding == "causal":  # Keras pads (kernel - 1) * dilation zeros on the left
        left = d["dilation_rate"][0] * (d["kernel_size"][0] - 1)
        x = it.call_api("tf.pad", [x], {"paddings": [[0, 0], [left, 0], [0, 0]]}, node, None)
        padding = "valid"
    attrs = {"padding": padding.upper(), "dilations": list(d["dilation_rate"])}
    kernel = obj.attrs["kernel"]
    if d["transpose"]:  # conv_transpose.py
        from gradcli.tfcode.keras.conv_transpose import transpose_call

        y = transpose_call(it, obj, x, node)
    elif d["rank"] == 1:
        y = it.call_api("tf.nn.conv1d", [x, kernel], {**attrs, "stride": d["strides"][0]},
                        node, None)  # fmt: skip
    elif d["rank"] == 2:
        y = it.call_api("tf.nn.conv2d", [x, kernel], {**attrs, "strides": list(d["strides"])},
                        node, None)  # fmt: skip
    else:  # tf.nn.conv3d takes 5 strides and dilations
        attrs.update(strides=[1, *d["strides"], 1], dilations=[1, *d["dilation_rate"], 1])
        y = it.call_api("tf.nn.conv3d", [x, kernel], attrs, node, None)
    return _finish(it, obj, y, node)


def _nchw_error(it: Interpreter, obj: Instance, node):
    """TensorFlow 2.21's CPU convolution kernels support NHWC only."""
    kind, why = (
        ("InvalidArgumentError", "Conv2DCustomBackpropInputOp only supports NHWC")
        if obj.data["transpose"]
        else ("UnimplementedError", "The Conv2D op currently only supports the NHWC tensor "
              "format on the CPU. The op was given the format: NCHW")
    )  # fmt: skip
    raise Raises(kind, f"Exception encountered when calling {obj.cls.name}.call().",
                 it.pos(node), f"{why}: use data_format='channels_last'")  # fmt: skip


def _grouped(it: Interpreter, obj: Instance, x, node):
    """A grouped convolution: each group's channels convolved with its own filters."""
    d = obj.data
    g = d["groups"]
    per = d["filters"] // g
    padding = d["padding"]
    if padding == "causal":
        left = d["dilation_rate"][0] * (d["kernel_size"][0] - 1)
        x = it.call_api("tf.pad", [x], {"paddings": [[0, 0], [left, 0], [0, 0]]}, node, None)
        padding = "valid"
    parts = it.op_call("split", [x], {"num_or_size_splits": g, "axis": -1}, node)
    kernel = obj.attrs["kernel"]
    lead = (slice(None),) * (d["rank"] + 1)
    outs = []
    for k, part in enumerate(parts):
        w = it.subscript(node, kernel, (*lead, slice(k * per, (k + 1) * per)))
        attrs = {"padding": padding.upper(), "dilations": list(d["dilation_rate"])}
        if d["rank"] == 1:
            attrs["stride"] = d["strides"][0]
            outs.append(it.call_api("tf.nn.conv1d", [part, w], attrs, node, None))
        else:
            attrs["strides"] = list(d["strides"])
            outs.append(it.call_api("tf.nn.conv2d", [part, w], attrs, node, None))
    return it.call_api("tf.concat", [outs], {"axis": -1}, node, None)


def _finish(it: Interpreter, obj: Instance, y, node):
    """+ the bias reshaped to (1, ..., filters), then the activation."""
    d = obj.data
    bias = obj.attrs.get("bias")
    if bias is not None:
        b = it.op_call("reshape", [bias], {"shape": [1] * (d["rank"] + 1) + [d["filters"]]}, node)
        y = it.op_call("add", [y, b], {}, node)
    act = d["activation"]
    return act(it, y, node) if act is not None else y


def _conv_class(name: str, rank: int, transpose: bool = False) -> Class:
    return Class(
        name,
        (LAYER,),
        {
            "__init__": Builtin(_conv_init(rank, transpose)),
            "build": Builtin(_conv_build),
            "call": Builtin(_conv_call),
        },
    )


CONV1D = _conv_class("Conv1D", 1)
CONV2D = _conv_class("Conv2D", 2)
CONV2D_TRANSPOSE = _conv_class("Conv2DTranspose", 2, transpose=True)


# --- pooling -----------------------------------------------------------------------------------
def _pool_init(rank: int, kind: str):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """MaxPoolingND/AveragePoolingND(pool_size=2, strides=None, padding='valid')."""
        names = ("pool_size", "strides", "padding", "data_format")
        defaults = {"padding": "valid"}
        if kind == "max":
            defaults["pool_size"] = 2
        b = bind(it, obj, args, kwargs, node, names, defaults)
        if "pool_size" not in b:
            raise GradcliError(
                f"TypeError: {obj.cls.name}.__init__() missing 1 required positional argument: "
                "'pool_size'",
                it.pos(node),
            )
        obj.data["data_format"] = _data_format(it, b.get("data_format"), node)
        size = tuple_arg(it, b["pool_size"], rank, "pool_size", node)
        strides = b.get("strides")
        obj.data.update(
            rank=rank,
            kind=kind,
            pool_size=size,
            strides=size if strides is None else tuple_arg(it, strides, rank, "strides", node),
            padding=_padding(it, b["padding"], node),
        )
        return None

    return init


def _pool_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """tf.nn.max_pool / avg_pool (NWC, NHWC)."""
    d = obj.data
    x = tensor_arg(it, obj, args, kwargs, node)
    if len(shape(it, x)) != d["rank"] + 2:
        it.refuse(node, f"a {obj.cls.name} on a rank-{len(shape(it, x))} input")
    path = f"tf.nn.{d['kind']}_pool{d['rank']}d"
    attrs = {"ksize": list(d["pool_size"]), "strides": list(d["strides"]),
             "padding": d["padding"].upper()}  # fmt: skip
    if d.get("data_format") != "channels_first":
        return it.call_api(path, [x], attrs, node, None)
    # TensorFlow's pools are channels_last only: Keras transposes around them
    y = it.call_api(path, [transpose_last(it, x, node)], attrs, node, None)
    return transpose_first(it, y, node)


def _pool_class(name: str, rank: int, kind: str) -> Class:
    return Class(
        name, (LAYER,), {"__init__": Builtin(_pool_init(rank, kind)), "call": Builtin(_pool_call)}
    )


MAX_POOLING1D = _pool_class("MaxPooling1D", 1, "max")
MAX_POOLING2D = _pool_class("MaxPooling2D", 2, "max")
AVERAGE_POOLING1D = _pool_class("AveragePooling1D", 1, "avg")
AVERAGE_POOLING2D = _pool_class("AveragePooling2D", 2, "avg")


def _global_init(rank: int, kind: str):
    def init(it: Interpreter, obj: Instance, args, kwargs, node):
        """GlobalAverage/MaxPoolingND(data_format=None, keepdims=False)."""
        b = bind(it, obj, args, kwargs, node, ("data_format", "keepdims"), {"keepdims": False})
        obj.data["data_format"] = _data_format(it, b.get("data_format"), node)
        if not isinstance(b["keepdims"], bool):
            it.refuse(node, f"keepdims={_describe(b['keepdims'])}")
        obj.data.update(rank=rank, kind=kind, keepdims=b["keepdims"])
        return None

    return init


def _global_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """reduce_mean / reduce_max over the steps (and rows) axes."""
    d = obj.data
    mask = kwargs.pop("mask", None)
    if mask is not None and (d["rank"], d["kind"]) != (1, "avg"):
        it.refuse(node, f"a {obj.cls.name} called with mask=")
    x = tensor_arg(it, obj, args, kwargs, node)
    if len(shape(it, x)) != d["rank"] + 2:
        it.refuse(node, f"a {obj.cls.name} on a rank-{len(shape(it, x))} input")
    if mask is not None:  # the mean of the unmasked steps
        from gradcli.tfcode.keras.masking import masked_mean

        return masked_mean(it, x, mask, d["keepdims"], node)
    path = "tf.reduce_mean" if d["kind"] == "avg" else "tf.reduce_max"
    first = d.get("data_format") == "channels_first"
    axes = list(range(2, d["rank"] + 2)) if first else list(range(1, d["rank"] + 1))
    return it.call_api(path, [x], {"axis": axes, "keepdims": d["keepdims"]}, node, None)


def _global_class(name: str, rank: int, kind: str) -> Class:
    return Class(
        name,
        (LAYER,),
        {"__init__": Builtin(_global_init(rank, kind)), "call": Builtin(_global_call)},
    )


GLOBAL_AVERAGE_POOLING1D = _global_class("GlobalAveragePooling1D", 1, "avg")
GLOBAL_AVERAGE_POOLING2D = _global_class("GlobalAveragePooling2D", 2, "avg")
GLOBAL_MAX_POOLING1D = _global_class("GlobalMaxPooling1D", 1, "max")
GLOBAL_MAX_POOLING2D = _global_class("GlobalMaxPooling2D", 2, "max")

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CONV_CLASSES = {
    f"layers.{c.name}": c
    for c in (CONV1D, CONV2D, CONV2D_TRANSPOSE, MAX_POOLING1D, MAX_POOLING2D, AVERAGE_POOLING1D,
              AVERAGE_POOLING2D, GLOBAL_AVERAGE_POOLING1D, GLOBAL_AVERAGE_POOLING2D,
              GLOBAL_MAX_POOLING1D, GLOBAL_MAX_POOLING2D)
}  # fmt: skip
# Keras's aliases
CONV_CLASSES.update({
    "layers.Convolution1D": CONV1D, "layers.Convolution2D": CONV2D,
    "layers.Convolution2DTranspose": CONV2D_TRANSPOSE,
    "layers.MaxPool1D": MAX_POOLING1D, "layers.MaxPool2D": MAX_POOLING2D,
    "layers.AvgPool1D": AVERAGE_POOLING1D, "layers.AvgPool2D": AVERAGE_POOLING2D,
    "layers.GlobalAvgPool1D": GLOBAL_AVERAGE_POOLING1D,
    "layers.GlobalAvgPool2D": GLOBAL_AVERAGE_POOLING2D,
    "layers.GlobalMaxPool1D": GLOBAL_MAX_POOLING1D, "layers.GlobalMaxPool2D": GLOBAL_MAX_POOLING2D,
})  # fmt: skip

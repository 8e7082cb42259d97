"""Keras's shape, lookup and merging layers for the reader: Flatten, Reshape, Embedding,
Dropout, Activation, Lambda, Concatenate, Add, Subtract, Multiply, Average, Maximum,
Minimum.

Keras 3 on TensorFlow 2.21 (verified with Keras 3.15.1):
- Flatten and Reshape reshape to (batch, ...) (Flatten of a (batch,) input gives (batch, 1)).
- Embedding(input_dim, output_dim) makes `embedding/embeddings` (input_dim, output_dim),
  RandomUniform(-0.05, 0.05) by default; its call casts non-integer inputs to int32, maps a
  negative index i to i + input_dim (`tf.where`), then `tf.gather(embeddings, ids)`: the
  gradient is an IndexedSlices whose dense form is zero on the rows never looked up.
- Dropout(rate).call(inputs, training=False): the identity unless training is true and
  rate > 0 (then `tf.nn.dropout`'s random mask).
- Add/Multiply/Maximum/Minimum fold their list left to right, Average adds then divides by
  the count, Subtract takes exactly two, Concatenate(axis=-1) is `tf.concat`. Inputs of
  different ranks (not for Concatenate) are expanded at axis 1 up to the largest rank, then
  broadcast.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.conv_layers import bind, shape, tensor_arg
from gradcli.tfcode.keras.layers import LAYER, add_seed_generator, make_weight
from gradcli.tfcode.keras.objects import BoundMethod, Builtin, Class, Initializer, Instance
from gradcli.tfcode.keras.protocol import call_object, state
from gradcli.tfcode.keras.regularizers import regularizer, set_regularizer
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import Module, PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _positive(it, value, what: str, node) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        it.refuse(node, f"{what}={_describe(value)}", "give a positive Python integer")
    return value


# --- Flatten, Reshape --------------------------------------------------------------------------
def _flatten_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Flatten(data_format=None)."""
    from gradcli.tfcode.keras.shape_layers import data_format

    b = bind(it, obj, args, kwargs, node, ("data_format",), {})
    obj.data["data_format"] = data_format(it, b.get("data_format"), node)
    return None


def _flatten_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """reshape(x, (batch, product of the other dimensions)) (channels_first: channels moved
    last first)."""
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = shape(it, x)
    if not xs:
        it.refuse(node, "a Flatten layer on a scalar")
    if obj.data.get("data_format") == "channels_first" and len(xs) > 1:
        x = it.op_call("transpose", [x], {"axes": [0, *range(2, len(xs)), 1]}, node)
    return it.op_call("reshape", [x], {"shape": [xs[0], math.prod(xs[1:])]}, node)


def _reshape_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Reshape(target_shape)."""
    b = bind(it, obj, args, kwargs, node, ("target_shape",), {})
    target = b.get("target_shape")
    if isinstance(target, int) and not isinstance(target, bool):
        target = (target,)
    if not isinstance(target, (list, tuple)) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in target
    ):
        it.refuse(node, f"Reshape(target_shape={_describe(target)})", "give a tuple of ints")
    obj.data["target_shape"] = tuple(target)
    return None


def _reshape_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """reshape(x, (batch, *target_shape))."""
    x = tensor_arg(it, obj, args, kwargs, node)
    xs = shape(it, x)
    target = [xs[0], *obj.data["target_shape"]]
    return it.call_api("tf.reshape", [x], {"shape": target}, node, None)


FLATTEN = Class(
    "Flatten", (LAYER,), {"__init__": Builtin(_flatten_init), "call": Builtin(_flatten_call)}
)
RESHAPE = Class(
    "Reshape", (LAYER,), {"__init__": Builtin(_reshape_init), "call": Builtin(_reshape_call)}
)


# --- Embedding ---------------------------------------------------------------------------------
# input_length= is accepted and ignored, as Keras 3 does (with a deprecation warning)
EMBEDDING_NAMES = ("input_dim", "output_dim", "embeddings_initializer", "embeddings_regularizer",
                   "embeddings_constraint", "mask_zero", "weights", "lora_rank",
                   "lora_alpha", "input_length")  # fmt: skip


def _embedding_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Embedding(input_dim, output_dim, embeddings_initializer='uniform', ...)."""
    from gradcli.tfcode.keras import initializers

    b = bind(it, obj, args, kwargs, node, EMBEDDING_NAMES, {})
    for k in ("embeddings_constraint", "lora_rank", "weights"):
        if b.get(k) is not None:
            it.refuse(node, f"Embedding(..., {k}=...)")
    if not isinstance(b.get("mask_zero", False), bool):
        it.refuse(node, f"Embedding(mask_zero={_describe(b['mask_zero'])})", "give True or False")
    init = b.get("embeddings_initializer")
    if init in (None, "uniform"):
        init = Initializer("random_uniform")  # Keras's 'uniform': RandomUniform(-0.05, 0.05)
    obj.data.update(
        input_dim=_positive(it, b.get("input_dim"), "input_dim", node),
        output_dim=_positive(it, b.get("output_dim"), "output_dim", node),
        embeddings_initializer=initializers.get(it, init, node, default="random_uniform"),
        embeddings_regularizer=regularizer(it, b.get("embeddings_regularizer"), node),
        mask_zero=b.get("mask_zero", False),  # compute_mask: inputs != 0 (masking.py)
    )
    return None


def _embedding_build(it: Interpreter, obj: Instance, args, kwargs, node):
    d = obj.data
    var = make_weight(
        it, obj, "embeddings", (d["input_dim"], d["output_dim"]), d.get("dtype", "float32"),
        d["embeddings_initializer"], True, node,
    )  # fmt: skip
    set_regularizer(var, d["embeddings_regularizer"])
    obj.attrs["embeddings"] = var
    obj.layer.built = True
    return None


def _embedding_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Cast to int32 unless integer, negative ids + input_dim, then gather rows."""
    ids = args[0] if args else kwargs.get("inputs")
    if not isinstance(ids, (Tensor, Variable)):
        ids = it.leaf(it.as_array(ids, node), node)
    if it.g[it.tensor_id(ids, read=False)].dtype not in ("int32", "int64"):
        ids = it.op_call("cast", [ids], {"dtype": "int32"}, node)
    _check_ids(it, obj, ids, node)
    negative = it.op_call("less", [ids, 0], {}, node)
    wrapped = it.op_call("add", [ids, obj.data["input_dim"]], {}, node)
    ids = it.op_call("where", [negative, wrapped, ids], {}, node)
    return it.op_call("gather", [obj.attrs["embeddings"], ids], {"axis": 0}, node)


def _check_ids(it: Interpreter, obj: Instance, ids, node) -> None:
    """An id outside [-input_dim, input_dim): TensorFlow's CPU gather raises, and Keras
    wraps the error in its own message."""
    values = it.value(it.tensor_id(ids, read=False)).reshape(-1)
    n = obj.data["input_dim"]
    bad = [(k, int(v)) for k, v in enumerate(values) if not -n <= v < n]
    if bad:
        k, v = bad[0]
        raise Raises(
            "InvalidArgumentError",
            "Exception encountered when calling Embedding.call().",
            it.pos(node),
            f"id {v} (element {k}) is outside [-{n}, {n}): gather's indices[{k}] = "
            f"{v + n if v < 0 else v} is not in [0, {n})",
        )


EMBEDDING = Class(
    "Embedding",
    (LAYER,),
    {
        "__init__": Builtin(_embedding_init),
        "build": Builtin(_embedding_build),
        "call": Builtin(_embedding_call),
    },
)


# --- Dropout, Activation, Lambda ---------------------------------------------------------------
def _dropout_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Dropout(rate, noise_shape=None, seed=None)."""
    b = bind(it, obj, args, kwargs, node, ("rate", "noise_shape", "seed"), {})
    rate = b.get("rate")
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 1:
        raise GradcliError(
            f"ValueError: Invalid value received for argument `rate`. Expected a float value "
            f"between 0 and 1. Received: rate={rate!r}",
            it.pos(node),
        )
    noise = b.get("noise_shape")
    if noise is not None and (
        not isinstance(noise, (list, tuple))
        or not all(d is None or (isinstance(d, int) and d > 0) for d in noise)
    ):
        it.refuse(node, f"Dropout(noise_shape={_describe(noise)})", "give a tuple of ints or None")
    obj.data.update(rate=float(rate), seed=b.get("seed"), noise_shape=noise)
    if rate > 0:  # Keras makes the seed generator only then
        add_seed_generator(it, obj, node)
    return None


def _dropout_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """The identity unless training (given, or the enclosing call's) and rate > 0."""
    x = tensor_arg(it, obj, args, kwargs, node)
    training = state(it).training[-1] if state(it).training else kwargs.get("training")
    if not training or obj.data["rate"] == 0:
        return x
    # Keras's seed generator advances on every call (a new mask each time): the reader's
    # generator picks each call's seed, seed= or not; noise_shape's None entries are the
    # input's dimensions
    attrs = {"rate": obj.data["rate"]}
    noise = obj.data.get("noise_shape")
    if noise is not None:
        xs = shape(it, x)
        if len(noise) != len(xs):
            it.refuse(node, f"a noise_shape of rank {len(noise)} for a rank-{len(xs)} input")
        attrs["noise_shape"] = [d if n is None else n for n, d in zip(noise, xs)]
    return it.call_api("tf.nn.dropout", [x], attrs, node, None)


DROPOUT = Class(
    "Dropout", (LAYER,), {"__init__": Builtin(_dropout_init), "call": Builtin(_dropout_call)}
)


def _activation_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Activation(activation)."""
    from gradcli.tfcode.keras.library import activation

    b = bind(it, obj, args, kwargs, node, ("activation",), {})
    if "activation" not in b:
        it.refuse(node, "Activation() without an activation")
    obj.data["activation"] = activation(it, b["activation"], node, obj)
    return None


def _activation_call(it: Interpreter, obj: Instance, args, kwargs, node):
    x = tensor_arg(it, obj, args, kwargs, node)
    act = obj.data["activation"]
    return act(it, x, node) if act is not None else x


ACTIVATION = Class(
    "Activation",
    (LAYER,),
    {"__init__": Builtin(_activation_init), "call": Builtin(_activation_call)},
)


def _lambda_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Lambda(function, output_shape=None, mask=None, arguments=None)."""
    b = bind(it, obj, args, kwargs, node, ("function", "output_shape", "mask", "arguments"), {})
    fn = b.get("function")
    if not isinstance(fn, (PyFunction, Module, BoundMethod, Instance)):
        it.refuse(node, f"Lambda({_describe(fn)})", "give a def, a lambda or a tf function")
    mask = b.get("mask")  # compute_mask: mask(inputs, previous_mask) or the tensor itself
    if mask is not None and not isinstance(mask, (PyFunction, Tensor, Variable)):
        it.refuse(node, f"Lambda(..., mask={_describe(mask)})", "give a def, lambda or tensor")
    obj.data.update(mask=mask, supports_masking=mask is not None)
    arguments = b.get("arguments") or {}
    if not isinstance(arguments, dict):
        it.refuse(node, f"Lambda(..., arguments={_describe(arguments)})")
    obj.data.update(function=fn, arguments=dict(arguments))
    return None


def _lambda_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """function(inputs, **arguments) (training= too when the def takes it)."""
    x = args[0] if args else kwargs.get("inputs")
    fn, extra = obj.data["function"], dict(obj.data["arguments"])
    if isinstance(fn, PyFunction):
        params = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs]}
        if "training" in params and state(it).training:
            extra["training"] = state(it).training[-1]
        if "mask" in params:  # Keras passes the input's mask to a function that takes one
            extra["mask"] = kwargs.get("mask")
        if not (len(fn.body) == 1 and getattr(fn.body[0], "lambda_body", False)):
            return it.call_function(fn, [x], extra, node)  # a def labels its own lines
        # a lambda's ops are at its own line (a cut inside it is named there, not at the
        # statement that called the model, such as fit)
        saved = it.label, it.target_name
        label = "lambda" if it.labels.get("lambda", fn.pos) == fn.pos else f"lambda@{fn.pos.line}"
        it.labels.setdefault(label, fn.pos)
        it.label, it.target_name = label, None
        try:
            return it.call_function(fn, [x], extra, node)
        finally:
            it.label, it.target_name = saved
    if isinstance(fn, Module):
        return it.call_api(fn.path, [x], extra, node, None)
    return call_object(it, fn, [x], extra, node)


LAMBDA = Class(
    "Lambda", (LAYER,), {"__init__": Builtin(_lambda_init), "call": Builtin(_lambda_call)}
)


# --- merging -----------------------------------------------------------------------------------
def _merge_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Add(), Multiply(), ... and Concatenate(axis=-1)."""
    names = ("axis",) if obj.cls.name == "Concatenate" else ()
    b = bind(it, obj, args, kwargs, node, names, {"axis": -1})
    if not isinstance(b["axis"], int) or isinstance(b["axis"], bool):
        it.refuse(node, f"Concatenate(axis={_describe(b['axis'])})")
    obj.data["axis"] = b["axis"]
    return None


FOLD = {"Add": "add", "Multiply": "mul", "Maximum": "maximum", "Minimum": "minimum",
        "Average": "add"}  # fmt: skip


def _merge_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """The merge of a list of tensors (Keras's ValueError for anything else)."""
    inputs = args[0] if args else kwargs.get("inputs")
    name = obj.cls.name
    if not isinstance(inputs, (list, tuple)):
        it.refuse(node, f"a {name} layer on {_describe(inputs)}", UNRECORDED)
    if not all(isinstance(v, (Tensor, Variable)) for v in inputs) or not inputs:
        it.refuse(node, f"a {name} layer on {_describe(inputs)}")
    ranks = [len(shape(it, v)) for v in inputs]
    if len(set(ranks)) > 1:
        if name == "Concatenate":
            it.refuse(node, f"a {name} layer on inputs of different ranks")
        # Keras's Merge.call: each input expanded at axis 1 up to the largest rank
        inputs = list(inputs)
        for k, v in enumerate(inputs):
            for _ in range(max(ranks) - ranks[k]):
                v = it.op_call("expand_dims", [v], {"axis": 1}, node)
            inputs[k] = v
    if name in ("Multiply", "Maximum", "Minimum"):
        from gradcli.tfcode.keras.masking import masked_merge

        out = masked_merge(it, name, list(inputs), node)  # None when no input is masked
        if out is not None:
            return out
    if name == "Concatenate":
        return it.call_api("tf.concat", [list(inputs)], {"axis": obj.data["axis"]}, node, None)
    if name == "Subtract":
        if len(inputs) != 2:
            it.refuse(node, f"a Subtract layer on {len(inputs)} inputs", UNRECORDED)
        return it.op_call("sub", list(inputs), {}, node)
    out = inputs[0]
    for v in inputs[1:]:
        out = it.op_call(FOLD[name], [out, v], {}, node)
    if name == "Average":
        out = it.op_call("div", [out, float(len(inputs))], {}, node)
    return out


MERGE_CLASSES = {
    f"layers.{n}": Class(n, (LAYER,), {"__init__": Builtin(_merge_init),
                                       "call": Builtin(_merge_call)})
    for n in ("Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum")
}  # fmt: skip

# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CORE_CLASSES = {
    "layers.Flatten": FLATTEN, "layers.Reshape": RESHAPE, "layers.Embedding": EMBEDDING,
    "layers.Dropout": DROPOUT, "layers.Activation": ACTIVATION, "layers.Lambda": LAMBDA,
    **MERGE_CLASSES,
}  # fmt: skip

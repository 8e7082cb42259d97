"""Keras's functions and small classes: activations (functions and the strings layers take),
the loss classes with their reductions, and optimizers (read and ignored).

Keras 3 conventions kept (verified with Keras 3.15.1 on TensorFlow 2.21):
- A loss object converts y_true and y_pred to its dtype (float32 unless dtype=), computes
  the per-sample loss with the keras.losses function, multiplies by sample_weight (brought
  to the same rank), then reduces: 'sum_over_batch_size' (the default) is
  divide_no_nan(sum, number of per-sample values), 'sum' the sum, 'none' the values; a
  scalar or empty loss is returned as it is.
- keras.activations.sigmoid and softmax (and so Dense(activation="sigmoid"/"softmax")) keep
  their input on the output (`_keras_logits`): a crossentropy loss given such a tensor uses
  those logits with from_logits=True, whatever from_logits says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.core.ops.keras_losses import same_rank
from gradcli.tfcode.keras import loss_functions
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.keras.protocol import call_member, state
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Module, PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


# --- activations -------------------------------------------------------------------------------
# keras.activations.<name> -> (the TensorFlow function the TensorFlow backend calls, its
# fixed keyword arguments)
ACTIVATIONS = {
    "relu": ("tf.nn.relu", {}), "sigmoid": ("tf.nn.sigmoid", {}), "tanh": ("tf.nn.tanh", {}),
    "softplus": ("tf.math.softplus", {}), "softsign": ("tf.nn.softsign", {}),
    "elu": ("tf.nn.elu", {}), "selu": ("tf.nn.selu", {}), "relu6": ("tf.nn.relu6", {}),
    "gelu": ("tf.nn.gelu", {"approximate": False}), "silu": ("tf.nn.silu", {}),
    "swish": ("tf.nn.silu", {}), "softmax": ("tf.nn.softmax", {}),
    "log_softmax": ("tf.nn.log_softmax", {}), "exponential": ("tf.math.exp", {}),
    "log_sigmoid": ("tf.math.log_sigmoid", {}), "leaky_relu": ("tf.nn.leaky_relu", {}),
    "linear": (None, {}),
}  # fmt: skip
KEEPS_LOGITS = {"sigmoid", "softmax"}
ACTIVATION_OPTIONS = {"relu": {"negative_slope", "max_value", "threshold"}, "elu": {"alpha"},
                      "gelu": {"approximate"},
                      "softmax": {"axis"}, "log_softmax": {"axis"},
                      "leaky_relu": {"negative_slope"}}  # fmt: skip


def apply_activation(it: Interpreter, name: str, args, kwargs, node):
    """keras.activations.<name>(x, ...) on the TensorFlow backend."""
    x = args[0] if args else kwargs.get("x")
    options = {k: v for k, v in zip(_option_order(name), args[1:])}
    options.update({k: v for k, v in kwargs.items() if k != "x"})
    for k in options:
        if k not in ACTIVATION_OPTIONS.get(name, set()):
            it.refuse(node, f"tf.keras.activations.{name}(..., {k}=...)")
    if name in ("relu", "elu") and options:  # Keras's compositions (activation_layers.py)
        from gradcli.tfcode.keras import activation_layers as layers

        for k, v in options.items():
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                it.refuse(node, f"tf.keras.activations.{name}(..., {k}={v!r})")
        if name == "elu":
            return layers.keras_elu(it, x, options.get("alpha", 1.0), node)
        return layers.keras_relu(
            it,
            x,
            options.get("negative_slope", 0.0),
            options.get("max_value"),
            options.get("threshold", 0.0),
            node,
        )
    path, fixed = ACTIVATIONS[name]
    if path is None:
        return x
    extra = dict(fixed)
    if "axis" in options:
        extra["axis"] = options["axis"]
    if "approximate" in options:
        extra["approximate"] = options["approximate"]
    if "negative_slope" in options and name == "leaky_relu":
        extra["alpha"] = options["negative_slope"]
    out = it.call_api(path, [x], extra, node, None)
    if name in KEEPS_LOGITS and isinstance(out, Tensor) and isinstance(x, (Tensor, Variable)):
        state(it).logits[out.id] = x
    return out


def _option_order(name: str) -> tuple:
    return {"relu": ("negative_slope", "max_value", "threshold"), "elu": ("alpha",),
            "gelu": ("approximate",), "softmax": ("axis",), "log_softmax": ("axis",),
            "leaky_relu": ("negative_slope",)}.get(name, ())  # fmt: skip


def activation(it: Interpreter, value, node, owner: Instance | None = None):
    """A layer's activation= argument: None, a name, keras.activations.X, tf.nn.X, a def or
    a layer (which Keras tracks as owner's sub-layer `activation`): a function
    (it, x, node) -> tensor, or None for the identity."""
    from gradcli.tfcode.values import Module

    if value is None or value == "linear":
        return None
    if isinstance(value, str):
        if value not in ACTIVATIONS:
            it.refuse(node, f"the activation {value!r}")
        return lambda it_, x, at: apply_activation(it_, value, [x], {}, at)
    if isinstance(value, Module):
        name = keras_name(value.path)
        if name is not None and name.startswith("activations."):
            short = name.split(".", 1)[1]
            if short in ACTIVATIONS:
                return lambda it_, x, at: apply_activation(it_, short, [x], {}, at)
        return lambda it_, x, at: it_.call_api(value.path, [x], {}, at, None)
    if isinstance(value, PyFunction):
        return lambda it_, x, at: it_.call_function(value, [x], {}, at)
    if isinstance(value, Instance) and value.layer is not None:  # activation=LeakyReLU(0.2)
        from gradcli.tfcode.keras.protocol import call_object

        if owner is not None:  # self.activation = the layer: its weights are owner's too
            owner.attrs["activation"] = value
        return lambda it_, x, at: call_object(it_, value, [x], {}, at)
    it.refuse(node, f"activation={_describe(value)}")


# names only Keras 3's keras.* has: TensorFlow 2.21's tf.keras (keras._tf_keras.keras) lacks
# them (it has mse, mae, kld, logcosh ...; tests/data/tf_public_names.txt)
KERAS_ONLY = {f"{m}.{n}" for m in ("losses", "metrics") for n in (
    "mean_squared_error", "mean_absolute_error", "kl_divergence", "log_cosh",
    "mean_absolute_percentage_error", "mean_squared_logarithmic_error")}  # fmt: skip


def keras_name(path: str) -> str | None:
    """tf.keras.layers.Dense -> layers.Dense (None for a path outside Keras)."""
    for prefix in ("tf.keras.", "keras.", "tf.compat.v2.keras."):
        if path.startswith(prefix):
            name = path[len(prefix) :]
            # not in tf.keras: unknown there (refused), as TensorFlow has no such name
            return None if prefix != "keras." and name in KERAS_ONLY else name
    return None


# --- losses ------------------------------------------------------------------------------------
# class name -> (the registry op of the keras.losses function, the options it takes)
LOSSES = {
    "MeanSquaredError": ("mean_squared_error", ()),
    "MeanAbsoluteError": ("mean_absolute_error", ()),
    "BinaryCrossentropy": ("binary_crossentropy", ("from_logits", "label_smoothing", "axis")),
    "CategoricalCrossentropy": (
        "categorical_crossentropy", ("from_logits", "label_smoothing", "axis")),
    "SparseCategoricalCrossentropy": (
        "sparse_categorical_crossentropy", ("from_logits", "ignore_class", "axis")),
}  # fmt: skip
# Keras 3's other loss classes: keras.losses functions read op by op (loss_functions.py)
OTHER_LOSSES = {
    "Huber": "huber", "LogCosh": "log_cosh", "KLDivergence": "kl_divergence",
    "Poisson": "poisson", "CosineSimilarity": "cosine_similarity", "Hinge": "hinge",
    "SquaredHinge": "squared_hinge", "CategoricalHinge": "categorical_hinge",
    "MeanSquaredLogarithmicError": "mean_squared_logarithmic_error",
    "MeanAbsolutePercentageError": "mean_absolute_percentage_error",
    "BinaryFocalCrossentropy": "binary_focal_crossentropy",
    "CategoricalFocalCrossentropy": "categorical_focal_crossentropy",
    "Dice": "dice", "Tversky": "tversky",
}  # fmt: skip
for _cls, _fn in OTHER_LOSSES.items():
    LOSSES[_cls] = (_fn, tuple(k for k, _ in loss_functions.FUNCTIONS[_fn][1]))
# the classes whose positional order is not (*options, reduction, name, dtype)
PARAM_ORDER = {"Dice": ("reduction", "name", "axis", "dtype"),
               "Tversky": ("alpha", "beta", "reduction", "name", "axis", "dtype")}  # fmt: skip
REDUCTIONS = ("sum_over_batch_size", "sum", "none", None, "mean", "mean_with_sample_weight")
CROSSENTROPIES = {"binary_crossentropy", "categorical_crossentropy",
                  "sparse_categorical_crossentropy"}  # fmt: skip


def _loss_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Loss(name=None, reduction='sum_over_batch_size', dtype=None) and the wrappers'
    options (from_logits=, label_smoothing=, axis=)."""
    fn, options = LOSSES.get(obj.cls.name, (None, ()))
    names = (*options, "reduction", "name", "dtype") if fn else ("name", "reduction", "dtype")
    names = PARAM_ORDER.get(obj.cls.name, names)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            it.refuse(node, f"{obj.cls.name}(..., {k}=...)")
        bound[k] = v
    reduction = bound.get("reduction", "sum_over_batch_size")
    if isinstance(reduction, Module) and reduction.path.startswith("tf.keras.losses.Reduction."):
        reduction = reduction.path.rsplit(".", 1)[1].lower()  # the legacy enum's strings
    if reduction == "auto":
        it.refuse(node, "reduction='auto' (Keras 3 has none)", UNRECORDED)
    if reduction not in REDUCTIONS:
        it.refuse(node, f"reduction={reduction!r}")
    if bound.get("ignore_class") is not None:
        it.refuse(node, "SparseCategoricalCrossentropy(ignore_class=...)")
    from gradcli.tfcode.keras.layers import _dtype

    obj.data.update(
        fn=fn,
        reduction=reduction,
        dtype=_dtype(it, bound.get("dtype"), node),
        attrs={k: bound[k] for k in options if k in bound and k != "ignore_class"},
    )
    return None


def _wrapper_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """LossFunctionWrapper.call: the keras.losses function (its op), per sample."""
    y_true, y_pred = args[0], args[1]
    op, attrs = obj.data["fn"], dict(obj.data["attrs"])
    if op in loss_functions.FUNCTIONS:  # squeeze_or_expand_to_same_rank, then the function
        y_true, y_pred = _same_rank(it, y_true, y_pred, node)
        return loss_functions.call(it, op, [y_true, y_pred], attrs, node)
    kind = "sigmoid" if op == "binary_crossentropy" else "softmax"
    logits = loss_functions.logits_of(it, y_pred, kind) if op in CROSSENTROPIES else None
    if logits is not None:
        y_pred = logits  # Keras uses the activation's logits
        attrs["from_logits"] = True
    if op == "sparse_categorical_crossentropy":  # the backend casts the labels to int64
        i = it.tensor_id(y_true)
        if it.g[i].dtype not in ("int32", "int64"):
            y_true = Tensor(it.emit("cast", [i], {"dtype": "int64"}, node))
    attrs = {k: it.attribute_value(f"tf.keras.losses.{op}", k, v, node) for k, v in attrs.items()}
    return it.op_call(op, [y_true, y_pred], attrs, node)


def _to_dtype(it: Interpreter, value, dtype: str, node):
    """ops.convert_to_tensor(value, dtype): a tensor of another dtype is cast (a float32
    tensor stays the same tensor, so it keeps its activation's logits)."""
    if isinstance(value, (Tensor, Variable)):
        i = it.tensor_id(value)
        if it.g[i].dtype == dtype:
            return value if isinstance(value, Variable) or value.kind == "tf" else Tensor(i)
        return Tensor(it.emit("cast", [i], {"dtype": dtype}, node))
    return it.leaf(it.as_array(value, node, dtype), node)


def _loss_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Loss.__call__(y_true, y_pred, sample_weight=None): converted, call(), weighted and
    reduced as Keras 3 does (the module docstring)."""
    names = ("y_true", "y_pred", "sample_weight")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            it.refuse(node, f"calling a loss with {k}=")
        bound[k] = v
    if "y_true" not in bound or "y_pred" not in bound:
        it.refuse(node, "a loss called without y_true and y_pred")
    dtype = obj.data.get("dtype", "float32")
    from gradcli.tfcode.keras.masking import get_mask, loss_weight

    in_mask = get_mask(it, bound["y_pred"])  # y_pred._keras_mask, read before conversion
    labels_int = obj.data.get("fn") == "sparse_categorical_crossentropy"
    y_pred = _to_dtype(it, bound["y_pred"], dtype, node)
    y_true = bound["y_true"]
    if not labels_int or not isinstance(y_true, (Tensor, Variable)):
        y_true = _to_dtype(it, y_true, dtype, node)
    fn, owner = obj.cls.lookup("call")
    values = call_member(it, obj, fn, owner, [y_true, y_pred], {}, node)
    out_mask = get_mask(it, values)
    values = _to_dtype(it, values, dtype, node)
    weight = bound.get("sample_weight")
    if weight is not None:
        weight = _to_dtype(it, weight, dtype, node)
    if in_mask is not None and out_mask is not None:
        in_mask = it.op_call("logical_and", [in_mask, out_mask], {}, node)
    reduction = obj.data.get("reduction", "sum_over_batch_size")
    mask = in_mask if in_mask is not None else out_mask
    weight = loss_weight(it, mask, weight, values, reduction, dtype, node)
    if weight is not None:
        values, weight = _same_rank(it, values, weight, node)
        values = it.op_call("mul", [values, weight], {}, node)
    return _reduce(it, values, obj.data.get("reduction", "sum_over_batch_size"), node, weight)


def _same_rank(it: Interpreter, a, b, node):
    sa = tuple(it.g[it.tensor_id(a, read=False)].shape)
    sb = tuple(it.g[it.tensor_id(b, read=False)].shape)
    na, nb = same_rank(sa, sb)
    if na != sa:
        a = it.op_call("reshape", [a], {"shape": list(na)}, node)
    if nb != sb:
        b = it.op_call("reshape", [b], {"shape": list(nb)}, node)
    return a, b


def _reduce(it: Interpreter, values, reduction, node, weight=None):
    shape = tuple(it.g[it.tensor_id(values, read=False)].shape)
    if reduction in (None, "none") or shape in ((), (0,)):
        return values
    total = it.op_call("sum", [values], {}, node)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weight is not None:  # sum / sum(weights)
        return it.op_call("div_no_nan", [total, it.op_call("sum", [weight], {}, node)], {}, node)
    count = 1
    for d in shape:
        count *= d
    return it.op_call("div_no_nan", [total, float(count)], {}, node)


LOSS = Class(
    "Loss",
    kind="loss",
    methods={"__init__": Builtin(_loss_init), "__call__": Builtin(_loss_call)},
)
LOSS_CLASSES = {name: Class(name, (LOSS,), {"call": Builtin(_wrapper_call)}) for name in LOSSES}


# --- optimizers --------------------------------------------------------------------------------
def _optimizer_init(it, obj, args, kwargs, node):
    obj.data["options"] = (args, kwargs)
    return None


def _ignored(it, obj, args, kwargs, node):
    return None


def _minimize(it, obj, args, kwargs, node):
    """Keras 3 optimizers have no minimize: TensorFlow raises AttributeError there."""
    from gradcli.tfcode.support import Raises

    raise Raises(
        "AttributeError",
        f"'{obj.cls.name}' object has no attribute 'minimize'",
        it.pos(node),
        "Keras 3 optimizers have no minimize: compute the gradients with tf.GradientTape and "
        "call optimizer.apply_gradients(zip(grads, variables))",
    )


OPTIMIZER = Class(
    "Optimizer",
    kind="optimizer",
    methods={
        "__init__": Builtin(_optimizer_init),
        "apply_gradients": Builtin(_ignored),
        "apply": Builtin(_ignored),
        "minimize": Builtin(_minimize),
    },
)
OPTIMIZER_NAMES = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                   "Nadam", "Ftrl", "Lion", "Adafactor")  # fmt: skip
OPTIMIZERS = {name: Class(name, (OPTIMIZER,)) for name in OPTIMIZER_NAMES}

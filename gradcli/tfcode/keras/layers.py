"""Keras's Layer, Model and tf.Module as the reader's classes, with Dense, Sequential and
Input: variable creation (add_weight), tracking and the variable lists in Keras 3's order.

Keras 3 on TensorFlow 2.21 (verified with Keras 3.15.1):
- `layer.variables` is the layer's own variables (trainable ones first, each in creation
  order), then each tracked sub-layer's, in the order the sub-layers were assigned as
  attributes (lists and dicts of layers in their order); `trainable_variables` keeps those
  Keras marks trainable, and is empty for a layer with `trainable = False`.
- Only layers and the variables `add_weight` makes are tracked: a raw `tf.Variable` set on
  a Keras layer is not among its variables (it is still watched by tapes).
- `layer.trainable = False` (or `trainable=False` to the constructor) takes the layer's
  variables out of `trainable_variables`; tapes still watch them (TensorFlow's variable is
  trainable): asked for one explicitly, TensorFlow gives a real gradient. A variable made
  with `add_weight(..., trainable=False)` is not watched (None, `not_watched`).
- tf.Module tracks variables and modules in its attributes (in sorted attribute order, lists
  and dicts included); a Keras 3 layer held by a tf.Module is not among its variables.
- Layers compute in float32 (the default dtype policy): float inputs of another dtype are
  cast to float32 when a layer is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras import compiling, initializers, masking, regularizers, training
from gradcli.tfcode.keras.inference import MODEL_METHODS
from gradcli.tfcode.keras.objects import (
    Builtin,
    Class,
    Instance,
    KerasVariable,
    LayerState,
    Property,
    snake_case,
)
from gradcli.tfcode.keras.protocol import layer_call, scoped, state
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import NP, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


def _opt(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _dtype(it, value, node) -> str:
    from gradcli.tfcode.builtins import _dtype_arg

    if value is None:
        return "float32"
    dtype = _dtype_arg(it, value, node)
    if dtype not in ("float32", "float64"):
        it.refuse(node, f"a layer dtype of {dtype}")
    return dtype


# --- Layer -------------------------------------------------------------------------------------
LAYER_OPTIONS = {"trainable", "name", "dtype", "input_shape", "input_dim", "batch_size",
                 "autocast", "activity_regularizer"}  # fmt: skip


def layer_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """Layer.__init__(trainable=True, name=None, dtype=None, **kwargs)."""
    for k in kwargs:
        if k not in LAYER_OPTIONS:
            it.refuse(node, f"{obj.cls.name}(..., {k}=...)")
    if kwargs.get("activity_regularizer") is not None:
        obj.data["activity_regularizer"] = regularizers.regularizer(
            it, kwargs["activity_regularizer"], node
        )
    name = kwargs.get("name")
    trainable = kwargs.get("trainable", True)
    if not isinstance(trainable, bool):
        it.refuse(node, "trainable= that is not True or False")
    if name is not None and not isinstance(name, str):
        it.refuse(node, f"a layer name that is {_describe(name)}")
    if obj.layer is None:
        st = state(it)
        obj.layer = LayerState(name or st.unique(snake_case(obj.cls.name)), trainable)
    obj.data["dtype"] = _dtype(it, kwargs.get("dtype"), node)
    shape = kwargs.get("input_shape")
    if kwargs.get("input_dim") is not None:
        shape = (kwargs["input_dim"],)
    if shape is not None:
        obj.data["input_shape"] = (None, *tuple(shape))
    return None


def add_weight(it: Interpreter, obj: Instance, args, kwargs, node):
    """self.add_weight(shape=None, initializer=None, dtype=None, trainable=True, name=None)."""
    params = ("shape", "initializer", "dtype", "trainable", "autocast", "regularizer",
              "constraint", "aggregation", "overwrite_with_gradient", "name")  # fmt: skip
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"add_weight(..., {k}=...)")
        bound[k] = v
    if bound.get("constraint") is not None:
        it.refuse(node, "add_weight(..., constraint=...)")
    shape = bound.get("shape") or ()
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) for d in shape):
        it.refuse(node, f"add_weight(shape={_describe(shape)})", "give Python integers")
    dtype = (
        _dtype(it, bound.get("dtype"), node)
        if bound.get("dtype")
        else obj.data.get("dtype", "float32")
    )
    trainable = bound.get("trainable", True)
    if not isinstance(trainable, bool):
        it.refuse(node, "add_weight(trainable=...) that is not True or False")
    init = initializers.get(it, bound.get("initializer"), node, default="glorot_uniform")
    name = bound.get("name") or state(it).unique("variable")  # Keras's auto_name
    var = make_weight(it, obj, name, tuple(shape), dtype, init, trainable, node)
    var.regularizer = regularizers.regularizer(it, bound.get("regularizer"), node)
    return var


def make_weight(it, obj: Instance, name: str, shape, dtype, init, trainable: bool, node):
    """A Keras variable of obj, at path scopes/layer/name (TensorFlow watches it when made
    trainable; Keras lists it while the layer is trainable)."""
    with scoped(it, obj):
        path = "/".join([n for _, n in state(it).scopes] + [name])
    given = None if it.weights is None else it.weights.value(path, shape, dtype, it.pos(node))
    value = initializers.value(it, init, shape, dtype, node) if given is None else given
    saved = it.label
    it.label = path
    try:
        leaf = it.leaf(value, node)
    finally:
        it.label = saved
    var = KerasVariable(leaf.id, path, trainable, it.pos(node), name, [leaf.id])
    var.path, var.short, var.created_trainable = path, name, trainable
    var.keras_trainable = trainable and obj.layer.trainable
    obj.layer.weights.append(var)
    return var


SEED_STATE = "seed_generator_state"


def add_seed_generator(it, obj: Instance, node) -> None:
    """The SeedGenerator Keras 3 makes in a Dropout layer's or RNN cell's __init__: an int64
    non-trainable variable `seed_generator_N/seed_generator_state` (a global name, outside
    every scope), listed in `variables` and `non_trainable_variables`, not in `weights`."""
    path = f"{state(it).unique('seed_generator')}/{SEED_STATE}"
    saved = it.label
    it.label = path
    try:
        leaf = it.leaf(np.zeros(2, dtype=np.int64), node)  # its value never matters here
    finally:
        it.label = saved
    var = KerasVariable(leaf.id, path, False, it.pos(node), SEED_STATE, [leaf.id])
    var.path, var.short, var.created_trainable, var.keras_trainable = path, SEED_STATE, False, False
    obj.layer.seeds.append(var)


def sublayers(obj: Instance) -> list[Instance]:
    """The layers Keras tracks on obj, in assignment order (lists and dicts walked)."""
    if "layers" in obj.data:  # Sequential
        return list(obj.data["layers"])
    out: list[Instance] = []
    stack = list(reversed(list(obj.attrs.values())))
    while stack:
        v = stack.pop()
        if isinstance(v, Instance) and v.layer is not None:
            if all(v is not o for o in out):
                out.append(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
    return out


def all_variables(obj: Instance, seeds: bool = True) -> list:
    """Keras 3's layer.variables: own trainable, own non-trainable and seed states, then
    sub-layers'; layer.weights leaves the seed states out (seeds=False)."""
    out: list = []
    seen: set[int] = set()
    stack = [obj]
    order: list[Instance] = []
    while stack:  # pre-order over the layer tree, sub-layers in tracking order
        layer = stack.pop()
        if any(layer is o for o in order):
            continue  # a layer held twice (or by a layer it holds) counts once
        order.append(layer)
        stack.extend(reversed(sublayers(layer)))
    for layer in order:
        own = layer.layer.weights
        for v in (
            [w for w in own if w.created_trainable]
            + [w for w in own if not w.created_trainable]
            + (layer.layer.seeds if seeds else [])
        ):
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def _variables(kind: str, seeds: bool = True):
    def get(it: Interpreter, obj: Instance, args, kwargs, node):
        vs = all_variables(obj, seeds)
        if kind == "trainable":
            vs = [v for v in vs if v.keras_trainable] if obj.layer.trainable else []
        elif kind == "non_trainable":
            vs = [v for v in vs if not v.keras_trainable] if obj.layer.trainable else vs
        state(it).listed[id(vs)] = (vs, obj, kind)
        return vs

    return Builtin(get)


def _trainable_get(it, obj, args, kwargs, node):
    return obj.layer.trainable


def _trainable_set(it, obj, args, kwargs, node):
    """layer.trainable = value: the layer and its sub-layers, and the variables it made
    trainable (Keras's setter); tapes keep watching them."""
    value = args[0]
    if not isinstance(value, bool):
        it.refuse(node, "trainable = something not True or False")
    stack, done = [obj], []
    while stack:
        layer = stack.pop()
        if any(layer is d for d in done):
            continue
        done.append(layer)
        layer.layer.trainable = value
        for v in layer.layer.weights:
            if v.created_trainable:
                v.keras_trainable = value
        stack.extend(sublayers(layer))
    return None


def get_weights(it: Interpreter, obj: Instance, args, kwargs, node):
    """layer.get_weights(): the weights' current values as NumPy arrays."""
    weights = all_variables(obj, seeds=False)
    return [Tensor(it.leaf(it.value(v.value), node).id, NP) for v in weights]


def set_weights(it: Interpreter, obj: Instance, args, kwargs, node):
    """layer.set_weights(list): each weight assigned in `weights` order (Keras's ValueError
    for a count or shape that does not match)."""
    values = _opt(args, kwargs, 0, "weights")
    weights = all_variables(obj, seeds=False)
    if not isinstance(values, (list, tuple)):
        it.refuse(node, f"set_weights of {_describe(values)}", "give a list of arrays")
    if len(values) != len(weights):
        raise GradcliError(
            f"ValueError: You called `set_weights(weights)` on layer '{obj.layer.name}' with "
            f"a weight list of length {len(values)}, but the layer was expecting "
            f"{len(weights)} weights.",
            it.pos(node),
        )
    for var, value in zip(weights, values):
        arr = it.as_array(value, node)
        want = tuple(it.g[var.value].shape)
        if arr.shape != want:
            raise GradcliError(
                f"ValueError: Layer {obj.layer.name} weight shape {want} is not compatible with "
                f"provided weight shape {arr.shape}.",
                it.pos(node),
            )
        it.assign_variable(var, "assign", [value], {}, node)
    return None


def _build_default(it, obj, args, kwargs, node):
    obj.layer.built = True
    return None


def _call_default(it, obj, args, kwargs, node):
    it.refuse(node, f"calling a {obj.cls.name} whose class defines no call()")


def _name(it, obj, args, kwargs, node):
    return obj.layer.name


def _built(it, obj, args, kwargs, node):
    return obj.layer.built


def _layers(it, obj, args, kwargs, node):
    return sublayers(obj)


def _ignored(it, obj, args, kwargs, node):
    return None


LAYER = Class(
    "Layer",
    kind="layer",
    methods={
        "__init__": Builtin(layer_init),
        "__call__": Builtin(layer_call),
        "build": Builtin(_build_default),
        "call": Builtin(_call_default),
        "add_weight": Builtin(add_weight),
        "get_weights": Builtin(get_weights),
        "set_weights": Builtin(set_weights),
        "trainable": Property(Builtin(_trainable_get), Builtin(_trainable_set)),
        "name": Property(Builtin(_name)),
        "built": Property(Builtin(_built)),
        "variables": Property(_variables("all")),
        "weights": Property(_variables("all", seeds=False)),
        "trainable_variables": Property(_variables("trainable")),
        "trainable_weights": Property(_variables("trainable", seeds=False)),
        "non_trainable_variables": Property(_variables("non_trainable")),
        "non_trainable_weights": Property(_variables("non_trainable", seeds=False)),
        "losses": Property(Builtin(regularizers.layer_losses)),
        "add_loss": Builtin(regularizers.add_loss),
        "add_metric": Builtin(regularizers.add_metric),
        "compute_mask": masking.COMPUTE_MASK,
        "supports_masking": masking.SUPPORTS_MASKING,
        "summary": Builtin(_ignored),
    },
)


def _model_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """keras.Model(): a subclass's super().__init__(); Model(inputs, outputs) is the
    functional API (functional.py)."""
    if args or "inputs" in kwargs or "outputs" in kwargs:
        from gradcli.tfcode.keras.functional import functional_init, functional_subclass

        cls = obj.cls
        if cls is not MODEL and MODEL not in cls.bases:
            it.refuse(node, "a Model subclass of a subclass made with inputs and outputs")
        if cls is not MODEL and "name" not in kwargs:  # Keras names it after the class
            kwargs = {**kwargs, "name": state(it).unique(snake_case(cls.name))}
        functional_init(it, obj, args, kwargs, node)
        if cls is not MODEL:  # Keras injects Functional under the user's class
            obj.cls = functional_subclass(cls)
        return None
    return layer_init(it, obj, args, kwargs, node)


MODEL = Class(
    "Model",
    (LAYER,),
    {
        "__init__": Builtin(_model_init),
        "layers": Property(Builtin(_layers)),
        "compile": Builtin(compiling.compile_),
        "fit": Builtin(training.fit),
        "train_on_batch": Builtin(training.train_on_batch),
        **MODEL_METHODS,
    },
)


# --- Dense -------------------------------------------------------------------------------------
DENSE_OPTIONS = {"units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
                 "kernel_regularizer", "bias_regularizer", "kernel_constraint",
                 "bias_constraint", "lora_rank", "lora_alpha"}  # fmt: skip


def _dense_init(it: Interpreter, obj: Instance, args, kwargs, node):
    names = ("units", "activation", "use_bias", "kernel_initializer", "bias_initializer")
    bound = dict(zip(names, args))
    rest = {}
    for k, v in kwargs.items():
        if k in DENSE_OPTIONS:
            bound[k] = v
        else:
            rest[k] = v
    for k in ("kernel_constraint", "bias_constraint", "lora_rank"):
        if bound.get(k) is not None:
            it.refuse(node, f"Dense(..., {k}=...)")
    units = bound.get("units")
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        it.refuse(node, f"Dense(units={_describe(units)})", "give a positive Python integer")
    layer_init(it, obj, [], rest, node)
    from gradcli.tfcode.keras.library import activation

    obj.data.update(
        units=units,
        activation=activation(it, bound.get("activation"), node, obj),
        use_bias=bool(bound.get("use_bias", True)),
        kernel_initializer=initializers.get(it, bound.get("kernel_initializer"), node,
                                            default="glorot_uniform"),
        bias_initializer=initializers.get(it, bound.get("bias_initializer"), node,
                                          default="zeros"),
        kernel_regularizer=regularizers.regularizer(it, bound.get("kernel_regularizer"), node),
        bias_regularizer=regularizers.regularizer(it, bound.get("bias_regularizer"), node),
    )  # fmt: skip
    obj.attrs["bias"] = None
    return None


def _dense_build(it: Interpreter, obj: Instance, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "input_shape")
    if not isinstance(shape, (list, tuple)) or not shape or not isinstance(shape[-1], int):
        it.refuse(node, f"Dense.build({_describe(shape)})", "give a shape like (None, 3)")
    d = obj.data
    dtype = d.get("dtype", "float32")
    kernel = make_weight(
        it, obj, "kernel", (shape[-1], d["units"]), dtype, d["kernel_initializer"], True, node
    )
    obj.attrs["kernel"] = kernel
    kernel.regularizer = d.get("kernel_regularizer")
    if d["use_bias"]:
        obj.attrs["bias"] = make_weight(
            it, obj, "bias", (d["units"],), dtype, d["bias_initializer"], True, node
        )
        obj.attrs["bias"].regularizer = d.get("bias_regularizer")
    obj.layer.built = True
    return None


def _dense_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Dense.call: matmul(inputs, kernel), + bias, then the activation."""
    x = _opt(args, kwargs, 0, "inputs")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a Dense layer called on {_describe(x)}")
    rank = len(it.g[it.tensor_id(x, read=False)].shape)
    if rank < 2:  # Keras's matmul needs a matrix (TensorFlow raises)
        it.refuse(node, f"a Dense layer on a rank-{rank} input", "give it a batch axis")
    # (..., d) @ (d, units): the kernel broadcasts over the leading axes, as TensorFlow's
    # batched matmul (its gradient sums them), e.g. after an Embedding
    y = it.op_call("matmul", [x, obj.attrs["kernel"]], {}, node)
    if obj.attrs.get("bias") is not None:
        y = it.op_call("add", [y, obj.attrs["bias"]], {}, node)
    act = obj.data["activation"]
    return act(it, y, node) if act is not None else y


DENSE = Class(
    "Dense",
    (LAYER,),
    {
        "__init__": Builtin(_dense_init),
        "build": Builtin(_dense_build),
        "call": Builtin(_dense_call),
    },
)

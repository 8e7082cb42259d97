"""Keras's Sequential and tf.Module as the reader's classes (layers.py has Layer, Model and
Dense; the conventions are in its docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.keras.functional import is_symbolic
from gradcli.tfcode.keras.layers import DENSE, MODEL, _dense_build, _opt, layer_init
from gradcli.tfcode.keras.objects import Builtin, Class, Instance, Property, snake_case
from gradcli.tfcode.keras.protocol import call_object, scoped, state
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter


# --- Sequential --------------------------------------------------------------------------------
def _sequential_init(it: Interpreter, obj: Instance, args, kwargs, node):
    layers = _opt(args, kwargs, 0, "layers") or []
    rest = {k: v for k, v in kwargs.items() if k != "layers"}
    layer_init(it, obj, [], rest, node)
    obj.data["layers"] = []
    if not isinstance(layers, (list, tuple)):
        it.refuse(node, f"Sequential({_describe(layers)})", "give a list of layers")
    shape = None
    for k, layer in enumerate(layers):
        if is_symbolic(layer) and k == 0:
            shape = layer.data["shape"]
            continue
        if k == 0 and isinstance(layer, Instance) and "output" in layer.data:  # an InputLayer
            shape = layer.data["output"].data["shape"]
            continue
        if not (isinstance(layer, Instance) and layer.layer is not None):
            it.refuse(node, f"a Sequential of {_describe(layer)}")
        if k == 0 and "input_shape" in layer.data:
            shape = layer.data["input_shape"]
        obj.data["layers"].append(layer)
    if shape is not None:
        _sequential_build_shapes(it, obj, shape, node)
    return None


def _sequential_build_shapes(it: Interpreter, obj: Instance, shape, node) -> None:
    """Sequential with a known input shape builds at once (in its scope), each layer on the
    shape the previous one gives (batch None, as Keras's symbolic call): Dense from its
    units, any other layer called once on a stand-in tensor that no tape records."""
    st = state(it)
    obj.data["known_shape"] = shape  # Keras 3 builds again on every add (_maybe_rebuild)
    with scoped(it, obj):
        for layer in obj.data["layers"]:
            if layer.cls is DENSE:
                if not layer.layer.built:
                    with scoped(it, layer):
                        _dense_build(it, layer, [shape], {}, node)
                shape = (*shape[:-1], layer.data["units"])
                continue
            if any(d is None for d in shape[1:]):
                return  # built on the first call instead
            dtype = layer.data.get("dtype", "float32")
            stand_in = it.leaf(np.zeros((1, *shape[1:]), dtype=dtype), node)
            st.symbolic += 1
            it.quiet += 1
            try:
                out = call_object(it, layer, [stand_in], {}, node)
            finally:
                st.symbolic -= 1
                it.quiet -= 1
            if not isinstance(out, (Tensor, Variable)):
                return
            shape = (None, *it.g[it.tensor_id(out, read=False)].shape[1:])
    obj.layer.built = True


def _sequential_build(it, obj, args, kwargs, node):
    shape = _opt(args, kwargs, 0, "input_shape")
    if isinstance(shape, tuple):
        _sequential_build_shapes(it, obj, shape, node)
    obj.layer.built = True
    return None


def _sequential_call(it: Interpreter, obj: Instance, args, kwargs, node):
    x = _opt(args, kwargs, 0, "inputs")
    extra = {k: v for k, v in kwargs.items() if k in ("training",)}
    for layer in obj.data["layers"]:
        x = call_object(it, layer, [x], dict(extra), node)
    return x


def _sequential_add(it, obj, args, kwargs, node):
    layer = _opt(args, kwargs, 0, "layer")
    if is_symbolic(layer) and not obj.data["layers"]:
        _sequential_build_shapes(it, obj, layer.data["shape"], node)
        return None
    if isinstance(layer, Instance) and "output" in layer.data and not obj.data["layers"]:
        _sequential_build_shapes(it, obj, layer.data["output"].data["shape"], node)
        return None  # an InputLayer
    if not (isinstance(layer, Instance) and layer.layer is not None):
        it.refuse(node, f"Sequential.add of {_describe(layer)}")
    first = not obj.data["layers"]
    obj.data["layers"].append(layer)
    # Keras 3: a first layer given input_shape= starts the model with an InputLayer, and a
    # model with an input shape builds again on every add: its weights exist from here on
    shape = layer.data.get("input_shape") if first else obj.data.get("known_shape")
    if shape is not None:
        _sequential_build_shapes(it, obj, shape, node)
    return None


SEQUENTIAL = Class(
    "Sequential",
    (MODEL,),
    {
        "__init__": Builtin(_sequential_init),
        "build": Builtin(_sequential_build),
        "call": Builtin(_sequential_call),
        "add": Builtin(_sequential_add),
    },
)


# --- tf.Module ---------------------------------------------------------------------------------
def _module_init(it: Interpreter, obj: Instance, args, kwargs, node):
    name = _opt(args, kwargs, 0, "name")
    obj.data["module_name"] = name if isinstance(name, str) else snake_case(obj.cls.name)
    return None


def _module_variables(trainable_only: bool):
    def get(it: Interpreter, obj: Instance, args, kwargs, node):
        """tf.Module's variables: its attributes in sorted name order, walked depth first
        into modules, lists, tuples and dicts (sorted keys); Keras 3 layers are not
        walked; each variable once."""
        out: list = []
        seen: set[int] = {id(obj)}
        stack: list = [obj]
        while stack:  # a module's own variables, then its sub-modules', as tf.Module does
            item = stack.pop()
            if isinstance(item, Variable):
                if id(item) not in seen and (item.trainable or not trainable_only):
                    seen.add(id(item))
                    out.append(item)
                continue
            leaves, subs = [], []
            pending = [item.attrs[k] for k in sorted(item.attrs, reverse=True)]
            while pending:
                v = pending.pop()
                if isinstance(v, Variable):
                    leaves.append(v)
                elif isinstance(v, Instance) and v.cls.family() == "module":
                    if id(v) not in seen:
                        seen.add(id(v))
                        subs.append(v)
                elif isinstance(v, (list, tuple)):
                    pending.extend(reversed(v))
                elif isinstance(v, dict):
                    pending.extend(v[k] for k in sorted(v, reverse=True))
            stack.extend(reversed([*leaves, *subs]))
        return out

    return Builtin(get)


def _module_name(it, obj, args, kwargs, node):
    return obj.data.get("module_name", snake_case(obj.cls.name))


MODULE = Class(
    "Module",
    kind="module",
    methods={
        "__init__": Builtin(_module_init),
        "trainable_variables": Property(_module_variables(True)),
        "variables": Property(_module_variables(False)),
        "name": Property(Builtin(_module_name)),
    },
)

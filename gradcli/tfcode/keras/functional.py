"""Keras's functional API: `tf.keras.Input`, layers called on symbolic tensors, and
`tf.keras.Model(inputs, outputs)`, replayed on real tensors when the model is called.

A layer called on a symbolic tensor is built and run once on a stand-in input (batch 1,
no tape recording; its build sees the batch dimension as None, as Keras's symbolic call
does) to learn its output shapes; the call is kept as a node. The model's layers are
Keras 3's (keras/src/ops/function.py map_graph): operations ordered by decreasing depth
from the outputs, ties by their first visit in a depth-first walk from the outputs; the
InputLayer is among them. Calling the model runs its nodes in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gradcli.tfcode.keras.layers import LAYER, MODEL, _opt, layer_init
from gradcli.tfcode.keras.objects import Builtin, Class, Instance, LayerState
from gradcli.tfcode.keras.protocol import call_object, state
from gradcli.tfcode.support import _describe, _flatten
from gradcli.tfcode.values import Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

KERAS_TENSOR = Class("KerasTensor", kind="symbolic")


def _input_layer_init(it: Interpreter, obj: Instance, args, kwargs, node):
    """tf.keras.layers.InputLayer(shape=None, batch_size=None, dtype=None, batch_shape=None,
    name=None) (input_shape= and batch_input_shape=: Keras's deprecated names): its
    `output` is the symbolic input a Sequential starts from."""
    names = ("shape", "batch_size", "dtype", "sparse", "ragged", "batch_shape", "input_tensor",
             "optional", "name")  # fmt: skip
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        k = {"input_shape": "shape", "batch_input_shape": "batch_shape"}.get(k, k)
        if k not in names:
            it.refuse(node, f"InputLayer(..., {k}=...)")
        bound[k] = v
    for k in ("sparse", "ragged", "input_tensor", "optional"):
        if bound.get(k):
            it.refuse(node, f"InputLayer(..., {k}=...)")
    if bound.get("batch_shape") is not None:
        batch_shape = tuple(bound["batch_shape"])
        bound["shape"], bound["batch_size"] = batch_shape[1:], batch_shape[0]
    given = {k: bound[k] for k in ("batch_size", "dtype", "name") if bound.get(k) is not None}
    out = keras_input(it, [bound.get("shape")], given, node)
    made = out.data["node"].layer
    obj.layer, obj.data = made.layer, {"output": out}
    out.data["node"].layer = obj
    obj.attrs["output"] = out
    return None


INPUT_LAYER = Class("InputLayer", (LAYER,), {"__init__": Builtin(_input_layer_init)})


@dataclass(eq=False)
class Node:
    """One layer call on symbolic tensors (an Input's own node has no arguments)."""

    layer: Instance
    args: list
    kwargs: dict
    outputs: list = field(default_factory=list)  # the KerasTensors it made, flattened

    def parents(self) -> list[Node]:
        found = [v.data["node"] for v in _flatten([self.args, self.kwargs]) if is_symbolic(v)]
        return list(dict.fromkeys(found))


def is_symbolic(value) -> bool:
    return isinstance(value, Instance) and value.cls is KERAS_TENSOR


def keras_tensor(shape, node: Node | None, dtype: str = "float32") -> Instance:
    return Instance(KERAS_TENSOR, data={"shape": tuple(shape), "node": node, "dtype": dtype})


def keras_input(it: Interpreter, args, kwargs, node) -> Instance:
    """tf.keras.Input(shape=, batch_size=, dtype=, name=): a symbolic tensor made by an
    InputLayer (auto-named input_layer, input_layer_1, ...)."""
    shape = _opt(args, kwargs, 0, "shape")
    for k in kwargs:
        if k not in ("shape", "batch_size", "dtype", "name"):
            it.refuse(node, f"tf.keras.Input(..., {k}=...)")
    if not isinstance(shape, (list, tuple)) or not all(
        (isinstance(d, int) and not isinstance(d, bool)) or d is None for d in shape
    ):
        it.refuse(node, f"tf.keras.Input(shape={_describe(shape)})")
    name = kwargs.get("name")
    layer = Instance(INPUT_LAYER)
    layer.layer = LayerState(name if isinstance(name, str) else state(it).unique("input_layer"))
    layer.layer.built = True
    n = Node(layer, [], {})
    dtype = kwargs.get("dtype")
    if dtype is not None:  # integer ids (an Embedding's input) as well as floats
        from gradcli.tfcode.builtins import _dtype_arg

        dtype = _dtype_arg(it, dtype, node)
        if dtype not in ("float32", "float64", "int32", "int64"):
            it.refuse(node, f"tf.keras.Input(dtype={dtype!r})")
    out = keras_tensor((kwargs.get("batch_size"), *shape), n, dtype or "float32")
    n.outputs = [out]
    return out


def _stand_in(it: Interpreter, value, node):
    if is_symbolic(value):
        shape = value.data["shape"]
        if any(d is None for d in shape[1:]):
            it.refuse(node, "a symbolic input with an unknown dimension besides the batch")
        return it.leaf(np.zeros((1, *shape[1:]), dtype=value.data["dtype"]), node)
    if isinstance(value, list):
        return [_stand_in(it, v, node) for v in value]
    if isinstance(value, tuple):
        return tuple(_stand_in(it, v, node) for v in value)
    if isinstance(value, dict):
        return {k: _stand_in(it, v, node) for k, v in value.items()}
    return value


def _symbolic_like(it: Interpreter, value, n: Node):
    """The stand-in call's result, its tensors replaced by KerasTensors of node n."""
    if isinstance(value, (Tensor, Variable)):
        i = it.tensor_id(value, read=False)
        out = keras_tensor((None, *it.g[i].shape[1:]), n, it.g[i].dtype)
        n.outputs.append(out)
        return out
    if isinstance(value, list):
        return [_symbolic_like(it, v, n) for v in value]
    if isinstance(value, tuple):
        return tuple(_symbolic_like(it, v, n) for v in value)
    if isinstance(value, dict):
        return {k: _symbolic_like(it, v, n) for k, v in value.items()}
    return value


def symbolic_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """layer(keras_tensor): built and run once on stand-ins, kept as a node."""
    st = state(it)
    real_args = _stand_in(it, list(args), node)
    real_kwargs = _stand_in(it, dict(kwargs), node)
    st.symbolic += 1
    it.quiet += 1
    try:
        out = call_object(it, obj, real_args, real_kwargs, node)
    finally:
        st.symbolic -= 1
        it.quiet -= 1
    return _symbolic_like(it, out, Node(obj, list(args), dict(kwargs)))


def _map_graph(outputs: list) -> list[Node]:
    """Keras's map_graph: the nodes by decreasing depth, ties by first (pre-order) visit."""
    index: dict = {}  # layer -> first visit
    post: list[Node] = []
    stack = [(kt.data["node"], False) for kt in reversed(outputs)]
    done: set = set()
    while stack:
        n, finished = stack.pop()
        if finished:
            if n not in done:
                done.add(n)
                post.append(n)
            continue
        if n in done:
            continue
        index.setdefault(n.layer, len(index))
        stack.append((n, True))
        stack.extend((p, False) for p in reversed(n.parents()))
    node_depth: dict = {}
    layer_depth: dict = {}
    for n in reversed(post):
        depth = max(node_depth.setdefault(n, 0), layer_depth.get(n.layer, 0))
        layer_depth[n.layer] = depth
        node_depth[n] = depth
        for p in n.parents():
            node_depth[p] = max(depth + 1, node_depth.get(p, 0))
    layers = sorted(layer_depth, key=lambda layer: (-layer_depth[layer], index[layer]))
    rank = {layer: k for k, layer in enumerate(layers)}
    return sorted(post, key=lambda n: (-node_depth[n], rank[n.layer]))


def functional_init(it: Interpreter, obj: Instance, args, kwargs, node) -> None:
    """tf.keras.Model(inputs, outputs, name=None, trainable=True)."""
    inputs = args[0] if args else kwargs.pop("inputs", None)
    outputs = args[1] if len(args) > 1 else kwargs.pop("outputs", None)
    kwargs.pop("inputs", None)
    kwargs.pop("outputs", None)
    for what, value in (("inputs", inputs), ("outputs", outputs)):
        flat = _flatten([value])
        if not flat or not all(is_symbolic(v) for v in flat):
            it.refuse(node, f"tf.keras.Model({what}={_describe(value)})", "give Keras tensors")
    if "name" not in kwargs:
        kwargs["name"] = state(it).unique("functional")
    layer_init(it, obj, [], kwargs, node)
    obj.cls = FUNCTIONAL
    nodes = _map_graph(_flatten([outputs]))
    obj.data.update(inputs=inputs, outputs=outputs, nodes=nodes)
    obj.data["layers"] = list(dict.fromkeys(n.layer for n in nodes))
    obj.layer.built = True


def _functional_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Calling the model: its nodes replayed on the given tensors, in map_graph's order."""
    x = args[0] if args else kwargs.get("inputs")
    if any(is_symbolic(v) for v in _flatten([x])):
        return symbolic_call(it, obj, [x], {}, node)
    inputs = _flatten([obj.data["inputs"]])
    names = [kt.data["node"].layer.layer.name for kt in inputs]
    if isinstance(x, dict) and not isinstance(obj.data["inputs"], dict) and set(x) == set(names):
        x = [x[k] for k in names]  # a dict keyed by the Input layers' names
    given = _flatten([x])
    if len(given) != len(inputs):
        it.refuse(node, f"a model of {len(inputs)} inputs called on {len(given)}")
    value = {id(kt): v for kt, v in zip(inputs, given)}
    extra = {k: v for k, v in kwargs.items() if k == "training"}
    for n in obj.data["nodes"]:
        if not n.args and not n.kwargs:
            continue  # an InputLayer
        a = _replace(n.args, value)
        kw = {**_replace(n.kwargs, value), **extra}
        out = call_object(it, n.layer, a, kw, node)
        for kt, v in zip(n.outputs, _flatten([out])):
            value[id(kt)] = v
    return _replace(obj.data["outputs"], value)


def _replace(structure, value: dict):
    if is_symbolic(structure):
        return value[id(structure)]
    if isinstance(structure, list):
        return [_replace(v, value) for v in structure]
    if isinstance(structure, tuple):
        return tuple(_replace(v, value) for v in structure)
    if isinstance(structure, dict):
        return {k: _replace(v, value) for k, v in structure.items()}
    return structure


FUNCTIONAL = Class("Functional", (MODEL,), {"call": Builtin(_functional_call)})


def functional_subclass(cls: Class) -> Class:
    """A Model subclass made with (inputs, outputs): Keras 3 puts Functional between the
    class and Model; the class's own methods (train_step, compile, ...) still come first."""
    bases = tuple(FUNCTIONAL if b is MODEL else b for b in cls.bases)
    return Class(cls.name, bases, cls.methods, cls.kind, cls.pos, user=True)

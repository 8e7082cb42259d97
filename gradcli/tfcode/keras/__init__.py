"""Keras (and tf.Module) for gradcli's TensorFlow reader: classes, read statically.

Keras's own classes (Layer, Model, Dense, Sequential, the loss classes, optimizers) are
implemented here with the same object model (objects.py) the file's own classes use
(`class M(tf.keras.Model)` read from its `ast`), so a subclass's `call`, `build` and
properties meet Keras's `__call__` protocol (protocol.py), variable tracking and variable
lists (layers.py) exactly as an instance of a built-in class does. Nothing is imported or
run. The interpreter's hooks: `api_call` (tf.keras.* names), `define_class` (class
statements), `get_attribute`/`set_attribute` and `call_object`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradcli.tfcode import api_keras_calls as api_keras
from gradcli.tfcode.keras import activation_layers as _activation_layers
from gradcli.tfcode.keras import conv_transpose as _conv_transpose
from gradcli.tfcode.keras import depthwise_layers as _depthwise_layers
from gradcli.tfcode.keras import initializers, loss_functions
from gradcli.tfcode.keras import layers3d as _layers3d
from gradcli.tfcode.keras import merging as _merging
from gradcli.tfcode.keras import noise_layers as _noise_layers
from gradcli.tfcode.keras import preprocessing_layers as _preprocessing_layers
from gradcli.tfcode.keras import regularizers as _regularizers
from gradcli.tfcode.keras import shape_layers as _shape_layers
from gradcli.tfcode.keras.callbacks import CALLBACKS, METRICS
from gradcli.tfcode.keras.conv_layers import CONV_CLASSES
from gradcli.tfcode.keras.core_layers import CORE_CLASSES
from gradcli.tfcode.keras.functional import keras_input
from gradcli.tfcode.keras.layers import DENSE, LAYER, MODEL
from gradcli.tfcode.keras.library import (
    ACTIVATIONS,
    LOSS,
    LOSS_CLASSES,
    OPTIMIZER,
    OPTIMIZERS,
    apply_activation,
    keras_name,
)
from gradcli.tfcode.keras.models import MODULE, SEQUENTIAL
from gradcli.tfcode.keras.normalization import CLASSES as NORMALIZATION_CLASSES
from gradcli.tfcode.keras.objects import Class, Instance, KerasVariable, Property
from gradcli.tfcode.keras.optimizers_v1 import CLASSES as OPTIMIZERS_V1
from gradcli.tfcode.keras.protocol import (
    _MISSING,
    OBJECTS,
    call_object,
    get_attribute,
    instantiate,
    set_attribute,
    super_,
)
from gradcli.tfcode.keras.recurrent import CLASSES as RECURRENT_CLASSES
from gradcli.tfcode.keras.rnn_cells import CLASSES as RNN_CELL_CLASSES
from gradcli.tfcode.keras.train_steps import FUNCTIONS as STEP_FUNCTIONS
from gradcli.tfcode.keras.train_steps import METRIC_METHODS, MODEL_METHODS, OPTIMIZER_METHODS
from gradcli.tfcode.keras.wrappers import CLASSES as WRAPPER_CLASSES
from gradcli.tfcode.values import Module, Opaque, PyFunction

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter, Scope

NOT_KERAS = object()  # api_call's answer for a name Keras does not handle here
MISSING = _MISSING
VALUES = (*OBJECTS, KerasVariable)  # values whose attributes get_attribute answers

# keras.<name> -> the class it makes
CLASSES = {
    "layers.Layer": LAYER, "Layer": LAYER, "layers.Dense": DENSE,
    "Model": MODEL, "models.Model": MODEL,
    "Sequential": SEQUENTIAL, "models.Sequential": SEQUENTIAL,
    "losses.Loss": LOSS,
    **{f"losses.{n}": c for n, c in LOSS_CLASSES.items()},
    **{f"optimizers.{n}": c for n, c in OPTIMIZERS.items()},
    **CONV_CLASSES, **CORE_CLASSES, **_regularizers.CLASSES,
    **NORMALIZATION_CLASSES, **RECURRENT_CLASSES, **WRAPPER_CLASSES, **RNN_CELL_CLASSES,
    **_activation_layers.CLASSES, **_merging.CLASSES, **_shape_layers.CLASSES,
    **_depthwise_layers.CLASSES, **_noise_layers.CLASSES, **_preprocessing_layers.CLASSES,
    **_conv_transpose.CLASSES, **_layers3d.CLASSES,
    **{f"callbacks.{n}": c for n, c in CALLBACKS.items()},
    **{f"metrics.{n}": c for n, c in METRICS.items()},
}  # fmt: skip
# keras.<name> -> a function(it, args, kwargs, node) (keras.layers.add, ...)
FUNCTIONS = {**_merging.FUNCTIONS, **STEP_FUNCTIONS}
MODEL.methods.update(MODEL_METHODS)  # what a custom train_step uses (train_steps.py)
METRICS["Metric"].methods.update(METRIC_METHODS)
OPTIMIZER.methods.update(OPTIMIZER_METHODS)
TF_CLASSES = {"tf.Module": MODULE, **OPTIMIZERS_V1}


def resolve_class(path: str) -> Class | None:
    """The class a dotted name stands for (tf.keras.layers.Dense, tf.Module), else None."""
    if path in TF_CLASSES:
        return TF_CLASSES[path]
    name = keras_name(path)
    return CLASSES.get(name) if name is not None else None


def reader_names() -> list[str]:
    """The tf.keras.* (and tf.Module) names the reader reads, for docs/reading-code.md's list."""
    # (tf.keras.optimizers.legacy.* are not read: Keras 3 refuses to make them)
    names = [f"tf.keras.{n}" for n in CLASSES]
    names += [*TF_CLASSES, "tf.keras.Input", "tf.keras.layers.Input"]
    names += [f"tf.keras.{n}" for n in FUNCTIONS]
    names += [f"tf.keras.activations.{n}" for n in ACTIVATIONS]
    names += [f"tf.keras.initializers.{n}" for n in initializers.NAMES]
    names += [f"tf.keras.losses.{n}" for n in loss_functions.FUNCTIONS]
    names += [f"tf.keras.losses.{n}" for n in loss_functions.LEGACY]
    names += [f"tf.keras.metrics.{n}" for n in loss_functions.METRIC_FUNCTIONS]
    names += [f"tf.keras.metrics.{n}" for n in loss_functions.METRIC_ONLY]
    names = [n for n in names if keras_name(n) is not None]  # not the keras.*-only names
    names += api_keras.names()
    return names


def api_call(it: Interpreter, path: str, args, kwargs, node):
    """A tf.keras.* (or tf.Module, super()) call, or NOT_KERAS for any other name."""
    if path == "builtins.super":
        return super_(it, args, kwargs, node)
    name = keras_name(path)
    if name in _activation_layers.TF_KERAS_ONLY and path.startswith("keras."):
        from gradcli.tfcode.support import Raises

        head, _, last = path.rpartition(".")
        raise Raises("AttributeError", f"module '{head}' has no attribute '{last}'",
                     it.pos(node), f"only tf.keras (Keras's legacy layers) has {last}")  # fmt: skip
    cls = resolve_class(path)
    if cls is not None:
        return instantiate(it, cls, args, kwargs, node)
    if name is None:
        return NOT_KERAS
    if name in FUNCTIONS:
        return FUNCTIONS[name](it, args, kwargs, node)
    if name in ("Input", "layers.Input"):
        return keras_input(it, args, kwargs, node)
    head, _, last = name.rpartition(".")
    if head == "activations" and last in ACTIVATIONS:
        return apply_activation(it, last, args, kwargs, node)
    if head == "initializers" and last in initializers.NAMES:
        return initializers.construct(it, last, args, kwargs, node)
    if head == "losses" and last == "get":
        return loss_functions.get(it, path, args, kwargs, node)
    if head in ("losses", "metrics"):  # the loss functions (keras.metrics.<fn> too)
        fn = loss_functions.canonical(path)
        if fn is not None:
            return loss_functions.call(it, fn, args, kwargs, node, path)
        loss_functions.check_exists(it, path, node)
    done = api_keras.call(it, path, args, kwargs, node)  # keras.ops, keras.backend
    if done is not api_keras.NOT_KERAS:
        return done
    if head == "losses" and last[:1].isupper():
        it.refuse(node, path, "the Keras loss classes read are " + ", ".join(LOSS_CLASSES))
    return NOT_KERAS  # a function of the table (keras.losses.mean_squared_error), or refused


def source_notes(it: Interpreter, sources, expr) -> list[str]:
    """Notes for a gradient call whose sources are a Keras layer's variable list: which
    variable each element is (its Keras path), and the raw tf.Variables set on the layer
    (or its sub-layers), which Keras 3 does not list."""
    st = it.keras
    if st is None or not isinstance(sources, list) or id(sources) not in st.listed:
        return []
    listed, obj, _ = st.listed[id(sources)]
    if listed is not sources:
        return []
    notes = []
    if sources and expr is not None:
        named = ", ".join(f"[{k}] {v.path}" for k, v in enumerate(sources))
        notes.append(f"{ast.unparse(expr)}: {named}")
    stack = [(obj, ast.unparse(expr.value) if isinstance(expr, ast.Attribute) else "layer")]
    seen: set[int] = set()
    while stack:
        layer, text = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        for name, _var, line in layer.layer.untracked:
            notes.append(
                f"{text}.{name} (a tf.Variable set on a Keras layer, line {line}) is not among "
                f"{ast.unparse(expr)}: Keras 3 tracks only the variables add_weight makes and "
                f"its sub-layers' ones; pass {text}.{name} to the gradient call itself (the "
                "tape watches it), or make it with self.add_weight"
            )
        stack.extend(reversed(_named_layers(layer, text)))
    return notes


def _named_layers(obj: Instance, text: str) -> list:
    """(sub-layer, its Python expression) for the layers held in obj's attributes."""
    out = []
    pending = [(v, f"{text}.{k}") for k, v in obj.attrs.items()]
    if "layers" in obj.data:
        pending += [(v, f"{text}.layers[{i}]") for i, v in enumerate(obj.data["layers"])]
    while pending:
        v, where = pending.pop(0)
        if isinstance(v, Instance) and v.layer is not None:
            out.append((v, where))
        elif isinstance(v, (list, tuple)):
            pending += [(x, f"{where}[{i}]") for i, x in enumerate(v)]
        elif isinstance(v, dict):
            pending += [(x, f"{where}[{k!r}]") for k, x in v.items()]
    return out


# --- class statements --------------------------------------------------------------------------
def define_class(it: Interpreter, stmt: ast.ClassDef, scope: Scope) -> None:
    """class C(bases): its methods (defs, @property and its setter) and class constants."""
    if stmt.keywords:
        it.refuse(stmt, "a class with keywords (metaclass=...)")
    if stmt.decorator_list:
        it.refuse(stmt.decorator_list[0], "a class decorator")
    bases = []
    for b in stmt.bases:
        value = it.expr(b, scope)
        if isinstance(value, Opaque):  # a base class from code gradcli does not read
            scope.vars[stmt.name] = Opaque(stmt.lineno, f"class {stmt.name}({ast.unparse(b)})")
            return
        if isinstance(value, Module):
            value = resolve_class(value.path) or it.refuse(
                b, f"a class deriving from {value.path}", "gradcli reads subclasses of "
                "tf.keras.Model, tf.keras.layers.Layer, tf.Module and the Keras loss classes"
            )  # fmt: skip
        if not isinstance(value, Class):
            it.refuse(b, f"a class deriving from {ast.unparse(b)}")
        bases.append(value)
    cls = Class(stmt.name, tuple(bases), {}, pos=it.pos(stmt), user=True)
    for item in stmt.body:
        if isinstance(item, ast.FunctionDef):
            _method(it, cls, item, scope)
        elif isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
            continue  # a docstring
        elif isinstance(item, ast.Pass):
            continue
        elif isinstance(item, ast.Assign) and all(isinstance(t, ast.Name) for t in item.targets):
            value = it.expr(item.value, scope)
            for t in item.targets:
                cls.methods[t.id] = value
        else:
            it.refuse(item, f"{type(item).__name__} in a class body")
    scope.vars[stmt.name] = cls


def _method(it: Interpreter, cls: Class, stmt: ast.FunctionDef, scope: Scope) -> None:
    """A def in a class body: a method, a @property getter or its @name.setter."""
    decorators = list(stmt.decorator_list)
    kind = None
    if decorators and isinstance(decorators[0], ast.Name) and decorators[0].id == "property":
        kind = "property"
        decorators = decorators[1:]
    elif (
        decorators
        and isinstance(decorators[0], ast.Attribute)
        and decorators[0].attr == "setter"
        and isinstance(decorators[0].value, ast.Name)
    ):
        kind = "setter"
        decorators = decorators[1:]
    for d in decorators:
        if isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod"):
            it.refuse(d, f"@{d.id} methods")
    options: dict = {}
    wrappers = tuple(it.decorator(d, scope, options) for d in decorators)
    if "input_signature" in options:  # its specs leave out self: not read (signatures.py)
        it.refuse(stmt, f"@tf.function(input_signature=...) on a method ({stmt.name})")
    fn: PyFunction = it.make_function(stmt.name, stmt.args, stmt.body, scope, stmt)
    fn.wrappers = wrappers
    if not stmt.args.args:
        it.refuse(stmt, f"a method without self ({stmt.name})", "static methods are not read")
    if kind == "property":
        cls.methods[stmt.name] = Property(fn)
    elif kind == "setter":
        getter = cls.methods.get(stmt.name)
        if not isinstance(getter, Property):
            it.refuse(stmt, f"@{stmt.name}.setter without its @property")
        cls.methods[stmt.name] = Property(getter.getter, fn)
    else:
        cls.methods[stmt.name] = fn


__all__ = [
    "MISSING",
    "NOT_KERAS",
    "OBJECTS",
    "VALUES",
    "Instance",
    "api_call",
    "call_object",
    "define_class",
    "get_attribute",
    "set_attribute",
    "source_notes",
]

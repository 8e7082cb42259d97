"""How the reader's objects behave: instantiating a class, calling objects and methods,
reading and setting attributes, and Keras's Layer.__call__ (autocast, build on first call,
name scopes), for Keras's classes and the file's subclasses alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradcli.tfcode.keras.objects import (
    BoundMethod,
    Builtin,
    Class,
    Instance,
    KerasState,
    KerasVariable,
    Property,
    Super,
)
from gradcli.tfcode.support import Refused, _describe
from gradcli.tfcode.values import NP, PyFunction, Tensor, Unknown, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

OBJECTS = (Class, Instance, BoundMethod, Super)


def state(it: Interpreter) -> KerasState:
    """The program's Keras bookkeeping (made on first use)."""
    if it.keras is None:
        it.keras = KerasState()
    return it.keras


# --- calls -------------------------------------------------------------------------------------
def call_object(it: Interpreter, func, args, kwargs, node):
    """Call a class (instantiate), an instance (its __call__) or a bound method."""
    if isinstance(func, Class):
        return instantiate(it, func, args, kwargs, node)
    if isinstance(func, BoundMethod):
        return call_member(it, func.obj, func.fn, func.owner, args, kwargs, node)
    if isinstance(func, Instance):
        member, owner = func.cls.lookup("__call__")
        if member is None:
            it.refuse(node, f"calling a {func.cls.name} object (it has no __call__)")
        return call_member(it, func, member, owner, args, kwargs, node)
    it.refuse(node, f"calling {_describe(func)}")


def instantiate(it: Interpreter, cls: Class, args, kwargs, node) -> Instance:
    """cls(...): a new instance, then the __init__ its class (or a base) defines."""
    inst = Instance(cls)
    init, owner = cls.lookup("__init__")
    if init is None:
        if args or kwargs:
            it.refuse(node, f"{cls.name}(...) with arguments but no __init__")
        return inst
    call_member(it, inst, init, owner, args, kwargs, node)
    return inst


def call_member(it: Interpreter, obj: Instance, fn, owner: Class, args, kwargs, node):
    """A method call: a Builtin runs here, a def of the file is inlined with self bound."""
    if isinstance(fn, Builtin):  # Keras's own code: what it calls AutoGraph does not convert
        it.autograph.append(False)
        try:
            return fn.fn(it, obj, list(args), dict(kwargs), node)
        finally:
            it.autograph.pop()
    if isinstance(fn, PyFunction):
        st = state(it)
        st.methods.append((owner, obj))
        try:
            return it.call_function(fn, [obj, *args], kwargs, node)
        finally:
            st.methods.pop()
    if isinstance(fn, (Class, Instance, BoundMethod)):
        return call_object(it, fn, args, kwargs, node)
    it.refuse(node, f"calling {_describe(fn)}")


def super_(it: Interpreter, args, kwargs, node) -> Super:
    """super() (or super(Cls, self)) inside a method of the file's class."""
    st = state(it)
    if args and len(args) == 2 and isinstance(args[0], Class) and isinstance(args[1], Instance):
        return Super(args[1], args[0])
    if args or kwargs or not st.methods:
        it.refuse(node, "super() outside a method of a class")
    owner, obj = st.methods[-1]
    return Super(obj, owner)


# --- attributes --------------------------------------------------------------------------------
_MISSING = object()


def get_attribute(it: Interpreter, node, obj, name: str):
    """obj.name for the object model's values (a Keras variable's .name/.path/.trainable)."""
    if isinstance(obj, KerasVariable):
        if name == "name":
            return obj.short
        if name == "path":
            return obj.path
        if name == "trainable":
            return obj.keras_trainable
        return _MISSING
    if isinstance(obj, Super):
        member, owner = obj.obj.cls.lookup(name, after=obj.after)
        if member is None:
            it.refuse(node, f"super().{name} (no base class defines it)")
        return _member(it, obj.obj, member, owner, node)
    if isinstance(obj, Class):
        member, owner = obj.lookup(name)
        if member is None or isinstance(member, (Builtin, Property)):
            it.refuse(node, f"the class attribute {obj.name}.{name}")
        return member
    if isinstance(obj, Instance):
        if name in obj.attrs:
            return obj.attrs[name]
        member, owner = obj.cls.lookup(name)
        if member is None:
            it.refuse(node, f"the attribute .{name} of a {obj.cls.name}")
        return _member(it, obj, member, owner, node)
    return _MISSING


def _member(it: Interpreter, obj: Instance, member, owner: Class, node):
    if isinstance(member, Property):
        return call_member(it, obj, member.getter, owner, [], {}, node)
    if isinstance(member, (Builtin, PyFunction)):
        return BoundMethod(obj, member, owner)
    return member  # a class attribute (a number, a string ...)


def set_attribute(it: Interpreter, obj, name: str, value, node) -> None:
    """obj.name = value: a property's setter, else an instance attribute (Keras tracks
    layers and its own variables; a raw tf.Variable on a Keras layer is not tracked)."""
    if isinstance(obj, Unknown):
        raise Refused()
    if not isinstance(obj, Instance):
        it.refuse(node, f"setting the attribute .{name} of {_describe(obj)}")
    member, owner = obj.cls.lookup(name)
    if isinstance(member, Property):
        if member.setter is None:
            it.refuse(node, f"setting the read-only property .{name} of a {obj.cls.name}")
        call_member(it, obj, member.setter, owner, [value], {}, node)
        return
    raw = isinstance(value, Variable) and not isinstance(value, KerasVariable)
    if obj.layer is not None and raw:
        obj.layer.untracked.append((name, value, node.lineno))
    obj.attrs[name] = value


# --- Layer.__call__ ----------------------------------------------------------------------------
def autocast(it: Interpreter, value, dtype: str | None, node):
    """Keras's input conversion: float tensors (and NumPy arrays) become `dtype` tensors
    (NumPy arrays become tensors of their own dtype when dtype is None)."""
    if isinstance(value, (list, tuple)):
        items = [autocast(it, v, dtype, node) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: autocast(it, v, dtype, node) for k, v in value.items()}
    if isinstance(value, (Tensor, Variable)):
        i = it.tensor_id(value)
        node_dtype = it.g[i].dtype
        if dtype is not None and node_dtype.startswith("float") and node_dtype != dtype:
            return Tensor(it.emit("cast", [i], {"dtype": dtype}, node))
        if isinstance(value, Tensor) and value.kind == NP:
            return Tensor(i)
    return value


def shape_of(it: Interpreter, value):
    """The input shape Keras passes to build: a tuple of ints (a list of them for a list)."""
    if isinstance(value, (list, tuple)):
        return [shape_of(it, v) for v in value]
    if isinstance(value, (Tensor, Variable)):
        shape = tuple(it.g[it.tensor_id(value, read=False)].shape)
        if state(it).symbolic and shape:
            return (None, *shape[1:])  # Keras builds a Sequential symbolically
        return shape
    return None


def layer_call(it: Interpreter, obj: Instance, args, kwargs, node):
    """Keras 3's Layer.__call__: inputs cast to the compute dtype, build(input_shape) on the
    first call (in the layer's name scope), then call(...), masks passed on (masking.py)."""
    from gradcli.tfcode.keras import masking
    from gradcli.tfcode.keras.functional import is_symbolic, symbolic_call
    from gradcli.tfcode.support import _flatten

    _positional_tensors(it, obj, args, node)
    if any(is_symbolic(v) for v in _flatten([args, kwargs])):
        return symbolic_call(it, obj, args, kwargs, node)  # the functional API
    if obj.data.get("loaded") is not None:  # weights from model.load_weights: opaque
        return obj.data["loaded"]
    lay = obj.layer
    # inputs become tensors; floats are cast to the layer's dtype unless the layer sets
    # autocast = False (LayerNormalization)
    dtype = obj.data.get("dtype", "float32") if obj.data.get("autocast", True) else None
    given = (args, kwargs)
    args = [autocast(it, a, dtype, node) for a in args]
    kwargs = {k: autocast(it, v, dtype, node) for k, v in kwargs.items()}
    masking.keep_masks(it, given, (args, kwargs))
    fn, owner = obj.cls.lookup("call")
    if fn is None:
        it.refuse(node, f"calling a {obj.cls.name} that has no call method")
    st = state(it)
    # training=: given (not None), else the enclosing layer call's (Keras's call context),
    # else call's own default; passed only to a call that takes it (as mask=)
    training = kwargs.get("training")
    if training is None and st.training:
        training = st.training[-1]
    if isinstance(fn, PyFunction):
        params = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs]}
        for k in ("training", "mask"):
            if k in kwargs and k not in params:
                kwargs.pop(k)
        if "training" in params and training is not None:
            kwargs["training"] = training
    previous = masking.before_call(it, obj, fn, args, kwargs)
    from gradcli.tfcode.keras.noise_layers import clear_activity_losses, record_activity

    if not st.training and not it.quiet:  # the outermost layer call clears add_loss losses
        clear_losses(obj)
        clear_activity_losses(obj)
    st.training.append(training)
    try:
        with scoped(it, obj):
            if not lay.built:
                build, bowner = obj.cls.lookup("build")
                if args:
                    call_member(it, obj, build, bowner, [shape_of(it, args[0])], {}, node)
                lay.built = True
            out = call_member(it, obj, fn, owner, args, kwargs, node)
            record_activity(it, obj, out, node)  # activity_regularizer=
            masking.after_call(it, obj, args, kwargs, out, previous, node)
            return out
    finally:
        st.training.pop()


def clear_losses(obj: Instance) -> None:
    """Layer._clear_losses: the layer's add_loss losses and its sub-layers' (recursively)."""
    from gradcli.tfcode.keras.layers import sublayers

    stack, done = [obj], []
    while stack:
        layer = stack.pop()
        if any(layer is d for d in done) or layer.layer is None:
            continue
        done.append(layer)
        layer.layer.losses.clear()
        stack.extend(sublayers(layer))


def _positional_tensors(it: Interpreter, obj: Instance, args, node) -> None:
    """Keras 3's Layer.__call__ takes only tensors positionally (`layer(x, True)` and
    `layer([[1.0, 2.0]])` are its ValueError; preprocessing layers allow other values)."""
    from gradcli.runtime.errors import GradcliError
    from gradcli.tfcode.support import _flatten

    if obj.data.get("non_tensor_args"):
        return
    for arg in _flatten(list(args)):
        if isinstance(arg, (bool, int, float, str)):
            raise GradcliError(
                "ValueError: Only input tensors may be passed as positional arguments. The "
                f"following argument value should be passed as a keyword argument: {arg} "
                f"(of type {type(arg)})",
                it.pos(node),
            )


class scoped:
    """Keras's name scope of a layer (entered once: a layer inside its own scope is not
    entered again), which variable paths are made from."""

    def __init__(self, it: Interpreter, obj: Instance):
        self.st, self.obj = state(it), obj

    def __enter__(self):
        scopes = self.st.scopes
        self.entered = not scopes or scopes[-1][0] is not self.obj
        if self.entered:
            scopes.append((self.obj, self.obj.layer.name))

    def __exit__(self, *exc):
        if self.entered:
            self.st.scopes.pop()

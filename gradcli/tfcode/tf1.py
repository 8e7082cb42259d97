"""TF1 leftovers still in circulation, read as TensorFlow 2.21 runs them.

- `tf.compat.v1.variable_scope(name, reuse=)` and `tf.compat.v1.get_variable(name, shape,
  dtype=, initializer=, trainable=)`: variables named `scope/name`. In graph mode a scope
  shares them as TensorFlow's variable store does (`reuse=True` or `tf.compat.v1.AUTO_REUSE`
  returns the existing variable; a second one without reuse, a missing one with reuse=True,
  a shape that differs are TensorFlow's ValueErrors); eagerly every call makes a new
  variable, as TensorFlow's does.
- Initializers: constant, zeros, ones exactly; the random ones (the default for floats is
  glorot_uniform) from gradcli's seeded generator (numbers differ from TensorFlow's).
- `tf.compat.v1.scatter_update`/`scatter_nd_update`/`scatter_add`/`scatter_sub` and the
  variables' methods of those names: assignments (a new value, not differentiable).
- `tf.clip_by_norm`, `tf.clip_by_global_norm`: see clipping.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.clipping import SPECIAL as CLIPPING
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import Raises, Refused, _describe
from gradcli.tfcode.tf1_graph import SPECIAL as GRAPH_SPECIAL
from gradcli.tfcode.tf1_graph import enter_name_scope, exit_name_scope, renamed
from gradcli.tfcode.tf1_losses import SPECIAL as LOSSES_SPECIAL
from gradcli.tfcode.values import Module, Tensor, Unknown, Variable

AUTO_REUSE = "AUTO_REUSE"


@dataclass(frozen=True)
class Initializer:
    """A TF initializer: kind (constant, zeros, ones, normal, truncated_normal, uniform,
    glorot_uniform, glorot_normal) and its arguments."""

    kind: str
    args: tuple = ()


@dataclass(frozen=True)
class IndexedSlices:
    """tf.IndexedSlices(values, indices): for Variable.scatter_update."""

    values: object
    indices: object


@dataclass(eq=False)
class VariableScope:
    """A `with tf.compat.v1.variable_scope(...)` block: its name and reuse flag."""

    name: str
    reuse: object = None  # None, True or AUTO_REUSE

    def tf_enter(self, it) -> None:
        scopes = _state(it)["scopes"]
        outer = scopes[-1] if scopes else None
        full = f"{outer[0]}/{self.name}" if outer else self.name
        reuse = self.reuse if self.reuse is not None else (outer[1] if outer else None)
        scopes.append((full, reuse))
        enter_name_scope(it, self.name)  # a variable scope opens the name scope of its name

    def tf_exit(self, it) -> None:
        _state(it)["scopes"].pop()
        exit_name_scope(it)


def _state(it) -> dict:
    """The interpreter's TF1 variable store and open scopes (made on first use)."""
    return it.__dict__.setdefault("tf1_state", {"scopes": [], "store": {}})


# --- variable scopes and get_variable ------------------------------------------------------
def variable_scope(it, args, kwargs, node):
    name = args[0] if args else kwargs.get("name_or_scope")
    reuse = args[2] if len(args) > 2 else kwargs.get("reuse")
    if isinstance(reuse, Module) and reuse.path in ("tf.compat.v1.AUTO_REUSE", "tf.AUTO_REUSE"):
        reuse = AUTO_REUSE
    if not isinstance(name, str):
        it.refuse(node, f"variable_scope of {_describe(name)}", "give its name as a string")
    if reuse not in (None, True, False, AUTO_REUSE):
        it.refuse(node, f"variable_scope(..., reuse={_describe(reuse)})")
    return VariableScope(name, None if reuse is False else reuse)


@dataclass(eq=False)
class NameScope:
    """A `with tf.name_scope(...)` block: names only (graph mode: tf.Variable names)."""

    name: str | None = None

    def tf_enter(self, it) -> None:
        enter_name_scope(it, self.name)

    def tf_exit(self, it) -> None:
        exit_name_scope(it)


def name_scope(it, args, kwargs, node):
    name = args[0] if args else kwargs.get("name")
    return NameScope(name if isinstance(name, str) else None)


def get_variable(it, args, kwargs, node):
    """tf.compat.v1.get_variable(name, shape=None, dtype=None, initializer=None, ...)."""
    from gradcli.tfcode.builtins import _dtype_arg, _shape

    params = ("name", "shape", "dtype", "initializer", "regularizer", "trainable")
    bound = dict(zip(params, args))
    bound.update(kwargs)
    for k in bound:
        if k not in (*params, "collections", "use_resource", "validate_shape"):
            it.refuse(node, f"get_variable(..., {k}=...)")
    if bound.get("regularizer") is not None:
        it.refuse(node, "get_variable(..., regularizer=...)")
    name = bound.get("name")
    if not isinstance(name, str):
        it.refuse(node, f"get_variable with the name {_describe(name)}")
    shape = bound.get("shape")
    shape = None if shape is None else _shape(it, shape, node)
    dtype = _dtype_arg(it, bound.get("dtype"), node)
    trainable = bound.get("trainable")
    trainable = True if trainable is None else trainable
    state = _state(it)
    scope, reuse = state["scopes"][-1] if state["scopes"] else ("", None)
    full = f"{scope}/{name}" if scope else name
    if it.graph_mode:  # the variable store: shared by name
        old = state["store"].get(full)
        if old is not None:
            if reuse is None:
                _value_error(
                    it,
                    node,
                    f"Variable {full} already exists, disallowed. Did you mean to set "
                    "reuse=True or reuse=tf.AUTO_REUSE in VarScope?",
                )
            found = tuple(it.g[old.value].shape)
            if shape is not None and shape != found:
                _value_error(
                    it,
                    node,
                    f"Trying to share variable {full}, but specified shape {shape} and found "
                    f"shape {found}.",
                )
            return old
        if reuse is True:
            _value_error(
                it,
                node,
                f"Variable {full} does not exist, or was not created with tf.get_variable(). "
                "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
            )
    init = bound.get("initializer")
    if isinstance(init, Initializer):
        if shape is None:
            it.refuse(node, "get_variable with an initializer and no shape")
        value = initial_value(it, init, shape, dtype or "float32")
    elif init is None:
        if shape is None:
            it.refuse(node, "get_variable without a shape or an initial value")
        kind = "glorot_uniform" if (dtype or "float32").startswith("float") else "zeros"
        value = initial_value(it, Initializer(kind), shape, dtype or "float32")
    else:
        value = it.as_array(init, node, dtype)
    from gradcli.tfcode.builtins import _variable

    var = _variable(it, [value], {"trainable": trainable, "name": full}, node)
    renamed(it, var, full)
    if it.graph_mode:
        state["store"][full] = var
    return var


def _value_error(it, node, message: str):
    raise Raises("ValueError", message, it.pos(node))


def initializer(kind: str, names: tuple = ()):
    """tf.*_initializer(...) and tf.compat.v1.*_initializer(...): an Initializer record."""

    def make(it, args, kwargs, node):
        values = dict(zip(names, args))
        values.update({k: v for k, v in kwargs.items() if k in names})
        tensors = any(isinstance(v, (Unknown, Tensor, Variable)) for v in values.values())
        if tensors and kind != "constant":
            it.refuse(node, f"a {kind} initializer with tensor arguments")
        return Initializer(kind, tuple(values.get(n) for n in names))

    return make


def initial_value(it, init: Initializer, shape: tuple, dtype: str) -> np.ndarray:
    """An initializer's value: exact for constant/zeros/ones, gradcli's generator otherwise."""
    if init.kind == "zeros":
        return np.zeros(shape, dtype=dtype)
    if init.kind == "ones":
        return np.ones(shape, dtype=dtype)
    if init.kind == "constant":
        value = init.args[0] if init.args and init.args[0] is not None else 0
        arr = np.asarray(it.as_array(value, None, dtype))
        if arr.size == 1:
            return np.full(shape, arr.reshape(()), dtype=dtype)
        if arr.size != math.prod(shape):
            raise GradcliError(f"constant_initializer: {arr.size} values for the shape {shape}")
        return arr.reshape(shape).astype(dtype)
    rng = it.rng
    if init.kind in ("normal", "truncated_normal"):
        mean = init.args[0] if init.args and init.args[0] is not None else 0.0
        std = init.args[1] if len(init.args) > 1 and init.args[1] is not None else 1.0
        arr = rng.normal(mean, std, shape)
        if init.kind == "truncated_normal":
            arr = np.clip(arr, mean - 2 * std, mean + 2 * std)
        return arr.astype(dtype)
    if init.kind == "uniform":
        low = init.args[0] if init.args and init.args[0] is not None else -0.05
        high = init.args[1] if len(init.args) > 1 and init.args[1] is not None else 0.05
        return rng.uniform(low, high, shape).astype(dtype)
    fan_in, fan_out = _fans(shape)
    if init.kind == "glorot_normal":
        return rng.normal(0.0, math.sqrt(2.0 / (fan_in + fan_out)), shape).astype(dtype)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, shape).astype(dtype)


def _fans(shape: tuple) -> tuple[int, int]:
    """Keras's fans: (1, 1) for scalars, the one dimension for vectors, the last two times
    the receptive field (the leading dimensions) otherwise."""
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


# --- scatter assignments -------------------------------------------------------------------
def scatter_function(how: str):
    """tf.compat.v1.scatter_update(ref, indices, updates) and friends."""

    def call(it, args, kwargs, node):
        from gradcli.tfcode.builtins import _opt

        ref = _opt(args, kwargs, 0, "ref")
        if not isinstance(ref, Variable):
            it.refuse(node, f"tf.compat.v1.{how} of {_describe(ref)}", "give a tf.Variable")
        indices = _opt(args, kwargs, 1, "indices")
        updates = _opt(args, kwargs, 2, "updates")
        return scatter_assign(it, ref, how, indices, updates, node)

    return call


def scatter_method(it, var: Variable, name: str, args, kwargs, node):
    """Variable.scatter_update(IndexedSlices) / .scatter_nd_update(indices, updates) ..."""
    from gradcli.tfcode.builtins import _opt

    if name.startswith("scatter_nd"):
        indices = _opt(args, kwargs, 0, "indices")
        updates = _opt(args, kwargs, 1, "updates")
    else:
        delta = _opt(args, kwargs, 0, "sparse_delta")
        if not isinstance(delta, IndexedSlices):
            it.refuse(node, f"Variable.{name} of {_describe(delta)}", "give tf.IndexedSlices")
        indices, updates = delta.indices, delta.values
    return scatter_assign(it, var, name, indices, updates, node)


def scatter_assign(it, var: Variable, how: str, indices, updates, node) -> Variable:
    """The variable's new value after the scatter (not differentiable, as assign is)."""
    if isinstance(indices, Unknown) or isinstance(updates, Unknown):
        raise Refused()
    old = it.value(var.value)
    new = old.copy()
    idx = np.asarray(it.as_array(indices, node), dtype=np.int64)
    upd = it.as_array(updates, node, str(old.dtype))
    if how.startswith("scatter_nd"):
        depth = idx.shape[-1] if idx.ndim else 0
        keys = [tuple(k) for k in idx.reshape(-1, depth)]
        upd = np.broadcast_to(upd, (len(keys), *old.shape[depth:]))
    else:
        keys = [int(k) for k in idx.reshape(-1)]
        upd = np.broadcast_to(upd, (len(keys), *old.shape[1:]))
    for key, u in zip(keys, upd):
        try:
            if how.endswith("update"):
                new[key] = u
            elif how.endswith("add"):
                new[key] = new[key] + u
            else:
                new[key] = new[key] - u
        except IndexError:
            it.refuse(node, f"a scatter index outside [0, {old.shape[0]})", UNRECORDED)
    var.value = it.leaf(new.astype(old.dtype), node).id
    var.versions.append(var.value)
    return var


def indexed_slices(it, args, kwargs, node):
    from gradcli.tfcode.builtins import _opt

    return IndexedSlices(_opt(args, kwargs, 0, "values"), _opt(args, kwargs, 1, "indices"))


SPECIAL = {
    **CLIPPING,
    **GRAPH_SPECIAL,
    **LOSSES_SPECIAL,
    "tf.compat.v1.variable_scope": variable_scope,
    "tf.name_scope": name_scope,
    "tf.compat.v1.name_scope": name_scope,
    "tf.compat.v1.get_variable": get_variable,
    "tf.compat.v1.scatter_update": scatter_function("scatter_update"),
    "tf.compat.v1.scatter_nd_update": scatter_function("scatter_nd_update"),
    "tf.compat.v1.scatter_add": scatter_function("scatter_add"),
    "tf.compat.v1.scatter_sub": scatter_function("scatter_sub"),
    "tf.compat.v1.scatter_nd_add": scatter_function("scatter_nd_add"),
    "tf.compat.v1.scatter_nd_sub": scatter_function("scatter_nd_sub"),
    "tf.IndexedSlices": indexed_slices,
    "tf.constant_initializer": initializer("constant", ("value",)),
    "tf.compat.v1.constant_initializer": initializer("constant", ("value",)),
    "tf.zeros_initializer": initializer("zeros"),
    "tf.compat.v1.zeros_initializer": initializer("zeros"),
    "tf.ones_initializer": initializer("ones"),
    "tf.compat.v1.ones_initializer": initializer("ones"),
    "tf.random_normal_initializer": initializer("normal", ("mean", "stddev")),
    "tf.compat.v1.random_normal_initializer": initializer("normal", ("mean", "stddev")),
    "tf.compat.v1.truncated_normal_initializer": initializer(
        "truncated_normal", ("mean", "stddev")
    ),
    "tf.random_uniform_initializer": initializer("uniform", ("minval", "maxval")),
    "tf.compat.v1.random_uniform_initializer": initializer("uniform", ("minval", "maxval")),
    "tf.compat.v1.glorot_uniform_initializer": initializer("glorot_uniform"),
    "tf.compat.v1.glorot_normal_initializer": initializer("glorot_normal"),
}
SCATTER_METHODS = {"scatter_update", "scatter_nd_update", "scatter_add", "scatter_sub",
                   "scatter_nd_add", "scatter_nd_sub"}  # fmt: skip

"""TF1 graph mode's bookkeeping: variable collections, graph names, graph-mode optimizers.

TensorFlow 2.21 (verified with tools/tf_code_reference.py and a scratch TensorFlow):
- every tf.Variable / get_variable joins the graph's collections in creation order:
  `tf.compat.v1.global_variables()` lists them all, `trainable_variables()` the trainable
  ones (eagerly both are empty: eager TensorFlow keeps no collections);
- in graph mode a variable's name is unique in the graph: `tf.Variable()` is `Variable`,
  `Variable_1`, ..., prefixed by the open name scopes (a variable_scope opens the name scope
  of its name, made unique: entering `layer` twice gives `layer` then `layer_1`);
  `get_variable` names it by the variable scope alone (`layer/w`);
- `optimizer.compute_gradients(loss, var_list=None)` with a tensor loss (graph mode) is
  tf.gradients(loss, var_list) with var_list defaulting to the trainable variables, and
  returns [(gradient or None, variable), ...]; an empty list is ValueError "No variables to
  optimize."; a loss whose dtype is not a float is ValueError "Invalid type ..."; `minimize`
  raises "No gradients provided for any variable, ..." when every gradient is None and
  otherwise returns an operation (Session.run gives None for it).
"""

from __future__ import annotations

import ast

import numpy as np

from gradcli.core.problem import NONE
from gradcli.tfcode.support import Raises, Refused, _describe, _flatten
from gradcli.tfcode.values import GraphOp, Opaque, Tensor, Unknown, Variable, first_opaque

DEFAULT_SOURCES = "tf.compat.v1.trainable_variables()"  # how default var_lists are named
FLOATS = "[tf.float32, tf.float64, tf.float16, tf.bfloat16]"  # the optimizers' valid dtypes
# TensorFlow's default op names for the registry ops a loss usually ends in (graph mode);
# Python operators name theirs in lower case (x * y is "mul", x / y "truediv")
OPERATOR_NAMES = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "pow": "pow",
                  "neg": "Neg", "matmul": "MatMul"}  # fmt: skip


def _state(it) -> dict:
    from gradcli.tfcode.tf1 import _state as tf1_state

    state = tf1_state(it)
    state.setdefault("variables", [])  # every variable, in creation order
    state.setdefault("names", {})  # the graph's names in use (lower case) -> next suffix
    state.setdefault("name_scopes", [])  # the open name scopes' full names
    return state


def unique_name(it, name: str) -> str:
    """The graph's unique name for `name` (TensorFlow's: name, name_1, name_2 ...; names
    compare in lower case)."""
    used = _state(it)["names"]
    key = name.lower()
    i = used.get(key, 0)
    used[key] = i + 1
    if i == 0:
        return name
    base = key
    while key in used:
        key = f"{base}_{i}"
        i += 1
    used[key] = 1
    return f"{name}_{i - 1}"


def scoped(it, name: str) -> str:
    """`name` inside the open name scopes (not yet made unique)."""
    scopes = _state(it)["name_scopes"]
    return f"{scopes[-1]}/{name}" if scopes else name


def enter_name_scope(it, name: str | None) -> None:
    """A name scope opens (graph mode: its unique full name; eagerly: nothing)."""
    if not it.graph_mode:
        return
    scopes = _state(it)["name_scopes"]
    if name is None or name == "":
        scopes.append(scopes[-1] if scopes else "")
    elif name.endswith("/"):  # an absolute scope name, used as given
        scopes.append(name[:-1])
    else:
        scopes.append(unique_name(it, scoped(it, name)))


def exit_name_scope(it) -> None:
    if it.graph_mode:
        _state(it)["name_scopes"].pop()


def created(it, var: Variable) -> None:
    """A new tf.Variable: listed in the collections; in graph mode named uniquely."""
    _state(it)["variables"].append(var)
    if it.graph_mode:
        var.tf_name = unique_name(it, scoped(it, var.tf_name or "Variable"))


def renamed(it, var: Variable, full: str) -> None:
    """get_variable's variable: named by its variable scope alone."""
    if it.graph_mode:
        var.tf_name = full
        _state(it)["names"].setdefault(full.lower(), 1)


def collection(it, trainable: bool, scope=None) -> list:
    """tf.compat.v1.trainable_variables()/global_variables(scope=None): the graph's variables
    in creation order (eagerly: [], as TensorFlow keeps no collections)."""
    import re

    if not it.graph_mode:
        return []
    out = [v for v in _state(it)["variables"] if v.trainable or not trainable]
    if scope is not None:
        out = [v for v in out if re.match(scope, v.tf_name or "")]
    return out


def _collection_function(trainable: bool):
    def call(it, args, kwargs, node):
        scope = args[0] if args else kwargs.get("scope")
        if scope is not None and not isinstance(scope, str):
            it.refuse(node, f"the scope {_describe(scope)}", "give a string")
        return collection(it, trainable, scope)

    return call


def variable_text(it, var: Variable) -> str:
    """str(variable) in graph mode: <tf.Variable 'w:0' shape=(2,) dtype=float32>."""
    n = it.g[var.value]
    return f"<tf.Variable '{var.tf_name or 'Variable'}:0' shape={tuple(n.shape)} dtype={n.dtype}>"


def op_name(it, i: int) -> str:
    """The graph name TensorFlow gives the op computing node i (best effort: its default
    name, made unique by the earlier nodes of the same name; name scopes are not known)."""
    from gradcli.tfcode.api_raw_ops import SOURCES
    from gradcli.tfcode.api_table import lookup

    names = dict(OPERATOR_NAMES)
    for raw, (path, _) in SOURCES.items():
        row = lookup(path)
        if row is not None:
            names.setdefault(row.op, raw)
    names.update({"sum": "Sum", "mean": "Mean", "max": "Max", "min": "Min", "prod": "Prod"})
    g = it.g
    name = names.get(g[i].op, g[i].op)
    count = sum(1 for j in range(i) if names.get(g[j].op, g[j].op).lower() == name.lower())
    return name if count == 0 else f"{name}_{count}"


def tensor_text(it, value) -> str:
    """str(tensor) in graph mode: Tensor("Sum:0", shape=(), dtype=float32)."""
    if isinstance(value, Variable):
        return variable_text(it, value)
    n = it.g[value.id]
    return f'Tensor("{op_name(it, value.id)}:0", shape={tuple(n.shape)}, dtype={n.dtype})'


def graph_gradients(it, method: str, bound: dict, node):
    """Graph mode's optimizer.compute_gradients/minimize(loss tensor, var_list=None, ...):
    one gradient call, as tf.gradients(loss, var_list) at the loss's feeds."""
    from gradcli.tfcode.calls import CallKind, _compute, arg_asts
    from gradcli.tfcode.keras.optimizers_v1 import PARAMS

    params = PARAMS[method]
    loss, var_list = bound.get("loss"), bound.get("var_list")
    if isinstance(loss, Unknown) and first_opaque([loss]) is None:
        raise Refused()
    if not isinstance(loss, (Tensor, Variable, Unknown)):
        it.refuse(node, f"{method} of {_describe(loss)}", "give the loss tensor")
    if isinstance(loss, (Tensor, Variable)):
        dtype = it.g[it.tensor_id(loss, read=False)].dtype
        if dtype not in ("float32", "float64"):
            message = f"Invalid type tf.{dtype} for {_tensor_name(it, loss)}, expected: {FLOATS}."
            raise Raises("ValueError", message, it.pos(node), "the loss must be a float tensor")
    asts = arg_asts(node, params)
    if var_list is None:
        variables = collection(it, True)
        sources = list(variables)
        names = [f"{DEFAULT_SOURCES}[{k}]" for k in range(len(variables))]
        source_ast = ast.List([ast.parse(n, mode="eval").body for n in names], ast.Load())
    else:
        variables = _flatten([var_list])
        sources, source_ast = var_list, asts[params.index("var_list")]
    for v in variables:
        if isinstance(v, Unknown):
            raise Refused()
        if not isinstance(v, Variable):
            it.refuse(node, f"{method}(..., var_list=) holding {_describe(v)}")
    if not variables:
        raise Raises("ValueError", "No variables to optimize.", it.pos(node))
    seeds = bound.get("grad_loss")
    kind = CallKind(method)
    before = len(it.calls)
    grads = _compute(it, None, node, kind, loss, sources, seeds, NONE, [asts[0], source_ast])
    grads = _flatten([grads])
    if var_list is None and len(it.calls) > before:
        listed = ", ".join(f"[{k}] {v.label} (line {v.pos.line})" for k, v in enumerate(variables))
        it.calls[-1].notes.append(
            f"var_list defaults to {DEFAULT_SOURCES}, every trainable variable made so far, in "
            f"creation order: {listed}"
        )
    if method == "compute_gradients":
        return list(zip(grads, variables))
    if all(g is None for g in grads):
        texts = [variable_text(it, v) for v in variables]
        raise Raises(
            "ValueError",
            "No gradients provided for any variable, check your graph for ops that do not "
            f"support gradients, between variables {texts!r} and loss {tensor_text(it, loss)}.",
            it.pos(node),
            "every gradient is None: the call's explanation names each one's cause",
        )
    return GraphOp(method)


def _tensor_name(it, value) -> str:
    if isinstance(value, Variable):
        return f"{value.tf_name or 'Variable'}:0"
    return f"{op_name(it, value.id)}:0"


def _global_step(create: bool | None):
    """tf.compat.v1.train.get_or_create_global_step() (create None), create_global_step()
    (True), get_global_step() (False: None until one exists): an int64 scalar variable
    "global_step", not trainable (the optimizers' global_step= is read and ignored)."""

    def call(it, args, kwargs, node):
        import numpy as np

        from gradcli.tfcode.builtins import _variable

        state = _state(it)
        old = state.get("global_step")
        if old is not None and create is True:
            raise Raises("ValueError", '"global_step" already exists.', it.pos(node))
        if old is not None or create is False:
            return old
        var = _variable(it, [np.int64(0)], {"trainable": False, "name": "global_step"}, node)
        state["global_step"] = var
        return var

    return call


def _exponential_decay(it, args, kwargs, node):
    """tf.compat.v1.train.exponential_decay(learning_rate, global_step, decay_steps,
    decay_rate, staircase=False): its value now (a constant: nothing differentiates it)."""
    import math

    import numpy as np

    names = ("learning_rate", "global_step", "decay_steps", "decay_rate", "staircase", "name")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    values = {}
    for k in ("learning_rate", "global_step", "decay_steps", "decay_rate"):
        v = bound.get(k)
        if isinstance(v, Unknown):
            raise Refused()
        values[k] = float(it.as_array(v, node).reshape(())) if v is not None else None
    if None in values.values():
        it.refuse(node, "exponential_decay without all four of its arguments")
    p = values["global_step"] / values["decay_steps"]
    if bound.get("staircase"):
        p = math.floor(p)
    rate = values["learning_rate"] * values["decay_rate"] ** p
    return it.leaf(np.asarray(rate, dtype="float32"), node)


V1 = "tf.compat.v1."
V1_RENAMED = {  # TF1 names whose TF2 function has another name
    "nn.softmax_cross_entropy_with_logits_v2": "tf.nn.softmax_cross_entropy_with_logits",
    "log": "tf.math.log", "div": "tf.math.divide", "mod": "tf.math.floormod",
    "log_sigmoid": "tf.math.log_sigmoid", "random_normal": "tf.random.normal",
    "random_uniform": "tf.random.uniform",
}  # fmt: skip


def v1_alias(path: str, known) -> str:
    """tf.compat.v1.X as the TF2 name computing the same (tf.X or tf.math.X, or a renamed
    one) when `known(name)` says the reader reads it; else the path itself."""
    if not path.startswith(V1):
        return path
    rest = path[len(V1) :]
    for name in (V1_RENAMED.get(rest), f"tf.{rest}", f"tf.math.{rest}"):
        if name is not None and known(name):
            return name
    return path


def placeholder(it, args, kwargs, node):
    """tf.compat.v1.placeholder(dtype, shape=None, name=None): a constant holding the value the
    program's `feed_dict` gives it (read where the placeholder is made, or, when the fed names
    are only bound later, as in a training loop's batches, at the first point the program
    binds them: read_program's probe, then the program is read again)."""
    from gradcli.tfcode.builtins import _dtype_arg, _opt

    dtype = _dtype_arg(it, _opt(args, kwargs, 0, "dtype"), node) or "float32"
    name = it.target_name
    if name in it.fed:  # found by the probe (an opaque value: unknown from here on)
        fed = it.fed[name]
        return fed if isinstance(fed, Opaque) else it.leaf(np.asarray(fed).astype(dtype), node)
    if name not in it.feeds:
        it.refuse(node, f"a placeholder ({name}) that no Session.run feeds a value")
    expr = it.feeds[name]
    if not _bound(it, expr, it.globals):
        it.deferred.append(name)
        it.refuse(
            node,
            f"a placeholder ({name}) fed with {ast.unparse(expr)}, which gradcli could not compute",
            "define the fed data before the graph, or bind its names at module level",
        )
    fed = it.expr(expr, it.globals)
    if isinstance(fed, Opaque):  # fed from code gradcli does not read
        return fed
    return it.leaf(it.as_array(fed, node, dtype), node)


def _bound(it, expr, scope) -> bool:
    """Every name the expression reads is bound in scope to a known (or opaque) value."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            try:
                value = scope.lookup(n.id)
            except KeyError:
                if n.id in ("np", "tf", "len", "range", "list", "float", "int"):
                    continue
                return False
            if isinstance(value, Unknown) and not isinstance(value, Opaque):
                return False
    return True


def probe_feeds(it, scope) -> None:
    """After a statement, in the probe pass: the deferred feeds whose names are now bound are
    computed (their values kept); once all are known the probe stops."""
    from gradcli.runtime.errors import GradcliError
    from gradcli.tfcode.support import Stop

    for name in it.probe:
        if name in it.fed or not _bound(it, it.feeds[name], scope):
            continue
        try:
            value = it.expr(it.feeds[name], scope)
            if isinstance(value, Opaque):
                it.fed[name] = value
            elif not isinstance(value, Unknown):
                it.fed[name] = it.as_array(value, None)
        except (Refused, Raises, GradcliError):
            continue
    if all(name in it.fed for name in it.probe):
        raise Stop()


def _graph_mode(it, args, kwargs, node):
    """disable_eager_execution() / disable_v2_behavior(): TF1 graph mode from here on."""
    it.graph_mode = True
    return None


def _reset_default_graph(it, args, kwargs, node):
    """tf.compat.v1.reset_default_graph(): a new graph, its collections, names and variable
    store empty (tensors made before stay readable: TensorFlow raises only when they meet
    the new graph's, which gradcli does not follow)."""
    state = _state(it)
    for key in ("variables", "name_scopes"):
        state[key] = []
    state["names"], state["store"] = {}, {}
    state.pop("global_step", None)
    return None


def _ignored(it, args, kwargs, node):
    return None


def _session(it, args, kwargs, node):
    from gradcli.tfcode.values import Session

    return Session()


def _truncated_normal(it, args, kwargs, node):
    """tf.random.truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None) (and
    tf.compat.v1.truncated_normal): draws within two standard deviations of the mean, from
    gradcli's generator (a constant: tensor mean/stddev are refused)."""
    import numpy as np

    from gradcli.tfcode.builtins import _dtype_arg, _shape

    names = ("shape", "mean", "stddev", "dtype", "seed", "name")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    mean, std = bound.get("mean", 0.0), bound.get("stddev", 1.0)
    mean, std = (0.0 if mean is None else mean), (1.0 if std is None else std)
    if not all(isinstance(v, (int, float)) for v in (mean, std)):
        it.refuse(node, "truncated_normal with a tensor mean or stddev")
    shape = _shape(it, bound.get("shape"), node)
    dtype = _dtype_arg(it, bound.get("dtype"), node) or "float32"
    draws = it.rng.standard_normal(shape)
    bad = np.abs(draws) > 2.0
    while bad.any():  # redrawn until inside [-2, 2], as TensorFlow's truncation
        draws[bad] = it.rng.standard_normal(int(bad.sum()))
        bad = np.abs(draws) > 2.0
    return it.leaf((draws * std + mean).astype(dtype), node)


# tf.compat.v1.GraphKeys.X: the collection's name (GLOBAL_VARIABLES is "variables")
GRAPH_KEYS = {"GLOBAL_VARIABLES": "variables", "TRAINABLE_VARIABLES": "trainable_variables",
              "UPDATE_OPS": "update_ops", "REGULARIZATION_LOSSES": "regularization_losses",
              "LOSSES": "losses", "LOCAL_VARIABLES": "local_variables",
              "MODEL_VARIABLES": "model_variables", "SUMMARIES": "summaries"}  # fmt: skip


def _get_collection(it, args, kwargs, node):
    """tf.compat.v1.get_collection(key, scope=None): the variable collections as
    trainable_variables()/global_variables(); the others (update_ops, losses, ...) are empty,
    as nothing the reader reads adds to them."""
    from gradcli.tfcode.values import Module

    key = args[0] if args else kwargs.get("key")
    scope = args[1] if len(args) > 1 else kwargs.get("scope")
    if isinstance(key, Module):
        key = GRAPH_KEYS.get(key.path.rsplit(".", 1)[-1], key.path)
    if not isinstance(key, str):
        it.refuse(node, f"get_collection of {_describe(key)}", "give tf.compat.v1.GraphKeys.X")
    if key in ("trainable_variables", "variables"):
        return collection(it, key == "trainable_variables", scope)
    return []


class ControlDependencies:
    """`with tf.control_dependencies([...])`: orders ops; changes no value gradcli computes."""

    def tf_enter(self, it) -> None:
        pass

    def tf_exit(self, it) -> None:
        pass


def _control_dependencies(it, args, kwargs, node):
    return ControlDependencies()


def layers_attribute(it, node, path: str):
    """tf.compat.v1.layers.X: TensorFlow 2.21 with Keras 3 raises AttributeError."""
    name = path.rsplit(".", 1)[-1]
    message = f"`{name}` is not available with Keras 3."
    raise Raises("AttributeError", message, it.pos(node), "use tf.keras.layers instead")


SPECIAL = {
    "tf.compat.v1.get_collection": _get_collection,
    "tf.control_dependencies": _control_dependencies,
    "tf.compat.v1.disable_v2_behavior": _graph_mode,
    "tf.compat.v1.reset_default_graph": _reset_default_graph,
    "tf.compat.v1.set_random_seed": _ignored,
    "tf.compat.v1.random.set_random_seed": _ignored,
    "tf.compat.v1.InteractiveSession": _session,
    "tf.random.truncated_normal": _truncated_normal,
    "tf.compat.v1.truncated_normal": _truncated_normal,
    "tf.compat.v1.random.truncated_normal": _truncated_normal,
    "tf.compat.v1.train.get_or_create_global_step": _global_step(None),
    "tf.compat.v1.train.create_global_step": _global_step(True),
    "tf.compat.v1.train.get_global_step": _global_step(False),
    "tf.compat.v1.train.exponential_decay": _exponential_decay,
    "tf.compat.v1.trainable_variables": _collection_function(True),
    "tf.compat.v1.global_variables": _collection_function(False),
    "tf.compat.v1.all_variables": _collection_function(False),
}

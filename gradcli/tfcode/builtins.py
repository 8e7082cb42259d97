"""The TensorFlow functions the reader interprets itself: values, tapes, control, TF1 mode.

Each takes the interpreter and the call's arguments; the op-like functions are rows of
api.py instead. The tables at the end map Python operators and names to registry ops.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import api_table as api
from gradcli.tfcode.datasets import SPECIAL as DATASETS
from gradcli.tfcode.numpy_values import FIXES as NUMPY_FIXES
from gradcli.tfcode.numpy_values import SPECIAL as NUMPY_SPECIAL
from gradcli.tfcode.packing import pack
from gradcli.tfcode.pybuiltins import BUILTINS, PYTHON_BUILTINS  # noqa: F401 (re-exported)
from gradcli.tfcode.random_values import _random, _seed, _tf_random
from gradcli.tfcode.signatures import tensor_spec
from gradcli.tfcode.support import DTYPE_NAMES, _describe, _is_python, _kind, _python_dtype
from gradcli.tfcode.tf1 import SCATTER_METHODS
from gradcli.tfcode.tf1 import SPECIAL as TF1_SPECIAL
from gradcli.tfcode.tf1_graph import created, placeholder
from gradcli.tfcode.values import (
    NP,
    TF,
    DType,
    GraphOp,
    PyFunction,
    Session,
    Tape,
    Tensor,
    Variable,
    Wrapper,
)

if TYPE_CHECKING:  # annotations only: interpret.py imports this module
    from gradcli.tfcode.interpret import Interpreter


# --- special functions (values, tapes, control) ------------------------------------------------
def _opt(args, kwargs, i: int, name: str, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _dtype_arg(it: Interpreter, value, node) -> str | None:
    if value is None:
        return None
    if isinstance(value, DType):
        return value.name
    if isinstance(value, str) and value in DTYPE_NAMES:
        return DTYPE_NAMES[value]
    it.refuse(node, f"the dtype {_describe(value)}")


def _variable(it: Interpreter, args, kwargs, node):
    init = _opt(args, kwargs, 0, "initial_value")
    trainable = _opt(args, kwargs, 1, "trainable", True)
    name = kwargs.get("name")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node)
    for k in kwargs:
        if k not in ("initial_value", "trainable", "name", "dtype"):
            it.refuse(node, f"tf.Variable(..., {k}=...)")
    if callable(init) or isinstance(init, PyFunction):
        it.refuse(node, "a callable initial value")
    arr = it.as_array(init, node, dtype)
    if trainable is None:
        trainable = True
    if not isinstance(trainable, bool):
        it.refuse(node, "trainable= that is not True or False")
    leaf = it.leaf(arr, node)
    label = it.target_name or (name if isinstance(name, str) else f"<variable line {node.lineno}>")
    it.store(leaf.id, init, ast.unparse(node), label)
    it.keep_stale(leaf.id, [init])
    var = Variable(leaf.id, label, trainable, it.pos(node), name, [leaf.id])
    created(it, var)  # the collections; graph mode's unique name (tf1_graph.py)
    return var


def _constant(it: Interpreter, args, kwargs, node):
    value = _opt(args, kwargs, 0, "value")
    dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
    if isinstance(value, (Tensor, Variable)):
        if it.symbolic(value):
            hint = "tf.constant takes values, not graph tensors: tf.identity or tf.cast"
            it.refuse(node, "tf.constant of a traced (symbolic) tensor", hint)
        i = it.tensor_id(value)
        if dtype is not None and it.g[i].dtype != dtype:
            return Tensor(it.emit("cast", [i], {"dtype": dtype}, node))
        return Tensor(i, TF)
    return it.leaf(it.as_array(value, node, dtype), node)


def _numpy_array(it: Interpreter, args, kwargs, node):
    value = _opt(args, kwargs, 0, "object")
    dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
    if isinstance(value, (Tensor, Variable)) and _kind(value) == TF:
        value = it.leave(value, node, ast.unparse(node), "np.array")
    value = pack(it, value, node, numpy=True) or value  # a list holding tensors
    if isinstance(value, Tensor):
        if dtype is not None and it.g[value.id].dtype != dtype:
            return Tensor(it.emit("cast", [value.id], {"dtype": dtype}, node), NP)
        return Tensor(value.id, NP)
    arr = it.python_array(value, node)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype == np.int64 or arr.dtype.kind == "f" or arr.dtype == bool:
        pass
    return it.leaf(arr, node, NP)


def _filled(fill):
    def make(it: Interpreter, args, kwargs, node):
        shape = _opt(args, kwargs, 0, "shape")
        dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node) or "float32"
        shape = _shape(it, shape, node)
        return it.leaf(np.full(shape, fill, dtype=dtype), node)

    return make


def _filled_like(fill):
    def make(it: Interpreter, args, kwargs, node):
        like = _opt(args, kwargs, 0, "input")
        dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
        if isinstance(like, (Tensor, Variable)):
            n = it.g[it.tensor_id(like, read=False)]
            return it.leaf(np.full(n.shape, fill, dtype=dtype or n.dtype), node)
        arr = it.python_array(like, node)
        return it.leaf(np.full(arr.shape, fill, dtype=dtype or _python_dtype([like])), node)

    return make


def _np_filled(fill):
    def make(it: Interpreter, args, kwargs, node):
        shape = _shape(it, _opt(args, kwargs, 0, "shape"), node)
        dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node) or "float64"
        return it.leaf(np.full(shape, fill, dtype=dtype), node, NP)

    return make


def _fill(it: Interpreter, args, kwargs, node):
    shape = _shape(it, _opt(args, kwargs, 0, "dims"), node)
    value = it.as_array(_opt(args, kwargs, 1, "value"), node)
    return it.leaf(np.full(shape, value, dtype=value.dtype), node)


def _range(it: Interpreter, args, kwargs, node):
    nums = [a for a in args]
    if not all(isinstance(a, (int, float)) for a in nums):
        it.refuse(node, "tf.range with non-constant bounds")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node) or _python_dtype(nums)
    return it.leaf(np.arange(*nums).astype(dtype), node)


def _eye(it: Interpreter, args, kwargs, node):
    n = _opt(args, kwargs, 0, "num_rows")
    m = kwargs.get("num_columns")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node) or "float32"
    if not isinstance(n, int):
        it.refuse(node, "tf.eye with a non-constant size")
    return it.leaf(np.eye(n, m, dtype=dtype), node)


def _dropout(it: Interpreter, args, kwargs, node):
    """tf.nn.dropout through its table row, with a seed from the reader's generator when the
    call gives none (unseeded calls get different masks, as in TensorFlow)."""
    if len(args) < 4:
        kwargs = {**kwargs, "seed": _seed(it, kwargs.get("seed"), node)}
    args = list(args)
    rate = args[1] if len(args) > 1 else kwargs.get("rate")
    if isinstance(rate, (Tensor, Variable)) and it.g[rate.id if isinstance(rate, Tensor) else
                                                    rate.value].shape == ():  # fmt: skip
        # a scalar tensor rate (TF1's 1 - keep_prob placeholder): its value; TensorFlow gives
        # the rate no gradient either
        value = float(it.as_array(rate, node))
        if len(args) > 1:
            args[1] = value
        else:
            kwargs = {**kwargs, "rate": value}
    return it.table_call("tf.nn.dropout", api.TF["tf.nn.dropout"], args, kwargs, node)


def _shape(it: Interpreter, shape, node) -> tuple[int, ...]:
    if isinstance(shape, int):
        return (shape,)
    if isinstance(shape, (list, tuple)) and any(isinstance(d, (Tensor, Variable)) for d in shape):
        shape = [_dim(it, d, node) for d in shape]  # (tf.shape(x)[0], 4): known here
    if isinstance(shape, (list, tuple)) and all(isinstance(d, int) and d >= 0 for d in shape):
        return tuple(shape)
    if isinstance(shape, (Tensor, Variable)):
        return tuple(int(d) for d in it.value(it.tensor_id(shape, read=False)).reshape(-1))
    it.refuse(node, f"the shape {_describe(shape)}", "give a list of Python integers")


def _dim(it: Interpreter, d, node):
    """One dimension given as a scalar integer tensor (tf.shape(x)[0]): its value."""
    if isinstance(d, (Tensor, Variable)):
        arr = it.value(it.tensor_id(d, read=False))
        if arr.shape == () and arr.dtype.kind in "iu":
            return int(arr)
    return d


def _tf_shape(it: Interpreter, args, kwargs, node):
    """tf.shape(input, out_type=tf.int32): the shape as an integer tensor (the reader knows
    it, also while tf.function traces, where TensorFlow computes it in the graph)."""
    x = _opt(args, kwargs, 0, "input")
    dtype = _dtype_arg(it, _opt(args, kwargs, 1, "out_type"), node) or "int32"
    if dtype not in ("int32", "int64"):
        it.refuse(node, f"tf.shape(..., out_type={dtype})")
    if isinstance(x, (Tensor, Variable)):
        shape = it.g[it.tensor_id(x, read=False)].shape
    else:
        shape = it.as_array(x, node).shape
    return it.leaf(np.array(shape, dtype=dtype), node)


def _gradient_tape(it: Interpreter, args, kwargs, node):
    persistent = _opt(args, kwargs, 0, "persistent", False)
    watch = _opt(args, kwargs, 1, "watch_accessed_variables", True)
    if not isinstance(persistent, bool) or not isinstance(watch, bool):
        it.refuse(node, "GradientTape options that are not True or False")
    it.all_tapes += 1
    trace = it.tracing[-1] if it.tracing else None
    return Tape(it.all_tapes, persistent, watch, it.pos(node), start=0, end=-1, trace=trace)


def _cond(it: Interpreter, args, kwargs, node):
    pred = _opt(args, kwargs, 0, "pred")
    true_fn = _opt(args, kwargs, 1, "true_fn")
    false_fn = _opt(args, kwargs, 2, "false_fn")
    for fn in (true_fn, false_fn):
        if not isinstance(fn, PyFunction):
            it.refuse(
                node, f"tf.cond with a branch that is {_describe(fn)}", "give a lambda or def"
            )
    if _is_python(pred):
        chosen = true_fn if bool(pred) else false_fn
        return it.call_function(chosen, [], {}, node)
    if it.graph_mode or it.tracing:
        where = "TF1 graph code" if it.graph_mode else f"{it.tracing[-1].fn.name} (traced)"
        it.refuse(
            node,
            f"tf.cond on a tensor in {where}",
            "there TensorFlow builds both branches into the graph and gives the untaken "
            "branch's inputs zero gradients, not None",
        )
    a = it.call_function(true_fn, [], {}, node)
    b = it.call_function(false_fn, [], {}, node)
    for branch in (a, b):
        if not isinstance(branch, (Tensor, Variable, int, float)) or isinstance(branch, bool):
            it.refuse(node, f"a tf.cond branch returning {_describe(branch)}")
    result = it.op_call("cond", [pred, a, b], {}, node)
    taken_true = bool(it.value(it.tensor_id(pred, read=False)).reshape(()))
    taken = a if taken_true else b
    if isinstance(taken, (int, float)):
        message = f"Cannot convert the argument `type_value`: {taken!r} to a TensorFlow DType."
        # TensorFlow 2.21's error depends on the gradient call's unconnected_gradients
        # (tests/data/tf_code_reference.json seed_001_0 for 'zero', tf_errors.json for None)
        missing = f"'{type(taken).__name__}' object has no attribute '_id'"
        default = {"type": "AttributeError", "message": missing}
        it.notes[result.id] = (
            {"type": "TypeError", "message": message, "if_none": default},
            (
                f"TensorFlow 2.21 raises in tape.gradient here (TypeError with "
                "unconnected_gradients='zero', else AttributeError): the taken "
                f"{'true' if taken_true else 'false'} branch of tf.cond (line {node.lineno}) "
                f"returns the Python number {taken!r}; gradcli answers for "
                f"tf.constant({taken!r}), as TensorFlow does for that form"
            ),
        )
    return result


def _add_n(it: Interpreter, args, kwargs, node):
    """tf.add_n(inputs): the inputs added in order (AddN's gradient is g to each, as add's)."""
    inputs = _opt(args, kwargs, 0, "inputs")
    if not isinstance(inputs, (list, tuple)) or not inputs:
        it.refuse(node, f"tf.add_n of {_describe(inputs)}", "give a non-empty list of tensors")
    shapes = {it.g[it.tensor_id(v, read=False)].shape for v in inputs if _is_tensor(v)}
    if len(shapes) > 1 or not all(_is_tensor(v) for v in inputs):
        raise GradcliError(
            "tf.add_n needs tensors of one shape (TensorFlow raises InvalidArgumentError)",
            it.pos(node),
        )
    total = inputs[0]
    for item in inputs[1:]:
        total = it.op_call("add", [total, item], {}, node)
    return total if len(inputs) > 1 else it.op_call("identity", [total], {}, node)


def _is_tensor(v) -> bool:
    return isinstance(v, (Tensor, Variable))


def _ignored(it, args, kwargs, node):
    return None


def _graph_mode(it: Interpreter, args, kwargs, node):
    it.graph_mode = True
    return None


def _session(it, args, kwargs, node):
    return Session()


def _initializer(it: Interpreter, args, kwargs, node):
    return GraphOp("initializer")


def _wrapping(wrapper: Wrapper):
    def make(it: Interpreter, args, kwargs, node):
        return it.wrap(wrapper, args, kwargs, node)

    return make


def _py_function(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.custom import py_function_call

    return py_function_call(it, args, kwargs, node)


def _numpy_function(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.custom import numpy_function_call

    return numpy_function_call(it, args, kwargs, node)


def _one_hot(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.one_hot import one_hot

    return one_hot(it, args, kwargs, node)


def _while_loop(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.loops import while_loop

    return while_loop(it, args, kwargs, node)


def _tensor_array(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.tensorarray import tensor_array

    return tensor_array(it, args, kwargs, node)


def _tf_gradients(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.calls import gradients_call

    return gradients_call(it, node, args, kwargs)


def _where(it: Interpreter, args, kwargs, node):
    """tf.where(condition, x, y); with the condition alone, TensorFlow's indices of its true
    (nonzero) elements, an int64 tensor of shape (n, rank) that no gradient passes through."""
    if len(args) > 1 or {"x", "y"} & set(kwargs):
        return it.table_call("tf.where", api.TF["tf.where"], args, kwargs, node)
    for k in kwargs:
        if k not in ("condition", "name"):
            it.refuse(node, f"tf.where(..., {k}=...)")
    condition = args[0] if args else kwargs.get("condition")
    if it.graph_mode or not isinstance(condition, (Tensor, Variable, list, tuple, bool)):
        it.refuse(node, "tf.where(condition) of " + type(condition).__name__)
    indices = np.argwhere(it.as_array(condition, node)).astype(np.int64)
    return it.leaf(indices, node)


SPECIAL = {
    "tf.Variable": _variable,
    "tf.where": _where,
    "tf.constant": _constant,
    "tf.convert_to_tensor": _constant,
    "np.array": _numpy_array,
    "np.asarray": _numpy_array,
    "tf.zeros": _filled(0),
    "tf.ones": _filled(1),
    "tf.zeros_like": _filled_like(0),
    "tf.ones_like": _filled_like(1),
    "tf.fill": _fill,
    "tf.range": _range,
    "tf.eye": _eye,
    "tf.random.normal": _tf_random("normal"),
    "tf.shape": _tf_shape,
    "tf.random.uniform": _tf_random("uniform"),
    "tf.nn.dropout": _dropout,
    "np.random.normal": _random("normal"),
    "np.random.uniform": _random("uniform"),
    "np.random.randn": _random("randn"),
    "np.random.rand": _random("rand"),
    "tf.random.set_seed": _ignored,
    "np.random.seed": _ignored,
    "tf.GradientTape": _gradient_tape,
    "tf.cond": _cond,
    "tf.compat.v1.disable_eager_execution": _graph_mode,
    "tf.compat.v1.Session": _session,
    "tf.compat.v1.placeholder": placeholder,
    "tf.compat.v1.global_variables_initializer": _initializer,
    "tf.compat.v1.initialize_all_variables": _initializer,
    "tf.compat.v1.local_variables_initializer": _initializer,
    "np.zeros": _np_filled(0),
    "np.ones": _np_filled(1),
    "tf.gradients": _tf_gradients,
    "tf.function": _wrapping(Wrapper.TF_FUNCTION),
    "tf.TensorSpec": tensor_spec,  # tf.function's input_signature (signatures.py)
    "tf.custom_gradient": _wrapping(Wrapper.CUSTOM_GRADIENT),
    "tf.py_function": _py_function,
    "tf.numpy_function": _numpy_function,
    "tf.add_n": _add_n,
    "tf.one_hot": _one_hot,
    "tf.math.add_n": _add_n,
    "tf.while_loop": _while_loop,
    "tf.compat.v1.while_loop": _while_loop,
    "tf.TensorArray": _tensor_array,
    "tf.TensorShape": _ignored,  # shape_invariants: read, not needed
    **TF1_SPECIAL,
    **NUMPY_SPECIAL,
    **PYTHON_BUILTINS,
    **DATASETS,
}
LEAVE_FIX = {
    "numpy": "drop .numpy() and keep the tensor",
    "float": "drop float() and keep the tensor",
    "int": "drop int() and keep the tensor",
    "item": "drop .item() and keep the tensor",
    "tolist": "drop .tolist() and keep the tensor",
    "np.array": "use the tensor itself, or tf.constant outside the tape",
    "numpy_function": "use TensorFlow ops in the function (tf.py_function differentiates "
    "them), or give it a gradient with @tf.custom_gradient",
    "predict": "call the model itself under the tape, model(x, training=False), to keep the "
    "gradient",
    "evaluate": "compute the loss with TensorFlow ops under the tape: loss_fn(y, model(x))",
}
for _n in api.NP:
    LEAVE_FIX[_n] = f"use tf.{_n[3:]}" if f"tf.{_n[3:]}" in api.TF else "use the tf.* equivalent"
LEAVE_FIX.update({"np.mean": "use tf.reduce_mean", "np.sum": "use tf.reduce_sum",
                  "np.max": "use tf.reduce_max", "np.min": "use tf.reduce_min",
                  "np.prod": "use tf.reduce_prod", "np.power": "use tf.pow",
                  "np.dot": "use tf.matmul or tf.tensordot", **NUMPY_FIXES})  # fmt: skip
TENSOR_METHODS = {"numpy", "item", "tolist", "read_value", "value", "get_shape", "__float__",
                  "astype"}  # fmt: skip
VARIABLE_METHODS = {"assign", "assign_add", "assign_sub", *SCATTER_METHODS}
BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
          ast.MatMult: "matmul", ast.Mod: "floormod", ast.FloorDiv: "floordiv"}  # fmt: skip
PYOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a**b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}  # fmt: skip
COMPARE = {ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal",
           ast.Eq: "equal", ast.NotEq: "not_equal"}  # fmt: skip
PYCOMPARE = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
}  # fmt: skip

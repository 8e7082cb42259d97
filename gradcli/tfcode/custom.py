"""Calls whose gradient is not their body's own: @tf.custom_gradient, tf.py_function and
tf.numpy_function.

A @tf.custom_gradient call and a tf.py_function call become one core `custom` node, the node
the spec front end's `functions:` with `grad:` builds (core/ops/control.py): its inputs are
the call's parameters, then the tensors its gradient reads, then the body's value
(graph.custom_arity). `gradcli check` compares its gradient with the body's true derivative;
explain names its parameters (Source.functions holds a CustomFunction per name).

- @tf.custom_gradient: the body runs as Python runs it (TensorFlow records its ops too, but
  the custom op's gradient replaces theirs). The grad function is read once, at the call,
  with dy a placeholder: the nodes it emits are a template that the node's rule replays in
  whatever graph a gradient is built in (an analysis' copy, a second derivative). The
  trainable variables the body reads that are not arguments are parameters too, and
  grad(dy, variables=...) returns their gradients, as in TensorFlow.
- tf.py_function: TensorFlow differentiates its body with a tape of its own that gives an
  input the body does not reach zeros: the rule is the body's vector-Jacobian product.
- tf.numpy_function: the inputs leave TensorFlow at the call (a leaves_tape boundary), the
  body computes on NumPy values, and no gradient flows, as in TensorFlow.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from gradcli.core.graph import (
    BODY_GRADIENT,
    CONST_OP,
    CUSTOM_OP,
    CUSTOM_PARAMS,
    GRADIENT,
    INPUT_OP,
    Graph,
)
from gradcli.core.ops import ZERO_GRAD, const, emit
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import _describe, _flatten, _short
from gradcli.tfcode.values import NP, TF, DType, PyFunction, Tensor, Variable


@dataclass
class CustomFunction:
    """A custom call's function as check and explain name it (core Source.functions)."""

    params: list[str]
    grads: list | None  # per parameter: None where no gradient is given; None: the body's own


class GradientTemplate:
    """The nodes a grad function emitted when it was read, dy a placeholder; `rule` replays
    them for one parameter in the graph a gradient is being built in."""

    def __init__(self, graph: Graph, dy: int, slots: dict[int, int], results: list):
        self.graph = graph  # the program graph that holds the template
        self.dy = dy  # the placeholder; the template's nodes come after it
        self.slots = slots  # program node read from outside -> the custom node's input slot
        self.results = results  # per parameter: the program node of its gradient, or None

    def rule(self, b, node, g: int, i: int):
        """The custom node's gradient for input i, given its upstream gradient g."""
        root = self.results[i] if i < len(self.results) else None
        if root is None:
            return None
        nodes = self.graph.nodes
        mapped = {self.dy: g, **{p: node.inputs[slot] for p, slot in self.slots.items()}}
        need, stack = set(), [root]
        while stack:
            k = stack.pop()
            if k in mapped or k in need:
                continue
            need.add(k)
            if k > self.dy:
                stack.extend(nodes[k].inputs)
        for k in sorted(need):
            n = nodes[k]
            if n.op in (INPUT_OP, CONST_OP):  # a constant of the grad function, or a shared one
                mapped[k] = const(b.graph, n.attrs["value"], n.dtype, entry=n.entry, pos=n.pos)
                continue
            attrs = {a: v for a, v in n.attrs.items() if a != "taken"}  # a cond resolves anew
            ins = tuple(mapped[j] for j in n.inputs)
            mapped[k] = emit(b.graph, n.op, ins, attrs, kind=GRADIENT, origin=b.origin,
                             entry=n.entry, pos=n.pos)  # fmt: skip
        return mapped[root]


def body_gradient(b, node, g: int, i: int):
    """tf.py_function's gradient for input i: its body's, zeros where the body does not reach."""
    from gradcli.core.autodiff import gradients

    param = node.inputs[i]
    got = gradients(b.graph, [node.inputs[-1]], [param], [g]).results[0]
    return b.const(0.0, like=param) if got is None or got is ZERO_GRAD else got


# --- @tf.custom_gradient --------------------------------------------------------------------
def custom_gradient_call(it, fn: PyFunction, args: list, kwargs: dict, node):
    """A call of a @tf.custom_gradient function (fn is the function it wraps)."""
    names, flat = _arguments(fn, args)
    params = [_param(it, v, node) for v in flat]
    watcher: list = []
    it.watchers.append(watcher)
    it.autograph.append(False)  # tf.custom_gradient's wrapper (TensorFlow's code) calls it
    try:
        out = it.call_function(fn, args, kwargs, node)
    finally:
        it.autograph.pop()
        it.watchers.pop()
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and isinstance(out[1], PyFunction)):
        it.refuse(
            node, f"a @tf.custom_gradient function returning {_describe(out)}",
            "return (y, grad), grad a def or lambda",
        )  # fmt: skip
    y, grad = out
    if not isinstance(y, (Tensor, Variable)):
        it.refuse(node, f"a @tf.custom_gradient function whose value is {_describe(y)}")
    body = it.tensor_id(y)
    variables = [v for v in watcher if not any(v is a for a in flat)]
    names += [v.label for v in variables]
    params += [v.value for v in variables]
    takes = [a.arg for a in (*grad.args.args, *grad.args.kwonlyargs)]
    if variables and "variables" not in takes:
        it.refuse(
            node,
            f"a @tf.custom_gradient grad_fn without a variables= parameter ({fn.name} reads "
            f"{', '.join(v.label for v in variables)}; TensorFlow rejects it)",
            f"give {grad.name} a variables=None parameter and return (input gradients, variable "
            "gradients)",
        )
    template, error = _read_gradient(it, grad, y, flat, names, params, variables, node)
    reads = sorted((s, k) for k, s in template.slots.items() if s >= len(params))
    inputs = [*params, *(k for _, k in reads), body]
    given = [None if r is None else grad.name for r in template.results]
    key = _function_key(it, fn.name, CustomFunction(names, given), node)
    attrs = {"function": key, "grad": template.rule, CUSTOM_PARAMS: len(params)}
    out = it.emit(CUSTOM_OP, inputs, attrs, node, record=False)
    _record(it, out, params)
    if error is not None:
        note = (
            f"TensorFlow raises {error['type']} in tape.gradient here: {error['message']} "
            "(gradcli gives no gradient where none is returned)"
        )
        it.notes[out] = (error, note)
    return Tensor(out)


def _read_gradient(it, grad: PyFunction, y, flat, names, params, variables, node):
    """Read the grad function once with a placeholder dy: its template, and TF's error if its
    results do not match the parameters (TensorFlow raises that in tape.gradient)."""
    y_node = it.g[it.tensor_id(y, read=False)]
    dy = it.leaf(np.ones(y_node.shape, y_node.dtype), node)
    it.quiet += 1
    try:
        extra = {"variables": list(variables)} if variables else {}
        got = it.call_function(grad, [dy], extra, node)
    finally:
        it.quiet -= 1
    end = len(it.g)
    error = None
    if variables:
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            it.refuse(node, f"{grad.name} returning {_describe(got)}",
                      "with variables, return (input gradients, variable gradients)")  # fmt: skip
        given, var_grads = got[0], list(_flatten(got[1]))
    else:
        given, var_grads = got, []
    flat_given = _flatten(given) if isinstance(given, (list, tuple, dict)) else [given]
    if len(flat_given) != len(flat):
        message = (
            f"custom_gradient function expected to return {len(flat)} gradients, but returned "
            f"{len(flat_given)} instead."
        )
        error = {"type": "ValueError", "message": message}
    elif len(var_grads) != len(variables):
        message = "Must return gradient for each variable from @custom_gradient grad_fn."
        error = {"type": "ValueError", "message": message}
    flat_given = (flat_given + [None] * len(flat))[: len(flat)]
    var_grads = (var_grads + [None] * len(variables))[: len(variables)]
    results = []
    for value, p, name in zip([*flat_given, *var_grads], params, names):
        results.append(_result(it, grad, value, p, name, node))
    slots: dict[int, int] = {}
    for k, p in enumerate(params):
        slots.setdefault(p, k)
    reads = [j for k in range(dy.id + 1, end) for j in it.g[k].inputs if j < dy.id]
    for j in [*reads, *(r for r in results if r is not None and r < dy.id)]:
        if j not in slots and it.g[j].op != CONST_OP:  # what the gradient reads: an input too
            slots[j] = len(slots) + len(params) - len(set(params))
    return GradientTemplate(it.g, dy.id, slots, results), error


def _result(it, grad: PyFunction, value, param: int, name: str, node):
    """The program node of one gradient the grad function returned (None: no gradient)."""
    if value is None:
        return None
    if not isinstance(value, (Tensor, Variable)):
        it.refuse(node, f"{grad.name} returning {_describe(value)} as the gradient of {name}",
                  "return a tensor or None")  # fmt: skip
    r = it.tensor_id(value, read=False)
    got, want = it.g[r], it.g[param]
    if (got.shape, got.dtype) != (want.shape, want.dtype):
        raise GradcliError(
            f"{grad.name} returns a gradient of shape {got.shape} and dtype {got.dtype} for "
            f"{name}, of shape {want.shape} and dtype {want.dtype}: TensorFlow passes it on as "
            "it is; gradcli needs the parameter's shape and dtype",
            grad.pos,
        )
    return r


# --- tf.py_function and tf.numpy_function -----------------------------------------------------
def py_function_call(it, args: list, kwargs: dict, node):
    """tf.py_function(func, inp, Tout): a custom node whose gradient is its body's own."""
    func, inputs, dtype = _py_call_args(it, "tf.py_function", args, kwargs, node)
    params = [_param(it, v, node) for v in inputs]
    value = it.call_function(func, [Tensor(p) for p in params], {}, node)
    body = _converted(it, value, dtype, node, strict=True)
    names = [a.arg for a in func.args.args][: len(params)]
    names += [f"argument {k + 1}" for k in range(len(names), len(params))]
    name = func.name if func.name != "<lambda>" else "py_function"
    key = _function_key(it, name, CustomFunction(names, None), node)
    attrs = {"function": key, "grad": body_gradient, CUSTOM_PARAMS: len(params),
             BODY_GRADIENT: True}  # fmt: skip
    out = it.emit(CUSTOM_OP, [*params, body.id], attrs, node, record=False)
    _record(it, out, params)
    return Tensor(out)


def numpy_function_call(it, args: list, kwargs: dict, node):
    """tf.numpy_function(func, inp, Tout): the inputs leave TensorFlow at the call."""
    func, inputs, dtype = _py_call_args(it, "tf.numpy_function", args, kwargs, node)
    code = ast.unparse(node)
    left = []
    for v in inputs:
        if isinstance(v, (Tensor, Variable)):
            left.append(it.leave(v, node, code, "numpy_function", what="its inputs"))
        else:
            left.append(it.leaf(it.as_array(v, node, dtype), node, NP))
    value = it.call_function(func, left, {}, node)
    if isinstance(value, (list, tuple)):
        return [_converted(it, v, dtype, node, strict=False) for v in value]
    return _converted(it, value, dtype, node, strict=False)


def _py_call_args(it, path: str, args, kwargs, node):
    func = args[0] if args else kwargs.get("func")
    inp = args[1] if len(args) > 1 else kwargs.get("inp")
    tout = args[2] if len(args) > 2 else kwargs.get("Tout")
    for k in kwargs:
        if k not in ("func", "inp", "Tout", "name", "stateful"):
            it.refuse(node, f"{path}(..., {k}=...)")
    if not isinstance(func, PyFunction) or func.wrappers:
        it.refuse(node, f"{path} of {_describe(func)}", "give a def or lambda of this file")
    if isinstance(tout, (list, tuple)):
        if len(tout) != 1:
            it.refuse(node, f"{path} with {len(tout)} outputs", "one output")
        tout = tout[0]
    if not isinstance(tout, DType):
        it.refuse(node, f"{path} with Tout={_describe(tout)}", "give a dtype such as tf.float32")
    inputs = list(inp) if isinstance(inp, (list, tuple)) else ([] if inp is None else [inp])
    return func, inputs, tout.name


def _converted(it, value, dtype: str, node, strict: bool) -> Tensor:
    """A Python function's result as the TensorFlow tensor the call returns."""
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    if isinstance(value, (Tensor, Variable)):
        i = it.tensor_id(value)
        if it.g[i].dtype == dtype or (not strict and _kind_of(value) != TF):
            return Tensor(i, TF)  # tf.numpy_function keeps a NumPy array's own dtype
        if strict and _kind_of(value) == TF:
            it.refuse(node, f"a py_function returning {it.g[i].dtype} for Tout {dtype}", UNRECORDED)
        return Tensor(it.emit("cast", [i], {"dtype": dtype}, node), TF)
    if isinstance(value, (int, float, bool, list, tuple, np.ndarray)):
        return it.leaf(it.as_array(value, node, dtype), node)
    it.refuse(node, f"a Python function returning {_describe(value)} to TensorFlow")


def _kind_of(value) -> str:
    return TF if isinstance(value, Variable) else value.kind


# --- shared ---------------------------------------------------------------------------------
def _arguments(fn: PyFunction, args: list) -> tuple[list[str], list]:
    """The call's positional arguments flattened as tf.nest does, each with a name."""
    params = [a.arg for a in fn.args.args]
    names, flat = [], []
    stack = [(params[k] if k < len(params) else f"argument {k + 1}", v)
             for k, v in enumerate(args)][::-1]  # fmt: skip
    while stack:
        name, v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend([(f"{name}[{k}]", x) for k, x in enumerate(v)][::-1])
        else:
            names.append(name)
            flat.append(v)
    return names, flat


def _param(it, value, node) -> int:
    """The node a parameter of a custom call stands for (TensorFlow converts it to a tensor)."""
    if isinstance(value, (Tensor, Variable)):
        return it.tensor_id(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return it.convert([value], node)[0]
    it.refuse(node, f"a custom call's argument that is {_describe(value)}", "pass tensors")


def _record(it, out: int, params: list[int]) -> None:
    """TensorFlow records the custom op on every tape that watches one of its parameters."""
    if it.quiet:
        return
    for tape in it.tapes:
        if any(p in tape.on for p in params):
            tape.on.add(out)


def _function_key(it, name: str, fn: CustomFunction, node) -> str:
    """The function's name, made unique when another call of it differs (line, then column)."""
    for key in (name, f"{name}@{node.lineno}", f"{name}@{node.lineno}:{node.col_offset + 1}"):
        if it.functions.get(key, fn) == fn:
            it.functions[key] = fn
            return key
    key = f"{name}#{len(it.functions)}"
    it.functions[key] = fn
    return key


def _variable_text(it, v: Variable) -> str:
    n = it.g[v.value]
    shape = "(" + ", ".join(str(d) for d in n.shape) + ("," if len(n.shape) == 1 else "") + ")"
    value = _short(np.array2string(it.value(v.value), separator=", "), 40)
    return (
        f"<tf.Variable '{v.tf_name or 'Variable'}:0' shape={shape} dtype={n.dtype}, numpy={value}>"
    )

"""tape.jacobian and tape.batch_jacobian: calls of kind "jacobian" and "batch_jacobian".

The call's Problem is lowered as a gradient call's is (calls.lower); core/jacobian.py computes
each block, of TensorFlow's shape target.shape + source.shape (batch_jacobian: the batch
axis once, then the target's and the source's other axes), None for an unconnected source
(zeros with unconnected_gradients=ZERO; batch_jacobian's are always zeros, as TensorFlow
2.21's). The call's evaluation holds those blocks as its gradients; the sum's gradient
stays in its `grads`, which explain reads (a block is None exactly when that gradient is;
batch_jacobian's sum is lowered with unconnected_gradients=ZERO, so explain says zeros).
The results come back into the program as constants, unless another tape is recording:
then tape.jacobian's blocks are built from one gradient per target element (seeded with
that element's one-hot), copied back into the program graph and stacked, so the outer
tape differentiates them as TensorFlow's does.
"""

from __future__ import annotations

import itertools

import numpy as np

from gradcli.core.jacobian import jacobian
from gradcli.core.problem import CONNECTED, NONE, UNCONNECTED, ZEROS
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.builtins import _opt
from gradcli.tfcode.calls import (
    CallKind,
    arg_asts,
    crosses_unread_code,
    finish,
    lower,
    mode_of,
    rebuild,
    use_tape,
)
from gradcli.tfcode.subnormals import evaluate_checked
from gradcli.tfcode.values import Tensor, Variable, first_opaque

OPTIONS = ("unconnected_gradients", "parallel_iterations", "experimental_use_pfor")
MAX_ROWS = 256  # target elements differentiated one by one for an outer tape
CONSTANT_NOTE = (
    "the result of tape.{kind} (line {line}) is a constant to gradcli's later gradient calls: "
    "TensorFlow's outer tapes differentiate it, gradcli does not yet"
)


def jacobian_call(it, tape, node, args, kwargs, batch: bool):
    """tape.jacobian(target, sources, ...) or tape.batch_jacobian(target, source, ...)."""
    kind = CallKind.BATCH_JACOBIAN if batch else CallKind.JACOBIAN
    params = ("target", "source" if batch else "sources", *OPTIONS)
    for k in kwargs:
        if k not in params:
            it.refuse(node, f"tape.{kind.value}(..., {k}=...)")
    asts = arg_asts(node, params[:2])
    target, sources = _opt(args, kwargs, 0, "target"), _opt(args, kwargs, 1, params[1])
    mode = mode_of(it, _opt(args, kwargs, 2, "unconnected_gradients", NONE), node)
    if crosses_unread_code(it, node, kind, target, sources, None, mode, asts):
        return rebuild(sources, itertools.repeat(first_opaque([target, sources])))
    if not isinstance(target, (Tensor, Variable)):
        it.refuse(node, f"tape.{kind.value} of a target that is not one tensor")
    if batch and not isinstance(sources, (Tensor, Variable)):
        it.refuse(node, "tape.batch_jacobian of a source that is not one tensor")
    if 0 in it.g[it.tensor_id(target, read=False)].shape:
        it.refuse(node, f"tape.{kind.value} of an empty target", "its Jacobian has no elements")
    use_tape(it, tape, node, kind, sources, mode, asts)
    # batch_jacobian's unconnected blocks are zeros in either mode: explain reads them as such
    lowered_mode = ZEROS if batch else mode
    call, lowered, raises = lower(it, tape, node, kind, target, sources, None, lowered_mode, asts)
    call.unconnected = mode
    problem = call.problem
    ev = evaluate_checked(problem.scratch(), it.pos(node))  # the call's graph stays as lowered
    blocks = jacobian(problem)[problem.graph[problem.outputs[0]].name]
    for x in problem.wrt:
        name = problem.graph[x].name
        block = blocks[name]
        value = block.value
        if batch and value is not None:
            value = _batch_diagonal(problem.graph, problem.outputs[0], x, value, call.pos)
        elif batch:  # TensorFlow 2.21's batch_jacobian gives zeros, whatever the mode
            value = _batch_zeros(problem.graph, problem.outputs[0], x, call.pos)
        ev.gradients[name] = value
        ev.status[name] = CONNECTED if block.status == "connected" else UNCONNECTED
    call.evaluation = ev
    finish(it, call, lowered, raises)
    outer = any(t is not tape and t.active for t in it.tapes)
    size = int(np.prod(it.g[it.tensor_id(target, read=False)].shape))
    if outer and not batch and size <= MAX_ROWS:
        return _differentiable(it, tape, node, target, sources, mode, asts, call)
    results = []
    for name in call.sources:
        value = ev.gradients[name]
        if value is None:
            results.append(None)
            continue
        leaf = it.leaf(np.asarray(value), node)
        it.notes[leaf.id] = (None, CONSTANT_NOTE.format(kind=kind.value, line=node.lineno))
        results.append(leaf)
    return rebuild(sources, iter(results))


def _differentiable(it, tape, node, target, sources, mode, asts, call):
    """The Jacobian as program nodes: row i is the gradient of target element i (its
    one-hot seed), put back into the program graph; the rows stacked and reshaped to
    target.shape + source.shape, so outer tapes see through them."""
    shape = tuple(it.g[it.tensor_id(target, read=False)].shape)
    dtype = it.g[it.tensor_id(target, read=False)].dtype
    size = int(np.prod(shape))
    rows: list[list] = []
    for i in range(size):
        seed = np.zeros(size, dtype=dtype)
        seed[i] = 1
        row_call, lowered, _ = lower(
            it, tape, node, CallKind.GRADIENT, target, sources, seed.reshape(shape), mode, asts
        )
        ev = evaluate_checked(row_call.problem.scratch(), it.pos(node))
        rows.append(lowered.copy_back(ev, node))
    results = []
    for j, name in enumerate(call.sources):
        if call.evaluation.gradients[name] is None:
            results.append(None)
            continue
        parts = [row[j] for row in rows]
        x_shape = tuple(it.g[parts[0].id].shape)
        if not parts:
            results.append(it.leaf(np.zeros(shape + x_shape, dtype), node))
            continue
        stacked = it.op_call("stack", parts, {"axis": 0}, node)
        results.append(it.op_call("reshape", [stacked], {"shape": [*shape, *x_shape]}, node))
    return rebuild(sources, iter(results))


def _batch_zeros(graph, y: int, x: int, pos) -> np.ndarray:
    """batch_jacobian of an unconnected source: TensorFlow returns zeros of the block's shape
    in the target's dtype (for compatibility, it says, ignoring unconnected_gradients)."""
    ys, xs = graph[y].shape, graph[x].shape
    _batch_diagonal(graph, y, x, np.zeros((int(np.prod(ys)), int(np.prod(xs)))), pos)
    return np.zeros((*ys, *xs[1:]), dtype=graph[y].dtype)


def _batch_diagonal(graph, y: int, x: int, value: np.ndarray, pos) -> np.ndarray:
    """The batch_jacobian block: J[b, ..., b, ...] of the full Jacobian, for each b."""
    ys, xs = graph[y].shape, graph[x].shape
    if not ys or not xs or ys[0] != xs[0]:
        raise GradcliError(
            f"tape.batch_jacobian needs a target and a source with the same first (batch) "
            f"dimension, got shapes {ys} and {xs} (TensorFlow raises ValueError)",
            pos,
        )
    b = ys[0]
    m, n = int(np.prod(ys[1:])), int(np.prod(xs[1:]))
    full = value.reshape(b, m, b, n)
    return np.einsum("imin->imn", full).reshape((b, *ys[1:], *xs[1:]))

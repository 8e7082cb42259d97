"""tape.jacobian and tape.batch_jacobian: calls of kind "jacobian" and "batch_jacobian".

The call's Problem is lowered as a gradient call's is (calls.lower); core/jacobian.py computes
each block, of TensorFlow's shape target.shape + source.shape (batch_jacobian: the batch
axis once, then the target's and the source's other axes), None for an unconnected source
(zeros with unconnected_gradients=ZERO). The call's evaluation holds those blocks as its
gradients; the sum's gradient stays in its `grads`, which explain reads (a block is None
exactly when that gradient is). The results come back into the program as constants.
"""

from __future__ import annotations

import itertools

import numpy as np

from gradcli.core.evaluation import evaluate
from gradcli.core.jacobian import jacobian
from gradcli.core.problem import CONNECTED, NONE, UNCONNECTED
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
from gradcli.tfcode.values import Tensor, Variable, first_opaque

OPTIONS = ("unconnected_gradients", "parallel_iterations", "experimental_use_pfor")
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
    use_tape(it, tape, node, kind, sources, mode, asts)
    call, lowered, raises = lower(it, tape, node, kind, target, sources, None, mode, asts)
    problem = call.problem
    ev = evaluate(problem.scratch())  # the call's graph stays as lowered
    blocks = jacobian(problem)[problem.graph[problem.outputs[0]].name]
    for x in problem.wrt:
        name = problem.graph[x].name
        block = blocks[name]
        value = block.value
        if batch and value is not None:
            value = _batch_diagonal(problem.graph, problem.outputs[0], x, value, call.pos)
        ev.gradients[name] = value
        ev.status[name] = CONNECTED if block.status == "connected" else UNCONNECTED
    call.evaluation = ev
    finish(it, call, lowered, raises)
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

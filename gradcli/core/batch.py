"""Many input points of one problem: a leading batch axis through the executor when possible.

A graph is batchable when every node the outputs and gradients need is 0-d and elementwise
(no cond, whose branch differs per point, no reduction or reshape that would mix points):
then each scalar input becomes a column of points and one executor run evaluates them
all. Otherwise points are evaluated one at a time on the same gradient graph (rebuilt per
point only when a cond must be resolved for each point's values).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcli.core.autodiff import Gradients, gradients
from gradcli.core.executor import exec_inputs, resolve_conds, run
from gradcli.core.graph import COND_OP, CONST_OP, INPUT_OP
from gradcli.core.ops import REGISTRY, ZERO_GRAD, AttrKind, Behavior
from gradcli.core.problem import Problem
from gradcli.runtime.gcpause import paused


def _batchable(op) -> bool:
    """An elementwise op runs over a leading batch axis unless it branches or fixes its shape."""
    return op.behavior is not Behavior.BRANCH and not any(a.kind is AttrKind.INTS for a in op.attrs)


@dataclass
class Batch:
    """One problem prepared for many points."""

    problem: Problem
    grads: Gradients | None  # None when each point needs its own build (conds)
    targets: list[int]
    vectorised: bool


def prepare(problem: Problem) -> Batch:
    """Differentiate once and decide how points will be evaluated."""
    graph = problem.graph
    needed = graph.ancestors(problem.outputs)
    if any(needed[i] and graph[i].op == COND_OP for i in range(len(needed))):
        return Batch(problem, None, [], False)
    with paused():
        grads = gradients(graph, problem.outputs, problem.wrt, problem.seeds)
    targets = list(dict.fromkeys([*problem.outputs, *(r for r in grads.results if type(r) is int)]))
    if any(node.op == COND_OP for node in graph.nodes[len(needed) :]):
        return Batch(problem, None, [], False)  # a cond in a custom gradient: per point too
    needed = graph.ancestors(targets, exec_inputs)
    vectorised = True
    for i, flag in enumerate(needed):
        if flag:
            node = graph[i]
            op = node.op
            if node.shape != () or not _batchable(REGISTRY[op]):
                vectorised = False
                break
            if op not in (INPUT_OP, CONST_OP) and not REGISTRY[op].elementwise:
                vectorised = False
                break
    return Batch(problem, grads, targets, vectorised)


def evaluate_columns(batch: Batch, columns: dict[int, np.ndarray], n: int):
    """Outputs and gradients of n points at once: {name: array of shape (n,)} (None: unconnected).

    columns maps input node ids to arrays of shape (n,); other inputs keep their values.
    """
    graph = batch.problem.graph
    with paused():
        values = run(graph, batch.targets, known=columns, scalar=False)
    return _collect(batch.problem, batch.grads, values, (n,))


def evaluate_point(batch: Batch, point: dict[int, object]):
    """Outputs and gradients of one point (input node id -> value)."""
    problem = batch.problem
    if batch.grads is None:  # conds: the taken branch, and so the gradient graph, varies
        with paused():
            fresh = problem.rebuild({problem.graph[i].name: v for i, v in point.items()})
            known: dict = {}
            resolve_conds(fresh.graph, fresh.outputs, known)
            grads = gradients(fresh.graph, fresh.outputs, fresh.wrt, fresh.seeds)
            targets = [*fresh.outputs, *(r for r in grads.results if type(r) is int)]
            values = run(fresh.graph, list(dict.fromkeys(targets)), known=known)
        return _collect(fresh, grads, values, ())
    with paused():
        values = run(problem.graph, batch.targets, known=point)
    return _collect(problem, batch.grads, values, ())


def _collect(problem: Problem, grads: Gradients, values: dict, lead: tuple):
    graph = problem.graph
    outputs = {}
    for o in problem.outputs:
        node = graph[o]
        outputs[node.name] = _full(values[o], node, lead)
    result = {}
    for x, g in zip(problem.wrt, grads.results):
        node = graph[x]
        if g is None:
            zero = problem.unconnected == "zero"
            result[node.name] = np.zeros(lead + node.shape, node.dtype) if zero else None
        elif g is ZERO_GRAD:
            result[node.name] = np.zeros(lead + node.shape, node.dtype)
        else:
            result[node.name] = _full(values[g], node, lead)
    return outputs, result


def _full(value, node, lead: tuple) -> np.ndarray:
    """A value as an array of the node's dtype, broadcast over the batch when it is constant."""
    arr = np.asarray(value, dtype=node.dtype)
    shape = lead + node.shape
    return arr if arr.shape == shape else np.broadcast_to(arr, shape)

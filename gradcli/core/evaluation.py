"""One evaluation of a problem: resolve conds, differentiate, execute, and collect results."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcli.core import convention_sites
from gradcli.core.autodiff import Gradients, gradients
from gradcli.core.executor import resolve_conds, run
from gradcli.core.ops import ZERO_GRAD
from gradcli.core.problem import CONNECTED, UNCONNECTED, ZEROS, Problem
from gradcli.runtime.gcpause import paused


@dataclass
class Evaluation:
    """Output values and gradients, by name, in the problem's order."""

    problem: Problem
    outputs: dict[str, np.ndarray]
    gradients: dict[str, np.ndarray | None]  # None: unconnected (with unconnected: none)
    status: dict[str, str]  # "connected" or "unconnected"
    grads: Gradients
    values: dict[int, object] | None = None  # every computed node, when kept
    # per gradient name, the elements where its value is a convention (convention_sites)
    conventions: dict[str, list] = field(default_factory=dict)


def as_array(value, dtype: str) -> np.ndarray:
    """A value from the executor as an array of the node's dtype."""
    return np.asarray(value, dtype=dtype)


def evaluate(
    problem: Problem, keep: bool = False, record: bool = False, zeros: bool = False
) -> Evaluation:
    """Forward values of the outputs and the gradients w.r.t. problem.wrt; zeros=True builds
    known zero gradients as nodes (autodiff.gradients' zeros), for a gradient that is
    differentiated again (the TensorFlow reader's nested tapes)."""
    graph = problem.graph
    known: dict = {}
    with paused(lasting=True):
        resolve_conds(graph, problem.outputs, known)
        grads = gradients(
            graph, problem.outputs, problem.wrt, problem.seeds, record=record, zeros=zeros
        )
        targets = list(problem.outputs) + [r for r in grads.results if isinstance(r, int)]
        at = convention_sites.candidates(graph, problem.outputs, problem.wrt, grads.on_path)
        read = at.reads(graph)  # what the detectors read
        values = run(graph, list(dict.fromkeys(targets + read)), known=known, keep=keep)
        sites = convention_sites.find(graph, problem.outputs, problem.wrt, values, at)
    outputs = {graph[o].name: as_array(values[o], graph[o].dtype) for o in problem.outputs}
    result: dict[str, np.ndarray | None] = {}
    status: dict[str, str] = {}
    for x, g in zip(problem.wrt, grads.results):
        node = graph[x]
        if g is None:
            status[node.name] = UNCONNECTED
            zeros = problem.unconnected == ZEROS
            result[node.name] = np.zeros(node.shape, node.dtype) if zeros else None
        else:
            status[node.name] = CONNECTED
            if g is ZERO_GRAD:
                result[node.name] = np.zeros(node.shape, node.dtype)
            else:
                result[node.name] = as_array(values[g], node.dtype)
    conventions = {graph[x].name: found for x, found in sites.items() if found}
    return Evaluation(
        problem, outputs, result, status, grads, values if keep else None, conventions
    )

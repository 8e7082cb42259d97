"""Many input points of one problem: a leading batch axis through the executor when possible.

A graph is batchable when every node the outputs and gradients need is 0-d and elementwise
(no cond, whose branch differs per point, no reduction or reshape that would mix points):
then each scalar input becomes a column of points and one executor run evaluates them
all. Otherwise points are evaluated one at a time on the same gradient graph; with conds,
on one gradient graph per combination of branches the points take (each built the first
time a point takes it, then reused).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gradcli.core.autodiff import Gradients, gradients
from gradcli.core.executor import _as_numpy, _eval_error, _step, exec_inputs, resolve_conds, run
from gradcli.core.graph import COND_OP, CONST_OP, INPUT_OP, Graph
from gradcli.core.ops import REGISTRY, ZERO_GRAD, AttrKind, Behavior
from gradcli.core.ops.registry import BROADCAST, lead_aligned
from gradcli.core.problem import Problem
from gradcli.runtime.gcpause import paused


def _batchable(op) -> bool:
    """An elementwise op runs over a leading batch axis unless it branches or fixes its shape."""
    return op.behavior is not Behavior.BRANCH and not any(a.kind is AttrKind.INTS for a in op.attrs)


@dataclass
class Batch:
    """One problem prepared for many points."""

    problem: Problem
    grads: Gradients | None  # None when the graph has conds: one build per outcome
    targets: list[int]
    vectorised: bool
    probe: Graph | None = None  # the graph whose conds each point resolves (only its conds)
    conds: list[int] = field(default_factory=list)
    builds: dict = field(default_factory=dict)  # outcome -> (problem, grads, targets, conds)


def prepare(problem: Problem) -> Batch:
    """Differentiate once and decide how points will be evaluated."""
    graph = problem.graph
    needed = graph.ancestors(problem.outputs)
    if any(needed[i] and graph[i].op == COND_OP for i in range(len(needed))):
        return _per_outcome(problem)
    with paused():
        grads = gradients(graph, problem.outputs, problem.wrt, problem.seeds)
    targets = list(dict.fromkeys([*problem.outputs, *(r for r in grads.results if type(r) is int)]))
    if any(node.op == COND_OP for node in graph.nodes[len(needed) :]):
        return _per_outcome(problem)  # a cond in a custom gradient
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


def _per_outcome(problem: Problem) -> Batch:
    probe = problem.graph  # never evaluated itself: each outcome has its own build
    conds = [n.id for n in probe.nodes if n.op == COND_OP]
    return Batch(problem, None, [], False, probe, conds)


def evaluate_point(batch: Batch, point: dict[int, object]):
    """Outputs and gradients of one point (input node id -> value)."""
    problem = batch.problem
    if batch.grads is None:  # conds: the gradient graph depends on the branches taken
        with paused():
            fresh, grads, values = _on_outcome(batch, point)
        return _collect(fresh, grads, values, ())
    with paused():
        values = run(problem.graph, batch.targets, known=point)
    return _collect(problem, batch.grads, values, ())


def _on_outcome(batch: Batch, point: dict):
    """The build for the branches this point takes (made the first time), and its values."""
    problem, probe = batch.problem, batch.probe
    for c in batch.conds:
        probe[c].attrs["taken"] = None
    known = dict(point)
    resolve_conds(probe, problem.outputs, known)
    outcome = tuple(probe[c].attrs.get("taken") for c in batch.conds)
    build = batch.builds.get(outcome)
    if build is None:
        fresh = problem.rebuild({problem.graph[i].name: v for i, v in point.items()})
        known = {}
        resolve_conds(fresh.graph, fresh.outputs, known)
        forward = len(fresh.graph)
        grads = gradients(fresh.graph, fresh.outputs, fresh.wrt, fresh.seeds)
        targets = list(
            dict.fromkeys([*fresh.outputs, *(r for r in grads.results if type(r) is int)])
        )
        later = [n.id for n in fresh.graph.nodes[forward:] if n.op == COND_OP]
        if fresh.graph.inputs == problem.graph.inputs:  # the same ids: reusable
            batch.builds[outcome] = (fresh, grads, targets, later)
        return fresh, grads, run(fresh.graph, targets, known=known)
    fresh, grads, targets, later = build
    for c in later:  # conds a custom gradient built: each point picks their branch anew
        fresh.graph[c].attrs["taken"] = None
    graph = problem.graph
    known = {i: graph[i].attrs["value"] for i in graph.inputs}  # the spec's values...
    known.update(point)  # ...and this point's
    return fresh, grads, run(fresh.graph, targets, known=known)


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


# --- many one-hot seeds in one pass (jacobian, hessian) ---------------------------------------
def seed_bytes(graph: Graph, probe: int, order: list[int]) -> int:
    """Peak bytes of the probed values one seed adds while `order` runs (each freed after its
    last use; views counted as copies): a pass over B seeds holds B times this at most."""
    nodes = graph.nodes
    last: dict[int, int] = {}
    for i in order:
        for j in nodes[i].inputs:
            last[j] = i
    size = {probe: nodes[probe].size * np.dtype(nodes[probe].dtype).itemsize}
    live = peak = size[probe]
    for i in order:
        node = nodes[i]
        size[i] = node.size * np.dtype(node.dtype).itemsize
        live += size[i]
        peak = max(peak, live)
        for j in node.inputs:
            if last.get(j) == i and j in size:
                live -= size.pop(j)
    return max(peak, 1)


def batchable_seeds(graph: Graph, order: list[int]) -> bool:
    """Whether run_seeds can take these nodes: no cond (its branch is per pass)."""
    nodes = graph.nodes
    return not any(nodes[i].op == COND_OP for i in order)


def run_seeds(
    graph: Graph, probe: int, seeds: np.ndarray, order: list[int], targets, known: dict
) -> dict:
    """The targets' values for every seed at once: each has a leading axis of len(seeds).

    `order` lists, in id order, the nodes that depend on the probe input and that the targets
    need; `known` holds every other value they read. Each node runs as its Op.batched says:
    broadcast over the seed axis, through its own batched forward, or once per seed exactly
    as a pass per seed would run it (the scalar path included), so every seed's values are
    the bits one pass per seed gives.
    """
    nodes = graph.nodes
    n = len(seeds)
    lead: dict[int, object] = {probe: seeds}
    last: dict[int, int] = {}
    for i in order:
        for j in nodes[i].inputs:
            last[j] = i
    keep = set(targets)
    with np.errstate(all="ignore"):
        for i in order:
            node = nodes[i]
            args = node.inputs
            probed = tuple(j in lead for j in args)
            vals = [lead[j] if p else known[j] for j, p in zip(args, probed)]
            lead[i] = _seeded(node, vals, probed, n, nodes)
            for j in args:
                if last.get(j) == i and j not in keep and j != probe:
                    lead.pop(j, None)
    out = {}
    for t in targets:
        if t in lead:
            out[t] = lead[t]
        else:  # the same value for every seed
            value = np.asarray(known[t])
            out[t] = np.broadcast_to(value, (n, *value.shape))
    return out


def _seeded(node, vals: list, probed: tuple, n: int, nodes):
    """One node over the seed axis (see run_seeds)."""
    op = REGISTRY[node.op]
    how = op.batched
    out = None
    if how == BROADCAST:
        rank = len(node.shape)
        args = [lead_aligned(v, rank) if p else v for v, p in zip(vals, probed)]
        out = op.fn(node.attrs)(*args)
    elif how is not None:
        forward = how(node, probed)
        out = None if forward is None else forward(*vals)
    if type(out) is np.ndarray and out.shape == (n, *node.shape):
        return out
    return _per_seed(node, vals, probed, n, nodes)


def _per_seed(node, vals: list, probed: tuple, n: int, nodes) -> np.ndarray:
    """The node once per seed, as the executor runs it in a pass per seed, stacked."""
    fn, fallback = _step(node, node.inputs, nodes)
    results = []
    for k in range(n):
        args = [v[k] if p else v for v, p in zip(vals, probed)]
        if fallback is not None:  # the scalar path gets Python floats, as a pass gives it
            args = [float(a) if type(a) is np.float64 else a for a in args]
        try:
            results.append(fn(*args))
        except (ArithmeticError, ValueError):
            numpy_fn = fallback.fn(node.attrs) if fallback is not None else fn
            try:
                results.append(numpy_fn(*[_as_numpy(a) for a in args]))
            except (ArithmeticError, ValueError, TypeError) as exc:
                raise _eval_error(node, exc, nodes) from None
        except (TypeError, IndexError, MemoryError) as exc:
            raise _eval_error(node, exc, nodes) from None
    out = np.empty((n, *node.shape), node.dtype)
    for k, r in enumerate(results):
        out[k] = r
    return out

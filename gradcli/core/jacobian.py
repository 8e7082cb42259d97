"""Jacobians and Hessians, by differentiating the symbolic gradient graph again.

No finite differences: for an output y and a probe input v of y's shape, the gradient of
sum(y * v) is built once as graph nodes (a vector-Jacobian product); evaluating it with v
set to each one-hot vector in turn gives the Jacobian one row of y at a time. A Hessian
is the Jacobian of the gradient graph itself.

Connectivity follows TensorFlow's nested GradientTapes: a block is None (unconnected)
exactly when tape.jacobian returns None, e.g. d/dx of d(x*y)/dx = y. A gradient that is
connected but zero stays a zero tensor: relu'' is a connected zero, and the Hessian of
sign(x*z) + x has a connected zero (x, z) block because TensorFlow's zeros for sign's
gradient are multiplied by z on their way back to x.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcli.core.autodiff import gradients
from gradcli.core.executor import resolve_conds, run
from gradcli.core.graph import COND_OP, Graph, is_float
from gradcli.core.ops import ZERO_GRAD, emit
from gradcli.core.problem import Problem
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError


@dataclass
class Block:
    """One block of a Jacobian or Hessian: the derivative of one tensor w.r.t. another."""

    value: np.ndarray | None  # None: unconnected, with unconnected: none
    shape: tuple[int, ...]  # shape(of) + shape(wrt)
    dtype: str
    status: str  # "connected" or "unconnected"


def _check_passes(graph: Graph, rows_of: list[int], what: str) -> None:
    """One evaluation pass per element of every tensor in rows_of: bound the total time."""
    passes = limits.current.max_passes
    total = sum(graph[i].size for i in rows_of)
    if total > passes:
        names = ", ".join(f"'{graph[i].name}'" for i in rows_of)
        raise LimitError(
            f"the {what} takes one evaluation pass per element of {names} "
            f"({total:,} elements), over the limit of {passes:,} passes "
            f"{limits.advice('max_passes')}",
            graph[rows_of[0]].pos,
        )


NODE_COST = 64  # element reads and writes a node's fixed overhead is worth (~0.1-1 µs)


def _check_work(graph: Graph, y: int, per_pass: list[int], spent: list[int], what: str) -> None:
    """Refuse, before the first pass, when passes x cost per pass exceeds --max-work.

    A pass's cost is the elements its nodes read and write (NODE_COST at least each);
    `spent` carries the work of the command's earlier blocks.
    """
    nodes = graph.nodes
    cost = 0
    for i in per_pass:
        node = nodes[i]
        cost += max(node.size + sum(nodes[j].size for j in node.inputs), NODE_COST)
    passes = nodes[y].size
    work = passes * cost
    limit = limits.current.max_work
    if spent[0] + work > limit:
        earlier = f" (and {spent[0]:,} for the blocks before it)" if spent[0] else ""
        raise LimitError(
            f"the {what} of '{nodes[y].label}' takes {passes:,} passes (one per element) of "
            f"about {cost:,} element reads and writes each ({len(per_pass):,} nodes): "
            f"{work:,} in all{earlier}, over the limit of {limit:,} {limits.advice('max_work')}",
            nodes[y].pos,
        )
    spent[0] += work


def _check_size(graph: Graph, of: int, targets: list[int], what: str) -> None:
    lim = limits.current.max_elements
    for x in targets:
        total = graph[of].size * graph[x].size
        if total > lim:
            raise LimitError(
                f"the {what} block for '{graph[x].name}' would have {total:,} elements, over "
                f"the limit of {lim:,} {limits.advice('max_elements')}",
                graph[x].pos,
            )


def _probe(graph: Graph, y: int) -> tuple[int, int]:
    """Append a probe input v shaped like y and s = sum(y * v); returns (v, s)."""
    node = graph[y]
    value = (
        0.0 if node.shape == () and node.dtype == "float64" else np.zeros(node.shape, node.dtype)
    )
    v = emit(graph, "input", (), {"value": value}, kind="input")
    s = emit(graph, "sum", (emit(graph, "mul", (y, v)),), {})
    return v, s


def _one_hots(node):
    """The one-hot seeds for every element of node, in C order (0-d float64 as Python floats)."""
    seed = np.zeros(node.shape, node.dtype)
    flat = seed.reshape(-1)
    for k in range(node.size):
        flat[k] = 1
        yield float(seed) if node.shape == () and node.dtype == "float64" else seed.copy()
        flat[k] = 0


def _unresolved_conds(graph: Graph, targets) -> list[int]:
    marked = graph.ancestors(targets)
    return [i for i in range(len(marked)) if marked[i] and graph[i].op == COND_OP
            and graph[i].attrs.get("taken") is None]  # fmt: skip


def rows(
    graph: Graph,
    y: int,
    targets: list[int],
    known: dict,
    what: str = "Jacobian",
    spent: list[int] | None = None,
) -> list:
    """d y / d x for every target: an array of shape(y) + shape(x), ZERO_GRAD or None.

    `known` holds the values of every node y depends on (it gains the values computed
    here that do not depend on the probe).
    """
    node = graph[y]
    if not is_float(node.dtype):
        return [None] * len(targets)
    _check_size(graph, y, targets, what)
    v, s = _probe(graph, y)
    grads = gradients(graph, [s], targets)
    needed = [r for r in grads.results if isinstance(r, int)]
    if not needed:
        return list(grads.results)
    probed = graph.descendants([v])
    if any(probed[graph[c].inputs[0]] for c in _unresolved_conds(graph, needed)):
        # a cond in a custom gradient branches on the seed: one gradient graph per seed
        return _rows_per_seed(graph, y, targets, known)
    resolve_conds(graph, needed, known)
    # evaluate once what the probe does not change, then one pass per element of y
    upstream = graph.ancestors(needed)
    per_pass = [i for i in range(v + 1, len(graph)) if upstream[i] and probed[i]]
    _check_work(graph, y, per_pass, spent if spent is not None else [0], what)
    fixed = [i for i in range(v + 1, len(graph)) if upstream[i] and not probed[i]]
    known.update(run(graph, fixed, known=known))
    out = {r: np.empty((node.size, graph[x].size), graph[x].dtype)
           for x, r in zip(targets, grads.results) if isinstance(r, int)}  # fmt: skip
    for k, seed in enumerate(_one_hots(node)):
        values = run(graph, needed, known={**known, v: seed})
        for r in needed:
            out[r][k] = np.asarray(values[r]).reshape(-1)
    return [
        out[r].reshape(node.shape + graph[x].shape) if isinstance(r, int) else r
        for x, r in zip(targets, grads.results)
    ]


def _rows_per_seed(graph: Graph, y: int, targets: list[int], known: dict) -> list:
    node = graph[y]
    out: list = [None] * len(targets)
    for k, seed in enumerate(_one_hots(node)):
        results = gradients(graph, [y], targets, [seed]).results
        nodes = [r for r in results if isinstance(r, int)]
        resolve_conds(graph, nodes, known)
        values = run(graph, nodes, known=known)
        for t, (x, r) in enumerate(zip(targets, results)):
            if r is None:
                continue
            if not isinstance(out[t], np.ndarray):
                out[t] = np.zeros((node.size, graph[x].size), graph[x].dtype)
            if r is not ZERO_GRAD:
                out[t][k] = np.asarray(values[r]).reshape(-1)
    return [
        r.reshape(node.shape + graph[x].shape) if isinstance(r, np.ndarray) else r
        for x, r in zip(targets, out)
    ]


def _block(graph: Graph, of: int, x: int, result, unconnected: str) -> Block:
    xnode = graph[x]
    shape = graph[of].shape + xnode.shape
    if result is None:
        zeros = np.zeros(shape, xnode.dtype) if unconnected == "zero" else None
        return Block(zeros, shape, xnode.dtype, "unconnected")
    if result is ZERO_GRAD:
        return Block(np.zeros(shape, xnode.dtype), shape, xnode.dtype, "connected")
    return Block(np.asarray(result, xnode.dtype), shape, xnode.dtype, "connected")


def jacobian(problem: Problem) -> dict[str, dict[str, Block]]:
    """{output: {input: Block}}: d output / d input, of shape shape(output) + shape(input).

    grad_ys plays no part: the Jacobian is the whole derivative, of which eval's gradient
    is the grad_ys-weighted sum over the output's elements.
    """
    problem = problem.scratch()  # the vector-Jacobian product's nodes go on a copy
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    known.update(run(graph, problem.outputs, known=known, keep=True))
    result: dict[str, dict[str, Block]] = {}
    _check_passes(graph, [y for y in problem.outputs if is_float(graph[y].dtype)], "Jacobian")
    spent = [0]  # the work of all blocks counts together
    for y in problem.outputs:
        per_input = rows(graph, y, problem.wrt, known, spent=spent)
        result[graph[y].name] = {
            graph[x].name: _block(graph, y, x, r, problem.unconnected)
            for x, r in zip(problem.wrt, per_input)
        }
    return result


def require_scalar_outputs(problem: Problem, command: str = "hessian") -> None:
    """A Hessian (or derivative) needs scalar outputs: one clear error naming the first that
    is not."""
    graph = problem.graph
    entries = problem.source.positions
    for y in problem.outputs:
        node = graph[y]
        if node.shape != ():
            raise GradcliError(
                f"{command} needs a scalar output, but '{node.name}' has shape {node.shape}; "
                "reduce it (e.g. sum(...)) or use `gradcli jacobian`",
                entries.get(node.name, node.pos),
            )


def hessian(problem: Problem) -> dict[str, dict[str, Block]]:
    """{a: {b: Block}}: d2 L / da db for L = sum over outputs of grad_ys * output.

    The first gradient is built with zero gradients as real nodes, as TensorFlow's
    zeros_like, so that its second derivative is connected exactly where TensorFlow's is.
    """
    require_scalar_outputs(problem)
    problem = problem.scratch()  # both gradient passes build on a copy
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    first = gradients(graph, problem.outputs, problem.wrt, problem.seeds, zeros=True).results
    nodes = [g for g in first if isinstance(g, int)]
    resolve_conds(graph, nodes, known)  # conds inside custom gradients
    known.update(run(graph, [*problem.outputs, *nodes], known=known, keep=True))
    result: dict[str, dict[str, Block]] = {}
    _check_passes(graph, [a for a, g in zip(problem.wrt, first) if g is not None], "Hessian")
    spent = [0]  # the work of all blocks counts together
    for a, g in zip(problem.wrt, first):
        per_input = (
            [None] * len(problem.wrt)
            if g is None
            else rows(graph, g, problem.wrt, known, "Hessian", spent)
        )
        result[graph[a].name] = {
            graph[b].name: _block(graph, a, b, r, problem.unconnected)
            for b, r in zip(problem.wrt, per_input)
        }
    return result

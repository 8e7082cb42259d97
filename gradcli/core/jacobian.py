"""Jacobians and Hessians, by differentiating the symbolic gradient graph again.

No finite differences: for an output y and a probe input v of y's shape, the gradient of
sum(y * v) is built once as graph nodes (a vector-Jacobian product); evaluating it with v
set to each one-hot vector gives the Jacobian one row of y per seed. All seeds (or chunks
of them that fit in --max-bytes) go through one executor pass over a leading seed axis
(core/batch.py run_seeds), bit for bit what one pass per seed gives. A Hessian is the
Jacobian of the gradient graph itself.

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
from gradcli.core.batch import batchable_seeds, run_seeds, seed_bytes
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


def _check_passes(graph: Graph, y: int, chunk: int, spent: list[int], what: str) -> None:
    """Bound the evaluation passes of all blocks together (spent[1] carries the earlier
    blocks'): a pass takes `chunk` one-hot seeds at once, or one (chunk 0). y names the
    tensor whose elements the seeds are (a Hessian's: the input, not its gradient node)."""
    node = graph[y]
    per = max(chunk, 1)
    passes = -(-node.size // per)
    limit = limits.current.max_passes
    if spent[1] + passes > limit:
        how = (
            f"{per:,} seeds per pass, as many as --max-bytes leaves room for"
            if chunk
            else "one seed per pass"
        )
        earlier = f" (and {spent[1]:,} for the blocks before it)" if spent[1] else ""
        raise LimitError(
            f"the {what} of '{node.label}' takes {passes:,} evaluation passes for its "
            f"{node.size:,} elements ({how}){earlier}, over the limit of {limit:,} passes "
            f"{limits.advice('max_passes')}",
            node.pos,
        )
    spent[1] += passes


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


def one_hot_block(node, start: int, stop: int) -> np.ndarray:
    """The one-hot seeds for elements start..stop-1 of node (C order), stacked on a leading
    axis: shape (stop - start,) + node.shape."""
    seeds = np.zeros((stop - start, node.size), node.dtype)
    seeds[np.arange(stop - start), np.arange(start, stop)] = 1
    return seeds.reshape((stop - start, *node.shape))


def seed_chunk(graph: Graph, probe: int, per_pass: list[int], known: dict) -> int:
    """How many seeds one pass takes: as many as fit in --max-bytes beside what `known`
    holds (0 when not even two do: then one pass per seed, each checked as usual)."""
    held = sum(
        v.nbytes for v in {id(v): v for v in known.values() if type(v) is np.ndarray}.values()
    )
    room = limits.current.max_bytes - held
    per_seed = seed_bytes(graph, probe, per_pass) + graph[probe].size * 8  # with the seeds
    chunk = room // per_seed if room > 0 else 0
    return int(min(chunk, graph[probe].size)) if chunk >= 2 else 0


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
    of: int | None = None,
) -> list:
    """d y / d x for every target: an array of shape(y) + shape(x), ZERO_GRAD or None.

    `known` holds the values of every node y depends on (it gains the values computed
    here that do not depend on the probe). `spent` ([work, passes]) carries what earlier
    blocks used against --max-work and --max-passes; `of` names y in limit messages (a
    Hessian's input, for its gradient node y).
    """
    of = y if of is None else of
    node = graph[y]
    if not is_float(node.dtype):
        return [None] * len(targets)
    spent = spent if spent is not None else [0, 0]
    if len(spent) < 2:
        spent.append(0)  # a caller counting work only
    _check_size(graph, y, targets, what)
    v, s = _probe(graph, y)
    grads = gradients(graph, [s], targets)
    needed = [r for r in grads.results if isinstance(r, int)]
    if not needed:
        return list(grads.results)
    probed = graph.descendants([v])
    if any(probed[graph[c].inputs[0]] for c in _unresolved_conds(graph, needed)):
        # a cond in a custom gradient branches on the seed: one gradient graph per seed
        _check_passes(graph, of, 0, spent, what)
        return _rows_per_seed(graph, y, targets, known)
    resolve_conds(graph, needed, known)
    # evaluate once what the probe does not change, then the rest for all one-hot seeds
    upstream = graph.ancestors(needed)
    per_pass = [i for i in range(v + 1, len(graph)) if upstream[i] and probed[i]]
    _check_work(graph, y, per_pass, spent, what)
    fixed = [i for i in range(v + 1, len(graph)) if upstream[i] and not probed[i]]
    known.update(run(graph, fixed, known=known))
    out = {r: np.empty((node.size, graph[x].size), graph[x].dtype)
           for x, r in zip(targets, grads.results) if isinstance(r, int)}  # fmt: skip
    chunk = seed_chunk(graph, v, per_pass, known) if node.size > 1 else 0
    if not batchable_seeds(graph, per_pass):
        chunk = 0
    _check_passes(graph, of, chunk, spent, what)
    if chunk:
        # all one-hot seeds (or chunks of them, within --max-bytes) in one pass each
        for k in range(0, node.size, chunk):
            seeds = one_hot_block(node, k, min(k + chunk, node.size))
            values = run_seeds(graph, v, seeds, per_pass, needed, known)
            for r in needed:
                out[r][k : k + len(seeds)] = values[r].reshape(len(seeds), -1)
    else:
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
    spent = [0, 0]  # the work and passes of all blocks count together
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
    spent = [0, 0]  # the work and passes of all blocks count together
    for a, g in zip(problem.wrt, first):
        per_input = (
            [None] * len(problem.wrt)
            if g is None
            else rows(graph, g, problem.wrt, known, "Hessian", spent, of=a)
        )
        result[graph[a].name] = {
            graph[b].name: _block(graph, a, b, r, problem.unconnected)
            for b, r in zip(problem.wrt, per_input)
        }
    return result

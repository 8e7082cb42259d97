"""Derivatives of any order: the gradient graph differentiated again, one order at a time.

Order 1 is the gradient of L = sum over outputs of grad_ys * output w.r.t. w1, a node of
w1's shape. Order k+1 is built from the node g of order k (next_order) by appending a
probe input v shaped like g and the gradient of sum(g * v) w.r.t. w(k+1), a node of
w(k+1)'s shape. With probes v1 .. v(N-1), the order-N node holds

    sum over i1..i(N-1) of v1[i1] ... v(N-1)[i(N-1)] * d^N L / dw1[i1] ... dw(N-1)[i(N-1)] dwN

so evaluating it with every combination of one-hot probes gives the whole derivative
tensor, of shape shape(w1) + ... + shape(wN): exactly what nested GradientTapes give,
w1's tape innermost (tape_N.jacobian(... tape_2.jacobian(tape_1.gradient(L, w1), w2) ...,
wN)). core/jacobian.py's hessian is the same construction at N = 2 (one probe, all pairs
of targets at once); the two agree bit for bit (tests/core/test_higher_order.py).

Connectivity follows the tapes: the intermediate orders are built with zero gradients as
real nodes (TensorFlow's zeros_like), so an order is None exactly where the tape's
gradient or jacobian of the order before is None; the last order keeps connected zeros
symbolic, as the Hessian does.

A cond inside a custom gradient that branches on its upstream gradient (a probe) cannot
share one graph across seeds: such a derivative is built with one gradient graph per
one-hot seed combination instead (_per_seed, as jacobian.py's _rows_per_seed).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from gradcli.core.autodiff import gradients
from gradcli.core.batch import batchable_seeds, run_seeds
from gradcli.core.executor import resolve_conds, run
from gradcli.core.graph import COND_OP, Graph, is_float
from gradcli.core.jacobian import NODE_COST, Block, _one_hots, _probe, one_hot_block, seed_chunk
from gradcli.core.ops import ZERO_GRAD
from gradcli.core.problem import Problem
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError

MAX_ORDER = 4


@dataclass
class Chain:
    """One derivative being built: its targets in tape order (innermost first), its probes
    and the node (or ZERO_GRAD, or None) holding the current order."""

    wrt: tuple[int, ...]
    probes: list[int]
    node: object


def next_order(graph: Graph, chain: Chain, x: int, last: bool) -> Chain:
    """The order after chain's: d sum(g * v) / dx for a new probe v shaped like chain's g.

    Intermediate orders turn known zeros into nodes (zeros=True) so that the next order
    finds TensorFlow's connections; the last keeps them symbolic (ZERO_GRAD).
    """
    g = chain.node
    if g is None or g is ZERO_GRAD:  # None stays None; a known zero's derivative is None
        return Chain((*chain.wrt, x), [*chain.probes, -1], None)
    v, s = _probe(graph, g)
    result = gradients(graph, [s], [x], zeros=not last).results[0]
    return Chain((*chain.wrt, x), [*chain.probes, v], result)


def _first(problem: Problem, w1: int, last: bool) -> Chain:
    graph = problem.graph
    g = gradients(graph, problem.outputs, [w1], problem.seeds, zeros=not last).results[0]
    return Chain((w1,), [], g)


def require_float_targets(problem: Problem, targets) -> None:
    """Every target of a derivative must be a float tensor: one clear error naming it."""
    graph = problem.graph
    for x in targets:
        node = graph[x]
        if not is_float(node.dtype):
            raise GradcliError(
                f"derivative needs float targets, but '{node.name}' is {node.dtype}: "
                "integer and boolean tensors have no derivative",
                problem.source.positions.get(node.name, node.pos),
            )


def _label(graph: Graph, wrt) -> str:
    return ",".join(graph[x].name for x in wrt)


def _check_sizes(graph: Graph, sequences: list[tuple[int, ...]]) -> None:
    """Refuse a derivative block over --max-elements before anything is built."""
    lim = limits.current.max_elements
    for wrt in sequences:
        total = int(np.prod([graph[x].size for x in wrt], dtype=object))
        if total > lim:
            raise LimitError(
                f"the derivative block for '{_label(graph, wrt)}' would have "
                f"{limits.count(total)} elements, over the limit of {lim:,} "
                f"{limits.advice('max_elements')}",
                graph[wrt[0]].pos,
            )


def _check_passes(graph: Graph, wrt: tuple[int, ...], passes: int, spent: list[int]) -> None:
    """Bound the evaluation passes of all blocks together (spent[1] carries the earlier ones)."""
    limit = limits.current.max_passes
    if spent[1] + passes > limit:
        earlier = f" (and {spent[1]:,} for the blocks before it)" if spent[1] else ""
        raise LimitError(
            f"the derivative '{_label(graph, wrt)}' takes {limits.count(passes)} evaluation "
            f"passes (one per combination of elements of its first targets, the last one's "
            f"seeds together as far as --max-bytes allows){earlier}, over the limit of "
            f"{limit:,} passes {limits.advice('max_passes')}",
            graph[wrt[0]].pos,
        )
    spent[1] += passes


def _check_work(graph: Graph, chain: Chain, per_pass: list[int], spent: list[int]) -> None:
    """Refuse, before the first pass, when passes x cost per pass exceeds --max-work."""
    nodes = graph.nodes
    cost = 0
    for i in per_pass:
        node = nodes[i]
        cost += max(node.size + sum(nodes[j].size for j in node.inputs), NODE_COST)
    passes = int(np.prod([nodes[x].size for x in chain.wrt[:-1]], dtype=object))
    work = passes * cost
    limit = limits.current.max_work
    if spent[0] + work > limit:
        raise LimitError(
            f"the derivative '{_label(graph, chain.wrt)}' takes {passes:,} passes of about "
            f"{cost:,} element reads and writes each ({len(per_pass):,} nodes): "
            f"{limits.count(spent[0] + work)} in all, over the limit of {limit:,} "
            f"{limits.advice('max_work')}",
            nodes[chain.wrt[0]].pos,
        )
    spent[0] += work


class _SeedDependent(Exception):
    """A cond inside a custom gradient branches on an upstream gradient (a probe)."""


def _check_probed_conds(graph: Graph, chain: Chain, needed: list[int]) -> None:
    """Raise _SeedDependent when an unresolved cond the nodes need branches on a probe: its
    branch differs from seed to seed, so each seed needs its own gradient graph."""
    probes = [v for v in chain.probes if v >= 0]
    if not probes:
        return
    probed = graph.descendants(probes)
    marked = graph.ancestors(needed)
    for i in range(min(probes), len(marked)):
        node = graph[i]
        unresolved = node.op == COND_OP and node.attrs.get("taken") is None
        if marked[i] and unresolved and probed[node.inputs[0]]:
            raise _SeedDependent


def _evaluate(graph: Graph, chain: Chain, known: dict, spent: list[int]) -> np.ndarray:
    """The order-N node for every combination of one-hot probes, in C order of the seeds.

    Nodes are evaluated when the last probe they depend on changes: what depends on no
    probe once, what depends on v1 only once per element of w1, and so on; the last
    probe's seeds go through one pass together (core/batch.py run_seeds, bit for bit a
    pass per seed), in chunks that fit --max-bytes, as the Hessian's rows do.
    """
    nodes = graph.nodes
    r = chain.node
    probes = chain.probes
    xnode = nodes[chain.wrt[-1]]
    shape = tuple(s for x in chain.wrt for s in nodes[x].shape)
    _check_probed_conds(graph, chain, [r])
    resolve_conds(graph, [r], known)
    upstream = graph.ancestors([r])
    # the level of a node: 1 + the index of the last probe it depends on (0: none)
    level = bytearray(len(graph))
    for k, v in enumerate(probes):
        for i, flag in enumerate(graph.descendants([v])):
            if flag:
                level[i] = k + 1
    last = len(probes) - 1
    per_pass = [i for i in range(min(probes), len(graph)) if upstream[i] and level[i]]
    _check_work(graph, chain, per_pass, spent)
    # what no probe changes (the first order's nodes too), evaluated once and kept
    fixed = [i for i in range(len(graph)) if upstream[i] and not level[i] and i not in known]
    known.update(run(graph, fixed, known=known, keep=True))
    # the nodes each probe's seeds change (the probes themselves are set, not computed)
    layers = [
        [i for i in per_pass if level[i] == k + 1 and i != probes[k]] for k in range(last + 1)
    ]
    seeds = [list(_one_hots(nodes[v])) for v in probes[:last]]
    vlast = nodes[probes[last]]
    chunk = seed_chunk(graph, vlast.id, layers[last], known) if vlast.size > 1 else 0
    if not batchable_seeds(graph, layers[last]):
        chunk = 0
    outer = int(np.prod([len(s) for s in seeds], dtype=np.int64))
    per_combination = -(-vlast.size // chunk) if chunk else vlast.size
    _check_passes(graph, chain.wrt, outer * per_combination, spent)
    out = np.empty((outer, vlast.size, xnode.size), xnode.dtype)
    stack = [known]  # stack[k]: the values known once probes before k are set
    previous = None
    for n, combo in enumerate(itertools.product(*(range(len(s)) for s in seeds))):
        p = 0 if previous is None else next(k for k in range(last) if combo[k] != previous[k])
        del stack[p + 1 :]
        for k in range(p, last):  # keep each layer's values while the later probes vary
            given = {**stack[k], probes[k]: seeds[k][combo[k]]}
            stack.append({**given, **run(graph, layers[k], known=given, keep=True)})
        _last_probe(graph, vlast, layers[last], r, stack[last], chunk, out[n])
        previous = combo
    return out.reshape(shape)


def _last_probe(graph: Graph, v, order: list[int], r: int, known: dict, chunk: int, out) -> None:
    """out[k] = r's value with the last probe v set to its k-th one-hot seed, every k."""
    if chunk:
        for k in range(0, v.size, chunk):
            seeds = one_hot_block(v, k, min(k + chunk, v.size))
            values = run_seeds(graph, v.id, seeds, order, [r], known)
            out[k : k + len(seeds)] = values[r].reshape(len(seeds), -1)
        return
    for k, seed in enumerate(_one_hots(v)):
        out[k] = np.asarray(run(graph, [r], known={**known, v.id: seed})[r]).reshape(-1)


def derivative(problem: Problem, sequences: list[tuple[int, ...]]) -> list[Block]:
    """d^N L / dw1 ... dwN for each sequence (w1 innermost, as nested tapes take them), of
    shape shape(w1) + ... + shape(wN); L is the outputs' sum weighted by grad_ys."""
    from gradcli.core.jacobian import require_scalar_outputs

    require_scalar_outputs(problem, "derivative")
    if any(not 1 <= len(seq) <= MAX_ORDER for seq in sequences):
        raise GradcliError(f"derivatives go from order 1 to {MAX_ORDER}")
    require_float_targets(problem, {x for seq in sequences for x in seq})
    problem = problem.scratch()  # every order builds on a copy
    graph = problem.graph
    _check_sizes(graph, sequences)
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    known.update(run(graph, problem.outputs, known=known, keep=True))
    spent = [0, 0]  # the work and the passes of all blocks count together
    blocks = []
    for seq in sequences:
        try:
            blocks.append(
                _block(graph, _chain(problem, seq, known), known, spent, problem.unconnected)
            )
        except _SeedDependent:
            blocks.append(_per_seed(problem, seq, known, spent))
    return blocks


def _chain(problem: Problem, seq: tuple[int, ...], known: dict) -> Chain:
    """The order-N chain of one sequence, built order by order."""
    graph = problem.graph
    order = len(seq)
    chain = _first(problem, seq[0], order == 1)
    for k in range(1, order):
        if isinstance(chain.node, int):
            _check_probed_conds(graph, chain, [chain.node])
            resolve_conds(graph, [chain.node], known)  # conds inside custom gradients
        chain = next_order(graph, chain, seq[k], k == order - 1)
    return chain


def _per_seed(problem: Problem, seq: tuple[int, ...], known: dict, spent: list[int]) -> Block:
    """The derivative with one gradient graph per one-hot seed combination (each prefix's
    built once), for custom gradients whose conds branch on the upstream gradient."""
    graph = problem.graph
    nodes = graph.nodes
    order = len(seq)
    xnode = nodes[seq[-1]]
    shape = tuple(s for x in seq for s in nodes[x].shape)
    _check_passes(graph, seq, int(np.prod([nodes[x].size for x in seq[:-1]])), spent)
    built: dict[tuple, object] = {(): _first(problem, seq[0], False).node}
    seeds: dict[int, list] = {}
    out = np.zeros((int(np.prod([nodes[x].size for x in seq[:-1]])), xnode.size), xnode.dtype)
    connected = False
    combos = itertools.product(*(range(nodes[x].size) for x in seq[:-1]))
    for n, combo in enumerate(combos):
        for k in range(1, order):
            if combo[:k] in built:
                continue
            g = built[combo[: k - 1]]
            if g is None:  # (intermediate orders are never ZERO_GRAD: zeros=True)
                built[combo[:k]] = None
                continue
            resolve_conds(graph, [g], known)
            if g not in seeds:
                seeds[g] = list(_one_hots(nodes[g]))
            last = k == order - 1
            grads = gradients(graph, [g], [seq[k]], [seeds[g][combo[k - 1]]], zeros=not last)
            built[combo[:k]] = grads.results[0]
        r = built[combo]
        if r is None:
            continue
        connected = True
        if r is not ZERO_GRAD:
            resolve_conds(graph, [r], known)
            out[n] = np.asarray(run(graph, [r], known=known)[r]).reshape(-1)
    if not connected:
        zeros = np.zeros(shape, xnode.dtype) if problem.unconnected == "zero" else None
        return Block(zeros, shape, xnode.dtype, "unconnected")
    return Block(out.reshape(shape), shape, xnode.dtype, "connected")


def _block(graph: Graph, chain: Chain, known: dict, spent: list[int], unconnected: str) -> Block:
    xnode = graph[chain.wrt[-1]]
    shape = tuple(s for x in chain.wrt for s in graph[x].shape)
    r = chain.node
    if r is None:
        zeros = np.zeros(shape, xnode.dtype) if unconnected == "zero" else None
        return Block(zeros, shape, xnode.dtype, "unconnected")
    if r is ZERO_GRAD:
        return Block(np.zeros(shape, xnode.dtype), shape, xnode.dtype, "connected")
    if not chain.probes:  # order 1: the gradient itself
        resolve_conds(graph, [r], known)
        value = run(graph, [r], known=known)[r]
        return Block(np.asarray(value, xnode.dtype).reshape(shape), shape, xnode.dtype,
                     "connected")  # fmt: skip
    value = _evaluate(graph, chain, dict(known), spent)
    return Block(np.asarray(value, xnode.dtype), shape, xnode.dtype, "connected")

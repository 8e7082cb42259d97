"""Reverse-mode differentiation, graph to graph (like tf.gradients).

gradients() appends gradient nodes to the graph and returns, for every target, the node
holding d(sum_k <grad_ys_k, y_k>)/dx, ZERO_GRAD (connected, known zero) or None
(unconnected). The gradient graph is made of ordinary ops, so it can be evaluated,
printed, translated, and differentiated again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradcli.core.graph import Graph, is_float
from gradcli.core.ops import REGISTRY, ZERO_GRAD, GradBuilder, const, fit, materialize


@dataclass
class Gradients:
    """The result of one differentiation."""

    outputs: list[int]
    targets: list[int]
    results: list  # per target: node id, ZERO_GRAD or None
    adjoints: dict[int, object] = field(default_factory=dict)  # forward node -> its gradient
    # (consumer, input slot, input node, contribution) for every edge the gradient crossed
    edges: list[tuple[int, int, int, object]] = field(default_factory=list)
    first_gradient_node: int = 0
    on_path: bytearray | None = None  # reachable()'s second answer: nodes the gradient crossed


def reachable(graph: Graph, outputs, targets) -> tuple[bytearray, bytearray]:
    """Nodes a gradient can reach from the targets, and those also on a path to an output.

    Only differentiable edges count (node.diff): stop_gradient, non-differentiable ops,
    integer tensors and untaken cond branches are not crossed.
    """
    nodes = graph.nodes
    end = max(outputs) + 1
    start = min(targets)
    from_x = bytearray(end)
    for x in targets:
        if x < end and is_float(nodes[x].dtype):
            from_x[x] = 1
    for i in range(start, end):
        if not from_x[i]:
            node = nodes[i]
            inputs = node.inputs
            for j in node.diff:
                if from_x[inputs[j]]:
                    from_x[i] = 1
                    break
    on_path = bytearray(end)
    for y in outputs:
        if from_x[y]:
            on_path[y] = 1
    for i in range(end - 1, start - 1, -1):
        if on_path[i]:
            node = nodes[i]
            inputs = node.inputs
            for j in node.diff:
                k = inputs[j]
                if from_x[k]:
                    on_path[k] = 1
    return from_x, on_path


def _needs_full(op, node, nodes) -> bool:
    """Whether a lazily broadcast gradient must be materialized before node's rules run.

    An elementwise op can pass a smaller g through to inputs of its own shape, but an input
    it broadcasts must receive the sum over the broadcast axes, which `fit` can only form
    when g has those axes in full (x + y with y (3,), x (2, 3) and a scalar seed: 2, not 1).
    """
    if not op.elementwise:
        return True
    shape = node.shape
    return any(nodes[node.inputs[j]].shape != shape for j in node.diff)


def gradients(
    graph: Graph,
    outputs: list[int],
    targets: list[int],
    seeds=None,
    record: bool = False,
    zeros: bool = False,
) -> Gradients:
    """Build the gradient of the outputs (weighted by seeds, default ones) w.r.t. the targets.

    A seed is an array, None (ones) or the id of a node of the graph holding it (a gradient
    rule differentiating a body with its upstream gradient, as tf.py_function's does).

    Kept as one function on purpose: one reversed loop over node ids is the whole
    algorithm (as a jaxpr's transpose), and it is the hot path of long chains.

    zeros=True builds a constant zero node wherever a rule knows its gradient is zero
    (sign, relu_grad's second input), as TensorFlow's zeros_like, and lets it flow through
    the other rules: the result is then never ZERO_GRAD, and differentiating it again finds
    the connections TensorFlow's nested tapes find (d/dz of the gradient of sign(x*z) w.r.t.
    x is a connected zero, through zeros * z).
    """
    first = len(graph)
    grads = Gradients(
        list(outputs), list(targets), [None] * len(targets), first_gradient_node=first
    )
    if not targets or not outputs:
        return grads
    _, on_path = reachable(graph, outputs, targets)
    grads.on_path = on_path
    b = GradBuilder(graph)
    adjoint: dict[int, object] = {}

    def accumulate(k: int, g) -> None:
        old = adjoint.get(k)
        if old is None or old is ZERO_GRAD:
            adjoint[k] = g
        elif g is not ZERO_GRAD:
            adjoint[k] = b.add(old, g)

    seeds = seeds or [None] * len(outputs)
    for y, seed in zip(outputs, seeds):
        if not on_path[y]:
            continue
        b.origin = y
        dtype = graph[y].dtype
        # an int seed is a node of the graph: a vector-Jacobian product inside a rule
        g = seed if isinstance(seed, int) else const(graph, 1.0 if seed is None else seed, dtype)
        accumulate(y, g)

    nodes = graph.nodes
    for i in range(max(outputs), min(targets) - 1, -1):
        if not on_path[i]:
            continue
        g = adjoint.get(i)
        node = nodes[i]
        if g is None or not node.diff:
            continue
        b.origin = i
        op = REGISTRY[node.op]
        if g is not ZERO_GRAD and nodes[g].shape != node.shape and _needs_full(op, node, nodes):
            g = materialize(b, g, node.shape)
        # run_rule, fit and accumulate inlined (a per-edge hot path): the same steps
        grad_each, rules = op.grad_each, op.grads
        for j in node.diff:
            k = node.inputs[j]
            if not on_path[k]:
                continue
            if g is ZERO_GRAD:
                r = ZERO_GRAD
            elif grad_each is not None:
                r = grad_each(b, node, g, j)
            else:
                rule = rules[j] if j < len(rules) else None
                r = None if rule is None else rule(b, node, g)
            if r is None:
                continue
            if r is ZERO_GRAD and zeros:
                r = b.const(0.0, like=k)
            if r is not ZERO_GRAD and nodes[r].shape != nodes[k].shape:
                r = fit(b, r, nodes[k].shape)
            if record:
                grads.edges.append((i, j, k, r))
            old = adjoint.get(k)
            if old is None or old is ZERO_GRAD:
                adjoint[k] = r
            elif r is not ZERO_GRAD:
                adjoint[k] = b.add(old, r)

    for t, x in enumerate(targets):
        g = adjoint.get(x)
        if g is not None and g is not ZERO_GRAD:
            b.origin = x
            g = materialize(b, g, nodes[x].shape)
        grads.results[t] = g
    if record:
        grads.adjoints = adjoint
    return grads

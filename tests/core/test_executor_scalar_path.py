"""The executor's scalar fast path gives what its general step gives, bit for bit.

run() takes 0-d steps of one or two operands without the general step's tests. A
reference loop here evaluates every node the general way (the step's choice between an
op's Python-float `scalar` path and its numpy forward, a raising scalar step redone in
numpy) and the values must agree in bits and in type, with values freed (keep=False) or
kept, for generated chains of float64, float32 and bool scalars through smooth ops, kinks,
selections, comparisons, poles (log of a negative, division by zero) and overflows.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.core import executor
from gradcli.core.autodiff import gradients
from gradcli.core.ops import REGISTRY
from gradcli.spec.assembly import build_problem
from gradcli.spec.reader import load_spec

INPUTS = """inputs:
  a: 0.5
  b: -1.25
  z: 0.0
  big: 700.0
  c: {value: 2.0, dtype: float32}
  v: [1.0, -2.0]
  h: true
graph:
"""
LEAVES = ["a", "b", "z", "big", "c", "v", "h", "2.0", "0.5", "-3.0"]


def _expr(depth: int = 0):
    leaf = st.sampled_from(LEAVES)
    if depth > 2:
        return leaf
    sub = st.deferred(lambda: _expr(depth + 1))
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["sin", "exp", "log", "sqrt", "abs", "relu"]), sub).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        st.tuples(st.sampled_from(["maximum", "minimum", "pow"]), sub, sub).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
        st.tuples(sub, sub, sub).map(lambda t: f"where({t[0]} < {t[1]}, {t[1]}, {t[2]})"),
        sub.map(lambda e: f"-{e}"),
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "<", ">=", "=="]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
    )


def _general(graph, top: int) -> list:
    """Every node's value up to top, each through the general step (no fast path)."""
    nodes = graph.nodes
    vals: list = [None] * (top + 1)
    with np.errstate(all="ignore"):
        for node in nodes[: top + 1]:
            i, args = node.id, node.inputs
            if node.op in ("input", "const"):
                vals[i] = node.attrs["value"]
                continue
            op = REGISTRY[node.op]
            fn, fallback = op.fn(node.attrs), None
            if (
                op.scalar is not None
                and node.shape == ()
                and (node.dtype == "float64" or node.op in executor._SCALAR_COMPARISONS)
                and all(
                    nodes[j].shape == () and nodes[j].dtype in executor._SCALAR_IN for j in args
                )
            ):
                fn, fallback = op.scalar, op
            try:
                vals[i] = fn(*[vals[j] for j in args])
            except (ArithmeticError, ValueError):
                redo = fallback.fn(node.attrs) if fallback is not None else fn
                vals[i] = redo(*[executor._as_numpy(vals[j]) for j in args])
    return vals


def _same(x, y) -> bool:
    return type(x) is type(y) and np.asarray(x).tobytes() == np.asarray(y).tobytes()


def _problem(exprs):
    text = INPUTS + "".join(f"  e{k}: {e}\n" for k, e in enumerate(exprs))
    try:
        return build_problem(load_spec(text, "s.yaml"))
    except Exception:  # a spec the lowering refuses (mixed dtypes): nothing to run
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(_expr(), min_size=1, max_size=4))
def test_scalar_fast_path_gives_the_general_steps_values(exprs):
    problem = _problem(exprs)
    if problem is None:
        return
    graph = problem.graph
    wrt = [graph.names[n] for n in ("a", "b", "c")]
    grads = gradients(graph, problem.outputs, wrt)
    targets = list(problem.outputs) + [g for g in grads.results if isinstance(g, int)]
    expected = _general(graph, max(targets))
    freed = executor.run(graph, targets)
    kept = executor.run(graph, targets, keep=True)
    for t in targets:
        assert _same(freed[t], expected[t]), (t, graph[t])
    for i, value in kept.items():
        assert _same(value, expected[i]), (i, graph[i])


def test_a_chain_of_maximum_entries_frees_as_it_goes():
    # the benchmark's shape: every intermediate value is dropped after its last use
    lines = [f"  y{i}: maximum(y{i - 1} * 0.9, 0.5 * x) + 0.01" for i in range(1, 200)]
    text = "inputs:\n  x: 0.3\n  y0: 0.5\ngraph:\n" + "\n".join(lines) + "\nwrt: [x]\n"
    problem = build_problem(load_spec(text, "s.yaml"))
    graph = problem.graph
    grads = gradients(graph, problem.outputs, problem.wrt)
    targets = [problem.outputs[0], grads.results[0]]
    expected = _general(graph, max(targets))
    got = executor.run(graph, targets)
    assert set(got) == set(targets)
    for t in targets:
        assert _same(got[t], expected[t])

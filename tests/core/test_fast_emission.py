"""Node emission's shortcuts build the graph the general calls build, node for node.

emit() answers an elementwise op's shape and dtype without calling its infer for inputs of
one shape and float dtype (registry.SAME_INFER, SAME_UNARY); GradBuilder.mul and add,
and maximum's and minimum's gradient rules, emit without going through GradBuilder.emit
(registry.GRAD_EMIT); the lowering looks a float64 literal up in const()'s cache itself
(lowering_fast._const). Here each spec is built and differentiated twice, with and
without the shortcuts, and every node (op, inputs, attributes, shape, dtype, kind, names,
position, origin, differentiable inputs) and every error must be the same.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.core import graph as graph_mod
from gradcli.core.autodiff import gradients
from gradcli.core.ops import REGISTRY, registry, selection
from gradcli.runtime.errors import GradcliError
from gradcli.spec import lowering_fast
from gradcli.spec.assembly import build_problem
from gradcli.spec.reader import load_spec

INPUTS = """inputs:
  a: 0.5
  b: -1.25
  c: {value: 2.0, dtype: float32}
  d: {value: [1.5, -0.5], dtype: float32}
  v: [1.0, -2.0]
  w: [[1.0, 2.0], [3.0, -4.0]]
  n: {value: 3, dtype: int32}
  h: true
graph:
"""
LEAVES = ["a", "b", "c", "d", "v", "w", "n", "h", "2.0", "0.5", "-3.0", "1.0", "0.0", "-0.0"]
UNARY = ["sin", "exp", "log", "sqrt", "abs", "relu", "tanh", "sigmoid", "neg", "square"]
BINARY = ["maximum", "minimum", "pow", "atan2", "xlogy", "mul_no_nan"]


def _expr(depth: int = 0):
    leaf = st.sampled_from(LEAVES)
    if depth > 2:
        return leaf
    sub = st.deferred(lambda: _expr(depth + 1))
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(UNARY), sub).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(BINARY), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"where({t[0]} < {t[1]}, {t[1]}, {t[2]})"),
        sub.map(lambda e: f"-{e}"),
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "<", ">=", "==", "**"]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
    )


def _record(node) -> tuple:
    attrs = sorted((k, repr(v), type(v).__name__) for k, v in node.attrs.items())
    return (
        node.id, node.op, node.inputs, type(node.inputs), attrs, node.shape, node.dtype,
        node.kind, node.name, node.entry, node.pos, node.origin, node.diff, type(node.diff),
    )  # fmt: skip


def _build(text: str):
    """Every node of the spec's graph and of its gradient, or the error raised."""
    try:
        problem = build_problem(load_spec(text, "s.yaml"))
        graph = problem.graph
        wrt = [graph.names[x] for x in ("a", "b", "c", "d", "v", "w")]
        grads = gradients(graph, problem.outputs, wrt, record=True)
    except GradcliError as exc:
        return ("error", str(exc), exc.pos)
    return [_record(n) for n in graph.nodes], grads.results, grads.edges


def _general(text: str):
    """_build with every shortcut off (the general calls run)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(registry, "SAME_INFER", {})
        m.setattr(registry, "SAME_UNARY", {})
        m.setattr(registry, "GRAD_EMIT", None)
        m.setattr(selection, "GRAD_EMIT", None)
        m.setattr(lowering_fast, "_const", lambda b, value, dtype, pos: b.const(value, dtype, pos))
        return _build(text)


def _spec(exprs) -> str:
    return INPUTS + "".join(f"  e{k}: {e}\n" for k, e in enumerate(exprs))


@settings(max_examples=300, deadline=None)
@given(exprs=st.lists(_expr(), min_size=1, max_size=4))
def test_shortcuts_build_the_general_graph(exprs):
    text = _spec(exprs)
    assert _build(text) == _general(text)


@pytest.mark.parametrize(
    "line, y0",
    [
        ("maximum(y * 0.9, 0.5 * a) + 0.01", "0.25"),
        ("minimum(y * 0.9, 0.5 * a) - 0.01", "0.25"),
        ("sin(y) * 0.9 + 0.1 * a", "0.25"),
        ("((y * 0.9) + ((0.1 * a) - 0.01))", "0.25"),
        ("maximum(c, y * 2.0) * 0.0 + minimum(y, c)", "{value: 0.25, dtype: float32}"),
        ("minimum(d, y * 1.0) + maximum(-0.0, d * y)", "{value: [0.5, 1.0], dtype: float32}"),
        ("maximum(w, y) * v + maximum(y, y)", "[[0.5, 1.0], [1.0, 1.0]]"),
    ],
)
def test_chains_of_the_benchmark_shapes(line, y0):
    lines = [f"  y{i}: {line.replace('y', f'y{i - 1}')}" for i in range(1, 40)]
    text = INPUTS.replace("graph:\n", f"  y0: {y0}\ngraph:\n") + "\n".join(lines) + "\n"
    fast = _build(text)
    assert fast[0] != "error", fast
    assert fast == _general(text)


class _Inputs:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


@pytest.mark.parametrize("opname", sorted(registry.SAME_UNARY))
def test_same_unary_is_what_infer_answers(opname):
    op = REGISTRY[opname]
    for dtype in graph_mod.FLOAT_DTYPES:
        for shape in ((), (3,), (2, 1)):
            x = _Inputs(shape, dtype)
            assert op.infer({}, x) == (shape, registry.SAME_UNARY[opname] or dtype)


@pytest.mark.parametrize("opname", sorted(registry.SAME_INFER))
def test_same_infer_is_what_infer_answers(opname):
    op = REGISTRY[opname]
    for dtype in graph_mod.FLOAT_DTYPES:
        for shape in ((), (3,), (2, 1)):
            x, y = _Inputs(shape, dtype), _Inputs(shape, dtype)
            assert op.infer({}, x, y) == (shape, registry.SAME_INFER[opname] or dtype)


def test_non_float_inputs_still_ask_infer():
    # int and bool inputs take the call (its dtype rules and errors are its own)
    text = INPUTS + "  e0: maximum(n, n)\n  e1: h == h\n  e2: n * n\n"
    nodes = _build(text)[0]
    assert [r[6] for r in nodes if r[1] in ("maximum", "equal", "mul")] == [
        "int32",
        "bool",
        "int32",
    ]
    assert _build(text) == _general(text)

"""The lowering's fast path (lowering_fast) builds the graph the generic path builds.

With the fast path switched off (every node through Builder.combine -> op_call -> prepare
-> unify), the same spec must give the same nodes in the same order: ops, inputs,
attributes, shapes, dtypes, positions and differentiable inputs, and the same error for
a spec the lowering refuses. Expressions mix float32, float64, int32 and bool inputs,
number literals, operators, unary minus and calls of one and two tensors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.runtime.errors import GradcliError
from gradcli.spec import lowering_fast
from gradcli.spec.assembly import build_problem
from gradcli.spec.reader import load_spec

INPUTS = """inputs:
  a: 0.5
  b: -1.25
  c: {value: 2.0, dtype: float32}
  d: {value: 0.75, dtype: float32}
  i: {value: 3, dtype: int32}
  v: [1.0, 2.0, 3.0]
  h: true
graph:
"""
NAMES = ["a", "b", "c", "d", "i", "v", "h", "pi", "2", "0.5", "1e-3", "True"]


def _expr(depth: int = 0):
    leaf = st.sampled_from(NAMES)
    if depth > 2:
        return leaf
    sub = st.deferred(lambda: _expr(depth + 1))
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["sin", "exp", "sqrt", "abs", "relu", "sum"]), sub).map(
            lambda t: f"{t[0]}({t[1]})"
        ),
        st.tuples(st.sampled_from(["maximum", "minimum", "pow"]), sub, sub).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
        sub.map(lambda e: f"-{e}"),
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "%", "<", "=="]), sub).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
    )


def _graph(text: str):
    """Every node as a comparable record, or the error's text."""
    try:
        problem = build_problem(load_spec(text, "s.yaml"))
    except GradcliError as exc:
        return str(exc)
    out = []
    for n in problem.graph.nodes:
        attrs = {k: (v.tobytes(), v.dtype) if isinstance(v, np.ndarray) else v
                 for k, v in n.attrs.items()}  # fmt: skip
        out.append((n.op, n.inputs, attrs, n.shape, n.dtype, n.kind, n.name, n.pos, n.diff))
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(_expr(), min_size=1, max_size=4))
def test_fast_lowering_builds_the_generic_graph(exprs):
    text = INPUTS + "".join(f"  e{k}: {e}\n" for k, e in enumerate(exprs))
    fast = _graph(text)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(lowering_fast, "_emit_fast", lambda *args: None)  # the generic path only
        generic = _graph(text)
    assert fast == generic


def test_fast_lowering_takes_the_common_nodes():
    """sin(a) * 0.9 + 0.1 * b: all four nodes through the fast path, none through combine."""
    taken = []
    original = lowering_fast._emit_fast

    def counting(*args):
        node = original(*args)
        taken.append(node is not None)
        return node

    with pytest.MonkeyPatch.context() as m:
        m.setattr(lowering_fast, "_emit_fast", counting)
        graph = _graph(INPUTS + "  y: sin(a) * 0.9 + 0.1 * b\n  z: maximum(c, d * 2) - 1\n")
    assert taken == [True] * 7
    assert graph == _graph(INPUTS + "  y: sin(a) * 0.9 + 0.1 * b\n  z: maximum(c, d * 2) - 1\n")
    ops = [rec[0] for rec in graph]
    assert ops[7:] == ["sin", "const", "mul", "const", "mul", "add", "const", "mul",
                       "maximum", "const", "sub"]  # fmt: skip

"""The one-element fast path of the zero attribution gives exactly the array pass's result.

Each spec below makes a scalar gradient zero for a different reason; the findings (kind,
culprit, operand, slot, counts, facts) and the explain pairs must be identical whether
the pass runs on numpy arrays alone (ZeroTrace) or with its one-element strategy
(ScalarPath) on Python values.
"""

from __future__ import annotations

import pytest

from gradcli.api import problem_from_text
from gradcli.explain import analysis as explain_module
from gradcli.explain.scalar_zeros import ScalarPath

CASES = {
    "mask": "inputs: {x: 2.0, y: 0.0}\ngraph: {f: x * y}\n",
    "inactive": "inputs: {x: -1.0}\ngraph: {f: relu(x) * 3}\n",
    "cancellation": "inputs: {x: 1.5}\ngraph: {a: x * 2, b: x * 2, f: a - b}\n",
    "underflow": "inputs: {x: 1.0}\ngraph: {f: (x * 1e-200) * 1e-200}\n",
    "underflow_float32": (
        "inputs: {x: {value: 1.0, dtype: float32}}\ngraph: {f: (x * 1e-30) * 1e-30}\n"
    ),
    "square_at_zero": "inputs: {x: 0.0}\ngraph: {f: x * x + 1}\n",
    "sign": "inputs: {x: 2.0}\ngraph: {f: sign(x) * 5}\n",
    "saturated_tanh": "inputs: {x: 40.0}\ngraph: {f: tanh(x) * 2}\n",
    "zero_grad_ys": "inputs: {x: 1.0}\ngraph: {y: 2 * x}\ngrad_ys: {y: 0.0}\n",
    "two_outputs": "inputs: {x: 1.0, y: 0.0}\ngraph: {a: x * y, b: sign(x)}\n",
    "partly_cut": "inputs: {x: 1.0, y: 0.0}\ngraph: {f: stop_gradient(x) + x * y}\n",
    "vector_consumer": "inputs: {x: 1.0, v: [0.0, 0.0, 0.0]}\ngraph: {f: sum(x * v)}\n",
    "vector_then_scalar": (
        "inputs: {x: 1.0, v: [0.0, 2.0]}\ngraph: {s: sum(v * 0.0), f: s * x + x * 0}\n"
    ),
    "long_chain": "inputs:\n  x0: 0.5\ngraph:\n"
    + "".join(f"  x{i}: sin(x{i - 1}) * 0.5 + 0.25\n" for i in range(1, 1200)),
}


def analyse(text: str, fast_path, monkeypatch):
    monkeypatch.setattr(explain_module, "FAST_PATH", fast_path)
    problem = problem_from_text(text)
    analysis = explain_module.Analysis(problem, problem.outputs, problem.seeds)
    pairs = [pair.document() for pair in analysis.pairs(problem.wrt)]
    trace = analysis._trace()
    counts = {x: trace.counts(x) for x in problem.wrt}
    return pairs, trace.findings, counts


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_matches_the_array_pass(name, monkeypatch):
    fast = analyse(CASES[name], ScalarPath, monkeypatch)
    slow = analyse(CASES[name], None, monkeypatch)
    assert fast == slow
    pairs, findings, _ = fast
    assert findings, "every case has a zero gradient to explain"
    assert any(pair["status"] in ("zero", "partially_zero") for pair in pairs)


def test_fast_path_is_taken_on_a_scalar_chain(monkeypatch):
    calls = []
    original = ScalarPath.node
    monkeypatch.setattr(
        ScalarPath, "node", lambda self, k, e: calls.append(k) or original(self, k, e)
    )
    pairs, findings, _ = analyse(CASES["long_chain"], ScalarPath, monkeypatch)
    assert [f.kind for f in findings] == ["underflow"]
    assert pairs[0]["status"] == "zero" and len(calls) > 1000

"""The executor writes elementwise results into dead operands' buffers, never into live ones."""

import tracemalloc

import numpy as np

from gradcli.api import problem_from_text
from gradcli.core.evaluation import evaluate


def test_elementwise_loss_reuses_dead_buffers():
    n = 1_000_000
    text = (
        f"inputs:\n  x: {{random: normal, shape: [{n}], seed: 0}}\n"
        "graph:\n  loss: sum(tanh(x) * x + exp(-x * x))\n"
    )
    problem = problem_from_text(text)
    x = problem.graph[problem.graph.inputs[0]].attrs["value"]
    tracemalloc.start()
    try:
        ev = evaluate(problem)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    t = np.tanh(x)
    e = np.exp(-x * x)
    assert ev.outputs["loss"] == np.sum(t * x + e)  # numpy sums in the same order
    # d/dx = (1 - t^2) x + t - 2 x e, derived by hand
    expected = (1 - t * t) * x + t - 2 * x * e
    np.testing.assert_allclose(ev.gradients["x"], expected, rtol=1e-13, atol=1e-15)
    # bit for bit what the same graph gives with every value kept (no buffer reused)
    kept = evaluate(problem_from_text(text), keep=True)
    assert np.array_equal(kept.gradients["x"], ev.gradients["x"])
    # besides x (allocated before tracing), five 8 MB arrays are alive at the peak without
    # reuse, four with it, and three once the gradient of -x * x multiplies by x instead of
    # reading -x (measured: 3.0): the hand-fused floor's three buffers
    assert peak < 3.5 * 8 * n


def test_a_view_of_a_value_keeps_its_buffer_from_reuse():
    # a is viewed by r (reshape); a's last use, a + 1, must not overwrite what r shows
    problem = problem_from_text(
        "inputs:\n  x: [1.0, 2.0, 3.0, 4.0]\n"
        "graph:\n"
        "  a: x * 2\n"
        "  r: reshape(a, [2, 2])\n"
        "  c: a + 1\n"
        "  loss: sum(c) * 10 + sum(r * r)\n"
    )
    ev = evaluate(problem)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert ev.outputs["loss"] == np.sum(2 * x + 1) * 10 + np.sum((2 * x) ** 2)
    assert ev.gradients["x"].tolist() == (20 + 8 * x).tolist()


def test_inputs_are_never_overwritten():
    problem = problem_from_text("inputs:\n  x: [1.0, -2.0]\ngraph:\n  y: sum(exp(x) * x)\n")
    before = problem.graph[problem.graph.inputs[0]].attrs["value"].copy()
    evaluate(problem)
    evaluate(problem)
    assert problem.graph[problem.graph.inputs[0]].attrs["value"].tolist() == before.tolist()


def test_pooled_buffers_take_later_results_bit_for_bit(monkeypatch):
    import gradcli.core.executor as executor

    taken = []
    original = executor._ufunc_step

    def spy(fn, node, args, vals, owned, last_use, pool):
        before = sum(map(len, pool.values()))
        out = original(fn, node, args, vals, owned, last_use, pool)
        taken.append(before - sum(map(len, pool.values())))
        return out

    monkeypatch.setattr(executor, "_ufunc_step", spy)
    # x * x dies in its sum; sin(x) has no dead operand, so it takes that buffer
    text = (
        "inputs:\n  x: {random: normal, shape: [1000], seed: 1}\n"
        "graph:\n  f: sum(x * x) + sum(sin(x) * tanh(x) * x + exp(-x * x))\n"
    )
    problem = problem_from_text(text)
    x = problem.graph[problem.graph.inputs[0]].attrs["value"]
    before = x.copy()
    ev = evaluate(problem)
    assert sum(taken) >= 1
    kept = evaluate(problem_from_text(text), keep=True)
    assert kept.outputs["f"] == ev.outputs["f"]
    assert np.array_equal(kept.gradients["x"], ev.gradients["x"])
    assert np.array_equal(x, before)
    assert not np.shares_memory(ev.gradients["x"], x)
    # d/dx by hand: 2x + cos(x) t x + sin(x) (1 - t^2) x + sin(x) t - 2 x e
    t, e = np.tanh(before), np.exp(-before * before)
    s, c = np.sin(before), np.cos(before)
    expected = 2 * x + c * t * x + s * (1 - t * t) * x + s * t - 2 * x * e
    np.testing.assert_allclose(ev.gradients["x"], expected, rtol=1e-12, atol=1e-14)


def test_tanh_grad_forward_matches_the_plain_expression_bit_for_bit():
    from gradcli.core.ops import REGISTRY

    forward = REGISTRY["tanh_grad"].forward
    rng = np.random.default_rng(3)
    y64, dy64 = np.tanh(rng.normal(size=(4, 5))), rng.normal(size=(4, 5))
    cases = [
        (y64, dy64),
        (y64[0], dy64),  # y broadcast
        (y64, dy64[:, :1]),  # dy broadcast
        (y64.astype(np.float32), dy64.astype(np.float32)),
        (y64.astype(np.float32), dy64),  # mixed: the result is float64
        (np.float64(0.5), np.float64(2.0)),
        (np.array(0.5), np.array(2.0)),
    ]
    for y, dy in cases:
        expected = dy * (1.0 - y * y)
        got = forward(y, dy)
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        assert np.array_equal(got, expected)
    # out= holding y or holding dy (the executor's dead-operand buffers)
    expected = dy64 * (1.0 - y64 * y64)
    y, dy = y64.copy(), dy64.copy()
    assert np.array_equal(forward(y, dy, out=y), expected)
    y, dy = y64.copy(), dy64.copy()
    assert np.array_equal(forward(y, dy, out=dy), expected)


def test_a_negated_input_in_a_product_is_not_kept_for_the_gradient():
    # d/dy sin((-x) * y) = cos(.) * (-x): the rule multiplies by x and negates the product,
    # so -x dies in the forward pass instead of living until the backward one
    problem = problem_from_text(
        "inputs:\n  x: [0.0, -0.0, 1.5, -2.0, 0.0, 3.0e-300]\n"
        "  y: [1.0, -1.0, -0.0, 0.0, -7.0, 1.0e300]\n"
        "graph:\n  f: sum(sin((-x) * y)) + sum(sin(y * (-x)))\n"
    )
    graph = problem.graph
    ev = evaluate(problem)
    negs = [n.id for n in graph.nodes if n.op == "neg" and n.kind == "forward"]
    assert len(negs) == 2
    assert [n for n in graph.nodes if n.kind == "gradient" and set(n.inputs) & set(negs)] == []
    x = np.array([0.0, -0.0, 1.5, -2.0, 0.0, 3.0e-300])
    y = np.array([1.0, -1.0, -0.0, 0.0, -7.0, 1.0e300])
    c = np.cos(-x * y)
    # TensorFlow's Mul gradient, g * (-x): negation is exact, so the same bits, signed
    # zeros included
    for got, want in ((ev.gradients["y"], c * -x + c * -x), (ev.gradients["x"], -(c * y + c * y))):
        assert np.array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))

"""The values of gradcli jacobian and gradcli hessian (through the CLI).

Values are checked against SymPy (tests/sympy_ref.py, an independent translation of the
forward graph differentiated by sympy.diff), hand derivations and finite differences of
eval's gradient; None-versus-zero conventions against TensorFlow's nested GradientTapes
(tape.jacobian of a first gradient), checked by hand with TF 2.21 in float64.
"""

import json

import numpy as np
import pytest
from helpers import SPECS, central_difference, invoke, run_json, spec

from gradcli.cli.inputs import load_problem

sympy_ref = pytest.importorskip("sympy_ref")

# specs whose values are NaN or Inf by design (issue 8; test_nonfinite.py checks them
# against TensorFlow): SymPy's exact derivatives differ there (where traps give nan; the
# Hessian of where(x > 0, sqrt(x), 0) is nan at x <= 0 in TensorFlow too)
NON_FINITE_SPECS = {"exp_overflow.yaml", "log_at_zero.yaml", "sqrt_at_zero.yaml",
                    "where_log_trap.yaml", "where_sqrt.yaml"}  # fmt: skip
ALL_SPECS = sorted(p.name for p in SPECS.glob("*.yaml") if p.name not in NON_FINITE_SPECS)
# the gradient targets whose block is None in TensorFlow (tape.jacobian returns None)
JACOBIAN_NONE = {
    "cond_constant_branch.yaml": {"x", "y"},
    "cond_untaken.yaml": {"x", "y"},
    "integer_input.yaml": {"n"},
    "round.yaml": {"x"},
    "stop_gradient.yaml": {"x"},
    "two_cuts.yaml": {"x"},
    "unused_input.yaml": {"w"},
}
HESSIAN_NONE = {
    "cond_constant_branch.yaml": {("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")},
    "cond_taken.yaml": {("x", "x"), ("y", "y")},  # d(y)/dx, d(x)/dy
    "cond_untaken.yaml": {("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")},
    "custom_relu.yaml": {("x", "x")},  # the custom gradient uses x only through x > 0
    "dead_relu.yaml": set(),  # relu'' is a connected zero (TensorFlow's ReluGrad)
    "integer_input.yaml": {("x", "x"), ("x", "n"), ("n", "x"), ("n", "n")},  # dz/dx = n
    "mask.yaml": {("x", "x")},  # the gradient is the constant mask
    "quadratic.yaml": set(),
    "round.yaml": {("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")},  # dz/dy = round(x)
    "stop_gradient.yaml": {("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")},
    "tutorial_z.yaml": {("y", "y")},  # dz/dy = x - 3
    "two_cuts.yaml": {("x", "x")},
    "two_inputs.yaml": {("x", "x")},  # dz/dx = y
    "unused_input.yaml": {("w", "w"), ("w", "b"), ("b", "w"), ("b", "b")},
    "mlp.yaml": set(),
    "where_log_safe.yaml": set(),
}


def problem(name, wrt=None):
    return load_problem(spec(name), None, (), (wrt,) if wrt else (), None)


def sympy_graph(name):
    p = problem(name)
    float_inputs = [p.graph[i].name for i in p.graph.inputs if p.graph[i].dtype == "float64"]
    return p, sympy_ref.SympyGraph(p, float_inputs)


def write(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- hand-derived values ------------------------------------------------------------------


def test_jacobian_of_a_tensor_output_has_output_then_input_shape(tmp_path):
    # y[i, j] = a[i] * w[j] + w[j]**2:
    # dy[i, j]/dw[k] = (a[i] + 2 w[j]) if j == k else 0; dy[i, j]/da[k] = w[j] if i == k else 0
    path = write(
        tmp_path,
        "inputs:\n  a: [1.0, 2.0]\n  w: [3.0, 4.0, 5.0]\n"
        "graph:\n  y: reshape(a, [2, 1]) * w + w**2\n",
    )
    doc = run_json("jacobian", path)["jacobian"]["y"]
    assert doc["w"]["shape"] == [2, 3, 3]
    assert doc["a"]["shape"] == [2, 3, 2]
    a, w = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    want_w = np.zeros((2, 3, 3))
    want_a = np.zeros((2, 3, 2))
    for i in range(2):
        for j in range(3):
            want_w[i, j, j] = a[i] + 2 * w[j]
            want_a[i, j, i] = w[j]
    assert np.array_equal(doc["w"]["value"], want_w)
    assert np.array_equal(doc["a"]["value"], want_a)


def test_jacobian_ignores_grad_ys_and_hessian_weights_by_it(tmp_path):
    # y = x**3 with grad_ys 2: the Jacobian is 3x**2 = 12, the Hessian of 2*y is 12x = 24
    path = write(tmp_path, "inputs: {x: 2.0}\ngraph: {y: x**3}\ngrad_ys: {y: 2.0}\n")
    assert run_json("jacobian", path)["jacobian"]["y"]["x"]["value"] == 12.0
    assert run_json("hessian", path)["hessian"]["x"]["x"]["value"] == 24.0


def test_jacobian_of_an_integer_output_is_none(tmp_path):
    path = write(tmp_path, "inputs: {x: [1.5, -2.0]}\ngraph:\n  k: cast(x, dtype='int32')\n")
    block = run_json("jacobian", path)["jacobian"]["k"]["x"]
    assert block == {"value": None, "shape": [2, 2], "dtype": "float64", "status": "unconnected"}


def test_relu_second_derivative_is_a_connected_zero():
    # TF: tape.jacobian(tape.gradient(sum(relu(x)), x), x) is a 3x3 zero tensor, not None
    doc = run_json("hessian", "-e", "sum(relu(x))", "--at", "x=[1, -2, 0.5]")
    block = doc["hessian"]["x"]["x"]
    assert block["status"] == "connected"
    assert np.array_equal(block["value"], np.zeros((3, 3)))


def test_sign_cross_term_is_a_connected_zero():
    # TF: d/dz of TF's zeros for sign's gradient times z is 0, d/dx of (0*z + 1) is None
    res = invoke(
        "hessian", "-e", "sign(x*z) + x", "--at", "x=2", "--at", "z=3", "--format", "plain"
    )
    assert res.stdout.splitlines() == [
        "hessian\tx\tx\tNone",
        "hessian\tx\tz\t0",
        "hessian\tz\tx\t0",
        "hessian\tz\tz\tNone",
    ]


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose(tmp_path):
    # L = x^T A x: H = A + A^T
    a = [[1.0, 2.0, 0.5], [-1.0, 3.0, 4.0], [0.0, 2.5, -2.0]]
    path = write(
        tmp_path,
        f"inputs:\n  x: [0.3, -1.2, 2.0]\n  A: {{value: {a}, trainable: false}}\n"
        "graph:\n  L: sum(x * (A @ x))\n",
    )
    h = run_json("hessian", path)["hessian"]["x"]["x"]
    assert np.array_equal(h["value"], np.array(a) + np.array(a).T)


# --- SymPy on every shipped spec ----------------------------------------------------------
# The MLP's expressions are large for SymPy: its checks take a fixed sample of entries, with
# only the inputs of the block symbolic.
SMALL_SPECS = [n for n in ALL_SPECS if n != "mlp.yaml"]
MLP = "mlp.yaml"


def sample(size_a: int, size_b: int, count: int, seed: int = 0) -> list[tuple[int, int]]:
    pairs = [(j, k) for j in range(size_a) for k in range(size_b)]
    if len(pairs) <= count:
        return pairs
    pick = np.random.default_rng(seed).choice(len(pairs), count, replace=False)
    return [pairs[t] for t in sorted(pick)]


@pytest.mark.parametrize("name", SMALL_SPECS)
def test_jacobian_of_every_spec_against_sympy(name):
    doc = run_json("jacobian", spec(name))["jacobian"]
    p, ref = sympy_graph(name)
    for output, row in doc.items():
        for x, block in row.items():
            node_x, node_y = p.graph.node(x), p.graph.node(output)
            assert block["shape"] == list(node_y.shape + node_x.shape)
            if x in JACOBIAN_NONE.get(name, ()):
                assert block == {**block, "value": None, "status": "unconnected"}
                continue
            assert block["status"] == "connected"
            want = ref.jacobian(output, x)
            if name == "custom_relu.yaml":
                want = 2 * want  # its custom gradient is twice relu's, on purpose
            np.testing.assert_allclose(block["value"], want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", [n for n in sorted(HESSIAN_NONE) if n != MLP])
def test_hessian_of_every_scalar_spec_against_sympy(name):
    doc = run_json("hessian", spec(name))["hessian"]
    p, ref = sympy_graph(name)
    output = p.graph[p.outputs[0]].name
    for a, row in doc.items():
        for b, block in row.items():
            shape = p.graph.node(a).shape + p.graph.node(b).shape
            assert block["shape"] == list(shape)
            if (a, b) in HESSIAN_NONE[name]:
                assert (block["status"], block["value"]) == ("unconnected", None)
                continue
            assert block["status"] == "connected"
            want = ref.hessian(output, a, b)
            np.testing.assert_allclose(block["value"], want, rtol=1e-11, atol=1e-14)


def test_mlp_jacobian_against_sympy():
    doc = run_json("jacobian", spec(MLP))["jacobian"]["loss"]
    p = problem(MLP)
    ref = sympy_ref.SympyGraph(p, ["w1", "b1", "w2", "b2"])
    for x in ("w1", "b1", "w2", "b2"):
        block = doc[x]
        assert block["status"] == "connected"
        assert block["shape"] == list(p.graph.node(x).shape)
        got = np.asarray(block["value"]).reshape(-1)
        pairs = sample(1, got.size, 6)
        want = ref.jacobian("loss", x, pairs).reshape(-1)
        for _, k in pairs:
            assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-15), (x, k)


@pytest.mark.parametrize(("a", "b"), [("b2", "b2"), ("w2", "b2"), ("b1", "w2"), ("w1", "b1")])
def test_mlp_hessian_blocks_against_sympy(a, b):
    block = run_json("hessian", spec(MLP), "--wrt", f"{a},{b}")["hessian"][a][b]
    p = problem(MLP)
    size_a, size_b = p.graph.node(a).size, p.graph.node(b).size
    assert block["shape"] == list(p.graph.node(a).shape + p.graph.node(b).shape)
    assert block["status"] == "connected"
    ref = sympy_ref.SympyGraph(p, sorted({a, b}))
    pairs = sample(size_a, size_b, 9 if "w1" not in (a, b) else 3)
    want = ref.hessian("loss", a, b, pairs).reshape(size_a, size_b)
    got = np.asarray(block["value"]).reshape(size_a, size_b)
    for j, k in pairs:
        assert got[j, k] == pytest.approx(want[j, k], rel=1e-10, abs=1e-13), (j, k)


def test_mlp_hessian_is_symmetric():
    # d2L/da db = (d2L/db da) transposed: the (b, a) block with its axes of a moved first
    doc = run_json("hessian", spec(MLP))["hessian"]
    names = ["w1", "b1", "w2", "b2"]
    p = problem(MLP)
    for a in names:
        for b in names:
            hab = np.asarray(doc[a][b]["value"])
            hba = np.asarray(doc[b][a]["value"])
            ra, rb = len(p.graph.node(a).shape), len(p.graph.node(b).shape)
            swapped = np.transpose(hba, [*range(rb, rb + ra), *range(rb)])
            np.testing.assert_allclose(hab, swapped, rtol=1e-12, atol=1e-15)


def test_every_spec_has_a_hessian_expectation():
    scalar = []
    for name in ALL_SPECS:
        p = problem(name)
        if all(p.graph[y].shape == () for y in p.outputs):
            scalar.append(name)
    assert sorted(scalar) == sorted(HESSIAN_NONE)


TANH_SOFTMAX = """\
inputs:
  x: {value: [[0.5, -1.0], [-0.75, 2.0]], trainable: false}
  W: [[0.3, -0.2, 0.8], [-0.5, 0.4, 0.1]]
  b: [0.05, -0.1, 0.2]
  t: {value: [[1, 0, 0], [0.2, 0.3, 0.5]], trainable: false}
graph:
  h: tanh(x @ W + b)
  p: softmax(h, axis=1)
  loss: sum(t * log(p)) + sum(h * h)
"""


def test_hessian_through_tanh_softmax_matmul_and_broadcast(tmp_path):
    path = write(tmp_path, TANH_SOFTMAX)
    doc = run_json("hessian", path)["hessian"]
    p = load_problem(path, None, (), (), None)
    ref = sympy_ref.SympyGraph(p, ["W", "b"])
    for a in ("W", "b"):
        for b in ("W", "b"):
            block = doc[a][b]
            assert block["status"] == "connected"
            want = ref.hessian("loss", a, b)
            assert block["shape"] == list(want.shape)
            np.testing.assert_allclose(block["value"], want, rtol=1e-11, atol=1e-14)
    # symmetric, as a Hessian of a smooth function must be
    hwb = np.asarray(doc["W"]["b"]["value"])
    hbw = np.asarray(doc["b"]["W"]["value"])
    np.testing.assert_allclose(hwb, np.moveaxis(hbw, 0, -1), rtol=1e-12, atol=1e-15)


def test_hessian_against_finite_differences_of_the_gradient(tmp_path):
    # an independent route: central differences of eval's gradient along each element of b
    path = write(tmp_path, TANH_SOFTMAX)
    hbb = np.asarray(run_json("hessian", path, "--wrt", "b")["hessian"]["b"]["b"]["value"])
    b0 = np.array([0.05, -0.1, 0.2])

    def grad_b_component(k):
        def f(b):
            at = "b=" + json.dumps(b.tolist())
            doc = run_json("eval", path, "--wrt", "b", "--at", at)
            return doc["gradients"]["b"]["value"][k]

        return f

    for k in range(3):
        row = central_difference(grad_b_component(k), b0, eps=1e-5)
        np.testing.assert_allclose(hbb[k], row, rtol=1e-6, atol=1e-8)


def test_jacobian_of_softmax_output_against_sympy(tmp_path):
    path = write(tmp_path, TANH_SOFTMAX.replace("  loss: sum(t * log(p)) + sum(h * h)\n", ""))
    block = run_json("jacobian", path, "--wrt", "b")["jacobian"]["p"]["b"]
    assert block["shape"] == [2, 3, 3]
    p = load_problem(path, None, (), ("b",), None)
    want = sympy_ref.SympyGraph(p, ["b"]).jacobian("p", "b")
    np.testing.assert_allclose(block["value"], want, rtol=1e-12, atol=1e-15)
    # each row of a softmax sums to 1, so its Jacobian sums to 0 over the output's last axis
    np.testing.assert_allclose(np.sum(block["value"], axis=1), 0, atol=1e-15)

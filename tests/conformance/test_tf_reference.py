"""gradcli against TensorFlow 2.21: every case of tests/data/tf_reference.json.

The data file is written by tools/tf_reference.py, which evaluates each case with
TensorFlow (tf.GradientTape, float64 unless the case says float32) in both unconnected
modes; TensorFlow is not needed here.

What must agree, for outputs, gradients and second derivatives:
- conventions, exactly: None vs a tensor, dtype and shape, the positions of nan, +inf and
  -inf, the positions of zeros, and the sign of every zero of an output or a gradient
  (relu'(-0.0), log'(-0.0), 1/-0.0 and the `where` traps make it observable). Second
  derivatives are compared without the sign of their zeros: a Hessian row is seeded with a
  one-hot vector, and the sign of the exact zeros its zero entries produce depends on
  whether a library adds a materialized +0.0 for a connected zero gradient (TensorFlow's
  zeros_like for sign, Eigen's reductions starting from +0.0) or skips it (gradcli's
  symbolic zero), which carries no meaning;
- values: bit-identical for cases marked "exact" (only + - * /, selections, and
  reductions whose every partial result is exact, so evaluation order cannot matter);
  within ULPS units in the last place for "close" cases, whose transcendental functions
  (numpy's libm against Eigen's vectorised kernels) and summation orders (numpy's pairwise
  sums and BLAS against Eigen's reductions) legitimately round differently.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import TEST_DATA, invoke

from gradcli import api
from gradcli.core.autodiff import gradients
from gradcli.core.executor import resolve_conds, run
from gradcli.core.ops import ZERO_GRAD

DATA = json.loads((TEST_DATA / "tf_reference.json").read_text())
CASES = {c["id"]: c for c in DATA["cases"]}
HESSIANS = {h["id"]: h for h in DATA["hessians"]}
MODES = ("none", "zero")

# A "close" value may differ from TensorFlow's by this many ulps of the largest magnitude in
# its tensor (a case's own "ulps" overrides it, with a note saying why): transcendental
# kernels differ by about an ulp, and a gradient combines a few of them (tanh's 1 - y*y and
# softmax's (g - sum(g*s)) * s cancel, so the scale is the tensor's, not the element's).
ULPS = 4


def decode(enc: dict) -> np.ndarray:
    """A stored {value, shape, dtype} as an array ("nan", "inf", "-inf" strings decoded)."""
    dtype = np.dtype(enc["dtype"])
    flat = np.array(enc["value"], dtype=object).reshape(-1)
    if dtype.kind == "f":
        flat = [float(v) if isinstance(v, str) else v for v in flat]
    return np.array(flat, dtype=dtype).reshape(enc["shape"])


def decode_at(at: dict) -> dict:
    return {
        k: decode({"value": v, "shape": np.shape(v), "dtype": "float64"}) for k, v in at.items()
    }


def mismatch(
    actual, expected: dict | None, tolerance: str, signed_zeros=True, ulps=ULPS
) -> str | None:
    """Why actual differs from TensorFlow's expected value, or None when they agree."""
    if expected is None or actual is None:
        if expected is None and actual is None:
            return None
        return f"TensorFlow gives {'None' if expected is None else 'a tensor'}, gradcli {actual}"
    want = decode(expected)
    got = np.asarray(actual)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"dtype/shape {got.dtype}{got.shape}, TensorFlow {want.dtype}{want.shape}"
    if want.dtype.kind != "f":
        return None if np.array_equal(got, want) else f"{got.tolist()} != {want.tolist()}"
    problems = []
    for what, test in (("nan", np.isnan), ("zero", lambda a: a == 0), ("inf", np.isinf)):
        if not np.array_equal(test(got), test(want)):
            problems.append(f"{what} positions differ")
    signed = ~np.isnan(want) & ~np.isnan(got)
    if not signed_zeros:
        signed &= want != 0
    if not np.array_equal(np.signbit(got[signed]), np.signbit(want[signed])):
        problems.append("signs differ (sign of zero included)")
    finite = np.isfinite(want) & np.isfinite(got)
    if tolerance == "exact":
        if not np.array_equal(got[finite], want[finite]):
            problems.append("values differ (exact case)")
    else:
        eps = np.finfo(want.dtype).eps
        scale = np.max(np.abs(want[finite]), initial=0.0)
        err = np.abs(got[finite].astype(np.float64) - want[finite].astype(np.float64))
        if np.any(err > ulps * eps * scale):
            problems.append(f"values differ by {np.max(err) / (eps * scale):.1f} ulps")
    if not problems:
        return None
    return f"{'; '.join(problems)}:\n  gradcli    {got.tolist()}\n  TensorFlow {want.tolist()}"


def evaluate(case: dict, mode: str):
    if "expr" in case:
        return api.grad(case["expr"], decode_at(case["at"]), wrt=case.get("wrt"), unconnected=mode)
    return api.grad(case["spec"], {}, spec=True, unconnected=mode)


def check_against_tensorflow(case: dict, outputs: dict, grads: dict, mode: str) -> None:
    """gradcli agrees with TensorFlow, except (still) where the case documents a difference."""
    assert list(outputs) == list(case["outputs"])
    expected_grads = case["gradients"][mode]
    assert sorted(grads) == sorted(expected_grads)
    pairs = [(f"output {n}", outputs[n], e) for n, e in case["outputs"].items()]
    pairs += [(f"gradient {n}", grads[n], e) for n, e in expected_grads.items()]
    differs = case.get("differs", {})
    problems = []
    for what, actual, expected in pairs:
        why = mismatch(actual, expected, case["tolerance"], ulps=case.get("ulps", ULPS))
        if what in differs and not why:
            problems.append(f"{what} ({mode}) now agrees: drop the documented difference")
        elif why and what not in differs:
            problems.append(f"{what} ({mode}): {why}")
    assert not problems, f"{case['id']}: " + "\n".join(problems)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", list(CASES))
def test_first_order_matches_tensorflow(case_id, mode):
    case = CASES[case_id]
    ev = evaluate(case, mode)
    check_against_tensorflow(case, ev.outputs, ev.gradients, mode)


def _from_cli_json(doc: dict, key: str) -> dict:
    out = {}
    for name, item in doc[key].items():
        if item["value"] is None:
            out[name] = None
        else:
            out[name] = decode(
                {"value": item["value"], "shape": item["shape"], "dtype": item["dtype"]}
            )
    return out


CLI_CASES = [i for i, c in CASES.items() if c.get("cli")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", CLI_CASES)
def test_cli_matches_tensorflow(case_id, mode):
    case = CASES[case_id]
    args = ["eval", "--format", "json", "--unconnected", mode]
    if "expr" in case:
        args += ["-e", case["expr"]]
        for name, value in decode_at(case["at"]).items():
            args += ["--at", f"{name}={json.dumps(value.tolist())}"]
        if case.get("wrt"):
            args += ["--wrt", ",".join(case["wrt"])]
        res = invoke(*args)
    else:
        res = invoke(*args, "-", input=case["spec"])
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["unconnected"] == mode
    check_against_tensorflow(
        case, _from_cli_json(doc, "outputs"), _from_cli_json(doc, "gradients"), mode
    )


def test_cli_cases_cover_both_forms():
    forms = {("expr" in CASES[i]) for i in CLI_CASES}
    assert forms == {True, False}


# --- second order --------------------------------------------------------------------------
def hessian_blocks(case: dict, mode: str) -> list[tuple[str, str, np.ndarray | None]]:
    """d(dF/dx_i)/dx_j for every pair of targets, as gradcli's graph-to-graph autodiff gives it.

    The first gradient is built into the graph, then differentiated again with one-hot
    seeds, one row at a time (like TensorFlow's nested tapes).
    """
    problem = api.problem_from_expression(
        case["expr"], decode_at(case["at"]), wrt=case["wrt"], unconnected=mode
    )
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    first = gradients(graph, problem.outputs, problem.wrt, problem.seeds)
    blocks = []
    for i, gi in zip(problem.wrt, first.results):
        for j in problem.wrt:
            xi, xj = graph[i], graph[j]
            shape = xi.shape + xj.shape
            rows = []
            if isinstance(gi, int):
                for k in range(xi.size):
                    seed = np.zeros(xi.size, dtype=xi.dtype)
                    seed[k] = 1.0
                    second = gradients(graph, [gi], [j], [seed.reshape(xi.shape)])
                    rows.append(second.results[0])
            if not rows or all(r is None for r in rows):
                value = np.zeros(shape, xj.dtype) if mode == "zero" else None
            else:
                assert all(r is not None for r in rows), "connectivity differs between rows"
                nodes = [r for r in rows if isinstance(r, int)]
                values = run(graph, nodes, known=known)
                value = np.stack(
                    [
                        np.zeros(xj.shape, xj.dtype)
                        if r is ZERO_GRAD
                        else np.asarray(values[r], xj.dtype)
                        for r in rows
                    ]
                ).reshape(shape)
            blocks.append((xi.name, xj.name, value))
    return blocks


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", list(HESSIANS))
def test_second_order_matches_tensorflow(case_id, mode):
    case = HESSIANS[case_id]
    expected = case["hessians"][mode]
    got = hessian_blocks(case, mode)
    assert [(b["of"], b["by"]) for b in expected] == [(i, j) for i, j, _ in got]
    problems = []
    for block, (i, j, value) in zip(expected, got):
        ulps = case.get("ulps", ULPS)
        why = mismatch(value, block["value"], case["tolerance"], signed_zeros=False, ulps=ulps)
        if why:
            problems.append(f"d2/d{i}d{j} ({mode}): {why}")
    assert not problems, f"{case_id}: " + "\n".join(problems)


# --- the data file itself ----------------------------------------------------------------------
def test_reference_data_is_tensorflow_2_21():
    assert DATA["tensorflow"].startswith("2.21")
    assert len(CASES) == len(DATA["cases"]) and len(HESSIANS) == len(DATA["hessians"])


def test_every_public_op_is_covered():
    from gradcli.core.ops import public_ops

    texts = [c.get("expr") or c["spec"] for c in DATA["cases"]]
    texts += [h["expr"] for h in DATA["hessians"]]
    spelled = {
        "add": "+",
        "sub": "-",
        "mul": "*",
        "div": "/",
        "neg": "-",
        "less": "<",
        "less_equal": "<=",
        "greater": ">",
        "greater_equal": ">=",
        "equal": "==",
        "not_equal": "!=",
        "pow": "**",
        "matmul": "@",
    }
    missing = []
    for name in public_ops():
        token = spelled.get(name, f"{name}(")
        if not any(token in t for t in texts):
            missing.append(name)
    assert not missing, f"ops without a TensorFlow reference case: {missing}"


# docs/semantics.md's conventions, derived by hand, hold in TensorFlow's data (and so, by the tests
# above, in gradcli): (case, input, expected gradient in 'none' mode; None = unconnected).
NAN, INF = float("nan"), float("inf")
DOCUMENTED = [
    ("where_log_trap", "x", [-0.0, NAN, 0.5]),  # 0 * (1/-1) = -0.0, 0 * (1/0) = nan
    ("where_sqrt_trap", "x", [0.0, 0.25, 0.0]),  # sqrt's gradient is 0 where g is 0
    ("where_pow_half_trap", "x", [NAN, 0.25, NAN]),  # pow's is not: 0 * inf, 0 * nan
    ("relu_kink", "x", [0.0, 0.0, 0.0, 1.0]),  # relu'(0) = 0
    ("abs_kink", "x", [-1.0, 0.0, 0.0, 1.0]),  # abs'(0) = sign(0) = 0
    ("maximum_ties", "x", [0.0, 1.0, 1.0, 1.0]),  # a tie goes to the first argument
    ("maximum_ties", "y", [1.0, 0.0, 0.0, 0.0]),
    ("clip_bounds", "x", [0.0, 1.0, 1.0, 1.0, 0.0]),  # clip(x, 0, 1) at 0 and 1: 1
    ("clip_lo_above_hi", "x", [0.0] * 5),  # lo > hi: the result is lo everywhere
    ("max_ties", "x", [0.0, 0.5, 0.5]),  # max([1, 3, 3]) splits evenly
    ("sign_connected_zero", "x", [0.0] * 4),  # connected, zero
    ("sqrt_at_zero", "x", [INF, 0.25, NAN]),  # sqrt'(0) = inf
    ("log_at_zero", "x", [INF, -INF, 1.0, -1.0]),
    ("reciprocal_at_zero", "x", [-INF, -INF, -0.25]),
    ("prod_two_zeros", "x", [0.0, 0.0, 0.0, 0.0]),
    # x = [2, 0, 3, -0.5]: the product of the others, left * right exclusive cumprods:
    # 1 * (0 * 3 * -0.5), 2 * (3 * -0.5), (2 * 0) * -0.5, (2 * 0 * 3) * 1
    ("prod_one_zero", "x", [-0.0, -3.0, -0.0, 0.0]),
    ("cumprod_zero_inclusive_forward", "x", [1.0, 0.0, 0.0, 0.0]),  # TF's div_no_nan
    ("stop_gradient", "x", None),
    ("stop_gradient", "y", 2.0),
    ("cond_literal_taken", "x", 3.0),
    ("cond_literal_untaken", "x", None),
    ("cond_tensor_constant_untaken", "y", None),
    ("tutorial_z", "y", 0.0),
    ("custom_relu", "x", [2.0, 0.0, 2.0]),
    ("int_inputs", "n", None),
    ("add_broadcast", "y", [2.0, 2.0, 2.0]),
]


@pytest.mark.parametrize(("case_id", "name", "expected"), DOCUMENTED)
def test_documented_conventions_hold_in_tensorflow(case_id, name, expected):
    stored = CASES[case_id]["gradients"]["none"][name]
    if expected is None:
        assert stored is None
        return
    value = decode(stored)
    want = np.array(expected, dtype=value.dtype)
    np.testing.assert_array_equal(value, want)  # nan where nan; 0.0 == -0.0 here
    zeros = want == 0
    assert np.array_equal(np.signbit(value[zeros]), np.signbit(want[zeros]))


def test_zero_mode_gives_zeros_of_the_input_dtype():
    assert CASES["int_inputs"]["gradients"]["zero"]["n"] == {
        "value": [0, 0, 0],
        "shape": [3],
        "dtype": "int32",
    }
    unused = CASES["unused_input"]["gradients"]["zero"]["w"]
    assert unused["value"] == [[0.0, 0.0], [0.0, 0.0]]


def test_looser_tolerances_say_why():
    for case in DATA["cases"] + DATA["hessians"]:
        if "ulps" in case:
            assert case["tolerance"] == "close" and case["ulps"] > ULPS and case.get("note")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", list(HESSIANS))
def test_hessian_command_matches_tensorflow(case_id, mode):
    case = HESSIANS[case_id]
    args = ["hessian", "--format", "json", "--unconnected", mode, "-e", case["expr"]]
    for name, value in decode_at(case["at"]).items():
        args += ["--at", f"{name}={json.dumps(value.tolist())}"]
    res = invoke(*args, "--wrt", ",".join(case["wrt"]))
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)["hessian"]
    problems = []
    for block in case["hessians"][mode]:
        item = doc[block["of"]][block["by"]]
        got = None if item["value"] is None else decode(item)
        ulps = case.get("ulps", ULPS)
        why = mismatch(got, block["value"], case["tolerance"], signed_zeros=False, ulps=ulps)
        if why:
            problems.append(f"d2/d{block['of']}d{block['by']} ({mode}): {why}")
    assert not problems, f"{case_id}: " + "\n".join(problems)


def test_documented_differences_say_why():
    differing = [c for c in DATA["cases"] if c.get("differs")]
    assert differing
    for case in differing:
        names = {f"output {n}" for n in case["outputs"]}
        names |= {f"gradient {n}" for n in case["gradients"]["none"]}
        assert set(case["differs"]) <= names and all(case["differs"].values())


INEXACT = re.compile(
    r"\b(sin|cos|tan|exp|log|log1p|sqrt|tanh|sigmoid|softplus|softmax|logsumexp|pow|matmul"
    r"|elu|selu|silu|swish|log_sigmoid|mish|log_softmax|gelu|sigmoid_cross_entropy|var|std|moments)\("
    r"|\b(erfc?|erfinv|a?sinh?|a?cosh?|a?tanh?|atan2|expm1|log2|log10|rsqrt|cbrt|xlogy|xlog1py)\("
    r"|\b((sparse_)?softmax_cross_entropy|(binary|(sparse_)?categorical)_crossentropy|norm"
    r"|l2_normalize|logmeanexp)\("
    r"|\b(conv1d|conv2d|depthwise_conv2d|conv2d_transpose|avg_pool1d|avg_pool2d)\("
    r"|\b(conv3d|avg_pool3d)\("
    r"|\b(det|slogdet|logdet|inv|solve|triangular_solve|cholesky|eigh|eigvalsh|svd)\("
    r"|\*\*|@"
)


def test_close_tolerance_only_where_a_kernel_rounds():
    """A case without transcendental functions or BLAS is exact, unless its note says why."""
    loose = []
    for case in DATA["cases"] + DATA["hessians"]:
        text = case.get("expr") or case["spec"]
        if case["tolerance"] == "close" and not INEXACT.search(text) and not case.get("note"):
            loose.append(case["id"])
    assert not loose


# --- third and fourth derivatives (gradcli derivative) ----------------------------------------
DERIVATIVES = {d["id"]: d for d in DATA.get("derivatives", [])}


def derivative_cli(case: dict, seq: list[str], mode: str) -> dict:
    """gradcli derivative --wrt SEQ for one case: its JSON block."""
    args = ["derivative", "--format", "json", "--unconnected", mode, "-e", case["expr"]]
    for name, value in decode_at(case["at"]).items():
        args += ["--at", f"{name}={json.dumps(value.tolist())}"]
    res = invoke(*args, "--wrt", ",".join(seq))
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)["derivative"]
    assert doc["order"] == len(seq)
    [block] = doc["blocks"]
    assert block["wrt"] == seq
    return block


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", list(DERIVATIVES))
def test_derivative_command_matches_nested_tapes(case_id, mode):
    case = DERIVATIVES[case_id]
    problems = []
    for block in case["derivatives"][mode]:
        item = derivative_cli(case, block["wrt"], mode)
        got = None if item["value"] is None else decode(item)
        if got is not None:
            assert item["status"] == "connected" or mode == "zero"
        ulps = case.get("ulps", ULPS)
        why = mismatch(got, block["value"], case["tolerance"], signed_zeros=False, ulps=ulps)
        if why:
            problems.append(f"d/{','.join(block['wrt'])} ({mode}): {why}")
    assert not problems, f"{case_id}: " + "\n".join(problems)


def test_higher_order_cases_reach_orders_3_and_4_and_the_requested_ops():
    orders = {len(b["wrt"]) for d in DERIVATIVES.values() for b in d["derivatives"]["none"]}
    assert {3, 4} <= orders
    text = " ".join(d["expr"] for d in DERIVATIVES.values())
    ops = "exp( log( tanh( sigmoid( softplus( sin( ** / sqrt( erf( lgamma( @ mean( softmax( relu("
    for op in [*ops.split(), "abs(", "maximum("]:
        assert op in text, op
    for case in DERIVATIVES.values():
        if "ulps" in case:
            assert case["tolerance"] == "close" and case["ulps"] > ULPS and case.get("note")
        if case["tolerance"] == "close" and not case.get("note"):
            assert INEXACT.search(case["expr"]) or "lgamma(" in case["expr"], case["id"]

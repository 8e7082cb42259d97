"""Each op with a kink or a tie, at the point itself: TensorFlow's value and the flag.

The values are TensorFlow's and PyTorch's own (tests/data/conventions_reference.json, from
tools/conventions_reference.py); the flag is gradcli's `Site` for the op's convention, and
its PyTorch words are held to PyTorch's values at the flagged elements.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gradcli.cli.inputs import load_problem
from gradcli.core.evaluation import evaluate
from gradcli.core.ops import REGISTRY, Behavior

DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "conventions_reference.json").read_text()
)
CASES = {c["id"]: c for c in DATA["cases"]}


def decode(values):
    if values is None:
        return None
    return np.array([float(v) for v in values])


def at_args(case) -> tuple[str, ...]:
    return tuple(f"x={json.dumps(v)}".replace("x=", f"{n}=", 1) for n, v in case["at"].items())


def evaluated(case):
    return evaluate(load_problem(None, case["expr"], at_args(case), (), None))


@pytest.mark.parametrize("cid", sorted(CASES))
def test_tensorflow_value_and_flag_at_the_point(cid):
    case = CASES[cid]
    ev = evaluated(case)
    for name, want in case["tensorflow"].items():
        got = ev.gradients[name]
        if want is None:
            assert got is None, (cid, name, got)
            continue
        np.testing.assert_allclose(
            np.ravel(got), decode(want), rtol=1e-6, atol=0, equal_nan=True, err_msg=f"{cid} {name}"
        )
    sites = [s for found in ev.conventions.values() for s in found if s.op == case["op"]]
    assert sites, (cid, ev.conventions)
    for site in sites:
        assert site.count == len(site.elements) > 0
        assert site.convention.point and site.convention.tensorflow
        assert site.line == 1


@pytest.mark.parametrize("cid", sorted(c for c in CASES if CASES[c]["pytorch"] is not None))
def test_pytorch_words_hold_at_the_flagged_elements(cid):
    case = CASES[cid]
    ev = evaluated(case)
    for name, found in ev.conventions.items():
        tf_g, torch_g = case["tensorflow"][name], decode(case["pytorch"][name])
        for site in found:
            if not site.direct or site.op != case["op"]:
                continue
            flat = [int(np.ravel_multi_index(e, site.shape)) if e else 0 for e in site.elements]
            theirs = torch_g[flat]
            if tf_g is None:
                same = False
            else:
                ours = decode(tf_g)[flat]
                same = bool(np.allclose(ours, theirs, rtol=1e-6, equal_nan=True))
            assert same == site.convention.pytorch_same, (cid, name, site.convention.pytorch)


def test_no_flag_away_from_the_points():
    ev = evaluate(
        load_problem(
            None, "relu(x) + abs(x) + maximum(x, y) + max(x)", ("x=[1, 2]", "y=0"), (), None
        )
    )
    assert ev.conventions == {}


def test_no_flag_off_the_path():
    ev = evaluate(load_problem(None, "stop_gradient(relu(x)) + x", ("x=0",), (), None))
    assert ev.conventions == {}


def test_an_intermediate_is_reported_by_its_text():
    ev = evaluate(load_problem(None, "relu(x * y)", ("x=[0, 1]", "y=2"), (), None))
    (site,) = ev.conventions["x"]
    assert (site.of, site.direct, site.elements) == ("x * y", False, [(0,)])
    assert site.label(0) == "(x * y)[0]"


# ops whose gradient at some points is a convention: every kink and tie is declared
CONVENTION_BEHAVIORS = (Behavior.KINK, Behavior.ZERO)


def test_every_op_with_a_kink_declares_its_convention():
    missing = []
    for name, op in REGISTRY.items():
        if not op.public:
            continue
        # a kink or tie, a side the references take, or a float-valued op through which no
        # gradient flows (floor, round, floordiv: steps, with jumps)
        steps = op.behavior is Behavior.CUT and op.elementwise and op.accepts in ("float", "number")
        kinked = op.behavior in CONVENTION_BEHAVIORS or callable(op.at_point) or steps
        if kinked and op.convention is None and not op.no_convention:
            missing.append(name)
    assert not missing, f"ops with a kink or tie and no Op.convention or no_convention: {missing}"


def test_every_declared_op_has_a_reference_case():
    declared = {n for n, op in REGISTRY.items() if op.public and op.convention is not None}
    covered = {c["op"] for c in CASES.values()}
    # composites report the op inside them; 3-D pooling and the segment ops' unsorted forms
    # share their detectors with a covered op
    shared = {"max_pool3d", "segment_min", "unsorted_segment_max", "unsorted_segment_min"}
    shared |= {"mod", "truncatemod"}  # floormod's own op, and its truncated twin
    composites = {n for n in declared if REGISTRY[n].grad_each is not None}
    assert declared - covered - shared - composites == set()


# 0-d inputs take the detectors' Python-float path: the same flags as the arrays' path
SCALAR_POINTS = [
    ("relu(x)", ("x=0",), "relu"),
    ("abs(x)", ("x=0",), "abs"),
    ("sign(x) * x", ("x=0",), "sign"),
    ("floor(x)", ("x=2",), "floor"),
    ("round(x)", ("x=0.5",), "round"),
    ("sqrt(x)", ("x=0",), "sqrt"),
    ("x ** y", ("x=0", "y=0.5"), "pow"),
    ("x ** y", ("x=0", "y=0"), "pow"),
    ("x ** y", ("x=-2", "y=2"), "pow"),
    ("maximum(x, y)", ("x=1", "y=1"), "maximum"),
    ("minimum(x, y)", ("x=1", "y=1"), "minimum"),
    ("clip(x, 0, 1)", ("x=1",), "clip"),
    ("relu6(x)", ("x=6",), "relu6"),
    ("hard_sigmoid(x)", ("x=3",), "hard_sigmoid"),
    ("leaky_relu(x)", ("x=0",), "leaky_relu"),
    ("selu(x)", ("x=0",), "selu"),
    ("floormod(x, y)", ("x=4", "y=2"), "floormod"),
    ("floordiv(x, y)", ("x=4", "y=2"), "floordiv"),
    ("truncatemod(x, y)", ("x=4", "y=2"), "truncatemod"),
]


@pytest.mark.parametrize(("expr", "at", "op"), SCALAR_POINTS)
def test_a_scalar_at_the_point_is_flagged(expr, at, op):
    ev = evaluate(load_problem(None, expr, at, (), None))
    assert [s.op for found in ev.conventions.values() for s in found if s.op == op], expr
    if at == ("x=-2", "y=2"):  # every negative base is the point
        return
    near = (at[0] + ("0000001" if "." in at[0] else ".0000001"), *at[1:])  # x moved off it
    ev = evaluate(load_problem(None, expr, near, (), None))
    assert not [s for found in ev.conventions.values() for s in found if s.op == op], near

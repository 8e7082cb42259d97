"""The check with the cache of SymPy's derivatives says exactly what it says without it.

Over every spec in specs/ and a spread of TensorFlow reference cases (the first case of
each set of functions tests/data/tf_reference.json calls: every op with a SymPy form,
their kinks, ties, edges and non-finite values), the check runs
- through a session with an empty cache (a miss: SymPy computes and the entry is
  written), then again (a hit: the stored derivatives evaluated without SymPy), and for
  the specs also without a session: the reports must be identical, document, summary and
  every reference number bit for bit;
- at a second point (the float inputs moved): without the cache, and through it, where
  the entry written at the first point is used whenever the translation's fingerprint is
  the same (and must then be a hit).
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
import sympy
from check_cases import CASES, EVALUATIONS, SPEC_FILES
from helpers import SPECS

from gradcli import api
from gradcli.check import program
from gradcli.check.cache import Cache
from gradcli.check.conventions import forward_values
from gradcli.check.run import run_check
from gradcli.check.session import Session
from gradcli.check.tracer import fingerprint
from gradcli.views.check_report import check_document, summary


@pytest.fixture(autouse=True)
def patient_sympy(monkeypatch):
    """Reports are compared run against run: SymPy's 5 s budget running out in one of them
    on a loaded machine (a fallback to finite differences) is not what these tests test."""
    from dataclasses import replace

    from gradcli.runtime import limits

    monkeypatch.setattr(limits, "current", replace(limits.current, sympy_timeout=120.0))


def report_text(report) -> tuple:
    """Everything the check reports: its JSON document, its summary line, and the raw
    autodiff and reference arrays (bit for bit)."""
    doc = json.dumps(check_document(report, False), sort_keys=True, default=str)
    arrays = {
        name: tuple(
            None if a is None else np.asarray(a, np.float64).tobytes()
            for a in (c.autodiff, c.reference)
        )
        for name, c in report.inputs.items()
    }
    return doc, summary(report), arrays


def checked(ev, cache=None):
    """(the report's text, the session's outcome): without a session when cache is None.
    A check that raises reports its exception (the same one, cached or not)."""
    session = None if cache is None else Session(cache, None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            report = report_text(run_check(ev, "auto", session=session))
        except Exception as exc:  # finite differences of eigvalsh through a NaN raise
            report = (type(exc).__name__, str(exc))
    return report, None if session is None else session.outcome


def same_point(ev, cache, plain=True) -> tuple[str | None, str | None]:
    """Check at ev's point through the cache twice (a miss, then a hit when the derivatives
    were stored), and without it when `plain`; the outcomes of the two cached runs."""
    first, outcome = checked(ev, cache)
    if plain:
        assert first == checked(ev)[0], "a miss reports what the uncached check reports"
    second, again = checked(ev, cache)
    assert second == first, "a hit reports what SymPy reported"
    if outcome == "miss" and again != "hit":
        assert again == "miss"  # nothing was stored: the derivatives have no program form
    return outcome, again


def print_of(ev) -> str | None:
    problem = ev.problem.scratch()
    traced = fingerprint(problem, forward_values(problem.graph, problem.outputs))
    return None if traced is None else traced[0]


# the specs whose check is not cached: a custom function (its grad: is differentiated by
# SymPy), and one too big for SymPy (finite differences)
NOT_CACHED = {"custom_relu.yaml": ("uncached", "uncached"), "mlp.yaml": (None, None)}


@pytest.mark.parametrize("name", SPEC_FILES)
def test_spec_examples(name, tmp_path):
    ev = api.grad((SPECS / name).read_text(), {}, spec=True)
    outcomes = same_point(ev, Cache(str(tmp_path)))
    assert outcomes == NOT_CACHED.get(name, ("miss", "hit"))


COMMON = [
    "sum(tanh(x @ w) * y)",
    "mean(sigmoid(x * y) + log(1 + exp(-x)))",
    "sum(relu(x - 0.2) * y) + sum(maximum(x, y))",
    "sum(softplus(x) / (1 + x * x)) + sqrt(sum(y * y))",
    "sum(sin(x) * cos(y) + abs(x - 0.25) + square(y))",
    "sum(elu(x) * erf(y))",
]


@pytest.mark.parametrize("expr", COMMON)
def test_common_specs_hit_at_another_point(expr, tmp_path):
    cache = Cache(str(tmp_path))
    at = {"x": np.array([[0.5, -1.5], [2.0, 0.75]]), "y": np.array([[1.25, -0.5], [0.3, 2.0]])}
    at["w"] = np.array([[0.1, 0.2], [-0.3, 0.4]])
    names = [n for n in at if re.search(rf"\b{n}\b", expr)]
    at = {n: at[n] for n in names}
    assert same_point(api.grad(expr, at), cache) == ("miss", "hit")
    moved = {n: v * 1.125 + 0.0625 for n, v in at.items()}  # no kink crosses sides
    ev = api.grad(expr, moved)
    plain, _ = checked(ev)
    cached, outcome = checked(ev, cache)
    assert (outcome, cached) == ("hit", plain)


@pytest.mark.parametrize("case_id", list(CASES))
def test_reference_cases_at_two_points(case_id, tmp_path):
    case = CASES[case_id]
    cache = Cache(str(tmp_path))
    if "spec" in case:
        same_point(api.grad(case["spec"], {}, spec=True), cache, plain=False)
        return
    at = {k: np.asarray(v, dtype=float) for k, v in case["at"].items()}
    ev = api.grad(case["expr"], at, wrt=case.get("wrt"))
    same_point(ev, cache, plain=False)
    stored = any(True for _ in tmp_path.glob("sympy-*"))
    moved = {k: v * 1.0625 + 0.03125 for k, v in at.items()}
    try:
        ev2 = api.grad(case["expr"], moved, wrt=case.get("wrt"))
    except Exception:  # the moved point is outside the domain of an op (an index, a shape)
        return
    plain, _ = checked(ev2)
    cached, outcome = checked(ev2, cache)
    assert cached == plain
    if stored and outcome is not None and print_of(ev2) == print_of(ev):
        assert outcome == "hit", "the same structure and translation: the entry applies"


# --- printed numbers against lambdify's -------------------------------------------------------


def _reports(ev):
    """The check's report, or the exception it raises (the same with either path)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return run_check(ev, "auto")
        except Exception as exc:  # finite differences of eigvalsh through a NaN raise
            return type(exc).__name__


@pytest.mark.parametrize("name", list(EVALUATIONS))
def test_printed_numbers_are_lambdifys(name, monkeypatch):
    """To rounding: lambdify renames the symbols (Dummy_N, numbered across the process),
    which can reorder a sum's terms; the printed path keeps the spec's names."""
    ev = EVALUATIONS[name]()
    printed = _reports(ev)

    def refuse(*args, **kwargs):
        raise program.Refused("forced: lambdify")

    monkeypatch.setattr(program, "from_sympy", refuse)
    forced = _reports(ev)
    if isinstance(printed, str) or isinstance(forced, str):
        assert printed == forced
        return
    assert printed.ok == forced.ok and list(printed.inputs) == list(forced.inputs)
    for key, check in printed.inputs.items():
        other = forced.inputs[key]
        assert (check.method, check.ok) == (other.method, other.ok), key
        if check.reference is None or other.reference is None:
            assert check.reference is None and other.reference is None
            continue
        got = np.asarray(check.reference, np.float64)
        want = np.asarray(other.reference, np.float64)
        assert np.array_equal(np.isnan(got), np.isnan(want)), key
        finite = np.isfinite(want)
        scale = np.max(np.abs(want[finite]), initial=1.0)
        with np.errstate(invalid="ignore"):  # inf - inf where both are inf
            close = np.abs(got - want) <= 1e-12 * scale
        assert np.all(close | (got == want) | np.isnan(want)), (key, got, want)


def test_the_printed_path_is_taken():
    x, y = sympy.symbols("x y", real=True)
    exprs = [sympy.diff(sympy.erf(x) * sympy.exp(-x * y) + abs(x) * sympy.atan2(x, y), x)]
    exprs.append(sympy.Piecewise((x, x > 0), (y, True)))
    texts = program.from_sympy(sympy, exprs, [x, y])
    assert texts[1] == "select([greater(a0, 0), True], [a0, a1], default=nan)"
    got = program.values([program.parse(t, 2) for t in texts], [0.5, 2.0])
    fn = sympy.lambdify([x, y], exprs, modules="numpy")
    want = [float(v) for v in fn(np.float64(0.5), np.float64(2.0))]
    assert got.tobytes() == np.array(want).tobytes()


def test_what_program_does_not_read_is_refused():
    x, z = sympy.symbols("x z", real=True)
    with pytest.raises(program.Refused, match="DiracDelta"):
        program.from_sympy(sympy, [sympy.diff(sympy.Heaviside(x), x)], [x])
    with pytest.raises(program.Refused, match="free symbol"):
        program.from_sympy(sympy, [x * z], [x])

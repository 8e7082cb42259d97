"""The library interface: gradcli without the command line (numpy only, no sympy)."""

from __future__ import annotations

import numpy as np

from gradcli.core.evaluation import Evaluation, evaluate
from gradcli.runtime.gcpause import paused
from gradcli.spec.assembly import Problem, build_problem, override_inputs, spec_from_expression
from gradcli.spec.reader import load_spec


def problem_from_text(
    text: str,
    *,
    file: str = "<spec>",
    at: dict | None = None,
    wrt: list[str] | None = None,
    unconnected: str | None = None,
) -> Problem:
    """Build a problem from YAML spec text."""
    values = {k: np.asarray(v, dtype=float) for k, v in (at or {}).items()}
    with paused():
        spec = override_inputs(load_spec(text, file), values)
        return build_problem(spec, wrt=wrt, unconnected=unconnected)


def problem_from_expression(
    text: str, at: dict, *, wrt: list[str] | None = None, unconnected: str | None = None
) -> Problem:
    """Build a problem from one expression; every free name is a float64 input from `at`."""
    values = {k: np.asarray(v, dtype=float) for k, v in at.items()}
    return build_problem(spec_from_expression(text, values), wrt=wrt, unconnected=unconnected)


def grad(text: str, at: dict, *, wrt=None, unconnected=None, spec: bool = False) -> Evaluation:
    """Evaluate an expression (or YAML spec text with spec=True) and its gradients."""
    if spec:
        return evaluate(problem_from_text(text, at=at, wrt=wrt, unconnected=unconnected))
    return evaluate(problem_from_expression(text, at, wrt=wrt, unconnected=unconnected))


__all__ = [
    "Evaluation",
    "Problem",
    "evaluate",
    "grad",
    "problem_from_expression",
    "problem_from_text",
]

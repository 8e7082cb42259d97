"""gradcli jacobian and gradcli hessian: second-level derivatives, as table, plain or JSON."""

from __future__ import annotations

from gradcli.cli.common import choose_format, load_problem
from gradcli.views.derivatives_report import write


def run_jacobian(spec, expr, at, wrt, unconnected, fmt) -> int:
    from gradcli.core.jacobian import jacobian

    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = jacobian(problem)
    write("jacobian", blocks, problem.unconnected, choose_format(fmt), ("output", "wrt"))
    return 0


def run_hessian(spec, expr, at, wrt, unconnected, fmt) -> int:
    from gradcli.core.jacobian import hessian

    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = hessian(problem)
    write("hessian", blocks, problem.unconnected, choose_format(fmt), ("wrt", "wrt"))
    return 0

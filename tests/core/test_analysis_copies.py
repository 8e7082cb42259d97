"""Analyses build their nodes on a copy of the graph: the user's graph does not grow."""

from pathlib import Path

from helpers import spec

from gradcli.api import problem_from_text
from gradcli.check.run import run_check
from gradcli.core.evaluation import evaluate
from gradcli.core.jacobian import hessian, jacobian
from gradcli.explain.analysis import explain

# a custom gradient (its rule builds nodes), a kink and a zero gradient: every analysis works
TEXT = Path(spec("custom_relu.yaml")).read_text()


def test_explain_check_jacobian_and_hessian_leave_the_users_graph_alone():
    problem = problem_from_text(TEXT)
    ev = evaluate(problem, keep=True)  # eval's own gradient graph is part of the problem
    size = len(problem.graph)
    explain(problem)
    run_check(ev, "fd", customs=True)
    jacobian(problem)
    assert len(problem.graph) == size
    scalar = problem_from_text("inputs: {x: [1.0, 2.0]}\ngraph: {f: sum(x * x * x)}\n")
    before = len(scalar.graph)
    blocks = hessian(scalar)
    assert len(scalar.graph) == before
    assert blocks["x"]["x"].value.tolist() == [[6.0, 0.0], [0.0, 12.0]]  # d2/dx2 sum x^3 = 6x

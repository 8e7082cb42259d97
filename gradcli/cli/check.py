"""gradcli check: every gradient against SymPy or finite differences, and custom gradients."""

from __future__ import annotations

from gradcli.check.run import run_check
from gradcli.cli.common import load_problem
from gradcli.core.evaluation import evaluate
from gradcli.views.check_report import check_document, print_report
from gradcli.views.format import console, dumps

AGREE, DISAGREE = 0, 1


def run(spec, expr, at, wrt, unconnected, method, rtol, atol, fmt, symbolic) -> int:
    problem = load_problem(spec, expr, at, wrt, unconnected)
    ev = evaluate(problem, keep=True)
    report = run_check(ev, method, symbolic=symbolic, customs=True, rtol=rtol, atol=atol)
    if fmt == "json":
        print(dumps(check_document(report, symbolic)))
    else:
        print_report(report, symbolic, console())
    return AGREE if report.ok else DISAGREE

"""gradcli explain: for every (output, input) pair, whether the gradient is connected, and
which node of the spec cut or zeroed it."""

from __future__ import annotations

from gradcli.cli.common import load_problem
from gradcli.explain.analysis import explain
from gradcli.views.explain_report import document, print_report
from gradcli.views.format import console, dumps

OK, FINDING = 0, 1


def run(spec, expr, at, wrt, unconnected, output, fmt, quiet) -> int:
    problem = load_problem(spec, expr, at, wrt, unconnected)
    pairs = explain(problem, output)
    if not quiet:
        if fmt == "json":
            print(dumps(document(pairs)))
        else:
            print_report(pairs, problem, console())
    return OK if all(p.ok for p in pairs) else FINDING

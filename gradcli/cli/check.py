"""gradcli check: every gradient against SymPy or finite differences, and custom gradients."""

from __future__ import annotations

from gradcli.check.run import run_check
from gradcli.cli.common import load_problem
from gradcli.core.evaluation import evaluate
from gradcli.views.check_report import (
    document,
    formulas_document,
    print_formulas,
    print_tables,
    summary,
)
from gradcli.views.format import SCHEMA, console, dumps

AGREE, DISAGREE = 0, 1


def run(spec, expr, at, wrt, unconnected, method, rtol, atol, fmt, symbolic) -> int:
    problem = load_problem(spec, expr, at, wrt, unconnected)
    ev = evaluate(problem, keep=True)
    report = run_check(ev, method, symbolic=symbolic, customs=True, rtol=rtol, atol=atol)
    if fmt == "json":
        doc = {"schema": SCHEMA, **document(report)}
        if symbolic:
            doc["formulas"] = formulas_document(report)
        print(dumps(doc))
    else:
        from rich.markup import escape

        out = console()
        print_tables(report, out, 40)
        if symbolic:
            out.print()
            print_formulas(report, out)
        out.print()
        style = "green" if report.ok else "bold red"
        out.print(f"[{style}]{escape(summary(report))}[/]", soft_wrap=True)
    return AGREE if report.ok else DISAGREE

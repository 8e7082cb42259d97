"""gradcli check: every gradient against SymPy or finite differences, and custom gradients."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import (
    CALL,
    LANG,
    NO_CACHE,
    SYMBOLIC,
    TABLE_OR_JSON,
    TOLERANCE,
    WEIGHTS,
    epilog,
    spec_options,
)


@click.command("check", epilog=epilog("check"))
@spec_options
@click.option(
    "--method",
    type=click.Choice(["auto", "sympy", "fd"]),
    default="auto",
    help="Reference: SymPy, finite differences, or auto (SymPy when small enough).",
)
@click.option(
    "--rtol",
    type=TOLERANCE,
    default=None,
    help="Relative tolerance (default 1e-6 for float64, 1e-4 for float32).",
)
@click.option(
    "--atol",
    type=TOLERANCE,
    default=None,
    help="Absolute tolerance (default 1e-8 for float64, 1e-6 for float32).",
)
@TABLE_OR_JSON
@SYMBOLIC
@NO_CACHE
@LANG
@CALL
@WEIGHTS
def check_command(
    spec,
    expr,
    at,
    wrt,
    unconnected,
    method,
    rtol,
    atol,
    fmt,
    symbolic,
    no_cache,
    lang,
    call,
    weights,
):
    """Cross-check every gradient against SymPy or finite differences.

    Also compares every custom gradient with the derivative of its function's body.
    Exit status: 0 when everything agrees, 1 when anything disagrees, 2 bad input.
    """
    from gradcli.cli.tfcode_commands import is_tf_code, load_program, no_call

    if is_tf_code(spec, lang):  # TensorFlow code: each gradient call's check
        from gradcli.cli import tfcode_analyses

        program = load_program(spec, expr, at, wrt, unconnected, weights)
        return tfcode_analyses.run_check(program, call, method, rtol, atol, fmt, symbolic)
    no_call(call, weights)
    session = None
    if method in ("auto", "sympy") and not symbolic:  # before numpy and the reader's imports
        from gradcli.check.session import begin

        session = begin(spec, expr, use_cache=not no_cache)
    try:
        from gradcli.check.run import run_check
        from gradcli.cli.inputs import load_problem
        from gradcli.core.evaluation import evaluate

        problem = load_problem(spec, expr, at, wrt, unconnected)
        ev = evaluate(problem, keep=True)
        report = run_check(
            ev, method, symbolic=symbolic, customs=True, rtol=rtol, atol=atol, session=session
        )
    finally:
        if session is not None:
            session.close()
    from gradcli.views.check_report import check_document, print_report
    from gradcli.views.format import console, dumps

    if fmt == "json":
        print(dumps(check_document(report, symbolic)))
    else:
        print_report(report, symbolic, console())
    return ExitCode.OK if report.ok else ExitCode.FINDING

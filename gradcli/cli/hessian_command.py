"""gradcli hessian: second derivatives of a scalar output, as table, plain or JSON."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import TABLE_JSON_PLAIN, spec_options


@click.command("hessian")
@spec_options
@TABLE_JSON_PLAIN
def hessian_command(spec, expr, at, wrt, unconnected, fmt):
    """The Hessian of a scalar output: one block per pair of targets."""
    from gradcli.cli.inputs import choose_format, load_problem
    from gradcli.core.jacobian import hessian
    from gradcli.views.derivatives_report import write

    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = hessian(problem)
    write("hessian", blocks, problem.unconnected, choose_format(fmt), ("wrt", "wrt"))
    return ExitCode.OK

"""gradcli hessian: second derivatives of a scalar output, as table, plain or JSON."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import CALL, LANG, SAVE, TABLE_JSON_PLAIN, WEIGHTS, spec_options
from gradcli.runtime.errors import GradcliError


@click.command("hessian")
@spec_options
@TABLE_JSON_PLAIN
@SAVE
@LANG
@CALL
@WEIGHTS
def hessian_command(spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights):
    """The Hessian of a scalar output: one block per pair of targets."""
    from gradcli.cli.inputs import choose_format, load_problem
    from gradcli.cli.tfcode_commands import is_tf_code, load_program, no_call

    if is_tf_code(spec, lang):  # TensorFlow code: each gradient call's blocks
        from gradcli.cli import tfcode_analyses

        if save is not None:
            raise GradcliError("--save does not apply to TensorFlow code")

        program = load_program(spec, expr, at, wrt, unconnected, weights)
        return tfcode_analyses.run_derivatives(program, call, "hessian", choose_format(fmt))
    no_call(call, weights)
    from gradcli.core.jacobian import hessian
    from gradcli.views.derivatives_report import write
    from gradcli.views.saved_arrays import check_target

    if save is not None:
        check_target(save)
    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = hessian(problem)
    write("hessian", blocks, problem.unconnected, choose_format(fmt), ("wrt", "wrt"), save)
    return ExitCode.OK

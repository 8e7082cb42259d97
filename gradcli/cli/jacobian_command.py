"""gradcli jacobian: d output/d input for every output and target, as table, plain or JSON."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import CALL, LANG, SAVE, TABLE_JSON_PLAIN, WEIGHTS, spec_options
from gradcli.runtime.errors import GradcliError


@click.command("jacobian")
@spec_options
@TABLE_JSON_PLAIN
@SAVE
@LANG
@CALL
@WEIGHTS
def jacobian_command(spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights):
    """The Jacobian of every output w.r.t. every target: shape(output) + shape(input)."""
    from gradcli.cli.inputs import choose_format, load_problem
    from gradcli.cli.tfcode_commands import is_tf_code, load_program, no_call

    if is_tf_code(spec, lang):  # TensorFlow code: each gradient call's blocks
        from gradcli.cli import tfcode_analyses

        if save is not None:
            raise GradcliError("--save does not apply to TensorFlow code")

        program = load_program(spec, expr, at, wrt, unconnected, weights)
        return tfcode_analyses.run_derivatives(program, call, "jacobian", choose_format(fmt))
    no_call(call, weights)
    from gradcli.core.jacobian import jacobian
    from gradcli.views.derivatives_report import write
    from gradcli.views.saved_arrays import check_target

    if save is not None:
        check_target(save)
    problem = load_problem(spec, expr, at, wrt, unconnected)
    blocks = jacobian(problem)
    write("jacobian", blocks, problem.unconnected, choose_format(fmt), ("output", "wrt"), save)
    return ExitCode.OK

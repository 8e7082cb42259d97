"""What `jacobian` and `hessian` share: TensorFlow code or a spec, blocks written or saved."""

from __future__ import annotations

from gradcli.cli.exit_codes import ExitCode
from gradcli.runtime.errors import GradcliError

# the command, and the two axes its blocks are indexed by in the documents
AXES = {"jacobian": ("output", "wrt"), "hessian": ("wrt", "wrt")}


def run_blocks(kind: str, spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights):
    """The command's blocks for a spec, or for each gradient call of TensorFlow code."""
    from gradcli.cli.inputs import choose_format, load_problem
    from gradcli.cli.tfcode_commands import is_tf_code, load_program, no_call

    if is_tf_code(spec, lang):  # TensorFlow code: each gradient call's blocks
        from gradcli.cli import tfcode_analyses

        if save is not None:
            raise GradcliError("--save does not apply to TensorFlow code")
        program = load_program(spec, expr, at, wrt, unconnected, weights)
        return tfcode_analyses.run_derivatives(program, call, kind, choose_format(fmt))
    no_call(call, weights)
    from gradcli.core import jacobian as blocks
    from gradcli.views.derivatives_report import write
    from gradcli.views.saved_arrays import check_target

    if save is not None:
        check_target(save)
    problem = load_problem(spec, expr, at, wrt, unconnected)
    result = getattr(blocks, kind)(problem)
    write(kind, result, problem.unconnected, choose_format(fmt), AXES[kind], save)
    return ExitCode.OK

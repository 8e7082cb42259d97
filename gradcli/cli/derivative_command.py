"""gradcli derivative: derivatives of order 1 to 4 of a scalar output, as nested tapes give them."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import LANG, SAVE, TABLE_JSON_PLAIN, epilog, spec_options
from gradcli.runtime.errors import GradcliError

MAX_ORDER = 4  # core.derivative.MAX_ORDER (not imported: the CLI starts without the core)


def sequence_names(wrt, order: int | None) -> tuple[list[str] | None, int]:
    """--wrt's names in tape order (repeats kept) and the order they fix, or (None, --order)."""
    names = [n.strip() for opt in wrt or () for n in opt.split(",")]
    names = [n for n in names if n]
    if wrt and not names:
        raise GradcliError("--wrt needs at least one name")
    if not names:
        if order is None:
            raise GradcliError(
                "give --order N (1 to 4) for the pure derivatives of every float input, or "
                "--wrt with one name per derivative (e.g. --wrt x,y,y)"
            )
        return None, order
    if len(names) > MAX_ORDER:
        raise GradcliError(
            f"--wrt names {len(names)} targets, one per derivative: the order can be at most "
            f"{MAX_ORDER}"
        )
    if order is not None and order != len(names):
        raise GradcliError(
            f"--order {order} needs {order} names in --wrt, one per derivative "
            f"(innermost tape first), but it names {len(names)}: "
            f"e.g. --wrt {','.join([names[0]] * order)}"
        )
    return names, len(names)


@click.command("derivative", epilog=epilog("derivative"))
@spec_options
@click.option(
    "--order",
    type=click.IntRange(1, MAX_ORDER),
    default=None,
    metavar="N",
    help="The order, 1 to 4 (default: the number of --wrt names).",
)
@TABLE_JSON_PLAIN
@SAVE
@LANG
def derivative_command(spec, expr, at, wrt, unconnected, order, fmt, save, lang):
    """N-th derivatives of a scalar output: of shape shape(w1) + ... + shape(wN).

    Without --wrt, the pure derivative of order N of every float target; --wrt x,y,y gives
    tape3.jacobian(tape2.jacobian(tape1.gradient(f, x), y), y), x's tape innermost.
    """
    from gradcli.cli.inputs import choose_format, load_problem
    from gradcli.cli.tfcode_commands import is_tf_code

    if is_tf_code(spec, lang):
        raise GradcliError(
            "derivative applies to specs (a YAML file or -e); for TensorFlow code, "
            "`gradcli eval FILE.py` evaluates its nested tapes"
        )
    names, order = sequence_names(wrt, order)
    from gradcli.core.derivative import derivative
    from gradcli.core.graph import is_float
    from gradcli.views.derivatives_report import write_derivative
    from gradcli.views.saved_arrays import check_target

    if save is not None:
        check_target(save)
    targets = (",".join(dict.fromkeys(names)),) if names else ()
    problem = load_problem(spec, expr, at, targets, unconnected)
    graph = problem.graph
    if names is not None:
        sequences = [tuple(graph.names[n] for n in names)]
    else:
        floats = [x for x in problem.wrt if is_float(graph[x].dtype)]
        if not floats:
            raise GradcliError("derivative: the spec has no float input to differentiate")
        sequences = [(x,) * order for x in floats]
    blocks = derivative(problem, sequences)
    rows = [(tuple(graph[x].name for x in seq), blk) for seq, blk in zip(sequences, blocks)]
    write_derivative(order, rows, problem.unconnected, choose_format(fmt), save)
    return ExitCode.OK

"""gradcli eval: output values and gradients, cross-checked."""

from __future__ import annotations

import sys

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import (
    CALL,
    LANG,
    NO_CACHE,
    SAVE,
    SYMBOLIC,
    TABLE_JSON_PLAIN,
    WEIGHTS,
    epilog,
    spec_options,
)
from gradcli.cli.run_commands import run_options

# eval's check perturbs a small sample (the largest gradients and random elements, plus a
# random direction through all of them); `gradcli check` goes up to --fd-max-elements
EVAL_FD_ELEMENTS = 32


@click.command("eval", epilog=epilog("eval"))
@spec_options
@TABLE_JSON_PLAIN
@click.option(
    "--check",
    "check",
    type=click.Choice(["auto", "off", "sympy", "fd"]),
    default="auto",
    help="Cross-check the gradients (default auto: SymPy when small, else finite differences).",
)
@SYMBOLIC
@click.option(
    "--points",
    metavar="FILE",
    help="Evaluate many input points (JSON Lines or CSV, '-' for stdin); one JSON line each.",
)
@SAVE
@NO_CACHE
@LANG
@CALL
@WEIGHTS
@run_options
def eval_command(
    spec,
    expr,
    at,
    wrt,
    unconnected,
    fmt,
    check,
    symbolic,
    points,
    save,
    no_cache,
    lang,
    call,
    weights,
    **run,
):
    """Values of the outputs and their gradients, cross-checked.

    Exit status: 0 ok, 1 when the check finds a gradient that disagrees, 2 bad input.
    """
    from gradcli.cli.run_commands import check_run_options

    given = dict(expr=expr, at=at, wrt=wrt, unconnected=unconnected, symbolic=symbolic,
                 points=points, save=save, lang=lang, call=call, weights=weights)  # fmt: skip
    if check_run_options(run, check=None if check == "auto" else check, **given):
        from gradcli.cli.run_commands import run_eval as eval_run

        return eval_run(spec=spec, fmt=fmt, **run)
    from gradcli.cli.tfcode_commands import is_tf_code, no_call, run_eval
    from gradcli.runtime.errors import GradcliError

    if save is not None and (points is not None or is_tf_code(spec, lang)):
        what = "--points (it writes JSON lines)" if points is not None else "TensorFlow code"
        raise GradcliError(f"--save does not apply to {what}")
    if is_tf_code(spec, lang):  # TensorFlow code: one result per gradient call
        return run_eval(
            spec, expr, at, wrt, unconnected, fmt, check, symbolic, points, call, weights
        )
    no_call(call, weights)
    if points is not None:
        return _points(spec, expr, at, wrt, unconnected, fmt, symbolic, points)
    if save is not None:
        from gradcli.views.saved_arrays import check_target

        check_target(save)
    # the SymPy worker starts before numpy and the spec reader are imported (~80 ms)
    session = _session(spec, expr, check, symbolic, no_cache)
    try:
        from gradcli.cli.inputs import choose_format, load_problem
        from gradcli.core.evaluation import evaluate
        from gradcli.explain.eval_warnings import warnings
        from gradcli.views import eval_report
        from gradcli.views.format import console, write_json

        problem = load_problem(spec, expr, at, wrt, unconnected)
        ev = evaluate(problem, keep=check != "off")  # the check reuses the forward values
        fmt = choose_format(fmt)
        report = _cross_check(ev, check, symbolic, session)
    finally:
        if session is not None:
            session.close()
    checked = report if check != "off" else None

    found = warnings(ev)  # NaN/Inf origins: warnings only, never a change of exit status
    formulas = report if symbolic else None
    if save is not None:
        eval_report.save(ev, save)
    if fmt == "json":  # the check's views (and check) stay unimported with --check off
        doc = eval_report.document(ev, _explanations(ev), found, checked, formulas, save)
        write_json(doc, sys.stdout)
    elif fmt == "plain":
        for piece in eval_report.plain_pieces(ev, formulas, save):
            sys.stdout.write(piece)
        sys.stdout.write("\n")
    else:
        out = console()
        eval_report.print_tables(ev, _explanations(ev), out, checked)
        eval_report.print_check(report, checked, symbolic, out)
        if save is not None:
            out.print()
            out.print(eval_report.saved_line(save), soft_wrap=True)
    if fmt != "json":
        sys.stdout.flush()
        for warning in found:
            print(eval_report.warning_line(warning["message"]), file=sys.stderr)
    if checked is not None and not checked.ok:
        sys.stdout.flush()
        print(eval_report.disagreement_line(checked), file=sys.stderr)
        return ExitCode.FINDING
    return ExitCode.OK


def _points(spec, expr, at, wrt, unconnected, fmt, symbolic, points) -> int:
    """eval --points: the options that do not apply are errors; then one line per point."""
    from gradcli.cli.eval_points import run_points
    from gradcli.cli.inputs import load_problem
    from gradcli.runtime.errors import GradcliError

    if fmt not in (None, "json"):
        raise GradcliError(f"--points writes JSON lines; --format {fmt} does not apply")
    if symbolic:
        raise GradcliError("--symbolic does not apply to --points")
    if points == "-" and spec == "-":
        raise GradcliError("SPEC and --points cannot both read standard input")
    return run_points(load_problem(spec, expr, at, wrt, unconnected), points)


def _session(spec, expr, check: str, symbolic: bool, no_cache: bool):
    """The SymPy session (cache, worker started ahead) when the check may use SymPy."""
    if check not in ("auto", "sympy") or symbolic:
        return None  # --symbolic's formulas are SymPy's own: computed as before, uncached
    from gradcli.check.session import begin

    return begin(spec, expr, use_cache=not no_cache)


def _cross_check(ev, check: str, symbolic: bool, session=None):
    """The check's report (None with --check off and no --symbolic); imports it lazily."""
    if check == "off" and not symbolic:
        return None
    from gradcli.check.run import run_check

    method = None if check == "off" else check
    return run_check(ev, method, symbolic=symbolic, fd_elements=EVAL_FD_ELEMENTS, session=session)


def _explanations(ev) -> dict:
    """name -> explain's Pair for every None, (partly) zero or non-finite gradient of the sum."""
    import numpy as np

    from gradcli.core.problem import CONNECTED

    graph = ev.problem.graph
    need = []
    for x in ev.problem.wrt:
        name = graph[x].name
        value = ev.gradients[name]
        if (
            ev.status[name] != CONNECTED
            or value is None
            or np.any(value == 0)
            or not np.all(np.isfinite(value))  # NaN/Inf: explain gives their origins
        ):
            need.append(x)
    if not need:
        return {}
    from gradcli.explain.analysis import explain_sum

    return {graph[x].name: pair for x, pair in explain_sum(ev.problem, need).items()}

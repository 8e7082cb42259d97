"""gradcli graph: the forward (and gradient) graph as a tree, DOT, Mermaid, JSON or SVG."""

from __future__ import annotations

import sys

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import CALL, LANG, WEIGHTS, epilog, format_option, spec_options
from gradcli.cli.run_commands import run_options
from gradcli.runtime.errors import GradcliError


@click.command("graph", epilog=epilog("graph"))
@spec_options
@click.option("--grad", is_flag=True, help="Add the gradient nodes built for the targets.")
@format_option(
    ["tree", "dot", "mermaid", "json", "svg"],
    "tree",
    "Output format (default: tree; svg is laid out by Graphviz's dot).",
)
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout.")
@LANG
@CALL
@WEIGHTS
@run_options
def graph_command(spec, expr, at, wrt, unconnected, grad, fmt, output, lang, call, weights, **run):
    """The forward graph (and with --grad the gradient graph): tree, DOT, Mermaid, JSON, SVG."""
    from gradcli.cli.report_file import not_an_input
    from gradcli.cli.run_commands import check_run_options

    not_an_input(output, "-o", spec, run.get("run"), weights)
    if fmt == "svg":
        from gradcli.views.svg import find_dot

        find_dot()  # before anything runs or a file is written

    given = dict(expr=expr, at=at, wrt=wrt, unconnected=unconnected, lang=lang,
                 weights=weights)  # fmt: skip
    if check_run_options(run, **given):
        from gradcli.cli.run_commands import run_graph

        return run_graph(spec=spec, fmt=fmt, output=output, call=call, **run)
    from gradcli.cli.tfcode_commands import is_tf_code, load_program, no_call

    if is_tf_code(spec, lang):  # TensorFlow code: each gradient call's graph
        from gradcli.cli import tfcode_analyses

        program = load_program(spec, expr, at, wrt, unconnected, weights)
        return tfcode_analyses.run_graph(program, call, grad, fmt, output)
    no_call(call, weights)
    from gradcli.cli.inputs import load_problem
    from gradcli.views.graph_model import collect

    problem = load_problem(spec, expr, at, wrt, unconnected)
    view = collect(problem, grad=grad, values=fmt == "tree", explained=fmt == "svg")
    return write_view(view, fmt, output)


def write_view(view, fmt: str, output: str | None) -> int:
    """Write a view to stdout or to FILE (an SVG is laid out before FILE is opened)."""
    from gradcli.views.graph_export import write

    if fmt == "svg":
        from gradcli.cli.report_file import write_text
        from gradcli.views.svg import to_svg

        text = to_svg(view)
        if output is None:  # UTF-8 as the SVG declares, whatever the terminal's encoding
            sys.stdout.flush()
            sys.stdout.buffer.write(text.encode("utf-8"))
            sys.stdout.buffer.flush()
        else:
            write_text(output, text)
        return ExitCode.OK
    if output is None:
        write(view, fmt, sys.stdout)
        return ExitCode.OK
    try:
        with open(output, "w", encoding="utf-8") as fh:
            write(view, fmt, fh)
    except OSError as exc:
        raise GradcliError(f"cannot write {output}: {exc.strerror or exc}") from None
    return ExitCode.OK

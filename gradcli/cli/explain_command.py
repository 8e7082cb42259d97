"""gradcli explain: for every (output, input) pair, whether the gradient is connected, and
which node of the spec cut or zeroed it."""

from __future__ import annotations

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.options import CALL, LANG, TABLE_OR_JSON, WEIGHTS, epilog, spec_options
from gradcli.cli.run_commands import run_options


@click.command("explain", epilog=epilog("explain"))
@spec_options
@click.option(
    "--output",
    metavar="NAME",
    help="Explain the gradients of this graph entry only (default: every output).",
)
@TABLE_OR_JSON
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; only set the exit status.")
@click.option(
    "--html",
    "html",
    metavar="FILE",
    default=None,
    help="Also write the report as one self-contained HTML page with a picture of each cut "
    "(needs Graphviz's dot).",
)
@LANG
@CALL
@WEIGHTS
@run_options
def explain_command(
    spec, expr, at, wrt, unconnected, output, fmt, quiet, html, lang, call, weights, **run
):
    """Why each gradient is None or zero: the node that cut or zeroed it.

    One result per (output, input) pair. Exit status: 0 when every gradient is connected,
    finite and nonzero everywhere, 1 when some gradient is None, (partly) zero or NaN/Inf,
    2 bad input.
    """
    from gradcli.cli.report_file import prepare_html
    from gradcli.cli.run_commands import check_run_options

    prepare_html(html, spec, run["run"])
    if check_run_options(run, expr=expr, at=at, wrt=wrt, unconnected=unconnected,
                         output=output, lang=lang, call=call, weights=weights):  # fmt: skip
        from gradcli.cli.run_commands import run_explain as explain_run

        return explain_run(spec=spec, fmt=fmt, quiet=quiet, html=html, **run)
    from gradcli.cli.tfcode_commands import is_tf_code, no_call, run_explain

    if is_tf_code(spec, lang):  # TensorFlow code: pairs per gradient call
        return run_explain(
            spec, expr, at, wrt, unconnected, output, fmt, quiet, call, weights, html
        )
    no_call(call, weights)
    from gradcli.cli.inputs import load_problem
    from gradcli.core.convention_sites import per_output
    from gradcli.explain.analysis import explain
    from gradcli.views.explain_report import document, print_report
    from gradcli.views.format import console, dumps

    problem = load_problem(spec, expr, at, wrt, unconnected)
    pairs = explain(problem, output)
    sites = per_output(problem) if pairs else {}  # elements decided by a convention
    if html is not None:
        from gradcli.cli.report_file import write_text
        from gradcli.views.html_report import page
        from gradcli.views.html_sections import problem_section

        sections = [problem_section(problem, pairs, "gradients")]
        write_text(html, page(problem.source.file or "-", sections))
    if not quiet:
        if fmt == "json":
            print(dumps(document(pairs, sites)))
        else:
            print_report(pairs, problem, console(), sites)
    return ExitCode.OK if all(p.ok for p in pairs) else ExitCode.FINDING

"""gradcli eval: output values and gradients."""

from __future__ import annotations

import sys

import numpy as np

from gradcli.cli.common import choose_format, load_problem
from gradcli.core.evaluation import Evaluation, evaluate
from gradcli.views.format import SCHEMA, compact, console, dumps, jsonable, pretty, shape_list

# eval's check perturbs a small sample (the largest gradients and random elements, plus a
# random direction through all of them); `gradcli check` goes up to --fd-max-elements
EVAL_FD_ELEMENTS = 32
UNCONNECTED_HINT = "no differentiable path; run `gradcli explain` to see which node cuts it"


def explanations(ev: Evaluation) -> dict:
    """name -> explain's Pair for every None, (partly) zero or non-finite gradient of the sum."""
    graph = ev.problem.graph
    need = []
    for x in ev.problem.wrt:
        name = graph[x].name
        value = ev.gradients[name]
        if (
            ev.status[name] != "connected"
            or value is None
            or np.any(value == 0)
            or not np.all(np.isfinite(value))  # NaN/Inf: explain gives their origins
        ):
            need.append(x)
    if not need:
        return {}
    from gradcli.explain.analysis import explain_sum

    return {graph[x].name: pair for x, pair in explain_sum(ev.problem, need).items()}


def document(ev: Evaluation, why: dict | None = None, warnings: list | None = None) -> dict:
    """The JSON document of an evaluation (the scripting interface, schema 1)."""
    graph = ev.problem.graph
    outputs = {
        name: {"value": jsonable(v), "shape": shape_list(v), "dtype": str(v.dtype)}
        for name, v in ev.outputs.items()
    }
    grads = {}
    for x in ev.problem.wrt:
        node = graph[x]
        v = ev.gradients[node.name]
        grads[node.name] = {
            "value": jsonable(v),
            "shape": list(node.shape),
            "dtype": node.dtype,
            "status": ev.status[node.name],
        }
        pair = (why or {}).get(node.name)
        grads[node.name]["reason"] = pair.reason if pair else None
        causes = [c.document() for c in pair.causes] if pair else []
        for cause in causes:
            del cause["path"]  # an index into explain's paths, which eval does not list
        grads[node.name]["causes"] = causes
    return {
        "schema": SCHEMA,
        "outputs": outputs,
        "gradients": grads,
        "unconnected": ev.problem.unconnected,
        "warnings": warnings or [],
    }


def plain(ev: Evaluation) -> str:
    lines = [f"output\t{name}\t{compact(v)}" for name, v in ev.outputs.items()]
    lines += [f"grad\t{name}\t{compact(v)}" for name, v in ev.gradients.items()]
    return "\n".join(lines)


def table(ev: Evaluation, why: dict, report=None) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    width = max(out.width - 40, 30)
    outputs = Table(title="outputs", title_justify="left", show_edge=False)
    for col in ("output", "shape", "dtype", "value"):
        outputs.add_column(col)
    for name, v in ev.outputs.items():
        outputs.add_row(name, str(tuple(v.shape)), str(v.dtype), pretty(v, width))
    out.print(outputs)
    grads = Table(title="gradients", title_justify="left", show_edge=False)
    for col in ("wrt", "shape", "value", "status"):
        grads.add_column(col)
    cells = {}
    if report is not None:
        from gradcli.views.check_report import cell

        grads.add_column("check")
        cells = {name: cell(c) for name, c in report.inputs.items()}
    graph = ev.problem.graph
    for x in ev.problem.wrt:
        node = graph[x]
        status = ev.status[node.name]
        value = pretty(ev.gradients[node.name], width)
        pair = why.get(node.name)
        reason = escape(pair.reason) if pair and pair.reason else None
        if status == "unconnected":
            row = [
                node.name,
                str(node.shape),
                f"[yellow]{value}[/]",
                f"[yellow]unconnected: {reason or UNCONNECTED_HINT}[/]",
            ]
        elif reason:
            row = [node.name, str(node.shape), value, f"[yellow]{status}; {reason}[/]"]
        else:
            row = [node.name, str(node.shape), value, f"[green]{status}[/]"]
        grads.add_row(*row, *([cells.get(node.name, "-")] if report is not None else []))
    if ev.problem.wrt:
        out.print()
        out.print(grads)


def cross_check(ev: Evaluation, check: str, symbolic: bool):
    """The check's report (None with --check off and no --symbolic); imports it lazily."""
    if check == "off" and not symbolic:
        return None
    from gradcli.check.run import run_check

    method = None if check == "off" else check
    return run_check(ev, method, symbolic=symbolic, fd_elements=EVAL_FD_ELEMENTS)


def warn_disagreement(report) -> None:
    """One warning line on stderr when the check found a gradient that disagrees."""
    from gradcli.views.check_report import summary

    line = f"gradcli: warning: {summary(report)}; run `gradcli check` for the elements\n"
    sys.stderr.write(line)


def run(
    spec, expr, at, wrt, unconnected, fmt, check="auto", symbolic=False, points=None, lang=None
) -> int:
    from gradcli.cli.tfcode import is_tf_code, run_eval

    if is_tf_code(spec, lang):  # TensorFlow code: one result per gradient call
        return run_eval(spec, expr, at, wrt, unconnected, fmt, check, symbolic, points)
    if points is not None:
        from gradcli.cli.points import run_points
        from gradcli.runtime.errors import GradcliError

        if fmt not in (None, "json"):
            raise GradcliError(f"--points writes JSON lines; --format {fmt} does not apply")
        if symbolic:
            raise GradcliError("--symbolic does not apply to --points")
        if points == "-" and spec == "-":
            raise GradcliError("SPEC and --points cannot both read standard input")
        return run_points(load_problem(spec, expr, at, wrt, unconnected), points)
    problem = load_problem(spec, expr, at, wrt, unconnected)
    ev = evaluate(problem, keep=check != "off")  # the check reuses the forward values
    fmt = choose_format(fmt)
    report = cross_check(ev, check, symbolic)
    checked = report if check != "off" else None
    from gradcli.explain.eval_warnings import warnings

    found = warnings(ev)  # NaN/Inf origins: warnings only, never a change of exit status
    if fmt == "json":
        doc = document(ev, explanations(ev), found)
        doc["check"] = None
        if checked is not None:  # checkview (and check) stay unimported with --check off
            from gradcli.views.check_report import document as check_document

            doc["check"] = check_document(checked)
        if symbolic:
            from gradcli.views.check_report import formulas_document

            doc["formulas"] = formulas_document(report)
        print(dumps(doc))
    elif fmt == "plain":
        print(plain(ev))
        if symbolic:
            from gradcli.views.check_report import plain_formulas

            print("\n".join(plain_formulas(report)))
    else:
        table(ev, explanations(ev), checked)
        _table_check(report, checked, symbolic)
    if fmt != "json":
        sys.stdout.flush()
        for warning in found:
            print(f"gradcli: warning: {warning['message']}", file=sys.stderr)
    if checked is not None and not checked.ok:
        sys.stdout.flush()
        warn_disagreement(checked)
        return 1
    return 0


def _table_check(report, checked, symbolic: bool) -> None:
    """The check's summary line and the formulas, under eval's tables."""
    if report is None:
        return
    from rich.markup import escape

    from gradcli.views.check_report import print_formulas, summary

    out = console()
    if symbolic:
        out.print()
        print_formulas(report, out)
    if checked is not None:
        out.print()
        style = "green" if checked.ok else "bold red"
        out.print(f"[{style}]{escape(summary(checked))}[/]", soft_wrap=True)

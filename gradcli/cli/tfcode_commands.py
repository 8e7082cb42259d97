"""eval and explain on a TensorFlow program (FILE.py, or --lang tf): one result per gradient call.

The integration into the commands is one branch each (eval.run and explain.run call
`is_tf_code` first); everything else about TensorFlow code lives here and in gradcli.tfcode.
This module imports nothing heavy at the top: `eval` asks `is_tf_code` before it starts the
SymPy worker, which should start as early as it can.
"""

from __future__ import annotations

import sys

from gradcli.cli.drawn_numbers import check_drawn_pairs, refuse_drawn_gradients
from gradcli.cli.exit_codes import ExitCode
from gradcli.explain.report import FINE_IN_SCRIPTS
from gradcli.runtime.errors import GradcliError

OK, FINDING = ExitCode.OK, ExitCode.FINDING
TF_CODE_SUFFIX = ".py"  # a SPEC ending so is TensorFlow code (unless --lang says otherwise)


def is_tf_code(spec: str | None, lang: str | None) -> bool:
    """True when SPEC is TensorFlow code: a file ending in .py, or --lang tf."""
    if lang is not None:
        return lang == "tf"
    return bool(spec) and spec.endswith(TF_CODE_SUFFIX)


def no_call(call, weights=None) -> None:
    """--call and --weights are about TensorFlow code; a spec has neither."""
    for flag, value in (("--call", call), ("--weights", weights)):
        if value is not None:
            raise GradcliError(f"{flag} applies to TensorFlow code (FILE.py or --lang tf) only")


def load_program(spec, expr, at, wrt, unconnected, weights=None, **unsupported):
    """Read the program; the options that pick values or targets of a spec do not apply."""
    from gradcli.cli.inputs import read_spec_bytes
    from gradcli.tfcode import read_program

    given = {"-e": expr, "--at": at, "--wrt": wrt, "--unconnected": unconnected, **unsupported}
    for flag, value in given.items():
        if value:
            raise GradcliError(
                f"{flag} does not apply to TensorFlow code: the program itself says what to "
                "compute (each gradient call's target, sources and unconnected_gradients)"
            )
    if not spec:
        raise GradcliError("no program: give FILE.py ('-' with --lang tf reads stdin)")
    data, label = read_spec_bytes(spec)
    from gradcli.cli.run_commands import refuse_torch_without_run

    refuse_torch_without_run(label, data, "explain")
    if weights is None:
        return read_program(data, label)
    from gradcli.cli.weights import Weights

    return read_program(data, label, Weights(weights))


def run_eval(
    spec, expr, at, wrt, unconnected, fmt, check, symbolic, points, only=None, weights=None
) -> int:
    from gradcli.cli.eval_command import _cross_check as cross_check
    from gradcli.cli.eval_command import _explanations as explanations
    from gradcli.cli.inputs import choose_format
    from gradcli.explain.eval_warnings import warnings
    from gradcli.tfcode.calls import JACOBIANS
    from gradcli.views.calls_report import call_document, title
    from gradcli.views.check_report import document as check_document
    from gradcli.views.eval_report import document, plain, print_tables

    program = load_program(
        spec, expr, at, wrt, unconnected, weights, **{"--symbolic": symbolic, "--points": points}
    )
    fmt = choose_format(fmt)
    refuse_no_calls(program, spec)
    docs, failed, status = [], [], OK
    chosen = _chosen(program, only)
    refuse_drawn_gradients(program, chosen)
    for k, call in chosen:
        ev = call.evaluation
        if call.error is not None or call.unknown is not None:
            status = FINDING  # TensorFlow raises here, or gradcli cannot read past a line
        report = whole = checked = None
        if ev is not None:
            checks = check != "off" and call.kind not in JACOBIANS  # exact blocks: no reference
            report = cross_check(ev, check, False) if checks else None
            found = explanations(ev)
            if any(pair.status not in FINE_IN_SCRIPTS for pair in found.values()):
                status = FINDING  # as --run: a None, entirely zero or NaN gradient
            whole = document(ev, found, warnings(ev))
            if report is not None:
                checked = check_document(report)
                if not report.ok:
                    failed.append((k, report))
        docs.append(call_document(call, whole, checked))
        if fmt == "plain":
            print(f"call\t{k}\t{call.line}\t{call.target}")
            if ev is not None:
                print("\n".join(line for line in plain(ev).split("\n") if line.startswith("grad")))
            for name in call.sources if call.unknown is not None else ():
                print(f"grad\t{name}\tunknown")
        elif fmt == "table":
            from gradcli.views.format import console, rule

            out = console()
            rule(out, title(k, call))
            if ev is not None:
                print_tables(ev, found, out, report)
        if fmt != "json":
            if call.unknown is not None:
                reason = call.unknown["reason"]
                print(f"unknown\t{k}\t{reason}" if fmt == "plain" else f"unknown: {reason}")
            for note in call.notes:
                print(f"note\t{k}\t{note}" if fmt == "plain" else f"note: {note}")
            if call.error is not None:
                error = f"{call.error['type']}: {call.error['message']}"
                print(f"error\t{k}\t{error}" if fmt == "plain" else f"TensorFlow raises {error}")
    if program.error is not None:
        status = FINDING  # TensorFlow raises outside a gradient call: the program stops there
    if fmt == "json":
        from gradcli.views.format import SCHEMA, dumps

        doc = {"schema": SCHEMA, "file": program.file, "calls": docs, "error": program.error}
        print(dumps(doc))
    else:
        print_program_error(program, fmt)
    if failed:
        from gradcli.views.eval_report import disagreement_line

        sys.stdout.flush()
        for _, report in failed:
            print(disagreement_line(report), file=sys.stderr)
        return FINDING
    return status


def refuse_no_calls(program, spec) -> None:
    """Exit 2, as `--run` does, for a program that runs to its end without a gradient call."""
    if not program.calls and program.error is None:
        raise GradcliError(
            f"{program.file or spec}: the program makes no gradient call (tape.gradient, "
            "tf.gradients, model.fit), so there is nothing to report"
        )


def print_program_error(program, fmt: str, out=None) -> None:
    """What TensorFlow raised outside any gradient call, after the calls made before it."""
    error = program.error
    if error is None:
        return
    text = f"{error['type']}: {error['message']}"
    if fmt == "plain":
        print(f"error\tline {error['line']}\t{text}")
        if error["note"]:
            print(f"note\tline {error['line']}\t{error['note']}")
        return
    lines = [f"TensorFlow raises at line {error['line']}: {text}"]
    lines += [f"note: {error['note']}"] if error["note"] else []
    for line in lines:
        if out is None:
            print(line)
        else:
            out.print(line, markup=False)


def _chosen(program, only: int | None) -> list:
    """(K, call) for every gradient call, or for the K-th only (--call K)."""
    if only is None:
        return list(enumerate(program.calls))
    if only >= len(program.calls):
        n = len(program.calls)
        raise GradcliError(f"--call {only}: the program makes {n} gradient call{'s' * (n != 1)}")
    return [(only, program.calls[only])]


def run_explain(
    spec, expr, at, wrt, unconnected, output, fmt, quiet, only=None, weights=None, html=None
) -> int:
    from gradcli.core.convention_sites import per_output
    from gradcli.explain.analysis import explain

    program = load_program(spec, expr, at, wrt, unconnected, weights, **{"--output": output})
    refuse_no_calls(program, spec)
    pairs, status = [], OK if program.error is None else FINDING
    chosen = _chosen(program, only)
    sites: dict[int, dict] = {}  # per call, the elements decided by a convention
    for k, call in chosen:
        if call.error is not None or call.unknown is not None:
            status = FINDING
        if call.problem is None:
            continue
        found = explain(call.problem)
        sites[k] = per_output(call.problem) if found else {}
        for pair in found:
            pairs.append((k, call, pair))
            if pair.status not in FINE_IN_SCRIPTS:  # as --run: partly zero is normal
                status = FINDING
    blind = check_drawn_pairs(program, pairs)  # numbers gradcli drew: no zeros claimed
    if html is not None:
        from gradcli.cli.report_file import write_text
        from gradcli.views.html_report import page
        from gradcli.views.html_sections import tf_sections

        write_text(html, page(program.file, tf_sections(program, chosen, pairs)))
    if quiet:
        return status
    if fmt == "json":
        from gradcli.views.conventions_report import document as conventions_document
        from gradcli.views.format import SCHEMA, dumps

        docs = []
        for k, call, pair in pairs:
            doc = {"call": k, "line": call.line, **pair.document()}
            if k in blind and pair.status != "unconnected":
                doc["zero_elements"] = None  # in gradcli's draws, not TensorFlow's numbers
            found = sites.get(k, {}).get((pair.output, pair.input))
            if found:  # only where an element is a convention
                doc["conventions"] = conventions_document(found)
            docs.append(doc)
        calls = [
            {
                "line": c.line,
                "target": c.target,
                "sources": c.sources,
                "error": c.error,
                "notes": c.notes,
                "unknown": c.unknown,
            }
            for c in program.calls
        ]  # fmt: skip (every call, so that "call" indexes into it)
        doc = {"schema": SCHEMA, "file": program.file, "calls": calls, "pairs": docs}
        print(dumps({**doc, "error": program.error}))
        return status
    from gradcli.views.calls_report import title
    from gradcli.views.explain_report import print_report
    from gradcli.views.format import console, rule

    out = console()
    for k, call in chosen:
        rule(out, title(k, call))
        if call.problem is not None:
            print_report([p for j, _, p in pairs if j == k], call.problem, out, sites.get(k))
        if call.unknown is not None:
            for name in call.sources:
                out.print(f"d{call.target}/d{name}: {call.unknown['reason']}", markup=False)
        for note in call.notes:
            out.print(f"note: {note}", markup=False)
        if call.error is not None:
            out.print(
                f"TensorFlow raises {call.error['type']}: {call.error['message']}", markup=False
            )
    print_program_error(program, "table", out)
    return status

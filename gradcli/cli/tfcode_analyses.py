"""check, graph, jacobian and hessian on a TensorFlow program: the command's own machinery on
each gradient call's Problem (`--call K` picks one; every call by default).

Each output is the command's usual one, per call: a header (`call K, line N: ...`) before
its table or tree, a `call<TAB>K<TAB>LINE<TAB>TARGET` line before its plain lines, and in
JSON `{"schema", "file", "calls": [{"call", "line", "kind", "target", "sources", ...the
command's document}], "error"}`. What TensorFlow raises outside a gradient call is a
warning on stderr here (these commands report derivatives, not the program's run).
"""

from __future__ import annotations

import sys

from gradcli.cli.exit_codes import ExitCode
from gradcli.runtime.errors import GradcliError

OK, FINDING = ExitCode.OK, ExitCode.FINDING


def selected(program, call: int | None, command: str) -> list:
    """(K, call) for the calls a command runs on: --call K, else every call with a Problem."""
    calls = program.calls
    if call is not None:
        if call >= len(calls):
            raise GradcliError(
                f"--call {call}: the program makes {len(calls)} gradient call"
                f"{'s' * (len(calls) != 1)}" + (f" (0 to {len(calls) - 1})" if calls else "")
            )
        chosen = [(call, calls[call])]
        if chosen[0][1].problem is None:
            error = chosen[0][1].error or {}
            unknown = getattr(chosen[0][1], "unknown", None)
            if unknown is not None:
                raise GradcliError(
                    f"--call {call} (line {calls[call].line}) computes nothing gradcli can "
                    f"read: {unknown['reason']}, so there is nothing to {command}"
                )
            raise GradcliError(
                f"--call {call} (line {calls[call].line}) computes nothing: TensorFlow raises "
                f"{error.get('type', 'an error')} there, so there is nothing to {command}"
            )
        return chosen
    chosen = [(k, c) for k, c in enumerate(calls) if c.problem is not None]
    if not chosen:
        raise GradcliError(f"no gradient call in {program.file} to {command}")
    return chosen


def header(k: int, call) -> dict:
    """A call's fields in the JSON documents of these commands."""
    return {"call": k, "line": call.line, "kind": str(call.kind), "target": call.target,
            "sources": call.sources}  # fmt: skip


def warn_program_error(program) -> None:
    """What TensorFlow raised outside a gradient call, as a warning on stderr."""
    error = program.error
    if error is not None:
        sys.stdout.flush()
        print(
            f"gradcli: warning: TensorFlow raises at line {error['line']}: {error['type']}: "
            f"{error['message']} (the program stops there)",
            file=sys.stderr,
        )


def run_check(program, call, method, rtol, atol, fmt, symbolic) -> int:
    """gradcli check FILE.py: each call's gradients against SymPy or finite differences."""
    from gradcli.check.run import run_check as check
    from gradcli.core.evaluation import evaluate
    from gradcli.views.calls_report import title
    from gradcli.views.check_report import check_document, print_report
    from gradcli.views.format import SCHEMA, console, dumps, rule

    docs, status = [], OK
    out = console() if fmt != "json" else None
    for k, c in selected(program, call, "check"):
        ev = evaluate(c.problem, keep=True)  # the gradient of the target's sum, as TF's
        report = check(ev, method, symbolic=symbolic, customs=True, rtol=rtol, atol=atol)
        if not report.ok:
            status = FINDING
        if out is None:
            docs.append({**header(k, c), **_without_schema(check_document(report, symbolic))})
        else:
            rule(out, title(k, c))
            print_report(report, symbolic, out)
    if out is None:
        print(dumps({"schema": SCHEMA, "file": program.file, "calls": docs,
                     "error": program.error}))  # fmt: skip
    warn_program_error(program)
    return status


def run_graph(program, call, grad, fmt, output) -> int:
    """gradcli graph FILE.py: each call's graph (DOT and Mermaid: one call, --call K)."""
    from gradcli.views.calls_report import title
    from gradcli.views.format import SCHEMA, dumps
    from gradcli.views.graph_export import to_json, write
    from gradcli.views.graph_model import collect

    chosen = selected(program, call, "draw")
    if fmt in ("dot", "mermaid", "svg") and len(chosen) > 1:
        raise GradcliError(
            f"--format {fmt} writes one graph, and the program makes {len(chosen)} gradient "
            "calls: pick one with --call K"
        )
    if fmt == "svg":
        from gradcli.cli.graph_command import write_view

        k, c = chosen[0]
        write_view(collect(c.problem.scratch(), grad=grad, explained=True), fmt, output)
        warn_program_error(program)
        return OK
    stream = sys.stdout if output is None else _open(output)
    try:
        docs = []
        for k, c in chosen:
            view = collect(c.problem.scratch(), grad=grad, values=fmt == "tree")
            if fmt == "json":
                docs.append({**header(k, c), **_without_schema(to_json(view))})
                continue
            if fmt == "tree":
                stream.write(f"{title(k, c)}\n")
            write(view, fmt, stream)
        if fmt == "json":
            doc = {"schema": SCHEMA, "file": program.file, "calls": docs, "error": program.error}
            stream.write(dumps(doc) + "\n")
    finally:
        if output is not None:
            stream.close()
    warn_program_error(program)
    return OK


def run_derivatives(program, call, kind: str, fmt) -> int:
    """gradcli jacobian|hessian FILE.py: each call's blocks. A hessian needs a scalar target:
    without --call, the calls whose target is not one are skipped with a warning."""
    from gradcli.core.jacobian import hessian, jacobian, require_scalar_outputs
    from gradcli.views.calls_report import title
    from gradcli.views.derivatives_report import document, plain_pieces, print_table
    from gradcli.views.format import SCHEMA, console, dumps, rule

    docs, out, done = [], None, 0
    headers = ("output", "wrt") if kind == "jacobian" else ("wrt", "wrt")
    for k, c in selected(program, call, f"compute the {kind} of"):
        if kind == "hessian":
            try:
                require_scalar_outputs(c.problem)
            except GradcliError as exc:
                if call is not None:
                    raise
                print(f"gradcli: warning: call {k} (line {c.line}) skipped: {exc.message}",
                      file=sys.stderr)  # fmt: skip
                continue
        blocks = (jacobian if kind == "jacobian" else hessian)(c.problem)
        done += 1
        if fmt == "json":
            docs.append({**header(k, c), **_without_schema(document(kind, blocks, c.unconnected))})
        elif fmt == "plain":
            print(f"call\t{k}\t{c.line}\t{c.target}")
            for piece in plain_pieces(kind, blocks):
                sys.stdout.write(piece)
        else:
            out = out or console()
            rule(out, title(k, c))
            print_table(kind, blocks, headers, out)
    if not done:
        raise GradcliError(f"no gradient call in {program.file} has a scalar target for hessian")
    if fmt == "json":
        print(dumps({"schema": SCHEMA, "file": program.file, "calls": docs,
                     "error": program.error}))  # fmt: skip
    warn_program_error(program)
    return OK


def _without_schema(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "schema"}


def _open(path: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise GradcliError(f"cannot write {path}: {exc.strerror or exc}") from None

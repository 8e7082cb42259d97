"""`--run FILE.py` on eval, explain and graph: the script runs under its framework's capture,
and the diagnosis reads what the framework did. Nothing here imports a framework until the
user has asked for the run; the framework edge lives in gradcli/capture."""

from __future__ import annotations

import sys

import click

from gradcli.cli.exit_codes import ExitCode
from gradcli.runtime.errors import MAX_MESSAGE, GradcliError, Pos

DEFAULT_CALLS = 2  # gradient calls reported by default (a GAN's step makes two)
FRAMEWORKS = {"torch": "torch", "tensorflow": "tf", "keras": "tf"}


class Seconds(click.ParamType):
    """--timeout S: a finite number of seconds above 0."""

    name = "S"

    def convert(self, value, param, ctx):
        """The seconds as a float, or click's usage error (exit 2)."""
        import math

        try:
            number = value if isinstance(value, float) else float(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(number) or number <= 0:
            self.fail(f"{value!r} is not a positive, finite number of seconds", param, ctx)
        return number


class CallsType(click.ParamType):
    """--calls N (a positive count) or --calls all."""

    name = "N|all"

    def convert(self, value, param, ctx):
        """The count, or None for all."""
        if value is None or value == "all":
            return value
        try:
            n = int(str(value))
        except ValueError:
            self.fail(f"{value!r} is neither a positive count nor 'all'", param, ctx)
        if n < 1:
            self.fail(f"{value!r} is not a positive count", param, ctx)
        return n


def run_options(f):
    """--run FILE, --calls, --seed, --timeout, and the script's own arguments after --."""
    f = click.argument("script_args", nargs=-1, type=click.UNPROCESSED, metavar="[-- ARGS]")(f)
    f = click.option(
        "--timeout",
        type=Seconds(),
        default=None,
        metavar="S",
        help="--run: stop the script after S seconds; report what ran.",
    )(f)
    f = click.option(
        "--seed",
        type=click.IntRange(0, 2**32 - 1),
        default=None,
        metavar="N",
        help="--run: seed random, NumPy and torch (or TensorFlow) before the script starts.",
    )(f)
    f = click.option(
        "--calls",
        "calls",
        type=CallsType(),
        default=None,
        help=f"--run: gradient calls to report, or all (default {DEFAULT_CALLS}).",
    )(f)
    return click.option(
        "--run",
        "run",
        metavar="FILE.py",
        default=None,
        help="Run this PyTorch or TensorFlow script (as python FILE.py would) and read what "
        "it did.",
    )(f)


def frameworks_imported(path: str, data: bytes) -> dict[str, Pos]:
    """The frameworks a Python file imports (static: the file is only parsed), with where."""
    import ast  # here, not at start-up: only a .py file or --run needs it

    try:
        tree = ast.parse(data, path)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, Pos] = {}
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            top = FRAMEWORKS.get(name.split(".")[0])
            if top is not None and top not in found:
                found[top] = Pos(path, node.lineno, node.col_offset + 1)
    return found


def refuse_torch_without_run(path: str, data: bytes, command: str) -> None:
    """A PyTorch script without --run: exit 2, saying how to read it."""
    where = frameworks_imported(path, data).get("torch")
    if where is not None:
        raise GradcliError(
            f"this is a PyTorch script: gradcli reads PyTorch by running it, with "
            f"'gradcli {command} --run {path}' (which runs the script as python would)",
            where,
        )


def check_run_options(run: dict, **given) -> bool:
    """True when the command runs a script (--run); the options that do not apply with it,
    and the run options without it, are usage errors (exit 2)."""
    if run["run"] is None:
        if run["script_args"]:
            raise GradcliError(
                f"unexpected extra argument {run['script_args'][0]!r} (script "
                "arguments follow --run FILE.py --)"
            )
        for flag in ("calls", "seed", "timeout"):
            if run[flag] is not None:
                raise GradcliError(f"--{flag} applies to --run FILE.py only")
        return False
    for name, value in given.items():
        if value and name != "call":
            flag = "-e" if name == "expr" else f"--{name}"
            raise GradcliError(
                f"{flag} does not apply to --run: the script itself says what to compute"
            )
    return True


def read_run(run, spec, script_args, calls, seed, timeout):
    """Run the script under capture: (program, diagnosis). Exit 2 when nothing was read."""
    args = ([spec] if spec else []) + list(script_args)
    try:
        with open(run, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise GradcliError(f"cannot read {run}: {exc.strerror or exc}") from None
    imported = frameworks_imported(run, data)
    from gradcli.capture.script import compile_script

    code, text = compile_script(run)
    if "tf" in imported and "torch" not in imported:
        return read_tf_run(run, code, text, args, calls, seed, timeout)
    from gradcli.capture.frameworks import require

    require("torch", "PyTorch", " (pip install torch)")
    from gradcli.capture import torch_words
    from gradcli.capture.diagnosis import diagnose
    from gradcli.capture.torch_run import capture

    limit = DEFAULT_CALLS if calls is None else None if calls == "all" else calls
    program = capture(run, code, text, args, limit, timeout, seed)
    failure = program.facts.get("capture_failure")
    if failure and _script_recursed(program, failure):
        failure = None  # the script's own recursion ran out of stack inside the capture
    if failure:
        raise GradcliError(
            f"gradcli failed while capturing {run} ({failure}); this is a bug "
            "in gradcli, not in the script (GRADCLI_DEBUG=1 shows more)"
        )
    if not program.calls and program.error is None:
        how = f"was stopped by --timeout {timeout:g}" if program.stopped == "timeout" else "ran"
        if program.exit_code is not None:
            how = f"exited with status {program.exit_code}"
        raise GradcliError(
            f"{run}: the script {how} without any gradient call (backward() or "
            "torch.autograd.grad), so there is nothing to report"
        )
    diagnosis = diagnose(program, torch_words)
    _shorten_messages(program)
    return program, diagnosis


def _script_recursed(program, failure: str) -> bool:
    """The capture failed with RecursionError because the script recursed without end:
    the script's own error (it raised RecursionError too), not gradcli's."""
    error = program.error
    return (
        failure.startswith("RecursionError")
        and error is not None
        and (error.type == "RecursionError")
    )


def shorten(message: str) -> str:
    """An error message as one line of at most MAX_MESSAGE characters."""
    line = " ".join(str(message).split())
    if len(line) > MAX_MESSAGE:
        line = f"{line[: MAX_MESSAGE - 40]}... ({len(line):,} characters in all)"
    return line


def _shorten_messages(program) -> None:
    """The script's error and the gradient calls' errors as one short line each (after the
    diagnosis, which reads them whole)."""
    if program.error is not None:
        program.error.message = shorten(program.error.message)
    for call in program.calls:
        if call.error is not None and "message" in call.error:
            call.error["message"] = shorten(call.error["message"])


def read_tf_run(run, code, text, args, calls, seed, timeout):
    """The TensorFlow edge of read_run: (program, diagnosis) of a TensorFlow/Keras script."""
    from gradcli.capture.frameworks import require

    require("tensorflow", "TensorFlow", f" for {run}; without --run, gradcli reads it "
            f"without running it: gradcli explain {run}")  # fmt: skip
    from gradcli.capture import tf_words
    from gradcli.capture.diagnosis import diagnose
    from gradcli.capture.tf_run import capture, reworded

    limit = DEFAULT_CALLS if calls is None else None if calls == "all" else calls
    program = capture(run, code, text, args, limit, timeout, seed)
    _check_capture(run, program, timeout, "tape.gradient, model.fit")
    return program, reworded(diagnose(program, tf_words))


def _check_capture(run, program, timeout, what: str) -> None:
    """Exit 2 when the capture failed or the script made no gradient call."""
    failure = program.facts.get("capture_failure")
    if failure:
        raise GradcliError(
            f"gradcli failed while capturing {run} ({failure}); this is a bug "
            "in gradcli, not in the script (GRADCLI_DEBUG=1 shows more)"
        )
    if not program.calls and program.error is None:
        how = "ran"
        if program.stopped == "timeout" and timeout is not None:
            how = f"was stopped by --timeout {timeout:g}"
        if program.exit_code is not None:
            how = f"exited with status {program.exit_code}"
        raise GradcliError(
            f"{run}: the script {how} without any gradient call ({what}), so there is "
            "nothing to report"
        )


def status(program, diagnosis) -> int:
    """0 every gradient connected and finite (partly zero too), 1 something to explain: the
    same for eval and explain, and for the static reader of the same file."""
    if program.error is not None or any(c.error is not None for c in program.calls):
        return ExitCode.FINDING
    return ExitCode.OK if all(p.ok for _, p in diagnosis.pairs) else ExitCode.FINDING


def run_explain(run, spec, script_args, calls, seed, timeout, fmt, quiet, html=None) -> int:
    """gradcli explain --run FILE.py (and its HTML page with --html FILE)."""
    program, diagnosis = read_run(run, spec, script_args, calls, seed, timeout)
    if html is not None:
        from gradcli.cli.report_file import write_text
        from gradcli.views.html_report import page
        from gradcli.views.html_sections import run_sections

        write_text(html, page(program.file, run_sections(program, diagnosis)))
    if not quiet:
        if fmt == "json":
            from gradcli.views.format import dumps
            from gradcli.views.run_report import document

            print(dumps(document(program, diagnosis, with_pairs=True)))
        else:
            from gradcli.views.format import console
            from gradcli.views.run_report import print_explain

            print_explain(program, diagnosis, console())
    return status(program, diagnosis)


def run_eval(run, spec, script_args, calls, seed, timeout, fmt) -> int:
    """gradcli eval --run FILE.py: each call's gradients, PyTorch's own numbers."""
    from gradcli.cli.inputs import choose_format

    program, diagnosis = read_run(run, spec, script_args, calls, seed, timeout)
    fmt = choose_format(fmt)
    if fmt == "json":
        from gradcli.views.format import dumps
        from gradcli.views.run_report import document

        print(dumps(document(program, diagnosis, with_pairs=False)))
    elif fmt == "plain":
        from gradcli.views.run_report import print_eval

        print_eval(program, sys.stdout, plain=True)
    else:
        from gradcli.views.format import console
        from gradcli.views.run_report import print_eval_tables

        print_eval_tables(program, console())
    return status(program, diagnosis)


def run_graph(run, spec, script_args, calls, seed, timeout, fmt, output, call) -> int:
    """gradcli graph --run FILE.py: a call's captured data flow, cut edges marked."""
    from gradcli.views.run_graph import view_of

    program, diagnosis = read_run(run, spec, script_args, calls, seed, timeout)
    if call is None:
        call = 0
    if call >= len(program.calls):
        n = len(program.calls)
        raise GradcliError(f"--call {call}: the script made {n} gradient call{'s' * (n != 1)}")
    view = view_of(program, diagnosis, program.calls[call])
    from gradcli.cli.graph_command import write_view

    return write_view(view, fmt, output)

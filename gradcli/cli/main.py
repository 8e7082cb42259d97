"""The gradcli command line: a click group; each command imports its module only when run.

Exit status: 0 success, 1 a finding (a None or zero gradient for explain, a failed check),
2 bad input or usage, 70 an internal error (a bug in gradcli), 130 interrupted.
"""

from __future__ import annotations

import os
import sys

import click

from gradcli import __version__
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError

OK, FINDING, BAD_INPUT, INTERNAL, INTERRUPTED = 0, 1, 2, 70, 130


def spec_options(f):
    """SPEC or -e, --at, --wrt, --unconnected: how every command is told what to compute."""
    f = click.option(
        "--unconnected",
        type=click.Choice(["none", "zero"]),
        default=None,
        help="Unconnected gradients: None (default) or zeros of the input's shape.",
    )(f)
    f = click.option(
        "--wrt",
        multiple=True,
        metavar="NAMES",
        help="Gradient targets, comma-separated (inputs or graph entries).",
    )(f)
    f = click.option(
        "--at",
        multiple=True,
        metavar="NAME=VALUE",
        help="Set an input: a number or a JSON list. Repeatable.",
    )(f)
    f = click.option(
        "-e",
        "--expr",
        metavar="EXPRESSION",
        help="Differentiate one expression instead of a spec; output named f.",
    )(f)
    return click.argument("spec", required=False, metavar="[SPEC]")(f)


LIMIT_HELP = {
    "max_elements": ("N", int, "Most elements in any one tensor"),
    "max_nodes": ("N", int, "Most graph nodes, forward and gradient together"),
    "max_depth": ("N", int, "Deepest nesting of an expression or of the YAML"),
    "max_passes": ("N", int, "Most evaluation passes (output elements) for jacobian/hessian"),
    "sympy_timeout": ("SECONDS", float, "Wall-clock budget for SymPy in check"),
    "sympy_max_nodes": ("N", int, "Largest expression check translates to SymPy"),
    "fd_max_elements": ("N", int, "Most input elements finite differences perturb"),
    "fd_timeout": ("SECONDS", float, "Wall-clock budget for finite differences in check"),
}


def limit_options(f):
    """The global resource-limit flags; each overrides its GRADCLI_* environment variable."""
    defaults = limits.Limits()
    for name, (metavar, kind, text) in reversed(LIMIT_HELP.items()):
        default = getattr(defaults, name)
        f = click.option(
            limits.flag(name),
            name,
            type=kind,
            default=None,
            metavar=metavar,
            help=f"{text} (default {default:,}; env {limits.ENV[name]}).",
        )(f)
    return f


# click >= 8.2 raises this for a bare `gradcli`; older versions print the help themselves
_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())
MAX_MESSAGE = 1000  # characters: a message quoting a huge input stays readable


def _error(message: str) -> None:
    line = " ".join(message.split())  # one line, always
    if len(line) > MAX_MESSAGE:
        line = line[: MAX_MESSAGE - 3] + "..."
    try:
        sys.stderr.write(f"gradcli: error: {line}\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass


def _quiet_broken_pipe() -> None:
    """Stdout's reader has gone: point stdout at devnull so the exit flush stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _PipeClosed(Exception):
    """Stdout's reader went away (click would turn the BrokenPipeError into exit 1)."""


class _Interrupted(Exception):
    """Ctrl-C during a command (click would first print an empty line to stderr)."""


class GradcliGroup(click.Group):
    """A click group whose errors are one line on stderr with a documented exit status."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _PipeClosed() from None
        except KeyboardInterrupt:
            raise _Interrupted() from None
        except SystemExit as exc:  # Rich's Console exits 1 when its pipe breaks
            if isinstance(exc.__context__, BrokenPipeError):
                raise _PipeClosed() from None
            raise

    def main(self, args=None, prog_name=None, standalone_mode=True, **extra):
        code = self._run(args, prog_name or "gradcli", **extra)
        if standalone_mode:
            sys.exit(code)
        return code

    def _run(self, args, prog_name, **extra) -> int:
        from gradcli.runtime import limits

        try:
            limits.current = limits.from_env()
            rv = super().main(args, prog_name, standalone_mode=False, **extra)
            sys.stdout.flush()
            return rv if isinstance(rv, int) else OK
        except GradcliError as exc:
            _error(str(exc))
            return BAD_INPUT
        except (click.exceptions.Abort, KeyboardInterrupt, _Interrupted):
            _error("interrupted")
            return INTERRUPTED
        except _NO_ARGS:
            _error(f"no command given; run '{prog_name} --help' to see the commands")
            return BAD_INPUT
        except click.ClickException as exc:
            _error(exc.format_message())
            return BAD_INPUT
        except (BrokenPipeError, _PipeClosed):
            _quiet_broken_pipe()
            return OK
        except RecursionError:
            _error("the input is nested too deeply to process")
            return BAD_INPUT
        except MemoryError:
            _error("out of memory; lower the sizes in the spec or GRADCLI_MAX_ELEMENTS")
            return BAD_INPUT
        except Exception as exc:  # a bug in gradcli: one line, the full trace on request
            if os.environ.get("GRADCLI_DEBUG"):
                raise
            _error(
                f"internal error ({type(exc).__name__}: {exc}); this is a bug in gradcli. "
                "Run again with GRADCLI_DEBUG=1 for the full trace"
            )
            return INTERNAL


def main(argv=None) -> None:
    """Console-script entry point."""
    from gradcli.runtime import gcpause

    gcpause.FREEZE = True  # one command per process: see gcpause.paused
    cli.main(argv, prog_name="gradcli")


@click.group(cls=GradcliGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gradcli")
@limit_options
def cli(**overrides):
    """Gradients with TensorFlow's semantics, and why they are None or zero.

    SPEC is a YAML file ('-' reads standard input); see specs/README.md.
    Exit status: 0 ok, 1 finding, 2 bad input, 70 internal error, 130 interrupted.
    """
    for name, value in overrides.items():
        if value is not None:
            setattr(limits.current, name, limits.check(name, value, limits.flag(name)))


@cli.command("eval")
@spec_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "plain"]),
    default=None,
    help="Output format (default: table on a terminal, plain otherwise).",
)
@click.option(
    "--check",
    "check",
    type=click.Choice(["auto", "off", "sympy", "fd"]),
    default="auto",
    help="Cross-check the gradients (default auto: SymPy when small, else finite differences).",
)
@click.option(
    "--symbolic",
    is_flag=True,
    help="Also print d output/d input as SymPy formulas in the spec's names.",
)
@click.option(
    "--points",
    metavar="FILE",
    help="Evaluate many input points (JSON Lines or CSV, '-' for stdin); one JSON line each.",
)
@click.option(
    "--lang",
    type=click.Choice(["spec", "tf"]),
    default=None,
    help="What SPEC is: a YAML spec, or TensorFlow code (default: tf for FILE.py).",
)
def eval_command(spec, expr, at, wrt, unconnected, fmt, check, symbolic, points, lang):
    """Values of the outputs and their gradients, cross-checked.

    Exit status: 0 ok, 1 when the check finds a gradient that disagrees, 2 bad input.
    """
    from gradcli.cli.eval import run

    return run(spec, expr, at, wrt, unconnected, fmt, check, symbolic, points, lang)


_TABLE_OR_JSON = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    help="Output format (default: table).",
)


# --- explain (issue 3) ------------------------------------------------------------------
@cli.command("explain")
@spec_options
@click.option(
    "--output",
    metavar="NAME",
    help="Explain the gradients of this graph entry only (default: every output).",
)
@_TABLE_OR_JSON
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; only set the exit status.")
@click.option(
    "--lang",
    type=click.Choice(["spec", "tf"]),
    default=None,
    help="What SPEC is: a YAML spec, or TensorFlow code (default: tf for FILE.py).",
)
def explain_command(spec, expr, at, wrt, unconnected, output, fmt, quiet, lang):
    """Why each gradient is None or zero: the node that cut or zeroed it.

    One result per (output, input) pair. Exit status: 0 when every gradient is connected,
    finite and nonzero everywhere, 1 when some gradient is None, (partly) zero or NaN/Inf,
    2 bad input.
    """
    from gradcli.cli.explain import run

    return run(spec, expr, at, wrt, unconnected, output, fmt, quiet, lang)


# --- check (issue 4) --------------------------------------------------------------------
_SYMBOLIC = click.option(
    "--symbolic",
    is_flag=True,
    help="Also print d output/d input as SymPy formulas in the spec's names.",
)


@cli.command("check")
@spec_options
@click.option(
    "--method",
    type=click.Choice(["auto", "sympy", "fd"]),
    default="auto",
    help="Reference: SymPy, finite differences, or auto (SymPy when small enough).",
)
@click.option(
    "--rtol",
    type=click.FloatRange(min=0),
    default=None,
    help="Relative tolerance (default 1e-6 for float64, 1e-4 for float32).",
)
@click.option(
    "--atol",
    type=click.FloatRange(min=0),
    default=None,
    help="Absolute tolerance (default 1e-8 for float64, 1e-6 for float32).",
)
@_TABLE_OR_JSON
@_SYMBOLIC
def check_command(spec, expr, at, wrt, unconnected, method, rtol, atol, fmt, symbolic):
    """Cross-check every gradient against SymPy or finite differences.

    Also compares every custom gradient with the derivative of its function's body.
    Exit status: 0 when everything agrees, 1 when anything disagrees, 2 bad input.
    """
    from gradcli.cli.check import run

    return run(spec, expr, at, wrt, unconnected, method, rtol, atol, fmt, symbolic)


# --- graph, jacobian, hessian (issue 5) -------------------------------------------------
@cli.command("graph")
@spec_options
@click.option("--grad", is_flag=True, help="Add the gradient nodes built for the targets.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["tree", "dot", "mermaid", "json"]),
    default="tree",
    help="Output format (default: tree).",
)
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout.")
def graph_command(spec, expr, at, wrt, unconnected, grad, fmt, output):
    """The forward graph (and with --grad the gradient graph): tree, DOT, Mermaid, JSON."""
    from gradcli.cli.graph import run

    return run(spec, expr, at, wrt, unconnected, grad, fmt, output)


_DERIVATIVE_FORMAT = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "plain"]),
    default=None,
    help="Output format (default: table on a terminal, plain otherwise).",
)


@cli.command("jacobian")
@spec_options
@_DERIVATIVE_FORMAT
def jacobian_command(spec, expr, at, wrt, unconnected, fmt):
    """The Jacobian of every output w.r.t. every target: shape(output) + shape(input)."""
    from gradcli.cli.derivatives import run_jacobian

    return run_jacobian(spec, expr, at, wrt, unconnected, fmt)


@cli.command("hessian")
@spec_options
@_DERIVATIVE_FORMAT
def hessian_command(spec, expr, at, wrt, unconnected, fmt):
    """The Hessian of a scalar output: one block per pair of targets."""
    from gradcli.cli.derivatives import run_hessian

    return run_hessian(spec, expr, at, wrt, unconnected, fmt)

"""The gradcli command line: the click group, its error handling and its commands.

Each command lives in its own module (eval_command.py, explain_command.py, ...,
derivative_command.py): its click decorators above its body, which imports what it needs
only when the command runs. Exit statuses are cli/exit_codes.ExitCode. The console script
enters through cli/entry.py, which may start the SymPy worker before this module loads.
"""

from __future__ import annotations

import os
import sys

import click

from gradcli import __version__
from gradcli.cli import output
from gradcli.cli.check_command import check_command
from gradcli.cli.derivative_command import derivative_command
from gradcli.cli.eval_command import eval_command
from gradcli.cli.exit_codes import ExitCode
from gradcli.cli.explain_command import explain_command
from gradcli.cli.graph_command import graph_command
from gradcli.cli.hessian_command import hessian_command
from gradcli.cli.jacobian_command import jacobian_command
from gradcli.cli.options import epilog, limit_options
from gradcli.runtime import limits
from gradcli.runtime.errors import MAX_MESSAGE, GradcliError

# click >= 8.2 raises this for a bare `gradcli`; older versions print the help themselves
_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _error(message: str) -> None:
    line = " ".join(message.split())  # one line, always
    if len(line) > MAX_MESSAGE:
        line = line[: MAX_MESSAGE - 3] + "..."
    try:  # the error writer never raises: the exit status still tells
        sys.stderr.write(f"gradcli: error: {line}\n")
        sys.stderr.flush()
    except Exception:
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
        """Run the command, turning a closed pipe and Ctrl-C into gradcli's own exceptions."""
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
        """Run the command line; exit with its status, or return it without standalone_mode."""
        code = int(self._run(args, prog_name or "gradcli", **extra))  # a plain int outside
        if standalone_mode:
            sys.exit(code)
        return code

    def _run(self, args, prog_name, **extra) -> int:
        restore = output.install()  # every write goes through output.Writer from here on
        try:
            return self._guarded(args, prog_name, **extra)
        finally:
            restore()

    def _guarded(self, args, prog_name, **extra) -> int:
        try:
            limits.current = limits.from_env()
            rv = super().main(args, prog_name, standalone_mode=False, **extra)
            sys.stdout.flush()
            return rv if isinstance(rv, int) else ExitCode.OK
        except GradcliError as exc:
            _error(str(exc))
            return ExitCode.BAD_INPUT
        except (click.exceptions.Abort, KeyboardInterrupt, _Interrupted):
            _error("interrupted")
            return ExitCode.INTERRUPTED
        except _NO_ARGS:
            _error(f"no command given; run '{prog_name} --help' to see the commands")
            return ExitCode.BAD_INPUT
        except click.ClickException as exc:
            _error(exc.format_message())
            return ExitCode.BAD_INPUT
        except (BrokenPipeError, _PipeClosed):
            _quiet_broken_pipe()
            return ExitCode.OK
        except RecursionError:
            _error("the input is nested too deeply to process")
            return ExitCode.BAD_INPUT
        except MemoryError:
            _error("out of memory; lower the sizes in the spec or GRADCLI_MAX_ELEMENTS")
            return ExitCode.BAD_INPUT
        except Exception as exc:  # a bug in gradcli: one line, the full trace on request
            if os.environ.get("GRADCLI_DEBUG"):
                raise
            _error(
                f"internal error ({type(exc).__name__}: {exc}); this is a bug in gradcli. "
                "Run again with GRADCLI_DEBUG=1 for the full trace"
            )
            return ExitCode.INTERNAL


def main(argv=None) -> None:
    """Run the command line (the console script and `python -m gradcli` come through entry.py)."""
    from gradcli.runtime import gcpause

    gcpause.FREEZE = True  # one command per process: see gcpause.paused
    cli.main(argv, prog_name="gradcli")


@click.group(
    cls=GradcliGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=epilog("gradcli"),
)
@click.version_option(__version__, prog_name="gradcli")
@limit_options
def cli(**overrides):
    """Gradients with TensorFlow's semantics, and why they are None or zero.

    SPEC is a YAML file ('-' reads standard input; docs/spec-format.md), FILE.py a
    TensorFlow program, and --run FILE.py a PyTorch or TensorFlow script to run.
    Exit status: 0 ok, 1 finding, 2 bad input, 70 internal error, 128 + n signal n.
    """
    for name, value in overrides.items():
        if value is not None:
            setattr(limits.current, name, limits.check(name, value, limits.flag(name)))


for _command in (
    eval_command,
    explain_command,
    check_command,
    graph_command,
    jacobian_command,
    hessian_command,
    derivative_command,
):
    cli.add_command(_command)

"""The console script: a SymPy worker started before click is imported, then the command
line (main.py).

At first sight of a spec, `gradcli eval` ends when its SymPy worker has imported SymPy,
so the moment the worker starts is on the path the user waits for. This module imports
neither click nor the commands: a plain reading of argv recognises `gradcli eval|check
SPEC [options]` whose check may run SymPy, and check/session.start_ahead starts the worker
some 20 ms sooner than the command would. The reading only guesses. Click still parses
the command line; session.begin adopts the worker only when it was started for the same
spec, expression and cache setting, and stops it otherwise; anything not recognised here
(an unknown option, an option before the command, `--`, --help) starts nothing early.
"""

from __future__ import annotations

import sys

from gradcli.cli.tfcode_commands import is_tf_code

# the commands whose check may run SymPy, and the option that names the check's method
METHOD_OPTION = {"eval": "--check", "check": "--method"}
SYMPY_METHODS = frozenset({"auto", "sympy"})
# eval's and check's options: held equal to click's by tests/cli/test_entry.py
VALUE_OPTIONS = frozenset(
    {
        "-e",
        "--expr",
        "--at",
        "--wrt",
        "--unconnected",
        "--format",
        "--check",
        "--method",
        "--rtol",
        "--atol",
        "--points",
        "--save",
        "--lang",
        "--call",
        "--weights",
        "--run",
        "--calls",
        "--seed",
        "--timeout",
    }
)
FLAGS = frozenset({"--symbolic", "--no-cache", "--help", "-h"})
ALIASES = {"-e": "--expr", "-h": "--help"}  # as click, the last of an option's values counts
# with any of these the command runs no SymPy worker (or reads TensorFlow code)
NO_WORKER = frozenset(
    {"--symbolic", "--points", "--lang", "--call", "--weights", "--help", "--run"}
)


def sympy_spec(args: list[str]) -> tuple[str | None, str | None, bool] | None:
    """(SPEC, the -e expression, whether the cache is used) when `args` run a check that
    may use a SymPy worker; None otherwise, and for anything this reading does not know."""
    if not args or args[0] not in METHOD_OPTION:
        return None
    positional: list[str] = []
    given: dict[str, str] = {}
    tokens = iter(args[1:])
    for token in tokens:
        if token == "-" or not token.startswith("-"):
            positional.append(token)
            continue
        name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in FLAGS and not eq:
            given[ALIASES.get(name, name)] = ""
        elif name in VALUE_OPTIONS:
            if not eq:
                value = next(tokens, None)
                if value is None:
                    return None  # click reports the missing value
            given[ALIASES.get(name, name)] = value
        else:
            return None  # "--", -eEXPR, an option this reading does not know
    if len(positional) > 1 or not NO_WORKER.isdisjoint(given):
        return None
    if given.get(METHOD_OPTION[args[0]], "auto") not in SYMPY_METHODS:
        return None
    spec = positional[0] if positional else None
    if is_tf_code(spec, None):
        return None
    return spec, given.get("--expr"), "--no-cache" not in given


def main() -> None:
    """Console-script entry point."""
    from gradcli.runtime import children

    children.install()  # SIGINT, SIGTERM, SIGHUP: every process started here ends, 128 + n
    guess = sympy_spec(sys.argv[1:])
    if guess is None:
        from gradcli.cli.main import main as run

        run()
        return
    from gradcli.check import session

    session.start_ahead(*guess)
    try:
        from gradcli.cli.main import main as run

        run()
    finally:
        session.drop_ahead()  # unless the command adopted it

"""The options commands share: SPEC or -e with --at/--wrt/--unconnected, the resource
limits, --format and --symbolic."""

from __future__ import annotations

import click

from gradcli.core.problem import NONE, ZEROS
from gradcli.runtime import limits


class FiniteFloat(click.ParamType):
    """A finite float at least `low`: nan and inf are refused where they are read."""

    name = "float"

    def __init__(self, low: float = 0.0):
        self.low = low

    def convert(self, value, param, ctx):
        """The option's text as a float, or click's usage error (exit 2)."""
        import math

        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if number < self.low:
            self.fail(f"{value!r} is below {self.low:g}", param, ctx)
        return number


TOLERANCE = FiniteFloat(0.0)


# each command's most common invocation and the page that says more (--help's last lines)
EPILOG = {
    "eval": ("gradcli eval specs/quadratic.yaml", "commands.md#gradcli-eval"),
    "explain": ("gradcli explain --run train.py", "explain.md"),
    "check": ("gradcli check specs/mlp.yaml", "commands.md#gradcli-check"),
    "graph": ("gradcli graph specs/stop_gradient.yaml --grad",
              "commands.md#gradcli-graph-gradcli-jacobian-gradcli-hessian"),
    "jacobian": ("gradcli jacobian specs/mlp.yaml",
                 "commands.md#gradcli-graph-gradcli-jacobian-gradcli-hessian"),
    "hessian": ("gradcli hessian specs/quadratic.yaml",
                "commands.md#gradcli-graph-gradcli-jacobian-gradcli-hessian"),
    "derivative": ("gradcli derivative -e 'sin(x)' --at x=1 --order 3",
                   "commands.md#gradcli-derivative"),
    "gradcli": ("gradcli explain specs/stop_gradient.yaml", "README.md"),
}  # fmt: skip


def epilog(command: str) -> str:
    """The last lines of a command's --help: one example, and the docs page for more."""
    example, page = EPILOG[command]
    return f"\b\nExample: {example}\nMore: docs/{page}"


def spec_options(f):
    """SPEC or -e, --at, --wrt, --unconnected: how every command is told what to compute."""
    f = click.option(
        "--unconnected",
        type=click.Choice([NONE, ZEROS]),
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
    "max_work": ("N", int, "Most work for jacobian/hessian: passes x elements per pass"),
    "max_bytes": ("N", int, "Most bytes of tensors one evaluation holds at once"),
    "max_line": ("N", int, "Longest line of a --points file or stdin, in bytes"),
    "sympy_timeout": ("SECONDS", FiniteFloat(0.0), "Wall-clock budget for SymPy in check"),
    "sympy_max_nodes": ("N", int, "Largest expression check translates to SymPy"),
    "fd_max_elements": ("N", int, "Most input elements finite differences perturb"),
    "fd_timeout": ("SECONDS", FiniteFloat(0.0), "Wall-clock budget for finite differences"),
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


def format_option(choices: list[str], default: str | None, text: str):
    """A --format option (its value is the `fmt` parameter) with these choices."""
    return click.option("--format", "fmt", type=click.Choice(choices), default=default, help=text)


# eval, jacobian, hessian: a table for people, plain lines for pipes (common.choose_format)
TABLE_JSON_PLAIN = format_option(
    ["table", "json", "plain"],
    None,
    "Output format (default: table on a terminal, plain otherwise).",
)
# explain, check
TABLE_OR_JSON = format_option(["table", "json"], "table", "Output format (default: table).")

SYMBOLIC = click.option(
    "--symbolic",
    is_flag=True,
    help="Also print d output/d input as SymPy formulas in the spec's names.",
)


LANG = click.option(
    "--lang",
    type=click.Choice(["spec", "tf"]),
    default=None,
    help="What SPEC is: a YAML spec, or TensorFlow code (default: tf for FILE.py).",
)


CALL = click.option(
    "--call",
    "call",
    type=click.IntRange(min=0),
    default=None,
    metavar="K",
    help="TensorFlow code: only the K-th gradient call (0-based, as eval lists them).",
)


WEIGHTS = click.option(
    "--weights",
    metavar="FILE.npz",
    default=None,
    help="TensorFlow code: the Keras variables' initial values, keyed by path (dense/kernel).",
)


SAVE = click.option(
    "--save",
    metavar="FILE",
    help="Write the results to FILE in NumPy's .npz format; print only their summary.",
)


NO_CACHE = click.option(
    "--no-cache",
    "no_cache",
    is_flag=True,
    help="Neither read nor write the cache of SymPy's derivatives (see GRADCLI_CACHE_DIR).",
)

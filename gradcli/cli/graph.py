"""gradcli graph: the forward (and gradient) graph as a tree, DOT, Mermaid or JSON."""

from __future__ import annotations

import sys

from gradcli.cli.common import load_problem
from gradcli.runtime.errors import GradcliError


def run(spec, expr, at, wrt, unconnected, grad: bool, fmt: str, output: str | None) -> int:
    from gradcli.views.graph_export import write
    from gradcli.views.graph_model import collect

    problem = load_problem(spec, expr, at, wrt, unconnected)
    view = collect(problem, grad=grad, values=fmt == "tree")
    if output is None:
        write(view, fmt, sys.stdout)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as fh:
            write(view, fmt, fh)
    except OSError as exc:
        raise GradcliError(f"cannot write {output}: {exc.strerror or exc}") from None
    return 0

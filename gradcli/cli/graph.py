"""gradcli graph: the forward (and gradient) graph as a tree, DOT, Mermaid or JSON."""

from __future__ import annotations

import os
import sys

from gradcli.cli.common import load_problem
from gradcli.runtime.errors import GradcliError

TREE_WIDTH = 1000  # lines are never wrapped when the tree goes to a file or a pipe


def _console(stream, colour: bool):
    from rich.console import Console

    terminal = stream.isatty()
    return Console(
        file=stream,
        no_color=not colour or not terminal or bool(os.environ.get("NO_COLOR")),
        width=None if terminal else TREE_WIDTH,
        highlight=False,
        soft_wrap=False,
        emoji=False,
        markup=False,
    )


def render(view, fmt: str, stream) -> None:
    """Write the view to stream in one format."""
    if fmt == "tree":
        from gradcli.views.graph_tree import print_tree

        print_tree(view, _console(stream, colour=stream is sys.stdout))
        return
    from gradcli.views import graph_export as graphexport

    if fmt == "dot":
        stream.write(graphexport.to_dot(view))
    elif fmt == "mermaid":
        stream.write(graphexport.to_mermaid(view))
    else:
        from gradcli.views.format import dumps

        stream.write(dumps(graphexport.to_json(view)) + "\n")


def run(spec, expr, at, wrt, unconnected, grad: bool, fmt: str, output: str | None) -> int:
    from gradcli.views.graph_model import collect

    problem = load_problem(spec, expr, at, wrt, unconnected)
    view = collect(problem, grad=grad, values=fmt == "tree")
    if output is None:
        render(view, fmt, sys.stdout)
        return 0
    try:
        with open(output, "w", encoding="utf-8") as fh:
            render(view, fmt, fh)
    except OSError as exc:
        raise GradcliError(f"cannot write {output}: {exc.strerror or exc}") from None
    return 0

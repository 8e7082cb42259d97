"""What to compute, as every front end (YAML specs, TensorFlow code) hands it to the core."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gradcli.core.graph import Graph
from gradcli.runtime.errors import Pos

if TYPE_CHECKING:  # annotations only: the CLI's option module imports this one at startup
    import numpy as np

NONE, ZEROS = "none", "zero"  # what an unconnected gradient is reported as (TF's names)
CONNECTED, UNCONNECTED = "connected", "unconnected"  # eval's status of a gradient


@dataclass
class Source:
    """Where the problem came from: what analyses and errors quote, front-end neutral."""

    file: str
    lines: list[str] = field(default_factory=list)  # the source text, for quoting a line
    positions: dict[str, Pos] = field(default_factory=dict)  # inputs and entries by name
    # custom-gradient functions by name: objects with .params (names) and .grads (None = the
    # body is differentiated; else one entry per parameter, None = no gradient to it)
    functions: dict[str, object] = field(default_factory=dict)
    seed_positions: dict[str, Pos] = field(default_factory=dict)  # grad_ys given, by output
    # inputs the outputs do not depend on, by name, where the front end knows the line that
    # dropped what was computed from them: (that position, the clause saying so)
    no_path: Mapping[str, tuple[Pos, str]] = field(default_factory=dict)


@dataclass
class Problem:
    """What to compute: a graph, its outputs, the gradient targets and the upstream gradients."""

    spec: object  # the front end's own description (a spec.reader.Spec); core never reads it
    graph: Graph
    outputs: list[int]
    wrt: list[int]
    seeds: list[np.ndarray | None]  # grad_ys per output; None means ones
    unconnected: str
    source: Source = field(default_factory=lambda: Source("<spec>"))
    # the same problem at other input values (by name), rebuilt by its front end: a cond
    # may take another branch there, so the graph itself can differ
    rebuild: Callable[[dict[str, np.ndarray]], Problem] | None = None

    def name(self, i: int) -> str:
        return self.graph[i].name

    def scratch(self) -> Problem:
        """This problem on a copy of its graph: analyses build their nodes there, never in the
        user's graph (node ids up to the copy's length are the same in both)."""
        return replace(self, graph=self.graph.copy())

"""Where the target drops a gradient source it does not use (no_path), named as `--run` names it.

Issue 29: a source whose layer is called but whose output is dropped names the line that
dropped it. The rule is the run mode's (gradcli/capture/diagnosis.py, `no_path`), read over
the program graph of the nodes made before the gradient call (gradients built by earlier calls
are not uses):

- nothing uses the source: the last call of a user function in the gradient call's frame it
  was passed to (the function dropped it there), else its own line (its definition);
- the last use was made inside a function called from a line S of the gradient call's frame
  (a model's `call` returning several results) and a later node there, on the way to the
  target, takes S's other results but not the one computed from the source: that node's line
  in the gradient call's frame (the line that dropped the result);
- else the last use's own line (where it was last used: a layer's output left unused there,
  a dataset iterated there).

A fresh tensor whose value was computed from other nodes without a gradient edge (a tf.data
element made from variables) counts as a use of them that passes nothing on
(Interpreter.reads_from): TensorFlow reads the variables where the dataset is iterated.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gradcli.core.graph import CONST_OP, INPUT_OP
from gradcli.core.ops.tape import TapeCause
from gradcli.runtime.errors import Pos
from gradcli.tfcode.datasets import MAPPED

# explain's kinds: a dataset op has no gradient, as a write into a variable has none
NON_DIFFERENTIABLE, OUTSIDE_TAPE = TapeCause.STORED.value, TapeCause.OUTSIDE_TAPE.value
NOT_WATCHED = TapeCause.NOT_WATCHED.value

if TYPE_CHECKING:
    from gradcli.tfcode.interpret import Interpreter


class Frames:
    """The user-function call stack each program node was made under, as a change log (one
    entry per push or pop, not per node): node -> a tuple of call-site positions."""

    def __init__(self):
        self.starts: list[int] = [0]
        self.stacks: list[tuple[Pos, ...]] = [()]

    @property
    def current(self) -> tuple[Pos, ...]:
        return self.stacks[-1]

    def enter(self, size: int, site: Pos) -> None:
        """A call at `site` begins; nodes from `size` on are made under it."""
        self._mark(size, (*self.current, site))

    def leave(self, size: int) -> None:
        """The innermost call returns."""
        self._mark(size, self.current[:-1])

    def _mark(self, size: int, stack: tuple) -> None:
        if self.starts[-1] == size and len(self.starts) > 1:  # nothing made under the last
            self.starts.pop()
            self.stacks.pop()
        if self.stacks[-1] != stack:
            self.starts.append(size)
            self.stacks.append(stack)

    def of(self, node: int) -> tuple[Pos, ...]:
        return self.stacks[bisect_right(self.starts, node) - 1]


class DroppedSources(Mapping):
    """{name: (position, clause)} for the sources (program node -> name) the targets do not
    depend on, where something made before the gradient call used them: worked out on first
    use (only a no_path asks), from the program graph as it was at the call (nodes before it
    never change; later ones are not looked at)."""

    def __init__(self, it: Interpreter, sources: dict, targets: list[int], tape=None):
        self.it, self.sources, self.targets, self.tape = it, sources, targets, tape
        self.end, self.frame = len(it.g), it.frames.current
        self._found: dict | None = None

    def _all(self) -> dict:
        if self._found is None:
            it, end = self.it, self.end
            root = it.g.ancestors(self.targets) if self.targets else bytearray(end)
            self._found = {}
            for x, name in self.sources.items():
                if x < len(root) and root[x]:
                    continue  # the targets read it (connected, or cut on the way)
                found = dataset_cut(it, x, root, end, self.tape)
                found = found or no_path_at(it, x, root, end, self.frame)
                if found is not None:
                    self._found[name] = found
        return self._found

    def __getitem__(self, name: str):
        return self._all()[name]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def dataset_cut(it: Interpreter, x: int, root: bytearray, end: int, tape):
    """(position, clause, kind) where a tf.data dataset read variable x into elements the
    targets use, as TensorFlow cuts it: a dataset's values are read when it is made, so
    outside the call's tape (outside_tape), or, read by a recording tape or inside a map
    function, into a dataset op that has no gradient (non_differentiable); None otherwise."""
    for i, reads in it.read_at.items():
        if i >= end or i >= len(root) or not root[i] or x not in reads:
            continue
        variable, how, pos, size = reads[x]
        watched = tape is None or x in tape.on or (variable.trainable and tape.watch_accessed)
        if not watched:  # TensorFlow's tape never watched it: that comes first
            why = f"{variable.label} is a variable the tape does not watch (trainable=False)"
            return variable.pos, why, NOT_WATCHED
        made = f"line {pos.line} makes a tf.data dataset"
        if how == MAPPED:
            return (
                pos,
                f"{made} whose map function reads it: a dataset passes no gradient back",
                (NON_DIFFERENTIABLE),
            )
        if tape is not None and not tape.recording(size):
            return pos, f"{made} from its values while the tape is not recording", OUTSIDE_TAPE
        return (
            pos,
            f"{made} from its values: a dataset passes no gradient back",
            (NON_DIFFERENTIABLE),
        )
    return None


def no_path_at(it: Interpreter, x: int, root: bytearray, end: int, frame: tuple):
    """(position, clause) where the targets (their ancestors marked in root) drop what was
    computed from program node x, or None when nothing before the call uses x (its own line
    stands) or x reaches the targets."""
    g = it.g
    made_by_gradients = it.gradient_nodes
    reads_from = it.reads_from
    used: list[int] = []
    reached = {x}
    for i in range(x + 1, end):  # node ids are in creation order: one forward sweep
        if i in made_by_gradients:
            continue
        if any(j in reached for j in g[i].inputs):
            reached.add(i)
            used.append(i)
        elif any(j in reached for j in reads_from.get(i, ())):
            used.append(i)  # a fresh tensor of its value: a use that passes nothing on
    if not used:
        return _passed_unused(it, x, end, frame)
    if any(root[i] for i in reached if i < len(root)):
        return None  # it reaches the targets: not a no_path here
    last = used[-1]
    site = _line_in(it, last, frame)
    if site is not None:
        dropped = _dropped(it, last, site, reached, root, end, frame)
        if dropped is not None:
            return (
                dropped,
                f"line {site.line} computes from it, and line {dropped.line} uses that call's "
                "other results but not the one computed from it",
            )
    pos = g[last].pos
    return pos, f"its last use is at line {pos.line}; nothing computed from it reaches the target"


def note_passed(it: Interpreter, fn, values, node) -> None:
    """A user function called with tensors: each is passed there (Interpreter.passed), so that
    one the function never uses is named at the call that dropped it."""
    from gradcli.tfcode.support import _flatten
    from gradcli.tfcode.values import Tensor, Variable

    for v in _flatten(list(values)):
        if isinstance(v, (Tensor, Variable)):
            i = it.tensor_id(v, read=False)
            it.passed.setdefault(i, []).append((len(it.g), it.pos(node), it.frames.current, fn))


def _passed_unused(it: Interpreter, x: int, end: int, frame: tuple):
    """(position, clause) of the last call in the gradient call's frame that was passed x and
    used nothing of it (nothing uses x at all), or None."""
    calls = [p for p in it.passed.get(x, ()) if p[0] < end and p[2] == frame]
    if not calls:
        return None
    _, pos, _, fn = calls[-1]
    return pos, f"it is passed to {fn.name} at line {pos.line}, which does not use it"


def _line_in(it: Interpreter, node: int, frame: tuple) -> Pos | None:
    """The call site, in the gradient call's frame, of the call a node was made under (None
    when it was made in that frame itself, or outside it)."""
    stack = it.frames.of(node)
    if len(stack) > len(frame) and stack[: len(frame)] == frame:
        return stack[len(frame)]
    return None


def _dropped(it: Interpreter, last: int, site: Pos, reached, root, end: int, frame: tuple):
    """The position, in the gradient call's frame, of the first node on the way to the
    targets and at another line there that takes other results of the call at `site` but
    nothing computed from the source (None if there is none)."""
    g = it.g
    siblings: set[int] = set()
    for i in range(last - 1, -1, -1):  # the other results made under the same call
        if _line_in(it, i, frame) != site:
            break
        if i not in reached and g[i].op not in (INPUT_OP, CONST_OP):  # a weight: no result
            siblings.add(i)
    for i in range(last + 1, min(end, len(root))):
        if not root[i] or i in it.gradient_nodes:
            continue
        ins = set(g[i].inputs)
        if not ins & siblings or ins & reached:
            continue
        there = _line_in(it, i, frame)
        if there != site:
            return g[i].pos if there is None else there
    return None

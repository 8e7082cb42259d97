"""Numbers the reader draws at random: where a program draws them (a Keras initializer,
np.random, tf.random, dropout, a shuffled order), so that answers computed from gradcli's own
generator are never given as TensorFlow's (TensorFlow's streams are not reproduced).

Drawn arrays are marked (the Drawn class, and the leaves and random ops they become); a
gradient call whose target or seeds were computed from one carries that draw
(`GradientCall.drawn`), and so does every call after a draw that cannot be followed (a scalar
draw, a shuffle). `eval` refuses to give such a call's numbers, and `explain` refuses zeros or
NaN found in them, both at the draw's line and naming --run (cli/drawn_numbers.py). Whether a
gradient is None does not depend on the numbers, so structural answers stay.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcli.runtime.errors import Pos

# the core ops whose values come from gradcli's generator (dropout only when it drops)
RANDOM_OPS = frozenset({"random_draw", "random_normal", "random_uniform", "dropout"})
WHY = "gradcli draws its own numbers there, not TensorFlow's"


@dataclass(frozen=True)
class Draw:
    """The first statement that drew numbers at random."""

    pos: Pos
    code: str  # the statement's first line, stripped

    def record(self) -> dict:
        """As JSON data: {"line", "code"}."""
        return {"line": self.pos.line, "code": self.code}

    def what(self) -> str:
        """The draw in words, for a refusal or a note."""
        return f"numbers drawn at random at line {self.pos.line} ({self.code}): {WHY}"


class Drawn(np.ndarray):
    """An array of numbers gradcli drew (NumPy keeps the class through astype, reshape and
    ufuncs, so an initializer's arithmetic on its draws stays marked)."""


class DrawingGenerator:
    """gradcli's seeded NumPy generator: arrays it draws are marked Drawn; a scalar draw
    (whose later uses cannot be followed) marks every later gradient call."""

    def __init__(self, it, seed: int = 0):
        self.unrecorded = np.random.default_rng(seed)  # for seeds of ops noted themselves
        self._it = it

    def __getattr__(self, name: str):
        method = getattr(self.unrecorded, name)
        if not callable(method):
            return method

        def draw(*args, **kwargs):
            out = method(*args, **kwargs)
            if not isinstance(out, np.ndarray) or out.ndim == 0:
                note_draw(self._it, None)  # a number: its uses (Python's) are not followed
            return out.view(Drawn) if isinstance(out, np.ndarray) else out

        return draw


def _draw_at(it, pos: Pos) -> Draw:
    line = it.lines[pos.line - 1].strip() if 0 < pos.line <= len(it.lines) else ""
    return Draw(pos, line if len(line) <= 60 else line[:57] + "...")


def note_draw(it, node) -> None:
    """A draw whose values cannot be followed (a scalar, a shuffled order): every gradient
    call from here on is marked (at `node`, else at the statement being read)."""
    if it.loose_draw is not None:
        return
    where = node if node is not None else it.statement_node
    if where is not None:
        it.loose_draw = _draw_at(it, it.pos(where))


def note_leaf(it, i: int, value) -> np.ndarray:
    """A new leaf's value: a Drawn one is remembered (as a plain array) as drawn at its line."""
    if isinstance(value, Drawn):
        it.drawn_nodes[i] = _draw_at(it, it.g[i].pos)
        return value.view(np.ndarray)
    return value


def drawn_of(it, ids) -> Draw | None:
    """The first draw among the ancestry of the nodes `ids` (memoised per node), or None."""
    memo = it.drawn_memo
    out = None
    for root in ids:
        stack = [(root, False)]
        while stack:
            i, done = stack.pop()
            if i in memo:
                continue
            node = it.g[i]
            if done:
                found = it.drawn_nodes.get(i) or _own_draw(it, node)
                for j in node.inputs:
                    found = found or memo.get(j)
                memo[i] = found
                continue
            stack.append((i, True))
            stack.extend((j, False) for j in node.inputs if j not in memo)
        out = out or memo.get(root)
    return out


def _own_draw(it, node) -> Draw | None:
    drops = node.op != "dropout" or node.attrs.get("rate")
    if (node.op in RANDOM_OPS and drops) or isinstance(node.attrs.get("value"), Drawn):
        return _draw_at(it, node.pos or Pos(it.file, 1, 1))
    return None


def drawn_values(it, values) -> Draw | None:
    """The draw the tensors among `values` were computed from (or a loose one), or None."""
    from gradcli.tfcode.support import _flatten
    from gradcli.tfcode.values import Tensor, Variable

    ids = [it.tensor_id(v, read=False) for v in _flatten(list(values))
           if isinstance(v, (Tensor, Variable))]  # fmt: skip
    return drawn_of(it, ids) or it.loose_draw

"""gradcli's reader of TensorFlow programs: Python source, read with `ast` only (nothing is
imported or run), interpreted abstractly; each gradient call becomes a core Problem.

    program = read_program(data, "train.py")
    for call in program.calls: call.problem, call.evaluation, call.line, call.sources ...
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gradcli.runtime.errors import GradcliError
from gradcli.runtime.gcpause import paused
from gradcli.tfcode.parse import parse
from gradcli.tfcode.refusals import Refusals, scan, with_run_hint


@dataclass
class Program:
    """What a TensorFlow program computes: its gradient calls, in execution order."""

    file: str
    lines: list[str]
    calls: list = field(default_factory=list)  # tfcode.calls.GradientCall
    # what TensorFlow raises outside any gradient call ({"type", "message", "line", "note"});
    # the program stops there, after the calls before it
    error: dict | None = None


def read_program(data: bytes, file: str, weights=None) -> Program:
    """Read a TensorFlow program (Keras variables from `weights`, a cli.weights.Weights,
    where it has their paths); raises one GradcliError listing every refused construct,
    ending with how to read the file with --run."""
    tree, lines = parse(data, file)
    try:
        it = _interpret(tree, lines, file, weights)
    except GradcliError as refused:  # a refusal raised as it was found: it names --run too
        refused.message = with_run_hint(refused.message, file)
        refused.args = (refused.message,)
        raise
    if weights is not None:
        weights.check_all_used()
    error = it.error
    if error is not None and not it.calls:  # nothing to report but the error: bad input
        note = f" ({error.note})" if error.note else ""
        raise GradcliError(f"{error.kind}: {error.message}{note}", error.pos)
    return Program(file, lines, it.calls, None if error is None else error.record())


def _interpret(tree: ast.Module, lines: list[str], file: str, weights):
    """Interpret the module (twice where TF1 feeds are bound late); the interpreter, or the
    refusals raised as one GradcliError."""
    from gradcli.tfcode.interpret import Interpreter

    fed: dict = {}
    while True:
        refusals = Refusals(file)
        scan(tree, refusals)
        with paused(lasting=True):
            it = Interpreter(file, lines, feeds(tree))
            it.refusals = refusals
            it.weights = weights
            it.fed = fed
            it.run_module(tree)
        if not it.deferred or fed:
            break
        # TF1 placeholders fed with names bound later (a training loop's batches): a probe
        # pass finds their first values, then the program is read again with them
        probe = Interpreter(file, lines, feeds(tree))
        probe.probe = list(it.deferred)
        with paused(lasting=True):
            probe.run_module(tree)
        if not all(name in probe.fed for name in it.deferred):
            break
        fed = probe.fed
        if weights is not None:  # read again from the start
            weights.used.clear()
            weights.made.clear()
    if refusals:
        raise refusals.error()
    return it


def feeds(tree: ast.Module) -> dict:
    """TF1 placeholders' feeds, by name: the expression a `feed_dict={x: ...}` gives each (a
    dict literal, or a name bound to one), read where the placeholder is made."""
    dicts: dict[str, ast.Dict] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    dicts.setdefault(t.id, node.value)
    found: dict = {}
    given = [n.value for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg == "feed_dict"]
    given += [_positional_feed(n) for n in ast.walk(tree) if _positional_feed(n) is not None]
    # the textually first feed of each placeholder (the training loop's, usually, before an
    # evaluation's at the end), not ast.walk's breadth-first one
    given.sort(key=lambda n: (n.lineno, n.col_offset))
    for value in given:
        if isinstance(value, ast.Name):
            value = dicts.get(value.id)
        if isinstance(value, ast.Dict):
            for k, v in zip(value.keys, value.values):
                if isinstance(k, ast.Name):
                    found.setdefault(k.id, v)
    return found


def _positional_feed(node):
    """The feed Session.run is given positionally (sess.run(fetches, {x: ...})), else None."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    if node.func.attr != "run" or len(node.args) < 2:
        return None
    value = node.args[1]
    return value if isinstance(value, (ast.Dict, ast.Name)) else None

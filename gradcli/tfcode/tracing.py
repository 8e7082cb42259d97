"""What a traced @tf.function does not repeat, so the reader refuses where it would differ.

TensorFlow runs a @tf.function's Python body once per traced signature; a later call with
the same signature runs the graph it traced. Two things then differ from running the Python
body again, which is how the reader reads every call:

- Python side effects (a list appended to, an attribute or item of an outer object set)
  happen once per trace, not once per call;
- Python values the body reads from outside (a global number, a list, a tensor bound to a
  name) are baked into the graph when it is traced: rebinding them later changes nothing.

`check_call` is asked at each call: at a first trace it remembers what the body reads; at a
later call of a traced signature it refuses a side effect in the body, or an outside value
that changed since the trace. The same holds for a loop over a tf.data dataset inside
@tf.function (AutoGraph traces its body once): `loop_side_effect` finds a side effect there.

A tape outside a @tf.function call records the call as one operation, from the tensors passed
in to the ones returned: `refuse_inside_call` refuses a gradient whose source was computed in
such a call and reaches the target through the call's inside (TensorFlow gives None there,
the reader's inlined body a gradient); `leaked_input` refuses an op on a tensor a finished
call made and did not return (kept in Python state: TensorFlow fails there with a TypeError,
"... is out of scope and cannot be used here").
"""

from __future__ import annotations

import ast

import numpy as np

# methods that change a Python list, dict or set in place
MUTATORS = {
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
    "discard", "sort", "reverse", "popitem",
}  # fmt: skip
ONCE = (
    "TensorFlow runs a traced function's Python once per trace, and this call runs the graph "
    "traced at line {line}"
)
SNAPSHOT_DEPTH = 3


def _root(node) -> str | None:
    """The name an attribute/subscript chain starts from (`a` in a.b[0].c), else None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _locals(stmts) -> set[str]:
    """Names the statements bind as plain names (their own, never outer state)."""
    out: set[str] = set()
    for stmt in stmts:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
            elif isinstance(n, ast.FunctionDef):
                out.add(n.name)
    return out


def side_effect(stmts, own: set[str]):
    """The first node of `stmts` that changes Python state outside them (not under a name in
    `own`), or None."""
    for stmt in stmts:
        for n in ast.walk(stmt):
            targets = []
            if isinstance(n, ast.Assign):
                targets = n.targets
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                targets = [n.target]
            elif isinstance(n, ast.Delete):
                targets = n.targets
            for t in targets:
                for part in ast.walk(t):
                    if isinstance(part, (ast.Attribute, ast.Subscript)):
                        root = _root(part)
                        if root is None or root not in own:
                            return n
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr in MUTATORS
            ):
                root = _root(n.func.value)
                if root is None or root not in own:
                    return n
    return None


def free_names(fn) -> list[str]:
    """Names the function's body reads that neither its parameters nor its body bind."""
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    bound = params | _locals(fn.body)
    seen: dict[str, None] = {}
    for stmt in fn.body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound:
                seen.setdefault(n.id)
    return list(seen)


def snapshot(value, depth: int = 0):
    """What a trace bakes in of a Python value: numbers, strings and containers by value,
    NumPy arrays by contents, tensors by node, anything else by identity."""
    from gradcli.tfcode.values import Tensor

    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return ("py", type(value).__name__, repr(value))
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        return ("np", arr.dtype.str, arr.shape, arr.tobytes())
    if isinstance(value, Tensor):
        return ("tensor", value.id)
    if depth < SNAPSHOT_DEPTH and isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(snapshot(v, depth + 1) for v in value))
    if depth < SNAPSHOT_DEPTH and isinstance(value, dict):
        return ("dict", tuple((repr(k), snapshot(v, depth + 1)) for k, v in value.items()))
    return ("id", id(value))


def _reads(fn) -> dict:
    """The snapshots of the outside names the body reads, as they are now."""
    out = {}
    for name in free_names(fn):
        try:
            out[name] = snapshot(fn.scope.lookup(name))
        except (KeyError, AttributeError):
            continue
    return out


def check_call(it, fn, key, retrace: bool, node) -> None:
    """At a first trace remember what the body reads from outside; at a later call of that
    trace refuse what TensorFlow would not repeat (see the module docstring)."""
    state = it.__dict__.setdefault("trace_reads", {})
    if not retrace:
        state[key] = (_reads(fn), node.lineno)
        return
    reads, line = state.get(key, ({}, fn.pos.line))
    once = ONCE.format(line=line)
    effect = side_effect(fn.body, _locals(fn.body))
    if effect is not None:
        it.refuse(effect, f"a Python side effect in @tf.function {fn.name}, called again", once)
    now = _reads(fn)
    for name, before in reads.items():
        if now.get(name, before) != before:
            it.refuse(
                node,
                f"a call of @tf.function {fn.name} after '{name}', which it reads, changed",
                f"{once}, with the '{name}' of then",
            )


def loop_side_effect(stmt: ast.For):
    """A side effect in a for loop's body that AutoGraph would trace once, else None."""
    own = _locals([ast.Assign(targets=[stmt.target], value=ast.Constant(0)), *stmt.body])
    return side_effect(stmt.body, own)


def refuse_inside_call(it, node, targets, named) -> None:
    """Refuse a gradient call (outside the trace) whose source is a tensor made inside a
    finished @tf.function call and whose target depends on it through that call's nodes."""
    from gradcli.tfcode.values import Tensor

    tops = [v.id for v, _ in targets if isinstance(v, Tensor)]
    for value, name in named:
        if not isinstance(value, Tensor) or not tops:
            continue
        s = value.id
        for start, end, fn in it.finished:
            if not start <= s < end:
                continue
            inside = it.g.descendants([s], limit=end)
            inside[s] = 0
            above = it.g.ancestors(tops)
            if any(inside[i] and above[i] for i in range(s + 1, end)):
                it.refuse(
                    node,
                    f"a gradient with respect to {name}, made inside a call of @tf.function "
                    f"{fn.name} (line {fn.pos.line}) that also computes the target from it",
                    "a tape outside the call records it as one operation, whose outputs do "
                    "not depend on one another",
                )


def leaked_input(it, inputs, node) -> None:
    """Refuse an op whose input is a graph tensor a finished @tf.function call made and did not
    return (a list appended to, an attribute set inside it)."""
    for i in inputs:
        fn = it.leaked.get(i)
        if fn is not None:
            it.refuse(
                node,
                f"a tensor made inside a call of @tf.function {fn.name} (line {fn.pos.line}) "
                "and used after it without being returned",
                "its graph is out of scope there: TensorFlow fails with a TypeError",
            )

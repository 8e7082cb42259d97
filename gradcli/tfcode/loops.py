"""Loops in TensorFlow code, unrolled (a mixin of Interpreter, see interpret.py).

- Python `for` over lists, tuples, ranges, dicts, zip/enumerate and (eager) tensors, and
  Python `while`, with `break`, `continue` and `else`: run as Python runs them. The reader
  knows every value (eager TensorFlow computes them as it goes), so a condition on a tensor's
  value decides like any other; the gradient then sees the iterations that ran, as
  TensorFlow's tape does: the trip count is fixed, never differentiated.
- `tf.while_loop(cond, body, loop_vars, ...)`: TensorFlow 2's eager definition, which is a
  Python loop: `while cond(*loop_vars): loop_vars = body(*loop_vars)`, the results converted
  to tensors; `maximum_iterations` caps the count. Inside `@tf.function` TensorFlow builds
  one While op and differentiates it with its own stacks: the same numbers as unrolled.

Every loop is bounded: MAX_RANGE iterations, the statement budget and the node limit; a loop
past a bound is refused at its line with the bound named. A condition gradcli cannot know
(it depends on something refused or not read) is refused at the loop's line.
"""

from __future__ import annotations

import ast
import contextlib

from gradcli.runtime import limits
from gradcli.runtime.errors import LimitError
from gradcli.tfcode.dataset_iteration import iterable
from gradcli.tfcode.support import MAX_RANGE, Refused, Stop, _describe, _is_python
from gradcli.tfcode.values import Opaque, PyFunction, Tensor, Unknown, Variable


class LoopBreak(Exception):
    """`break`: leaves the innermost loop."""


class LoopContinue(Exception):
    """`continue`: the innermost loop's next iteration."""


class LoopMixin:
    """for and while statements (see the module docstring)."""

    def for_(self, stmt: ast.For, scope) -> None:
        value = self.expr(stmt.iter, scope)
        traced = False
        if iterable(value):  # a dataset: lazy, endless only where the loop can break
            items = value.tf_iterate(self, stmt.iter, endless_ok=_breaks(stmt.body))
            # inside @tf.function AutoGraph traces a loop over a dataset once: the gradient
            # calls of its later iterations run that graph, they are not listed again
            traced = bool(self.tracing)
            if traced:
                self.traced_dataset_loop(stmt)
        else:
            items = self.iterate(value, stmt.iter)
        silenced = 0
        try:
            with self.loop_bound(stmt):
                for k, item in enumerate(items):
                    if traced and k == 1:
                        self.silent += 1
                        silenced = 1
                    self.assign(stmt.target, item, scope)
                    try:
                        self.block(stmt.body, scope)
                    except LoopBreak:
                        return
                    except LoopContinue:
                        continue
        finally:
            self.silent -= silenced
        self.block(stmt.orelse, scope)

    def traced_dataset_loop(self, stmt: ast.For) -> None:
        """A loop over a dataset inside @tf.function: AutoGraph makes it one dataset op whose
        body is traced once. A tape recording around it sees no path through it (TensorFlow
        gives None), and a Python side effect in the body happens once: both refused."""
        from gradcli.tfcode.tracing import loop_side_effect

        outer = next((t for t in self.tapes if t.active), None)
        if outer is not None:
            self.refuse(
                stmt,
                f"a loop over a dataset inside @tf.function {self.tracing[-1].fn.name} while "
                f"the tape of line {outer.pos.line} records",
                "AutoGraph runs it as one dataset op, which the tape does not differentiate "
                "through: TensorFlow gives None there; put the tape inside the "
                "loop",
            )
        effect = loop_side_effect(stmt)
        if effect is not None:
            self.refuse(
                effect,
                "a Python side effect in a loop over a dataset inside @tf.function",
                "AutoGraph traces the loop's body once, so it happens once, not per element",
            )

    def while_(self, stmt: ast.While, scope) -> None:
        count = 0
        with self.loop_bound(stmt):
            while self.loop_test(stmt, scope):
                count += 1
                if count > MAX_RANGE:
                    self.refuse(stmt, f"a while loop of more than {MAX_RANGE:,} iterations")
                try:
                    self.block(stmt.body, scope)
                except LoopBreak:
                    return
                except LoopContinue:
                    continue
        self.block(stmt.orelse, scope)

    def loop_test(self, stmt: ast.While, scope) -> bool:
        """The while condition's truth; refused at the loop when gradcli cannot know it."""
        try:
            value = self.expr(stmt.test, scope)
            if isinstance(value, Opaque):
                self.refuse(
                    stmt,
                    f"a while loop whose condition uses {value.what} (line {value.line})",
                    "gradcli does not read it, so it cannot know the trip count",
                )
            if isinstance(value, Unknown):
                raise Refused()
            if self.graph_mode and isinstance(value, (Tensor, Variable)):
                self.refuse(
                    stmt,
                    "a Python while loop on a tensor in TF1 graph mode",
                    "TensorFlow raises OperatorNotAllowedInGraphError: a graph tensor has no truth "
                    "value; use "
                    "tf.while_loop",
                )
            return self.truth(value, stmt.test)
        except Refused:
            self.refuse(
                stmt, "a while loop whose condition gradcli cannot know (it uses a value not read)"
            )

    @contextlib.contextmanager
    def loop_bound(self, stmt):
        """A loop whose unrolled graph passes the node limit: refused at the (innermost)
        loop's line, with the bound named; the program is read no further."""
        try:
            yield
        except LimitError:
            limit = limits.current.max_nodes
            self.refusals.unsupported(
                stmt,
                f"a loop whose unrolled graph passes {limit:,} nodes",
                limits.advice("max_nodes").strip("()"),
            )
            raise Stop() from None

    def iterate(self, value, node) -> list:
        if isinstance(value, (list, tuple)):
            return list(value)
        if iterable(value):  # a dataset (comprehensions, sum(), unpacking)
            return list(value.tf_iterate(self, node))
        if isinstance(value, range):
            if len(value) > MAX_RANGE:
                self.refuse(node, f"a loop of {len(value):,} iterations (at most {MAX_RANGE:,})")
            return list(value)
        if isinstance(value, dict):
            return list(value)
        if isinstance(value, Opaque):
            self.refuse(
                node,
                f"iterating over {value.what} (line {value.line})",
                "gradcli does not read it, so it cannot know the items",
            )
        if isinstance(value, Unknown):
            raise Refused()
        if isinstance(value, (Tensor, Variable)) and not self.graph_mode:
            # an eager tensor iterates over its first axis: value[0], value[1], ...
            shape = self.g[self.tensor_id(value, read=False)].shape
            if not shape:
                self.refuse(node, "iterating over a scalar tensor (TensorFlow raises TypeError)")
            if shape[0] > MAX_RANGE:
                self.refuse(node, f"a loop of {shape[0]:,} iterations (at most {MAX_RANGE:,})")
            return [self.subscript(node, value, k) for k in range(shape[0])]
        self.refuse(node, f"iterating over {_describe(value)}")


def _breaks(body) -> bool:
    """True if a break (or a return) can leave this loop (a break of a loop inside it cannot)."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Return)):
            return True
        if isinstance(node, (ast.For, ast.While)):
            stack.extend(node.orelse)  # a break in its else leaves the outer loop
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def while_loop(it, args, kwargs, node):
    """tf.while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
    back_prop=True, swap_memory=False, maximum_iterations=None, name=None): unrolled."""
    params = ("cond", "body", "loop_vars", "shape_invariants", "parallel_iterations",
              "back_prop", "swap_memory", "maximum_iterations", "name")  # fmt: skip
    bound = dict(zip(params, args))
    for k, v in kwargs.items():
        if k not in params:
            it.refuse(node, f"tf.while_loop(..., {k}=...)")
        bound[k] = v
    cond, body, loop_vars = (bound.get(p) for p in ("cond", "body", "loop_vars"))
    for name, fn in (("cond", cond), ("body", body)):
        if not isinstance(fn, PyFunction):
            it.refuse(node, f"tf.while_loop with a {name} that is {_describe(fn)}", "give a def")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        it.refuse(
            node,
            f"tf.while_loop with loop_vars {_describe(loop_vars)}",
            "TensorFlow 2 needs a non-empty list or tuple",
        )
    if bound.get("back_prop") is False:
        it.refuse(node, "tf.while_loop(..., back_prop=False)")
    cap = bound.get("maximum_iterations")
    if isinstance(cap, (Tensor, Variable)):
        cap = int(it.value(it.tensor_id(cap, read=False)))
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool)):
        it.refuse(node, f"maximum_iterations={_describe(cap)}", "give an integer")
    # TensorFlow reads variables among the loop variables once, as tensors
    state = _map(loop_vars, lambda v: _read(it, v))
    if it.tracing:  # a traced loop's variables are tensors from the start
        state = _map(state, lambda v: _tensor(it, v, node))
    with it.loop_bound(node):
        state = _run(it, cond, body, state, cap, node)
    return _map(state, lambda v: _tensor(it, v, node))


def _run(it, cond, body, state, cap, node):
    """The loop itself: body while cond, at most cap times."""
    count = 0
    while cap is None or count < cap:
        go = it.call_function(cond, list(state), {}, node)
        if isinstance(go, Unknown):
            it.refuse(node, "a tf.while_loop whose condition gradcli cannot know")
        if not it.truth(go, node):
            break
        count += 1
        if count > MAX_RANGE:
            it.refuse(node, f"a tf.while_loop of more than {MAX_RANGE:,} iterations")
        traced = it.graph_mode or bool(it.tracing)  # TensorFlow builds the body once
        it.traced_loop_bodies += traced
        try:
            new = it.call_function(body, list(state), {}, node)
        finally:
            it.traced_loop_bodies -= traced
        if not isinstance(new, (list, tuple)) or len(new) != len(state):
            it.refuse(
                node,
                f"a tf.while_loop body returning {_describe(new)} for {len(state)} loop variables",
                "TensorFlow needs the loop variables' structure back",
            )
        state = new
    return state


def _map(structure, fn):
    """fn on every leaf of nested lists and tuples (the structure kept)."""
    if isinstance(structure, (list, tuple)):
        items = [_map(v, fn) for v in structure]
        return items if isinstance(structure, list) else tuple(items)
    return fn(structure)


def _read(it, v):
    return Tensor(it.tensor_id(v)) if isinstance(v, Variable) else v


def _tensor(it, v, node):
    """A loop result as TensorFlow returns it: Python numbers become tensors."""
    if _is_python(v) and not isinstance(v, (str, type(None))):
        return it.leaf(it.as_array(v, node), node)
    return v

"""Calls to a spec's own functions: inlined bodies and custom gradients (a Builder mixin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.core.graph import (
    GRADIENT,
)
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec.attributes import _pos_of

if TYPE_CHECKING:  # annotations only: lowering.py imports this module
    from gradcli.spec.lowering import Function


class FunctionCalls:
    """The Builder's half that inlines spec functions and builds their `grad:` rules."""

    def call_function(self, fn: Function, args: list, pos: Pos):
        """Inline a spec function; with a `grad:` wrap it in a custom node."""
        if len(args) != len(fn.params):
            raise GradcliError(
                f"{fn.name} takes {len(fn.params)} argument"
                f"{'s' * (len(fn.params) != 1)} ({', '.join(fn.params)}), "
                f"got {len(args)}",
                pos,
            )
        if fn.name in self.active:
            chain = " -> ".join([*self.active[self.active.index(fn.name) :], fn.name])
            raise GradcliError(
                f"function {fn.name} calls itself ({chain}); recursion is not supported", pos
            )
        ids = [self.tensor(a) for a in args]
        saved = (self.scope, self.later, self.where)
        self.scope, self.later = dict(zip(fn.params, ids)), {}
        self.where = (
            f" in function '{fn.name}' (it sees only its parameters: {', '.join(fn.params)})"
        )
        self.active.append(fn.name)
        try:
            body = self.tensor(self.build(fn.body))
        finally:
            self.active.pop()
            self.scope, self.later, self.where = saved
        if fn.grads is None:
            return body
        attrs = {"function": fn.name, "grad": self.gradient_rule(fn)}
        return self.emit("custom", (*ids, body), attrs, pos)

    def gradient_rule(self, fn: Function):
        """The custom node's rule: build fn's `grad:` expression for input i (dy, out visible)."""
        functions = self.functions

        def rule(b, node, g, i):
            tree = fn.grads[i]
            if tree is None:
                return None
            graph = b.graph  # the graph the gradient is built in (an analysis' copy, maybe)
            sub = type(self)(graph, functions, kind=GRADIENT, origin=b.origin)  # a Builder
            sub.scope = {p: node.inputs[k] for k, p in enumerate(fn.params)}
            sub.scope.update(dy=g, out=node.id)
            sub.where = f" in the gradient of '{fn.name}' (it sees {', '.join(sub.scope)})"
            param = graph[node.inputs[i]]
            r = sub.cast(sub.tensor(sub.build(tree), param.dtype), param.dtype, _pos_of(tree))
            shape = graph[r].shape
            try:
                joined = np.broadcast_shapes(shape, param.shape)
            except ValueError:
                joined = None
            if joined not in (shape, param.shape):
                raise GradcliError(
                    f"the gradient of '{fn.name}' for '{fn.params[i]}' has shape {shape}, which "
                    f"does not fit the parameter's shape {param.shape}",
                    _pos_of(tree),
                )
            return r

        return rule

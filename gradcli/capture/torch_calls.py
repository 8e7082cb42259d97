"""PyTorch's gradient calls under capture: `Tensor.backward`, `torch.autograd.backward` and
`torch.autograd.grad`, wherever they are made (the script, torch.func, a library).

At each call the gradient graph is walked from its roots (iteratively) to learn which
operations and leaves it reaches, and a hook on each node records how the gradient passed
through it (zero and non-finite counts in and out); the hooks only read and are removed
when the call returns. The gradients reported are the tensors PyTorch holds afterwards.
"""

from __future__ import annotations

import sys

import torch

from gradcli.capture import source_text
from gradcli.capture.program import Flow, Gradient, GradientCall
from gradcli.capture.script import StopScript
from gradcli.capture.torch_capture import NODE_KEY, Recorder, _is_fake, tensors_in
from gradcli.capture.torch_names import Names

MAX_NODES = 200_000  # gradient nodes walked and hooked per call
MAX_VALUE = 10_000  # elements of a gradient written out in full
BACKWARD, GRAD = "backward", "grad"


def _count(g) -> tuple[int, int, int]:
    """(elements, zeros, non-finite) of a gradient tensor."""
    n = g.numel()
    if n == 0 or not (g.is_floating_point() or g.is_complex()):
        return n, int((g == 0).sum()) if n else 0, 0
    return n, int((g == 0).sum()), n - int(torch.isfinite(g).sum())


class GradientCalls:
    """Records every gradient call; stops the script when the call limit is passed."""

    def __init__(self, recorder: Recorder, limit: int | None):
        self.rec = recorder
        self.limit = limit  # calls to report; the script stops when the next one starts
        self.names = Names(recorder)
        self.funcs = {
            torch.Tensor.backward: BACKWARD,
            torch.autograd.backward: BACKWARD,
            torch.autograd.grad: GRAD,
        }
        self.errors: dict[int, int] = {}  # id(exception) -> call index

    def kind_of(self, func) -> str | None:
        """'backward' or 'grad' for a gradient function, None for anything else."""
        try:
            return self.funcs.get(func)
        except TypeError:
            return None

    def run(self, kind: str, func, args, kwargs):
        """Make the gradient call the script asked for, recording what it did."""
        rec = self.rec
        roots = tensors_in(args[0] if args else kwargs.get("tensors", kwargs.get("outputs")), [], 2)
        if not roots or any(_is_fake(t) for t in roots) or rec.failure is not None:
            return func(*args, **kwargs)  # compiler tracing, or nothing to record
        if _compiling():
            return func(*args, **kwargs)
        calls = rec.program.calls
        if self.limit is not None and len(calls) >= self.limit:
            raise StopScript("calls")
        try:
            call, hooks, targets, reached = self._begin(kind, args, kwargs, roots)
        except Exception as exc:
            rec.failure = exc
            return func(*args, **kwargs)
        try:
            result = func(*args, **kwargs)
        except BaseException as exc:
            if not isinstance(exc, StopScript):
                call.error = {"type": type(exc).__name__, "message": str(exc), "line": call.line}
                self.errors[id(exc)] = call.index
            self._end(call, hooks, targets, reached, None)
            raise
        self._end(call, hooks, targets, reached, result)
        return result

    def _begin(self, kind, args, kwargs, roots):
        rec = self.rec
        frame = rec.files.frame(sys._getframe(2))
        file, line = (frame.f_code.co_filename, frame.f_lineno) if frame else (None, None)
        root_ids = [rec.value_of(t, line) for t in roots]
        text = source_text.root_text(file, line, kind)
        names = [text] if text and len(roots) == 1 else [self.names.of(t) for t in roots]
        call = GradientCall(
            len(rec.program.calls), kind, line, file, root_ids, names, len(rec.program.ops)
        )
        call.retain_graph = bool(kwargs.get("retain_graph") or kwargs.get("create_graph"))
        rec.program.calls.append(call)
        if kind == GRAD:
            given = args[1] if len(args) > 1 else kwargs.get("inputs")
            inputs = tensors_in(given, [], 2)
            texts = source_text.input_texts(file, line, len(inputs)) or []
            targets = []
            for i, t in enumerate(inputs):
                name = self.names.known(t) or (texts[i] if i < len(texts) else f"input {i}")
                targets.append((name, t))
        else:
            given = kwargs.get("inputs")
            targets = self.names.leaves(frame, tensors_in(given, [], 2) if given else None)
        reached, hooks = self._walk(call, roots)
        for _, t in targets:
            if t.is_leaf and t.requires_grad:
                hooks.append(t.register_hook(self._leaf_hook(call, rec.value_of(t))))
        return call, hooks, targets, reached

    def _walk(self, call: GradientCall, roots):
        """The gradient graph from the roots: the operations and leaves it reaches, hooked."""
        seen, leaves, hooks = set(), set(), []
        stack = [t.grad_fn for t in roots if t.grad_fn is not None]
        for t in roots:
            if t.grad_fn is None and t.requires_grad:
                leaves.add(id(t))
        while stack and len(seen) < MAX_NODES:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if variable is not None:
                leaves.add(id(variable))
            op = node.metadata.get(NODE_KEY)
            if op is not None:
                call.reached_ops.add(op)
                hooks.append(node.register_hook(self._node_hook(call, op)))
            stack.extend(n for n, _ in node.next_functions)
        call.complete = not stack
        return leaves, hooks

    def _node_hook(self, call: GradientCall, op: int):
        def hook(grad_inputs, grad_outputs):
            flow = call.flows.get(op)
            if flow is None:
                flow = call.flows[op] = Flow()
            for g in grad_outputs:
                if g is not None:
                    n, z, f = _count(g)
                    flow.out_elements += n
                    flow.out_zero += z
                    flow.out_nonfinite += f
            for g in grad_inputs:
                n, z, f = (None, None, None) if g is None else _count(g)
                flow.in_elements.append(n)
                flow.in_zero.append(z)
                flow.in_nonfinite.append(f)

        return hook

    def _leaf_hook(self, call: GradientCall, vid: int):
        def hook(grad):
            call.contributions[vid] = _count(grad)

        return hook

    def _end(self, call: GradientCall, hooks, targets, reached, result) -> None:
        for handle in hooks:
            handle.remove()
        rec = self.rec
        call.last_op = len(rec.program.ops)
        for i, (name, t) in enumerate(targets):
            if call.kind == GRAD:
                g = result[i] if result is not None and i < len(result) else None
            else:
                g = t.grad if t.is_leaf else None
            vid = rec.value_of(t)
            call.gradients.append(self._gradient(name, vid, t, g, id(t) in reached))

    def _gradient(self, name, vid, t, g, reached) -> Gradient:
        dtype = str(t.dtype).removeprefix("torch.")
        grad = Gradient(
            name,
            vid,
            None,
            tuple(t.shape),
            dtype,
            "unconnected",
            elements=t.numel(),
            reached=reached,
            requires_grad=t.requires_grad,
            leaf=t.is_leaf,
        )
        if g is None:
            grad.zero_elements = grad.elements
            return grad
        n, zeros, nonfinite = _count(g)
        grad.elements, grad.zero_elements, grad.nonfinite_elements = n, zeros, nonfinite
        grad.shape, grad.dtype = tuple(g.shape), str(g.dtype).removeprefix("torch.")
        if n <= MAX_VALUE:
            grad.value = g.detach().cpu().tolist()
        if nonfinite:
            grad.status = "non_finite"
        elif n and zeros == n:
            grad.status = "zero"
        elif zeros:
            grad.status = "partially_zero"
        else:
            grad.status = "connected"
        return grad

    def read_grad(self, index: int, inputs, out, frame) -> None:
        """A `.grad` read: on a tensor that is not a leaf, remember its name for the report."""
        if not inputs or inputs[0].is_leaf:
            return
        op = self.rec.program.ops[index]
        op.extra["name"] = self.names.known(inputs[0], self.rec.files.frame(frame))


def _compiling() -> bool:
    compiler = getattr(torch, "compiler", None)
    is_compiling = getattr(compiler, "is_compiling", None)
    return bool(is_compiling and is_compiling())

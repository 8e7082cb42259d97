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
from gradcli.capture.program import Gradient, GradientCall, GradNode
from gradcli.capture.script import StopScript
from gradcli.capture.torch_capture import (
    NODE_KEY,
    Recorder,
    _is_fake,
    all_finite,
    grad_fn,
    is_leaf,
    tensors_in,
)
from gradcli.capture.torch_names import Names

MAX_NODES = 200_000  # gradient nodes walked and hooked per call
MAX_VALUE = 10_000  # elements of a gradient written out in full
BACKWARD, GRAD = "backward", "grad"


def _count(g) -> tuple[int, int, int]:
    """(elements, zeros, non-finite) of a gradient tensor; NaN counts as non-zero, as
    `g == 0` has it. The non-finite elements are counted only when there are any."""
    n = g.numel()
    if n == 0:
        return 0, 0, 0
    zeros = n - int(torch.count_nonzero(g))
    if not (g.is_floating_point() or g.is_complex()) or all_finite(g):
        return n, zeros, 0
    return n, zeros, n - int(torch.isfinite(g).sum())


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
        self.original_backward = torch.Tensor.backward

    def kind_of(self, func) -> str | None:
        """'backward' or 'grad' for a gradient function, None for anything else; a script
        that replaced Tensor.backward with its own wrapper hands the mode that wrapper."""
        try:
            kind = self.funcs.get(func)
        except TypeError:
            return None
        if kind is None and func is torch.Tensor.backward:
            return "patched"
        return kind

    def run(self, kind: str, func, args, kwargs):
        """Make the gradient call the script asked for, recording what it did."""
        if kind == "patched":  # the wrapper already runs: make the call it wraps, once
            kind, func = BACKWARD, self.original_backward
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
            if isinstance(exc, Exception):  # not SystemExit, Ctrl-C or a stop: PyTorch's
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
        call.function = frame.f_code.co_name if frame is not None else None
        call.retain_graph = bool(kwargs.get("retain_graph") or kwargs.get("create_graph"))
        call.via = _transform(sys._getframe(2), frame)
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
            if is_leaf(t) and t.requires_grad:
                hooks.append(t.register_hook(self._leaf_hook(call, rec.value_of(t))))
        return call, hooks, targets, reached

    def _walk(self, call: GradientCall, roots):
        """The gradient graph from the roots, breadth first: each node with its owner (the
        recorded operation that made it, or the nearest one above it), children and leaf,
        and a reading hook on each. Returns the leaves reached (id of the tensor) and the
        hooks to remove."""
        rec = self.rec
        index: dict[int, int] = {}
        refs, owners, leaves = [], [], set()
        for t in roots:
            if grad_fn(t) is None and t.requires_grad:
                leaves.add(id(t))
        queue = [(grad_fn(t), None) for t in roots if grad_fn(t) is not None]
        head = 0
        while head < len(queue) and len(refs) < MAX_NODES:
            node, owner = queue[head]
            head += 1
            if id(node) in index:
                continue
            index[id(node)] = len(refs)
            refs.append(node)
            tag = node.metadata.get(NODE_KEY)
            owner = tag if tag is not None else owner
            owners.append(owner)
            if owner is not None:
                call.reached_ops.add(owner)
            queue.extend((n, owner) for n, _ in node.next_functions if n is not None)
        call.complete = head >= len(queue)
        hooks = []
        for i, node in enumerate(refs):
            children = tuple(
                index.get(id(n)) if n is not None else None for n, _ in node.next_functions
            )
            variable = getattr(node, "variable", None)
            leaf = None
            if variable is not None:
                leaves.add(id(variable))
                leaf = rec.value_of(variable)
            call.nodes.append(GradNode(owners[i], children, leaf))
            hooks.append(node.register_hook(self._node_hook(call.nodes[i])))
        return leaves, hooks

    def _node_hook(self, record: GradNode):
        def hook(grad_inputs, grad_outputs):
            try:
                out = [_count(g) for g in grad_outputs if g is not None]
                record.out = tuple(map(sum, zip(*out))) if out else (0, 0, 0)
                record.slots = tuple(None if g is None else _count(g) for g in grad_inputs)
            except Exception as exc:  # a reading that failed is gradcli's, not the script's
                self.rec.failure = self.rec.failure or exc

        return hook

    def _leaf_hook(self, call: GradientCall, vid: int):
        def hook(grad):
            try:
                if grad is not None:
                    call.contributions[vid] = _count(grad)
            except Exception as exc:
                self.rec.failure = self.rec.failure or exc

        return hook

    def _end(self, call: GradientCall, hooks, targets, reached, result) -> None:
        for handle in hooks:
            handle.remove()
        rec = self.rec
        call.last_op = len(rec.program.ops)
        roots = set(call.roots)
        for i, (name, t) in enumerate(targets):
            vid = rec.value_of(t)
            if call.kind == GRAD:
                g = result[i] if result is not None and i < len(result) else None
            else:
                g = t.grad if is_leaf(t) else None
                if vid in roots or (g is not None and id(t) not in reached):
                    continue  # the output itself, or a gradient left by an earlier call
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
            leaf=is_leaf(t),
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
        if not inputs or is_leaf(inputs[0]):
            return
        op = self.rec.program.ops[index]
        op.extra["name"] = self.names.known(inputs[0], self.rec.files.frame(frame))


def _compiling() -> bool:
    compiler = getattr(torch, "compiler", None)
    is_compiling = getattr(compiler, "is_compiling", None)
    return bool(is_compiling and is_compiling())


def _transform(start, user) -> str | None:
    """'torch.func' when torch.func's transforms made the call on the user's behalf."""
    frame = start
    while frame is not None and frame is not user:
        if "_functorch" in frame.f_code.co_filename:
            return "torch.func"
        frame = frame.f_back
    return None

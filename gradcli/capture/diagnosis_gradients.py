"""The diagnosis's findings from a call's gradient graph: where the zeros of a connected
gradient were born, where a NaN or Inf turned up, and where a gradient node returned
None. A mixin of `Doctor` (capture/diagnosis.py), which gives it the program, the
framework's words, the data flow and the naming of causes.
"""

from __future__ import annotations

from gradcli.capture import diagnosis_bodies
from gradcli.capture.program import Gradient, GradientCall, Operation, OpKind
from gradcli.capture.tf_zero_kinds import table_kind as registry_kind
from gradcli.capture.zero_walk import read_births
from gradcli.explain.analysis import Cause
from gradcli.explain.report import CauseKind as K
from gradcli.explain.report import OriginKind

ZERO_ROLES = {
    "threshold": K.INACTIVE,
    "mask": K.MASK,
    "saturating": K.UNDERFLOW,
    "rounding": K.NON_DIFFERENTIABLE,
    "select": K.UNSELECTED,
    "branch": K.UNKNOWN,  # a traced tf.cond whose branches were not read (see tf_zero_kinds)
}

SELECTS = frozenset(("SelectV2", "Select"))  # tf.where: `inactive`, as the static reader says


def table_kind(op: Operation | None) -> str:
    """The registry's kind for an op's zeros that no edge read (zero_derivative when the
    registry has no word for it)."""
    t = op.extra.get("type") if op is not None else None
    return registry_kind(t) or K.ZERO_DERIVATIVE


BRANCH_ZEROS = (
    ": the branch of the traced tf.cond that reads it did not run (the predicate chose the "
    "other), and TensorFlow gives the untaken branch's inputs zero gradients there"
)
# TensorFlow ops whose gradient toward one input is multiplied by another input's value: a
# NaN/Inf there reaches the gradient even where the gradient arriving is 0
PRODUCTS = frozenset(
    ("Mul", "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "RealDiv", "Div", "Einsum")
)

# reduced-precision float dtypes: a gradient cast back to one of them can underflow to zero
# (float16's smallest subnormal is about 6e-8)
NARROW_FLOATS = frozenset(("float16", "bfloat16"))


class GradientGraphFindings:
    """Zeros, NaN and None read from a call's gradient graph (call.nodes)."""

    def toward(self, call: GradientCall, x: int) -> tuple[set[int], set[int]]:
        """(nodes from which the gradient reaches leaf x, x's own nodes) in a call's graph."""
        parents = self._parents.get(call.index)
        if parents is None:
            parents = self._parents[call.index] = {}
            for i, node in enumerate(call.nodes):
                for c in node.children:
                    if c is not None:
                        parents.setdefault(c, []).append(i)
        own = {i for i, node in enumerate(call.nodes) if node.leaf == x}
        seen, stack = set(own), list(own)
        while stack:
            for p in parents.get(stack.pop(), ()):
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return seen, own

    def _births(
        self, call: GradientCall, x: int, test, boundary: bool = False
    ) -> list[tuple[int, int]]:
        """(node, count) where `test(out, slot)` says the gradient toward x changed there;
        with `boundary`, only at the last node of an operation made of several (F.cross_entropy
        is NllLoss then LogSoftmax: NllLoss's one-hot zeros are filled in by LogSoftmax)."""
        toward, own = self.toward(call, x)
        entry: dict = {}  # op -> the gradient with the fewest zeros its nodes received
        for j in toward if boundary else ():
            o, got = call.nodes[j].op, call.nodes[j].out
            if o is None or not got or not got[0]:
                continue
            if o not in entry or _zero_share(got) < _zero_share(entry[o]):
                entry[o] = got
        found = []
        for i in sorted(toward - own):
            node = call.nodes[i]
            if node.out is None or node.slots is None:
                continue
            out = node.out
            if boundary and node.op is not None:
                inner = [c for c in node.children if c in toward and c not in own]
                if any(call.nodes[c].op == node.op for c in inner):
                    continue
                out = entry.get(node.op, out)  # what the whole operation received
            counts = [s for c, s in zip(node.children, node.slots) if c in toward]
            hit = test(out, counts)
            if hit:
                found.append((i, hit))
        return found

    def _node_op(self, call: GradientCall, i: int) -> Operation | None:
        op = call.nodes[i].op
        return self.program.ops[op] if op is not None else None

    def zero_causes(self, call: GradientCall, g: Gradient) -> list[Cause]:
        """Where the gradient toward x turned zero: the nodes whose gradient out toward x has
        a larger share of zeros than the gradient they received."""
        roots = [n for n in call.nodes[: len(call.roots)] if n.out is not None]
        if roots and all(n.out[0] and n.out[1] == n.out[0] for n in roots):
            return [
                self.cause(
                    K.ZERO_UPSTREAM,
                    None,
                    "the gradient backward starts from is zero",
                    line=call.line,
                )
            ]

        def more_zeros(out, slots):
            share = out[1] / out[0] if out[0] else 1.0
            zeros = [s[1] for s in slots if s is not None and s[0] and s[1] / s[0] > share]
            return max(zeros) if zeros else 0

        if any(n.read is not None for n in call.nodes):  # read by the edge: walk from x
            toward, own = self.toward(call, g.value_id)
            births = read_births(call.nodes, own, toward)
        else:
            births = [(i, c, None) for i, c in self._births(call, g.value_id, more_zeros, True)]
        causes = []
        for i, count, read in births:
            op = self._node_op(call, i)
            role = op.extra.get("role") if op is not None else None
            if role == "padding":
                idx = op.extra.get("padding_idx")
                detail = (
                    f"{op.name} is given padding_idx={idx}: row {idx} of its weight never "
                    "gets a gradient (it stays as it is); the layer is made here"
                )
                at = op.extra.get("defined_line") or op.line
                causes.append(self.cause(K.MASK, None, detail, elements=count, line=at,
                                         use_line=op.line))  # fmt: skip
                continue
            if diagnosis_bodies.has_body(self, op):  # a loop's or tf.function's inside
                causes += diagnosis_bodies.zero_causes(self, call, g, op, count)
                continue
            body_exits = op.extra.get("body_exits") if op is not None else None
            if body_exits:  # a py_function whose body took its input out of TensorFlow
                causes += self._py_function_exits(op, body_exits, count)
                continue
            kind = read or ZERO_ROLES.get(role) or table_kind(op)  # read: the edge's word
            name = op.name if op is not None else "an operation"
            detail = (
                f"the gradient through {name} turns zero at {count} element"
                f"{'s' * (count != 1)} where the gradient it received does not"
            )
            if kind == K.CANCELLATION:
                detail += ": the nonzero terms it passes back sum to zero there"
            if kind == K.INACTIVE and op is not None and op.extra.get("type") in SELECTS:
                detail += ": where its condition selects the other side"
            elif kind == K.INACTIVE:
                detail += ": units whose input is at or below the threshold (dead units)"
            if kind == K.UNTAKEN_BRANCH:
                detail += BRANCH_ZEROS
            elif kind == K.UNKNOWN and read and role != "branch":
                detail = (
                    f"the gradient through {name} is zero at {count} element"
                    f"{'s' * (count != 1)}, and it calls a compiled function gradcli does not "
                    f"read inside: unknown beyond line {op.line}"
                )
            elif kind == K.UNKNOWN and role == "branch":
                detail += (
                    f": gradcli does not read inside its branches, unknown beyond line {op.line}"
                )
            elif kind == K.ZERO_DERIVATIVE and role == "mask" and not read:
                kind = K.MASK
            if kind == K.MASK and op.extra.get("ignored"):
                ignored, total = op.extra["ignored"]
                every = "every target" if ignored == total else f"{ignored} of {total} targets"
                detail += f": {every} equal ignore_index, and ignored targets get no gradient"
                if ignored == total:
                    detail += " (the mean over no targets is NaN)"
            narrow = self._narrowed(op) if kind == K.ZERO_DERIVATIVE else None
            if narrow:
                kind = K.UNDERFLOW
                detail += (
                    f": it takes a {narrow} input, and the gradient rounded to {narrow} "
                    "underflows to zero (mixed precision without loss scaling)"
                )
            cause = self.cause(kind, op, detail, elements=count)
            if narrow:
                cause.extra["fix"] = self.words.FIXES.get("underflow_narrow")
            made = op.extra.get("defined_line") if op is not None else None
            if made and made != op.line:  # a library layer: the line that made it, and where
                cause.line = made  # it ran
                cause.extra["use_line"] = op.line
            causes.append(cause)
        if not births:  # a loop whose outputs' gradients are TensorLists, not counted
            causes += diagnosis_bodies.unread_zeros(self, call, g)
        causes = self._grouped(causes)
        causes += self._cuts_beside(call, g)
        if not causes:
            return [
                self.cause(
                    K.UNKNOWN,
                    None,
                    f"gradcli cannot tell where the zeros come from beyond line {call.line}",
                    line=call.line,
                )
            ]
        return causes

    def _py_function_exits(self, op: Operation, body_exits: list[int], count: int) -> list:
        """leaves_tape at each line where a py_function's body took a value out of
        TensorFlow: TensorFlow differentiates the body only through the TF ops it ran."""
        causes, lines = [], set()
        for e in body_exits:
            exit_op = self.program.ops[e]
            if exit_op.line in lines:
                continue
            lines.add(exit_op.line)
            detail = (
                f"{exit_op.name} in the function tf.py_function runs at line {op.line} takes "
                "the tensor out of TensorFlow: the py_function's gradient comes only through "
                f"the TensorFlow ops its body ran, so it is zero at {count} element"
                f"{'s' * (count != 1)}"
            )
            causes.append(
                self.cause(K.LEAVES_AUTOGRAD, exit_op, detail, elements=count, use_line=op.line)
            )
        return causes

    def _narrowed(self, op: Operation | None) -> str | None:
        """The reduced-precision dtype an operation widens from (a float16 input, a wider
        output), or None: its backward casts the gradient back to that dtype."""
        if op is None:
            return None
        values = self.program.values
        narrow = [values[v].dtype for v in op.inputs if values[v].dtype in NARROW_FLOATS]
        wide = [v for v in op.outputs if values[v].dtype not in NARROW_FLOATS]
        return narrow[0] if narrow and wide else None

    def _cuts_beside(self, call: GradientCall, g: Gradient) -> list[Cause]:
        """Data-flow paths from x to the output that a cut keeps the gradient off."""
        end = call.first_op
        grad_values, _ = self.flow.forward([g.value_id], end, gradient=True)
        _, data_ops = self.flow.forward([g.value_id], end)
        root_values, root_ops = self.flow.backward(call.roots, end)
        ops = self.program.ops
        on_path = sorted(data_ops & root_ops)
        cuts = [ops[o] for o in on_path if self._cuts(ops[o], grad_values, root_values)]
        return self._grouped([self.cut(op) for op in cuts])

    def nonfinite_causes(self, call: GradientCall, g: Gradient) -> list[Cause]:
        """Where the NaN or Inf was born: in the forward values, or in backward."""
        values = self.program.values
        end = call.first_op
        if not all(values[r].finite for r in call.roots):
            _, data_ops = self.flow.forward([g.value_id], end)
            _, root_ops = self.flow.backward(call.roots, end)
            for o in sorted(data_ops & root_ops):
                op = self.program.ops[o]
                bad_out = op.outputs and not all(values[v].finite for v in op.outputs)
                if bad_out and all(values[v].finite for v in op.inputs):
                    if diagnosis_bodies.has_body(self, op):
                        return diagnosis_bodies.nonfinite_causes(self, call, g, op)
                    return [
                        self.cause(
                            K.NON_FINITE,
                            op,
                            f"{op.name} makes NaN or Inf values "
                            "in the forward pass, and they reach the output",
                            origin=str(OriginKind.FORWARD),
                        )
                    ]

        def turns_nonfinite(out, slots):
            bad = [s[2] for s in slots if s is not None and s[2]]
            return max(bad) if bad and not out[2] else 0

        births = self._births(call, g.value_id, turns_nonfinite)
        for i, count in births[:1]:
            op = self._node_op(call, i)
            if op is None:
                break
            if op.kind is OpKind.CUSTOM and op.extra.get("backward"):
                file, line = op.extra["backward"]
                detail = (
                    f"the backward of {op.extra.get('function')} (applied at line {op.line}) "
                    "returns NaN/Inf where the gradient it received is finite"
                )
                cause = self.cause(
                    K.NON_FINITE,
                    None,
                    detail,
                    line=line,
                    origin=str(OriginKind.SINGULAR),
                    elements=count,
                    apply_line=op.line,
                )
                if file != self.program.file:
                    cause.extra["file"] = f"{file}:{line}"
                return [cause]
            if op.outputs and not all(values[v].finite for v in op.outputs):
                masker = self._masker(call, g, op)
                at = f" by {masker.name} at line {masker.line}" if masker else ""
                detail = (
                    f"{op.name} makes NaN/Inf in the forward pass; they are masked "
                    f"out{at}, but the gradient through {op.name} is still NaN (0 times "
                    "Inf): mask its input before the operation, not only its output"
                )
                return [
                    self.cause(
                        K.NON_FINITE,
                        op,
                        detail,
                        origin=str(OriginKind.WHERE_TRAP),
                        elements=count,
                        mask_line=masker.line if masker else None,
                    )
                ]
            detail = (
                f"the derivative of {op.name} is infinite or undefined at some of its "
                "inputs (a singular point), so the gradient turns NaN/Inf here"
            )
            return [
                self.cause(
                    K.NON_FINITE, op, detail, origin=str(OriginKind.SINGULAR), elements=count
                )
            ]
        singular = self._singular(call, g) if not call.nodes else None
        if singular is not None:
            op, count = singular
            detail = (
                f"the derivative of {op.name} is infinite where its value is 0 ({count} "
                "element(s) here, a singular point), so the gradient turns NaN/Inf here"
            )
            return [
                self.cause(
                    K.NON_FINITE, op, detail, origin=str(OriginKind.SINGULAR), elements=count
                )
            ]
        causes = []
        for op in self._masked_births(call, g) if not call.nodes else []:
            masker = self._masker(call, g, op)
            at = f" by {masker.name} at line {masker.line}" if masker else ""
            detail = (
                f"{op.name} makes NaN/Inf in the forward pass; they are masked out{at}, "
                "but the gradient still meets them (0 times NaN/Inf is NaN): make the "
                "input safe before the operation, not only its output"
            )
            causes.append(
                self.cause(
                    K.NON_FINITE,
                    op,
                    detail,
                    origin=str(OriginKind.WHERE_TRAP),
                    mask_line=masker.line if masker else None,
                )
            )
        if causes:
            return self._grouped(causes)
        roots = [n for n in call.nodes[: len(call.roots)] if n.out is not None]
        if any(n.out[2] for n in roots):
            return [
                self.cause(
                    K.NON_FINITE,
                    None,
                    "the gradient backward starts from holds NaN or Inf",
                    line=call.line,
                    origin=str(OriginKind.PROPAGATED),
                )
            ]
        return [
            self.cause(
                K.UNKNOWN,
                None,
                f"gradcli cannot tell where the NaN/Inf comes from beyond line {call.line}",
                line=call.line,
            )
        ]

    def _singular(self, call: GradientCall, g: Gradient):
        """(op, count): the one operation on the gradient's path whose forward values sit at
        a singular point of its derivative (the capture's `singular` count: a framework with
        no per-node gradient values says where); None when none or several lines have one."""
        _, data_ops = self.flow.forward([g.value_id], call.first_op, gradient=True)
        _, root_ops = self.flow.backward(call.roots, call.first_op)
        ops = [self.program.ops[o] for o in sorted(data_ops & root_ops)]
        found = [op for op in ops if op.extra.get("singular")]
        if len({(op.file, op.line) for op in found}) != 1:
            return None
        return found[0], sum(op.extra["singular"] for op in found)

    def _masked_births(self, call: GradientCall, g: Gradient) -> list[Operation]:
        """With finite roots (the NaN/Inf was masked before the output), the operations that
        made NaN/Inf from finite inputs and that the gradient toward x must meet: one on the
        gradient's path (its derivative at a non-finite value), or one whose NaN/Inf reaches,
        as the other factor, a product the path passes (0 times NaN is NaN). For a framework
        with no per-node gradient values: the forward values say where; [] when none."""
        values, ops, end = self.program.values, self.program.ops, call.first_op
        if not all(values[r].finite for r in call.roots):
            return []
        on_path, path = self.flow.forward([g.value_id], end, gradient=True)
        _, root_ops = self.flow.backward(call.roots, end)
        finite = lambda v: values[v].finite  # noqa: E731
        births, stack = set(), []
        for o in sorted(path & root_ops):
            op = ops[o]
            if op.outputs and not all(map(finite, op.outputs)) and all(map(finite, op.inputs)):
                births.add(o)
            if op.extra.get("type", op.name) in PRODUCTS:
                stack += [v for v in op.inputs if not finite(v) and v not in on_path]
        seen = set(stack)
        while stack:  # back from each non-finite factor to where it was born
            o = values[stack.pop()].op
            if o is None or o >= end:
                continue
            bad = [v for v in ops[o].inputs if not finite(v)]
            if not bad:
                births.add(o)
            for v in bad:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return [ops[o] for o in sorted(births)]

    def _masker(self, call, g, born: Operation) -> Operation | None:
        """The operation after `born` on the path that took non-finite inputs to finite outputs."""
        values = self.program.values
        _, data_ops = self.flow.forward(list(born.outputs), call.first_op)
        for o in sorted(data_ops):
            op = self.program.ops[o]
            if (
                any(not values[v].finite for v in op.inputs)
                and op.outputs
                and all(values[v].finite for v in op.outputs)
            ):
                return op
        return None

    def none_returned(self, call: GradientCall, g: Gradient) -> list[Cause]:
        """The call's graph reaches x, yet x got None: the node that returned none for it."""

        def returned_none(out, slots):
            return 1 if out[0] and any(s is None for s in slots) else 0

        toward, own = self.toward(call, g.value_id)
        causes = []
        for i in sorted(toward - own):
            node = call.nodes[i]
            if node.out is None or node.slots is None or not node.out[0]:
                continue
            if any(s is None and c in toward for c, s in zip(node.children, node.slots)):
                op = self._node_op(call, i)
                if op is not None and op.kind is OpKind.CUSTOM:
                    causes.append(self.custom(op))
                elif op is not None:
                    causes.append(
                        self.cause(
                            K.NON_DIFFERENTIABLE,
                            op,
                            f"the gradient of {op.name} gives no gradient for this input",
                        )
                    )
        return self._grouped(causes) or [
            self.cause(
                K.UNKNOWN,
                None,
                "the gradient graph reaches it, but no gradient "
                f"arrived; gradcli cannot tell why beyond line {call.line}",
                line=call.line,
            )
        ]


def _zero_share(out: tuple) -> float:
    """The share of zeros in a node's (elements, zeros, non-finite) gradient."""
    return out[1] / out[0]

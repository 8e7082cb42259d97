"""The one diagnosis of a captured program: for every gradient a call left None, zero or
NaN, the operation and line that cut or corrupted its path, in explain's vocabulary.

Framework-neutral: it reads operations by OpKind and role, values by their flags, and
gradient calls by the gradient flow their hooks saw. The framework's own words (the fix
for each kind, what its error messages mean) come in `words` (e.g. capture/torch_words).
A culprit is a line where something happened to the path, never the line that asked for
the gradient; where the capture cannot tell, the cause is `unknown` beyond a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradcli.capture.diagnosis_gradients import GradientGraphFindings
from gradcli.capture.flowgraph import FlowGraph
from gradcli.capture.numpy_syntax import scalar_call
from gradcli.capture.program import Captured, Gradient, GradientCall, Operation, OpKind
from gradcli.explain.analysis import Cause, Pair
from gradcli.explain.report import FINE_IN_SCRIPTS, Status
from gradcli.explain.report import CauseKind as K

MAX_CAUSES = 10  # distinct culprit lines listed per gradient


# causes about what happened to a gradient after its call: findings whatever the status
AFTER_CALL = frozenset((K.ZERO_GRAD_MISUSE, K.NOT_IN_OPTIMIZER, K.NOT_REGISTERED))
# operations that compute from a value (a .grad read or write, a requires_grad switch, an
# initialiser writing into it do not)
USES = frozenset(
    (OpKind.COMPUTE, OpKind.CUSTOM, OpKind.EXIT, OpKind.DETACH, OpKind.CAST_INT, OpKind.REWRAP)
)


class RunPair(Pair):
    """A gradient of a call and its causes. It counts toward the exit status unless it is
    connected (partly zero included: some zeros are normal in a network) with nothing
    found after the call, or no optimizer steps it after this call while one steps others
    (a GAN's generator during the discriminator's step: `stepped` is False)."""

    stepped: bool | None = None  # an optimizer stepped it after the call (None: none ran)

    @property
    def ok(self) -> bool:
        if any(c.kind in AFTER_CALL for c in self.causes):
            return False
        if self.stepped is False:
            return True
        return self.status in FINE_IN_SCRIPTS

    def document(self) -> dict:
        """The pair as JSON data, with whether an optimizer stepped it."""
        return {**super().document(), "stepped": self.stepped}


@dataclass
class Diagnosis:
    """Pairs per call, and the causes of the errors the script or a call raised."""

    pairs: list[tuple[int, RunPair]] = field(default_factory=list)
    call_errors: dict[int, list[Cause]] = field(default_factory=dict)
    error_causes: list[Cause] = field(default_factory=list)
    notes: dict = field(default_factory=dict)  # call index (or "error") -> note
    doctor: object = None  # the reasoning, for views that ask it more (graph --run)


def diagnose(program: Captured, words) -> Diagnosis:
    """The diagnosis of every gradient and every error of a captured program."""
    from gradcli.capture.diagnosis_errors import error_causes

    doctor = Doctor(program, words)
    d = Diagnosis(doctor=doctor)
    for call in program.calls:
        if call.error is not None:
            continue  # the framework raised: the error's causes say why, not each gradient
        for g in call.gradients:
            d.pairs.append((call.index, doctor.pair(call, g)))
        d.pairs += [(call.index, p) for p in doctor.non_leaf_reads(call)]
        d.pairs += [(call.index, p) for p in doctor.untrained_attributes(call)]
    doctor.optimizer_findings(d.pairs)
    doctor.mark_stepped(d.pairs)
    for call in program.calls:
        if call.error is not None:
            causes, note = error_causes(doctor, call.error["message"], call, call.line)
            d.call_errors[call.index] = causes
            if note:
                d.notes[call.index] = note
    error = program.error
    if error is not None:
        call = program.calls[error.in_call] if error.in_call is not None else None
        if call is not None:
            d.error_causes = d.call_errors.get(call.index, [])
        else:
            d.error_causes, note = error_causes(doctor, error.message, None, error.line)
            if note:
                d.notes["error"] = note
    return d


class Doctor(GradientGraphFindings):
    """The diagnosis's reasoning over one program (FlowGraph built once)."""

    def __init__(self, program: Captured, words):
        self.program = program
        self.words = words
        self.flow = FlowGraph(program)
        self._parents: dict[int, dict] = {}
        self.branch_evidence = None  # the script's branches, read when first asked

    # --- naming ----------------------------------------------------------------------
    def name(self, vid: int) -> str:
        """The script's name for a value, or where it was made."""
        known = self.program.names.get(vid)
        if known:
            return known
        value = self.program.values.get(vid)
        op = self.program.ops[value.op] if value is not None and value.op is not None else None
        if op is not None:
            return f"the result of {op.name} (line {op.line})"
        return f"the tensor made at line {value.line}" if value and value.line else "a tensor"

    def line_in(self, op: Operation | None, file: str | None, function: str | None):
        """The line of `op` as seen from the frame (file, function) it ran under: the call
        site there when the operation ran in a function it called, else its own line."""
        if op is None:
            return None
        for f, line, name in op.extra.get("stack", ()):
            if f == file and name == function:
                return line
        return op.line

    def line_shared(self, op: Operation | None, stack) -> int | None:
        """The line of `op` in the innermost of its frames that `stack` (another event's user
        frames) also runs in: where the two meet, e.g. the call of a helper that made it."""
        if op is None:
            return None
        others = {(f, name) for f, _, name in stack}
        for f, line, name in op.extra.get("stack", ()):
            if (f, name) in others:
                return line
        return op.line

    def cause(self, kind, op: Operation | None, detail: str, line=None, **extra) -> Cause:
        """A Cause at an operation's line (or `line`), with the framework's fix."""
        where = op.line if op is not None else line
        location = None
        if op is not None and op.file and op.file != self.program.file and op.line:
            location = f"{op.file}:{op.line}"
        cause = Cause(
            str(kind),
            op.name if op is not None else "",
            where,
            detail,
            op=op.name if op is not None else None,
        )
        cause.extra = {"fix": self.words.FIXES.get(str(kind)), **extra}
        if location:
            cause.extra["file"] = location
        if op is not None and op.module is not None and op.module in self.program.modules:
            cause.extra["module"] = self.program.modules[op.module]  # where it ran: model.fc1
        return cause

    # --- one gradient ----------------------------------------------------------------
    def pair(self, call: GradientCall, g: Gradient) -> RunPair:
        """The pair for one gradient of a call, with its causes."""
        output = call.root_names[0] if len(call.root_names) == 1 else "the outputs"
        pair = RunPair(output or "the output", g.name, g.status, g.elements, g.zero_elements)
        if g.status == Status.UNCONNECTED and g.reached and g.leaf and g.requires_grad:
            pair.causes = self.none_returned(call, g)
        elif g.status == Status.UNCONNECTED or not g.reached:
            pair.status = Status.UNCONNECTED
            pair.causes = self.cut_causes(call, g)
        elif g.status in (Status.ZERO, Status.PARTIALLY_ZERO):
            pair.causes = self.zero_causes(call, g)
        elif g.status == Status.NON_FINITE:
            pair.causes = self.nonfinite_causes(call, g)
        pair.reason = self.reason(pair, as_zeros=g.value is not None)
        return pair

    def reason(self, pair: RunPair, as_zeros: bool = False) -> str | None:
        """One line from the first cause (an unconnected gradient the call asked to have as
        zeros, unconnected_gradients=ZERO or materialize_grads, is not called None)."""
        if not pair.causes:
            return None
        first = pair.causes[0]
        where = first.at_line()
        more = len(pair.causes) - 1
        also = f" (and {more} more cause{'s' * (more != 1)})" if more else ""
        if pair.status == Status.UNCONNECTED:
            given = "reported as zeros" if as_zeros else "None"
            head = f"{pair.output} gets no gradient to {pair.input} ({given})"
        elif pair.status == Status.NON_FINITE:
            head = f"the gradient of {pair.output} for {pair.input} holds NaN or Inf"
        elif pair.status in (Status.ZERO, Status.PARTIALLY_ZERO):
            n, z = pair.elements, pair.zero_elements
            head = "it is zero" if z == n else f"{z} of {n} elements are zero"
        else:
            head = f"{pair.input} gets a gradient, but"
        return f"{head}: {first.kind}{where}{also}"

    def cut_causes(self, call: GradientCall, g: Gradient) -> list[Cause]:
        """Why a gradient is None: the first operation on each path that does not carry it."""
        x, values, ops = g.value_id, self.program.values, self.program.ops
        v = values[x]
        if not g.leaf:
            return [self.non_leaf(x)]
        end = call.first_op
        if not g.requires_grad and x in self.flow.backward(call.roots, end)[0]:
            return [self.frozen(x, end)]  # (frozen and unused: not using it comes first)
        grad_values, _ = self.flow.forward([x], end, gradient=True)
        data_values, data_ops = self.flow.forward([x], end)
        root_values, root_ops = self.flow.backward(call.roots, end)
        on_path = sorted(data_ops & root_ops)
        cuts = [ops[o] for o in on_path if self._cuts(ops[o], grad_values, root_values)]
        cuts = self._needed(x, call.roots, set(on_path), cuts)
        if cuts:
            causes = self._grouped([self.cut(op) for op in cuts])
            causes += [
                self.rewrapped(ops[o])
                for o in on_path
                if ops[o].kind is OpKind.REWRAP and ops[o].exits
            ]
            return causes
        if on_path:
            from gradcli.capture.diagnosis_bodies import none_causes

            inside = none_causes(self, call, g, [ops[o] for o in on_path])
            if inside:
                return self._grouped(inside)
            custom = [ops[o] for o in on_path if ops[o].kind is OpKind.CUSTOM]
            # a tf.custom_gradient names the inputs its function returned None for
            custom = [op for op in custom if op.extra.get("none_inputs", data_values) & data_values]
            if custom:
                return [self.custom(op) for op in custom[:MAX_CAUSES]]
            last = ops[on_path[-1]]
            detail = (
                f"{self.name(x)} reaches the output in the data flow, but the gradient "
                f"graph does not; gradcli cannot tell why beyond line {last.line}"
            )
            return [self.cause(K.UNKNOWN, last, detail)]
        rebuilt = [ops[o] for o in sorted(root_ops) if ops[o].extra.get("from_values")]
        left = self._left(data_ops, grad_values, end) if rebuilt else []
        if left:
            return self._grouped(left) + self._grouped([self.rebuilt(op) for op in rebuilt])
        from gradcli.capture.diagnosis_branches import untaken_branches

        return untaken_branches(self, call, x) or [self.no_path(x, v, data_ops, end, call)]

    def _needed(self, x: int, roots, on_path: set, cuts: list[Operation]) -> list[Operation]:
        """The cuts that alone keep x from the output: a cut that x's other paths bypass
        (torch.multinomial beside the log_prob that still reads the probabilities) is
        dropped; all are kept if none is needed alone."""
        if len(cuts) < 2:
            return cuts
        ops, targets = self.program.ops, set(roots)

        def reaches_without(blocked: int) -> bool:
            seen, stack = {x}, [x]
            while stack:
                v = stack.pop()
                if v in targets:
                    return True
                for o in self.flow.consumers.get(v, ()):
                    if o == blocked or o not in on_path:
                        continue
                    outs = list(ops[o].outputs)
                    for r in self.flow.rewraps.get(o, ()):  # a value that left, rebuilt
                        if r in on_path and r != blocked:
                            outs += ops[r].outputs
                    for w in outs:
                        if w not in seen:
                            seen.add(w)
                            stack.append(w)
            return False

        needed = [op for op in cuts if not reaches_without(op.index)]
        return needed or cuts

    def _left(self, data_ops: set, grad_values: set, end: int) -> list[Cause]:
        """The cuts on x's paths that lead out of the framework (to .item(), .numpy()...):
        the first cut on each such path, then where the value left."""
        ops = self.program.ops
        causes, exits = [], set()
        for o in sorted(data_ops):
            op = ops[o]
            if not any(i in grad_values for i in op.inputs):
                continue
            if op.kind is OpKind.EXIT:
                exits.add(o)
                causes.append(self.exit(op))
                continue
            if all(w in grad_values for w in op.outputs):
                continue
            _, after = self.flow.forward(list(op.outputs), end)
            gone = sorted(a for a in after if ops[a].kind is OpKind.EXIT)
            if gone:
                causes.append(self.cut(op))
                exits.update(gone[:1])
                causes.append(self.exit(ops[gone[0]]))
        return causes

    def _cuts(self, op: Operation, grad_values: set, path_values: set) -> bool:
        """An operation a gradient enters and an output of which, on the path to the
        output, it does not reach (an EXIT has no output: its value left)."""
        if not any(i in grad_values for i in op.inputs):
            return False
        outs = [o for o in op.outputs if o in path_values]
        if op.extra.get("body") and any(o in grad_values for o in outs):
            values = self.program.values  # a loop's counter is no result a gradient crosses
            outs = [o for o in outs if values[o].floating]
        return not outs or any(o not in grad_values for o in outs)

    def _grouped(self, causes: list[Cause]) -> list[Cause]:
        """One cause per (kind, line), counting repeats (a loop cuts at the same line)."""
        kept: dict = {}
        for c in causes:
            key = (c.kind, c.line, c.extra.get("file"))
            if key in kept:
                kept[key].extra["times"] = kept[key].extra.get("times", 1) + 1
            else:
                kept[key] = c
        return list(kept.values())[:MAX_CAUSES]

    def cut(self, op: Operation) -> Cause:
        """The cause an operation that does not carry a gradient stands for."""
        if op.kind is OpKind.DETACH:
            return self.cause(
                K.DETACH,
                op,
                f"{op.name} returns the same values with no "
                "gradient: nothing before it on this path is trained by it",
            )
        if op.kind is OpKind.EXIT:
            return self.exit(op)
        if op.kind is OpKind.REWRAP:
            return self.rewrapped(op)
        if op.kind is OpKind.SET_REQUIRES_GRAD:
            return self.cause(
                K.REQUIRES_GRAD_FALSE, op, "requires_grad is switched off here (frozen)"
            )
        if not op.grad_enabled or op.inference:
            return self.no_grad(op)
        if op.kind is OpKind.CAST_INT:
            return self.cause(
                K.INTEGER, op, f"{op.name} casts to an integer type, which carries no gradient"
            )
        if op.extra.get("role") == "branch":  # TF1's Switch: zeros for the untaken side
            return self.cause(
                K.UNTAKEN_BRANCH,
                op,
                "the branch of tf.cond that reads it did not run (the predicate chose the "
                "other), and TensorFlow gives the untaken branch's inputs zero gradients",
            )
        if op.extra.get("role") == "discrete":
            return self.cause(
                K.NON_DIFFERENTIABLE,
                op,
                f"{op.name} gives integer or boolean results: no gradient flows through it",
            )
        return self.cause(
            K.NON_DIFFERENTIABLE, op, f"{op.name} recorded no gradient for its result"
        )

    def no_grad(self, op: Operation) -> Cause:
        """An operation run with gradient recording off, naming where it was switched off."""
        if op.grad_enabled and op.inference:  # torch.enable_grad() inside inference_mode()
            detail = (
                f"{op.name} ran under torch.inference_mode(), which torch.enable_grad() does "
                "not undo, so its result records no gradient"
            )
            return self.cause(K.NO_GRAD, op, detail)
        switch = None
        for o in range(op.index - 1, -1, -1):
            other = self.program.ops[o]
            if other.kind is OpKind.GRAD_MODE:
                switch = other if other.extra.get("value") is False else None
                break
        mode = "torch.inference_mode()" if op.inference else "grad mode off (torch.no_grad())"
        since = f", switched off at line {switch.line}" if switch and switch.line else ""
        detail = f"{op.name} ran under {mode}{since}, so its result records no gradient"
        if switch is not None and switch.extra.get("stack"):
            file, _, function = switch.extra["stack"][0]
            line = self.line_in(op, file, function)
            if line != op.line:  # the line in the with block that called it
                detail += f" (at line {op.line}, called from here)"
                cause = self.cause(K.NO_GRAD, None, detail, line=line, switch_line=switch.line)
                cause.op = op.name
                return cause
        return self.cause(K.NO_GRAD, op, detail, **({"switch_line": switch.line} if switch else {}))

    def exit(self, op: Operation) -> Cause:
        return self.cause(
            K.LEAVES_AUTOGRAD,
            op,
            f"{op.name} turns the tensor into a Python value, which carries no gradient",
        )

    def rewrapped(self, op: Operation) -> Cause:
        return self.cause(
            K.REWRAPPED,
            op,
            f"{op.name} builds a new tensor from values: it "
            "has no path back to what they were computed from",
        )

    def rebuilt(self, op: Operation) -> Cause:
        return self.cause(
            K.REWRAPPED,
            op,
            f"{op.name} builds the tensor the output comes "
            "from out of Python values, so it has no path to any parameter",
        )

    def custom(self, op: Operation) -> Cause:
        """A custom Function's backward that returned None: at its def line."""
        at = op.extra.get("backward")
        if at is not None:
            cause = self.cause(
                K.CUSTOM_FUNCTION,
                None,
                f"the backward of {op.extra.get('function')} (applied at line {op.line}) "
                "returned no gradient (None) for this input",
                line=at[1],
                apply_line=op.line,
            )
            if at[0] != self.program.file:
                cause.extra["file"] = f"{at[0]}:{at[1]}"
            return cause
        return self.cause(
            K.CUSTOM_FUNCTION,
            op,
            f"the backward of {op.extra.get('function')}"
            " returned no gradient (None) for this input",
        )

    def non_leaf(self, x: int) -> Cause:
        """A tensor that is not a leaf: the line that made it one."""
        value = self.program.values[x]
        op = self.program.ops[value.op] if value.op is not None else None
        made = f" by {op.name}" if op is not None else ""
        detail = (
            f"{self.name(x)} is not a leaf: it was computed{made}, and PyTorch fills "
            ".grad only for leaves"
        )
        return self.cause(K.NON_LEAF, op, detail, line=value.line)

    def frozen(self, x: int, end: int) -> Cause:
        """A tensor that does not require grad: where it was frozen, or made without it."""
        made = self.program.values[x].op
        op = self.program.ops[made] if made is not None else None
        if (
            op is not None
            and op.kind is OpKind.SET_REQUIRES_GRAD
            and op.extra.get("value") is False
        ):
            return self.cause(
                K.REQUIRES_GRAD_FALSE, op, f"{self.name(x)} is frozen here (requires_grad = False)"
            )
        line = self.program.values[x].line
        return self.cause(
            K.REQUIRES_GRAD_FALSE,
            None,
            f"{self.name(x)} was made without requires_grad=True",
            line=line,
        )

    def no_path(self, x, v, data_ops, end, call) -> Cause:
        """The output does not use x: the line that dropped what was computed from it (the
        first line, in the frame of the gradient call, that uses the other results of the
        same call site but not this one), else where it was last used, if anywhere."""
        ops = self.program.ops
        used = [o for o in sorted(data_ops) if o < end and ops[o].kind in USES]
        dropped = self._dropped(used, end, call)
        if dropped is not None:
            op, site = dropped
            return self.cause(
                K.NO_PATH,
                None,
                f"{call.root_names[0] or 'the output'} does not use {self.name(x)}: line "
                f"{site} computes from it, and this line uses that call's other results but "
                "not the one computed from it",
                line=self.line_in(op, call.file, call.function),
                made_line=site,
            )
        if not used:
            return self.cause(
                K.NO_PATH,
                None,
                f"{call.root_names[0] or 'the output'} does "
                f"not use {self.name(x)}: it is not used before the call "
                f"(made at line {v.line})",
                line=v.line,
            )
        last = ops[used[-1]]
        spans = getattr(last.extra.get("stack"), "spans", ())
        callee = scalar_call(last.file, spans[0] if spans else None,
                             self.program.facts.get("numpy_names", {}))  # fmt: skip
        if callee is not None:  # np.float32(t): NumPy read it, unseen (the buffer protocol)
            detail = (
                f"{callee}(...) turns the result of {last.name} into a NumPy value (NumPy "
                "reads the tensor directly), which carries no gradient"
            )
            return self.cause(K.LEAVES_AUTOGRAD, last, detail)
        return self.cause(
            K.NO_PATH,
            last,
            f"{call.root_names[0] or 'the output'} does not "
            f"use {self.name(x)}: its last use is {last.name} here, and "
            "nothing computed from it reaches the output",
        )

    def _dropped(self, used: list[int], end: int, call: GradientCall):
        """(operation, call-site line) where results of one call site (a model returning
        several outputs) go on toward the output while x's result is left unused."""
        if not used:
            return None
        ops = self.program.ops
        last = ops[used[-1]]
        site = self.line_in(last, call.file, call.function)
        if site is None or (site == last.line and not last.extra.get("stack")):
            return None
        left = set(last.outputs)
        _, root_ops = self.flow.backward(call.roots, end)
        siblings = set()
        for o in range(last.index - 1, -1, -1):  # the other results made at the same site
            if self.line_in(ops[o], call.file, call.function) != site:
                break
            if ops[o].extra.get("state"):
                continue  # a variable made or written there (built on first call): not a result
            siblings.update(w for w in ops[o].outputs if w not in left)
        for o in range(last.index + 1, end):
            op = ops[o]
            takes = siblings & set(op.inputs) and not left & set(op.inputs)
            if o in root_ops and takes and self.line_in(op, call.file, call.function) != site:
                return op, site
        return None

    # --- reads, optimizers -----------------------------------------------------------
    def non_leaf_reads(self, call: GradientCall) -> list[RunPair]:
        """`.grad` read on a tensor that is not a leaf, after this call and before the next."""
        calls = self.program.calls
        end = calls[call.index + 1].first_op if call.index + 1 < len(calls) else None
        pairs, seen = [], set()
        for op in self.program.ops[call.last_op : end]:
            if op.kind is not OpKind.READ_GRAD or not op.inputs or op.inputs[0] in seen:
                continue
            x = op.inputs[0]
            if self.program.values[x].leaf:
                continue
            seen.add(x)
            name = op.extra.get("name") or self.name(x)
            value = self.program.values[x]
            pair = RunPair(
                call.root_names[0] or "the output",
                name,
                Status.UNCONNECTED,
                _size(value.shape),
                _size(value.shape),
            )
            pair.causes = [self.non_leaf(x)]
            pair.causes[0].extra["read_line"] = op.line
            pair.reason = self.reason(pair)
            pairs.append(pair)
        return pairs

    def untrained_attributes(self, call: GradientCall) -> list[RunPair]:
        """Plain tensor attributes of a module (no Parameter, no buffer) the output uses."""
        found = {v: r for v, r in self.program.registered.items() if r.get("untrained")}
        if not found:
            return []
        used, _ = self.flow.backward(call.roots, call.first_op)
        pairs = []
        for vid in sorted(set(found) & used):
            value, info = self.program.values[vid], found[vid]
            size = _size(value.shape)
            name = self.program.names.get(vid) or self.name(vid)
            pair = RunPair(call.root_names[0] or "the output", name, Status.UNCONNECTED, size, size)
            cause = self.cause(K.NOT_REGISTERED, None, info["detail"], line=info["line"])
            cause.extra["fix"] = info["fix"]
            pair.causes = [cause]
            pair.reason = self.reason(pair)
            pairs.append(pair)
        return pairs

    def mark_stepped(self, pairs: list[tuple[int, RunPair]]) -> None:
        """Whether the optimizer steps that follow each call (the first ones after it, up to
        the next gradient call after them: gradients of several calls may accumulate into
        one step) hold each of its gradients."""
        calls = self.program.calls
        every = [(o, s) for o in self.program.optimizers for s in o.steps]
        for call in calls:
            after = [s["op"] for _, s in every if s["op"] >= call.last_op >= 0]
            if not after:
                continue
            first = min(after)
            end = next((c.first_op for c in calls if c.first_op > first), None)
            steps = [
                (o, s) for o, s in every if first <= s["op"] and (end is None or s["op"] < end)
            ]
            held = set().union(*(o.params for o, _ in steps))
            for k, pair in pairs:
                if k == call.index:
                    vid = next((g.value_id for g in call.gradients if g.name == pair.input), None)
                    pair.stepped = vid in held

    def optimizer_findings(self, pairs: list[tuple[int, RunPair]]) -> None:
        """zero_grad between backward and step; trained tensors no optimizer holds."""
        from gradcli.capture.optimizer_findings import add_findings

        add_findings(self, pairs)


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n

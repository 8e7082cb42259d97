"""A gradient call lowered to a core Problem over only what its tape recorded (see calls.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.core.evaluation import Evaluation
from gradcli.core.graph import CONST, CONST_OP, INPUT, INPUT_OP, Graph
from gradcli.core.ops import ZERO_GRAD, emit
from gradcli.core.ops.tape import TapeCause
from gradcli.core.problem import ZEROS, Problem, Source
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.tfcode.interpret import Interpreter
from gradcli.tfcode.support import _short
from gradcli.tfcode.unused_sources import DroppedSources
from gradcli.tfcode.values import Tape, Tensor, Variable

if TYPE_CHECKING:  # annotations only: calls.py imports this module
    from gradcli.tfcode.calls import GradientCall


class Lowering:
    """The program graph's part a call needs, as a fresh graph for one tape (see module doc)."""

    def __init__(self, it: Interpreter, tape: Tape | None, call: GradientCall, stops=()):
        self.it = it
        self.stops = set(stops)  # program nodes gradients stop at (their inputs get none)
        self.tape = tape
        self.call = call
        self.graph = Graph(it.file)
        self.memo: dict[int, int] = {}  # program node -> lowered node (what consumers see)
        self.back: dict[int, int] = {}  # lowered node -> program node (same value)
        self.positions: dict[str, Pos] = {}
        self.raises: list[dict] = []

    def build(self, targets, target_names, sources, names, seeds, mode) -> Problem:
        """The call's Problem: the program nodes the targets and sources need, copied into a
        fresh graph with a tape boundary wherever the tape did not record (one pass over the
        needed nodes in id order, kept whole so that the copy map stays in one place)."""
        it, g, L = self.it, self.it.g, self.graph
        source_of: dict[int, tuple[str, object]] = {}
        for value, name in zip(sources, names):
            gid = self._source_node(value, targets, name)
            if gid in source_of:  # the same tensor twice: TF gives both the same gradient
                continue
            source_of[gid] = (name, value)
        target_ids = [it.tensor_id(t, read=False) for t in targets]
        needed = self._needed([*target_ids, *source_of], source_of)
        live: set[int] = set()
        wrt_of: dict[int, int] = {}
        for i in range(len(needed)):
            if not needed[i]:
                continue
            n = g[i]
            if n.op in (INPUT_OP, CONST_OP):
                if i in source_of:
                    name, value = source_of[i]
                    lid = emit(L, INPUT_OP, (), {"value": n.attrs["value"]}, kind="input",
                               name=name, entry=name, pos=n.pos)  # fmt: skip
                    L.names[name] = lid
                    L.inputs.append(lid)
                    L.trainable.add(lid)
                    self.positions[name] = n.pos
                    live.add(lid)
                    wrt_of[i] = lid
                    self.back[lid] = i
                    self.memo[i] = self._unwatched(i, lid, name, value)
                    continue
                if i in it.stored and it.stored[i][0] in self.memo:
                    self.memo[i] = self._stored(i)
                    continue
                lid = emit(L, CONST_OP, (), {"value": n.attrs["value"]}, kind="const",
                           entry=n.entry, pos=n.pos)  # fmt: skip
            else:
                ins = tuple(self.memo[j] for j in n.inputs)
                attrs = dict(n.attrs)
                lid = emit(L, n.op, ins, attrs, entry=n.entry, pos=n.pos)
                if n.entry is not None and n.entry in it.labels:
                    self.positions.setdefault(n.entry, it.labels[n.entry])
                if (
                    i in it.notes
                    and it.notes[i][1] not in self.call.notes
                    and (any(k in live for k in ins) or not _needs_path(it.notes[i][0]))
                ):
                    if it.notes[i][0] is not None:
                        self.raises.append(_raised(it.notes[i][0], self.call.unconnected))
                    self.call.notes.append(it.notes[i][1])
                if any(k in live for k in ins):
                    live.add(lid)
            self.back[lid] = i
            use = lid
            if lid in live and self.tape is not None and n.op not in (INPUT_OP, CONST_OP):
                use = self._outside(i, lid)
            if i in self.stops:  # its consumers, and a source it is, see a stopped copy
                use = emit(L, "stop_gradient", (use,), None, entry=n.entry, pos=self.call.pos)
                self.back[use] = i
            if i in source_of:
                name = source_of[i][0]
                L[use].name = name
                L.names[name] = use
                self.positions[name] = n.pos
                live.add(use)
                wrt_of[i] = use
                use = self._unwatched(i, use, name, source_of[i][1])
            self.memo[i] = use
        outputs = []
        for tid, text in zip(target_ids, _unique(target_names, taken=set(L.names))):
            o = self.memo[tid]
            if L[o].name is not None or L[o].kind in (INPUT, CONST) or o in outputs:
                o = emit(L, "identity", (o,), None, entry=g[tid].entry, pos=g[tid].pos)
                self.back[o] = tid
            L[o].name = text
            L.names[text] = o
            self.positions.setdefault(text, g[tid].pos)
            outputs.append(o)
        if seeds is not None and len(seeds) != len(outputs):
            raise GradcliError(
                f"output_gradients has {len(seeds)} entries for {len(outputs)} targets",
                self.call.pos,
            )
        seed_list = [None] * len(outputs)
        for k, s in enumerate(seeds or []):
            node = L[outputs[k]]
            try:
                fits = np.broadcast_shapes(s.shape, node.shape) == node.shape
            except ValueError:
                fits = False
            if not fits:
                raise GradcliError(
                    f"output_gradients has shape {s.shape}, the target {node.shape}", self.call.pos
                )
            seed_list[k] = np.broadcast_to(s.astype(node.dtype), node.shape)
        self.forward_end = len(L)
        wrt = [wrt_of[gid] for gid in source_of]
        self.wrt_program = list(source_of)
        L.entries = list(outputs)
        source = Source(it.file, it.lines, self.positions, functions=dict(it.functions))
        sources = {x: n for x, (n, _) in source_of.items()}
        source.no_path = DroppedSources(it, sources, target_ids, self.tape)
        return Problem(self.call, L, outputs, wrt, seed_list, mode, source)

    def _needed(self, roots: list[int], source_of: dict) -> bytearray:
        """The program nodes the roots need, and the tensors copied into the variables they
        read (it.stored), so that the copy can be shown as where gradients stop."""
        g, stored = self.it.g, self.it.stored
        roots, seen = list(roots), set()
        while True:
            needed = g.ancestors(roots)
            more = [
                stored[i][0]
                for i in stored
                if i < len(needed) and needed[i] and i not in source_of and i not in seen
            ]
            if not more:
                return needed
            seen.update(i for i in stored if i < len(needed) and needed[i])
            roots += more

    def _stored(self, i: int) -> int:
        """A variable's value that is a copy of a tensor: the tensor through a boundary at
        the line that copied it (gradients stop there: TensorFlow has no path through it)."""
        it = self.it
        v, code, label = it.stored[i]
        n = it.g[i]
        detail = (
            f"{_short(code, 60)} writes a value into the variable {label}; reading {label} later "
            "starts afresh, so no gradient flows back through the write to what it was computed "
            f"from; differentiate with respect to {label}, or use the tensor itself"
        )
        summary = f"{_short(code, 40)}, a write into a variable"
        entry = label  # a later write into the same variable: an entry of its own line
        if label in self.positions and self.positions[label].line != n.pos.line:
            entry = f"{label}@{n.pos.line}"
        b = self._boundary(self.memo[v], TapeCause.STORED, detail, summary, entry, n.pos)
        self.positions.setdefault(entry, n.pos)
        self.back[b] = i
        if self.graph[b].dtype != n.dtype:  # the write converted it to the variable's dtype
            b = emit(self.graph, "cast", (b,), {"dtype": n.dtype}, entry=entry, pos=n.pos)
            self.back[b] = i
        return b

    def _source_node(self, value, targets, name) -> int:
        """The program node a source stands for (a variable: the version the target read)."""
        it = self.it
        if isinstance(value, Tensor):
            return value.id
        versions = value.versions
        if len(versions) == 1:
            return value.value
        ids = [it.tensor_id(t, read=False) for t in targets]
        anc = it.g.ancestors(ids)
        read = [v for v in versions if v < len(anc) and anc[v]]
        if len(read) > 1:
            raise GradcliError(
                f"the target reads {name} before and after it is assigned; gradcli's TensorFlow "
                "reader does not combine the reads of two values of one variable yet",
                self.call.pos,
            )
        return read[0] if read else value.value

    def _boundary(self, lid: int, cause: TapeCause, detail: str, summary: str, entry, pos) -> int:
        attrs = {"cause": cause.value, "detail": detail, "summary": summary}
        b = emit(self.graph, "tape_boundary", (lid,), attrs, entry=entry, pos=pos)
        self.back[b] = self.back[lid]
        return b

    def _unwatched(self, i: int, lid: int, name: str, value) -> int:
        """A source leaf the tape never watched: cut at its own line (not_watched)."""
        tape = self.tape
        if tape is None or i in tape.on:
            return lid
        line = self.it.g[i].pos.line
        entry, pos = name, self.it.g[i].pos
        if isinstance(value, Variable):
            if not value.trainable:
                made = "a tf.Variable with trainable=False"
                if getattr(value, "path", None):  # a Keras weight (tfcode/keras)
                    made = f"the Keras weight {value.path}, made with trainable=False"
                why = f"{name} is {made} (line {line}): the tape does not watch it"
                fix = f"make it trainable or call tape.watch({name})"
            elif not tape.watch_accessed:
                why = (f"the tape (line {tape.pos.line}) has watch_accessed_variables=False and "
                       f"never watches {name}")  # fmt: skip
                fix = f"call tape.watch({name}) inside the with block"
                entry, pos = tape.label, tape.pos  # the culprit is the tape's option
                self.positions.setdefault(entry, pos)
            else:
                return lid  # read outside the tape: the op that read it is the cut
            summary = f"{name}, which the tape never watches"
        elif self.it.g[i].op not in (INPUT_OP, CONST_OP):
            why = (
                f"{name} is a tensor computed at line {line}, which the tape did not record "
                "and never watched (a tf.Variable rebound to a tensor is no longer a variable)"
            )
            fix = f"call tape.watch({name}), or keep the tf.Variable and compute inside the tape"
            summary = f"{name}, which the tape never watches"
        else:
            why = f"{name} (line {line}) is a tensor the tape never watched"
            fix = f"call tape.watch({name}) inside the with block, or make it a tf.Variable"
            summary = f"{name}, which the tape never watches"
        return self._boundary(lid, TapeCause.NOT_WATCHED, f"{why}; {fix}", summary, entry, pos)

    def _outside(self, i: int, lid: int) -> int:
        """An op on watched values that the tape did not record: cut at its line (outside_tape)."""
        tape, g = self.tape, self.it.g
        if i in tape.on:
            return lid
        n = g[i]
        code = _short(self.it.lines[n.pos.line - 1].strip()) if n.pos else n.op
        if not tape.recording(i):
            if i >= tape.end:
                when = f"after the tape's with block ended (line {tape.end_line})"
            else:
                when = f"before the tape's with block began (line {tape.pos.line})"
            fix = "compute it inside the with block"
        else:
            late = [j for j in n.inputs if j in tape.on and tape.watched_at.get(j, -1) > i]
            if not late:
                return lid
            when = "before tape.watch made its input a watched tensor"
            fix = "call tape.watch first, then compute"
        detail = (
            f"line {n.pos.line}: {code} is computed {when}, so the tape did not record it; {fix}"
        )
        return self._boundary(
            lid,
            TapeCause.OUTSIDE_TAPE,
            detail,
            f"{_short(code, 40)}, computed outside the tape",
            n.entry,
            n.pos,
        )

    def copy_back(self, ev: Evaluation, node) -> list:
        """The gradients as program values: gradient nodes copied into the program graph
        (from the graph the evaluation built them in, a copy of the lowered one)."""
        it = self.it
        start = len(it.g)
        # the gradient's nodes read a traced call's inside as TensorFlow's gradient function
        # does: not uses of its unreturned tensors (tracing.leaked_input)
        leaked, it.leaked = it.leaked, {}
        try:
            return self._copy_back(ev, node)
        finally:  # gradient nodes: not uses of a source where no_path names one
            it.leaked = leaked
            it.gradient_nodes.update(range(start, len(it.g)))

    def _copy_back(self, ev: Evaluation, node) -> list:
        """copy_back's work (see there)."""
        it, L = self.it, ev.problem.graph
        results = []
        mapping = dict(self.back)
        want = [r for r in ev.grads.results if isinstance(r, int)]
        need = L.ancestors(want) if want else bytearray()
        for k in range(self.forward_end, len(need)):
            if not need[k] or k in mapping:
                continue
            n = L[k]
            if n.op == CONST_OP:
                mapping[k] = it.leaf(np.asarray(n.attrs["value"], dtype=n.dtype), node).id
                continue
            ins = [mapping[j] for j in n.inputs]
            mapping[k] = it.emit(n.op, ins, dict(n.attrs), node)
        for x, r in zip(self.problem_wrt(), ev.grads.results):
            xn = L[x]
            if r is None:
                if self.call.unconnected == ZEROS:
                    results.append(it.leaf(np.zeros(xn.shape, xn.dtype), node))
                else:
                    results.append(None)
            elif r is ZERO_GRAD:
                results.append(it.leaf(np.zeros(xn.shape, xn.dtype), node))
            else:
                gid = mapping[r]
                if it.g[gid].shape != xn.shape:
                    gid = it.emit("broadcast_to", [gid], {"shape": list(xn.shape)}, node)
                results.append(Tensor(gid))
        return results

    def problem_wrt(self) -> list[int]:
        return self.call.problem.wrt


def _raised(error: dict, unconnected) -> dict:
    """The error a note records, for the call's unconnected_gradients where it depends on it."""
    if "if_none" not in error:
        return error
    if unconnected == ZEROS:
        return {k: v for k, v in error.items() if k != "if_none"}
    return error["if_none"]


def _needs_path(error: dict | None) -> bool:
    """A LookupError (no registered gradient) is raised only for an op the gradient crosses:
    one whose inputs depend on the sources."""
    return error is not None and error["type"] == "LookupError"


# --- naming sources -------------------------------------------------------------------------


def _unique(names: list[str], taken: set | None = None) -> list[str]:
    seen = set(taken or ())
    out = []
    for n in names:
        name, k = n, 2
        while name in seen:
            name = f"{n} #{k}"
            k += 1
        seen.add(name)
        out.append(name)
    return out

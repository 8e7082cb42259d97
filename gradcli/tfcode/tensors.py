"""The interpreter's tensor half: API calls, graph nodes and dtype rules, tape methods."""

from __future__ import annotations

import ast
import math
import re
from collections import namedtuple
from functools import cache

import numpy as np

from gradcli.core.executor import resolve_conds, run
from gradcli.core.graph import FLOAT_DTYPES, INT_DTYPES, MAX_RANK
from gradcli.core.ops import REGISTRY, AttrKind, GradBuilder, const, emit
from gradcli.core.ops.registry import ShapeError
from gradcli.core.ops.tape import TapeCause
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import api_table as api
from gradcli.tfcode import keras
from gradcli.tfcode.builtins import LEAVE_FIX, SPECIAL
from gradcli.tfcode.drawn import Drawn, drawn_of, note_leaf
from gradcli.tfcode.packing import pack
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import (
    DTYPE_NAMES,
    Raises,
    Refused,
    _describe,
    _flatten,
    _is_tf,
    _kind,
    _operand_text,
    _plain,
    _python_dtype,
    _short,
    _what,
)
from gradcli.tfcode.tracing import leaked_input
from gradcli.tfcode.values import (
    NP,
    PY,
    TF,
    DType,
    Tape,
    Tensor,
    Unknown,
    Variable,
    first_opaque,
)

# ops TensorFlow registers no gradient for, where gradcli has one: a gradient call through
# them is TensorFlow's LookupError (the raw op's name)
NO_TF_GRADIENT = {"truncatemod": "TruncateMod"}


# what the core's shape and attribute checks raise on arguments they were not written for
UNREADABLE = (KeyError, TypeError, ValueError, IndexError, ArithmeticError, AttributeError,
               AssertionError)  # fmt: skip


class TensorMixin:
    """Methods of Interpreter that turn values into graph nodes (see interpret.py)."""

    # --- TensorFlow and NumPy functions ----------------------------------------------------
    def call_api(self, path: str, args, kwargs, node, scope):
        """A TensorFlow, Keras or NumPy function called; arguments its reading cannot take
        are refused at the call (never an internal error)."""
        try:
            return self._call_api(path, args, kwargs, node, scope)
        except UNREADABLE as exc:
            self.refuse(
                node,
                f"{path}(...) with these arguments",
                f"gradcli cannot read them: {type(exc).__name__}: {exc}"[:300],
            )

    def _call_api(self, path: str, args, kwargs, node, scope):
        if path.startswith("tf.compat.v1.") and path not in SPECIAL:  # TF1's aliases
            from gradcli.tfcode.tf1_graph import v1_alias

            path = v1_alias(path, lambda name: name in SPECIAL or api.lookup(name) is not None)
        handler = SPECIAL.get(path)
        if handler is not None:
            return handler(self, args, kwargs, node)
        result = keras.api_call(self, path, args, kwargs, node)
        if result is not keras.NOT_KERAS:
            return result
        row = api.lookup(path)
        if row is not None:
            return self.table_call(path, row, args, kwargs, node)
        if path in api.NOT_YET:
            self.refuse(
                node,
                path,
                f"it needs the op '{api.NOT_YET[path]}', which gradcli does not have yet",
            )
        if path.startswith("builtins."):
            self.refuse(node, f"the builtin {path.split('.', 1)[1]}()")
        self.refuse(node, path)

    def table_call(self, path: str, row: api.TFOp, args, kwargs, node):
        bound = {}
        if row.keyword_only and args:  # tf.raw_ops.X
            keys = list(row.params)
            python_name = re.sub(r"(?<!^)(?=[A-Z])", "_", path.rsplit(".", 1)[1]).lower()
            raise Raises(
                "TypeError",
                f"{python_name} only takes keyword args (possible keys: {keys}). "
                "Please pass these args as kwargs instead.",
                self.pos(node),
            )
        if len(args) > len(row.params):
            self.refuse(node, f"{path} with more than {len(row.params)} arguments")
        bound.update(zip(row.params, args))
        for k, v in kwargs.items():
            if k not in row.params:
                self.refuse(node, f"{path}(..., {k}=...)")
            bound[k] = v
        for p in row.ignored:
            bound.pop(p, None)
        missing = [p for p in row.tensors if p not in bound and p not in row.optional]
        if missing:
            self.refuse(node, f"{path} without its argument '{missing[0]}'")
        tensors = [bound.pop(p) for p in row.tensors if p in bound]
        if row.listed:
            if not isinstance(tensors[0], (list, tuple)):
                self.refuse(node, f"{path} of {_describe(tensors[0])} (give a list)")
            tensors = list(tensors[0])
        attrs = {}
        for param, (attr, default) in row.attrs.items():
            value = bound.pop(param, default)
            if value is None:
                continue
            attrs[attr] = self.attribute_value(path, attr, value, node)
        if bound:
            extra = next(iter(bound))
            if bound[extra] is not None and bound[extra] is not False:
                self.refuse(node, f"{path}(..., {extra}=...)")
        if path.startswith("np."):
            tensors = [
                self.leave(t, node, ast.unparse(node), path) if _is_tf(t) else t for t in tensors
            ]
            result = self.op_call(row.op, tensors, attrs, node)
            return Tensor(result.id, NP)
        if row.outputs is not None:  # tf.math.top_k: a namedtuple of several ops' results
            name, fields = row.outputs
            results = [self.op_call(op, tensors, attrs, node) for _, op in fields]
            return _named_tuple(name, tuple(f for f, _ in fields))(*results)
        result = self.op_call(row.op, tensors, attrs, node)
        if isinstance(result, list):  # a multi-output op: tf.split's list, moments' tuple
            return tuple(result) if row.as_tuple else result
        return Tensor(result.id, TF)

    def attribute_value(self, path, attr, value, node):
        """A Python constant (or an integer tensor's value) as the op's attribute `attr`,
        converted as the attribute's kind in the op's schema says."""
        kind = _attr_kind(path, attr)
        if isinstance(value, DType):
            return value.name
        if isinstance(value, str) and attr == "dtype":
            return DTYPE_NAMES.get(value) or self.refuse(node, f"the dtype {value!r}")
        if isinstance(value, bool):
            if kind is AttrKind.BOOL:
                return value
        elif isinstance(value, str):
            if kind in (AttrKind.STR, AttrKind.NUMBER_OR_STR):
                return value
        elif isinstance(value, int):
            return float(value) if kind in (AttrKind.FLOAT, AttrKind.NUMBER) else value
        elif isinstance(value, float):
            if kind in (AttrKind.NUMBER_OR_STR, AttrKind.NUMBER) or (
                kind is AttrKind.FLOAT and math.isfinite(value)
            ):
                return value
        elif isinstance(value, (list, tuple)) and _nested_ints(value):
            return _as_lists(value)
        elif isinstance(value, (Tensor, Variable)):
            v = self.value(self.tensor_id(value, read=False))
            if v.dtype.kind in "iu":
                return int(v) if v.ndim == 0 else [int(x) for x in v.reshape(-1)]
        self.refuse(node, f"{path}: {attr}={_describe(value)}", "give a Python constant")

    # --- tensors ---------------------------------------------------------------------------
    def tensor_id(self, value, read: bool = True) -> int:
        if isinstance(value, Tensor):
            return value.id
        if isinstance(value, Variable):
            if read:
                self.read_variable(value)
            return value.value
        raise AssertionError(value)

    def read_variable(self, var: Variable) -> None:
        """Reading a trainable variable inside a tape that watches accessed variables watches it
        (and a custom-gradient body's variable watcher sees it)."""
        if var.trainable and not self.quiet:
            for watcher in self.watchers:
                if not any(v is var for v in watcher):
                    watcher.append(var)
            for tape in self.tapes:
                if tape.watch_accessed and var.value not in tape.on:
                    tape.on.add(var.value)
                    tape.watched_at[var.value] = len(self.g)

    def _dtype(self, value) -> str:
        return self.g[self.tensor_id(value, read=False)].dtype

    def value(self, i: int) -> np.ndarray:
        if i not in self.values:
            resolve_conds(self.g, [i], self.values)
            self.values.update(run(self.g, [i], known=self.values, keep=True))
        arr = np.asarray(self.values[i], dtype=self.g[i].dtype)
        # numbers computed from gradcli's draws stay marked where they are copied (drawn.py)
        return arr.view(Drawn) if drawn_of(self, [i]) is not None else arr

    def emit(self, opname: str, inputs, attrs, node, record: bool = True) -> int:
        if self.leaked:
            leaked_input(self, inputs, node)
        out = emit(self.g, opname, tuple(inputs), attrs, entry=self.label, pos=self.pos(node))
        if record and not self.quiet:
            for tape in self.tapes:
                if any(i in tape.on for i in inputs):
                    tape.on.add(out)
        return out

    def leaf(self, value: np.ndarray, node, kind=TF) -> Tensor:
        """A new constant tensor (its own node: tape.watch needs its identity)."""
        drawn = isinstance(value, Drawn)
        value = value.view(np.ndarray) if drawn else value
        stored = float(value) if value.shape == () and value.dtype == np.float64 else value
        i = emit(
            self.g,
            "input",
            (),
            {"value": stored},
            kind="input",
            entry=self.label,
            pos=self.pos(node),
        )
        if drawn:
            note_leaf(self, i, value.view(Drawn))
        return Tensor(i, kind)

    def op_call(self, opname: str, operands: list, attrs: dict, node) -> Tensor | list[Tensor]:
        """Emit op(operands) with TensorFlow's dtype rules; returns the result tensor (a list
        of tensors for a multi-output op such as split). Arguments the op's schema cannot
        take (a required attribute left out, a list where it wants a number) are refused at
        the call: never an internal error (tests/tfcode/test_reader_fuzz.py)."""
        try:
            return self._op_call(opname, operands, attrs, node)
        except UNREADABLE as exc:
            self.refuse(
                node,
                f"{_what(node)} with these arguments",
                f"gradcli's {opname} cannot take them: {type(exc).__name__}: {exc}"[:300],
            )

    def _op_call(self, opname: str, operands: list, attrs: dict, node) -> Tensor | list[Tensor]:
        opaque = first_opaque(operands)
        if opaque is not None:  # computed from code gradcli does not read: unknown too
            return opaque
        for v in operands:
            if isinstance(v, Unknown):
                raise Refused()
            if not isinstance(v, (Tensor, Variable, int, float, bool, list, tuple, np.ndarray)):
                self.refuse(node, f"{opname} of {_describe(v)}")
        op = REGISTRY[opname]
        if op.accepts == "select":
            cond = self.convert([operands[0]], node, default="bool")[0]
            ids = [cond, *self.convert(operands[1:], node)]
        elif op.index_inputs:  # indices keep their own integer dtype (int32 by default)
            values = [j for j in range(len(operands)) if j not in op.index_inputs]
            converted = dict(zip(values, self.convert([operands[j] for j in values], node)))
            for j in op.index_inputs:
                converted[j] = self.convert([operands[j]], node, default="int32")[0]
            ids = [converted[j] for j in range(len(operands))]
        else:
            ids = self.convert(operands, node)
        keyed = [a for a in op.attrs if a.kind is AttrKind.TENSOR]
        if keyed and op.arity is not None and ids and len(ids) < op.arity:
            # a tensor parameter left out (tf.nn.silu's beta): its default, in the dtype of
            # the first tensor (TensorFlow converts it to that dtype)
            dtype = self.g[ids[0]].dtype
            for attr in keyed[len(ids) - op.arity :]:
                ids.append(const(self.g, attr.default, dtype))
        if op.accepts == "float":
            for i in ids:
                if self.g[i].dtype not in FLOAT_DTYPES:
                    # TensorFlow computes some on integers (reduce_mean: an integer mean),
                    # raises on others: gradcli reads these ops on float tensors only
                    self.refuse(
                        node,
                        f"{_what(node)} on {self.g[i].dtype} tensors",
                        "gradcli reads it on float tensors only",
                    )
        kinds = {_kind(v) for v in operands if isinstance(v, (Tensor, Variable))}
        kind = TF if TF in kinds or not kinds else (NP if NP in kinds else PY)
        if op.unpack is not None:
            try:
                outs = op.unpack(_Outputs(self, node), attrs, *ids)
            except ShapeError as exc:
                raise GradcliError(f"{_what(node)}: {exc.message}", self.pos(node)) from None
            if isinstance(outs, int):  # one output for these attributes (svd's values)
                return Tensor(outs, kind)
            return [Tensor(i, kind) for i in outs]
        out = self.emit(opname, ids, attrs, node)
        if opname in NO_TF_GRADIENT and any(self.g[i].dtype in FLOAT_DTYPES for i in ids):
            raw = NO_TF_GRADIENT[opname]
            self.notes[out] = (
                {"type": "LookupError", "message": f"gradient registry has no entry for: {raw}"},
                f"TensorFlow raises LookupError in tape.gradient here: it registers no "
                f"gradient for {raw} (gradcli's {opname} has one: g to x, -g * trunc(x / y) "
                "to y)",
            )
        return Tensor(out, kind)

    def convert(self, operands: list, node, default: str | None = None) -> list[int]:
        """Node ids for operands: tensors keep their dtype, Python values take the dtype of the
        TensorFlow tensors they meet (NumPy arrays too), else TensorFlow's default."""
        # a list holding tensors is packed as TensorFlow does (tf.stack): one tensor
        operands = [pack(self, v, node, numpy=False) or v for v in operands]
        tf_dtypes = [
            self._dtype(v) for v in operands if isinstance(v, (Tensor, Variable)) and _kind(v) == TF
        ]
        other = [self._dtype(v) for v in operands if isinstance(v, Tensor) and v.kind != TF]
        distinct = list(dict.fromkeys(tf_dtypes))
        if len(distinct) > 1:
            raise GradcliError(
                f"{_what(node)}: {' and '.join(distinct)} tensors meet (TensorFlow raises "
                "InvalidArgumentError); convert one with tf.cast",
                self.pos(node),
            )
        target = distinct[0] if distinct else (other[0] if other else None)
        if target is None:
            target = default or _python_dtype([v for v in operands])
        ids = []
        for v in operands:
            if isinstance(v, (Tensor, Variable)):
                i = self.tensor_id(v)
                if self.g[i].dtype != target:
                    if _kind(v) == TF:
                        met = f"{_what(node)}: {self.g[i].dtype} and {target} tensors meeting"
                        self.refuse(node, met, UNRECORDED)
                    i = self.emit("cast", [i], {"dtype": target}, node)
                ids.append(i)
            else:
                arr = self.python_array(v, node)
                if target in INT_DTYPES and not np.all(np.round(arr) == arr):
                    # TensorFlow raises (InvalidArgumentError for a + 1.5, other errors
                    # elsewhere): not claimed, refused
                    self.refuse(
                        node,
                        f"{_what(node)}: {v!r} meeting a {target} tensor",
                        "it is not a whole number; cast one with tf.cast",
                    )
                ids.append(const(self.g, arr, target, entry=self.label, pos=self.pos(node)))
        return ids

    def python_array(self, v, node) -> np.ndarray:
        try:
            arr = np.array(_plain(self, v, node))
        except (ValueError, TypeError):
            self.refuse(node, f"the value {_describe(v)} as a tensor")
        if arr.dtype == object or arr.dtype.kind not in "biuf":
            self.refuse(node, f"the value {_describe(v)} as a tensor")
        return arr

    def leave(self, value, node, code: str, how: str, what: str | None = None) -> Tensor:
        """A tensor turned into NumPy or Python (.numpy(), np.*, float()): leaves_tape (what
        names the operand in the explanation, the call's first argument by default)."""
        if not isinstance(value, (Tensor, Variable)):
            return value
        i = self.tensor_id(value)
        if isinstance(value, Tensor) and value.kind != TF:
            return value
        if how != "numpy_function" and self.symbolic(value):
            self.symbolic_error(i, node, how)
        name = self.g[i].name or _short(code)
        fix = LEAVE_FIX.get(how, "keep the computation in TensorFlow ops (tf.*)")
        attrs = {
            "cause": TapeCause.LEAVES_TAPE.value,
            "detail": f"{code} turns {what or _operand_text(node)} into a NumPy/Python value; "
            f"the tape cannot see through it; {fix}",
            "summary": f"{_short(code)}, which leaves TensorFlow",
        }
        del name
        out = self.emit("tape_boundary", [i], attrs, node, record=False)
        return Tensor(out, PY if how in ("float", "int", "item", "tolist") else NP)

    def symbolic(self, value) -> bool:
        """True for a tensor TensorFlow holds as a graph tensor: made inside a @tf.function
        being traced, or passed to it."""
        if not self.tracing or not isinstance(value, Tensor) or value.kind != TF:
            return False
        return any(t.symbolic(value.id) for t in self.tracing)

    def symbolic_error(self, i: int, node, how: str):
        """What TensorFlow raises when a traced (symbolic) tensor is asked for its value."""
        fn = self.tracing[-1].fn
        note = (
            f"inside @tf.function {fn.name} (line {fn.pos.line}) TensorFlow traces a graph and "
            f"its tensors have no value; outside it, {_short(ast.unparse(node), 40)} would "
            "leave the tape (leaves_tape): keep the computation in TensorFlow ops"
        )
        if how in ("numpy", "item", "tolist"):
            message = f"'SymbolicTensor' object has no attribute '{how}'"
            raise Raises("AttributeError", message, self.pos(node), note)
        # TensorFlow 2.21 raises NotImplementedError "Cannot convert a symbolic tf.Tensor
        # (NAME:0) to a numpy array" (tf_errors.json), NAME being TensorFlow's graph name
        # (args_0 in a Dataset.map), which the reader does not know: refused, naming the type
        self.refuse(
            node,
            f"{how} of a traced (symbolic) tensor",
            "TensorFlow raises NotImplementedError: Cannot convert a symbolic tf.Tensor to a "
            f"numpy array; {note}",
        )

    # --- tapes -----------------------------------------------------------------------------
    def tape_method(self, tape: Tape, name: str, args, kwargs, node):
        if self.tracing and self.tracing[-1] is not tape.trace:
            self.refuse(
                node,
                f"tape.{name} inside @tf.function {self.tracing[-1].fn.name} of a tape made "
                "outside it",
                "TensorFlow's tape there sees the traced graph's tensors, not the ones outside",
            )
        if name == "watch":
            for v in _flatten(args[0] if args else kwargs.get("tensor")):
                if isinstance(v, (Tensor, Variable)):
                    i = self.tensor_id(v, read=False)
                    if i not in tape.on:
                        tape.on.add(i)
                        tape.watched_at[i] = len(self.g)
                elif not isinstance(v, Unknown):
                    self.refuse(node, f"tape.watch of {_describe(v)}")
            return None
        if name == "gradient":
            from gradcli.tfcode.calls import gradient_call

            return gradient_call(self, tape, node, args, kwargs)
        if name in ("jacobian", "batch_jacobian"):
            from gradcli.tfcode.jacobian_calls import jacobian_call

            return jacobian_call(self, tape, node, args, kwargs, name == "batch_jacobian")
        if name == "reset":
            tape.on.clear()
            return None
        self.refuse(node, f"tape.{name}", "not read yet")

    def assign_variable(self, var: Variable, name: str, args, kwargs, node):
        if name.startswith("scatter"):
            from gradcli.tfcode.tf1 import scatter_method

            return scatter_method(self, var, name, args, kwargs, node)
        value = args[0] if args else kwargs.get("value")
        opaque = first_opaque([value])
        if opaque is not None:
            self.refuse(
                node,
                f"assigning {opaque.what} (line {opaque.line}) to a variable",
                "gradcli does not read that code, so later reads could not be known",
            )
        if isinstance(value, Unknown):
            raise Refused()
        new = self.as_array(value, node, self.g[var.value].dtype)
        if name != "assign":
            old = self.value(var.value)
            new = (old + new if name == "assign_add" else old - new).astype(old.dtype)
        if new.shape != tuple(self.g[var.value].shape):
            raise GradcliError(
                f"{var.label}.{name}: shape {new.shape} does not match the variable's shape "
                f"{tuple(self.g[var.value].shape)}",
                self.pos(node),
            )
        old = var.value
        update = None
        if name != "assign" and isinstance(value, (Tensor, Variable)) and _kind(value) == TF:
            # the update as a node no tape records, made before the new value: a copy of it
            # is where gradients stop (store)
            ids = [old, self.tensor_id(value, read=False)]
            if self.g[ids[1]].dtype == self.g[old].dtype:
                op = "add" if name == "assign_add" else "sub"
                update = Tensor(self.emit(op, ids, {}, node, record=False))
        var.value = self.leaf(new, node).id
        var.versions.append(var.value)
        # a value computed from values an update gradcli does not compute changed is stale too
        self.keep_stale(var.value, [value] if name == "assign" else [value, Tensor(old)])
        if name == "assign":
            self.store(var.value, value, ast.unparse(node), var.label)
        elif update is not None:
            self.store(var.value, update, ast.unparse(node), var.label)
        return var

    def stale_line(self, values) -> int | None:
        """The line of an update gradcli does not compute (Interpreter.updated) that one of
        the tensors among `values` was computed from, or None."""
        if not self.updated:
            return None
        stack = [self.tensor_id(v, read=False) for v in _flatten(list(values))
                 if isinstance(v, (Tensor, Variable))]  # fmt: skip
        seen: set[int] = set()
        while stack:  # the ancestry, iteratively (long chains)
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            if i in self.updated:
                return self.updated[i]
            stack.extend(self.g[i].inputs)
        return None

    def keep_stale(self, leaf: int, values) -> None:
        """A new value leaf (a variable's) made from stale values is stale itself."""
        line = self.stale_line(values)
        if line is not None:
            self.updated.setdefault(leaf, line)

    def store(self, leaf: int, value, code: str, label: str) -> None:
        """Remember that a variable's value leaf holds a copy of a TensorFlow tensor (same
        shape): gradients stop there, and the lowering says where (no_path)."""
        if not isinstance(value, (Tensor, Variable)):
            return  # a NumPy value made from a tensor (.numpy()) is kept: its cut shows
        i = self.tensor_id(value, read=False)
        if self.g[i].shape != self.g[leaf].shape:
            return
        # (another dtype: assign converts it; the lowering casts the copy back)
        self.stored[leaf] = (i, code, label)

    def as_array(self, value, node, dtype: str | None = None) -> np.ndarray:
        """The concrete value of a tensor or Python value (for variables and constants)."""
        if isinstance(value, (Tensor, Variable)):
            arr = self.value(self.tensor_id(value, read=False))
        else:
            arr = self.python_array(value, node)
            if dtype is None:
                dtype = _python_dtype([value])
        if dtype is not None and arr.dtype != np.dtype(dtype):
            if (
                np.dtype(dtype).kind in "iu"
                and arr.dtype.kind == "f"
                and not np.all(np.round(arr) == arr)
            ):
                raise GradcliError(
                    f"{_what(node)}: cannot convert {value!r} to {dtype}", self.pos(node)
                )
            with np.errstate(over="ignore"):
                arr = arr.astype(dtype)
        return arr


class _Outputs(GradBuilder):
    """Emits a multi-output op's nodes through the interpreter (its tapes record them)."""

    def __init__(self, it, node):
        super().__init__(it.g)
        self.it, self.at = it, node

    def emit(self, opname: str, *inputs: int, **attrs) -> int:
        return self.it.emit(opname, inputs, attrs, self.at)


@cache
def _named_tuple(name: str, fields: tuple[str, ...]):
    """TensorFlow's namedtuple result type (TopKV2(values, indices))."""
    return namedtuple(name, fields)


def _attr_kind(path: str, attr: str) -> AttrKind | None:
    """The kind of attribute `attr` of the op the table maps `path` to (None: not in it)."""
    row = api.lookup(path)
    op = REGISTRY.get(row.op) if row is not None else None
    for a in op.attrs if op is not None else ():
        if a.name == attr:
            return a.kind
    return None


def _nested_ints(value) -> bool:
    """Integers, or lists/tuples of them nested at most MAX_RANK deep (paddings [[1, 1],
    [2, 0]]), bools excluded."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (list, tuple)):
            if depth >= MAX_RANK:
                return False
            stack.extend((item, depth + 1) for item in v)
        elif not isinstance(v, int) or isinstance(v, bool):
            return False
    return True


def _as_lists(value):
    """Nested tuples as nested lists (the attribute values the lowerer would give)."""
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    return value

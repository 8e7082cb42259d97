"""The abstract interpreter: walks a TensorFlow program's statements in order, without running
any of it, building one program graph and recording what each GradientTape sees.

Values are Python constants, NumPy or TensorFlow tensors (nodes of the program graph) or the
records of values.py. Each tensor op is emitted into the program graph with its .py position;
each tape keeps the set of nodes it recorded or watches (TensorFlow records an op on an active
tape when one of its inputs is watched). A gradient call lowers the target's part of the graph
into a core Problem for that tape (calls.py), evaluates it, and puts the gradient nodes back
into the program graph, so outer tapes see them (second derivatives).
"""

from __future__ import annotations

import ast
import contextlib
import math

import numpy as np

from gradcli.core.executor import resolve_conds, run
from gradcli.core.graph import FLOAT_DTYPES, INT_DTYPES, Graph
from gradcli.core.ops import REGISTRY, const, emit
from gradcli.core.ops.shapes import TapeCause
from gradcli.runtime.errors import GradcliError, Pos
from gradcli.tfcode import api
from gradcli.tfcode.refusals import EXPRESSIONS, STATEMENTS, SUFFIX, Refusals, pos_of
from gradcli.tfcode.values import (
    NP,
    PY,
    TF,
    UNKNOWN,
    DType,
    Function,
    Method,
    Module,
    Session,
    Tape,
    Tensor,
    Unknown,
    Variable,
)

DTYPE_NAMES = {
    "float32": "float32", "float64": "float64", "double": "float64", "int32": "int32",
    "int64": "int64", "bool": "bool", "float": "float64", "int": "int64",
}  # fmt: skip
MAX_CALL_DEPTH = 60  # helpers inlined inside helpers
MAX_RANGE = 1_000_000  # iterations of one for loop
MAX_STEPS = 5_000_000  # statements interpreted in all
TAPE_CLASS = ("tf.GradientTape",)


class Refused(Exception):
    """A construct outside the subset: recorded; the statement's result is unknown."""


class Stop(Exception):
    """The program stops here, as TensorFlow's would (it raised)."""


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class Scope:
    """Python names: a function's frame chained to the scope it was defined in."""

    def __init__(self, parent: Scope | None = None):
        self.vars: dict = {}
        self.parent = parent

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        raise KeyError(name)


class Interpreter:
    def __init__(self, file: str, lines: list[str], feeds: dict | None = None):
        self.file = file
        self.lines = lines
        self.g = Graph(file)
        self.refusals = Refusals(file)
        self.values: dict = {}
        self.tapes: list[Tape] = []  # active (with block open), innermost last
        self.all_tapes = 0
        self.calls: list = []
        self.graph_mode = False
        self.feeds = feeds or {}
        self.label = "expr"
        self.labels: dict[str, Pos] = {}  # entry label -> position of its statement
        self.target_name: str | None = None  # the name a statement assigns to (labels)
        self.depth = 0
        self.steps = 0
        self.notes: dict[int, str] = {}  # cond node -> note (TF raises in tape.gradient)
        self.rng = np.random.default_rng(0)
        self.globals = Scope()

    # --- running ------------------------------------------------------------------------
    def run_module(self, tree: ast.Module) -> None:
        try:
            self.block(tree.body, self.globals)
        except Stop:
            pass
        except _Return:
            pass

    def block(self, stmts, scope: Scope) -> None:
        for stmt in stmts:
            self.steps += 1
            if self.steps > MAX_STEPS:
                self.refusals.unsupported(stmt, f"more than {MAX_STEPS:,} statements")
                raise Stop()
            with contextlib.suppress(Refused):  # recorded; the next statement is read
                self.statement(stmt, scope)

    def refuse(self, node, construct: str, hint: str = ""):
        self.refusals.unsupported(node, construct, hint)
        raise Refused()

    def pos(self, node) -> Pos:
        return pos_of(self.file, node)

    def set_label(self, stmt) -> None:
        """The entry label of the nodes a statement emits: the name it assigns, @line if reused."""
        name = None
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            name = ast.unparse(target)
        label = name or f"line {stmt.lineno}"
        pos = self.pos(stmt)
        if label in self.labels and self.labels[label].line != pos.line:
            label = f"{label}@{pos.line}"
        self.labels.setdefault(label, pos)
        self.label = label
        self.target_name = name

    # --- statements ---------------------------------------------------------------------
    def statement(self, stmt, scope: Scope) -> None:
        kind = type(stmt)
        if kind in (ast.Import, ast.ImportFrom):
            return self.import_(stmt, scope)
        if kind in STATEMENTS:
            self.refuse(stmt, STATEMENTS[kind])
        if kind is ast.Expr:
            if isinstance(stmt.value, ast.Constant):
                return  # a docstring
            self.set_label(stmt)
            self.expr(stmt.value, scope)
            return
        if kind is ast.Assign:
            self.set_label(stmt)
            value = self.expr(stmt.value, scope)
            for target in stmt.targets:
                self.assign(target, value, scope)
            return
        if kind is ast.AnnAssign:
            if stmt.value is not None:
                self.set_label(stmt)
                self.assign(stmt.target, self.expr(stmt.value, scope), scope)
            return
        if kind is ast.AugAssign:
            self.set_label(stmt)
            load = _as_load(stmt.target)
            value = self.binop(stmt.op, self.expr(load, scope), self.expr(stmt.value, scope), stmt)
            self.assign(stmt.target, value, scope)
            return
        if kind is ast.If:
            test = self.truth(self.expr(stmt.test, scope), stmt.test)
            self.block(stmt.body if test else stmt.orelse, scope)
            return
        if kind is ast.For:
            return self.for_(stmt, scope)
        if kind is ast.With:
            return self.with_(stmt, scope)
        if kind is ast.FunctionDef:
            return self.define(stmt, scope)
        if kind is ast.Return:
            raise _Return(None if stmt.value is None else self.expr(stmt.value, scope))
        if kind in (ast.Pass, ast.Delete, ast.Assert):
            return
        self.refuse(stmt, type(stmt).__name__)

    def import_(self, stmt, scope: Scope) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                top = alias.name.split(".")[0]
                if top not in ("tensorflow", "numpy"):  # refused by the scan; never imported
                    scope.vars[alias.asname or top] = Module("!" + alias.name)
                    continue
                path = _module_path(alias.name)
                if alias.asname:
                    scope.vars[alias.asname] = Module(path)
                else:
                    scope.vars[top] = Module(_module_path(top))
            return
        module = stmt.module or ""
        if module.split(".")[0] not in ("tensorflow", "numpy") or stmt.level:
            raise Refused()
        for alias in stmt.names:
            if alias.name == "*":
                self.refuse(stmt, "from ... import *")
            scope.vars[alias.asname or alias.name] = Module(f"{_module_path(module)}.{alias.name}")

    def assign(self, target, value, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Variable) and value.label.startswith("<"):
                value.label = target.id
            scope.vars[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Unknown):
                for t in target.elts:
                    self.assign(t, UNKNOWN, scope)
                return
            items = self.iterate(value, target)
            if len(items) != len(target.elts):
                self.refuse(target, f"unpacking {len(items)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, items):
                self.assign(t, v, scope)
            return
        if isinstance(target, ast.Subscript):
            container = self.expr(target.value, scope)
            key = self.expr(target.slice, scope)
            if isinstance(container, dict):
                container[_key(key)] = value
                return
            if isinstance(container, list) and isinstance(key, int):
                container[key] = value
                return
            self.refuse(target, "assigning into a tensor (tensors are immutable in TensorFlow)")
        self.refuse(target, f"assigning to {ast.unparse(target)}")

    def for_(self, stmt: ast.For, scope: Scope) -> None:
        if stmt.orelse:
            self.refuse(stmt, "for ... else")
        items = self.iterate(self.expr(stmt.iter, scope), stmt.iter)
        for item in items:
            self.assign(stmt.target, item, scope)
            self.block(stmt.body, scope)

    def iterate(self, value, node) -> list:
        if isinstance(value, (list, tuple)):
            return list(value)
        if isinstance(value, range):
            if len(value) > MAX_RANGE:
                self.refuse(node, f"a loop of {len(value):,} iterations (at most {MAX_RANGE:,})")
            return list(value)
        if isinstance(value, dict):
            return list(value)
        if isinstance(value, Unknown):
            raise Refused()
        self.refuse(node, f"iterating over {_describe(value)}")

    def with_(self, stmt: ast.With, scope: Scope) -> None:
        entered = []
        for item in stmt.items:
            value = self.expr(item.context_expr, scope)
            if isinstance(value, Tape):
                if isinstance(item.optional_vars, ast.Name):
                    value.label = item.optional_vars.id
                value.start = len(self.g)
                value.end = float("inf")
                value.active = True
                self.tapes.append(value)
                entered.append(value)
            elif not isinstance(value, Session):
                self.refuse(item.context_expr, f"with {ast.unparse(item.context_expr)}")
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, scope)
        try:
            self.block(stmt.body, scope)
        finally:
            for tape in entered:
                tape.end = len(self.g)
                tape.end_line = stmt.end_lineno
                tape.active = False
                self.tapes.remove(tape)

    def define(self, stmt: ast.FunctionDef, scope: Scope) -> None:
        custom = False
        for dec in stmt.decorator_list:
            name = self.dotted(dec, scope)
            if name == "tf.custom_gradient":
                custom = True
                self.refuse(dec, "@tf.custom_gradient", "not read yet; next milestone")
            else:
                self.refuse(dec, f"the decorator @{ast.unparse(dec)}")
        fn = Function(stmt.name, stmt.args, stmt.body, scope, self.pos(stmt), custom)
        self._check_args(stmt.args, stmt)
        fn.defaults = [self.expr(d, scope) for d in stmt.args.defaults]
        fn.kw_defaults = [None if d is None else self.expr(d, scope) for d in stmt.args.kw_defaults]
        scope.vars[stmt.name] = fn

    def _check_args(self, args: ast.arguments, node) -> None:
        if args.vararg or args.kwarg:
            self.refuse(node, "*args and **kwargs parameters")
        if args.posonlyargs:
            self.refuse(node, "positional-only parameters")

    def dotted(self, node, scope: Scope) -> str | None:
        """The dotted name of an expression that evaluates to a module attribute, else None."""
        try:
            value = self.expr(node, scope)
        except Refused:
            return None
        return value.path if isinstance(value, Module) else None

    # --- expressions --------------------------------------------------------------------
    def expr(self, node, scope: Scope):
        kind = type(node)
        if kind is ast.Constant:
            if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
                self.refuse(node, f"the constant {ast.unparse(node)}")
            return node.value
        if kind is ast.Name:
            try:
                return scope.lookup(node.id)
            except KeyError:
                if node.id in BUILTINS:
                    return Module(f"builtins.{node.id}")
                self.refuse(node, f"the name '{node.id}' (not defined before this line)")
        if kind is ast.Attribute:
            return self.attribute(node, self.expr(node.value, scope))
        if kind is ast.Call:
            return self.call(node, scope)
        if kind is ast.BinOp:
            return self.binop(
                node.op, self.expr(node.left, scope), self.expr(node.right, scope), node
            )
        if kind is ast.UnaryOp:
            return self.unary(node, self.expr(node.operand, scope))
        if kind is ast.Compare:
            return self.compare(node, scope)
        if kind is ast.BoolOp:
            values = [self.expr(v, scope) for v in node.values]
            truths = [self.truth(v, n) for v, n in zip(values, node.values)]
            return all(truths) if isinstance(node.op, ast.And) else any(truths)
        if kind in (ast.List, ast.Tuple):
            items = [self.expr(e, scope) for e in node.elts]
            return items if kind is ast.List else tuple(items)
        if kind is ast.Dict:
            if any(k is None for k in node.keys):
                self.refuse(node, "**-unpacking in a dict")
            return {
                _key(self.expr(k, scope)): self.expr(v, scope)
                for k, v in zip(node.keys, node.values)
            }
        if kind is ast.Subscript:
            return self.subscript(node, self.expr(node.value, scope), self.expr(node.slice, scope))
        if kind is ast.Slice:
            parts = [
                None if p is None else self.expr(p, scope)
                for p in (node.lower, node.upper, node.step)
            ]
            if not all(p is None or isinstance(p, int) for p in parts):
                self.refuse(node, "a slice bound that is not a Python integer")
            return slice(*parts)
        if kind is ast.Lambda:
            body = [ast.Return(value=node.body, lineno=node.lineno, col_offset=node.col_offset)]
            self._check_args(node.args, node)
            fn = Function("<lambda>", node.args, body, scope, self.pos(node))
            fn.defaults = [self.expr(d, scope) for d in node.args.defaults]
            fn.kw_defaults = [
                None if d is None else self.expr(d, scope) for d in node.args.kw_defaults
            ]
            return fn
        if kind is ast.IfExp:
            test = self.truth(self.expr(node.test, scope), node.test)
            return self.expr(node.body if test else node.orelse, scope)
        if kind is ast.JoinedStr:
            return ""  # f-strings only feed print, which is ignored
        if kind in EXPRESSIONS:
            self.refuse(node, EXPRESSIONS[kind])
        self.refuse(node, type(node).__name__)

    def truth(self, value, node) -> bool:
        if isinstance(value, (bool, int, float, str, type(None), list, tuple, dict)):
            return bool(value)
        if isinstance(value, (Tensor, Variable)):
            i = self.tensor_id(value)
            v = self.value(i)
            if v.size != 1:
                self.refuse(node, "the truth value of a tensor with more than one element")
            return bool(v.reshape(()))
        if isinstance(value, Unknown):
            raise Refused()
        return True

    def attribute(self, node: ast.Attribute, obj):
        name = node.attr
        if isinstance(obj, Unknown):
            raise Refused()
        if isinstance(obj, Module):
            path = f"{obj.path}.{name}"
            if path.startswith("!"):
                self.refuse(node, f"{path[1:]} (a module gradcli never imports: nothing is run)")
            if path.startswith("builtins."):
                self.refuse(node, path)
            dtype = _dtype_of_path(path)
            if dtype is not None:
                return DType(dtype)
            if path in ("tf.UnconnectedGradients.ZERO", "tf.UnconnectedGradients.NONE"):
                return name.lower()
            if path == "tf.newaxis" or path == "np.newaxis":
                return None
            if path in ("np.pi", "np.e", "np.inf", "np.nan"):
                return getattr(math, name)
            return Module(path)
        if isinstance(obj, (Tensor, Variable)):
            if name == "shape":
                return tuple(self.g[self.tensor_id(obj, read=False)].shape)
            if name == "dtype":
                return DType(self.g[self.tensor_id(obj, read=False)].dtype)
            if name == "ndim":
                return len(self.g[self.tensor_id(obj, read=False)].shape)
            if name == "T":
                return self.op_call("transpose", [obj], {}, node)
            if isinstance(obj, Variable) and name == "trainable":
                return obj.trainable
            if isinstance(obj, Variable) and name == "name":
                return f"{obj.tf_name or 'Variable'}:0"
            if name in TENSOR_METHODS or (isinstance(obj, Variable) and name in VARIABLE_METHODS):
                return Method(obj, name)
            self.refuse(node, f"the tensor attribute .{name}")
        if isinstance(obj, Tape):
            if name in ("gradient", "watch", "jacobian", "reset", "watched_variables"):
                return Method(obj, name)
            self.refuse(node, f"tape.{name}")
        if isinstance(obj, Session):
            if name in ("run", "close"):
                return Method(obj, name)
            self.refuse(node, f"Session.{name}")
        if isinstance(obj, dict) and name in ("items", "keys", "values", "get"):
            return Method(obj, name)
        if isinstance(obj, list) and name == "append":
            return Method(obj, name)
        if isinstance(obj, DType) and name in ("name", "is_floating"):
            return obj.name if name == "name" else obj.name in FLOAT_DTYPES
        self.refuse(node, f"the attribute .{name} of {_describe(obj)}")

    def subscript(self, node, value, key):
        if isinstance(value, Unknown) or isinstance(key, Unknown):
            raise Refused()
        if isinstance(value, (list, tuple, dict, str)):
            try:
                return value[_key(key)] if isinstance(value, dict) else value[key]
            except (KeyError, IndexError, TypeError) as exc:
                raise GradcliError(f"{type(exc).__name__}: {exc}", self.pos(node)) from None
        if isinstance(value, (Tensor, Variable)):
            items = key if isinstance(key, tuple) else (key,)
            index = []
            for item in items:
                if isinstance(item, bool) or not isinstance(item, (int, slice)):
                    self.refuse(node, f"indexing a tensor with {_describe(item)}")
                index.append(item)
            i = self.tensor_id(value)
            out = self.emit("getitem", [i], {"index": tuple(index)}, node)
            return Tensor(out, _kind(value))
        self.refuse(node, f"indexing {_describe(value)}")

    # --- operators ----------------------------------------------------------------------
    def binop(self, op, left, right, node):
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            raise Refused()
        name = BINOPS.get(type(op))
        if _is_python(left) and _is_python(right):
            return self.python_binop(op, left, right, node)
        if name is None:
            self.refuse(node, f"the operator {type(op).__name__} on tensors")
        if name == "div":
            dtypes = [self._dtype(v) for v in (left, right) if isinstance(v, (Tensor, Variable))]
            if dtypes and all(d in INT_DTYPES for d in dtypes):  # TF: int / int is float64
                left, right = (
                    self.op_call("cast", [v], {"dtype": "float64"}, node)
                    if isinstance(v, (Tensor, Variable))
                    else float(v)
                    for v in (left, right)
                )
        return self.op_call(name, [left, right], {}, node)

    def python_binop(self, op, a, b, node):
        if not all(isinstance(v, (int, float, bool, str, list, tuple)) for v in (a, b)):
            self.refuse(
                node, f"the operator {type(op).__name__} on {_describe(a)} and {_describe(b)}"
            )
        fn = PYOPS.get(type(op))
        if fn is None:
            self.refuse(node, f"the operator {type(op).__name__}")
        if isinstance(op, ast.Pow) and isinstance(b, (int, float)) and abs(b) > 4096:
            self.refuse(node, "a Python power with an exponent above 4096")
        if (isinstance(op, ast.Mult) and isinstance(a, (str, list, tuple))) or (
            isinstance(b, (str, list, tuple)) and isinstance(op, ast.Mult)
        ):
            self.refuse(node, "repeating a sequence with *")
        try:
            return fn(a, b)
        except (ZeroDivisionError, TypeError, OverflowError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", self.pos(node)) from None

    def unary(self, node: ast.UnaryOp, value):
        if isinstance(value, Unknown):
            raise Refused()
        if isinstance(node.op, ast.Not):
            return not self.truth(value, node)
        if _is_python(value):
            if not isinstance(value, (int, float)):
                self.refuse(node, f"a unary operator on {_describe(value)}")
            return -value if isinstance(node.op, ast.USub) else +value
        if isinstance(node.op, ast.USub):
            return self.op_call("neg", [value], {}, node)
        if isinstance(node.op, ast.UAdd):
            return value
        self.refuse(node, f"the operator {type(node.op).__name__} on tensors")

    def compare(self, node: ast.Compare, scope: Scope):
        if len(node.ops) != 1:
            self.refuse(node, "a chained comparison")
        op = node.ops[0]
        left, right = self.expr(node.left, scope), self.expr(node.comparators[0], scope)
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = left is right or (left is None and right is None)
            return same if isinstance(op, ast.Is) else not same
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            raise Refused()
        if isinstance(op, (ast.In, ast.NotIn)):
            if not _is_python(right):
                self.refuse(node, "'in' on a tensor")
            inside = _key(left) in right if isinstance(right, dict) else left in right
            return inside if isinstance(op, ast.In) else not inside
        if _is_python(left) and _is_python(right):
            try:
                return PYCOMPARE[type(op)](left, right)
            except TypeError as exc:
                raise GradcliError(f"TypeError: {exc}", self.pos(node)) from None
        return self.op_call(COMPARE[type(op)], [left, right], {}, node)

    # --- calls --------------------------------------------------------------------------
    def call(self, node: ast.Call, scope: Scope):
        func = self.expr(node.func, scope)
        if isinstance(func, Module) and func.path == "builtins.print":
            for a in node.args:  # printed values are ignored, but a gradient call still runs
                if not isinstance(a, (ast.JoinedStr, ast.Constant)):
                    self.expr(a, scope)
            return None
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.refuse(a, "*-unpacking in a call")
        if any(k.arg is None for k in node.keywords):
            self.refuse(node, "**-unpacking in a call")
        args = [self.expr(a, scope) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, scope) for k in node.keywords}
        if isinstance(func, Unknown):
            raise Refused()
        if isinstance(func, Function):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, Method):
            return self.call_method(func, args, kwargs, node, scope)
        if isinstance(func, Module):
            return self.call_api(func.path, args, kwargs, node, scope)
        self.refuse(node, f"calling {_describe(func)}")

    def call_function(self, fn: Function, args: list, kwargs: dict, node):
        params = [a.arg for a in fn.args.args]
        kwonly = [a.arg for a in fn.args.kwonlyargs]
        if len(args) > len(params):
            raise GradcliError(
                f"TypeError: {fn.name}() takes {len(params)} positional arguments but "
                f"{len(args)} were given",
                self.pos(node),
            )
        frame = Scope(fn.scope)
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params and k not in kwonly:
                raise GradcliError(
                    f"TypeError: {fn.name}() got an unexpected keyword argument '{k}'",
                    self.pos(node),
                )
            bound[k] = v
        first_default = len(params) - len(fn.defaults)
        for j, p in enumerate(params):
            if p not in bound:
                if j >= first_default:
                    bound[p] = fn.defaults[j - first_default]
                else:
                    raise GradcliError(
                        f"TypeError: {fn.name}() missing required argument '{p}'", self.pos(node)
                    )
        for j, p in enumerate(kwonly):
            if p not in bound:
                if fn.kw_defaults[j] is None and fn.args.kw_defaults[j] is None:
                    raise GradcliError(f"TypeError: {fn.name}() missing '{p}'", self.pos(node))
                bound[p] = fn.kw_defaults[j]
        frame.vars.update(bound)
        if self.depth >= MAX_CALL_DEPTH:
            self.refuse(node, f"helpers nested more than {MAX_CALL_DEPTH} calls deep (recursion?)")
        self.depth += 1
        saved = (self.label, self.target_name)
        try:
            self.block(fn.body, frame)
        except _Return as ret:
            return ret.value
        finally:
            self.depth -= 1
            self.label, self.target_name = saved
        return None

    def call_method(self, m: Method, args, kwargs, node, scope):
        obj, name = m.obj, m.name
        if isinstance(obj, Tape):
            return self.tape_method(obj, name, args, kwargs, node)
        if isinstance(obj, Session):
            if name == "run":
                return args[0] if args else kwargs.get("fetches")
            return None
        if isinstance(obj, dict):
            if name == "get":
                return obj.get(_key(args[0]), args[1] if len(args) > 1 else None)
            return {"items": list(obj.items()), "keys": list(obj), "values": list(obj.values())}[
                name
            ]
        if isinstance(obj, list):
            obj.append(args[0])
            return None
        if isinstance(obj, Variable) and name in VARIABLE_METHODS:
            return self.assign_variable(obj, name, args, kwargs, node)
        if name in ("item", "tolist") and _is_tf(obj):
            raise GradcliError(
                f"AttributeError: {'EagerTensor' if name == 'tolist' else 'the tensor'} has no "
                f"attribute '{name}' (TensorFlow 2.21 raises here; use .numpy().{name}() outside "
                "the tape, or keep the tensor)",
                self.pos(node),
            )
        if name == "numpy" or name in ("item", "tolist", "__float__"):
            return self.leave(
                obj, node, f"{ast.unparse(node)}", "numpy" if name == "numpy" else name
            )
        if name in ("read_value", "value"):
            return Tensor(self.tensor_id(obj))
        if name == "get_shape":
            return tuple(self.g[self.tensor_id(obj, read=False)].shape)
        self.refuse(node, f"the method .{name}()")

    # --- TensorFlow and NumPy functions ----------------------------------------------------
    def call_api(self, path: str, args, kwargs, node, scope):
        handler = SPECIAL.get(path)
        if handler is not None:
            return handler(self, args, kwargs, node)
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
        if len(args) > len(row.params):
            raise GradcliError(
                f"TypeError: {path} takes at most {len(row.params)} arguments", self.pos(node)
            )
        bound.update(zip(row.params, args))
        for k, v in kwargs.items():
            if k not in row.params:
                self.refuse(node, f"{path}(..., {k}=...)")
            bound[k] = v
        for p in row.ignored:
            bound.pop(p, None)
        missing = [p for p in row.tensors if p not in bound]
        if missing:
            raise GradcliError(f"TypeError: {path} is missing '{missing[0]}'", self.pos(node))
        tensors = [bound.pop(p) for p in row.tensors]
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
        return Tensor(self.op_call(row.op, tensors, attrs, node).id, TF)

    def attribute_value(self, path, attr, value, node):
        if isinstance(value, DType):
            return value.name
        if isinstance(value, str) and attr == "dtype":
            return DTYPE_NAMES.get(value) or self.refuse(node, f"the dtype {value!r}")
        if isinstance(value, bool) and attr in ("keepdims", "exclusive", "reverse"):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
            return list(value)
        if isinstance(value, (Tensor, Variable)):
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
        """Reading a trainable variable inside a tape that watches accessed variables watches it."""
        if var.trainable:
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
        return np.asarray(self.values[i], dtype=self.g[i].dtype)

    def emit(self, opname: str, inputs, attrs, node, record: bool = True) -> int:
        out = emit(self.g, opname, tuple(inputs), attrs, entry=self.label, pos=self.pos(node))
        if record:
            for tape in self.tapes:
                if any(i in tape.on for i in inputs):
                    tape.on.add(out)
        return out

    def leaf(self, value: np.ndarray, node, kind=TF) -> Tensor:
        """A new constant tensor (its own node: tape.watch needs its identity)."""
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
        return Tensor(i, kind)

    def op_call(self, opname: str, operands: list, attrs: dict, node) -> Tensor:
        """Emit op(operands) with TensorFlow's dtype rules; returns the result tensor."""
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
        if op.accepts == "float":
            for i in ids:
                if self.g[i].dtype not in FLOAT_DTYPES:
                    raise GradcliError(
                        f"{_what(node)} needs a float tensor, got {self.g[i].dtype} (TensorFlow "
                        "raises here; cast it with tf.cast(x, tf.float32))",
                        self.pos(node),
                    )
        kinds = {_kind(v) for v in operands if isinstance(v, (Tensor, Variable))}
        out = self.emit(opname, ids, attrs, node)
        kind = TF if TF in kinds or not kinds else (NP if NP in kinds else PY)
        return Tensor(out, kind)

    def convert(self, operands: list, node, default: str | None = None) -> list[int]:
        """Node ids for operands: tensors keep their dtype, Python values take the dtype of the
        TensorFlow tensors they meet (NumPy arrays too), else TensorFlow's default."""
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
                        raise GradcliError(
                            f"{_what(node)}: {self.g[i].dtype} and {target} tensors meet "
                            "(TensorFlow raises InvalidArgumentError); convert one with tf.cast",
                            self.pos(node),
                        )
                    i = self.emit("cast", [i], {"dtype": target}, node)
                ids.append(i)
            else:
                arr = self.python_array(v, node)
                if target in INT_DTYPES and not np.all(np.round(arr) == arr):
                    raise GradcliError(
                        f"{_what(node)}: {v!r} cannot be converted to {target} (TensorFlow "
                        "raises TypeError)",
                        self.pos(node),
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

    def leave(self, value, node, code: str, how: str) -> Tensor:
        """A tensor turned into NumPy or Python (.numpy(), np.*, float()): leaves_tape."""
        if not isinstance(value, (Tensor, Variable)):
            return value
        i = self.tensor_id(value)
        if isinstance(value, Tensor) and value.kind != TF:
            return value
        name = self.g[i].name or _short(code)
        fix = LEAVE_FIX.get(how, "keep the computation in TensorFlow ops (tf.*)")
        attrs = {
            "cause": TapeCause.LEAVES_TAPE.value,
            "detail": f"{code} turns {_operand_text(node)} into a NumPy/Python value; the tape "
            f"cannot see through it; {fix}",
            "summary": f"{_short(code)}, which leaves TensorFlow",
        }
        del name
        out = self.emit("tape_boundary", [i], attrs, node, record=False)
        return Tensor(out, PY if how in ("float", "int", "item", "tolist") else NP)

    # --- tapes -----------------------------------------------------------------------------
    def tape_method(self, tape: Tape, name: str, args, kwargs, node):
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
        if name == "reset":
            tape.on.clear()
            return None
        self.refuse(node, f"tape.{name}", "not read yet")

    def assign_variable(self, var: Variable, name: str, args, kwargs, node):
        value = args[0] if args else kwargs.get("value")
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
        var.value = self.leaf(new, node).id
        var.versions.append(var.value)
        return var

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


# --- special functions (values, tapes, control) ------------------------------------------------
def _opt(args, kwargs, i: int, name: str, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _dtype_arg(it: Interpreter, value, node) -> str | None:
    if value is None:
        return None
    if isinstance(value, DType):
        return value.name
    if isinstance(value, str) and value in DTYPE_NAMES:
        return DTYPE_NAMES[value]
    it.refuse(node, f"the dtype {_describe(value)}")


def _variable(it: Interpreter, args, kwargs, node):
    init = _opt(args, kwargs, 0, "initial_value")
    trainable = _opt(args, kwargs, 1, "trainable", True)
    name = kwargs.get("name")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node)
    for k in kwargs:
        if k not in ("initial_value", "trainable", "name", "dtype"):
            it.refuse(node, f"tf.Variable(..., {k}=...)")
    if callable(init) or isinstance(init, Function):
        it.refuse(node, "a callable initial value")
    arr = it.as_array(init, node, dtype)
    if trainable is None:
        trainable = True
    if not isinstance(trainable, bool):
        it.refuse(node, "trainable= that is not True or False")
    leaf = it.leaf(arr, node)
    label = it.target_name or (name if isinstance(name, str) else f"<variable line {node.lineno}>")
    return Variable(leaf.id, label, trainable, it.pos(node), name, [leaf.id])


def _constant(it: Interpreter, args, kwargs, node):
    value = _opt(args, kwargs, 0, "value")
    dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
    if isinstance(value, (Tensor, Variable)):
        i = it.tensor_id(value)
        if dtype is not None and it.g[i].dtype != dtype:
            return Tensor(it.emit("cast", [i], {"dtype": dtype}, node))
        return Tensor(i, TF)
    return it.leaf(it.as_array(value, node, dtype), node)


def _numpy_array(it: Interpreter, args, kwargs, node):
    value = _opt(args, kwargs, 0, "object")
    dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
    if isinstance(value, (Tensor, Variable)) and _kind(value) == TF:
        value = it.leave(value, node, ast.unparse(node), "np.array")
    if isinstance(value, Tensor):
        if dtype is not None and it.g[value.id].dtype != dtype:
            return Tensor(it.emit("cast", [value.id], {"dtype": dtype}, node), NP)
        return Tensor(value.id, NP)
    arr = it.python_array(value, node)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype == np.int64 or arr.dtype.kind == "f" or arr.dtype == bool:
        pass
    return it.leaf(arr, node, NP)


def _filled(fill):
    def make(it: Interpreter, args, kwargs, node):
        shape = _opt(args, kwargs, 0, "shape")
        dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node) or "float32"
        shape = _shape(it, shape, node)
        return it.leaf(np.full(shape, fill, dtype=dtype), node)

    return make


def _filled_like(fill):
    def make(it: Interpreter, args, kwargs, node):
        like = _opt(args, kwargs, 0, "input")
        dtype = _dtype_arg(it, _opt(args, kwargs, 1, "dtype"), node)
        if isinstance(like, (Tensor, Variable)):
            n = it.g[it.tensor_id(like, read=False)]
            return it.leaf(np.full(n.shape, fill, dtype=dtype or n.dtype), node)
        arr = it.python_array(like, node)
        return it.leaf(np.full(arr.shape, fill, dtype=dtype or _python_dtype([like])), node)

    return make


def _fill(it: Interpreter, args, kwargs, node):
    shape = _shape(it, _opt(args, kwargs, 0, "dims"), node)
    value = it.as_array(_opt(args, kwargs, 1, "value"), node)
    return it.leaf(np.full(shape, value, dtype=value.dtype), node)


def _range(it: Interpreter, args, kwargs, node):
    nums = [a for a in args]
    if not all(isinstance(a, (int, float)) for a in nums):
        it.refuse(node, "tf.range with non-constant bounds")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node) or _python_dtype(nums)
    return it.leaf(np.arange(*nums).astype(dtype), node)


def _eye(it: Interpreter, args, kwargs, node):
    n = _opt(args, kwargs, 0, "num_rows")
    m = kwargs.get("num_columns")
    dtype = _dtype_arg(it, kwargs.get("dtype"), node) or "float32"
    if not isinstance(n, int):
        it.refuse(node, "tf.eye with a non-constant size")
    return it.leaf(np.eye(n, m, dtype=dtype), node)


def _random(dist: str, numpy: bool = False):
    """tf.random.* and np.random.*: gradcli's own seeded generator (numbers differ from TF's)."""

    def make(it: Interpreter, args, kwargs, node):
        if numpy and dist in ("randn", "rand"):
            shape = tuple(args)
        elif numpy:
            shape = _opt(args, kwargs, 2, "size", ())
        else:
            shape = _opt(args, kwargs, 0, "shape", ())
        shape = _shape(it, shape if shape is not None else (), node)
        dtype = "float64" if numpy else (_dtype_arg(it, kwargs.get("dtype"), node) or "float32")
        if dist in ("normal", "randn"):
            mean = _opt(args, kwargs, 0, "loc", 0.0) if numpy else kwargs.get("mean", 0.0)
            std = _opt(args, kwargs, 1, "scale", 1.0) if numpy else kwargs.get("stddev", 1.0)
            arr = it.rng.normal(mean, std, shape)
        else:
            low = _opt(args, kwargs, 0, "low", 0.0) if numpy else kwargs.get("minval", 0.0)
            high = _opt(args, kwargs, 1, "high", 1.0) if numpy else kwargs.get("maxval", 1.0)
            arr = it.rng.uniform(low, high, shape)
        return it.leaf(arr.astype(dtype), node, NP if numpy else TF)

    return make


def _shape(it: Interpreter, shape, node) -> tuple[int, ...]:
    if isinstance(shape, int):
        return (shape,)
    if isinstance(shape, (list, tuple)) and all(isinstance(d, int) and d >= 0 for d in shape):
        return tuple(shape)
    if isinstance(shape, (Tensor, Variable)):
        return tuple(int(d) for d in it.value(it.tensor_id(shape, read=False)).reshape(-1))
    it.refuse(node, f"the shape {_describe(shape)}", "give a list of Python integers")


def _gradient_tape(it: Interpreter, args, kwargs, node):
    persistent = _opt(args, kwargs, 0, "persistent", False)
    watch = _opt(args, kwargs, 1, "watch_accessed_variables", True)
    if not isinstance(persistent, bool) or not isinstance(watch, bool):
        it.refuse(node, "GradientTape options that are not True or False")
    it.all_tapes += 1
    return Tape(it.all_tapes, persistent, watch, it.pos(node), start=0, end=-1)


def _cond(it: Interpreter, args, kwargs, node):
    pred = _opt(args, kwargs, 0, "pred")
    true_fn = _opt(args, kwargs, 1, "true_fn")
    false_fn = _opt(args, kwargs, 2, "false_fn")
    for fn in (true_fn, false_fn):
        if not isinstance(fn, Function):
            it.refuse(
                node, f"tf.cond with a branch that is {_describe(fn)}", "give a lambda or def"
            )
    if _is_python(pred):
        chosen = true_fn if bool(pred) else false_fn
        return it.call_function(chosen, [], {}, node)
    a = it.call_function(true_fn, [], {}, node)
    b = it.call_function(false_fn, [], {}, node)
    for branch in (a, b):
        if not isinstance(branch, (Tensor, Variable, int, float)) or isinstance(branch, bool):
            it.refuse(node, f"a tf.cond branch returning {_describe(branch)}")
    result = it.op_call("cond", [pred, a, b], {}, node)
    taken_true = bool(it.value(it.tensor_id(pred, read=False)).reshape(()))
    taken = a if taken_true else b
    if isinstance(taken, (int, float)):
        message = f"Cannot convert the argument `type_value`: {taken!r} to a TensorFlow DType."
        it.notes[result.id] = (
            {"type": "TypeError", "message": message},
            (
                f"TensorFlow 2.21 raises TypeError in tape.gradient here: the taken "
                f"{'true' if taken_true else 'false'} branch of tf.cond (line {node.lineno}) "
                f"returns the Python number {taken!r}; gradcli answers for "
                f"tf.constant({taken!r}), as TensorFlow does for that form"
            ),
        )
    return result


def _python_number(kind):
    def make(it: Interpreter, args, kwargs, node):
        value = args[0] if args else 0
        if isinstance(value, (Tensor, Variable)):
            return it.leave(value, node, ast.unparse(node), kind)
        if isinstance(value, Tensor):
            return value
        try:
            return float(value) if kind == "float" else int(value)
        except (TypeError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", it.pos(node)) from None

    return make


def _builtin(fn):
    def make(it: Interpreter, args, kwargs, node):
        if any(isinstance(a, (Tensor, Variable, Unknown)) for a in args):
            it.refuse(node, f"{fn.__name__}() of a tensor")
        try:
            return fn(*args)
        except (TypeError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", it.pos(node)) from None

    return make


def _range_builtin(it: Interpreter, args, kwargs, node):
    if (
        not all(isinstance(a, int) and not isinstance(a, bool) for a in args)
        or not 1 <= len(args) <= 3
    ):
        it.refuse(node, "range() with non-constant bounds")
    try:
        return range(*args)
    except ValueError as exc:
        raise GradcliError(f"ValueError: {exc}", it.pos(node)) from None


def _len(it: Interpreter, args, kwargs, node):
    v = args[0]
    if isinstance(v, (Tensor, Variable)):
        shape = it.g[it.tensor_id(v, read=False)].shape
        return shape[0]
    return _builtin(len)(it, args, kwargs, node)


def _ignored(it, args, kwargs, node):
    return None


def _graph_mode(it: Interpreter, args, kwargs, node):
    it.graph_mode = True
    return None


def _session(it, args, kwargs, node):
    return Session()


def _placeholder(it: Interpreter, args, kwargs, node):
    dtype = _dtype_arg(it, _opt(args, kwargs, 0, "dtype"), node) or "float32"
    name = it.target_name
    if name not in it.feeds:
        it.refuse(node, f"a placeholder ({name}) that no Session.run feeds a constant")
    fed = it.as_array(it.feeds[name], node, dtype)
    return it.leaf(fed, node)


def _tf_gradients(it: Interpreter, args, kwargs, node):
    from gradcli.tfcode.calls import gradients_call

    return gradients_call(it, node, args, kwargs)


SPECIAL = {
    "tf.Variable": _variable,
    "tf.constant": _constant,
    "tf.convert_to_tensor": _constant,
    "np.array": _numpy_array,
    "np.asarray": _numpy_array,
    "tf.zeros": _filled(0),
    "tf.ones": _filled(1),
    "tf.zeros_like": _filled_like(0),
    "tf.ones_like": _filled_like(1),
    "tf.fill": _fill,
    "tf.range": _range,
    "tf.eye": _eye,
    "tf.random.normal": _random("normal"),
    "tf.random.uniform": _random("uniform"),
    "np.random.normal": _random("normal", numpy=True),
    "np.random.uniform": _random("uniform", numpy=True),
    "np.random.randn": _random("randn", numpy=True),
    "np.random.rand": _random("rand", numpy=True),
    "tf.random.set_seed": _ignored,
    "np.random.seed": _ignored,
    "tf.GradientTape": _gradient_tape,
    "tf.cond": _cond,
    "tf.compat.v1.disable_eager_execution": _graph_mode,
    "tf.compat.v1.Session": _session,
    "tf.compat.v1.placeholder": _placeholder,
    "tf.gradients": _tf_gradients,
    "builtins.float": _python_number("float"),
    "builtins.int": _python_number("int"),
    "builtins.range": _range_builtin,
    "builtins.len": _len,
    "builtins.abs": _builtin(abs),
    "builtins.min": _builtin(min),
    "builtins.max": _builtin(max),
    "builtins.list": _builtin(list),
    "builtins.tuple": _builtin(tuple),
    "builtins.str": _builtin(str),
    "builtins.bool": _builtin(bool),
    "builtins.zip": lambda it, a, k, n: list(zip(*a)),
    "builtins.enumerate": lambda it, a, k, n: list(enumerate(*a)),
}
BUILTINS = {"print", "float", "int", "range", "len", "abs", "min", "max", "list", "tuple", "str",
            "bool", "zip", "enumerate"}  # fmt: skip
LEAVE_FIX = {
    "numpy": "drop .numpy() and keep the tensor",
    "float": "drop float() and keep the tensor",
    "int": "drop int() and keep the tensor",
    "item": "drop .item() and keep the tensor",
    "tolist": "drop .tolist() and keep the tensor",
    "np.array": "use the tensor itself, or tf.constant outside the tape",
}
for _n in api.NP:
    LEAVE_FIX[_n] = f"use tf.{_n[3:]}" if f"tf.{_n[3:]}" in api.TF else "use the tf.* equivalent"
LEAVE_FIX.update({"np.mean": "use tf.reduce_mean", "np.sum": "use tf.reduce_sum",
                  "np.max": "use tf.reduce_max", "np.min": "use tf.reduce_min",
                  "np.prod": "use tf.reduce_prod", "np.power": "use tf.pow",
                  "np.dot": "use tf.matmul or tf.tensordot"})  # fmt: skip
TENSOR_METHODS = {"numpy", "item", "tolist", "read_value", "value", "get_shape", "__float__"}
VARIABLE_METHODS = {"assign", "assign_add", "assign_sub"}
BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
          ast.MatMult: "matmul"}  # fmt: skip
PYOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a**b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}  # fmt: skip
COMPARE = {ast.Lt: "less", ast.LtE: "less_equal", ast.Gt: "greater", ast.GtE: "greater_equal",
           ast.Eq: "equal", ast.NotEq: "not_equal"}  # fmt: skip
PYCOMPARE = {
    ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
}  # fmt: skip


# --- small helpers ---------------------------------------------------------------------------
def _module_path(name: str) -> str:
    return (
        name.replace("tensorflow", "tf", 1)
        if name.startswith("tensorflow")
        else (name.replace("numpy", "np", 1) if name.startswith("numpy") else name)
    )


def _dtype_of_path(path: str) -> str | None:
    head, _, last = path.rpartition(".")
    if head in ("tf", "np", "tf.dtypes") and last in DTYPE_NAMES and last not in ("float", "int"):
        return DTYPE_NAMES[last]
    return None


def _as_load(target):
    new = ast.parse(ast.unparse(target), mode="eval").body
    return ast.copy_location(new, target) if hasattr(target, "lineno") else new


def _key(value):
    if isinstance(value, (str, int, float, bool, type(None), tuple, Tensor)):
        return value
    if isinstance(value, Variable):
        return id(value)
    raise Refused()


def _is_python(v) -> bool:
    return isinstance(v, (int, float, bool, str, list, tuple, dict, type(None)))


def _is_tf(v) -> bool:
    return isinstance(v, Variable) or (isinstance(v, Tensor) and v.kind == TF)


def _kind(v) -> str:
    return TF if isinstance(v, Variable) else v.kind


def _python_dtype(values) -> str:
    """TensorFlow's dtype for Python values: float32 if any float, int32 for ints, bool."""
    flat = []
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, np.ndarray):
            flat.append(v.dtype.kind)
        else:
            flat.append("b" if isinstance(v, bool) else "i" if isinstance(v, int) else "f")
    if not flat or "f" in flat:
        return "float32"
    if "i" in flat or "u" in flat:
        return "int32"
    return "bool"


def _plain(it: Interpreter, v, node):
    """A Python value with tensors inside lists replaced by their values."""
    if isinstance(v, (list, tuple)):
        return [_plain(it, x, node) for x in v]
    if isinstance(v, (Tensor, Variable)):
        return it.value(it.tensor_id(v, read=False))
    return v


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flatten(value[k])]
    return [value]


def _describe(v) -> str:
    if isinstance(v, Tensor):
        return {TF: "a tensor", NP: "a NumPy array", PY: "a Python value made from a tensor"}[
            v.kind
        ]
    if isinstance(v, Variable):
        return "a tf.Variable"
    if isinstance(v, Module):
        return v.path
    if isinstance(v, Function):
        return f"the function {v.name}"
    if v is None:
        return "None"
    return f"a {type(v).__name__}"


def _what(node) -> str:
    text = ast.unparse(node)
    return _short(text)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _operand_text(node) -> str:
    if isinstance(node, ast.Call):
        if node.args:
            return _short(ast.unparse(node.args[0]), 30)
        if isinstance(node.func, ast.Attribute):
            return _short(ast.unparse(node.func.value), 30)
    return "the tensor"


__all__ = ["SUFFIX", "Interpreter", "Refused", "Stop"]

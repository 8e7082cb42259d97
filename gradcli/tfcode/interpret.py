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

from gradcli.core.graph import Graph
from gradcli.runtime.errors import Pos
from gradcli.tfcode.branches import assigned_names, mark_untaken, untaken_reads
from gradcli.tfcode.builtins import VARIABLE_METHODS, _dtype_arg
from gradcli.tfcode.drawn import DrawingGenerator
from gradcli.tfcode.expressions import ExpressionMixin
from gradcli.tfcode.functions import FunctionMixin
from gradcli.tfcode.keras import OBJECTS, call_object, define_class, set_attribute
from gradcli.tfcode.loops import LoopBreak, LoopContinue, LoopMixin
from gradcli.tfcode.opaque import opaque_training, opaque_use
from gradcli.tfcode.refusals import STATEMENTS, SUFFIX, SYSTEM, Refusals, pos_of
from gradcli.tfcode.support import (
    MAX_STEPS,
    Raises,
    Refused,
    Stop,
    _as_load,
    _describe,
    _flatten,
    _is_tf,
    _key,
    _module_path,
    _Return,
)
from gradcli.tfcode.tensors import TensorMixin
from gradcli.tfcode.tf1_graph import probe_feeds
from gradcli.tfcode.unused_sources import Frames
from gradcli.tfcode.values import (
    UNKNOWN,
    DType,
    GraphOp,
    Method,
    Module,
    Opaque,
    PyFunction,
    Session,
    Tape,
    Tensor,
    Unknown,
    Variable,
    first_opaque,
)

GRADIENT_CALLS = ("tf.gradients", "tf.compat.v1.gradients")
# TensorFlow 2.21's messages for NumPy methods an eager tensor lacks (tests/data/tf_code)
EAGER_NO_ATTRIBUTE = {
    "item": "'tensorflow.python.framework.ops.EagerTensor' object has no attribute 'item'",
    "tolist": "EagerTensor object has no attribute 'tolist'.",
}


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


class Interpreter(ExpressionMixin, FunctionMixin, TensorMixin, LoopMixin):
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
        # node -> (what TensorFlow raises in a tape.gradient using it, or None; a note)
        self.notes: dict[int, tuple[dict | None, str]] = {}
        # a variable's value leaf made from a tensor (tf.Variable(t), v.assign(t)) -> (the
        # tensor's node, the code, the variable): the lowering shows where gradients stop
        self.stored: dict[int, tuple[int, str, str]] = {}
        # the value node of a variable an update gradcli does not compute changed (an
        # optimizer's, Keras's training) -> that line: gradient calls reading it are refused
        self.updated: dict[int, int] = {}
        self.rng = DrawingGenerator(self)  # gradcli's numbers: the first draw is noted
        self.loose_draw = None  # drawn.Draw: a draw whose uses are not followed
        self.drawn_nodes: dict = {}  # leaf id -> drawn.Draw: its value was drawn
        self.drawn_memo: dict = {}  # node id -> the drawn.Draw it was computed from, or None
        self.statement_node = None  # the statement being read (where a draw is noted)
        self.globals = Scope()
        self.error: dict | None = None  # what TensorFlow raised outside a gradient call
        self.functions: dict = {}  # custom calls' functions by name (core Source.functions)
        self.watchers: list[list] = []  # variables read while a custom-gradient body runs
        self.quiet = 0  # > 0 while a gradient function is read: tapes record nothing
        self.tracing: list = []  # the @tf.function calls being read, innermost last
        self.traces: set = set()  # (function, signature) pairs tf.function traced
        self.finished: list = []  # (start, end, function) of each @tf.function call read
        self.leaked: dict = {}  # node -> the @tf.function whose finished call made it, unreturned
        self.silent = 0  # > 0 inside a retraced tf.function: its gradient calls are not listed
        self.static: dict = {}  # what branches.py found in statements, by their ids
        self.keras = None  # the Keras object model's bookkeeping (tfcode/keras), on first use
        self.weights = None  # --weights: Keras variables' initial values (cli/weights.py)
        # TF1 feeds bound only after their placeholder (tf1_graph.placeholder): the names
        # deferred, the ones a probe pass looks for, and the values it found
        self.deferred: list[str] = []
        self.probe: list[str] | None = None
        self.fed: dict = {}
        # for where no_path names a source (unused_sources.py): the user-function call stack
        # each node was made under, the nodes gradient calls copied back (not uses), and fresh
        # tensors whose values were computed from other nodes (a dataset's, from variables)
        self.frames = Frames()
        self.gradient_nodes: set[int] = set()
        self.reads_from: dict[int, tuple[int, ...]] = {}
        # a dataset element -> {variable node: (Variable, how, Pos, graph size)}: its reads
        self.read_at: dict[int, dict] = {}
        # node -> [(graph size, call position, frame, function)]: user calls it was passed to
        self.passed: dict[int, list] = {}
        # > 0 while a tf.while_loop body is read in graph mode or a trace: TensorFlow builds
        # it once, over loop variables that are placeholders (a gradient call there is refused)
        self.traced_loop_bodies = 0
        # whether AutoGraph converts the code being read, innermost last (empty: eager code):
        # a tf.function's or a Dataset.map's function and the user functions they call are
        # converted; what Keras or tf.custom_gradient calls is not (see pybuiltins.py)
        self.autograph: list[bool] = []

    # --- running ------------------------------------------------------------------------
    def run_module(self, tree: ast.Module) -> None:
        try:
            self.block(tree.body, self.globals)
        except Stop:
            pass
        except _Return:
            pass
        except Raises as raised:
            self.error = raised

    def block(self, stmts, scope: Scope) -> None:
        outer = self.statement_node
        for stmt in stmts:
            self.count_step(stmt)
            before = len(self.refusals.items)
            self.statement_node = stmt
            try:
                self.statement(stmt, scope)
            except Refused:  # recorded; the next statement is read
                if len(self.refusals.items) == before:
                    opaque_use(self, stmt, scope)
            finally:
                self.statement_node = outer
            if self.probe:
                probe_feeds(self, scope)

    def count_step(self, node) -> None:
        """One statement, or one element of a comprehension: at most MAX_STEPS in all."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.refusals.unsupported(node, f"more than {MAX_STEPS:,} statements")
            raise Stop()

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
        if kind is ast.ClassDef:
            return define_class(self, stmt, scope)
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
            value = self.expr(stmt.test, scope)
            test = self.truth(value, stmt.test)
            taken, other = (stmt.body, stmt.orelse) if test else (stmt.orelse, stmt.body)
            names = assigned_names(self, [*stmt.body, *stmt.orelse])
            reads = untaken_reads(self, other, scope, taken, names) if names else []
            self.block(taken, scope)
            if reads:
                mark_untaken(self, stmt, value, test, names, reads, scope)
            return
        if kind is ast.For:
            return self.for_(stmt, scope)
        if kind is ast.While:
            return self.while_(stmt, scope)
        if kind is ast.Break:
            raise LoopBreak()
        if kind is ast.Continue:
            raise LoopContinue()
        if kind is ast.With:
            return self.with_(stmt, scope)
        if kind is ast.FunctionDef:
            return self.define(stmt, scope)
        if kind is ast.Return:
            if stmt.value is not None and not getattr(stmt, "lambda_body", False):
                self.set_label(stmt)  # a def's return line is its own entry ("line N")
            raise _Return(None if stmt.value is None else self.expr(stmt.value, scope))
        if kind in (ast.Pass, ast.Delete, ast.Assert):
            return
        self.refuse(stmt, type(stmt).__name__)

    def import_(self, stmt, scope: Scope) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                top = alias.name.split(".")[0]
                if top in SYSTEM:  # refused by the scan; its uses are refused too
                    scope.vars[alias.asname or top] = Module("!" + alias.name)
                    continue
                if top not in ("tensorflow", "numpy", "keras"):  # never imported: opaque
                    name = alias.name if alias.asname else top
                    scope.vars[alias.asname or top] = Opaque(stmt.lineno, name)
                    continue
                path = _module_path(alias.name)
                if alias.asname:
                    scope.vars[alias.asname] = Module(path)
                else:
                    scope.vars[top] = Module(_module_path(top))
            return
        module = stmt.module or ""
        if module.split(".")[0] in SYSTEM and not stmt.level:
            raise Refused()  # refused by the scan
        if module.split(".")[0] not in ("tensorflow", "numpy", "keras") or stmt.level:
            dotted = "." * stmt.level + module
            for alias in stmt.names:  # never imported: opaque names (`import *` refused)
                scope.vars[alias.asname or alias.name] = Opaque(
                    stmt.lineno, f"{dotted}.{alias.name}".replace("..", ".")
                )
            return
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
                    self.assign(t, value if isinstance(value, Opaque) else UNKNOWN, scope)
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
        if isinstance(target, ast.Attribute):  # obj.attr = value (classes, Keras layers)
            return set_attribute(self, self.expr(target.value, scope), target.attr, value, target)
        self.refuse(target, f"assigning to {ast.unparse(target)}")

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
            elif hasattr(value, "tf_enter"):  # the reader's own contexts (variable_scope)
                value.tf_enter(self)
                entered.append(value)
            elif not isinstance(value, Session):
                self.refuse(item.context_expr, f"with {ast.unparse(item.context_expr)}")
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, scope)
        try:
            self.block(stmt.body, scope)
        finally:
            for tape in entered:
                if not isinstance(tape, Tape):
                    tape.tf_exit(self)
                    continue
                tape.end = len(self.g)
                tape.end_line = stmt.end_lineno
                tape.active = False
                self.tapes.remove(tape)

    def dotted(self, node, scope: Scope) -> str | None:
        """The dotted name of an expression that evaluates to a module attribute, else None."""
        try:
            value = self.expr(node, scope)
        except Refused:
            return None
        return value.path if isinstance(value, Module) else None

    # --- calls --------------------------------------------------------------------------
    def call(self, node: ast.Call, scope: Scope):
        func = self.expr(node.func, scope)
        if isinstance(func, Module) and func.path == "builtins.print":
            for a in node.args:  # printed values are ignored, but a gradient call still runs
                if not isinstance(a, (ast.JoinedStr, ast.Constant)):
                    self.expr(a, scope)
            return None
        args, kwargs = self.arguments(node, scope)
        if isinstance(func, Opaque):  # code gradcli does not read: unknown from here on
            opaque_training(self, node, func)  # model.fit of an unread model: a call
            return func.called(node)
        if isinstance(func, Unknown):
            raise Refused()
        opaque = first_opaque([*args, *kwargs.values()])
        if (
            opaque is not None
            and isinstance(func, Module)
            and func.path not in GRADIENT_CALLS
            and not _structural(func, args)
        ):  # a function of an opaque value (a gradient call is listed unknown)
            return opaque
        if isinstance(func, PyFunction):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, Method):
            return self.call_method(func, args, kwargs, node, scope)
        if isinstance(func, Module):
            return self.call_api(func.path, args, kwargs, node, scope)
        if isinstance(func, OBJECTS):  # a class, an instance or a bound method
            return call_object(self, func, args, kwargs, node)
        if isinstance(func, DType):  # np.float32(x)
            from gradcli.tfcode.numpy_values import scalar_constructor

            return scalar_constructor(self, func, args, kwargs, node)
        self.refuse(node, f"calling {_describe(func)}")

    def arguments(self, node: ast.Call, scope: Scope) -> tuple[list, dict]:
        """A call's positional and keyword arguments, `*list` and `**dict` unpacked."""
        args: list = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(self.expr(a, scope))
                continue
            value = self.expr(a.value, scope)
            if not isinstance(value, (list, tuple)):
                self.refuse(a, f"*-unpacking {_describe(value)} in a call")
            args.extend(value)
        kwargs: dict = {}
        for k in node.keywords:
            value = self.expr(k.value, scope)
            if k.arg is not None:
                kwargs[k.arg] = value
            elif isinstance(value, dict) and all(isinstance(key, str) for key in value):
                kwargs.update(value)
            else:
                self.refuse(k.value, f"**-unpacking {_describe(value)} in a call")
        return args, kwargs

    def session_run(self, fetches, node):
        """sess.run(fetches): their values (the graph is already evaluated); an initializer
        gives None, a None among the fetches is TensorFlow's TypeError."""
        if isinstance(fetches, GraphOp):
            return None
        if any(v is None for v in _flatten([fetches])):
            raise Raises(
                "TypeError",
                'Argument `fetch` = None has invalid type "NoneType". Cannot be None',
                self.pos(node),
                "a gradient that tf.gradients returned as None (unconnected) is among the "
                "fetches: fetch only the gradients that are not None",
            )
        if isinstance(fetches, (list, tuple)):  # a train op among them gives None
            return type(fetches)(None if isinstance(f, GraphOp) else f for f in fetches)
        return fetches

    def call_method(self, m: Method, args, kwargs, node, scope):
        obj, name = m.obj, m.name
        if hasattr(obj, "tf_method"):  # the reader's own objects (tf.TensorArray)
            return obj.tf_method(self, name, args, kwargs, node)
        if isinstance(obj, Tape):
            return self.tape_method(obj, name, args, kwargs, node)
        if isinstance(obj, Session):
            if name == "run":
                return self.session_run(args[0] if args else kwargs.get("fetches"), node)
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
            if isinstance(obj, Variable) or self.symbolic(obj):  # TensorFlow's text not recorded
                what = "variable" if isinstance(obj, Variable) else "traced tensor"
                self.refuse(node, f".{name}() of a {what}", "TensorFlow has no such method there")
            raise Raises(
                "AttributeError",
                EAGER_NO_ATTRIBUTE[name],
                self.pos(node),
                f"TensorFlow 2.21 raises here; use .numpy().{name}() outside the tape, or keep "
                "the tensor",
            )
        if name == "numpy" or name in ("item", "tolist", "__float__"):
            return self.leave(
                obj, node, f"{ast.unparse(node)}", "numpy" if name == "numpy" else name
            )
        if name in ("read_value", "value"):
            return Tensor(self.tensor_id(obj))
        if name == "astype" and not _is_tf(obj):  # a NumPy array's
            dtype = _dtype_arg(self, args[0] if args else kwargs.get("dtype"), node)
            i = self.tensor_id(obj)
            same = self.g[i].dtype == dtype
            return obj if same else Tensor(self.emit("cast", [i], {"dtype": dtype}, node), obj.kind)
        if name == "get_shape":
            return tuple(self.g[self.tensor_id(obj, read=False)].shape)
        if isinstance(obj, Tensor) and obj.kind == "np":  # a NumPy array's .reshape() ...
            from gradcli.tfcode.numpy_values import array_method

            return array_method(self, obj, name, args, kwargs, node)
        self.refuse(node, f"the method .{name}()")


__all__ = ["SUFFIX", "Interpreter", "Refused", "Stop"]


def _structural(func: Module, args: list) -> bool:
    """len() of a container, or list() of a dict's keys: known even when the
    container holds opaque values (Keras's History)."""
    if len(args) != 1:
        return False
    if func.path == "builtins.len":
        return isinstance(args[0], (list, tuple, dict))
    if func.path in ("builtins.list", "builtins.tuple"):
        return isinstance(args[0], dict) and first_opaque(list(args[0])) is None
    return False

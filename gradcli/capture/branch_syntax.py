"""The script's own syntax, as the run mode's untaken-branch rule reads it: every Python
`if` statement, `x if c else y` and `tf.cond` with lambda branches, each branch's source
span, and whether a branch surely runs a framework operation on a name when it is entered.

Standard library only (`ast`): the script is parsed from its text, never run again. Spans
are (line, end line, column, end column) with UTF-8 byte columns, as both `ast` and
Python's instruction positions (`co_positions`) give them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

Span = tuple  # (line, end line, column, end column)

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# statements after which the rest of a block may not run
STOPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
# unary operators that are framework operations on a tensor (`not t` asks its truth value)
TENSOR_UNARY = (ast.USub, ast.UAdd, ast.Invert)
# comparisons that are framework operations on a tensor (== and `is`, `in` need not be)
TENSOR_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# the frameworks' modules whose functions compute on a tensor argument
OP_MODULES = frozenset(
    (
        "tensorflow",
        "tensorflow.math",
        "tensorflow.nn",
        "tensorflow.linalg",
        "tensorflow.signal",
        "torch",
        "torch.nn.functional",
        "torch.linalg",
        "torch.special",
        "torch.fft",
    )
)
# their functions that may hand a tensor back unchanged, or compute nothing from it
NOT_OPS = frozenset(
    (
        "convert_to_tensor",
        "cast",
        "constant",
        "Variable",
        "is_tensor",
        "as_tensor",
        "tensor",
        "is_floating_point",
        "numel",
        "get_static_value",
        "ensure_shape",
        "function",
        "cond",
        "case",
        "switch_case",
        "while_loop",
        "py_function",
        "numpy_function",
        "GradientTape",
        "name_scope",
        "device",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "manual_seed",
        "saturate_cast",
        "custom_gradient",
    )
)
COND_FUNCTIONS = frozenset(
    ("tensorflow.cond", "tensorflow.compat.v1.cond", "tensorflow.compat.v2.cond")
)


@dataclass
class Branch:
    """One side of a construct: its code (a block of statements or an expression)."""

    code: object  # list[ast.stmt] | ast.expr
    span: Span
    side: str  # "true" | "false"


@dataclass
class Construct:
    """An `if` statement, `x if c else y` or `tf.cond(pred, lambda: ..., lambda: ...)`."""

    node: ast.AST
    kind: str  # "if" | "ifexp" | "cond"
    span: Span
    branches: list[Branch]  # a missing else is absent
    statement: ast.stmt  # the `if` itself, or the statement the expression is in
    later: list = field(default_factory=list)  # statements that run after it (its scope's)
    results: frozenset = frozenset()  # names bound to its result (assigned in an if's branches)

    @property
    def line(self) -> int:
        return self.node.lineno

    def text(self) -> str:
        """How the detail names it: `if USE_RELU`, `x if c else y`, tf.cond."""
        if self.kind == "if":
            return f"`if {_short(ast.unparse(self.node.test))}`"
        if self.kind == "ifexp":
            return f"`... if {_short(ast.unparse(self.node.test))} else ...`"
        return "tf.cond"


def span_of(node) -> Span:
    """The source span of a node, or of a block of statements."""
    if isinstance(node, list):
        first, last = node[0], node[-1]
        return (first.lineno, last.end_lineno, first.col_offset, last.end_col_offset)
    return (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)


class Syntax:
    """The constructs, scopes and bindings of one script, indexed once."""

    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.parent: dict[int, ast.AST] = {}
        self.block: dict[int, tuple[list, int]] = {}  # id(stmt) -> (its block, its index)
        self.constructs: list[Construct] = []
        self.modules: dict[str, str] = {}  # a module-level import's name -> the module
        self.functions: dict[str, ast.FunctionDef] = {}  # plain module-level defs
        self._bindings: dict[str, int] = {}
        self.declared = {  # names some function declares global or nonlocal
            name
            for node in ast.walk(tree)
            if isinstance(node, (ast.Global, ast.Nonlocal))
            for name in node.names
        }
        stack = [tree]
        while stack:
            node = stack.pop()
            for _, value in ast.iter_fields(node):
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    for i, stmt in enumerate(value):
                        self.block[id(stmt)] = (value, i)
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
                stack.append(child)
        for stmt in tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.modules[top] = top
            elif isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list:
                self.functions[stmt.name] = stmt
        for node in ast.walk(tree):
            found = self._construct(node)
            if found is not None:
                self.constructs.append(found)

    # --- constructs --------------------------------------------------------------------
    def _construct(self, node) -> Construct | None:
        if isinstance(node, ast.If):
            branches = [Branch(node.body, span_of(node.body), "true")]
            if node.orelse:
                branches.append(Branch(node.orelse, span_of(node.orelse), "false"))
            found = Construct(node, "if", span_of(node), branches, node)
            found.results = frozenset(_assigned([*node.body, *node.orelse]))
        elif isinstance(node, ast.IfExp):
            branches = [
                Branch(node.body, span_of(node.body), "true"),
                Branch(node.orelse, span_of(node.orelse), "false"),
            ]
            found = Construct(node, "ifexp", span_of(node), branches, self.statement(node))
        elif isinstance(node, ast.Call) and self.qualified(node.func) in COND_FUNCTIONS:
            sides = _cond_sides(node)
            if sides is None:
                return None
            branches = [
                Branch(fn.body, span_of(fn.body), side)
                for side, fn in zip(("true", "false"), sides)
            ]
            found = Construct(node, "cond", span_of(node), branches, self.statement(node))
        else:
            return None
        statement = found.statement
        if found.kind != "if" and isinstance(statement, ast.Assign) and statement.value is node:
            found.results = frozenset(_assigned([statement]))
        found.later = self.after(statement)
        return found

    def after(self, statement) -> list[ast.stmt]:
        """The statements that run after `statement` in its scope once it ran: the rest of
        its block, then the rest of each enclosing block (not past a loop, whose next
        round runs the block again, nor a function or class)."""
        out = []
        node = statement
        while id(node) in self.block:
            stmts, i = self.block[id(node)]
            out += stmts[i + 1 :]
            node = self.parent.get(id(node))
            if node is None or isinstance(node, (*SCOPES, ast.Module, ast.For, ast.While)):
                break
            if isinstance(node, (ast.AsyncFor, ast.Try, ast.ExceptHandler)):
                break
        return out

    def scope_of(self, node):
        """The function or module a node runs in (None inside a lambda, class or
        comprehension)."""
        scopes = self.enclosing(node)
        inner = scopes[0] if scopes else self.tree
        return (
            inner
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
            else None
        )

    def statement(self, node) -> ast.stmt:
        """The statement a node is in."""
        while not isinstance(node, ast.stmt):
            node = self.parent[id(node)]
        return node

    def qualified(self, func) -> str | None:
        """`tf.nn.relu` as `tensorflow.nn.relu` (through a module-level import), else None."""
        parts = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name) or func.id not in self.modules:
            return None
        if self.bindings(func.id) != 1:
            return None  # the import's name is bound again somewhere
        return ".".join([self.modules[func.id], *reversed(parts)])

    def enclosing(self, node) -> list:
        """The scopes a node is in, innermost first (the module last)."""
        out = []
        while id(node) in self.parent:
            node = self.parent[id(node)]
            if isinstance(node, (*SCOPES, *COMPREHENSIONS, ast.Module)):
                out.append(node)
        return out

    # --- names -------------------------------------------------------------------------
    def is_global(self, name: str, node) -> bool:
        """Whether `name` read at `node` is the module's global of that name."""
        scopes = self.enclosing(node)
        for k, scope in enumerate(scopes):
            if isinstance(scope, ast.Module):
                return True
            if isinstance(scope, ast.ClassDef) and k > 0:
                continue  # a class body's names are not seen from the functions in it
            if name in _declared_global(scope):
                return True
            if name in _bound_in(scope):
                return False
        return True

    def bindings(self, name: str) -> int:
        """How many statements bind the global `name` (a `global` declaration: many)."""
        known = self._bindings.get(name)
        if known is None:
            known = len(self.global_bindings(name))
            if name in self.declared:
                known += 2
            self._bindings[name] = known
        return known

    def global_bindings(self, name: str) -> list[ast.AST]:
        """The module-level nodes that bind `name` (not inside a function or class)."""
        found = []
        stack = list(self.tree.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == name:
                    found.append(node)
                stack.extend(node.decorator_list)
                continue
            if isinstance(node, (ast.Lambda, *COMPREHENSIONS)):
                continue
            if _binds(node, name):
                found.append(node)
            stack.extend(ast.iter_child_nodes(node))
        return found

    def bound_once_at(self, name: str, line: int | None) -> bool:
        """`name` is bound by one plain assignment, run at most once (in no loop), on the
        lines of which `line` is one: the name means the value made there."""
        if line is None or self.bindings(name) != 1:
            return False
        (site,) = self.global_bindings(name)
        statement = self.statement(site)
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
            return False
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return False
        node = statement
        while id(node) in self.parent:
            node = self.parent[id(node)]
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                return False
        return statement.lineno <= line <= statement.end_lineno

    # --- what a branch surely does -----------------------------------------------------
    def operates(self, code, name: str, helpers: bool = True) -> bool:
        """Whether code, once entered, surely runs a framework operation on `name` (a
        tensor): `name * y`, `-name`, `name[i]`, `name > 0`, `tf.f(name)`, or a call of a
        plain module-level function that does one on that argument."""
        for node in _evaluated(code):
            if _operation_on(node, name):
                return True
            if isinstance(node, ast.Call) and self._call_operates(node, name, helpers):
                return True
        return False

    def _call_operates(self, call: ast.Call, name: str, helpers: bool) -> bool:
        args = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                break
            args.append(a)
        positions = [i for i, a in enumerate(args) if _is(a, name)]
        keywords = [k.arg for k in call.keywords if k.arg and _is(k.value, name)]
        if not positions and not keywords:
            return False
        qualified = self.qualified(call.func)
        if qualified is not None:
            module, _, function = qualified.rpartition(".")
            return module in OP_MODULES and function not in NOT_OPS
        if not helpers or not isinstance(call.func, ast.Name):
            return False
        fn = self.functions.get(call.func.id)
        if fn is None or self.bindings(fn.name) != 1 or _generator(fn):
            return False
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        chosen = [params[i] for i in positions if i < len(params)]
        chosen += [k for k in keywords if k in [a.arg for a in fn.args.args]]
        assigned = _assigned(fn.body)
        return any(p not in assigned and self.operates(fn.body, p, False) for p in chosen)

    def reads(self, code, name: str) -> bool:
        """Whether code loads `name` anywhere."""
        body = code if isinstance(code, list) else [code]
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            for stmt in body
            for n in ast.walk(stmt)
        )


def parse(text: str) -> Syntax | None:
    """The script's syntax, or None when it does not parse as it is held."""
    try:
        return Syntax(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _short(text: str, limit: int = 50) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _operation_on(node, name: str) -> bool:
    """A node that is an operation with `name` as a direct operand (a tensor's)."""
    if isinstance(node, ast.BinOp):
        formats = isinstance(node.op, ast.Mod) and not isinstance(node.left, ast.Name)
        return not formats and (_is(node.left, name) or _is(node.right, name))
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, TENSOR_UNARY) and _is(node.operand, name)
    if isinstance(node, ast.Compare) and isinstance(node.ops[0], TENSOR_COMPARE):
        return _is(node.left, name) or _is(node.comparators[0], name)
    if isinstance(node, ast.Subscript):
        return isinstance(node.ctx, ast.Load) and _is(node.value, name)
    if isinstance(node, ast.AugAssign):
        return _is(node.value, name)
    return False


def _is(node, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)


def _cond_sides(call: ast.Call):
    """The (true, false) lambdas of a tf.cond call, or None."""
    args = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    true = args[1] if len(args) > 1 else keywords.get("true_fn")
    false = args[2] if len(args) > 2 else keywords.get("false_fn")
    sides = (true, false)
    if all(isinstance(s, ast.Lambda) and not _has_params(s) for s in sides):
        return sides
    return None


def _has_params(fn) -> bool:
    a = fn.args
    return bool(a.posonlyargs or a.args or a.vararg or a.kwonlyargs or a.kwarg)


def _generator(fn) -> bool:
    return any(
        isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for stmt in fn.body for n in _own(stmt)
    )


def _evaluated(code):
    """The nodes evaluated, in no particular order, whenever code is entered: a block up to
    its first statement that may branch or leave, each expression without the parts that
    may be skipped (lambda bodies, the right of `and`/`or`, the sides of `x if c else y`,
    a comprehension's body)."""
    pending: list = []
    blocks = [iter(code)] if isinstance(code, list) else []
    if not isinstance(code, list):
        pending.append(code)
    while blocks:
        stmt = next(blocks[-1], None)
        if stmt is None:
            blocks.pop()
            continue
        if isinstance(stmt, ast.With):  # its body runs; what follows only if the body ends
            pending += [item.context_expr for item in stmt.items]
            if not _runs_through(stmt.body):
                blocks = blocks[:0]
            blocks.append(iter(stmt.body))
            continue
        if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)):
            pending.append(stmt)
            continue
        if isinstance(stmt, (ast.Pass, ast.Import, ast.ImportFrom, ast.Global)):
            continue
        if isinstance(stmt, ast.If):
            pending.append(stmt.test)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            pending.append(stmt.iter)
        elif isinstance(stmt, ast.While):
            pending.append(stmt.test)
        elif isinstance(stmt, STOPS):
            pending.append(stmt)
        blocks = []  # a branch, a loop, a return, try, match, def...: what follows may not run
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, SCOPES):
            continue
        if isinstance(node, ast.BoolOp):
            pending.append(node.values[0])
        elif isinstance(node, ast.IfExp):
            pending.append(node.test)
        elif isinstance(node, COMPREHENSIONS):
            pending.append(node.generators[0].iter)
        else:
            pending.extend(ast.iter_child_nodes(node))


def _runs_through(stmts) -> bool:
    """A block of simple statements only: it runs to its end (no branch, no return)."""
    simple = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Pass)
    return all(isinstance(s, simple) for s in stmts)


def _own(node):
    """A statement's nodes, not those of the scopes in it (a def or class is yielded: its
    name is bound where it is)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (*SCOPES, *COMPREHENSIONS)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def _binds(node, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in node.names)
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    return False


def _bound_in(scope) -> set[str]:
    """The names a function, lambda, class or comprehension binds itself."""
    names: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                names.add(arg.arg)
    if isinstance(scope, COMPREHENSIONS):
        body = [g.target for g in scope.generators]
    elif isinstance(scope, ast.Lambda):
        body = [scope.body]
    else:
        body = scope.body
    for stmt in body:
        for n in _own(stmt):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                names.add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name.split(".")[0]) for a in n.names)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                names.add(n.name)
            elif isinstance(n, ast.Nonlocal):
                names.update(n.names)
    return names


def _declared_global(scope) -> set[str]:
    if isinstance(scope, (ast.Lambda, *COMPREHENSIONS)):
        return set()
    return {
        name
        for stmt in scope.body
        for n in _own(stmt)
        if isinstance(n, ast.Global)
        for name in n.names
    }


def _assigned(stmts) -> list[str]:
    """The plain names statements bind (nested blocks included, nested scopes not)."""
    names: list[str] = []
    for stmt in stmts:
        for n in _own(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in names:
                names.append(n.id)
    return names

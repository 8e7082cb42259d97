"""The forward graph as SymPy expressions, and SymPy's own derivatives of it.

Tensors are numpy object arrays of SymPy expressions; each op's `sympy=` entry (see
ops/sym.py) maps its inputs to its output. Float inputs become symbols named after the
spec's inputs (`x`, or `w[0,1]` for an element of a tensor); nodes through which no
gradient flows are constants at their value (see reference.py). A custom function
becomes one SymPy Function per output element whose derivative (`fdiff`) is its `grad:`
expression, so SymPy's chain rule uses the custom gradient as given.

The sympy module is passed in: check.py is the only module that imports it. Expressions
are built with evaluation on, and never through `cse` (which gives wrong derivatives of
expressions built under `evaluate(False)`); numbers come from the derivatives printed as
`lambdify` prints them and evaluated in float64 by program.py (or from `lambdify` itself
for what program.py does not read), never from `evalf`.
"""

from __future__ import annotations

import time

import numpy as np

from gradcli.check import replay
from gradcli.check.conventions import CustomGradient, fit_value, follows, is_frozen, needed
from gradcli.core.graph import COND_OP, CONST_OP, CUSTOM_OP, INPUT_OP, Graph, is_float
from gradcli.core.ops import REGISTRY
from gradcli.core.ops.sym import NONFINITE, number, obj

OutOfTime = replay.OutOfTime  # the SymPy budget ran out between two steps


class Context:
    """One translation: the sympy module, the graph, the symbols and the custom functions."""

    def __init__(self, sp, graph: Graph, deadline: float | None = None):
        self.sp = sp
        self.graph = graph
        self.deadline = deadline
        self.symbols: dict[int, np.ndarray] = {}  # input or entry-target node -> symbols
        self.customs: dict[int, dict] = {}  # custom node id -> its translation (for check)
        self._numbers: dict = {}
        # the symbols standing for nan, inf and -inf, and their values
        self.fixed = {sp.Symbol(name, real=True): v for name, v in NONFINITE.items()}
        self.shown = {
            s: {"<nan>": sp.nan, "<inf>": sp.oo, "<-inf>": -sp.oo}[s.name] for s in self.fixed
        }

        class CustomApplication(sp.Function):
            """One output element of a custom function; its derivative is the grad: expression."""

            _jac: tuple = ()
            _body = None
            _params: tuple = ()

            @classmethod
            def eval(cls, *args):
                return None

            def fdiff(self, argindex=1):
                entry = self._jac[argindex - 1]
                return entry.xreplace(dict(zip(self._params, self.args)))

            def body(self):
                return self._body.xreplace(dict(zip(self._params, self.args)))

        self.application = CustomApplication

    def tick(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime

    def constant(self, value) -> np.ndarray:
        """A value at the point as an object array of SymPy numbers."""
        arr = np.asarray(value)
        out = np.empty(arr.shape, dtype=object)
        cache = self._numbers
        for k, v in enumerate(arr.reshape(-1).tolist()):
            key = repr(float(v))  # nan is a key too
            if key not in cache:
                cache[key] = number(self.sp, float(v))
            out.reshape(-1)[k] = cache[key]
        return out

    def symbols_for(self, i: int, name: str) -> np.ndarray:
        """The symbols standing for node i: `name`, or `name[i,j]` for each element."""
        if i not in self.symbols:
            shape = self.graph[i].shape
            out = np.empty(shape, dtype=object)
            for idx in np.ndindex(shape):
                label = name if not shape else f"{name}[{','.join(map(str, idx))}]"
                out[idx] = self.sp.Symbol(label, real=True)
            self.symbols[i] = out
        return self.symbols[i]

    def placeholders(self, shape) -> np.ndarray:
        out = np.empty(shape, dtype=object)
        for idx in np.ndindex(shape):
            out[idx] = self.sp.Dummy(real=True)
        return out

    # --- translation ------------------------------------------------------------------------
    def translate(self, roots, values: dict, env=None, entries=()) -> tuple[dict, dict]:
        """(expressions, natural) for the roots and what they need.

        env presets nodes (placeholders); each node in `entries` is replaced by its own
        symbols downstream, its translated expression kept in `natural`.
        """
        env = dict(env or {})
        graph = self.graph
        exprs: dict[int, np.ndarray] = dict(env)
        natural: dict[int, np.ndarray] = {}
        live = set(env)
        entries = set(entries)
        for count, i in enumerate(needed(graph, roots, stop=env)):
            if i in env:
                continue
            if count % 32 == 0:
                self.tick()
            node = graph[i]
            if node.op == INPUT_OP and is_float(node.dtype):
                e = self.symbols_for(i, node.name or f"input{i}")
                live.add(i)
            elif node.op in (INPUT_OP, CONST_OP):
                e = self.constant(node.attrs["value"])
            elif is_frozen(node) or (
                node.op != CUSTOM_OP and not any(j in live for j in follows(node))
            ):
                e = self.constant(values[i])
            else:
                live.add(i)
                e = self._node(node, exprs, values)
            if i in entries:
                natural[i] = e
                e = self.symbols_for(i, node.name or f"{node.op}{i}")
                live.add(i)
            exprs[i] = e
        return exprs, natural

    def _node(self, node, exprs, values) -> np.ndarray:
        if node.op == COND_OP:
            e = exprs[node.inputs[node.attrs["taken"]]]
        elif node.op == CUSTOM_OP:
            e = self._custom(node, exprs, values)
        else:
            rule = REGISTRY[node.op].sympy
            if rule is None:
                raise NotImplementedError(f"no SymPy translation for {node.op}")
            args = [exprs[j] for j in node.inputs]
            vals = [np.asarray(values[j]) for j in node.inputs]
            e = obj(rule(self.sp, node.attrs, args, vals))
        if e.shape != node.shape:
            e = np.broadcast_to(e, node.shape)
        return e

    def _custom(self, node, exprs, values) -> np.ndarray:
        """One Function per output element, with the grad: expression as its derivative."""
        sp, graph = self.sp, self.graph
        params = list(node.diff)
        holders = {j: self.placeholders(graph[node.inputs[j]].shape) for j in params}
        env = {node.inputs[j]: holders[j] for j in params}
        body = node.inputs[-1]
        body_expr = self.translate([body], values, env)[0][body]
        grad = CustomGradient(graph, node, values)
        dy = self.placeholders(node.shape)
        genv = {**env, node.id: body_expr, grad.dy: dy}
        roots = [r for r in grad.results.values() if r is not None]
        gexprs = self.translate(roots, grad.values, genv)[0] if roots else {}
        slot = {d: k for k, d in enumerate(dy.reshape(-1))}
        ones = {d: sp.Integer(1) for d in slot}
        flat = [p for j in params for p in holders[j].reshape(-1)]
        jac = [[sp.Integer(0)] * len(flat) for _ in range(node.size)]
        given: dict[int, bool] = {}
        col = 0
        for j in params:
            r = grad.results[j]
            size = graph[node.inputs[j]].size
            given[j] = r is not None
            if r is not None:
                fitted = fit_value(gexprs[r], graph[node.inputs[j]].shape)
                for jj, g in enumerate(fitted.reshape(-1)):
                    # the gradient is linear in dy: its coefficient of dy[k] is d out[k]/d p
                    for d in sp.sympify(g).free_symbols & slot.keys():
                        jac[slot[d]][col + jj] = sp.diff(g, d).xreplace(ones)
            col += size
        args = [a for j in params for a in exprs[node.inputs[j]].reshape(-1)]
        out = np.empty(node.shape, dtype=object)
        name = node.attrs.get("function", "custom")
        for k in range(node.size):
            attrs = {
                "_jac": tuple(jac[k]),
                "_body": body_expr.reshape(-1)[k],
                "_params": tuple(flat),
            }
            cls = type(f"{name}_{node.id}_{k}", (self.application,), attrs)
            out.reshape(-1)[k] = cls(*args)
        self.customs[node.id] = {
            "params": params,
            "holders": holders,
            "jac": jac,
            "body": body_expr,
            "given": given,
        }
        return out

    # --- after differentiation ------------------------------------------------------------
    def expand(self, expr):
        """expr with every custom application replaced by its body (for numbers and display)."""
        sp = self.sp
        expr = sp.sympify(expr)
        app = self.application
        while expr.has(app):
            self.tick()
            expr = expr.replace(lambda e: isinstance(e, app), lambda e: e.body())
        return expr.xreplace({sp.zoo: sp.nan})

    def numbers(self, exprs: list, bindings: dict, code: list | None = None) -> np.ndarray:
        """The expressions' float64 values at the point: printed as lambdify prints them and
        evaluated by program.py (no compiling), else through one lambdify (no cse). What
        was evaluated (the texts, or the lambdified function) is appended to `code`."""
        from gradcli.check import program

        sp = self.sp
        if not exprs:
            return np.zeros(0)
        expanded = []
        for e in exprs:
            self.tick()
            expanded.append(self.expand(e))
        syms = list(bindings)
        try:
            texts = program.from_sympy(sp, expanded, syms)
            trees = [program.parse(t, len(syms)) for t in texts]
        except program.Refused:
            texts = None
        self.tick()
        if texts is not None:
            if code is not None:
                code.append(texts)
            return program.values(trees, [bindings[s] for s in syms])
        fn = sp.lambdify(syms, expanded, modules="numpy", dummify=True, cse=False)
        if code is not None:
            code.append(fn)
        self.tick()
        with np.errstate(all="ignore"):
            raw = fn(*[np.float64(bindings[s]) for s in syms])
        return np.array([_real(v) for v in raw], dtype=np.float64)

    def bindings(self, values: dict) -> dict:
        """Every symbol's value at the point."""
        out = dict(self.fixed)
        for i, syms in self.symbols.items():
            # a target the outputs never compute has no value; its derivative is 0 anyway
            value = values.get(i, np.zeros(self.graph[i].shape))
            vals = np.broadcast_to(np.asarray(value, dtype=np.float64), syms.shape).reshape(-1)
            for s, v in zip(syms.reshape(-1), vals):
                out[s] = float(v)
        return out


def _real(v) -> float:
    c = complex(v)
    return c.real if c.imag == 0 else float("nan")


def substitute(ctx: Context, expr, natural: dict, after: int = -1):
    """expr with the symbols of the entry targets above `after` replaced by their expressions
    (replay.substitute)."""
    pairs = [(i, ctx.symbols[i].reshape(-1), natural[i].reshape(-1)) for i in sorted(natural)]
    return replay.substitute(expr, pairs, after, ctx.tick)


def loss(ctx: Context, problem, exprs: dict):
    """sum over outputs of <grad_ys, output>, as a SymPy expression."""
    sp = ctx.sp
    terms = []
    for o, seed in zip(problem.outputs, problem.seeds):
        node = ctx.graph[o]
        if not is_float(node.dtype):
            continue
        weights = np.broadcast_to(np.ones(()) if seed is None else np.asarray(seed), node.shape)
        for w, e in zip(weights.reshape(-1).tolist(), exprs[o].reshape(-1)):
            if w:
                terms.append(e if w == 1 else number(sp, w) * e)
    return sp.Add(*terms)


def translate_problem(ctx: Context, problem, values: dict):
    """(expressions, natural) of the outputs, with the float entry targets as symbols."""
    graph = ctx.graph
    floats = [t for t in problem.wrt if is_float(graph[t].dtype)]
    entries = [t for t in floats if graph[t].op != INPUT_OP]
    roots = [o for o in problem.outputs if is_float(graph[o].dtype)]
    exprs, natural = ctx.translate(roots, values, entries=entries)
    for t in floats:
        if t not in ctx.symbols:  # a target the outputs do not use
            ctx.symbols_for(t, graph[t].name or f"node{t}")
    return exprs, natural


def gradients(ctx: Context, problem, exprs: dict, natural: dict) -> dict[int, np.ndarray]:
    """Per float target, the object array of d loss / d target (custom applications kept)."""
    graph = ctx.graph
    total = loss(ctx, problem, exprs)
    full = substitute(ctx, total, natural)
    out = {}
    for t in problem.wrt:
        if not is_float(graph[t].dtype):
            continue
        f = full if graph[t].op == INPUT_OP else substitute(ctx, total, natural, after=t)
        grads = np.empty(graph[t].size, dtype=object)
        for k, d in enumerate(replay.differentiate(f, ctx.symbols[t].reshape(-1), ctx.tick)):
            grads[k] = d
        out[t] = grads.reshape(graph[t].shape)
    return out


SMALL = 16  # formulas are shown for tensors of at most this many elements
LONGEST = 2000  # characters of one formula


def formulas(ctx: Context, problem, exprs: dict, natural: dict) -> list[dict]:
    """d output / d input as formulas in the spec's names (element 0 of small tensors)."""
    sp, graph = ctx.sp, ctx.graph
    out = []
    for o in problem.outputs:
        onode = graph[o]
        for t in problem.wrt:
            tnode = graph[t]
            rec = {
                "output": _first(onode.name, onode.shape),
                "input": _first(tnode.name, tnode.shape),
                "formula": None,
                "pretty": None,
                "pretty_ascii": None,
                "note": None,
            }
            out.append(rec)
            if not (is_float(onode.dtype) and is_float(tnode.dtype)):
                rec["note"] = "not a float tensor: no derivative"
                continue
            big = [n for n in (onode, tnode) if n.size > SMALL or n.size == 0]
            if big:
                rec["note"] = (
                    f"{big[0].name} has {big[0].size:,} elements; formulas are shown for "
                    f"tensors of 1 to {SMALL} elements"
                )
                continue
            after = -1 if tnode.op == INPUT_OP else t
            e = substitute(ctx, exprs[o].reshape(-1)[0], natural, after=after)
            d = ctx.expand(sp.diff(e, ctx.symbols[t].reshape(-1)[0]))
            d = d.xreplace(ctx.shown)
            d = d.xreplace({f: sp.Float(f, 15) for f in d.atoms(sp.Float)})
            text = str(d)
            if len(text) > LONGEST:
                rec["note"] = f"the formula has {len(text):,} characters; not shown"
                continue
            rec["formula"] = text
            rec["pretty"] = sp.pretty(d, use_unicode=True)
            rec["pretty_ascii"] = sp.pretty(d, use_unicode=False)
    return out


def _first(name: str, shape) -> str:
    return name if not shape else f"{name}[{','.join('0' for _ in shape)}]"


def custom_jacobians(ctx: Context, values: dict, ids) -> dict[int, dict]:
    """For the custom calls `ids` (translated): per parameter, the Jacobian its grad: gives
    and the true Jacobian of its body, at the point (None where grad: gives no gradient)."""
    sp, graph = ctx.sp, ctx.graph
    out = {}
    for node_id in ids:
        info = ctx.customs[node_id]
        node = graph[node_id]
        bindings = dict(ctx.fixed)
        for j in info["params"]:
            vals = np.asarray(values[node.inputs[j]], dtype=np.float64).reshape(-1)
            bindings.update(zip(info["holders"][j].reshape(-1), vals.tolist()))
        body = info["body"].reshape(-1)
        given, true = {}, {}
        col = 0
        for j in info["params"]:
            holders = info["holders"][j].reshape(-1)
            rows = range(node.size)
            cols = range(col, col + holders.size)
            col += holders.size
            body_d = [sp.diff(body[k], p) for k in rows for p in holders]
            true[j] = ctx.numbers(body_d, bindings).reshape(node.size, holders.size)
            if info["given"][j]:
                entries = [info["jac"][k][c] for k in rows for c in cols]
                given[j] = ctx.numbers(entries, bindings).reshape(node.size, holders.size)
            else:
                given[j] = None
        out[node_id] = {"given": given, "true": true}
    return out

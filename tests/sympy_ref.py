"""An independent reference for derivative tests: a gradcli forward graph as SymPy expressions.

Chosen inputs become one SymPy symbol per element; every other input is a constant.
Branches (relu, where, cond, maximum, comparisons) are decided numerically at the point,
which gives the function's local closed form, exact for derivatives away from kinks.
Derivatives are taken by sympy.diff and evaluated at the point with 30 digits.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from gradcli.core.executor import resolve_conds
from gradcli.core.ops.infer import normalize_axes


class Unsupported(Exception):
    """An op this reference does not translate (tests skip such specs)."""


def _obj(value) -> np.ndarray:
    arr = np.empty(np.shape(value), dtype=object)
    flat = np.asarray(value).ravel()
    out = arr.reshape(-1)
    for k, v in enumerate(flat.tolist()):
        out[k] = v if isinstance(v, bool) else sp.Float(repr(float(v)), 40)
    return arr


def _map(fn, arr) -> np.ndarray:
    out = np.empty(np.shape(arr), dtype=object)
    src = np.asarray(arr, dtype=object)
    flat_out, flat_src = out.reshape(-1), src.reshape(-1)
    for k in range(src.size):
        flat_out[k] = fn(flat_src[k])
    return out


class SympyGraph:
    """SymPy expressions for every forward node of a problem's graph."""

    def __init__(self, problem, symbolic):
        graph = problem.graph
        resolve_conds(graph, problem.outputs, {})
        self.graph = graph
        self.symbols: dict[str, np.ndarray] = {}
        self.point: dict = {}
        self.values: dict[int, np.ndarray] = {}
        for name in symbolic:
            node = graph.node(name)
            syms = np.empty(node.shape, dtype=object)
            flat = syms.reshape(-1)
            value = np.asarray(node.attrs["value"], dtype=float).ravel()
            for k in range(node.size):
                flat[k] = sp.Symbol(f"{name}_{k}")
                self.point[flat[k]] = sp.Float(repr(float(value[k])), 40)
            self.symbols[name] = syms
        needed = graph.ancestors(problem.outputs)
        for i in range(len(graph)):
            if needed[i]:
                self.values[i] = np.asarray(self.translate(graph[i]), dtype=object)

    def num(self, e) -> float:
        """The numeric value of an expression at the point."""
        if isinstance(e, bool):
            return e
        return float(sp.sympify(e).xreplace(self.point).evalf(30))

    def nums(self, arr) -> np.ndarray:
        return _map(self.num, arr).astype(float) if np.size(arr) else np.zeros(np.shape(arr))

    def translate(self, node):
        v = [self.values[j] for j in node.inputs]
        a = node.attrs
        op = node.op
        if op == "input":
            return self.symbols[node.name] if node.name in self.symbols else _obj(a["value"])
        if op == "const":
            return _obj(a["value"])
        if op in ("add", "sub", "mul", "div"):
            x, y = np.broadcast_arrays(*v)
            fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op]
            return fn(x, y)
        if op == "pow":
            x, y = np.broadcast_arrays(*v)
            return np.power(x, y)
        if op == "neg":
            return -v[0]
        unary = {
            "sin": sp.sin,
            "cos": sp.cos,
            "tan": sp.tan,
            "exp": sp.exp,
            "log": sp.log,
            "sqrt": sp.sqrt,
            "tanh": sp.tanh,
            "square": lambda t: t**2,
            "sigmoid": lambda t: 1 / (1 + sp.exp(-t)),
            "softplus": lambda t: sp.log(1 + sp.exp(t)),
            "log1p": lambda t: sp.log(1 + t),
        }
        if op in unary:
            return _map(unary[op], v[0])
        if op == "relu":
            return _map(lambda t: t if self.num(t) > 0 else sp.Integer(0), v[0])
        if op == "abs":
            return _map(lambda t: t if self.num(t) >= 0 else -t, v[0])
        if op in ("identity", "broadcast_to", "reshape", "transpose", "getitem"):
            if op == "broadcast_to":
                return np.broadcast_to(v[0], a["shape"]).copy()
            if op == "reshape":
                return np.reshape(v[0], a["shape"])
            if op == "transpose":
                return np.transpose(v[0], a.get("axes"))
            if op == "getitem":
                return np.asarray(v[0][a["index"]], dtype=object)
            return v[0]
        if op == "round":  # half to even, as numpy and TensorFlow; a constant here
            return _obj(np.round(self.nums(v[0])))
        if op == "stop_gradient":
            return _obj(self.nums(v[0]))
        if op in ("greater", "less", "greater_equal", "less_equal", "equal", "not_equal"):
            cmp = getattr(np, op)  # numpy names these six comparisons as gradcli does
            return cmp(self.nums(v[0]), self.nums(v[1])).astype(object)
        if op == "cast":
            if node.dtype in ("float32", "float64"):
                return _map(lambda t: sp.Integer(1 if t else 0) if isinstance(t, bool) else t, v[0])
            return _obj(self.nums(v[0]).astype(node.dtype))
        if op == "cond":
            return np.broadcast_to(v[a["taken"]], node.shape).copy()
        if op == "where":
            c, x, y = np.broadcast_arrays(*v)
            return np.where(c.astype(bool), x, y)
        if op in ("maximum", "minimum"):
            x, y = np.broadcast_arrays(*v)
            nx, ny = self.nums(x), self.nums(y)
            first = nx >= ny if op == "maximum" else nx <= ny
            return np.where(first, x, y)
        if op in ("sum", "mean", "logsumexp"):
            x = v[0]
            axes = normalize_axes(op, a.get("axis"), x.ndim)
            keep = bool(a.get("keepdims"))
            if op == "logsumexp":
                x = _map(sp.exp, x)
            total = np.asarray(np.sum(x, axis=axes, keepdims=keep), dtype=object)
            if op == "mean":
                count = x.size // max(total.size, 1)
                total = total / count
            return _map(sp.log, total) if op == "logsumexp" else total
        if op == "softmax":
            e = _map(sp.exp, v[0])
            return e / np.sum(e, axis=a.get("axis", -1), keepdims=True)
        if op == "matmul":
            return np.asarray(np.matmul(v[0], v[1]), dtype=object)
        if op == "custom":  # the value of a custom-gradient call is its body's (last input)
            return v[-1]
        if op == "concat":
            return np.concatenate(v, axis=a.get("axis", 0))
        if op == "stack":
            return np.stack(v, axis=a.get("axis", 0))
        raise Unsupported(op)

    def jacobian(self, output: str, wrt: str, entries=None) -> np.ndarray:
        """d output / d wrt at the point, of shape shape(output) + shape(wrt).

        entries limits it to some (i, j) flat pairs (the rest is NaN).
        """
        y = np.asarray(self.values[self.graph.names[output]], dtype=object).reshape(-1)
        xs = self.symbols[wrt]
        out = np.full((y.size, xs.size), np.nan)
        pairs = entries or [(i, j) for i in range(y.size) for j in range(xs.size)]
        flat_x = xs.reshape(-1)
        for i, j in pairs:
            yi = y[i]
            out[i, j] = self.num(sp.diff(yi, flat_x[j])) if not isinstance(yi, bool) else 0.0
        return out.reshape(self.values[self.graph.names[output]].shape + xs.shape)

    def hessian(self, output: str, a: str, b: str, entries=None) -> np.ndarray:
        """d2 output / da db (output scalar); entries limits it to some (j, k) flat pairs."""
        y = np.asarray(self.values[self.graph.names[output]], dtype=object)[()]
        xa, xb = self.symbols[a].reshape(-1), self.symbols[b].reshape(-1)
        out = np.full((xa.size, xb.size), np.nan)
        pairs = entries or [(j, k) for j in range(xa.size) for k in range(xb.size)]
        first: dict[int, object] = {}
        for j, k in pairs:
            if j not in first:
                first[j] = sp.diff(y, xa[j])
            out[j, k] = self.num(sp.diff(first[j], xb[k]))
        return out.reshape(self.symbols[a].shape + self.symbols[b].shape)

"""Central finite differences in float64 on the forward graph, with the core's conventions.

The function differentiated is the loss sum_k <grad_ys_k, y_k> computed in float64 (a
float32 spec included), with what the core's gradient treats as constant held at its
value at the point (reference.py) and every kink frozen on the side the core's gradient
takes there: relu(x) is x where x > 0 at the point and its value elsewhere, a tie in
maximum selects the first argument, a max reduction is the mean of its tied elements,
cumprod's zero elements are constants (its gradient is 0 there, as TensorFlow's), a
custom function is linear with the Jacobian its `grad:` expression gives. Differences
across a kink would otherwise average both sides.

Each element is perturbed by h = 2**-10 * max(|x|, 1), and by h/2; Richardson's
combination of the two central differences is the estimate, and a third of their
difference (plus a rounding term) its error. When that error is above the tolerance, or
a step leaves the function's domain (log of a negative number), the step shrinks.
"""

from __future__ import annotations

import math
import time

import numpy as np

from gradcli.check.conventions import CustomGradient, follows, needed
from gradcli.core.graph import Graph, is_float
from gradcli.core.ops import REGISTRY, Behavior
from gradcli.runtime import limits

EPS = float(np.finfo(np.float64).eps)
STEP = 2.0**-10
ATTEMPTS = 4
MAX_CUSTOM_OUTPUT = 4096  # elements of a custom function's output that FD can linearize


class Unavailable(Exception):
    """Finite differences cannot give a reference here (the message says why)."""


def to64(value):
    """A value in float64 when it is a float (0-d float64 as a Python float)."""
    arr = np.asarray(value)
    if arr.dtype.kind != "f":
        return value
    arr = arr.astype(np.float64, copy=False)
    return float(arr) if arr.shape == () else arr


class Loss:
    """The loss as a function of one target's value, everything else at the point."""

    def __init__(self, problem, values: dict):
        self.graph: Graph = problem.graph
        graph = self.graph
        self.outputs = [
            (o, None if s is None else np.asarray(s, dtype=np.float64))
            for o, s in zip(problem.outputs, problem.seeds)
            if is_float(graph[o].dtype)
        ]
        self.order = needed(graph, [o for o, _ in self.outputs])
        self.raw = values
        self.base = {i: to64(values[i]) for i in self.order if i in values}
        self.jacobians: dict[int, dict] = {}
        self.forwards: dict[int, object] = {}
        self.evaluations = 0

    def chain(self, t: int) -> list[int]:
        """The nodes to recompute when target t changes, in order."""
        moved = {t}
        nodes = self.graph.nodes
        out = []
        for i in self.order:
            if i > t and any(j in moved for j in follows(nodes[i])):
                moved.add(i)
                out.append(i)
        return out

    def run(self, t: int, value, chain: list[int]) -> dict:
        """The values of the chain's nodes when target t has `value`."""
        self.evaluations += 1
        cur = {t: value}
        with np.errstate(all="ignore"):
            for i in chain:
                cur[i] = self._node(self.graph[i], cur)
        return cur

    def __call__(self, t: int, value, chain: list[int]) -> float:
        """The loss at the moved point; NaN where an op cannot be evaluated there (TensorFlow
        raises: a solver that fails on a NaN matrix), as at a point outside the domain."""
        try:
            cur = self.run(t, value, chain)
        except (ArithmeticError, ValueError):
            return math.nan
        with np.errstate(all="ignore"):
            total = 0.0
            for o, seed in self.outputs:
                if o in cur:
                    y = np.asarray(cur[o], dtype=np.float64)
                    total += float(np.sum(y if seed is None else seed * y))
        return total

    def _node(self, node, cur):
        base = self.base
        args = [cur[j] if j in cur else base.get(j) for j in follows(node)]
        spec = REGISTRY[node.op]
        if spec.behavior is Behavior.BRANCH:
            taken = args[0]
            return taken if np.shape(taken) == node.shape else np.broadcast_to(taken, node.shape)
        if spec.behavior is Behavior.CUSTOM:
            return self._custom(node, dict(zip(node.diff, args)))
        if callable(spec.at_point):  # a kink or tie frozen on the core's side (see Op.at_point)
            return spec.at_point(node, args, [self.raw[j] for j in node.inputs])
        if spec.scalar is not None and node.shape == () and all(type(a) is float for a in args):
            try:
                return spec.scalar(*args)
            except (ArithmeticError, ValueError):
                pass
        fn = self.forwards.get(node.id)
        if fn is None:
            fn = self.forwards[node.id] = spec.fn(node.attrs)
        return fn(*args)

    def _custom(self, node, args):
        jac = self.jacobians.get(node.id)
        if jac is None:
            if node.size > MAX_CUSTOM_OUTPUT:
                raise Unavailable(
                    f"the output of {node.attrs.get('function')} has {node.size:,} elements, "
                    f"over the {MAX_CUSTOM_OUTPUT:,} finite differences can linearize"
                )
            jac = CustomGradient(self.graph, node, self.raw).jacobians(self.graph)
            self.jacobians[node.id] = jac
        out = np.array(self.base[node.id], dtype=np.float64)
        for j, matrix in jac.items():
            if matrix is not None:
                delta = np.ravel(np.asarray(args[j], dtype=np.float64) - self.base[node.inputs[j]])
                moved = np.flatnonzero(delta)  # one element, when one element is perturbed
                out = out + (matrix[:, moved] @ delta[moved]).reshape(node.shape)
        return out[()]


def _central(loss: Loss, t, chain, x0, direction, h) -> tuple[float, float]:
    """(central difference along direction with step h, the largest |loss| seen)."""
    up = loss(t, _shifted(x0, direction, h), chain)
    down = loss(t, _shifted(x0, direction, -h), chain)
    return (up - down) / (2 * h), max(abs(up), abs(down))


def _shifted(x0, direction, h):
    if isinstance(direction, int):  # one element
        if np.ndim(x0) == 0:
            return x0 + h
        x = np.array(x0, dtype=np.float64, order="C")  # reshape(-1) must be a view
        x.reshape(-1)[direction] += h
        return x
    return x0 + h * direction


def derivative(
    loss: Loss, t, chain, x0, direction, scale, rtol, atol, deadline=None
) -> tuple[float, float]:
    """(estimate, error estimate) of d loss along direction (an element index or an array);
    past the deadline no smaller step is tried."""
    h = STEP * max(scale, 1.0)
    best = (math.nan, math.nan)
    for attempt in range(ATTEMPTS):
        if attempt and deadline is not None and time.monotonic() > deadline:
            break
        d1, f1 = _central(loss, t, chain, x0, direction, h)
        d2, f2 = _central(loss, t, chain, x0, direction, h / 2)
        if not (math.isfinite(d1) and math.isfinite(d2)):
            h /= 16  # a step left the domain (log of a negative number, a pole): come closer
            continue
        estimate = d2 + (d2 - d1) / 3  # Richardson: the h**2 error terms cancel
        error = abs(d2 - d1) / 3 + 16 * EPS * max(f1, f2) / h
        if math.isnan(best[1]) or error < best[1]:
            best = (estimate, error)
        if error <= atol + rtol * abs(estimate):
            break
        h /= 8
    return best


def choose_elements(autodiff, size: int, quota: int) -> list[int]:
    """All elements when they fit the quota, else the largest |gradient| and a seeded sample."""
    if size <= quota:
        return list(range(size))
    picked = []
    if autodiff is not None:
        flat = np.abs(np.nan_to_num(np.asarray(autodiff, dtype=np.float64).reshape(-1)))
        picked = [int(i) for i in np.argsort(-flat, kind="stable")[: max(quota // 4, 1)]]
    rest = np.setdiff1d(np.arange(size), picked)
    rng = np.random.default_rng(0)
    extra = rng.choice(rest, size=quota - len(picked), replace=False).tolist()
    return sorted(picked + [int(i) for i in extra])


def gradients(problem, values: dict, autodiff: dict, tolerances: dict, cap=None) -> dict:
    """Per float target id: {estimate, error, checked, directional} (NaN where not checked);
    at most `cap` elements in all (default limits.fd_max_elements) are perturbed."""
    loss = Loss(problem, values)
    graph = problem.graph
    targets = [t for t in problem.wrt if is_float(graph[t].dtype)]
    total = sum(graph[t].size for t in targets)
    cap = limits.current.fd_max_elements if cap is None else cap
    deadline = time.monotonic() + limits.current.fd_timeout
    out = {}
    for t in targets:
        node = graph[t]
        rtol, atol = tolerances[t]
        chain = loss.chain(t)
        x0 = to64(values[t]) if t in values else np.zeros(node.shape)
        quota = node.size if total <= cap else max(1, cap * node.size // total)
        picked = choose_elements(autodiff.get(t), node.size, quota)
        estimate = np.full(node.size, np.nan)
        error = np.full(node.size, np.nan)
        flat0 = np.reshape(x0, -1)
        done = []
        for k in picked:
            if time.monotonic() > deadline:
                break  # out of time: the elements left are reported as not checked
            xk = float(flat0[k])
            if math.isfinite(xk):
                estimate[k], error[k] = derivative(
                    loss, t, chain, x0, k, abs(xk), rtol, atol, deadline
                )
            done.append(k)
        mask = np.zeros(node.size, dtype=bool)
        mask[done] = True
        record = {
            "estimate": estimate.reshape(node.shape),
            "error": error.reshape(node.shape),
            "mask": mask.reshape(node.shape),
            "directional": None,
            "out_of_time": len(done) < len(picked),
        }
        if len(picked) < node.size and time.monotonic() <= deadline:
            record["directional"] = _directional(loss, t, chain, x0, autodiff.get(t), rtol, atol)
        out[t] = record
    out["evaluations"] = loss.evaluations
    return out


def _directional(loss, t, chain, x0, autodiff, rtol, atol) -> dict:
    """The derivative along a seeded random direction, which every element contributes to."""
    rng = np.random.default_rng(1)
    v = rng.uniform(-1.0, 1.0, size=np.shape(x0))
    scale = float(np.max(np.abs(x0))) if np.size(x0) else 1.0
    estimate, error = derivative(loss, t, chain, x0, v, scale, rtol, atol)
    g = np.zeros(np.shape(x0)) if autodiff is None else np.asarray(autodiff, dtype=np.float64)
    return {
        "autodiff": float(np.sum(g * v)),
        "reference": estimate,
        "error": error,
        "tolerance": atol * float(np.sum(np.abs(v))) + rtol * abs(estimate) + 2 * error,
    }


def body_jacobians(problem, values: dict, node_id: int, columns: dict) -> dict[int, tuple]:
    """Per float parameter j of a custom call: (d body / d parameter, its error estimate),
    for the parameter's elements columns[j] only (one column each)."""
    graph = problem.graph
    node = graph[node_id]
    body = node.inputs[-1]
    loss = Loss(_BodyProblem(graph, body), values)
    out = {}
    for j in node.diff:
        p = node.inputs[j]
        chain = loss.chain(p)
        x0 = to64(values[p])
        flat0 = np.reshape(x0, -1)
        jac = np.zeros((node.size, len(columns[j])))
        err = np.zeros_like(jac)
        for c, m in enumerate(columns[j]):
            jac[:, c], err[:, c] = _column(loss, p, chain, x0, m, abs(float(flat0[m])), body)
        out[j] = (jac, err)
    return out


def _column(loss, p, chain, x0, m, scale, body):
    """d body / d p[m] for every element of the body, with an error estimate."""
    h = STEP * max(scale, 1.0)
    for _ in range(ATTEMPTS):
        d = []
        for step in (h, h / 2):
            up = np.asarray(loss.run(p, _shifted(x0, m, step), chain).get(body, 0.0))
            down = np.asarray(loss.run(p, _shifted(x0, m, -step), chain).get(body, 0.0))
            d.append(np.reshape((up - down) / (2 * step), -1).astype(np.float64))
        if np.all(np.isfinite(d[0])) and np.all(np.isfinite(d[1])):
            return d[1] + (d[1] - d[0]) / 3, np.abs(d[1] - d[0]) / 3
        h /= 16
    return np.full(d[0].shape, np.nan), np.full(d[0].shape, np.nan)


class _BodyProblem:
    """The body of a custom call as a problem whose one output is the body's value."""

    def __init__(self, graph: Graph, body: int):
        self.graph = graph
        self.outputs = [body]
        self.seeds = [None]

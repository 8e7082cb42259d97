"""Hand-written floors: the same computations as the generated specs, written directly.

- chain: a pure-Python Wengert tape (values as floats, the math module, one record of
  input ids and local partials per node, then one reverse sweep);
- mlp: NumPy forward and hand-derived backprop;
- elementwise: NumPy with every output buffer allocated once and reused (out=);
- points: the 20-node function vectorised over all points with NumPy;
- einsum and gather: the forward and the hand-derived gradients with np.einsum, np.take and
  np.add.at (NumPy's scatter-add for repeated indices);
- output: the elementwise loss and its gradient written as eval's JSON document (json.dumps
  of lists) or as eval --save's .npz (np.savez), by a whole NumPy script.
"""

from __future__ import annotations

import math

import numpy as np

from specs import CHAIN_X0, chain_ops


def chain_tape(n: int) -> tuple[float, float]:
    """Forward and gradient of the chain on a generic tape; returns (output, d output/d x0)."""
    ops = chain_ops(n)
    values = [CHAIN_X0]
    tape = [()]  # per node: ((input id, partial), ...)
    sin, cos = math.sin, math.cos
    for i, (op, c) in enumerate(ops):
        x = values[i]
        if op == "sin":
            values.append(sin(x))
            tape.append(((i, cos(x)),))
        elif op == "mul":
            values.append(x * c)
            tape.append(((i, c),))
        else:
            values.append(x - c)
            tape.append(((i, 1.0),))
    adj = [0.0] * len(values)
    adj[-1] = 1.0
    for k in range(len(values) - 1, 0, -1):
        a = adj[k]
        for j, d in tape[k]:
            adj[j] += a * d
    return values[-1], adj[0]


# --- the chain's stages, each as the least pure Python could do it ------------------------------
# (benchmarks/run.py's chain stage rows: gradcli's reading, lowering, gradient construction
# and execution of the chain spec, each against one of these on the same spec text)
def chain_yaml(text: str):
    """YAML: PyYAML's C loader, the whole document to Python objects."""
    import yaml

    return yaml.load(text, Loader=yaml.CSafeLoader)


def chain_parse(exprs: list[str]) -> list:
    """Parsing: Python's own parser (C) on every graph expression."""
    import ast

    return [ast.parse(e, mode="eval").body for e in exprs]


def chain_lower(inputs: dict, entries: list[tuple[str, object]]) -> list[tuple]:
    """Lowering: Python ASTs to tape records (op, input ids, constant), names resolved."""
    import ast

    ids = {name: k for k, name in enumerate(inputs)}
    records: list[tuple] = [("input", (), float(v)) for v in inputs.values()]
    for name, tree in entries:
        if type(tree) is ast.Call:
            rec = (tree.func.id, (ids[tree.args[0].id],), 0.0)
        else:
            op = "mul" if type(tree.op) is ast.Mult else "sub"
            rec = (op, (ids[tree.left.id],), float(tree.right.value))
        ids[name] = len(records)
        records.append(rec)
    return records


def chain_grad_records(records: list[tuple]) -> list[tuple]:
    """Gradient construction: one reverse sweep appending the gradient's own records (the
    adjoint of each node as new records: d sin = g * cos(x), d (x * c) = g * c, d (x - c) = g)."""
    grads = list(records)
    adj = {len(records) - 1: ("one",)}
    for k in range(len(records) - 1, 0, -1):
        g = adj.pop(k, None)
        op, ins, c = records[k]
        if g is None or not ins:
            continue
        if op == "sin":
            grads.append(("cos", ins, 0.0))
            grads.append(("mul", (len(grads) - 1, g), 0.0))
            adj[ins[0]] = len(grads) - 1
        elif op == "mul":
            grads.append(("mul", (g,), c))
            adj[ins[0]] = len(grads) - 1
        else:
            adj[ins[0]] = g
    return grads


def chain_end_to_end(path: str) -> tuple[float, float]:
    """The whole-process floor: read the spec with PyYAML's C loader, then the tape."""
    with open(path) as fh:
        doc = chain_yaml(fh.read())
    return chain_tape(len(doc["graph"]))


def mlp_data(dtype: str, batch: int, sizes):
    """The same random values the spec's inputs hold (numpy's default_rng per seed)."""
    d0, d1, d2, d3 = sizes

    def normal(seed, shape, std=1.0):
        return np.random.default_rng(seed).normal(0.0, std, size=shape).astype(dtype)

    x = normal(1, (batch, d0))
    y = normal(2, (batch, d3))
    w1 = normal(3, (d0, d1), (2.0 / d0) ** 0.5)
    w2 = normal(4, (d1, d2), (2.0 / d1) ** 0.5)
    w3 = normal(5, (d2, d3), (2.0 / d2) ** 0.5)
    b1, b2, b3 = (np.zeros(d, dtype) for d in (d1, d2, d3))
    return x, y, [w1, b1, w2, b2, w3, b3]


def mlp_forward(x, y, params):
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.maximum(x @ w1 + b1, 0)
    h2 = np.maximum(h1 @ w2 + b2, 0)
    out = h2 @ w3 + b3
    d = out - y
    return np.sum(d * d) / x.shape[0]


def mlp_backprop(x, y, params):
    """Loss and the gradients w.r.t. every weight and bias, derived by hand."""
    w1, b1, w2, b2, w3, b3 = params
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    out = h2 @ w3 + b3
    d = out - y
    loss = np.sum(d * d) / x.shape[0]
    dout = d * (2.0 / x.shape[0])
    dw3, db3 = h2.T @ dout, dout.sum(axis=0)
    dz2 = dout @ w3.T
    dz2 *= z2 > 0
    dw2, db2 = h1.T @ dz2, dz2.sum(axis=0)
    dz1 = dz2 @ w2.T
    dz1 *= z1 > 0
    dw1, db1 = x.T @ dz1, dz1.sum(axis=0)
    return loss, [dw1, db1, dw2, db2, dw3, db3]


def elementwise_data(n: int) -> np.ndarray:
    return np.random.default_rng(0).normal(0.0, 1.0, size=n)


def elementwise_reused(x: np.ndarray, bufs=None):
    """loss = sum(tanh(x)*x + exp(-x*x)) and its gradient, three preallocated buffers.

    d/dx = (1 - tanh(x)^2) x + tanh(x) - 2x exp(-x^2).
    """
    if bufs is None:
        bufs = [np.empty_like(x) for _ in range(3)]
    t, e, g = bufs
    np.tanh(x, out=t)
    np.multiply(x, x, out=e)
    np.negative(e, out=e)
    np.exp(e, out=e)
    np.multiply(t, x, out=g)
    np.add(g, e, out=g)
    loss = g.sum()
    # gradient: g = (1 - t*t) * x + t - 2 * x * e
    np.multiply(x, e, out=e)
    np.multiply(e, -2.0, out=e)
    np.add(e, t, out=e)
    np.multiply(t, t, out=t)
    np.subtract(1.0, t, out=t)
    np.multiply(t, x, out=g)
    np.add(g, e, out=g)
    return loss, g


def elementwise_json(n: int, path: str) -> None:
    """What `gradcli eval --format json` writes for the elementwise loss, by NumPy and json."""
    import json

    loss, g = elementwise_reused(elementwise_data(n))
    doc = {
        "schema": 1,
        "outputs": {"loss": {"value": float(loss), "shape": [], "dtype": "float64"}},
        "gradients": {
            "x": {
                "value": g.tolist(),
                "shape": [n],
                "dtype": "float64",
                "status": "connected",
                "reason": None,
                "causes": [],
            }
        },
        "unconnected": "none",
        "warnings": [],
        "check": None,
    }
    with open(path, "w") as fh:
        fh.write(json.dumps(doc))


def elementwise_npz(n: int, path: str) -> None:
    """What `gradcli eval --save` writes for the elementwise loss, by NumPy's np.savez."""
    loss, g = elementwise_reused(elementwise_data(n))
    arrays = {"outputs/loss": np.float64(loss), "gradients/x": g, "none": np.array([], str)}
    np.savez(path, **arrays)


def points_numpy(a, b, c):
    """The points spec's function and its gradient w.r.t. a, b, c, vectorised."""
    sa, ca = np.sin(a), np.cos(a)
    ea = np.exp(-a * a)
    th = np.tanh(b * c)
    l1 = np.log1p(a * a)
    r = np.sqrt(b * b + 1)
    q = 1 + b * b
    f = sa * b + ea * c + th - l1 * r + c / q
    dth = 1 - th * th
    da = ca * b - 2 * a * ea * c - 2 * a / (1 + a * a) * r
    db = sa + dth * c - l1 * b / r - c * 2 * b / (q * q)
    dc = ea + dth * b + 1 / q
    return f, da, db, dc


def contraction_data(kind: str, size: dict) -> dict[str, np.ndarray]:
    """The spec's inputs, regenerated as the spec reader draws them."""
    from specs import contraction_ids, contraction_shapes

    data = {
        name: np.random.default_rng(seed).normal(0.0, 1.0, size=shape)
        for seed, (name, shape) in enumerate(contraction_shapes(kind, size).items(), start=1)
    }
    if kind == "gather":
        data["ids"] = np.asarray(contraction_ids(size), dtype=np.int32)
    return data


def einsum_grad(a, c, w):
    """loss = sum(einsum('bij,bjk->bik', a, c) * w) and its gradients for a and c."""
    loss = (np.einsum("bij,bjk->bik", a, c) * w).sum()
    return loss, np.einsum("bik,bjk->bij", w, c), np.einsum("bij,bik->bjk", a, w)


def gather_grad(p, ids, w):
    """loss = sum(take(p, ids, axis=0) * w) and its gradient for p (repeats add)."""
    loss = (np.take(p, ids, axis=0) * w).sum()
    g = np.zeros_like(p)
    np.add.at(g, ids, w)
    return loss, g


def tensordot_data(a_shape, b_shape):
    """The spec's inputs: numpy's default_rng(seed).normal, seeds 1 and 2."""
    a = np.random.default_rng(1).normal(0.0, 1.0, size=a_shape)
    b = np.random.default_rng(2).normal(0.0, 1.0, size=b_shape)
    return a, b


def tensordot_backprop(a, b, axes):
    """c = np.tensordot(a, b, axes) and, for the seed ones, its gradients by hand: each is a
    tensordot of the seed with the other operand over its free axes, transposed back."""
    a_axes, b_axes = axes
    c = np.tensordot(a, b, axes)
    g = np.ones_like(c)
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    n_a = len(a_free)
    # dA: g's b-free axes against b's free axes; the result's axes are a_free, then b's
    # contracted axes in b's order, each standing for its partner in a_axes
    ga = np.tensordot(g, b, (list(range(n_a, g.ndim)), b_free))
    order = a_free + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
    ga = np.transpose(ga, np.argsort(order))
    gb = np.tensordot(a, g, (a_free, list(range(n_a))))
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
    gb = np.transpose(gb, np.argsort(order))
    return c, ga, gb


def conv_data(x_shape, k_shape):
    """The conv spec's inputs: numpy's default_rng(seed).normal, seeds 1, 2 and 3."""
    out = (*x_shape[:3], k_shape[3])
    return tuple(
        np.random.default_rng(seed).normal(0.0, 1.0, size=shape)
        for seed, shape in ((1, x_shape), (2, k_shape), (3, out))
    )


def conv_patches(x, kh, kw):
    """Every 3x3 (kh x kw) window of x zero-padded as SAME pads it (stride 1): a view
    (n, h, w, c, kh, kw) of the padded array."""
    from numpy.lib.stride_tricks import sliding_window_view

    padded = np.pad(x, ((0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)))
    return sliding_window_view(padded, (kh, kw), axis=(1, 2))


def conv_einsum(x, k):
    """The SAME stride-1 convolution as one np.einsum over the windows."""
    return np.einsum("nhwckl,klco->nhwo", conv_patches(x, *k.shape[:2]), k, optimize=True)


def conv_backprop(x, k, w):
    """loss = sum(conv(x, k) * w) and its gradients by hand with np.einsum: the filter's is
    the windows against w, the input's is w against the filter, folded back tap by tap."""
    kh, kw = k.shape[:2]
    patches = conv_patches(x, kh, kw)
    loss = (np.einsum("nhwckl,klco->nhwo", patches, k, optimize=True) * w).sum()
    dk = np.einsum("nhwckl,nhwo->klco", patches, w, optimize=True)
    dpatches = np.einsum("nhwo,klco->nhwklc", w, k, optimize=True)
    n, h, wd, c = x.shape
    dx = np.zeros((n, h + kh - 1, wd + kw - 1, c))
    for a in range(kh):
        for b in range(kw):
            dx[:, a : a + h, b : b + wd] += dpatches[:, :, :, a, b]
    return loss, dx[:, (kh - 1) // 2 : (kh - 1) // 2 + h, (kw - 1) // 2 : (kw - 1) // 2 + wd], dk


# --- expression shapes (specs.shape_spec): the same arithmetic on a generic tape ---------------
def shape_records(shape: str, n: int) -> list[tuple]:
    """Tape records (op, input ids, constant) of the shape; ids 0 and 1 are x and y0."""
    recs: list[tuple] = [("input", (), 0.0), ("input", (), 0.5)]

    def add(op, ins, c=0.0):
        recs.append((op, ins, c))
        return len(recs) - 1

    if shape == "sum of terms":
        total = None
        for k in range(n):
            t = add("mulc", (add("sin", (add("mulc", (0,), k % 5 + 1),)),), (k % 7 + 1) / 8)
            total = t if total is None else add("add", (total, t))
        return recs
    y = 1
    for _ in range(n):
        if shape == "unary-binary":
            y = add("add", (add("mulc", (add("sin", (y,)),), 0.9), add("mulc", (0,), 0.1)))
        elif shape == "two-argument calls":
            y = add("addc", (add("max", (add("mulc", (y,), 0.9), add("mulc", (0,), 0.5))),), 0.01)
        else:
            y = add("add", (add("mulc", (y,), 0.9), add("addc", (add("mulc", (0,), 0.1),), -0.01)))
    return recs


def shape_tape(recs: list[tuple], x: float) -> tuple[float, float]:
    """Forward and reverse sweep of the records; returns (output, d output / d x)."""
    sin, cos = math.sin, math.cos
    values = [x, 0.5]
    partials: list[tuple] = [(), ()]
    for op, ins, c in recs[2:]:
        if op == "mulc":
            values.append(values[ins[0]] * c)
            partials.append(((ins[0], c),))
        elif op == "add":
            values.append(values[ins[0]] + values[ins[1]])
            partials.append(((ins[0], 1.0), (ins[1], 1.0)))
        elif op == "addc":
            values.append(values[ins[0]] + c)
            partials.append(((ins[0], 1.0),))
        elif op == "sin":
            v = values[ins[0]]
            values.append(sin(v))
            partials.append(((ins[0], cos(v)),))
        else:  # max: the gradient to the first where a >= b, as TensorFlow's Maximum
            a, b = values[ins[0]], values[ins[1]]
            values.append(a if a >= b else b)
            partials.append(((ins[0] if a >= b else ins[1], 1.0),))
    adj = [0.0] * len(values)
    adj[-1] = 1.0
    for k in range(len(values) - 1, 1, -1):
        a = adj[k]
        if a:
            for j, d in partials[k]:
                adj[j] += a * d
    return values[-1], adj[0]


def shape_end_to_end(path: str, shape: str) -> tuple[float, float]:
    """The whole-process floor of a shape: PyYAML's C loader on the spec, then the tape."""
    with open(path) as fh:
        doc = chain_yaml(fh.read())
    graph = doc["graph"]
    n = graph["f"].count("+") + 1 if shape == "sum of terms" else len(graph)
    return shape_tape(shape_records(shape, n), float(doc["inputs"]["x"]))

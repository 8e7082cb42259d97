"""One timed workload in its own process: prints one JSON object (times in seconds, peak RSS).

Usage: python benchmarks/workload.py KIND [ARG ...] --reps R
run.py starts one process per (workload, implementation), so imports and threads of one
library never disturb another's timing.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# wall-clock time by default; run.py --clock cpu sets GRADCLI_BENCH_CLOCK=cpu for machines
# shared with other work, where process CPU time is the stabler figure (single thread only)
clock = time.process_time if os.environ.get("GRADCLI_BENCH_CLOCK") == "cpu" else time.perf_counter


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timed(fn, reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    return times


# --- floors ----------------------------------------------------------------------------------
def chain_tape(n, reps):
    from floors import chain_tape

    return {"times": timed(lambda: chain_tape(n), reps), "value": chain_tape(n)}


def chain_floor(path):
    """The end-to-end floor as a whole process (run.py times it): C YAML load + the tape."""
    from floors import chain_end_to_end

    return {"value": chain_end_to_end(path)}


def shape_floor(path, shape):
    """An expression shape's end-to-end floor as a whole process: C YAML load + the tape."""
    from floors import shape_end_to_end

    return {"value": shape_end_to_end(path, shape)}


def chain_stages(path, reps):
    """Each stage of reading and evaluating the chain spec, gradcli's against its floor."""
    from floors import chain_grad_records, chain_lower, chain_parse, chain_tape, chain_yaml

    from gradcli.core.autodiff import gradients
    from gradcli.core.executor import resolve_conds, run
    from gradcli.runtime.gcpause import paused
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec
    from gradcli.spec.safe_yaml import compose

    with open(path) as fh:
        text = fh.read()
    out: dict = {}

    def add(key, seconds):
        out.setdefault(key, []).append(seconds)

    for _ in range(reps + 1):  # the first repetition warms up (dropped below)
        with paused():  # as the CLI reads, builds and evaluates
            t = clock()
            doc = chain_yaml(text)
            add("yaml_floor", clock() - t)
            t = clock()
            compose(text, path)
            add("yaml", clock() - t)
            exprs = [str(v) for v in doc["graph"].values()]
            t = clock()
            trees = chain_parse(exprs)
            add("parse_floor", clock() - t)
            t = clock()
            spec = load_spec(text, path)
            add("read", clock() - t)  # YAML + parsing and checks: parse = read - yaml
            t = clock()
            records = chain_lower(doc["inputs"], list(zip(doc["graph"], trees)))
            add("lower_floor", clock() - t)
            t = clock()
            problem = build_problem(spec)
            add("lower", clock() - t)
            t = clock()
            chain_grad_records(records)
            add("grad_floor", clock() - t)
            graph = problem.graph
            t = clock()
            known: dict = {}
            resolve_conds(graph, problem.outputs, known)
            grads = gradients(graph, problem.outputs, problem.wrt, problem.seeds)
            add("grad", clock() - t)
            targets = [*problem.outputs, *(r for r in grads.results if isinstance(r, int))]
            t = clock()
            chain_tape(len(records) - 1)
            add("run_floor", clock() - t)
            t = clock()
            run(graph, targets, known=known)
            add("run", clock() - t)
    return {k: v[1:] for k, v in out.items()}


def hessian_engine(path, reps):
    """The MLP loss's gradient (build + evaluate) and its Hessian (build + hessian), per rep."""
    from gradcli.core.evaluation import evaluate
    from gradcli.core.jacobian import hessian
    from gradcli.runtime.gcpause import paused
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec

    with open(path) as fh:
        spec = load_spec(fh.read(), path)
    grads, hess = [], []
    for _ in range(reps + 1):  # the first repetition warms up
        t = clock()
        with paused():
            evaluate(build_problem(spec))
        grads.append(clock() - t)
        t = clock()
        with paused():
            hessian(build_problem(spec))
        hess.append(clock() - t)
    return {"gradient": grads[1:], "hessian": hess[1:]}


def mlp_numpy(dtype, reps, batch, sizes):
    from floors import mlp_backprop, mlp_data, mlp_forward

    x, y, params = mlp_data(dtype, batch, sizes)
    mlp_backprop(x, y, params)  # warm-up
    fwd = timed(lambda: mlp_forward(x, y, params), reps)
    return {"times": timed(lambda: mlp_backprop(x, y, params), reps), "forward": fwd}


def elementwise_numpy(n, reps):
    import numpy as np
    from floors import elementwise_data, elementwise_reused

    x = elementwise_data(n)
    bufs = [np.empty_like(x) for _ in range(3)]
    return {"times": timed(lambda: elementwise_reused(x, bufs), reps)}


def points_numpy(n, reps):
    import numpy as np
    from floors import points_numpy as f

    # the points the CLI reads (specs.points_file), made in memory: the floor is the maths
    i = np.arange(n)
    a, b, c = (i % 1000) / 500.0 - 1.0, (i % 777) / 300.0, (i % 313) / 100.0 - 1.5

    return {"times": timed(lambda: f(a, b, c), reps)}


def points_numpy_io(path, reps):
    """The floor with its I/O: json.loads per line, vectorised maths, json.dumps per line."""
    import numpy as np
    from floors import points_numpy as f

    def once():
        a, b, c = [], [], []
        with open(path) as fh:
            for line in fh:
                p = json.loads(line)
                a.append(p["a"])
                b.append(p["b"])
                c.append(p["c"])
        cols = f(np.array(a), np.array(b), np.array(c))
        with open(os.devnull, "w") as out:
            for v, da, db, dc in zip(*(col.tolist() for col in cols)):
                out.write(
                    json.dumps({"outputs": {"f": v}, "gradients": {"a": da, "b": db, "c": dc}})
                    + "\n"
                )

    return {"times": timed(once, reps)}


def tensordot_numpy(reps, a_shape, b_shape, axes):
    """np.tensordot (the forward floor) and the forward with hand-derived gradients."""
    import numpy as np
    from floors import tensordot_backprop, tensordot_data

    a, b = tensordot_data(tuple(a_shape), tuple(b_shape))
    axes = (list(axes[0]), list(axes[1]))
    tensordot_backprop(a, b, axes)  # warm-up
    fwd = timed(lambda: np.tensordot(a, b, axes), reps)
    return {"times": timed(lambda: tensordot_backprop(a, b, axes), reps), "forward": fwd}


def conv_numpy(reps, x_shape, k_shape):
    """np.einsum over the windows (the forward floor) and with hand-derived gradients."""
    from floors import conv_backprop, conv_data, conv_einsum

    x, k, w = conv_data(tuple(x_shape), tuple(k_shape))
    conv_backprop(x, k, w)  # warm-up
    fwd = timed(lambda: (conv_einsum(x, k) * w).sum(), reps)
    return {"times": timed(lambda: conv_backprop(x, k, w), reps), "forward": fwd}


def output_numpy(n, path, kind):
    """A whole NumPy script (run.py times the process): compute, then write JSON or .npz."""
    from floors import elementwise_json, elementwise_npz

    (elementwise_json if kind == "json" else elementwise_npz)(n, path)
    return {}


# --- gradcli ---------------------------------------------------------------------------------
def contraction_numpy(op, size, reps):
    from floors import contraction_data, einsum_grad, gather_grad

    data = contraction_data(op, size)
    if op == "einsum":
        fn = lambda: einsum_grad(data["a"], data["c"], data["w"])  # noqa: E731
    else:
        fn = lambda: gather_grad(data["p"], data["ids"], data["w"])  # noqa: E731
    fn()  # warm-up
    return {"times": timed(fn, reps)}


def _problem(spec_text, path):
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec

    return build_problem(load_spec(spec_text, path))


def engine(path, reps, forward=False):
    """Parse and build once (timed), then forward+gradient on a fresh graph per repetition."""
    from gradcli.core.evaluation import evaluate
    from gradcli.core.executor import resolve_conds, run
    from gradcli.runtime.gcpause import paused
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec

    with open(path) as fh:
        text = fh.read()
    t = clock()
    with paused():  # as the CLI reads and builds (commands/common.py)
        spec = load_spec(text, path)
    parse = clock() - t
    t = clock()
    with paused():
        build_problem(spec)
    build = clock() - t
    times, fwd = [], []
    for _ in range(reps + 1):  # the first repetition warms up
        with paused():
            problem = build_problem(spec)
        t = clock()
        evaluate(problem)
        times.append(clock() - t)
        if forward:
            with paused():
                problem = build_problem(spec)
            t = clock()
            resolve_conds(problem.graph, problem.outputs, {})
            run(problem.graph, problem.outputs)
            fwd.append(clock() - t)
    out = {"times": times[1:], "parse": parse, "build": build}
    if forward:
        out["forward"] = fwd[1:]
    return out


def tfcode_read(path, reps):
    """The TensorFlow reader on a program: parse, interpret and evaluate its gradient calls
    (read_program, what `gradcli eval FILE.py` does before printing), per repetition."""
    from gradcli.runtime.gcpause import paused
    from gradcli.tfcode import read_program

    with open(path, "rb") as fh:
        data = fh.read()
    times = []
    for _ in range(reps + 1):  # the first repetition warms up
        t = clock()
        with paused():
            read_program(data, path)
        times.append(clock() - t)
    return {"times": times[1:]}


def keras_explain(path, reps):
    """A Keras script read and explained in process (what `gradcli explain FILE.py` computes),
    and the floor: evaluating the same gradient graphs (each call's Problem), per repetition."""
    from gradcli.core.evaluation import evaluate
    from gradcli.explain.analysis import explain
    from gradcli.runtime.gcpause import paused
    from gradcli.tfcode import read_program

    with open(path, "rb") as fh:
        data = fh.read()
    times, floor = [], []
    for _ in range(reps + 1):  # the first repetition warms up
        t = clock()
        with paused():
            program = read_program(data, path)
            for call in program.calls:
                if call.problem is not None:
                    explain(call.problem)
        times.append(clock() - t)
        t = clock()
        with paused():
            for call in program.calls:
                if call.problem is not None:
                    evaluate(call.problem.scratch())
        floor.append(clock() - t)
    return {"times": times[1:], "floor": floor[1:], "calls": len(program.calls)}


def spec_read(path, reps):
    """A spec read, built and evaluated in process (tfcode_read's counterpart)."""
    from gradcli.core.evaluation import evaluate
    from gradcli.runtime.gcpause import paused
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec

    with open(path) as fh:
        text = fh.read()
    times = []
    for _ in range(reps + 1):  # the first repetition warms up
        t = clock()
        with paused():
            evaluate(build_problem(load_spec(text, path)))
        times.append(clock() - t)
    return {"times": times[1:]}


def tensordot_engine(path, reps):
    """gradcli's forward of one built problem, repeated as np.tensordot's floor is (warm)."""
    from gradcli.core.executor import run
    from gradcli.runtime.gcpause import paused

    with open(path) as fh, paused():
        problem = _problem(fh.read(), path)
    run(problem.graph, problem.outputs)  # warm-up
    return {"times": timed(lambda: run(problem.graph, problem.outputs), reps)}


# --- frameworks (only when importable) -----------------------------------------------------------
def torch_chain(n, reps):
    import torch

    from specs import CHAIN_X0, chain_ops

    ops = chain_ops(n)

    def once():
        x0 = torch.tensor(CHAIN_X0, dtype=torch.float64, requires_grad=True)
        x = x0
        for op, c in ops:
            x = torch.sin(x) if op == "sin" else (x * c if op == "mul" else x - c)
        x.backward()
        return x0.grad

    return {"times": timed(once, reps)}


def torch_mlp(dtype, reps, batch, sizes):
    import torch
    from floors import mlp_data

    x, y, params = mlp_data(dtype, batch, sizes)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    ps = [torch.from_numpy(p).requires_grad_() for p in params]

    def forward():
        w1, b1, w2, b2, w3, b3 = ps
        h1 = torch.relu(x @ w1 + b1)
        h2 = torch.relu(h1 @ w2 + b2)
        return torch.sum(torch.square(h2 @ w3 + b3 - y)) / x.shape[0]

    def both():
        return torch.autograd.grad(forward(), ps)

    both()
    with torch.no_grad():
        fwd = timed(forward, reps)
    return {"times": timed(both, reps), "forward": fwd}


def torch_elementwise(n, reps):
    import torch
    from floors import elementwise_data

    x = torch.from_numpy(elementwise_data(n)).requires_grad_()

    def once():
        loss = torch.sum(torch.tanh(x) * x + torch.exp(-x * x))
        return torch.autograd.grad(loss, [x])

    return {"times": timed(once, reps)}


def jax_mlp(dtype, reps, batch, sizes):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from floors import mlp_data

    x, y, params = mlp_data(dtype, batch, sizes)

    def loss(ps, x, y):
        w1, b1, w2, b2, w3, b3 = ps
        h1 = jax.nn.relu(x @ w1 + b1)
        h2 = jax.nn.relu(h1 @ w2 + b2)
        return jnp.sum(jnp.square(h2 @ w3 + b3 - y)) / x.shape[0]

    f = jax.jit(loss)
    g = jax.jit(jax.value_and_grad(loss))
    jax.block_until_ready(g(params, x, y))
    jax.block_until_ready(f(params, x, y))
    fwd = timed(lambda: jax.block_until_ready(f(params, x, y)), reps)
    return {"times": timed(lambda: jax.block_until_ready(g(params, x, y)), reps), "forward": fwd}


def jax_elementwise(n, reps):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from floors import elementwise_data

    x = jnp.asarray(elementwise_data(n))
    g = jax.jit(jax.value_and_grad(lambda x: jnp.sum(jnp.tanh(x) * x + jnp.exp(-x * x))))
    jax.block_until_ready(g(x))
    return {"times": timed(lambda: jax.block_until_ready(g(x)), reps)}


def tf_chain(n, reps):
    import tensorflow as tf

    from specs import CHAIN_X0, chain_ops

    ops = chain_ops(n)
    x0 = tf.Variable(CHAIN_X0, dtype=tf.float64)

    def once():
        with tf.GradientTape() as tape:
            x = x0
            for op, c in ops:
                x = tf.sin(x) if op == "sin" else (x * c if op == "mul" else x - c)
        return tape.gradient(x, x0)

    return {"times": timed(once, reps)}


def tf_mlp(dtype, reps, batch, sizes):
    import tensorflow as tf
    from floors import mlp_data

    x, y, params = mlp_data(dtype, batch, sizes)
    ps = [tf.Variable(p) for p in params]

    def forward():
        w1, b1, w2, b2, w3, b3 = ps
        h1 = tf.nn.relu(x @ w1 + b1)
        h2 = tf.nn.relu(h1 @ w2 + b2)
        return tf.reduce_sum(tf.square(h2 @ w3 + b3 - y)) / x.shape[0]

    def both():
        with tf.GradientTape() as tape:
            loss = forward()
        return [g.numpy() for g in tape.gradient(loss, ps)]

    both()
    fwd = timed(lambda: forward().numpy(), reps)
    return {"times": timed(both, reps), "forward": fwd}


def tf_elementwise(n, reps):
    import tensorflow as tf
    from floors import elementwise_data

    x = tf.Variable(elementwise_data(n))

    def once():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.tanh(x) * x + tf.exp(-x * x))
        return tape.gradient(loss, x).numpy()

    return {"times": timed(once, reps)}


KINDS = {
    "chain-tape": chain_tape,
    "chain-floor": chain_floor,
    "chain-stages": chain_stages,
    "shape-floor": shape_floor,
    "hessian-engine": hessian_engine,
    "mlp-numpy": mlp_numpy,
    "elementwise-numpy": elementwise_numpy,
    "points-numpy": points_numpy,
    "points-numpy-io": points_numpy_io,
    "tensordot-numpy": tensordot_numpy,
    "output-numpy": output_numpy,
    "engine": engine,
    "tfcode-read": tfcode_read,
    "keras-explain": keras_explain,
    "spec-read": spec_read,
    "contraction-numpy": contraction_numpy,
    "tensordot-engine": tensordot_engine,
    "conv-numpy": conv_numpy,
    "torch-chain": torch_chain,
    "torch-mlp": torch_mlp,
    "torch-elementwise": torch_elementwise,
    "jax-mlp": jax_mlp,
    "jax-elementwise": jax_elementwise,
    "tensorflow-chain": tf_chain,
    "tensorflow-mlp": tf_mlp,
    "tensorflow-elementwise": tf_elementwise,
}


def main(argv: list[str]) -> None:
    kind, raw = argv[0], json.loads(argv[1])
    result = KINDS[kind](**raw)
    result["peak_rss_mib"] = peak_rss_mib()
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])

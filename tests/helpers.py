"""Shared test helpers: running the CLI, and central finite differences."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from gradcli.cli.main import cli

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SPECS = ROOT / "specs"
TEST_DATA = TESTS / "data"


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def invoke(*args, input=None, env=None) -> Result:
    """Run gradcli through click's test runner; stdout and stderr kept apart."""
    runner = CliRunner()
    res = runner.invoke(cli, [str(a) for a in args], input=input, env=env, catch_exceptions=False)
    return Result(res.exit_code, res.stdout, res.stderr)


def run_json(*args, input=None, code=0) -> dict:
    """Run a command with --format json and return its document (asserting the exit status)."""
    res = invoke(*args, "--format", "json", input=input)
    assert res.code == code, (res.code, res.stderr)
    return json.loads(res.stdout)


def spec(name: str) -> str:
    return str(SPECS / name)


def central_difference(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d x by central differences, the step scaled to each element's magnitude."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    flat = x.reshape(-1)
    g = grad.reshape(-1)
    for i in range(flat.size):
        h = eps * max(1.0, abs(flat[i]))
        old = flat[i]
        flat[i] = old + h
        up = f(x.copy())
        flat[i] = old - h
        down = f(x.copy())
        flat[i] = old
        g[i] = (up - down) / (2 * h)
    return grad


# Where each unary op is smooth enough for finite differences: sample bounds, distance from 0.
UNARY_DOMAINS = {
    "sin": {},
    "cos": {},
    "tan": {"lo": -1.2, "hi": 1.2},
    "exp": {},
    "log": {"lo": 0.3, "hi": 3.0},
    "log1p": {"lo": -0.6, "hi": 2.0},
    "sqrt": {"lo": 0.3, "hi": 3.0},
    "square": {},
    "abs": {"away": 0.2},
    "sign": {"away": 0.2},
    "tanh": {},
    "sigmoid": {"lo": -4, "hi": 4},
    "relu": {"away": 0.2},
    "softplus": {"lo": -4, "hi": 4},
    "neg": {},
    "erf": {},
    "erfc": {},
    "erfinv": {"lo": -0.9, "hi": 0.9},
    "asin": {"lo": -0.9, "hi": 0.9},
    "acos": {"lo": -0.9, "hi": 0.9},
    "atan": {},
    "sinh": {},
    "cosh": {},
    "asinh": {},
    "acosh": {"lo": 1.1, "hi": 3.0},
    "atanh": {"lo": -0.9, "hi": 0.9},
    "expm1": {},
    "log2": {"lo": 0.3, "hi": 3.0},
    "log10": {"lo": 0.3, "hi": 3.0},
    "reciprocal": {"away": 0.5},
    "rsqrt": {"lo": 0.3, "hi": 3.0},
    "cbrt": {"away": 0.3},
    "leaky_relu": {"away": 0.2},
    "relu6": {"away": 0.2},
    "hard_sigmoid": {"lo": -4, "hi": 4},
    "elu": {"away": 0.2},
    "selu": {"away": 0.2},
    "silu": {},
    "swish": {},
    "softsign": {"away": 0.2},
    "log_sigmoid": {"lo": -4, "hi": 4},
    "mish": {"lo": -4, "hi": 4},
    "gelu": {},
}


def draw(rng, shape, lo=-2.0, hi=2.0, away=0.0) -> np.ndarray:
    """Uniform values in [lo, hi], at least `away` from zero."""
    x = rng.uniform(lo, hi, size=shape)
    if away:
        x = np.where(np.abs(x) < away, np.sign(x + 1e-12) * away + x, x)
    return x


def value_grad_hvp(expr: str, inputs: dict, name: str, v=None):
    """(value, gradient, Hessian-vector product) of scalar expr with respect to `name`."""
    from gradcli.api import problem_from_expression
    from gradcli.core.autodiff import gradients
    from gradcli.core.executor import run

    problem = problem_from_expression(expr, inputs, wrt=[name])
    graph = problem.graph
    (g,) = gradients(graph, problem.outputs, problem.wrt).results
    targets, h = [problem.outputs[0], g], None
    if v is not None:
        (h,) = gradients(graph, [g], problem.wrt, seeds=[v]).results
        targets += [h] if isinstance(h, int) else []
    values = run(graph, targets)
    shape = inputs[name].shape
    grad = np.broadcast_to(np.asarray(values[g], dtype=float), shape)
    hv = None
    if v is not None:
        hv = np.zeros(shape) if not isinstance(h, int) else np.asarray(values[h], dtype=float)
    return float(values[problem.outputs[0]]), grad, hv


def assert_first_and_second_order(expr: str, inputs: dict, name: str, rng) -> None:
    """The gradient and a Hessian-vector product of scalar expr by `name` against central
    differences (the direction drawn from rng)."""
    x = inputs[name]
    _, g, _ = value_grad_hvp(expr, inputs, name)

    def f(z):
        return value_grad_hvp(expr, {**inputs, name: z}, name)[0]

    # central differences lose ~1e-16 |f| / h absolutely: a small element of a large
    # gradient gets the absolute tolerance of the gradient's scale
    scale = max(1.0, float(np.max(np.abs(g), initial=0.0)))
    np.testing.assert_allclose(
        g, central_difference(f, x), rtol=1e-6, atol=1e-8 * scale, err_msg=expr
    )
    v = rng.uniform(-1, 1, size=x.shape)
    _, _, hv = value_grad_hvp(expr, inputs, name, v)

    def gv(z):
        return float(np.sum(value_grad_hvp(expr, {**inputs, name: z}, name)[1] * v))

    numeric = central_difference(gv, x, eps=1e-5)
    scale = max(1.0, float(np.max(np.abs(hv), initial=0.0)))
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7 * scale, err_msg=expr)


def eval_grad(expr: str, **at) -> tuple:
    """(value of f, {name: gradient}) from `gradcli eval -e` (check off)."""
    args = [a for k, v in at.items() for a in ("--at", f"{k}={json.dumps(v)}")]
    doc = run_json("eval", "-e", expr, *args, "--check", "off")
    return doc["outputs"]["f"]["value"], {k: v["value"] for k, v in doc["gradients"].items()}


def forward(expr: str, inputs: dict):
    """The first output of an expression at these inputs (no gradients)."""
    from gradcli.api import problem_from_expression
    from gradcli.core.executor import run

    problem = problem_from_expression(expr, inputs, wrt=[])
    return run(problem.graph, list(problem.outputs))[problem.outputs[0]]


def num(v):
    """A JSON value ("inf", "nan" strings included) as a float or a float array."""
    return np.array([float(e) for e in np.ravel(v)]) if isinstance(v, list) else float(v)


def interpret_tf(source: str):
    """Run the TensorFlow reader over (dedented) source; its interpreter, to look at the
    objects it made (the reader refused nothing)."""
    import ast
    import textwrap

    from gradcli.tfcode.interpret import Interpreter

    source = textwrap.dedent(source)
    it = Interpreter("t.py", source.splitlines())
    it.run_module(ast.parse(source))
    assert not it.refusals, it.refusals.error().message
    return it


def assert_sympy_check(expr: str, at: str) -> None:
    """`gradcli check --method sympy` of sum(expr) at `at` passes, with SymPy (no FD fallback)."""
    res = invoke("check", "-e", f"sum({expr})", "--at", at, "--method", "sympy", "--format",
                 "json")  # fmt: skip
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower() and "finite" not in res.stdout.lower()


def worker_documents(code: str, payload, timeout: float, cwd=None) -> dict:
    """Run `code` in a fresh Python (gradcli importable) with `payload` as JSON in argv[1];
    it prints "\\x00" then a JSON object: that object. A fresh process each time, for runs
    that must not share a framework's global state (TF1 graph mode)."""
    import os
    import subprocess
    import sys

    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )
    assert "\x00" in out.stdout, out.stderr[-3000:]
    return json.loads(out.stdout.rsplit("\x00", 1)[1])

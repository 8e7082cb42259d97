"""What PyTorch does not route through a TorchFunctionMode, read anyway: gradient calls made
by torch.func's transforms, the legacy `torch.Tensor([...])` constructor, `torch.from_numpy`
and `nn.Parameter(...)`; and the capture's patches undone when it ends."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch", reason="the run-mode tests run real PyTorch")

FUNC_GRAD = """\
import torch
from torch.func import grad

torch.manual_seed(0)
w = torch.randn(3)
x = torch.randn(3)


def loss(w, x):
    return (torch.sin(w) * x).sum()


g = grad(loss, argnums=(0, 1))(w, x)
"""
FUNC_ROUND = """\
import torch
from torch.func import grad


def loss(w):
    return torch.round(w * 3.0).sum()


g = grad(loss)(torch.tensor([0.2, 0.7]))
"""
LEGACY = """\
import torch

a = torch.nn.Parameter(torch.ones(1))
b = torch.nn.Parameter(torch.ones(1))
both = torch.Tensor([a, b])
loss = (both * torch.tensor([2.0, 3.0])).sum() + (a * 0).sum()
loss.backward()
"""
FROZEN = """\
import numpy as np
import torch

mask = torch.nn.Parameter(torch.ones(3), requires_grad=False)
x = torch.from_numpy(np.arange(3, dtype=np.float32))
w = torch.nn.Parameter(torch.ones(3))
loss = (w * mask * x).sum()
loss.backward()
print(mask.grad.sum(), x.grad.sum())
"""


def explain(tmp_path, source: str):
    (tmp_path / "s.py").write_text(textwrap.dedent(source))
    r = subprocess.run(
        [sys.executable, "-m", "gradcli", "explain", "--run", "s.py", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    return r.returncode, json.loads(r.stdout)


def test_torch_func_grad_is_a_call_with_pytorchs_values_named_by_argnums(tmp_path):
    code, doc = explain(tmp_path, FUNC_GRAD)
    assert code == 0
    (call,) = doc["calls"]
    assert call["line"] == 13 and call["kind"] == "grad"
    grads = {g["name"]: g for g in call["gradients"]}
    assert set(grads) == {"w", "x"}
    torch.manual_seed(0)
    w, x = torch.randn(3), torch.randn(3)
    # d/dw sum(sin(w) x) = cos(w) x and d/dx = sin(w), computed here by PyTorch itself
    expected = {"w": torch.cos(w) * x, "x": torch.sin(w)}
    for name, value in expected.items():
        assert grads[name]["status"] == "connected"
        assert torch.allclose(torch.tensor(grads[name]["value"]), value, rtol=1e-6, atol=0)


def test_a_zero_through_torch_func_names_the_rounding_line(tmp_path):
    code, doc = explain(tmp_path, FUNC_ROUND)
    assert code == 1
    (pair,) = doc["pairs"]
    assert pair["input"] == "torch.tensor([0.2, 0.7])" and pair["status"] == "zero"
    assert [(c["kind"], c["line"]) for c in pair["causes"]] == [("non_differentiable", 6)]


def test_the_legacy_constructor_is_the_rewrap_that_cut_the_parameters(tmp_path):
    code, doc = explain(tmp_path, LEGACY)
    assert code == 1
    pairs = {p["input"]: p for p in doc["pairs"]}
    for name in ("a", "b"):
        causes = [(c["kind"], c["line"]) for c in pairs[name]["causes"]]
        assert ("rewrapped", 5) in causes, (name, causes)


def test_a_frozen_parameter_and_a_from_numpy_tensor_are_named_where_they_were_made(tmp_path):
    code, doc = explain(tmp_path, FROZEN)
    assert code == 1
    error = doc["error"]
    assert error["line"] == 9 and error["message"].startswith("AttributeError")
    assert [(c["kind"], c["line"]) for c in error["causes"]] == [("requires_grad_false", 4)]


def test_the_capture_undoes_its_constructor_patches(tmp_path, monkeypatch):
    from gradcli.cli.run_commands import read_run

    (tmp_path / "s.py").write_text(textwrap.dedent(LEGACY))
    before = (torch.nn.Parameter.__dict__["__new__"], torch.from_numpy)
    assert "__new__" not in torch.Tensor.__dict__
    monkeypatch.chdir(tmp_path)
    program, _ = read_run("s.py", None, (), "all", None, 60)
    assert [op.name for op in program.ops if op.name == "torch.Tensor"] == ["torch.Tensor"]
    assert (torch.nn.Parameter.__dict__["__new__"], torch.from_numpy) == before
    assert "__new__" not in torch.Tensor.__dict__
    assert torch.Tensor([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_pytorchs_warnings_name_the_scripts_line_not_gradclis(tmp_path):
    source = "import torch\nw = torch.ones(1, requires_grad=True)\nv = float(w * 2)\n"
    source += "loss = (w * v).sum()\nloss.backward()\n"
    (tmp_path / "s.py").write_text(source)
    r = subprocess.run(
        [sys.executable, "-m", "gradcli", "eval", "--run", "s.py", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert r.returncode == 0, r.stderr
    # PyTorch warns that a tensor requiring grad became a number, at the script's line 3
    assert "s.py:3: UserWarning: Converting a tensor with requires_grad=True" in r.stderr
    assert "gradcli" not in r.stderr

"""The run mode's promises through the command line (a real subprocess each): exit statuses,
the JSON fields, stdout kept clean, --calls, --seed, script arguments, and the refusal of
a PyTorch script read without --run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the run-mode tests run real PyTorch")

SPECS = Path(__file__).parent.parent.parent / "specs"
HEALTHY = """\
import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
print("training")  # the script's own output goes to stderr
loss = (w * x).sum()
loss.backward()
"""
DETACHED = """\
import torch
w = torch.ones(2, requires_grad=True)
h = (w * 3).detach()
b = torch.ones(2, requires_grad=True)
loss = (h * b).sum()
loss.backward()
"""


def gradcli(tmp_path, source: str, *args: str, name: str = "train.py"):
    """Run `gradcli ARGS` in tmp_path with the script written as `name`."""
    script = tmp_path / name
    script.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_a_healthy_script_exits_0_with_the_documented_json(tmp_path):
    r = gradcli(tmp_path, HEALTHY, "explain", "--run", "train.py", "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # stdout holds only the document: the print went to stderr
    assert "training" in r.stderr and "training" not in r.stdout
    assert set(doc) >= {"schema", "file", "framework", "calls", "pairs", "error", "stopped"}
    assert doc["framework"] == "torch" and doc["error"] is None
    (call,) = doc["calls"]
    assert call["line"] == 7 and call["kind"] == "backward" and call["target"] == "loss"
    (grad,) = call["gradients"]
    assert grad == {"name": "w", "value": [1.0, 2.0, 3.0], "shape": [3], "dtype": "float32",
                    "status": "connected"}  # fmt: skip
    assert doc["pairs"][0]["status"] == "connected" and doc["pairs"][0]["causes"] == []


def test_a_detach_is_named_at_its_line_with_a_fix(tmp_path):
    r = gradcli(tmp_path, DETACHED, "explain", "--run", "train.py", "--format", "json")
    assert r.returncode == 1, r.stderr
    pairs = {p["input"]: p for p in json.loads(r.stdout)["pairs"]}
    assert pairs["b"]["status"] == "connected"
    pair = pairs["w"]
    assert pair["status"] == "unconnected"
    (cause,) = pair["causes"]
    assert cause["kind"] == "detach" and cause["line"] == 3 and cause["fix"]


def test_the_table_shows_the_culprits_source_line(tmp_path):
    r = gradcli(tmp_path, DETACHED, "explain", "--run", "train.py")
    assert r.returncode == 1
    assert "detach at line 3" in r.stdout and "h = (w * 3).detach()" in r.stdout


def test_eval_plain_lines_and_graph_json_mark_the_cut(tmp_path):
    r = gradcli(tmp_path, DETACHED, "eval", "--run", "train.py", "--format", "plain")
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        "call\t0\t6\tloss.backward()",
        "grad\tw\tunconnected\tNone",
        "grad\tb\tconnected\t[3,3]",  # plain numbers as everywhere: 3, not 3.0
    ]
    r = gradcli(tmp_path, DETACHED, "graph", "--run", "train.py", "--format", "json")
    assert r.returncode == 0, r.stderr
    edges = json.loads(r.stdout)["edges"]
    assert [e["reason"] for e in edges if e["cut"]] == ["detach"]


def test_a_script_without_gradient_calls_is_exit_2(tmp_path):
    r = gradcli(tmp_path, "import torch\nprint(torch.ones(2))\n", "explain", "--run", "train.py")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("gradcli: error: train.py: the script ran")


def test_the_scripts_own_error_is_a_finding_with_its_line(tmp_path):
    source = "import torch\nw = torch.ones(2, requires_grad=True)\nraise ValueError('bad data')\n"
    r = gradcli(tmp_path, source, "explain", "--run", "train.py", "--format", "json")
    assert r.returncode == 1, r.stderr
    error = json.loads(r.stdout)["error"]
    assert error["message"] == "ValueError: bad data" and error["line"] == 3


def test_a_pytorch_script_without_run_is_refused_with_how_to_read_it(tmp_path):
    r = gradcli(tmp_path, DETACHED, "explain", "train.py")
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("gradcli: error: train.py:1:1: this is a PyTorch script")
    assert "gradcli explain --run train.py" in line


def test_calls_stops_the_script_at_the_next_call(tmp_path):
    source = """\
    import torch
    w = torch.ones(2, requires_grad=True)
    for step in range(5):
        (w * step).sum().backward()
        print("step", step)
    """
    r = gradcli(tmp_path, source, "eval", "--run", "train.py", "--calls", "1", "--format", "json")
    doc = json.loads(r.stdout)
    assert len(doc["calls"]) == 1 and doc["stopped"] == "calls"
    assert "step 0" in r.stderr and "step 1" not in r.stderr
    r = gradcli(tmp_path, source, "eval", "--run", "train.py", "--calls", "all", "--format", "json")
    assert len(json.loads(r.stdout)["calls"]) == 5


def test_script_arguments_main_and_its_own_modules(tmp_path):
    (tmp_path / "helpers.py").write_text("SCALE = 2.0\n")
    source = """\
    import sys
    import torch
    from helpers import SCALE
    assert __name__ == "__main__"
    w = torch.ones(1, requires_grad=True)
    (w * SCALE * float(sys.argv[1])).sum().backward()
    """
    r = gradcli(tmp_path, source, "eval", "--run", "train.py", "--format", "json", "--", "3")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["calls"][0]["gradients"][0]["value"] == [6.0]


def test_seed_seeds_torch_before_the_script(tmp_path):
    source = "import torch\nw = torch.randn(2, requires_grad=True)\n(w * w).sum().backward()\n"
    runs = [
        json.loads(
            gradcli(
                tmp_path, source, "eval", "--run", "train.py", "--seed", "7", "--format", "json"
            ).stdout
        )
        for _ in range(2)
    ]
    import torch

    torch.manual_seed(7)
    expected = (2 * torch.randn(2)).tolist()
    values = [d["calls"][0]["gradients"][0]["value"] for d in runs]
    assert values[0] == values[1]
    assert values[0] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--calls", "0"], "'0' is not a positive count"),
        (["--calls", "x"], "'x' is neither a positive count nor 'all'"),
        (["-e", "x*x"], "-e does not apply to --run"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(tmp_path, args, message):
    r = gradcli(tmp_path, HEALTHY, "explain", "--run", "train.py", *args)
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert message in line


def test_run_options_without_run_are_usage_errors(tmp_path):
    spec = SPECS / "quadratic.yaml"
    r = subprocess.run([sys.executable, "-m", "gradcli", "eval", str(spec), "--seed", "1"],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 2 and "--seed applies to --run FILE.py only" in r.stderr


def test_spec_commands_never_import_torch(tmp_path):
    spec = SPECS / "quadratic.yaml"
    code = (
        "import sys; from gradcli.cli.main import cli\n"
        f"cli.main(['eval', {str(spec)!r}, '--check', 'off'], standalone_mode=False)\n"
        "assert 'torch' not in sys.modules and 'tensorflow' not in sys.modules\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_cause_inside_a_modules_forward_names_the_module(tmp_path):
    source = """\
    import torch
    import torch.nn as nn


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x).detach()


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = Encoder()
            self.head = nn.Linear(3, 1)

        def forward(self, x):
            return self.head(self.enc(x))


    model = Model()
    model(torch.ones(2, 3)).sum().backward()
    """
    r = gradcli(tmp_path, source, "explain", "--run", "train.py", "--format", "json")
    pairs = {p["input"]: p for p in json.loads(r.stdout)["pairs"]}
    (cause,) = pairs["model.enc.fc.weight"]["causes"]
    assert (cause["kind"], cause["line"], cause["module"]) == ("detach", 11, "model.enc")

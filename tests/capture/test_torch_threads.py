"""The PyTorch run mode on scripts reproducing real public threads (tests/data/torch_threads:
one script per thread, its manifest written from the threads and checked against real
PyTorch 2.13, not from gradcli's output).

Each case asserts that `explain --run` names the manifest's cause kind at its culprit line,
that the exit status says so (0 for the healthy controls), and that every gradient value
gradcli reports equals the one PyTorch itself leaves in `.grad` when the same script runs
without gradcli. Needs PyTorch: skipped with the reason when it is not installed.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the run-mode tests run real PyTorch")

DATA = Path(__file__).parent.parent / "data" / "torch_threads"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
# the manifest's zero kinds, as explain's vocabulary names them
ZERO_KINDS = {
    "zero_dead_relu": {"inactive"},
    "zero_mask": {"mask", "unselected"},
    "zero_saturation": {"underflow", "zero_derivative"},
    "zero_underflow": {"underflow"},
}
# a second line gradcli names for the same culprit, and why it is as good as the thread's
ALSO = {
    "custom_fn_sign_missing_grad.py": (20, "the backward's def line; the thread's is its return"),
    "nan_snntorch_surrogate_overflow.py": (15, "the backward's def line; NaN is born at 18"),
    "not_in_optimizer_net_reassigned.py": (28, "the optimizer built before net1 is replaced"),
    "not_registered_python_list.py": (13, "the layer made into the plain list at line 11"),
    "custom_fn_enforce_prior_missing_none.py": (14, "the def line of backward; thread: return"),
    "no_grad_validation_jacobian_norm_loss.py": (12, "the first op on the path, inside loss_fn"),
    "no_grad_lightning_validation_autograd_in_forward.py": (14, "the first op on the path"),
    "backward_twice_rnnlm_states_not_detached.py": (18, "the LSTM call inside forward"),
    "zero_fp16_autocast_no_grad_scaler.py": (10, "where the float16 gradient underflows"),
}
# what gradcli does not answer as the thread does yet (strict: a fix makes them pass)
KNOWN_MISSES: dict[str, str] = {}
# kinds a script must not be given: a cut that the thread's other paths bypass; the one-hot
# zeros inside F.cross_entropy (NllLoss), which its LogSoftmax fills in again
NOT_NAMED = {
    "rewrapped_a3c_log_probs_tensor.py": {"non_differentiable"},
    "backward_twice_rnnlm_states_not_detached.py": {"zero_derivative"},
}


def run(path: Path):
    """(program, diagnosis, JSON document, exit status) of explain --run on a script."""
    from gradcli.cli.run_commands import read_run, status
    from gradcli.views.run_report import document

    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        program, diagnosis = read_run(path.name, None, (), "all", None, 60)
    finally:
        os.chdir(cwd)
    doc = json.loads(json.dumps(document(program, diagnosis, with_pairs=True)))
    return program, diagnosis, doc, status(program, diagnosis)


def causes_of(doc: dict) -> list[tuple[str, int | None]]:
    """Every (kind, line) the document names: in pairs, call errors and the script's error."""
    found = [(c["kind"], c["line"]) for p in doc["pairs"] for c in p["causes"]]
    for call in doc["calls"]:
        if call["error"]:
            found += [(c["kind"], c["line"]) for c in call["error"]["causes"]]
    if doc["error"]:
        found += [(c["kind"], c["line"]) for c in doc["error"]["causes"]]
    return found


def plain_grads(path: Path, names_per_call: list[list[str]]) -> list[dict]:
    """PyTorch's own .grad of the named tensors right after each backward() of the script,
    run as `python FILE` would run it, without gradcli (Tensor.backward wrapped to look)."""
    seen: list[dict] = []
    original = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        frame = sys._getframe(1)
        scope = {**frame.f_globals, **frame.f_locals}
        names = names_per_call[len(seen)] if len(seen) < len(names_per_call) else []
        grads = {}
        for name in names:
            tensor = resolve(scope, name)
            if isinstance(tensor, torch.Tensor) and tensor.is_leaf and tensor.grad is not None:
                grads[name] = tensor.grad.detach().clone()
        seen.append(grads)
        return result

    namespace = {"__name__": "__main__", "__file__": str(path)}
    cwd, argv = os.getcwd(), sys.argv
    # a script may switch grad mode off globally (as its thread does): restored after it
    grad, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    os.chdir(path.parent)
    sys.argv = [str(path)]
    torch.Tensor.backward = backward
    try:
        code = compile(path.read_bytes(), str(path), "exec")
        with contextlib.suppress(Exception):  # the thread's own error: earlier grads stay
            exec(code, namespace)
    finally:
        torch.Tensor.backward = original
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)
        os.chdir(cwd)
        sys.argv = argv
    return seen


def resolve(namespace: dict, name: str):
    """The tensor gradcli names `model.fc.weight`, `net.0.bias` or `layers[1].weight`."""
    expr = re.sub(r"\.(\d+)(?=\.|$|\[)", r"[\1]", name)
    try:
        return eval(expr, {}, namespace)  # a test's own names, on the test's own data
    except Exception:
        return None


def same(a, b) -> bool:
    """Equal nested lists of numbers, NaN equal to NaN."""
    if isinstance(a, list) or isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):  # "nan", "inf" as JSON writes them
        return str(a) == str(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    return a == b or (math.isnan(a) and math.isnan(b))


def _case_ids():
    return [e["file"] for e in MANIFEST]


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=_case_ids())
def test_explain_names_the_threads_culprit(entry):
    """The cause kind at the culprit line; exit 0 exactly for the healthy controls."""
    if entry["file"] in KNOWN_MISSES:
        pytest.xfail(KNOWN_MISSES[entry["file"]])
    _, _, doc, code = run(DATA / entry["file"])
    if entry["kind"] == "ok":
        assert code == 0, causes_of(doc)
        return
    kinds = ZERO_KINDS.get(entry["kind"], {entry["kind"]})
    lines = {entry["culprit_line"]}
    if entry["file"] in ALSO:
        lines.add(ALSO[entry["file"]][0])
    found = causes_of(doc)
    assert any(k in kinds and line in lines for k, line in found), found
    # a masked row (padding_idx) leaves the gradient partly zero: reported, exit 0 as
    # documented (docs/pytorch.md, exit status); every other kind is a finding
    assert code == entry.get("exit", 0 if entry["kind"] == "zero_mask" else 1)


@pytest.mark.slow
@pytest.mark.parametrize("file", sorted(NOT_NAMED))
def test_transient_causes_are_not_named(file):
    """torch.multinomial beside a log_prob that still reads the probabilities is no cause
    (only the rebuilt tensor keeps the actor from the loss), nor are zeros that the same
    operation fills in again (F.cross_entropy's NllLoss then LogSoftmax)."""
    _, _, doc, _ = run(DATA / file)
    kinds = {k for k, _ in causes_of(doc)}
    assert not kinds & NOT_NAMED[file], causes_of(doc)


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST, ids=_case_ids())
def test_values_are_pytorchs_own(entry):
    """Each gradient a backward() call reports equals the .grad PyTorch itself holds right
    after that call when the script runs without gradcli."""
    _, _, doc, _ = run(DATA / entry["file"])
    calls = [c for c in doc["calls"] if c["kind"] == "backward"]
    if not calls:
        pytest.skip("no backward() call: nothing to compare")
    plain = plain_grads(DATA / entry["file"], [[g["name"] for g in c["gradients"]] for c in calls])
    compared = 0
    for call, grads in zip(calls, plain):
        if call["error"] is not None:
            continue  # PyTorch raised in the call: no values
        for g in call["gradients"]:
            if g["value"] is None:
                assert g["name"] not in grads or g["status"] != "unconnected", g["name"]
                continue
            grad = grads[g["name"]]
            assert list(grad.shape) == g["shape"], g["name"]
            assert same(g["value"], _as_float32(_listed(grad), g["dtype"])), g["name"]
            compared += 1
    assert compared or all(
        g["status"] == "unconnected" for c in calls if c["error"] is None for g in c["gradients"]
    ), "no value compared"


def _listed(grad):
    return json.loads(json.dumps(grad.tolist()).replace("NaN", '"nan"'))


def _as_float32(value, dtype: str):
    """PyTorch's float32 values written as gradcli writes them (shortest float32 text)."""
    import numpy as np

    from gradcli.views.format import jsonable

    if dtype != "float32":
        return value
    clean = json.loads(json.dumps(value).replace('"nan"', "NaN"))
    return jsonable(np.asarray(clean, dtype=np.float32))

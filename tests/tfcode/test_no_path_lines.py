"""no_path's line in TensorFlow code read statically (issue 29): the line that dropped what was
computed from the source, by the run mode's rule (gradcli/capture/diagnosis.py `no_path`), so
that both ways name the same line (tests/capture/test_tf_both_ways.py checks them together
on every snippet; TensorFlow's None for these sources is in tests/data/tf_code_reference.json)."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT

from gradcli.runtime.errors import Pos
from gradcli.tfcode.unused_sources import Frames

CODE = ROOT / "tests" / "data" / "tf_code"


def explain_json(name: str) -> tuple[int, dict]:
    out = subprocess.run(
        [sys.executable, "-m", "gradcli", "explain", str(CODE / f"{name}.py"), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return out.returncode, json.loads(out.stdout)


def no_path_causes(doc: dict) -> dict:
    return {
        p["input"]: (c["kind"], c["line"], c["location"])
        for p in doc["pairs"]
        for c in p["causes"][:1]
        if c["kind"] == "no_path"
    }


def test_a_result_left_unused_is_named_where_the_other_results_are_used():
    code, doc = explain_json("no_path_dropped_result")
    assert code == 1
    causes = no_path_causes(doc)
    # b: heads() (line 16) computes x * b, line 17 uses its other result only
    assert causes["b"][:2] == ("no_path", 17)
    assert causes["b"][2].endswith("no_path_dropped_result.py:17:12")  # p * p
    # c: its last use is `c * 2.0` (line 18), which nothing reads
    assert causes["c"][:2] == ("no_path", 18)
    reason = next(p["reason"] for p in doc["pairs"] if p["input"] == "b")
    assert "line 16 computes from it, and line 17 uses that call's other results" in reason


def test_a_keras_head_left_unused_is_named_at_the_loss_line():
    code, doc = explain_json("keras_unused_head")
    assert code == 1
    causes = no_path_causes(doc)
    lines = {k: v[1] for k, v in causes.items()}
    assert lines == {"model.trainable_variables[4]": 29, "model.trainable_variables[5]": 29}


def first_causes(doc: dict) -> dict:
    return {p["input"]: (p["causes"][0]["kind"], p["causes"][0]["line"]) for p in doc["pairs"]
            if p["causes"]}  # fmt: skip


def test_variables_a_dataset_read_are_cut_where_it_is_made():
    # issue 29: cut at that line, never "does not use it": offsets is read when the
    # dataset is made, before the tape; scale inside the map function (a dataset op has
    # no gradient), as `--run` names them from TensorFlow's own ops
    _, doc = explain_json("data_from_variables")
    assert first_causes(doc) == {"scale": ("non_differentiable", 11),
                                 "offsets": ("outside_tape", 11)}  # fmt: skip


DATASET_IN_TAPE = """\
import tensorflow as tf
w = tf.Variable(2.0)
scale = tf.Variable(3.0)
offsets = tf.Variable([0.5, -1.0]{trainable})
with tf.GradientTape() as tape:
    ds = tf.data.Dataset.from_tensor_slices(offsets)
    ds = ds.map(lambda v: v * scale)
    for v in ds.take(1):
        loss = v * w + w**2
print(tape.gradient(loss, [w, scale, offsets]))
"""


def test_a_dataset_made_inside_the_tape_is_cut_at_its_own_op(tmp_path):
    # the tape records offsets' read, then the dataset op, which has no gradient
    path = tmp_path / "ds.py"
    path.write_text(DATASET_IN_TAPE.format(trainable=""))
    out = subprocess.run([sys.executable, "-m", "gradcli", "explain", str(path), "--format",
                          "json"], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert first_causes(json.loads(out.stdout)) == {
        "scale": ("non_differentiable", 7), "offsets": ("non_differentiable", 6)}  # fmt: skip


def test_an_unwatched_variable_a_dataset_read_is_not_watched(tmp_path):
    path = tmp_path / "ds.py"
    path.write_text(DATASET_IN_TAPE.format(trainable=", trainable=False"))
    out = subprocess.run([sys.executable, "-m", "gradcli", "explain", str(path), "--format",
                          "json"], capture_output=True, text=True, timeout=120)  # fmt: skip
    causes = first_causes(json.loads(out.stdout))
    assert causes["offsets"] == ("not_watched", 4)


def test_a_source_nothing_uses_keeps_its_own_line():
    _, doc = explain_json("tf1_unconnected_zero")
    assert {k: v[1] for k, v in no_path_causes(doc).items()} == {"b": 9}


def test_frames_are_a_change_log_not_a_record_per_node():
    frames = Frames()
    site = Pos("f.py", 3, 1)
    size = 0
    for _ in range(100_000):  # a helper called in a long loop, one node per call
        frames.enter(size, site)
        size += 1
        frames.leave(size)
    assert frames.of(0) == (site,) and frames.of(99_999) == (site,)
    frames.enter(size, site)  # a call that makes nothing leaves no entry behind
    frames.leave(size)
    assert frames.of(size) == () and len(frames.starts) < 5  # repeated calls of one site merge

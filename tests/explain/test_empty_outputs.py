"""An output with no elements: eval and explain answer (gradients are zeros, as in TF)."""

from helpers import run_json

# f has shape (0, 2): the slice [1:] of a one-row tensor. TensorFlow's gradients are the
# sum over no elements: 0.0 for x, and zeros for every element of m.
SPEC = "inputs:\n  x: 1.0\n  m: [[1.0, 2.0], [3.0, 4.0]]\ngraph:\n  f: (x + (x + m[1:])[1:])\n"


def test_eval_of_an_empty_output_gives_zero_gradients():
    doc = run_json("eval", "-", "--format", "json", "--check", "off", input=SPEC)
    assert doc["outputs"]["f"]["shape"] == [0, 2]
    assert doc["gradients"]["x"]["value"] == 0.0
    assert doc["gradients"]["m"]["value"] == [[0.0, 0.0], [0.0, 0.0]]


def test_explain_of_an_empty_output_names_the_slice():
    doc = run_json("explain", "-", "--format", "json", input=SPEC, code=1)
    pair = next(p for p in doc["pairs"] if p["input"] == "m")
    assert pair["status"] == "zero"
    assert [c["kind"] for c in pair["causes"]] == ["unselected", "unselected"]

"""The reader's Python beyond the snippets: comprehensions' bounds and scope."""

from __future__ import annotations

import pytest
from helpers import interpret_tf

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

HEAD = "import tensorflow as tf\n"


def read(text: str):
    return read_program(text.encode(), "t.py")


def test_a_comprehension_is_bounded_as_a_loop_is():
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "xs = [i for i in range(2_000_000)]\n")
    assert "a loop of 2,000,000 iterations" in exc.value.message and exc.value.pos.line == 2


def test_a_comprehension_has_its_own_scope_and_reads_conditions_in_order():
    code = HEAD + (
        "i = 10\n"
        "w = tf.Variable(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    terms = [w * i for i in range(4) if i % 2 if i > 0]\n"
        "    loss = sum(terms, tf.constant(0.0)) + i\n"
        "g = tape.gradient(loss, w)\n"
    )
    call = read(code).calls[0]
    assert call.evaluation.outputs["loss"] == 2.0 * 1 + 2.0 * 3 + 10  # i is 10 again after it
    assert call.evaluation.gradients["w"] == 4.0


def test_set_comprehensions_stay_refused():
    with pytest.raises(GradcliError) as exc:
        read(HEAD + "s = {i for i in range(3)}\n")
    assert "a set comprehension" in exc.value.message


def test_the_benchmarks_training_step_reads_with_its_specs_gradient_shapes():
    import importlib.util
    from pathlib import Path

    from gradcli.core.evaluation import evaluate
    from gradcli.spec.assembly import build_problem
    from gradcli.spec.reader import load_spec

    path = Path(__file__).parents[2] / "benchmarks" / "specs.py"
    module = importlib.util.spec_from_file_location("bench_specs", path)
    specs = importlib.util.module_from_spec(module)
    module.loader.exec_module(specs)
    sizes, batch = (4, 5, 3), 6
    program = read(specs.tf_train_step(sizes, batch))
    assert program.error is None
    [call] = program.calls
    got = [g.shape for g in call.evaluation.gradients.values()]
    spec = evaluate(build_problem(load_spec(specs.tf_equivalent_spec(sizes, batch), "s.yaml")))
    assert got == [g.shape for g in spec.gradients.values()]
    assert all(g.dtype == "float32" for g in call.evaluation.gradients.values())


def test_numpy_random_rand_takes_the_shape_as_its_arguments():
    """np.random.rand(100, 10) draws a (100, 10) array in [0, 1): its arguments are the
    shape, not bounds (read as bounds they made an internal error: high < low)."""
    it = interpret_tf(
        """
        import numpy as np
        a = np.random.rand(100, 10)
        b = np.random.uniform(2.0, 3.0, size=(4,))
        """
    )
    a, b = (it.value(it.tensor_id(it.globals.vars[n], read=False)) for n in "ab")
    assert a.shape == (100, 10) and a.min() >= 0.0 and a.max() < 1.0
    assert b.shape == (4,) and b.min() >= 2.0 and b.max() < 3.0

"""No input reaches an internal error: seeded random calls of the TensorFlow, Keras and NumPy
names in the reader's tables, with bad arguments (wrong shapes, dtypes, kinds, counts and
keywords), read by the static reader. Each program must be read, or refused / reported as
an error at a line of the file (GradcliError with a position); any other exception is what
the CLI reports as an internal error (exit 70), so it fails here with the program shown."""

from __future__ import annotations

import random

import pytest

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import api_table, read_program
from gradcli.tfcode.api_keras import KERAS
from gradcli.tfcode.api_raw_ops import RAW
from gradcli.tfcode.builtins import SPECIAL

SEED = 29
PROGRAMS = 1500
HEAD = """import numpy as np
import tensorflow as tf
import keras

x = tf.constant([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]])
i = tf.constant([2, 0, 1])
b = tf.constant([True, False])
s = tf.constant(2.5)
d = tf.constant([1.0, 2.0], dtype=tf.float64)
v = tf.Variable([[0.5, 1.0, -1.0], [2.0, 0.25, 1.0]])
e = tf.zeros((0, 3))
"""
ARGUMENTS = [
    "x", "i", "b", "s", "d", "v", "e", "x[0]", "v * 2.0", "np.ones((3, 2))", "np.arange(6)",
    "[1.0, 2.0]", "[[1, 2], [3]]", "'abc'", "None", "-1", "0", "2", "7", "1.5", "(2, 3)",
    "[0, -1]", "tf.float64", "tf.int32", "np.int64(3)", "True", "float('nan')", "1e308",
    "tf.constant([])", "tf.ones((2, 3, 1))", "lambda t: t", "{'a': x}",
]  # fmt: skip
# handlers that change how the rest of the program is read (graph mode, sessions, tapes)
MACHINERY = {"tf.compat.v1.disable_eager_execution", "tf.compat.v1.Session", "tf.GradientTape"}
KEYWORDS = ["axis", "keepdims", "dtype", "name", "shape", "k", "perm", "training", "x", "y"]


def names() -> list[str]:
    """The dotted names the reader maps to table rows (api_table.lookup accepts them) and
    the ones it reads with handlers of their own (builtins.SPECIAL), TensorFlow's, Keras's
    and NumPy's (not the Python builtins, nor the tape and tf.function machinery)."""
    found = [*api_table.TF, *api_table.NP, *RAW, *KERAS]
    table = [n for n in dict.fromkeys(found) if api_table.lookup(n) is not None]
    special = [n for n in SPECIAL if n.startswith(("tf.", "np.", "keras.")) and n not in MACHINERY]
    return sorted({*table, *special})


def program(rng: random.Random, name: str) -> str:
    """One call of `name` with random arguments, under a tape, its result differentiated."""
    args = [rng.choice(ARGUMENTS) for _ in range(rng.randint(0, 4))]
    row = api_table.lookup(name)
    keywords = [*KEYWORDS, *(row.params if row is not None else ())]
    for _ in range(rng.randint(0, 2)):
        args.append(f"{rng.choice(keywords)}={rng.choice(ARGUMENTS)}")
    call = f"{name}({', '.join(args)})"
    return (
        HEAD
        + "with tf.GradientTape(persistent=True) as tape:\n"
        + "    tape.watch(x)\n"
        + f"    y = {call}\n"
        + "g = tape.gradient(y, [x, v])\n"
    )


def cases() -> list[str]:
    rng = random.Random(SEED)
    pool = names()
    return [program(rng, rng.choice(pool)) for _ in range(PROGRAMS)]


@pytest.mark.slow
def test_random_bad_calls_never_reach_an_internal_error():
    crashes = []
    for k, text in enumerate(cases()):
        call = text.splitlines()[-2].strip()
        try:
            read_program(text.encode(), f"fuzz_{k}.py")
        except GradcliError as exc:
            if exc.pos is None or exc.pos.line < 1:
                crashes.append(f"program {k}: an error without a line: {exc}\n{call}")
        except Exception as exc:  # exit 70 in the CLI
            crashes.append(f"program {k}: {type(exc).__name__}: {str(exc)[:200]}\n{call}")
    assert not crashes, f"{len(crashes)} of {PROGRAMS} crash:\n" + "\n".join(crashes[:8])


def test_the_fuzzed_names_cover_the_tables():
    pool = names()
    assert len(pool) > 300 and "tf.math.reduce_sum" in pool and "keras.ops.matmul" in pool

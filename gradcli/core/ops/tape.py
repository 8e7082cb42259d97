"""Where a GradientTape stops seeing a value: the TensorFlow reader's tape boundaries."""

from __future__ import annotations

from enum import Enum

from gradcli.core.ops.registry import (
    STOP,
    Op,
    register,
)
from gradcli.core.ops.shapes import _identity, _same


# --- tape_boundary: where a GradientTape stops seeing a value (the TensorFlow reader) -------
class TapeCause(str, Enum):
    """Why a tape does not see through a value: the kinds explain reports for them."""

    LEAVES_TAPE = "leaves_tape"  # turned into NumPy or Python (.numpy(), np.*, float())
    NOT_WATCHED = "not_watched"  # a constant never watched, trainable=False, ...
    OUTSIDE_TAPE = "outside_tape"  # computed after the with block, or before tape.watch
    # copied into a variable (tf.Variable(t), v.assign(t)): reads start anew; issue 29: a value
    # that reaches the target only through such a write is cut at the write, as the run mode
    # says (non_differentiable), never "does not use it at all"
    STORED = "non_differentiable"


# identity forward, no gradient; attrs: cause (a TapeCause value), detail (one sentence with
# the code and the fix) and summary (the clause a reason is built from)
register(
    Op(
        "tape_boundary",
        _same,
        accepts="any",
        forward=_identity,
        scalar=_identity,
        grads=(None,),
        behavior=STOP,
        elementwise=True,
        arity=1,
        cut_words=("{cause}", "{detail}", "{summary} in {where}"),
        doc="a value a GradientTape does not see through (TensorFlow code only)",
    )
)

"""TensorFlow's words for the diagnosis: the fix for each cause kind, what TensorFlow's and
Keras's gradient error messages say in the capture's terms (`read_error`), and the
diagnosis's PyTorch-worded details said the TensorFlow way (`reword`). No TensorFlow
import here."""

from __future__ import annotations

import re

FRAMEWORK = "TensorFlow"
# the run mode's kinds as the static TensorFlow reader names them, so that a script's JSON
# does not depend on the way it was read (docs/reading-code.md)
KINDS = {
    "detach": "stop_gradient",
    "leaves_autograd": "leaves_tape",
    "requires_grad_false": "not_watched",
    "no_grad": "outside_tape",
    "custom_function": "non_differentiable",  # a tf.custom_gradient that returned None
}
FIXES = {
    "detach": "drop the tf.stop_gradient on the path you want the gradient to follow; stop "
    "only what must not be trained, such as a GAN's fake images in the discriminator's step",
    "no_grad": "compute the loss inside the `with tf.GradientTape() as tape:` block (after "
    "tape.watch for tensors), not after it or under tape.stop_recording()",
    "leaves_autograd": "keep the value a tensor: TensorFlow ops instead of .numpy(), float(), "
    "np.* or tf.numpy_function (which the tape cannot differentiate)",
    "rewrapped": "keep the tensor itself: tf.constant/tf.convert_to_tensor of NumPy values "
    "makes a new tensor with no path back to what they were computed from",
    "requires_grad_false": "watch it: make it a trainable tf.Variable (the tape watches those "
    "it reads), or call tape.watch(x) before computing from x; a variable replaced by a "
    "tensor (w = w - lr * g) is no longer watched: update it with w.assign_sub(lr * g)",
    "no_path": "use the variable in the computation of the value you differentiate, or do "
    "not expect a gradient for it",
    "non_differentiable": "this operation has no gradient (integer-valued, a step, or a write "
    "into a variable): use a smooth surrogate (softmax instead of argmax, a straight-through "
    "estimator x + tf.stop_gradient(f(x) - x)), and compute from tensors, not from what a "
    "variable was assigned",
    "integer": "keep the path in floating point: integer tensors carry no gradient",
    "custom_function": "return a gradient for every input from the tf.custom_gradient's "
    "gradient function: None there means no gradient for that input",
    "untaken_branch": "only the branch that ran is differentiated: check the condition if "
    "this source should be trained, or compute both sides and combine them (tf.where)",
    "inplace": "compute from the tensor itself: a value assigned into a variable and read "
    "back has no gradient path to what it was computed from",
    "non_finite": "keep the operation away from its singular points (clip before log or "
    "sqrt, add an epsilon), and mask inputs before the operation (tf.where on the input), "
    "not only its output",
    "inactive": "these units receive negative inputs: check initialisation and learning "
    "rate, or use leaky_relu/gelu",
    "mask": "the gradient is multiplied by a zero: expected for masked elements",
    "underflow": "the activation is saturated: normalise its inputs or lower their scale",
    "unselected": "these elements are not read by the indexing or pooling: expected",
    "zero_derivative": "the local derivative is zero here: check the operation's inputs",
    "zero_upstream": "the gradient the call starts from is zero",
    "unknown": "run with --calls all, or narrow the script around this line",
}
_PATTERNS = (
    ("unused_input", re.compile(r"No gradients provided for any variable")),
    ("tape_reused", re.compile(r"non-persistent GradientTape can only be used to compute one")),
    ("gradients_eager", re.compile(r"tf\.gradients is not supported when eager execution")),
    ("symbolic_numpy", re.compile(r"'SymbolicTensor' object has no attribute 'numpy'")),
    ("symbolic_numpy", re.compile(r"numpy\(\) is only available when eager execution")),
    ("number_backward", re.compile(r"'float' object has no attribute 'dtype'")),
    ("number_backward", re.compile(r"'numpy\.\w+' object has no attribute '_id'")),
    ("number_target", re.compile(r"Cannot convert the argument `type_value`: .* to a Tens")),
    ("none_gradient", re.compile(r"unsupported operand type\(s\) for .*'NoneType'")),
    ("none_gradient", re.compile(r"'NoneType' object has no attribute")),
    ("none_gradient", re.compile(r"Attempt to convert a value \(None\)")),
)
NOTES = {
    "tape_reused": "a non-persistent GradientTape gives one set of gradients: make the tape "
    "persistent (tf.GradientTape(persistent=True)) or use one tape per gradient call",
    "gradients_eager": "tf.gradients works in graph mode only: use tf.GradientTape in eager "
    "code (or call tf.gradients inside a tf.function)",
    "symbolic_numpy": "inside a tf.function (and Keras's fit, which traces its step) tensors "
    "are symbolic and have no .numpy(): keep TensorFlow ops, or compile with "
    "run_eagerly=True to debug",
    "number_target": "the target is a Python number, not a tensor (a branch that ran "
    "returned a constant such as 0.0): TensorFlow cannot differentiate it; return a tensor "
    "there (tf.zeros_like(...))",
    "none_gradient": "a gradient TensorFlow returned was None and the script used it: the "
    "pairs above say why it is None",
}


def read_error(message: str) -> dict | None:
    """What a TensorFlow or Keras error message says about gradients, or None."""
    for kind, pattern in _PATTERNS:
        m = pattern.search(message)
        if m:
            return {"kind": kind, **m.groupdict()}
    return None


_REWORDS = (
    (
        re.compile(r"^the backward of (?P<f>\S+) returned no gradient \(None\) for this input$"),
        "the gradient function of the tf.custom_gradient {f} returns None for this input, so "
        "no gradient reaches it through {f}",
    ),
    (
        re.compile(r"(?P<name>.+) was made without requires_grad=True$"),
        "{name} is not watched by the tape: it is a tensor (or a variable with "
        "trainable=False) the tape was not told to watch (tape.watch)",
    ),
    (
        re.compile(r"ran under grad mode off \(torch\.no_grad\(\)\)(?P<rest>.*)$"),
        "ran while no GradientTape was recording it (outside the tape's with block, before "
        "tape.watch, or under tape.stop_recording()){rest}",
    ),
    (
        re.compile(r"^(?P<op>assign\w*|scatter_update) recorded no gradient for its result$"),
        "{op} writes the value into a variable: what is read back from the variable later "
        "has its numbers but no gradient path to what they were computed from",
    ),
)


def reword(detail: str) -> str:
    """A detail of the neutral diagnosis, in TensorFlow's terms."""
    for pattern, text in _REWORDS:
        m = pattern.search(detail)
        if m:
            return detail[: m.start()] + text.format(**m.groupdict())
    return detail

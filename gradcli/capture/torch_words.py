"""PyTorch's words for the diagnosis: the fix for each cause kind, and what each of
PyTorch's gradient error messages says in the capture's terms (`read_error`)."""

from __future__ import annotations

import re

FRAMEWORK = "PyTorch"
KINDS: dict[str, str] = {}  # PyTorch's words are the diagnosis's own kinds
FIXES = {
    "detach": "drop the .detach() (or .data) on the path you want the gradient to follow; "
    "detach only what must not be trained, such as a GAN's fake images in the "
    "discriminator's step",
    "no_grad": "compute the loss outside torch.no_grad() / torch.inference_mode(); keep "
    "those for evaluation and in-place parameter updates",
    "leaves_autograd": "keep the value a tensor: use the tensor itself instead of .item(), "
    ".numpy(), .tolist() or float(), and torch functions instead of math/NumPy",
    "rewrapped": "build the tensor with torch.stack/torch.cat (or keep the tensor) instead "
    "of torch.tensor(...), which copies values and drops the graph; setting "
    "loss.requires_grad = True only hides the cut",
    "requires_grad_false": "create it with requires_grad=True (nn.Parameter does), or do "
    "not freeze it (requires_grad_(True))",
    "non_leaf": "PyTorch keeps .grad only for leaves: make the tensor a leaf (create it "
    "where it lives, e.g. torch.randn(..., device=d, requires_grad=True)), update "
    "parameters in place under torch.no_grad(), or call .retain_grad() on it",
    "no_path": "use the tensor in the computation of the value you differentiate, or do "
    "not expect a gradient for it",
    "non_differentiable": "this operation has no useful gradient (integer-valued or a "
    "step): use a smooth surrogate (softmax instead of argmax, a straight-through "
    "estimator x + (f(x) - x).detach())",
    "integer": "keep the path in floating point: integer tensors carry no gradient",
    "untaken_branch": "only the branch that ran is differentiated: check the condition if "
    "this source should be trained, or compute both sides and combine them (torch.where)",
    "not_registered": "register the layer or tensor with its module (nn.ModuleList, "
    "nn.ModuleDict, nn.Parameter) so model.parameters() lists it",
    "not_in_optimizer": "hand the tensor to the optimizer: build it from "
    "model.parameters() after the model is complete, or add_param_group",
    "zero_grad_misuse": "call optimizer.zero_grad() before loss.backward() (or after "
    "optimizer.step()), never between backward() and step()",
    "zero_grad_set_to_none": "call zero_grad(set_to_none=False) to keep the tensor you set, "
    "or set .grad again after zero_grad()",
    "inplace": "replace the in-place operation with its out-of-place form (x = x + 1 "
    "instead of x += 1, relu(inplace=False)), or .clone() the tensor first",
    "backward_twice": "pass retain_graph=True to the first backward if both must go "
    "through the same graph (or sum the losses and call backward once)",
    "backward_twice_carried": "detach what is carried from one iteration to the next "
    "(h = h.detach()), or compute it inside the loop",
    "custom_function": "return one gradient per input of forward from backward (None only "
    "for inputs that need none)",
    "non_finite": "keep the operation away from its singular points (clamp before log or "
    "sqrt, add an epsilon), and mask inputs before the operation, not only its output",
    "inactive": "these units receive negative inputs: check initialisation and learning "
    "rate, or use LeakyReLU/GELU",
    "mask": "the gradient is multiplied by a zero: expected for masked elements",
    "underflow": "the activation is saturated: normalise its inputs or lower their scale",
    "underflow_narrow": "scale the loss (torch.amp.GradScaler) or compute in bfloat16 or float32",
    "unselected": "these elements are not read by the indexing or pooling: expected",
    "zero_derivative": "the local derivative is zero here: check the operation's inputs",
    "zero_upstream": "the gradient given to backward is zero",
    "unknown": "run with --calls all, or narrow the script around this line",
}

_INPLACE = re.compile(
    r"modified by an inplace operation: \[(?P<type>[\w.]+) \[(?P<shape>[\d, ]*)\]\]"
    r"(?:, which is output (?P<output>\d+) of (?P<node>\w+),)? is at version "
    r"(?P<version>\d+); expected version (?P<expected>\d+)"
)
_PATTERNS = (
    ("backward_twice", re.compile(r"backward through the graph a second time")),
    ("root_no_grad", re.compile(r"does not require grad and does not have a grad_fn")),
    ("inference_saved", re.compile(r"Inference tensors cannot be saved for backward")),
    ("inplace_leaf", re.compile(r"leaf Variable that requires grad is being used in an in-")),
    ("custom_count", re.compile(r"function (?P<node>\w+) returned an incorrect number of")),
    ("custom_count", re.compile(r"function (?P<node>\w+) returned a gradient different")),
    ("unused_input", re.compile(r"Tensors appears to not have been used in the graph")),
    ("input_no_grad", re.compile(r"One of the differentiated Tensors does not require grad")),
    ("non_leaf_param", re.compile(r"can't optimize a non-leaf Tensor")),
    ("empty_params", re.compile(r"optimizer got an empty parameter list")),
    ("numpy_grad", re.compile(r"Can't call numpy\(\) on Tensor that requires grad")),
    ("none_grad", re.compile(r"'NoneType' object has no attribute")),
    ("none_grad", re.compile(r"unsupported operand type\(s\) for .*'NoneType'")),
    ("scalar_root", re.compile(r"grad can be implicitly created only for scalar outputs")),
    ("integer_grad", re.compile(r"[Oo]nly Tensors of floating point .*dtype can require grad")),
    ("number_backward", re.compile(r"'(float|int)' object has no attribute '(backward|grad)'")),
)
NOTES = {
    "scalar_root": "backward() without a gradient needs a single-element tensor: reduce it "
    "(loss.mean().backward()) or pass gradient=torch.ones_like(loss)",
}


def read_error(message: str) -> dict | None:
    """What a PyTorch error message says about gradients, or None if nothing."""
    m = _INPLACE.search(message)
    if m:
        shape = tuple(int(d) for d in m["shape"].replace(" ", "").split(",") if d)
        return {
            "kind": "inplace_saved",
            "shape": shape,
            "node": m["node"],
            "version": int(m["version"]),
            "expected": int(m["expected"]),
        }
    for kind, pattern in _PATTERNS:
        m = pattern.search(message)
        if m:
            return {"kind": kind, **m.groupdict()}
    return None

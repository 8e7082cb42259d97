"""Keras 3 optimizers' updates of the variables, computed as TensorFlow 2.21 computes them.

`apply_gradients`/`apply` change the variables, so a later gradient call (the generator's step
after the discriminator's in a GAN, the next iteration of a training loop) is at the updated
values. The reader computes the update where it knows Keras's exact arithmetic: `SGD`
(momentum and Nesterov included) and `Adam` (amsgrad included) with a float learning rate and
none of the base options that change the update (weight decay, clipping, EMA, loss scaling,
gradient accumulation). Each step is written in the variable's dtype, in Keras's order of
operations (keras/src/optimizers/sgd.py and adam.py `update_step`): the learning rate is a
float32 variable cast to the variable's dtype, and so are `momentum`, `beta_1` and `beta_2`
(`ops.cast` of a Python float makes a float32 tensor first); `1 - beta_1`, `1 - beta_2` and
`epsilon` meet a tensor as Python floats, converted to its dtype directly. Any other
optimizer or option is not modelled: `update` returns False and the later gradient calls
are refused (calls.py).
"""

from __future__ import annotations

import numpy as np

from gradcli.tfcode.values import Tensor, Variable

# the base optimizer's options, with the values under which the update is unchanged
BASE = {
    "weight_decay": None, "clipnorm": None, "clipvalue": None, "global_clipnorm": None,
    "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
    "loss_scale_factor": None, "gradient_accumulation_steps": None, "name": None,
}  # fmt: skip
PARAMS = {
    "SGD": {"learning_rate": 0.01, "momentum": 0.0, "nesterov": False},
    "Adam": {"learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07,
             "amsgrad": False},
}  # fmt: skip


def config(obj) -> dict | None:
    """The optimizer's options where its update is modelled, else None."""
    name = obj.cls.name
    if name not in PARAMS or obj.cls.user:
        return None
    args, kwargs = obj.data.get("options", ((), {}))
    names = list(PARAMS[name])
    if len(args) > len(names):
        return None
    given = {**dict(zip(names, args)), **kwargs}
    out = dict(PARAMS[name])
    for k, v in given.items():
        if k in out:
            out[k] = v
        elif k not in BASE or (k != "name" and v != BASE[k]):
            return None
    if not isinstance(out["learning_rate"], float) or isinstance(out["learning_rate"], bool):
        return None  # a schedule, a callable, an int (Keras raises), a tensor
    numbers = [v for k, v in out.items() if k not in ("nesterov", "amsgrad")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
        return None
    return out


def update(it, obj, pairs, node) -> bool:
    """Apply the optimizer's update to the variables of (gradient, variable) pairs; False
    (nothing changed) where the update is not modelled."""
    options = config(obj)
    if options is None or not isinstance(pairs, (list, tuple)):
        return False
    pairs = [p for p in pairs if isinstance(p, tuple) and len(p) == 2 and p[0] is not None]
    if not pairs or not all(isinstance(v, Variable) for _, v in pairs):
        return False
    slots = obj.data.setdefault("slots", {})
    if slots and any(id(v) not in slots for _, v in pairs):
        return False  # Keras raises for variables it was not built with: not modelled
    values = []
    for g, var in pairs:
        dtype = np.dtype(it.g[var.value].dtype)
        if dtype.kind != "f":
            return False
        grad = it.as_array(g, node)
        if grad.shape != tuple(it.g[var.value].shape):
            return False  # IndexedSlices, broadcasting: not modelled
        values.append((grad.astype(dtype), var, dtype))
    if not slots:
        for _, var, dtype in values:
            shape = tuple(it.g[var.value].shape)
            slots[id(var)] = [np.zeros(shape, dtype) for _ in range(3)]
    step = obj.data.get("iterations", 0)
    with np.errstate(all="ignore"):
        for grad, var, dtype in values:
            before = var.value
            old = it.value(before).astype(dtype)
            new = _STEPS[obj.cls.name](options, grad, old, slots[id(var)], step, dtype)
            var.value = it.leaf(np.asarray(new, dtype), node).id
            var.versions.append(var.value)
            it.keep_stale(var.value, [Tensor(before)])  # from a value gradcli does not know
    obj.data["iterations"] = step + 1
    return True


def _cast(number: float, dtype):
    """keras.ops.cast of a Python float: a float32 tensor first, then the dtype."""
    return dtype.type(np.float32(number))


def _sgd(o: dict, g, w, slot, step, dtype):
    lr = dtype.type(np.float32(o["learning_rate"]))
    if o["momentum"] == 0:
        return w - g * lr
    momentum = _cast(o["momentum"], dtype)
    m = slot[0] = slot[0] * momentum - g * lr
    return w + (slot[0] * momentum - g * lr) if o["nesterov"] else w + m


def _adam(o: dict, g, w, slot, step, dtype):
    lr = dtype.type(np.float32(o["learning_rate"]))
    local_step = dtype.type(step + 1)
    beta_1_power = np.power(_cast(o["beta_1"], dtype), local_step)
    beta_2_power = np.power(_cast(o["beta_2"], dtype), local_step)
    alpha = lr * np.sqrt(dtype.type(1) - beta_2_power) / (dtype.type(1) - beta_1_power)
    slot[0] = slot[0] + (g - slot[0]) * dtype.type(1 - o["beta_1"])
    slot[1] = slot[1] + (np.square(g) - slot[1]) * dtype.type(1 - o["beta_2"])
    v = slot[1]
    if o["amsgrad"]:
        v = slot[2] = np.maximum(slot[2], slot[1])
    return w - (slot[0] * alpha) / (np.sqrt(v) + dtype.type(o["epsilon"]))


_STEPS = {"SGD": _sgd, "Adam": _adam}

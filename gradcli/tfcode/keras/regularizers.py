"""Keras's weight regularizers for the reader: tf.keras.regularizers.L1/L2/L1L2 (and l1, l2,
l1_l2, the strings 'l1', 'l2', 'l1l2' and the class names, a def or lambda), and `layer.losses`.

Keras 3 on TensorFlow 2.21 (verified with Keras 3.15.1):
- L1(l1=0.01)(x) = l1 * reduce_sum(abs(x)), L2(l2=0.01)(x) = l2 * reduce_sum(square(x)),
  the factor cast to x's dtype; L1L2(l1=0.0, l2=0.0) (also l1_l2() and 'l1l2') is
  0.0 + [l1 term] + [l2 term], each term only when its factor is not 0. The string
  'l1_l2' is Keras's ValueError ("Could not interpret regularizer identifier").
- `layer.losses` is computed when it is read (so its penalties are on a tape only if read
  inside it): the losses the layer and its sub-layers added, then one penalty per variable
  of `layer.trainable_weights` that has a regularizer, in that order; a frozen layer's
  variables have none.
- `self.add_loss(t)` keeps tensors on the layer until its next outermost call (Layer.__call__
  clears the layer's and its sub-layers', protocol.clear_losses); `add_metric` is gone from
  Keras 3 (NotImplementedError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.support import _describe
from gradcli.tfcode.values import PyFunction, Tensor, Variable

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

# class name -> (its factors in order, their defaults)
FACTORS = {"L1": (("l1",), (0.01,)), "L2": (("l2",), (0.01,)), "L1L2": (("l1", "l2"), (0.0, 0.0))}
# the strings Keras 3 reads (the class names and their snake case: not "l1_l2")
STRINGS = {"l1": "L1", "l2": "L2", "l1l2": "L1L2", "L1": "L1", "L2": "L2", "L1L2": "L1L2"}


def _init(it: Interpreter, obj: Instance, args, kwargs, node):
    """L1(l1=0.01), L2(l2=0.01), L1L2(l1=0.0, l2=0.0)."""
    names, defaults = FACTORS[obj.cls.name]
    if len(args) > len(names):
        it.refuse(node, f"{obj.cls.name} with {len(args)} arguments")
    bound = dict(zip(names, defaults))
    bound.update(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            it.refuse(node, f"tf.keras.regularizers.{obj.cls.name}(..., {k}=...)")
        bound[k] = v
    for k, v in bound.items():
        v = 0.0 if v is None else v
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            it.refuse(node, f"{k}={_describe(v)}", "give a Python number")
        obj.data[k] = float(v)
    return None


def _call(it: Interpreter, obj: Instance, args, kwargs, node):
    """regularizer(x): the penalty."""
    x = args[0] if args else kwargs.get("x")
    if not isinstance(x, (Tensor, Variable)):
        it.refuse(node, f"a regularizer applied to {_describe(x)}")
    return penalty(it, obj, x, node)


REGULARIZER = Class("Regularizer", kind="regularizer", methods={"__call__": Builtin(_call)})
REGULARIZER_CLASSES = {n: Class(n, (REGULARIZER,), {"__init__": Builtin(_init)}) for n in FACTORS}
# keras.<name> -> class (registered in keras/__init__.py's CLASSES)
CLASSES = {
    **{f"regularizers.{n}": c for n, c in REGULARIZER_CLASSES.items()},
    "regularizers.l1": REGULARIZER_CLASSES["L1"],
    "regularizers.l2": REGULARIZER_CLASSES["L2"],
    "regularizers.l1_l2": REGULARIZER_CLASSES["L1L2"],
}


def regularizer(it: Interpreter, value, node):
    """A kernel_regularizer=/bias_regularizer= argument: None, a string, a regularizer
    object or a def/lambda of the file."""
    if value is None:
        return None
    if isinstance(value, str):
        if value not in STRINGS:
            raise GradcliError(
                f"ValueError: Could not interpret regularizer identifier: {value}", it.pos(node)
            )
        name = STRINGS[value]
        obj = Instance(REGULARIZER_CLASSES[name])
        obj.data.update(zip(*FACTORS[name]))
        return obj
    if isinstance(value, Instance) and value.cls.family() == "regularizer":
        return value
    if isinstance(value, PyFunction):
        return value
    it.refuse(node, f"the regularizer {_describe(value)}")


def set_regularizer(var, reg) -> None:
    """Keep a variable's regularizer (read by layer.losses)."""
    var.regularizer = reg


def penalty(it: Interpreter, reg, x, node):
    """The penalty of regularizer reg on x (Keras's __call__ of L1, L2, L1L2, or the def)."""
    from gradcli.tfcode.keras.protocol import call_member

    if isinstance(reg, PyFunction):
        return it.call_function(reg, [x], {}, node)
    if reg.cls.name not in FACTORS:  # a subclass of the file
        fn, owner = reg.cls.lookup("__call__")
        return call_member(it, reg, fn, owner, [x], {}, node)
    terms = []
    for k, op in (("l1", "abs"), ("l2", "square")):
        factor = reg.data.get(k, 0.0)
        if k in FACTORS[reg.cls.name][0] and (factor != 0.0 or reg.cls.name != "L1L2"):
            total = it.op_call("sum", [it.op_call(op, [x], {}, node)], {}, node)
            terms.append(it.op_call("mul", [factor, total], {}, node))
    if reg.cls.name != "L1L2":
        return terms[0]
    dtype = it.g[it.tensor_id(x, read=False)].dtype
    out = it.leaf(np.zeros((), dtype=dtype), node)  # convert_to_tensor(0.0, dtype)
    for t in terms:
        out = it.op_call("add", [out, t], {}, node)
    return out


def layer_losses(it: Interpreter, obj: Instance, args, kwargs, node):
    """layer.losses: each layer's own losses (what add_loss added, then its
    activity_regularizer= penalties), the layer's first, then its sub-layers' in Keras's
    _flatten_layers order; then a penalty for each regularized variable of
    layer.trainable_weights."""
    from gradcli.tfcode.keras.layers import all_variables, sublayers

    def own(layer) -> list:
        return list(layer.layer.losses) + list(layer.data.get("activity_losses", []))

    out = own(obj)
    queue, seen = list(sublayers(obj)), set()
    while queue:  # Keras's deque: popleft, then extendleft(the layer's own sub-layers)
        layer = queue.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        out.extend(own(layer))
        queue[:0] = list(reversed(sublayers(layer)))
    if not obj.layer.trainable:
        return out
    for var in all_variables(obj, seeds=False):
        reg = getattr(var, "regularizer", None)
        if var.keras_trainable and reg is not None:
            out.append(penalty(it, reg, var, node))
    return out


def add_loss(it: Interpreter, obj: Instance, args, kwargs, node):
    """self.add_loss(loss): tensors kept on the layer until its next outermost call (Keras
    3's ValueError for anything but tensors)."""
    from gradcli.tfcode.keras.protocol import state
    from gradcli.tfcode.support import Raises, _flatten

    if obj.cls.name == "Functional":  # keras/src/models/functional.py: not implemented
        raise Raises(
            "NotImplementedError",
            "",
            it.pos(node),
            "a functional model has no add_loss in Keras 3: add the loss in a layer's call "
            "(self.add_loss) or to the loss you differentiate",
        )
    values = _flatten([args[0] if args else kwargs.get("loss")])
    for x in values:
        if not (isinstance(x, Variable) or (isinstance(x, Tensor) and x.kind == "tf")):
            text = (
                "`add_loss()` can only be called from inside `build()` or `call()`, on a tensor "
                f"input. Received invalid value: {_describe(x)}"
            )
            if state(it).training:  # inside a layer's call: Keras's message names the layer
                message = f"Exception encountered when calling {obj.cls.name}.call()."
                raise Raises("ValueError", message, it.pos(node), text)
            it.refuse(node, f"add_loss of {_describe(x)} outside a layer's call", UNRECORDED)
    if not (it.quiet or state(it).symbolic):  # not a stand-in call building a model
        obj.layer.losses.extend(values)
    return None


def add_metric(it, obj, args, kwargs, node):
    """Keras 3 has no add_metric: NotImplementedError (inside a call, Keras's message names
    the layer whose call raised)."""
    from gradcli.tfcode.keras.protocol import state
    from gradcli.tfcode.support import Raises

    text = (
        "Layer `add_metric()` method is deprecated. Add your metric in "
        "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() when "
        "subclassing the layer or model, then call `metric.update_state()` whenever necessary."
    )
    st = state(it)
    if st.training:  # raised inside a layer's call
        message = f"Exception encountered when calling {obj.cls.name}.call()."
        raise Raises("NotImplementedError", message, it.pos(node), text)
    raise Raises("NotImplementedError", text, it.pos(node), "Keras 3 removed add_metric")

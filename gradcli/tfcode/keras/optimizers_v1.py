"""TF1's optimizers (tf.compat.v1.train.*Optimizer): `minimize(loss, var_list=)` and
`compute_gradients(loss, var_list=)` are gradient calls (kinds "minimize" and
"compute_gradients"); `apply_gradients` is read and ignored. A loss tensor in graph mode is
tf1_graph.py's; a loss function (eager, or graph mode) is read here.

TensorFlow 2.21 (verified with tools/tf_code_reference.py): eager, the loss must be a
callable (else RuntimeError "`loss` passed to Optimizer.compute_gradients should be a
function when eager execution is enabled."); the optimizer calls it under a GradientTape that
watches var_list, and takes tape.gradient(loss, var_list); without var_list it takes the
tape's watched_variables(): the trainable variables the loss read, in creation order (not in
the order it read them); minimize raises ValueError "No gradients provided for any variable,
..." when every gradient is None, and returns None.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradcli.core.problem import NONE
from gradcli.tfcode.keras.objects import Builtin, Class, Instance
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.subnormals import evaluate_checked
from gradcli.tfcode.support import Raises, _describe
from gradcli.tfcode.values import GraphOp, PyFunction, Tape

if TYPE_CHECKING:  # annotations only
    from gradcli.tfcode.interpret import Interpreter

NAMES = ("GradientDescentOptimizer", "AdamOptimizer", "MomentumOptimizer",
         "RMSPropOptimizer", "AdagradOptimizer", "AdadeltaOptimizer", "FtrlOptimizer")  # fmt: skip
PARAMS = {
    "minimize": ("loss", "global_step", "var_list", "gate_gradients", "aggregation_method",
                 "colocate_gradients_with_ops", "name", "grad_loss"),
    "compute_gradients": ("loss", "var_list", "gate_gradients", "aggregation_method",
                          "colocate_gradients_with_ops", "grad_loss"),
}  # fmt: skip
WATCHED = "tape.watched_variables()"  # how a default var_list's variables are named
NO_GRADIENTS = (
    "No gradients provided for any variable, check your graph for ops that do not support gradients"
)
NO_VARIABLES_READ = (
    "var_list defaults to the trainable variables the loss function reads (TensorFlow's "
    "tape.watched_variables()), and it reads none"
)
NOT_CALLABLE = (
    "`loss` passed to Optimizer.compute_gradients should be a function when eager execution "
    "is enabled."
)


def _gradients(method: str):
    def run(it: Interpreter, obj: Instance, args, kwargs, node):
        """optimizer.minimize/compute_gradients(loss_fn, var_list=...): one gradient call."""
        from gradcli.tfcode.calls import CallKind, arg_asts, finish, lower

        params = PARAMS[method]
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params:
                it.refuse(node, f"{obj.cls.name}.{method}(..., {k}=...)")
            bound[k] = v
        loss, var_list = bound.get("loss"), bound.get("var_list")
        if it.graph_mode and not isinstance(loss, PyFunction):  # a loss tensor: tf1_graph.py
            from gradcli.tfcode.tf1_graph import graph_gradients

            return graph_gradients(it, method, bound, node)
        if not isinstance(loss, PyFunction):
            fix = "in eager mode pass the loss as a function: minimize(lambda: loss, ...)"
            raise Raises("RuntimeError", NOT_CALLABLE, it.pos(node), fix)
        if bound.get("grad_loss") is not None:
            it.refuse(node, f"{method}(..., grad_loss=...)")
        if var_list is not None and (not isinstance(var_list, (list, tuple)) or not var_list):
            it.refuse(node, f"{method}(..., var_list={_describe(var_list)})", "give a list")
        it.all_tapes += 1
        tape = Tape(it.all_tapes, False, True, it.pos(node), start=len(it.g))
        tape.label = method
        tape.active = True
        it.tapes.append(tape)
        read: list = []  # the trainable variables the loss reads (the tape watches them)
        it.watchers.append(read)
        try:
            if var_list is not None:
                it.tape_method(tape, "watch", [list(var_list)], {}, node)
            value = it.call_function(loss, [], {}, node)
        finally:
            it.watchers.remove(read)
            tape.end = len(it.g)
            tape.end_line = node.lineno
            tape.active = False
            it.tapes.remove(tape)
        asts = arg_asts(node, params)
        source_ast = asts[params.index("var_list")]
        if var_list is None:  # TensorFlow takes tape.watched_variables(): creation order
            var_list = sorted(read, key=lambda v: v.versions[0])
            names = [f"{WATCHED}[{k}]" for k in range(len(var_list))]
            source_ast = ast.List([ast.parse(n, mode="eval").body for n in names], ast.Load())
            if not var_list:
                it.refuse(node, f"{method} of a loss that reads no variable", UNRECORDED)
        target = ast.Name(id=f"{ast.unparse(asts[0]) if asts[0] is not None else 'loss'}()")
        kind = CallKind(method)
        call, lowered, raises = lower(
            it, tape, node, kind, value, list(var_list), None, NONE, [target, source_ast]
        )
        call.evaluation = evaluate_checked(call.problem.scratch(), it.pos(node))
        finish(it, call, lowered, raises)
        grads = lowered.copy_back(call.evaluation, node)
        if method == "compute_gradients":
            return list(zip(grads, var_list))
        if all(g is None for g in grads):
            it.refuse(node, f"{method} where every gradient is None", UNRECORDED)
        return GraphOp(method) if it.graph_mode else None

    return Builtin(run)


def _init(it, obj, args, kwargs, node):
    obj.data["options"] = (args, kwargs)
    return None


def _ignored(it, obj, args, kwargs, node):
    """apply_gradients: read and ignored (graph mode: the train op, None in Session.run);
    eager, the variables it updates are remembered for later calls' notes."""
    if it.graph_mode:
        return GraphOp("apply_gradients")
    from gradcli.tfcode.keras.train_steps import mark_updated

    mark_updated(it, list(args[0]) if args and isinstance(args[0], (list, tuple)) else [], node)
    return None


OPTIMIZER_V1 = Class(
    "Optimizer",
    kind="optimizer_v1",
    methods={
        "__init__": Builtin(_init),
        "minimize": _gradients("minimize"),
        "compute_gradients": _gradients("compute_gradients"),
        "apply_gradients": Builtin(_ignored),
        "GATE_NONE": 0,  # gate_gradients=: how TensorFlow orders the gradients' ops (no value
        "GATE_OP": 1,  # changes), read and ignored
        "GATE_GRAPH": 2,
    },
)
CLASSES = {f"tf.compat.v1.train.{n}": Class(n, (OPTIMIZER_V1,)) for n in NAMES}

"""The interpreter's expressions and operators (a mixin of Interpreter, see interpret.py)."""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING

from gradcli.core.graph import FLOAT_DTYPES, INT_DTYPES, is_float
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.api_keras_calls import missing_keras_name
from gradcli.tfcode.branches import marked, untaken_reads
from gradcli.tfcode.builtins import (
    BINOPS,
    BUILTINS,
    COMPARE,
    PYCOMPARE,
    PYOPS,
    TENSOR_METHODS,
    VARIABLE_METHODS,
)
from gradcli.tfcode.datasets import CONSTANTS as DATA_CONSTANTS
from gradcli.tfcode.drawn import drawn_of, note_draw
from gradcli.tfcode.keras import MISSING, VALUES, get_attribute
from gradcli.tfcode.numpy_values import ARRAY_METHODS
from gradcli.tfcode.refusals import EXPRESSIONS
from gradcli.tfcode.support import (
    Refused,
    _describe,
    _dtype_of_path,
    _is_python,
    _key,
    _kind,
)
from gradcli.tfcode.values import (
    TF,
    DType,
    Method,
    Module,
    Opaque,
    Session,
    Tape,
    Tensor,
    Unknown,
    Variable,
    first_opaque,
)

if TYPE_CHECKING:  # annotations only: interpret.py imports this module
    from gradcli.tfcode.interpret import Scope


_DONE = object()  # the end of a comprehension's iterator
OPAQUE_HINT = "gradcli does not read that code, so it cannot know the condition's value"


class ExpressionMixin:
    """Evaluate Python expressions: names, attributes, subscripts, operators, comparisons."""

    # --- expressions --------------------------------------------------------------------
    def expr(self, node, scope: Scope):
        """The value of an expression node (one dispatch over the AST node kinds the subset
        reads; each branch is short or a call, so the table reads best as one function)."""
        kind = type(node)
        if kind is ast.Constant:
            if isinstance(node.value, (bytes, complex)):
                self.refuse(node, f"the constant {ast.unparse(node)}")
            return node.value
        if kind is ast.Name:
            try:
                return scope.lookup(node.id)
            except KeyError:
                if node.id in BUILTINS:
                    return Module(f"builtins.{node.id}")
                self.refuse(node, f"the name '{node.id}' (not defined before this line)")
        if kind is ast.Attribute:
            return self.attribute(node, self.expr(node.value, scope))
        if kind is ast.Call:
            return self.call(node, scope)
        if kind is ast.BinOp:
            return self.binop(
                node.op, self.expr(node.left, scope), self.expr(node.right, scope), node
            )
        if kind is ast.UnaryOp:
            return self.unary(node, self.expr(node.operand, scope))
        if kind is ast.Compare:
            return self.compare(node, scope)
        if kind is ast.BoolOp:
            values = [self.expr(v, scope) for v in node.values]
            truths = [self.truth(v, n) for v, n in zip(values, node.values)]
            return all(truths) if isinstance(node.op, ast.And) else any(truths)
        if kind in (ast.List, ast.Tuple):
            items = [self.expr(e, scope) for e in node.elts]
            return items if kind is ast.List else tuple(items)
        if kind is ast.Dict:
            if any(k is None for k in node.keys):
                self.refuse(node, "**-unpacking in a dict")
            return {
                _key(self.expr(k, scope)): self.expr(v, scope)
                for k, v in zip(node.keys, node.values)
            }
        if kind is ast.Subscript:
            return self.subscript(node, self.expr(node.value, scope), self.expr(node.slice, scope))
        if kind is ast.Slice:
            parts = [
                None if p is None else self.expr(p, scope)
                for p in (node.lower, node.upper, node.step)
            ]
            if not all(p is None or isinstance(p, int) for p in parts):
                self.refuse(node, "a slice bound that is not a Python integer")
            return slice(*parts)
        if kind is ast.Lambda:
            body = [ast.Return(value=node.body, lineno=node.lineno, col_offset=node.col_offset)]
            body[0].lambda_body = True  # its nodes belong to the statement the lambda is in
            return self.make_function("<lambda>", node.args, body, scope, node)
        if kind is ast.IfExp:
            value = self.expr(node.test, scope)
            test = self.truth(value, node.test)
            other, taken = (node.orelse, node.body) if test else (node.body, node.orelse)
            reads = untaken_reads(self, [other], scope, [taken])
            chosen = self.expr(node.body if test else node.orelse, scope)
            marks = reads and isinstance(chosen, Tensor) and chosen.kind == TF
            if marks and is_float(self.g[chosen.id].dtype):
                return Tensor(marked(self, node, value, test, chosen.id, reads))
            return chosen
        if kind in (ast.ListComp, ast.GeneratorExp, ast.DictComp):
            return self.comprehension(node, scope)
        if kind is ast.JoinedStr:
            return ""  # f-strings only feed print, which is ignored
        if kind in EXPRESSIONS:
            self.refuse(node, EXPRESSIONS[kind])
        self.refuse(node, type(node).__name__)

    def comprehension(self, node, scope):
        """[e for ...], (e for ...) (read at once, as a list) and {k: v for ...}: unrolled as
        nested for loops, in a scope of their own, each element a step (bounded as loops)."""
        from gradcli.tfcode.interpret import Scope

        gens = node.generators
        if any(g.is_async for g in gens):
            self.refuse(node, "async comprehensions")
        frame = Scope(scope)
        out: list | dict = {} if isinstance(node, ast.DictComp) else []
        iters = [iter(self.iterate(self.expr(gens[0].iter, scope), gens[0].iter))]
        while iters:
            level = len(iters) - 1
            item = next(iters[-1], _DONE)
            if item is _DONE:
                iters.pop()
                continue
            self.count_step(node)
            gen = gens[level]
            self.assign(gen.target, item, frame)
            if not all(self.truth(self.expr(c, frame), c) for c in gen.ifs):
                continue
            if level + 1 < len(gens):
                inner = gens[level + 1]
                iters.append(iter(self.iterate(self.expr(inner.iter, frame), inner.iter)))
            elif isinstance(out, dict):
                out[_key(self.expr(node.key, frame))] = self.expr(node.value, frame)
            else:
                out.append(self.expr(node.elt, frame))
        return out

    def truth(self, value, node) -> bool:
        if isinstance(value, (bool, int, float, str, type(None), list, tuple, dict)):
            return bool(value)
        if isinstance(value, (Tensor, Variable)):
            if self.symbolic(value) and not (self.autograph and self.autograph[-1]):
                self.refuse(
                    node,
                    "a condition on a traced (symbolic) tensor in code AutoGraph does not "
                    "convert (autograph=False, a Keras layer's or model's method, a custom "
                    "gradient)",
                    "Python cannot take its truth value",
                )
            i = self.tensor_id(value)
            if drawn_of(self, [i]) is not None:  # drawn numbers decide: later values are not
                note_draw(self, node)  # TensorFlow's, nor is which branch runs
            v = self.value(i)
            if v.size != 1:
                self.refuse(node, "the truth value of a tensor with more than one element")
            return bool(v.reshape(()))
        if isinstance(value, Opaque):
            self.refuse(node, f"a condition on {value.what} (line {value.line})", OPAQUE_HINT)
        if isinstance(value, Unknown):
            raise Refused()
        return True

    def attribute(self, node: ast.Attribute, obj):
        name = node.attr
        if isinstance(obj, Opaque):
            return obj.attribute(name)
        if isinstance(obj, Unknown):
            raise Refused()
        if isinstance(obj, VALUES):  # instances, classes, Keras variables (tfcode/keras)
            value = get_attribute(self, node, obj, name)
            if value is not MISSING:
                return value
        if hasattr(obj, "tf_attribute"):  # the reader's own objects (tf.TensorArray)
            return obj.tf_attribute(self, node, name)
        if isinstance(obj, Module):
            path = f"{obj.path}.{name}"
            if path.startswith("!"):
                self.refuse(node, f"{path[1:]} (a module gradcli never imports: nothing is run)")
            if path.startswith("builtins."):
                self.refuse(node, path)
            if path.startswith("tf.compat.v1.layers."):  # TensorFlow's AttributeError
                from gradcli.tfcode.tf1_graph import layers_attribute

                layers_attribute(self, node, path)
            dtype = _dtype_of_path(path)
            if dtype is not None:
                return DType(dtype)
            if path in ("tf.UnconnectedGradients.ZERO", "tf.UnconnectedGradients.NONE"):
                return name.lower()
            if path == "tf.newaxis" or path == "np.newaxis":
                return None
            if path in DATA_CONSTANTS:  # tf.data.AUTOTUNE, tf.data.INFINITE_CARDINALITY, ...
                return DATA_CONSTANTS[path]
            if path in ("np.pi", "np.e", "np.inf", "np.nan"):
                return getattr(math, name)
            if path.startswith("keras."):  # names Keras 3 lacks: TensorFlow's AttributeError
                missing_keras_name(self, path, node)
            return Module(path)
        if isinstance(obj, tuple) and name in getattr(obj, "_fields", ()):
            return getattr(obj, name)  # TensorFlow's namedtuple results: top_k(x).values
        if isinstance(obj, (Tensor, Variable)):
            if name == "shape":
                return tuple(self.g[self.tensor_id(obj, read=False)].shape)
            if name == "dtype":
                return DType(self.g[self.tensor_id(obj, read=False)].dtype)
            if name == "ndim":
                return len(self.g[self.tensor_id(obj, read=False)].shape)
            if name == "T":
                return self.op_call("transpose", [obj], {}, node)
            if name == "_keras_mask":  # Keras's mask on a layer's output (keras/masking.py)
                from gradcli.tfcode.keras.masking import keras_mask

                return keras_mask(self, obj, node)
            if isinstance(obj, Variable) and name == "trainable":
                return obj.trainable
            if isinstance(obj, Variable) and name == "name":
                return f"{obj.tf_name or 'Variable'}:0"
            if name in TENSOR_METHODS or (isinstance(obj, Variable) and name in VARIABLE_METHODS):
                return Method(obj, name)
            if name in ARRAY_METHODS and isinstance(obj, Tensor) and obj.kind == "np":
                return Method(obj, name)  # a NumPy array's (numpy_values.py)
            self.refuse(node, f"the tensor attribute .{name}")
        if isinstance(obj, Tape):
            if name in ("gradient", "watch", "jacobian", "batch_jacobian", "reset",
                        "watched_variables"):  # fmt: skip
                return Method(obj, name)
            self.refuse(node, f"tape.{name}")
        if isinstance(obj, Session):
            if name in ("run", "close"):
                return Method(obj, name)
            self.refuse(node, f"Session.{name}")
        if isinstance(obj, dict) and name in ("items", "keys", "values", "get"):
            return Method(obj, name)
        if isinstance(obj, list) and name == "append":
            return Method(obj, name)
        if isinstance(obj, DType) and name in ("name", "is_floating"):
            return obj.name if name == "name" else obj.name in FLOAT_DTYPES
        self.refuse(node, f"the attribute .{name} of {_describe(obj)}")

    def subscript(self, node, value, key):
        # a container holding opaque values gives each item as it is (History's lists)
        opaque = value if isinstance(value, Opaque) else first_opaque([key])
        if opaque is not None:
            return opaque
        if isinstance(value, Unknown) or isinstance(key, Unknown):
            raise Refused()
        if isinstance(value, (list, tuple, dict, str)):
            try:
                return value[_key(key)] if isinstance(value, dict) else value[key]
            except (KeyError, IndexError, TypeError) as exc:
                raise GradcliError(f"{type(exc).__name__}: {exc}", self.pos(node)) from None
        if isinstance(value, Tensor) and value.kind == "np" and _is_index_array(self, key):
            from gradcli.tfcode.numpy_values import take_rows

            return take_rows(self, value, key, node)  # NumPy's x[idx]: the rows idx names
        if isinstance(value, (Tensor, Variable)):
            items = key if isinstance(key, tuple) else (key,)
            index = []
            for item in items:  # None (tf.newaxis) and ... index as NumPy's do
                if item is None or item is Ellipsis:
                    index.append(item)
                    continue
                if isinstance(item, bool) or not isinstance(item, (int, slice)):
                    self.refuse(node, f"indexing a tensor with {_describe(item)}")
                index.append(item)
            i = self.tensor_id(value)
            out = self.emit("getitem", [i], {"index": tuple(index)}, node)
            return Tensor(out, _kind(value))
        self.refuse(node, f"indexing {_describe(value)}")

    # --- operators ----------------------------------------------------------------------
    def binop(self, op, left, right, node):
        opaque = first_opaque([left, right])
        if opaque is not None:
            return opaque
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            raise Refused()
        name = BINOPS.get(type(op))
        if _is_python(left) and _is_python(right):
            return self.python_binop(op, left, right, node)
        if name is None:
            self.refuse(node, f"the operator {type(op).__name__} on tensors")
        if name == "div":
            dtypes = [self._dtype(v) for v in (left, right) if isinstance(v, (Tensor, Variable))]
            if dtypes and all(d in INT_DTYPES for d in dtypes):  # TF: int / int is float64
                left, right = (
                    self.op_call("cast", [v], {"dtype": "float64"}, node)
                    if isinstance(v, (Tensor, Variable))
                    else float(v)
                    for v in (left, right)
                )
        return self.op_call(name, [left, right], {}, node)

    def python_binop(self, op, a, b, node):
        if not all(isinstance(v, (int, float, bool, str, list, tuple)) for v in (a, b)):
            self.refuse(
                node, f"the operator {type(op).__name__} on {_describe(a)} and {_describe(b)}"
            )
        fn = PYOPS.get(type(op))
        if fn is None:
            self.refuse(node, f"the operator {type(op).__name__}")
        if isinstance(op, ast.Pow) and isinstance(b, (int, float)) and abs(b) > 4096:
            self.refuse(node, "a Python power with an exponent above 4096")
        if (isinstance(op, ast.Mult) and isinstance(a, (str, list, tuple))) or (
            isinstance(b, (str, list, tuple)) and isinstance(op, ast.Mult)
        ):
            self.refuse(node, "repeating a sequence with *")
        try:
            return fn(a, b)
        except (ZeroDivisionError, TypeError, OverflowError, ValueError) as exc:
            raise GradcliError(f"{type(exc).__name__}: {exc}", self.pos(node)) from None

    def unary(self, node: ast.UnaryOp, value):
        if isinstance(value, Opaque) and not isinstance(node.op, ast.Not):
            return value
        if isinstance(value, Unknown):
            raise Refused()
        if isinstance(node.op, ast.Not):
            return not self.truth(value, node)
        if _is_python(value):
            if not isinstance(value, (int, float)):
                self.refuse(node, f"a unary operator on {_describe(value)}")
            return -value if isinstance(node.op, ast.USub) else +value
        if isinstance(node.op, ast.USub):
            return self.op_call("neg", [value], {}, node)
        if isinstance(node.op, ast.UAdd):
            return value
        self.refuse(node, f"the operator {type(node.op).__name__} on tensors")

    def compare(self, node: ast.Compare, scope: Scope):
        if len(node.ops) != 1:
            self.refuse(node, "a chained comparison")
        op = node.ops[0]
        left, right = self.expr(node.left, scope), self.expr(node.comparators[0], scope)
        if isinstance(op, (ast.Is, ast.IsNot)):
            same = left is right or (left is None and right is None)
            return same if isinstance(op, ast.Is) else not same
        keys = (
            list(right)
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, dict)
            else right
        )
        opaque = first_opaque([left, keys])  # `in` a dict reads only its keys
        if opaque is not None:
            return opaque
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            raise Refused()
        if isinstance(op, (ast.In, ast.NotIn)):
            if not _is_python(right):
                self.refuse(node, "'in' on a tensor")
            inside = _key(left) in right if isinstance(right, dict) else left in right
            return inside if isinstance(op, ast.In) else not inside
        if _is_python(left) and _is_python(right):
            try:
                return PYCOMPARE[type(op)](left, right)
            except TypeError as exc:
                raise GradcliError(f"TypeError: {exc}", self.pos(node)) from None
        return self.op_call(COMPARE[type(op)], [left, right], {}, node)


def _is_index_array(it, key) -> bool:
    """An integer array or a list of integers (NumPy's integer array indexing)."""
    if isinstance(key, Tensor):
        return it.g[key.id].dtype in ("int32", "int64")
    return (
        isinstance(key, list)
        and bool(key)
        and all(isinstance(k, int) and not isinstance(k, bool) for k in key)
    )

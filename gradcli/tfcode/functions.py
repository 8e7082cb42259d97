"""Python functions in TensorFlow code: def, lambda, their decorators, and calls of them
(a mixin of Interpreter, see interpret.py).

A call inlines the function's body in a new frame. A decorator the reader reads is a
`Wrapper` kept on the function, outermost first; a call peels them one at a time:

- `@tf.function` (any options): the Python function itself, as TensorFlow traces it. Its
  nodes carry a note for the gradient calls that use them; `.numpy()` raises while tracing,
  as in TensorFlow; a gradient call made inside it is listed at its first trace only.
- `@tf.custom_gradient`: a custom node whose gradient is the grad function (custom.py).

Wrapping is data on the function, so methods (Keras layers' `call`) and other wrappers can
join later without touching how calls bind their arguments.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode.refusals import UNRECORDED
from gradcli.tfcode.signatures import check_signature
from gradcli.tfcode.support import MAX_CALL_DEPTH, _flatten, _Return
from gradcli.tfcode.tracing import check_call
from gradcli.tfcode.unused_sources import note_passed
from gradcli.tfcode.values import (
    PyFunction,
    Tensor,
    Variable,
    Wrapper,
)

# tf.function's keyword options: accepted; the function is read the same way with any of them
TF_FUNCTION_OPTIONS = {
    "func", "input_signature", "autograph", "jit_compile", "reduce_retracing",
    "experimental_implements", "experimental_autograph_options", "experimental_attributes",
    "experimental_relax_shapes", "experimental_compile", "experimental_follow_type_hints",
}  # fmt: skip
TRACED_NOTE = (
    "read as the Python function @tf.function wraps (line {line}): TensorFlow traces it into "
    "a graph that computes the same values and gradients"
)
WRAPPERS = {w.value: w for w in Wrapper}


@dataclass(frozen=True)
class Trace:
    """A @tf.function call being read: its tensors are symbolic (graph tensors) in TensorFlow."""

    fn: PyFunction
    start: int  # the graph's size when the call began: nodes from here on are the trace's
    params: frozenset | set  # the tensors passed in (placeholders of the traced graph)

    def symbolic(self, node: int) -> bool:
        """True for a node of this trace or a tensor passed to it."""
        return node >= self.start or node in self.params


class FunctionMixin:
    """Define and call Python functions (see the module docstring)."""

    # --- definitions ------------------------------------------------------------------------
    def define(self, stmt: ast.FunctionDef, scope) -> None:
        """def: a PyFunction bound to its name, its decorators read as Wrappers."""
        options: dict = {}
        wrappers = tuple(self.decorator(dec, scope, options) for dec in stmt.decorator_list)
        fn = self.make_function(stmt.name, stmt.args, stmt.body, scope, stmt)
        fn.wrappers = wrappers
        fn.signature = options.get("input_signature")
        fn.autograph = self.autograph_option(options.get("autograph", True), stmt)
        scope.vars[stmt.name] = fn

    def make_function(self, name: str, args: ast.arguments, body, scope, node) -> PyFunction:
        """A def or lambda: its parameters checked, its defaults evaluated where it is defined."""
        if args.posonlyargs:
            self.refuse(node, "positional-only parameters")
        fn = PyFunction(name, args, body, scope, self.pos(node))
        fn.defaults = [self.expr(d, scope) for d in args.defaults]
        fn.kw_defaults = [None if d is None else self.expr(d, scope) for d in args.kw_defaults]
        return fn

    def decorator(self, dec, scope, options: dict) -> Wrapper:
        """The Wrapper a decorator stands for (tf.function may be called with options: its
        input_signature is put in `options`)."""
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = self.dotted(target, scope)
        wrapper = WRAPPERS.get(name or "")
        if wrapper is None:
            self.refuse(dec, f"the decorator @{ast.unparse(dec)}")
        if isinstance(dec, ast.Call):
            if wrapper is not Wrapper.TF_FUNCTION or dec.args:
                self.refuse(dec, f"the decorator @{ast.unparse(dec)}")
            for k in dec.keywords:
                if k.arg not in TF_FUNCTION_OPTIONS:
                    self.refuse(dec, f"@tf.function({k.arg}=...)")
                if k.arg in ("input_signature", "autograph"):
                    options[k.arg] = self.expr(k.value, scope)
        return wrapper

    def wrap(self, wrapper: Wrapper, args, kwargs, node):
        """tf.function(f, ...) and tf.custom_gradient(f) called as functions: f, wrapped."""
        fn = args[0] if args else kwargs.get("func", kwargs.get("f"))
        if not isinstance(fn, PyFunction):
            if fn is None and wrapper is Wrapper.TF_FUNCTION and not args:
                self.refuse(node, "tf.function(...) used as a decorator factory")
            self.refuse(node, f"{wrapper.value} of {type(fn).__name__}", "give a def or lambda")
        for k in kwargs:
            if k not in TF_FUNCTION_OPTIONS or wrapper is not Wrapper.TF_FUNCTION:
                self.refuse(node, f"{wrapper.value}(..., {k}=...)")
        signature = kwargs.get("input_signature", fn.signature)
        autograph = self.autograph_option(kwargs.get("autograph", fn.autograph), node)
        return replace(
            fn, wrappers=(wrapper, *fn.wrappers), signature=signature, autograph=autograph
        )

    def autograph_option(self, value, node) -> bool:
        """tf.function's autograph=: a Python bool (anything else is refused)."""
        if not isinstance(value, bool):
            what = f"tf.function(autograph={type(value).__name__})"
            self.refuse(node, what, "give True or False")
        return value

    # --- calls ------------------------------------------------------------------------------
    def call_function(self, fn: PyFunction, args: list, kwargs: dict, node):
        """Call a def or lambda: through its outermost wrapper, else inline its body."""
        if not fn.wrappers:
            return self.inline(fn, args, kwargs, node)
        inner = replace(fn, wrappers=fn.wrappers[1:])
        if fn.wrappers[0] is Wrapper.CUSTOM_GRADIENT:
            from gradcli.tfcode.custom import custom_gradient_call

            return custom_gradient_call(self, inner, args, kwargs, node)
        return self.traced_call(fn, inner, args, kwargs, node)

    def traced_call(self, fn: PyFunction, inner: PyFunction, args, kwargs, node):
        """A @tf.function call: the Python function, its nodes noted, traced once per signature."""
        if fn.signature is not None:
            check_signature(self, fn, args, kwargs, node)
        key = (fn.pos.line, fn.pos.col, self.signature([*args, *sorted(kwargs.items())]))
        retrace = key in self.traces
        check_call(self, fn, key, retrace, node)  # what a later call of a trace does not repeat
        self.traces.add(key)
        start = len(self.g)
        params = {v.id for v in _flatten([*args, *kwargs.values()]) if isinstance(v, Tensor)}
        self.tracing.append(Trace(fn, start, params))
        self.silent += retrace  # later calls run the traced graph: no gradient call is listed
        self.autograph.append(fn.autograph)
        returned: set = set()
        try:
            result = self.call_function(inner, args, kwargs, node)
            returned = {v.id for v in _flatten([result]) if isinstance(v, Tensor)}
            return result
        finally:
            self.autograph.pop()
            self.tracing.pop()
            self.silent -= retrace
            self.finished.append((start, len(self.g), fn))
            for i in range(start, len(self.g)):  # the trace's graph tensors it does not return
                if i not in returned and self.g[i].kind == "forward":
                    self.leaked.setdefault(i, fn)
            note = TRACED_NOTE.format(line=fn.pos.line)
            for i in range(start, len(self.g)):
                self.notes.setdefault(i, (None, note))

    def signature(self, values) -> tuple:
        """What tf.function traces anew for: tensors' shapes and dtypes, Python values."""
        out = []
        for v in _flatten(list(values)):
            if isinstance(v, Variable):
                out.append(("variable", id(v)))
            elif isinstance(v, Tensor):
                n = self.g[v.id]
                out.append(("tensor", n.shape, n.dtype))
            else:
                try:
                    hash(v)
                    out.append(v)
                except TypeError:
                    out.append(("object", id(v)))
        return tuple(out)

    def bind(self, fn: PyFunction, args: list, kwargs: dict, node) -> dict:
        """The function's parameters bound to the call's arguments, as Python binds them."""
        params = [a.arg for a in fn.args.args]
        kwonly = [a.arg for a in fn.args.kwonlyargs]
        extra_args, extra_kwargs = args[len(params) :], {}
        if fn.args.vararg is not None:  # *args: the extra positional arguments, as a tuple
            args = args[: len(params)]
        if len(args) > len(params):  # Python's TypeError (its wording varies: not copied)
            self.refuse(node, f"a call of {fn.name}() with {len(args)} positional arguments",
                        f"it takes {len(params)}")  # fmt: skip
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params and k not in kwonly and fn.args.kwarg is not None:
                extra_kwargs[k] = v  # **kwargs: the extra keyword arguments, as a dict
                continue
            if k not in params and k not in kwonly and self._traced(fn):  # tf.function's text
                self.refuse(node, f"{fn.name}(..., {k}=...) of a wrapped function", UNRECORDED)
            if k not in params and k not in kwonly:
                raise GradcliError(
                    f"TypeError: {fn.name}() got an unexpected keyword argument '{k}'",
                    self.pos(node),
                )
            bound[k] = v
        first_default = len(params) - len(fn.defaults)
        for j, p in enumerate(params):
            if p not in bound:
                if j >= first_default:
                    bound[p] = fn.defaults[j - first_default]
                else:
                    self.refuse(node, f"a call of {fn.name}() without its argument '{p}'")
        for j, p in enumerate(kwonly):
            if p not in bound:
                if fn.kw_defaults[j] is None and fn.args.kw_defaults[j] is None:
                    self.refuse(node, f"a call of {fn.name}() without its argument '{p}'")
                bound[p] = fn.kw_defaults[j]
        if fn.args.vararg is not None:
            bound[fn.args.vararg.arg] = tuple(extra_args)
        if fn.args.kwarg is not None:
            bound[fn.args.kwarg.arg] = extra_kwargs
        return bound

    def _traced(self, fn: PyFunction) -> bool:
        """Whether this call is a @tf.function's (its binding errors have TensorFlow's text)."""
        return bool(self.tracing) and self.tracing[-1].fn.pos == fn.pos

    def inline(self, fn: PyFunction, args: list, kwargs: dict, node):
        """Run the function's body in a new frame; returns what it returns."""
        from gradcli.tfcode.interpret import Scope

        frame = Scope(fn.scope)
        frame.vars.update(self.bind(fn, args, kwargs, node))
        if self.depth >= MAX_CALL_DEPTH:
            self.refuse(node, f"helpers nested more than {MAX_CALL_DEPTH} calls deep (recursion?)")
        self.depth += 1
        saved = (self.label, self.target_name)
        note_passed(self, fn, [*args, *kwargs.values()], node)
        self.frames.enter(len(self.g), self.pos(node))
        try:
            self.block(fn.body, frame)
        except _Return as ret:
            return ret.value
        finally:
            self.frames.leave(len(self.g))
            self.depth -= 1
            self.label, self.target_name = saved
        return None

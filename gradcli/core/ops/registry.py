"""The op registry, node emission (shape and dtype inference), and broadcasting undone in one place.

Every op is one `Op` record: its numpy forward (and a Python-float fast path for 0-d
float64 values), its shape/dtype inference, one gradient rule per input written with
graph ops, its SymPy translation, and how it behaves for gradients.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial

import numpy as np

from gradcli.core import graph as kinds
from gradcli.core.graph import FLOAT_DTYPES, MAX_RANK, Graph, Node
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos


class Behavior(str, Enum):
    """How an op behaves for gradients: explain, graph and the references read it."""

    SMOOTH = "smooth"  # differentiable everywhere it is defined
    KINK = "kink"  # differentiable almost everywhere; whole regions can pass zero (relu, where)
    MASK = "mask"  # multiplies the gradient by operand values that may be zero (mul, prod)
    ZERO = "zero"  # connected, but the derivative is zero (sign)
    CUT = "cut"  # not differentiable: no gradient flows (round, comparisons, argmax)
    STOP = "stop"  # stop_gradient
    BRANCH = "branch"  # cond: only the taken branch is connected
    CUSTOM = "custom"  # a spec function with a custom gradient


SMOOTH, KINK, MASK, ZERO, CUT, STOP, BRANCH, CUSTOM = Behavior


class Transport(Enum):
    """How the zero elements of an op's gradient map back onto an input's elements (explain)."""

    ELEMENTWISE = "elementwise"  # one to one, through broadcasting
    CONTRACTION = "contraction"  # matmul: zero where every product behind an element is zero
    RESHAPE = "reshape"  # the same elements in another shape
    TRANSPOSE = "transpose"  # axes permuted by the `axes` attribute
    GATHER = "gather"  # the output picks input elements (`index`); the others get nothing
    SCATTER = "scatter"  # the inverse: the input is the picked part of the output
    PARTS = "parts"  # concat/stack: each input owns one slice along `axis`
    REDUCE = "reduce"  # each output element reduces the input over `axis` (all when None)
    SCAN = "scan"  # each output element mixes the whole row along one `axis`
    ROUTE = "route"  # index ops: the op's `route` hook says which gradient element feeds which
    OPAQUE = "opaque"  # all or nothing


class AttrKind(Enum):
    """What a call's keyword attribute accepts (the lowerer checks and converts it)."""

    AXES = "an integer or a list of integers"  # axis of a reduction
    AXIS = "one integer"  # one axis
    INTS = "a list of integers"  # shape, axes (a permutation)
    BOOL = "true or false"  # keepdims, exclusive, reverse
    FLOAT = "a finite number"  # alpha of leaky_relu
    NUMBER = "a number (inf and nan included)"  # pad's constant_values, diag's padding_value
    STR = "a string"  # einsum's subscripts, pad's mode
    DTYPE = "a string such as 'float32'"
    NUMBER_OR_STR = "a number (inf included) or a string"  # norm's ord: 1, inf or 'fro'
    NESTED = "an integer or a list of integer lists"  # tensordot's axes, pad's paddings
    # a tensor input passed like an attribute, by keyword or after the others, with a number
    # as its default (random_normal's mean): the lowerer appends these to the op's inputs in
    # schema order, literals in the dtype of the op's `dtype` attribute when it has one
    TENSOR = "a tensor or a number"


@dataclass(frozen=True, slots=True)
class Attr:
    """One keyword attribute of an op: its name, kind and default (None: absent).

    A leading attribute is written before the tensors (einsum('ij,jk->ik', a, b)); an op
    with one and no fixed arity takes its tensors as the remaining positional arguments.
    """

    name: str
    kind: AttrKind
    default: object = None
    required: bool = False
    leading: bool = False
    example: str = ""  # a required attribute's example when its kind's is wrong here


@dataclass(frozen=True, slots=True)
class Operator:
    """An op's operator symbol: the parser, the printers and the wording share it."""

    symbol: str
    precedence: int  # binding strength, higher binds tighter (as in the expression grammar)
    right: bool = False  # right-associative (**)
    prefix: bool = False  # a prefix operator (-x)
    comparison: bool = False  # x < y and friends: chain-free, bool-valued


UNARY = 25  # the precedence of prefix minus: above * and /, below **
COMPARISON = 5  # the precedence of < <= > >= == !=: below every arithmetic operator
ATOM = 100  # names, numbers and calls never need parentheses


class ShapeError(GradcliError):
    """Raised by inference functions; emit adds the node's name and position."""


class _Zero:
    """A connected gradient that is known to be zero everywhere (no node is built)."""

    def __repr__(self) -> str:
        return "ZERO"


ZERO_GRAD = _Zero()
BROADCAST = "broadcast"  # Op.batched: a leading seed axis broadcasts through the forward


def lead_aligned(value, rank: int):
    """A value with a leading seed axis, (B,) + shape, as (B,) + ones + shape of rank + 1:
    numpy then broadcasts it against operands without the axis as its shape alone."""
    extra = rank + 1 - value.ndim
    return value if extra <= 0 else value.reshape(value.shape[:1] + (1,) * extra + value.shape[1:])


FORWARD = "forward"  # at_point: the forward itself follows the core's side of a kink


@dataclass(frozen=True, slots=True)
class Op:
    """Everything gradcli knows about one op; each pass asks the op, never its name."""

    name: str
    infer: Callable  # infer(attrs, *input_nodes) -> (shape, dtype); raises ShapeError
    forward: Callable | None = None  # numpy forward(*values), or None when bind is given
    bind: Callable | None = None  # bind(attrs) -> forward(*values) for ops with attributes
    scalar: Callable | None = None  # fast path on Python floats for 0-d float64 nodes
    grads: tuple = ()  # one rule(b, node, g) per input; None = no gradient to that input
    grad_each: Callable | None = None  # rule(b, node, g, i) for ops with any number of inputs
    behavior: Behavior = Behavior.SMOOTH
    elementwise: bool = False  # broadcasts its inputs: its rules accept an unbroadcast g
    # sympy(sp, attrs, args, values) -> object array of SymPy expressions (see ops/sym.py);
    # None for ops the translator takes as constants (cut, stop, zero) or handles itself
    sympy: Callable | None = None
    no_sympy: str = ""  # why an op with gradients has no SymPy form (check falls back to FD)
    # the references' convention at a kink or tie (finite differences): at_point(node, args,
    # raw) -> the value with the kink frozen on the core's (TensorFlow's) side, where args are
    # the perturbed inputs in float64 and raw the inputs' values at the point; FORWARD when the
    # forward already does that (where: its condition is a constant at the point)
    at_point: Callable | str | None = None
    # where its gradient is a convention, not a derivative (a kink, a tie, a jump):
    # convention(node, input_values) -> list of ops.convention.Hit (core/convention_sites.py
    # maps them onto the gradients); no_convention says why an op with a kink has none
    convention: Callable | None = None
    no_convention: str = ""
    # a non-finite result from finite operands is an overflow (exp, mul), not a pole (log, div)
    overflows: bool = False
    # pole(*input_values) -> mask of the elements where a non-finite result is a pole, for an
    # op that otherwise overflows (pow: a zero base); pole_input is the input whose value
    # makes it singular, when it is not the only input (div: the divisor, pow: the base)
    pole: Callable | None = None
    pole_input: int | None = None
    # its gradient picks one side (where, relu): a NaN/Inf on the side not taken is a trap
    selects: bool = False
    # for the kernel that does the picking in gradient graphs (where, relu_grad):
    # selection(graph, node, value_of) -> (mask of the elements given 0, the input passed
    # elsewhere), or None when the node is not such a pick
    selection: Callable | None = None
    # explain: how gradient zeros travel back through it (None: ELEMENTWISE or OPAQUE)
    transport: Transport | None = None
    # explain's words for the elements where a kink op passes no gradient: (detail, summary)
    # templates over {op} {arg} {text} {count} {entry} {line} {cond} {side} (None: generic),
    # or inactive(node) -> those templates, for an op whose words depend on its attributes
    inactive: tuple[str, str] | Callable | None = None
    # explain's words for an edge it cuts (a STOP op): (kind, detail, summary) templates over
    # {arg} (the operand), {where} (the entry and line) and the node's own attributes
    cut_words: tuple[str, str, str] | None = None
    cancels: bool = False  # its gradient mixes a row, so nonzero terms can cancel (softmax)
    moves: bool = False  # only moves, copies or relabels elements (no arithmetic for SymPy)
    public: bool = False  # callable by name from expressions
    arity: int | None = None  # number of inputs, None for variadic
    cuts: Callable | None = None  # cuts(node, input_nodes) -> input positions with no gradient
    doc: str = ""
    attrs: tuple[Attr, ...] = ()  # keyword attributes accepted in expressions, in order
    accepts: str = "number"  # input dtypes: float, number (bools become float64), bool, any
    # input positions holding integer index tensors (gather's indices): the lowerer makes
    # them int32 (literals) or keeps int32/int64 tensors and refuses others; `accepts` then
    # applies to the remaining inputs only. No gradient flows to them (they are not floats).
    index_inputs: tuple[int, ...] = ()
    # explain's map for Transport.ROUTE (index ops, whose map depends on values at the point):
    # route(node, j, value_of) -> (into, src), two int arrays of equal length: the gradient
    # element with flat index src[t] of the node's output feeds the element into[t] of input
    # j (flat). Elements of input j that no pair reaches get no gradient (`unselected`);
    # value_of(i) is node i's value at the point (indices, or x for sort and top_k). It may
    # return None (too many pairs to list: a large conv), and the op is mapped all-or-nothing.
    # A product (a convolution) may add a third array, other[t]: the flat index of the other
    # input's element the pair multiplies by, so a zero is told `mask` (every flowing product
    # meets a zero factor) from `cancellation` (nonzero products summing to zero).
    route: Callable | None = None
    # explain's words for the elements of an input its route never feeds (`unselected`), when
    # "uses N of M elements" does not fit (tensor_scatter_update overwrites them): (detail,
    # summary) templates over {text} {arg} {count} {size} {used} {entry} {line}
    unselected: tuple[str, str] | None = None
    # an op that zeroes chosen elements of the gradient whatever flows in (dropout's dropped
    # elements): masks(node, value_of) -> bool array, broadcastable to the node's shape, of
    # the elements it zeroes; explain calls those zeros `mask`, in mask_words: (detail,
    # summary) templates over {op} {arg} {text} {count} {entry} {line} and the node's attrs
    masks: Callable | None = None
    mask_words: tuple[str, str] | None = None
    operator: Operator | None = None  # its operator symbol, when it has one
    # printer(node, (first input's text, its precedence), index_text) -> (text, precedence),
    # for an op that node text shows in a form of its own (x[1:], an identity as its input)
    printer: Callable | None = None
    # a multi-output op (split, unstack, moments): unpack(out, attrs, *inputs) -> the ids of
    # its outputs, each an ordinary node of other ops emitted with out.emit(opname, inputs,
    # attrs) (out.shape(i) reads a shape), or one id when its attributes ask for a single
    # tensor (svd without compute_uv); the op is never a node itself, so it has no
    # forward, gradient or transport of its own, and a ShapeError it raises is positioned
    unpack: Callable | None = None
    # how a jacobian/hessian pass evaluates it for many one-hot seeds at once, over a leading
    # seed axis (core/batch.py run_seeds): BROADCAST when its numpy forward broadcasts that
    # axis through and computes every element as the per-seed pass does (correctly rounded
    # arithmetic, selections: the same bits as the scalar path); batched(node, probed) ->
    # forward(*values), for an op whose attributes must shift past the axis (probed[i]: input
    # i carries it), or None where it cannot; None: the pass runs it once per seed
    batched: Callable | str | None = None

    def fn(self, attrs: dict) -> Callable:
        """The numpy forward with attributes bound."""
        return self.bind(attrs) if self.bind is not None else self.forward

    @property
    def zeros(self) -> Transport:
        """How gradient zeros travel back through it (see Transport)."""
        if self.transport is not None:
            return self.transport
        return Transport.ELEMENTWISE if self.elementwise else Transport.OPAQUE

    @property
    def kwargs(self) -> tuple[str, ...]:
        """The names of its keyword attributes, in positional order."""
        return tuple(a.name for a in self.attrs)

    def default(self, name: str):
        """The default of attribute `name` (None when it has none)."""
        for a in self.attrs:
            if a.name == name:
                return a.default
        return None


REGISTRY: dict[str, Op] = {}
_PUBLIC: dict[str, Op] = {}  # the public subset, kept in step by register()
# op name -> what its infer answers for inputs of one shape and one float dtype: that
# shape, and this dtype ("" for the inputs' own): the ops whose infer says so (its `same`
# attribute, set by ops/infer.py's elementwise(); `same_unary` by float_unary(), for one
# input only); emit skips the call for them
SAME_INFER: dict[str, str] = {}
SAME_UNARY: dict[str, str] = {}


def register(op: Op) -> Op:
    """Add an op to the registry (each name once)."""
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name} registered twice")
    REGISTRY[op.name] = op
    same = getattr(op.infer, "same", None)
    if same is not None:
        SAME_INFER[op.name] = SAME_UNARY[op.name] = same
    same = getattr(op.infer, "same_unary", None)
    if same is not None:
        SAME_UNARY[op.name] = same
    if op.public:
        _PUBLIC[op.name] = op
    return op


def public_ops() -> dict[str, Op]:
    """The ops an expression may call by name (read-only: shared, not copied)."""
    return _PUBLIC


def binary_operators() -> dict[str, Op]:
    """Infix operator symbols and their ops (+ -> add, < -> less), from the registry."""
    return {
        op.operator.symbol: op
        for op in REGISTRY.values()
        if op.operator is not None and not op.operator.prefix
    }


# ---------------------------------------------------------------------------------------
# Emitting nodes


_NO_FLOW = (CUT, STOP)


def _differentiable_inputs(op: Op, node: Node, ins: list[Node]) -> tuple[int, ...]:
    """Input positions a gradient can flow through, decided once when the node is built."""
    if node.dtype not in FLOAT_DTYPES or op.behavior in _NO_FLOW:
        return ()
    if op.cuts is None:  # the common case, without a generator (a hot path in long chains)
        if len(ins) == 1:
            return (0,) if ins[0].dtype in FLOAT_DTYPES else ()
        if len(ins) == 2:
            a, b = ins[0].dtype in FLOAT_DTYPES, ins[1].dtype in FLOAT_DTYPES
            return (0, 1) if a and b else (0,) if a else (1,) if b else ()
        if len(ins) == 3:  # where(condition, x, y): the condition is boolean
            c, a, b = (n.dtype in FLOAT_DTYPES for n in ins)
            if not c:
                return (1, 2) if a and b else (1,) if a else (2,) if b else ()
        cut = ()
    else:
        cut = op.cuts(node, ins)
    return tuple(i for i, n in enumerate(ins) if n.dtype in FLOAT_DTYPES and i not in cut)


def emit(
    graph: Graph,
    opname: str,
    inputs,
    attrs: dict | None = None,
    *,
    kind: str = "forward",
    name: str | None = None,
    entry: str | None = None,
    pos: Pos | None = None,
    origin: int | None = None,
) -> int:
    """Append a node for op(inputs, attrs) after inferring its shape and dtype; returns its id."""
    op = REGISTRY[opname]
    if attrs is None:
        attrs = {}
    nodes = graph.nodes
    # one or two inputs passed as they are, without a list (a per-node hot path)
    arity = len(inputs)
    try:
        if arity == 2:
            x, y = nodes[inputs[0]], nodes[inputs[1]]
            same = SAME_INFER.get(opname)
            # an elementwise op on two tensors of one shape and float dtype: its infer's
            # answer without the call (a per-node hot path)
            if same is not None and x.shape == y.shape and x.dtype == y.dtype:
                dtype = x.dtype
                if dtype in FLOAT_DTYPES:
                    shape = x.shape
                    dtype = same or dtype
                else:
                    shape, dtype = op.infer(attrs, x, y)
            else:
                shape, dtype = op.infer(attrs, x, y)
        elif arity == 1:
            x = nodes[inputs[0]]
            same = SAME_UNARY.get(opname)
            if same is not None and x.dtype in FLOAT_DTYPES:
                shape, dtype = x.shape, same or x.dtype
            else:
                shape, dtype = op.infer(attrs, x)
        elif arity == 3:  # where(condition, x, y)
            c, x, y = nodes[inputs[0]], nodes[inputs[1]], nodes[inputs[2]]
            shape, dtype = op.infer(attrs, c, x, y)
        else:
            ins = [nodes[i] for i in inputs]
            shape, dtype = op.infer(attrs, *ins)
    except ShapeError as exc:
        where = f" in '{entry}'" if entry else ""
        raise GradcliError(f"{exc.message}{where}", pos) from None
    lim = limits.current
    if shape:  # a scalar (one element) is within every limit: skip the checks (a hot path)
        if len(shape) > MAX_RANK:
            raise GradcliError(
                f"{opname} would make a tensor of rank {len(shape)}; at most {MAX_RANK} "
                "dimensions are supported",
                pos,
            )
        size = 1
        for d in shape:
            size *= d
        if size > lim.max_elements:
            raise LimitError(
                f"{opname} would make a tensor of shape {shape} ({limits.count(size)} elements), "
                f"over the limit of {lim.max_elements:,} elements {limits.advice('max_elements')}",
                pos,
            )
    i = len(nodes)
    if i >= lim.max_nodes:
        raise LimitError(
            f"the graph would grow past {lim.max_nodes:,} nodes {limits.advice('max_nodes')}", pos
        )
    if dtype not in FLOAT_DTYPES or op.behavior in _NO_FLOW:
        diff = ()
    elif op.cuts is None and arity == 1:  # _differentiable_inputs inlined (a hot path)
        diff = (0,) if x.dtype in FLOAT_DTYPES else ()
    elif op.cuts is None and arity == 2:
        a, b = x.dtype in FLOAT_DTYPES, y.dtype in FLOAT_DTYPES
        diff = (0, 1) if a and b else (0,) if a else (1,) if b else ()
    elif op.cuts is None and arity == 3 and c.dtype not in FLOAT_DTYPES:
        a, b = x.dtype in FLOAT_DTYPES, y.dtype in FLOAT_DTYPES
        diff = (1, 2) if a and b else (1,) if a else (2,) if b else ()
    else:
        diff = None
        if arity == 2:
            ins = [x, y]
        elif arity == 1:
            ins = [x]
        elif arity == 3:
            ins = [c, x, y]
    node = Node(i, opname, tuple(inputs), attrs, shape, dtype, kind, name, entry, pos, origin)
    node.diff = _differentiable_inputs(op, node, ins) if diff is None else diff
    nodes.append(node)
    return i


_pack_float = struct.Struct("=d").pack  # a 0-d float64 array's bytes (ndarray.tobytes)


def const(
    graph: Graph, value, dtype: str, *, entry: str | None = None, pos: Pos | None = None
) -> int:
    """A constant node; small constants are shared so rules can emit them freely."""
    if type(value) is float and dtype == "float64":  # a rule's 0.0 or 1.0, seen before
        i = graph.const_cache.get(("float64", (), _pack_float(value)))
        if i is not None:
            return i
    if dtype == "float64":  # nothing overflows on the way to float64 (a hot path)
        arr = np.asarray(value, dtype=dtype)
    else:
        with np.errstate(over="ignore"):  # a float64 literal past float32's range is inf
            arr = np.asarray(value, dtype=dtype)
    small = arr.size <= 64
    key = (dtype, arr.shape, arr.tobytes()) if small else None
    if key is not None and key in graph.const_cache:
        return graph.const_cache[key]
    stored = float(arr) if arr.shape == () and dtype == "float64" else arr
    i = emit(graph, "const", (), {"value": stored}, kind="const", entry=entry, pos=pos)
    if key is not None:
        graph.const_cache[key] = i
    return i


def is_const_equal(graph: Graph, i: int, number: float) -> bool:
    """True when node i is a constant whose every element equals number."""
    node = graph.nodes[i]
    if node.op != "const":
        return False
    v = node.attrs["value"]
    if type(v) is float:  # 0-d float64 constants are stored as Python floats
        return v == number
    arr = np.asarray(v)
    return arr.size > 0 and bool(np.all(arr == number))


# ---------------------------------------------------------------------------------------
# Building gradient nodes


class GradBuilder:
    """Emits gradient nodes: b.mul(g, b.cos(x)) appends mul(g, cos(x)) to the graph.

    Small algebraic simplifications (multiplying by one, negating twice) keep gradient
    graphs as lean as hand-written backprop.
    """

    kind = kinds.GRADIENT  # the kind of the nodes this builder emits

    def __init__(self, graph: Graph):
        self.graph = graph
        self.origin: int | None = None
        self.shared: dict = {}  # nodes one forward node's rules share (maximum's one mask)

    def emit(self, opname: str, *inputs: int, **attrs) -> int:
        return emit(self.graph, opname, inputs, attrs, kind="gradient", origin=self.origin)

    def __getattr__(self, opname: str):
        if opname not in REGISTRY:
            raise AttributeError(opname)
        if type(self).emit is GradBuilder.emit:  # without the extra call of self.emit

            def method(*inputs, **attrs):
                return emit(self.graph, opname, inputs, attrs, kind="gradient", origin=self.origin)
        else:
            method = partial(self.emit, opname)
        self.__dict__[opname] = method  # later lookups skip __getattr__
        return method

    def node(self, i: int) -> Node:
        return self.graph.nodes[i]

    def shape(self, i: int) -> tuple[int, ...]:
        return self.graph.nodes[i].shape

    def dtype(self, i: int) -> str:
        return self.graph.nodes[i].dtype

    def const(self, value, like: int) -> int:
        """A constant with the dtype of node `like`."""
        return const(self.graph, value, self.graph.nodes[like].dtype)

    def mul(self, a: int, b: int) -> int:
        nodes = self.graph.nodes
        na, nb = nodes[a], nodes[b]
        ops = (na.op, nb.op)
        if "const" not in ops and "neg" not in ops:  # nothing to simplify (a hot path)
            if type(self).emit is GRAD_EMIT:  # self.emit's node, without its call
                return emit(self.graph, "mul", (a, b), {}, kind="gradient", origin=self.origin)
            return self.emit("mul", a, b)
        if "neg" not in ops and ops[0] != ops[1]:
            # g * c, c a 0-d float64 constant other than one (a chain's literal): the loop
            # below finds nothing to simplify either (a hot path)
            c = (na if ops[0] == "const" else nb).attrs["value"]
            if type(c) is float and c != 1.0:
                if type(self).emit is GRAD_EMIT:
                    return emit(self.graph, "mul", (a, b), {}, kind="gradient", origin=self.origin)
                return self.emit("mul", a, b)
        for one, other in ((a, b), (b, a)):
            if is_const_equal(self.graph, one, 1.0) and self._result_shape(a, b) == self.shape(
                other
            ):
                return other
        if "neg" not in ops:  # g * c: nothing more to simplify (a hot path)
            return self.emit("mul", a, b)
        for neg, other in ((a, b), (b, a)):
            src = self._negated_source(neg)
            if src is not None:
                # (-s) * o == -(s * o) bit for bit (negation is exact): a forward -s that
                # only this product reads then dies with the forward pass instead of
                # staying alive until the backward one
                return self.neg(self.mul(src, other) if neg == a else self.mul(other, src))
        return self.emit("mul", a, b)

    def _negated_source(self, i: int) -> int | None:
        """s when node i is a forward -s of an input or constant (alive for the whole run)."""
        node = self.graph.nodes[i]
        if node.op != "neg" or node.kind != kinds.FORWARD or self.kind != kinds.GRADIENT:
            return None
        src = node.inputs[0]
        return src if self.graph.nodes[src].kind in (kinds.INPUT, kinds.CONST) else None

    def _result_shape(self, a: int, b: int) -> tuple[int, ...]:
        sa, sb = self.shape(a), self.shape(b)
        return sa if sa == sb else tuple(np.broadcast_shapes(sa, sb))

    def neg(self, a: int) -> int:
        node = self.graph.nodes[a]
        if node.op == "neg" and node.kind == "gradient":
            return node.inputs[0]
        return self.emit("neg", a)

    def add(self, a: int, b: int) -> int:
        nb = self.graph.nodes[b]
        if nb.op == "neg" and nb.kind == "gradient":
            return self.emit("sub", a, nb.inputs[0])
        if type(self).emit is GRAD_EMIT:  # self.emit's node, without its call (a hot path)
            return emit(self.graph, "add", (a, b), {}, kind="gradient", origin=self.origin)
        return self.emit("add", a, b)


GRAD_EMIT = GradBuilder.emit  # a builder whose emit is this one emits gradient nodes as is


class ForwardBuilder(GradBuilder):
    """Emits forward nodes at one position: the outputs of a multi-output op (Op.unpack)."""

    def __init__(self, graph: Graph, pos: Pos | None, entry: str | None = None, kind="forward"):
        super().__init__(graph)
        self.pos, self.entry, self.kind = pos, entry, kind

    def emit(self, opname: str, *inputs: int, **attrs) -> int:
        return emit(
            self.graph,
            opname,
            inputs,
            attrs,
            kind=self.kind,
            entry=self.entry,
            pos=self.pos,
            origin=self.origin,
        )

    def unpack(self, opname: str, inputs, attrs: dict) -> list[int]:
        """The output ids of multi-output op `opname`; its ShapeError is positioned."""
        try:
            return REGISTRY[opname].unpack(self, attrs, *inputs)
        except ShapeError as exc:
            where = f" in '{self.entry}'" if self.entry else ""
            raise GradcliError(f"{exc.message}{where}", self.pos) from None


def fit(b: GradBuilder, g: int, shape: tuple[int, ...]) -> int:
    """Undo broadcasting: sum g over the axes it was broadcast along to reach `shape`.

    The result may still be smaller than `shape` (a lazily broadcast gradient, such as
    the scalar seed of a sum); it is always broadcastable to `shape`.
    """
    gshape = b.shape(g)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = list(range(max(lead, 0)))
    for j, d in enumerate(gshape[max(lead, 0) :], start=max(lead, 0)):
        t = j - lead
        if t >= 0 and shape[t] == 1 and d != 1:
            axes.append(j)
    if axes:
        g = b.sum(g, axis=tuple(axes), keepdims=True)
    if lead > 0:
        g = b.reshape(g, shape=b.shape(g)[lead:])
    return g


def materialize(b: GradBuilder, g: int, shape: tuple[int, ...]) -> int:
    """g fitted to shape and broadcast up to it when it is still smaller."""
    g = fit(b, g, shape)
    return g if b.shape(g) == shape else b.broadcast_to(g, shape=shape)


def run_rule(b: GradBuilder, node: Node, g: int, i: int, op: Op | None = None):
    """The gradient flowing to input i of node: a node id, ZERO_GRAD or None."""
    op = op or REGISTRY[node.op]
    if op.grad_each is not None:
        return op.grad_each(b, node, g, i)
    rule = op.grads[i] if i < len(op.grads) else None
    return None if rule is None else rule(b, node, g)

"""The computation graph: nodes in topological order, and iterative traversals over them."""

from __future__ import annotations

from gradcli.runtime.errors import Pos

FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = ("int32", "int64")
DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, "bool")
MAX_RANK = 32  # dimensions of a tensor (numpy 1.x's limit; numpy 2 allows 64)

# Node kinds (Node.kind)
INPUT, CONST, FORWARD, GRADIENT = "input", "const", "forward", "gradient"
# Ops that passes recognise by their role in the graph, not by what they compute: the
# sources (whose values live in attrs["value"]), cond (one branch taken) and custom (a
# spec function whose gradient replaces its body's).
INPUT_OP, CONST_OP, COND_OP, CUSTOM_OP = "input", "const", "cond", "custom"


def is_float(dtype: str) -> bool:
    """True for the dtypes gradients can flow through."""
    return dtype in FLOAT_DTYPES


# a cond that stands for a Python `if` of TensorFlow code (not a tf.cond) carries its source
# text here (the TensorFlow reader sets it; explain words its untaken side as that if's)
COND_SOURCE = "source"
# attributes of a custom node besides "function" and "grad" (set by the TensorFlow reader)
CUSTOM_PARAMS = "params"  # how many leading inputs are parameters (see custom_arity)
BODY_GRADIENT = "body_gradient"  # its gradient is its body's own (tf.py_function): explain
# looks inside the body for what cut it


def custom_arity(node) -> int:
    """How many leading inputs of a custom call are its parameters (what its gradient is for).

    The inputs after them are the body's value (last) and, from TensorFlow code, the tensors
    its gradient function reads (attrs["params"] says where they start); neither is a
    parameter: gradients do not flow into them through the call.
    """
    return node.attrs.get(CUSTOM_PARAMS, len(node.inputs) - 1)


class Node:
    """One operation: an op name, input node ids, attributes, and what the spec says of it.

    kind is "input" (a spec input), "const" (a literal), "forward" (part of a graph
    entry) or "gradient" (built by autodiff; origin is then the forward node whose
    gradient rule made it). entry names the spec entry the node belongs to.
    """

    __slots__ = (
        "attrs",
        "diff",
        "dtype",
        "entry",
        "id",
        "inputs",
        "kind",
        "name",
        "op",
        "origin",
        "pos",
        "shape",
    )

    def __init__(
        self, id, op, inputs, attrs, shape, dtype, kind, name=None, entry=None, pos=None,
        origin=None,
    ):  # fmt: skip
        self.id: int = id
        self.op: str = op
        self.inputs: tuple[int, ...] = inputs
        self.attrs: dict = attrs
        self.shape: tuple[int, ...] = shape
        self.dtype: str = dtype
        self.kind: str = kind
        self.name: str | None = name
        self.entry: str | None = entry
        self.pos: Pos | None = pos
        self.origin: int | None = origin
        # input positions a gradient can flow back through (set by the op registry)
        self.diff: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def label(self) -> str:
        """The spec name if the node has one, else op#id."""
        return self.name if self.name is not None else f"{self.op}#{self.id}"

    def __repr__(self) -> str:
        return (
            f"Node({self.id}, {self.op!r}, inputs={self.inputs}, shape={self.shape}, "
            f"dtype={self.dtype}, kind={self.kind}, name={self.name!r})"
        )


class Graph:
    """Nodes kept in topological order: every node's inputs have smaller ids."""

    def __init__(self, file: str = "<spec>"):
        self.file = file
        self.nodes: list[Node] = []
        self.names: dict[str, int] = {}  # spec input and graph-entry names -> node id
        self.inputs: list[int] = []  # spec inputs, in spec order
        self.entries: list[int] = []  # graph entries, in spec order
        self.trainable: set[int] = set()
        self.const_cache: dict = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def copy(self) -> Graph:
        """The same nodes in a new graph: what an analysis appends there stays there."""
        other = Graph(self.file)
        other.nodes = list(self.nodes)
        other.names = dict(self.names)
        other.inputs = list(self.inputs)
        other.entries = list(self.entries)
        other.trainable = set(self.trainable)
        other.const_cache = dict(self.const_cache)
        return other

    def __getitem__(self, i: int) -> Node:
        return self.nodes[i]

    def append(self, node: Node) -> int:
        """Add a node whose inputs are already in the graph; returns its id."""
        self.nodes.append(node)
        return node.id

    def next_id(self) -> int:
        return len(self.nodes)

    def node(self, name: str) -> Node:
        return self.nodes[self.names[name]]

    def ancestors(self, targets, edges=None) -> bytearray:
        """Mark every node the targets depend on (through edges(node), default all inputs)."""
        marked = bytearray(len(self.nodes))
        for t in targets:
            marked[t] = 1
        top = max(targets, default=-1)
        nodes = self.nodes
        for i in range(top, -1, -1):
            if marked[i]:
                node = nodes[i]
                for j in node.inputs if edges is None else edges(node):
                    marked[j] = 1
        return marked

    def descendants(self, sources, edges=None, limit=None) -> bytearray:
        """Mark every node that depends on a source (through edges(node), default all inputs)."""
        end = len(self.nodes) if limit is None else limit
        marked = bytearray(end)
        for s in sources:
            if s < end:
                marked[s] = 1
        nodes = self.nodes
        for i in range(min(sources, default=end), end):
            if not marked[i]:
                node = nodes[i]
                if any(marked[j] for j in (node.inputs if edges is None else edges(node))):
                    marked[i] = 1
        return marked

    def consumers(self) -> list[list[int]]:
        """For every node, the ids of the nodes that use it as an input."""
        users: list[list[int]] = [[] for _ in self.nodes]
        for node in self.nodes:
            for j in node.inputs:
                users[j].append(node.id)
        return users

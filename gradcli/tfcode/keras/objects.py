"""The object model of the reader's Keras: classes, instances, methods, properties.

One model serves Keras's own classes (Layer, Dense, Sequential, Model, losses, optimizers),
written here in Python as `Builtin` methods, and the user's classes read from the file
(`class M(tf.keras.Model)`), whose methods are the file's `def`s (PyFunction): both are
`Class` records with a method table, looked up along the method resolution order, so a
user's subclass overrides `call` or `build` and inherits Keras's `__call__` protocol.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from gradcli.runtime.errors import Pos
from gradcli.tfcode.values import Variable


@dataclass(frozen=True)
class Builtin:
    """A method gradcli implements: fn(it, obj, args, kwargs, node)."""

    fn: Callable


@dataclass(frozen=True)
class Property:
    """A @property (a PyFunction or Builtin getter, an optional setter)."""

    getter: object
    setter: object = None


@dataclass(eq=False)
class Class:
    """A class: Keras's own (kind names its protocol) or one defined in the file."""

    name: str
    bases: tuple = ()
    methods: dict = field(default_factory=dict)
    kind: str = ""  # "layer", "module", "loss", "optimizer", "initializer" (own or inherited)
    pos: Pos | None = None
    user: bool = False  # defined in the file being read

    def mro(self) -> list[Class]:
        """The classes searched for a name: this one, then its bases depth first, each once."""
        out: list[Class] = []
        stack = [self]
        while stack:
            c = stack.pop(0)
            if c not in out:
                out.append(c)
                stack = list(c.bases) + stack
        return out

    def lookup(self, name: str, after: Class | None = None):
        """(member, owner) for a name along the MRO, starting after `after` (super())."""
        order = self.mro()
        if after is not None:
            order = order[order.index(after) + 1 :] if after in order else []
        for c in order:
            if name in c.methods:
                return c.methods[name], c
        return None, None

    def family(self) -> str:
        """The Keras protocol the class follows (its own kind or the first base's)."""
        for c in self.mro():
            if c.kind:
                return c.kind
        return ""

    def is_a(self, name: str) -> bool:
        return any(c.name == name and not c.user for c in self.mro())


@dataclass(eq=False)
class LayerState:
    """What Keras keeps on a layer: its name, trainability, build state and own weights."""

    name: str
    trainable: bool = True
    built: bool = False
    weights: list = field(default_factory=list)  # own variables, in creation order
    # Keras 3's SeedGenerator states (Dropout, RNN cells): in `variables`, not in `weights`
    seeds: list = field(default_factory=list)
    untracked: list = field(default_factory=list)  # (attribute, raw tf.Variable) set on it
    losses: list = field(default_factory=list)  # what self.add_loss added since the last call
    scope: tuple = ()  # the name scopes active when it was made (for variable paths)


@dataclass(eq=False)
class Instance:
    """An object of a Class; attrs keep assignment order (Keras tracks in that order)."""

    cls: Class
    attrs: dict = field(default_factory=dict)
    layer: LayerState | None = None
    data: dict = field(default_factory=dict)  # what a built-in class keeps (units, fn, ...)

    def __repr__(self) -> str:
        return f"<{self.cls.name} instance>"


@dataclass(frozen=True, eq=False)
class BoundMethod:
    """obj.method: the member and the class it was found in (super() continues after it)."""

    obj: Instance
    fn: object  # PyFunction or Builtin
    owner: Class


@dataclass(frozen=True, eq=False)
class Super:
    """super() in a method of `after`, on obj."""

    obj: Instance
    after: Class


@dataclass(eq=False)
class KerasVariable(Variable):
    """A variable made by a Keras layer (add_weight): `trainable` is TensorFlow's (whether
    tapes watch it), `keras_trainable` Keras's (membership of trainable_variables)."""

    path: str = ""
    short: str = ""
    keras_trainable: bool = True
    created_trainable: bool = True
    regularizer: object = None  # its kernel_regularizer=/add_weight(regularizer=) (layer.losses)


@dataclass(frozen=True)
class Initializer:
    """A Keras initializer: its kind ("zeros", "glorot_uniform", "constant", ...) and args."""

    kind: str
    value: object = None  # Constant's value; mean/stddev or minval/maxval pairs otherwise


@dataclass(eq=False)
class KerasState:
    """The reader's Keras bookkeeping for one program."""

    uids: dict = field(default_factory=dict)  # auto-name base -> how many were made
    scopes: list = field(default_factory=list)  # (layer, name) name scopes entered
    logits: dict = field(default_factory=dict)  # sigmoid/softmax output node -> its logits
    methods: list = field(default_factory=list)  # (class, instance) of user methods running
    training: list = field(default_factory=list)  # training= of the layer calls running
    symbolic: int = 0  # > 0 while a Sequential builds on a stand-in input (batch None)
    # id of a variables list a layer returned -> (the list, the layer, which list)
    listed: dict = field(default_factory=dict)
    masks: dict = field(default_factory=dict)  # tensor node id -> its _keras_mask tensor

    def unique(self, base: str) -> str:
        """Keras's auto-name: base, base_1, base_2 ... per base, in creation order."""
        n = self.uids.get(base, 0)
        self.uids[base] = n + 1
        return base if n == 0 else f"{base}_{n}"


def snake_case(name: str) -> str:
    """Keras's to_snake_case of a class name (TwoHeads -> two_heads, MLP -> mlp)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return s[1:] if s.startswith("_") else s

"""YAML spec files to a validated `Spec` (with safeyaml.py, the only modules that import yaml).

The YAML is composed with PyYAML's safe loader into position-carrying nodes (iteratively,
with bounded nesting: see safeyaml.py) and then read by hand: only plain scalars, lists
and mappings are accepted, a key given twice is an error (PyYAML would keep the last one
silently), object-constructing tags are refused, and aliases may not expand into more
values than the file could plausibly hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from gradcli.core.graph import DTYPES, MAX_RANK, is_float
from gradcli.core.ops import public_ops
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos, did_you_mean
from gradcli.spec import expression as ast
from gradcli.spec.expansion import check_expansion
from gradcli.spec.lowering import CONSTANTS, RESERVED, Function
from gradcli.spec.safe_yaml import compose

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
TOP_KEYS = (
    "inputs",
    "functions",
    "graph",
    "outputs",
    "wrt",
    "grad_ys",
    "unconnected",
    "description",
)
INPUT_KEYS = (
    "value",
    "random",
    "zeros",
    "ones",
    "dtype",
    "trainable",
    "shape",
    "seed",
    "low",
    "high",
    "mean",
    "std",
)
_YAML_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null")
)
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


@dataclass(slots=True)
class InputSpec:
    name: str
    value: np.ndarray
    dtype: str
    trainable: bool
    pos: Pos


@dataclass(slots=True)
class EntrySpec:
    name: str
    tree: object
    pos: Pos
    text: str


@dataclass
class Spec:
    """A parsed spec: inputs with values, functions and graph entries as ASTs, and settings."""

    file: str
    lines: list[str] = field(default_factory=list)
    inputs: dict[str, InputSpec] = field(default_factory=dict)
    functions: dict[str, Function] = field(default_factory=dict)
    entries: list[EntrySpec] = field(default_factory=list)
    outputs: list[tuple[str, Pos]] | None = None
    wrt: list[tuple[str, Pos]] | None = None
    grad_ys: dict[str, tuple[np.ndarray, Pos]] = field(default_factory=dict)
    unconnected: str = "none"
    description: str | None = None


def decode(data: bytes, file: str) -> str:
    """Bytes to text, with a positioned error for binary files and invalid UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise GradcliError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); is this a binary file?",
            Pos(file, line, col),
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise GradcliError(
            "the file contains NUL bytes; is this a binary file?",
            Pos(file, line, nul - text.rfind("\n", 0, nul)),
        )
    return text


class Reader:
    """Reads composed YAML nodes into Python values, with positions for every error."""

    def __init__(self, file: str, text: str):
        import yaml

        self.file = file
        self.text = text
        self.lines = text.splitlines()
        # Work units: one per value read (aliases included), two per expression character
        # parsed. Without aliases a spec spends at most 3 x its length; the slack covers
        # short specs. A billion-laughs file runs out after ~100,000 values, in well under
        # a second.
        self.budget = 4 * len(text) + 100_000
        self.scalars = yaml.constructor.SafeConstructor()

    def pos(self, node) -> Pos:
        mark = node.start_mark
        return Pos(self.file, mark.line + 1, mark.column + 1)

    def error(self, message: str, node) -> GradcliError:
        return GradcliError(message, self.pos(node))

    def spend(self, node, n: int = 1) -> None:
        self.budget -= n
        if self.budget < 0:
            raise LimitError(
                "the YAML expands (through aliases) into too many values", self.pos(node)
            )

    def mapping(self, node, what: str) -> list[tuple[str, object, object]]:
        """(key, key node, value node) triples; duplicate and non-string keys are errors."""
        self.check_tags(node)
        if node.id != "mapping":
            raise self.error(f"{what} must be a mapping (name: value), got {self.kind(node)}", node)
        seen: dict[str, object] = {}
        out = []
        for key_node, value_node in node.value:
            self.spend(key_node)
            if key_node.id == "scalar" and key_node.value == "<<":
                raise self.error("YAML merge keys ('<<') are not supported", key_node)
            if key_node.id != "scalar" or key_node.tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
                raise self.error(f"keys in {what} must be names", key_node)
            key = key_node.value
            if key in seen:
                first = self.pos(seen[key])
                raise self.error(
                    f"duplicate key '{key}' in {what} (first at line {first.line})", key_node
                )
            seen[key] = key_node
            out.append((key, key_node, value_node))
        return out

    def kind(self, node) -> str:
        self.check_tags(node)
        if node.id == "scalar":
            value = self.scalar(node)
            if isinstance(value, str):
                return f"the string '{value[:40]}'"
            return "nothing" if value is None else f"the value {value!r}"
        return {"sequence": "a list", "mapping": "a mapping"}.get(node.id, node.id)

    def scalar(self, node):
        """A plain scalar: str, int, float, bool or None; any other tag is refused."""
        self.spend(node)
        if node.id != "scalar":
            raise self.error(f"expected a single value, got {self.kind(node)}", node)
        if node.tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
            raise self.tag_error(node)
        try:
            return self.scalars.construct_object(node)
        except Exception:
            if node.tag == _INT and len(node.value) > 100:
                message = f"the integer {_clip(node.value)} has too many digits"
            else:
                message = f"cannot read the value {_clip(node.value)}"
            raise self.error(message, node) from None

    def check_tags(self, node) -> None:
        """Refuse a list or mapping carrying a tag (!!set, !!omap, !!python/..., !custom)."""
        expected = {"sequence": _SEQ, "mapping": _MAP}.get(node.id)
        if expected is not None and node.tag != expected:
            raise self.tag_error(node)

    def tag_error(self, node) -> GradcliError:
        tag = str(node.tag)
        if tag.startswith(_YAML_TAG):
            tag = "!!" + tag[len(_YAML_TAG) :]
        return self.error(
            f"YAML tag '{_clip(tag, 80)[1:-1]}' is not allowed: a spec holds only numbers, "
            "strings, lists and mappings (nothing is constructed or run)",
            node,
        )

    def string(self, node, what: str) -> str:
        if node.id != "scalar":
            raise self.error(f"{what} must be a string, got {self.kind(node)}", node)
        value = self.scalar(node)
        if not isinstance(value, str):
            raise self.error(f"{what} must be a string, got {self.kind(node)}", node)
        return value

    def names(self, node, what: str) -> list[tuple[str, Pos]]:
        """A non-empty list of names, or one string of comma-separated names."""
        if node.id == "sequence":
            self.check_tags(node)
            names = [
                (self.string(item, f"each name in {what}"), self.pos(item)) for item in node.value
            ]
        elif node.id == "mapping":
            raise self.error(f"{what} must be a name or a list of names, got a mapping", node)
        else:
            text = self.string(node, what)
            names = [(part.strip(), self.pos(node)) for part in text.split(",") if part.strip()]
        if not names:
            raise self.error(f"{what} is empty; name at least one, or leave {what} out", node)
        return names

    def number_array(self, node, what: str) -> np.ndarray:
        """A number or a rectangular nested list of numbers (or booleans) as a numpy array."""
        flat: list = []
        shape = self._collect(node, flat, what)
        if any(isinstance(v, bool) for v in flat) and not all(isinstance(v, bool) for v in flat):
            raise self.error(f"{what} mixes booleans and numbers", node)
        dtype = bool if flat and isinstance(flat[0], bool) else np.float64
        size = 1
        for d in shape:
            size *= d
        if size > limits.current.max_elements:
            raise LimitError(
                f"{what} has {size:,} elements, over the limit of "
                f"{limits.current.max_elements:,} {limits.advice('max_elements')}",
                self.pos(node),
            )
        return np.array(flat, dtype=dtype).reshape(shape)

    def _collect(self, node, flat: list, what: str) -> tuple[int, ...]:
        """Append the leaves of a nested list to flat; return its shape (iteratively)."""
        shapes: dict[int, tuple] = {}
        stack = [(node, 0)]
        order = []
        while stack:
            n, depth = stack.pop()
            if depth > MAX_RANK:
                raise self.error(
                    f"{what} is nested more than {MAX_RANK} levels deep (a tensor has at most "
                    f"{MAX_RANK} dimensions)",
                    n,
                )
            if n.id == "sequence":
                self.check_tags(n)
                self.spend(n)
                order.append((n, depth))
                stack.extend((child, depth + 1) for child in reversed(n.value))
            elif n.id == "scalar":
                flat.append(self._number(n, what))
                order.append((n, depth))
            else:
                raise self.error(f"{what} must be a number or a list of numbers, got a mapping", n)
        for n, _ in reversed(order):  # children before parents: compute each list's shape
            if n.id == "scalar":
                shapes[id(n)] = ()
                continue
            child_shapes = [shapes[id(c)] for c in n.value]
            if not child_shapes:
                shapes[id(n)] = (0,)
                continue
            first = child_shapes[0]
            for k, s in enumerate(child_shapes[1:], start=2):
                if s != first:
                    raise self.error(
                        f"{what} is a ragged nested list: item {k} has shape {_fmt(s)}, "
                        f"item 1 has shape {_fmt(first)}",
                        n.value[k - 1],
                    )
            shapes[id(n)] = (len(child_shapes), *first)
        return shapes[id(node)]

    def _number(self, node, what: str):
        value = self.scalar(node)
        if isinstance(value, bool):
            return value
        number = as_number(value)
        if number is None:
            raise self.error(
                f"{what} must be a number or a list of numbers, got {self.kind(node)}", node
            )
        return number

    def number(self, node, what: str) -> float | int:
        """One number (an int stays an int); YAML 1.1 strings such as 1e20 count as numbers."""
        value = self.scalar(node)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        number = None if isinstance(value, bool) else as_number(value)
        if number is None:
            raise self.error(f"{what} must be a number, got {self.kind(node)}", node)
        return number

    def locator(self, node):
        """Map (line, col) inside an expression scalar to the spec file's line and column."""
        mark = node.start_mark
        style = node.style
        file = self.file
        if style in ("|", ">"):
            first = mark.line + 1  # content starts on the line after the indicator
            while first < len(self.lines) and not self.lines[first].strip():
                first += 1
            line_text = self.lines[first] if first < len(self.lines) else ""
            indent = len(line_text) - len(line_text.lstrip(" "))
            return lambda line, col: Pos(file, first + line, indent + col)
        shift = 1 if style in ("'", '"') else 0
        base_line, base_col = mark.line + 1, mark.column + shift

        def locate(line: int, col: int) -> Pos:
            return Pos(file, base_line + line - 1, base_col + col if line == 1 else col)

        return locate


# Numbers YAML 1.1 reads as strings: an exponent without a dot (1e20), and inf/nan spelled
# as people write them. Nothing else that float() accepts ('1_0', ' 1 ', 'infinity').
_NUMBER_STRING = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\Z|[-+]?(?:inf|nan)\Z", re.I)


def as_number(value) -> float | None:
    """A YAML scalar as a float when it is a number (or a string spelling one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMBER_STRING.match(value.strip()):
        return float(value.strip())
    return None


def _clip(text: str, width: int = 60) -> str:
    """User text quoted for an error message, shortened when long."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _fmt(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def load_spec(data: bytes | str, file: str) -> Spec:
    """Read and validate a YAML spec (text or raw bytes)."""
    text = decode(data, file) if isinstance(data, bytes) else data
    if not text.strip():
        raise GradcliError("the spec is empty", Pos(file, 1, 1))
    root = compose(text, file)
    if root is None:
        raise GradcliError("the spec is empty", Pos(file, 1, 1))
    reader = Reader(file, text)
    if root.id != "mapping":
        raise reader.error(
            f"the spec must be a mapping with inputs: and graph:, got {reader.kind(root)}", root
        )
    spec = Spec(file=file, lines=reader.lines)
    sections = {}
    for key, key_node, value in reader.mapping(root, "the spec"):
        if key not in TOP_KEYS:
            hint = did_you_mean(str(key), TOP_KEYS)
            raise reader.error(
                f"unknown section '{key}'{hint}; sections are {', '.join(TOP_KEYS)}", key_node
            )
        sections[key] = (key_node, value)
    for required in ("inputs", "graph"):
        if required not in sections:
            raise GradcliError(f"the spec has no '{required}:' section", reader.pos(root))
    if "description" in sections:
        spec.description = reader.string(sections["description"][1], "description")
    _read_inputs(reader, spec, sections["inputs"][1])
    if "functions" in sections:
        _read_functions(reader, spec, sections["functions"][1])
    _read_graph(reader, spec, sections["graph"][1])
    if "outputs" in sections:
        spec.outputs = reader.names(sections["outputs"][1], "outputs")
    if "wrt" in sections:
        spec.wrt = reader.names(sections["wrt"][1], "wrt")
    if "grad_ys" in sections:
        for name, key_node, value in reader.mapping(sections["grad_ys"][1], "grad_ys"):
            seed = reader.number_array(value, f"grad_ys for '{name}'")
            if seed.dtype == bool:
                raise reader.error(f"grad_ys for '{name}' must be numbers, not booleans", value)
            spec.grad_ys[str(name)] = (seed, reader.pos(key_node))
    if "unconnected" in sections:
        node = sections["unconnected"][1]
        value = reader.scalar(node)
        value = "none" if value is None else str(value).lower()
        if value not in ("none", "zero"):
            raise reader.error(f"unconnected must be 'none' or 'zero', got {value!r}", node)
        spec.unconnected = value
    return spec


def check_name(reader: Reader, name, node, what: str) -> str:
    if not isinstance(name, str) or not IDENT.match(name):
        raise reader.error(f"{what} name {name!r} is not a valid name (letters, digits, _)", node)
    if name in CONSTANTS:
        raise reader.error(f"'{name}' is a built-in constant and cannot name {what}", node)
    return name


def _read_inputs(reader: Reader, spec: Spec, node) -> None:
    items = reader.mapping(node, "inputs")
    if not items:
        raise reader.error("inputs is empty; declare at least one input", node)
    for name, key_node, value in items:
        check_name(reader, name, key_node, "an input")
        spec.inputs[name] = _read_input(reader, name, value, reader.pos(key_node))


def _read_input(reader: Reader, name: str, node, pos: Pos) -> InputSpec:
    what = f"input '{name}'"
    if node.id != "mapping":
        value = reader.number_array(node, what)
        dtype = "bool" if value.dtype == bool else "float64"
        return InputSpec(name, value, dtype, dtype == "float64", pos)
    fields = {}
    for key, key_node, value in reader.mapping(node, what):
        if key not in INPUT_KEYS:
            hint = did_you_mean(str(key), INPUT_KEYS)
            raise reader.error(f"unknown key '{key}' in {what}{hint}", key_node)
        fields[key] = value
    sources = [k for k in ("value", "random", "zeros", "ones") if k in fields]
    if len(sources) != 1:
        raise reader.error(f"{what} needs exactly one of value, random, zeros or ones", node)
    source = sources[0]
    dtype = "float64"
    if "dtype" in fields:
        dtype = reader.string(fields["dtype"], f"the dtype of {what}")
        if dtype not in DTYPES:
            hint = did_you_mean(dtype, DTYPES)
            raise reader.error(
                f"unknown dtype '{dtype}'{hint}; one of {', '.join(DTYPES)}", fields["dtype"]
            )
    if source == "value":
        value = reader.number_array(fields["value"], what)
    elif source in ("zeros", "ones"):
        shape = _shape(reader, fields[source], what)
        value = (np.zeros if source == "zeros" else np.ones)(shape)
    else:
        value = _random(reader, fields, what)
    if not is_float(dtype):
        if value.dtype != bool and not np.all(np.isfinite(value) & (value == np.round(value))):
            raise reader.error(
                f"{what} has dtype {dtype} but its value is not a whole number", fields[source]
            )
        if dtype in ("int32", "int64"):
            info = np.iinfo(dtype)
            if value.size and (value.min() < info.min or value.max() > info.max):
                raise reader.error(f"{what} does not fit in {dtype}", fields[source])
        if dtype == "bool" and value.dtype != bool and not np.all((value == 0) | (value == 1)):
            raise reader.error(
                f"{what} has dtype bool but holds values other than 0 and 1", fields[source]
            )
    with np.errstate(over="ignore"):  # 1e300 as float32 is inf, as in TensorFlow
        value = value.astype(dtype)
    trainable = is_float(dtype)
    if "trainable" in fields:
        flag = reader.scalar(fields["trainable"])
        if not isinstance(flag, bool):
            raise reader.error(
                f"trainable must be true or false, got {flag!r}", fields["trainable"]
            )
        trainable = flag
    return InputSpec(name, value, dtype, trainable, pos)


def _shape(reader: Reader, node, what: str) -> tuple[int, ...]:
    if node.id == "scalar":
        dims = [_size(reader, node, what)]
    elif node.id == "sequence":
        reader.check_tags(node)
        dims = [_size(reader, d, what) for d in node.value]
    else:
        raise reader.error(f"the shape of {what} must be a list of sizes", node)
    if len(dims) > MAX_RANK:
        raise reader.error(
            f"the shape of {what} has {len(dims)} dimensions; at most {MAX_RANK} are supported",
            node,
        )
    if any(d < 0 for d in dims):
        raise reader.error(f"the shape of {what} has a negative size: {dims}", node)
    size = 1
    for d in dims:
        size *= d
    if size > limits.current.max_elements:
        raise LimitError(
            f"{what} would have {limits.count(size)} elements, over the limit of "
            f"{limits.current.max_elements:,} {limits.advice('max_elements')}",
            reader.pos(node),
        )
    return tuple(dims)


def _size(reader: Reader, node, what: str) -> int:
    """One dimension: a whole number (1e9 and 1000.0 count; sizes are checked later)."""
    value = reader.scalar(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = as_number(value)
    if number is None or not np.isfinite(number) or number != int(number):
        raise reader.error(
            f"the shape of {what} must be a list of whole numbers, got {reader.kind(node)}", node
        )
    return int(number)


def _random(reader: Reader, fields: dict, what: str) -> np.ndarray:
    kind = reader.string(fields["random"], f"random in {what}")
    if kind not in ("normal", "uniform"):
        raise reader.error(f"random must be 'normal' or 'uniform', got '{kind}'", fields["random"])
    if "shape" not in fields:
        raise reader.error(f"{what} needs a shape for its random values", fields["random"])
    shape = _shape(reader, fields["shape"], what)
    params = {}
    for key in ("seed", "low", "high", "mean", "std"):
        if key in fields:
            v = reader.number(fields[key], f"{key} in {what}")
            if key != "seed":
                try:
                    v = float(v)
                except OverflowError:  # a YAML integer beyond float64
                    v = np.inf
                if not np.isfinite(v):
                    raise reader.error(f"{key} in {what} must be a finite number", fields[key])
            params[key] = v
    seed = params.get("seed", 0)
    if not isinstance(seed, int) or seed < 0:
        raise reader.error(f"seed in {what} must be a non-negative whole number", fields["seed"])
    if params.get("std", 0.0) < 0:
        raise reader.error(f"std in {what} must not be negative", fields["std"])
    low, high = params.get("low", 0.0), params.get("high", 1.0)
    if not low <= high or not np.isfinite(float(high) - float(low)):
        node = fields.get("high", fields.get("low"))
        raise reader.error(
            f"{what} needs low <= high with a finite range, got [{low}, {high}]", node
        )
    rng = np.random.default_rng(seed)
    if kind == "normal":
        return rng.normal(params.get("mean", 0.0), params.get("std", 1.0), size=shape)
    return rng.uniform(params.get("low", 0.0), params.get("high", 1.0), size=shape)


def _expression(reader: Reader, node, what: str):
    """Parse a YAML scalar as an expression, with positions mapped into the file."""
    if node.id != "scalar":
        quote = " (quote an expression that starts with '[' or '{')"
        raise reader.error(f"{what} must be an expression, got {reader.kind(node)}{quote}", node)
    if node.tag == _STR:  # the common case: skip PyYAML's constructor (same value)
        reader.spend(node)
        value = node.value
    else:
        value = reader.scalar(node)
    if isinstance(value, bool) or value is None:
        raise reader.error(f"{what} must be an expression, got {reader.kind(node)}", node)
    if isinstance(value, (int, float)):
        return ast.Num(value, reader.pos(node)), str(value)
    reader.spend(node, 2 * len(value))  # an aliased expression is parsed once per use
    try:
        return ast.parse(value, reader.locator(node)), value
    except RecursionError:
        raise LimitError(f"{what} is nested too deeply", reader.pos(node)) from None


def _read_functions(reader: Reader, spec: Spec, node) -> None:
    for name, key_node, value in reader.mapping(node, "functions"):
        check_name(reader, name, key_node, "a function")
        if name in public_ops():
            raise reader.error(f"function '{name}' would hide the built-in {name}()", key_node)
        what = f"function '{name}'"
        fields = {k: (kn, v) for k, kn, v in reader.mapping(value, what)}
        for key, (kn, _) in fields.items():
            if key not in ("params", "body", "grad"):
                hint = did_you_mean(str(key), ("params", "body", "grad"))
                raise reader.error(f"unknown key '{key}' in {what}{hint}", kn)
        if "params" not in fields or "body" not in fields:
            raise reader.error(f"{what} needs params: and body:", value)
        params = [p for p, _ in reader.names(fields["params"][1], f"the params of {what}")]
        for p in params:
            check_name(reader, p, fields["params"][1], "a parameter")
        if len(set(params)) != len(params):
            raise reader.error(f"{what} has a repeated parameter", fields["params"][1])
        body, _ = _expression(reader, fields["body"][1], f"the body of {what}")
        grads = None
        if "grad" in fields:
            clash = RESERVED.intersection(params)
            if clash:
                raise reader.error(
                    f"{what} has a custom gradient, so its parameters cannot be "
                    f"named {' or '.join(sorted(clash))}",
                    fields["params"][1],
                )
            gnode = fields["grad"][1]
            items = gnode.value if gnode.id == "sequence" else [gnode]
            if gnode.id == "sequence":
                reader.check_tags(gnode)
            if len(items) != len(params):
                raise reader.error(
                    f"{what} has {len(params)} parameter(s) but {len(items)} "
                    "gradient expression(s)",
                    gnode,
                )
            grads = []
            for item in items:
                if item.id == "scalar" and reader.scalar(item) is None:
                    grads.append(None)  # null: no gradient flows to this parameter
                else:
                    grads.append(_expression(reader, item, f"the gradient of {what}")[0])
        spec.functions[name] = Function(name, params, body, grads, reader.pos(key_node))


def _read_graph(reader: Reader, spec: Spec, node) -> None:
    items = reader.mapping(node, "graph")
    if not items:
        raise reader.error("graph is empty; add at least one entry", node)
    for name, key_node, value in items:
        check_name(reader, name, key_node, "a graph entry")
        if name in spec.inputs:
            first = spec.inputs[name].pos.line
            raise reader.error(
                f"'{name}' is both an input (line {first}) and a graph entry", key_node
            )
        tree, text = _expression(reader, value, f"graph entry '{name}'")
        spec.entries.append(EntrySpec(name, tree, reader.pos(key_node), text))
    check_expansion(spec)

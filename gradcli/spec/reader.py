"""YAML spec files to a validated `Spec`: the top level, functions and graph sections."""

from __future__ import annotations

from gradcli.core.ops import public_ops
from gradcli.core.problem import NONE, ZEROS
from gradcli.runtime.errors import GradcliError, LimitError, Pos, did_you_mean
from gradcli.spec import expression as ast
from gradcli.spec.document import (
    _STR,
    IDENT,
    TOP_KEYS,
    EntrySpec,
    Reader,
    Spec,
    check_name,
    decode,
)
from gradcli.spec.expansion import check_expansion
from gradcli.spec.inputs import _read_inputs
from gradcli.spec.lowering import CONSTANTS, RESERVED, Function
from gradcli.spec.safe_yaml import compose


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
        value = NONE if value is None else str(value).lower()
        if value not in (NONE, ZEROS):
            raise reader.error(f"unconnected must be 'none' or 'zero', got {value!r}", node)
        spec.unconnected = value
    return spec


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
    seen: dict[str, int] = {}
    for name, key_node, value in items:
        targets = _entry_targets(reader, name, key_node)
        where = reader.pos(key_node)
        for target, pos in targets or ((name, where),):
            if target in spec.inputs:
                first = spec.inputs[target].pos.line
                raise GradcliError(
                    f"'{target}' is both an input (line {first}) and a graph entry", pos
                )
            if target in seen:
                raise GradcliError(
                    f"graph entry '{target}' is defined twice (first at line {seen[target]})", pos
                )
            seen[target] = pos.line
        if value.id == "scalar" and value.tag == _STR:  # _expression's common case, inline
            text = value.value
            reader.spend(value, 1 + 2 * len(text))
            try:
                tree = ast.parse(text, reader.locator(value))
            except RecursionError:
                raise LimitError(
                    f"graph entry '{name}' is nested too deeply", reader.pos(value)
                ) from None
        else:
            tree, text = _expression(reader, value, f"graph entry '{name}'")
        spec.entries.append(EntrySpec(name, tree, where, text, targets))
    check_expansion(spec)


def _entry_targets(reader: Reader, name, key_node) -> tuple[tuple[str, Pos], ...]:
    """The names of an unpacking entry (`a, b: split(x, 2)`) with their positions; () for
    an ordinary entry, whose name is checked."""
    if not isinstance(name, str) or "," not in name:
        check_name(reader, name, key_node, "a graph entry")
        return ()
    start = reader.pos(key_node)
    shift = 1 if key_node.style in ("'", '"') else 0
    targets, offset = [], 0
    for part in name.split(","):
        target = part.strip()
        pos = Pos(start.file, start.line, start.col + shift + offset + part.index(target[:1]))
        offset += len(part) + 1
        if not IDENT.match(target) or target in CONSTANTS:
            raise GradcliError(
                f"{target!r} in '{name}' is not a valid graph entry name (letters, digits, _)",
                pos,
            )
        targets.append((target, pos))
    return tuple(targets)

"""A spec plus command-line overrides, built into a graph with its outputs and targets."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from gradcli.core.graph import MAX_RANK, Graph, is_float
from gradcli.core.ops import emit
from gradcli.core.problem import Problem, Source
from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos, did_you_mean
from gradcli.spec import expression as ast
from gradcli.spec import numbers
from gradcli.spec.attributes import Group
from gradcli.spec.document import EntrySpec, InputSpec, Spec
from gradcli.spec.lowering import CONSTANTS, Builder


def clip(text: str, width: int = 60) -> str:
    """User text quoted for an error message, shortened when long."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")


_BARE_NON_FINITE = re.compile(r"\b(?:inf|nan)\b")
_JSON_SPELLING = {"inf": "Infinity", "nan": "NaN"}


def parse_value(text: str, what: str):
    """A number or JSON list from the command line (inf, -inf and nan are accepted), checked
    for shape and size; integers stay integers (`literal_array` gives it its dtype)."""
    import json

    raw = text.strip()
    # JSON spells the non-finite numbers Infinity and NaN; accept inf/nan inside lists too.
    listed = _BARE_NON_FINITE.sub(lambda m: _JSON_SPELLING[m.group(0)], raw)
    try:
        try:
            value = json.loads(
                listed,
                parse_float=numbers.float_text,
                parse_int=numbers.integer_text,
                parse_constant=lambda c: {"Infinity": np.inf, "-Infinity": -np.inf, "NaN": np.nan}[
                    c
                ],
            )
        except RecursionError:
            raise GradcliError(
                f"{what}: the list is nested more than {MAX_RANK} levels deep"
            ) from None
        except numbers.NumberError:
            raise
        except (ValueError, KeyError):
            try:
                value = numbers.number_text(raw)  # inf, -inf, nan, 1e3, +5 ...
            except ValueError as exc:
                if isinstance(exc, numbers.NumberError):
                    raise
                raise GradcliError(
                    f"{what}: cannot read {clip(text)} as a number or a JSON list"
                ) from None
    except numbers.NumberError as exc:
        raise GradcliError(f"{what}: {exc}") from None
    _check_leaves(value, text, what)
    shape = numbers.shape_of(value)
    if shape is None:
        raise GradcliError(f"{what}: {clip(text)} is not a number or a rectangular list of numbers")
    size = int(np.prod(shape, dtype=object))
    if size > limits.current.max_elements:
        raise LimitError(
            f"{what}: {size:,} elements, over the limit of "
            f"{limits.current.max_elements:,} {limits.advice('max_elements')}"
        )
    return value


def literal_array(value, dtype: str, what: str) -> np.ndarray:
    """A value parse_value read (or an array), as an array of dtype (each number checked)."""
    try:
        if isinstance(value, (np.ndarray, np.generic)):  # a file's array: checked vectorised
            return numbers.from_array(value, dtype)
        return numbers.array(value, dtype)
    except numbers.NumberError as exc:
        raise GradcliError(f"{what}: {exc}") from None


def _check_leaves(value, text: str, what: str) -> None:
    """Every leaf of a JSON value is a number or boolean, nested at most MAX_RANK deep."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, list):
            if depth >= MAX_RANK:
                raise GradcliError(f"{what}: the list is nested more than {MAX_RANK} levels deep")
            stack.extend((item, depth + 1) for item in v)
        elif not isinstance(v, (int, float)):
            shown = "null" if v is None else clip(json_text(v))
            raise GradcliError(f"{what}: {shown} in {clip(text)} is not a number")


def json_text(v) -> str:
    import json

    return json.dumps(v)


def override_inputs(spec: Spec, at: dict) -> Spec:
    """The spec with input values replaced (--at), each converted to the input's dtype."""
    if not at:
        return spec
    inputs = dict(spec.inputs)
    for name, value in at.items():
        if name not in inputs:
            hint = did_you_mean(name, inputs)
            raise GradcliError(f"--at {name}: there is no input named '{name}'{hint}")
        old = inputs[name]
        inputs[name] = replace(old, value=literal_array(value, old.dtype, f"--at {name}"))
    return replace(spec, inputs=inputs)


def spec_from_expression(text: str, at: dict) -> Spec:
    """A one-entry spec for -e: every free name is a float64 input with its value from --at."""
    tree = ast.parse(text)
    names = [n for n in ast.names_in(tree) if n not in CONSTANTS]
    missing = [n for n in names if n not in at]
    if missing:
        raise GradcliError(
            f"no value for {', '.join(repr(n) for n in missing)}: give "
            f"{' '.join(f'--at {n}=VALUE' for n in missing)}"
        )
    extra = [n for n in at if n not in names]
    if extra:
        hint = did_you_mean(extra[0], names)
        raise GradcliError(f"--at {extra[0]}: the expression has no input '{extra[0]}'{hint}")
    where = Pos("<expr>", 1, 1)
    inputs = {
        n: InputSpec(n, literal_array(at[n], "float64", f"--at {n}"), "float64", True, where)
        for n in names
    }
    return Spec(
        file="<expr>", lines=[text], inputs=inputs, entries=[EntrySpec("f", tree, where, text)]
    )


def build_problem(
    spec: Spec, *, wrt: list[str] | None = None, unconnected: str | None = None
) -> Problem:
    """Build the forward graph of a spec and resolve outputs, wrt and grad_ys."""
    graph = Graph(spec.file)
    for inp in spec.inputs.values():
        value = float(inp.value) if inp.value.shape == () and inp.dtype == "float64" else inp.value
        i = emit(
            graph,
            "input",
            (),
            {"value": value},
            kind="input",
            name=inp.name,
            entry=inp.name,
            pos=inp.pos,
        )
        graph.names[inp.name] = i
        graph.inputs.append(i)
        if inp.trainable:
            graph.trainable.add(i)
    builder = Builder(graph, spec.functions)
    builder.scope = graph.names
    later = builder.later = {name: pos.line for e in spec.entries for name, pos in _targets(e)}
    nodes, names, entries = graph.nodes, graph.names, graph.entries
    for entry in spec.entries:  # (locals throughout: one pass per graph entry)
        targets = entry.targets or ((entry.name, entry.pos),)
        for name, _ in targets:
            del later[name]
        builder.entry = entry.name
        start = len(nodes)
        try:
            value = builder.build(entry.tree)
            if entry.targets:
                roots = _unpacked(entry, value)
            elif isinstance(value, Group) and len(value.ids) == 1:
                roots = value.ids  # `a: split(x, 1)`: the one output, named by the entry
            else:
                roots = [builder.tensor(value)]
        except RecursionError:
            raise GradcliError(
                f"graph entry '{entry.name}' is nested too deeply", entry.pos
            ) from None
        for (name, pos), root in zip(targets, roots):
            node = nodes[root]
            if root < start or node.kind == "const" or node.name is not None:
                root = builder.emit("identity", (root,), None, pos)
                node = nodes[root]
            node.name = name
            node.entry = name  # an unpacked output is its own entry (explain's label)
            names[name] = root
            entries.append(root)
    outputs = _resolve(graph, spec.outputs, "output") if spec.outputs else [graph.entries[-1]]
    if len(set(outputs)) != len(outputs):
        raise GradcliError(
            "an output is listed twice", spec.outputs[0][1] if spec.outputs else None
        )
    if wrt is not None:
        targets = _resolve(graph, [(n, None) for n in wrt], "--wrt")
    elif spec.wrt is not None:
        targets = _resolve(graph, spec.wrt, "wrt")
    else:
        targets = [i for i in graph.inputs if i in graph.trainable]
    targets = list(dict.fromkeys(targets))
    seeds = [_seed(graph, spec, o) for o in outputs]
    extra = set(spec.grad_ys) - {graph[o].name for o in outputs}
    if extra:
        name = sorted(extra)[0]
        raise GradcliError(f"grad_ys names '{name}', which is not an output", spec.grad_ys[name][1])
    mode = unconnected or spec.unconnected
    rebuild = _rebuilder(spec, [graph[x].name for x in targets], mode)
    return Problem(spec, graph, outputs, targets, seeds, mode, source_of(spec), rebuild)


def _targets(entry: EntrySpec) -> tuple[tuple[str, Pos], ...]:
    """The names an entry binds, with their positions (one for an ordinary entry)."""
    return entry.targets or ((entry.name, entry.pos),)


def _unpacked(entry: EntrySpec, value) -> list[int]:
    """The outputs an unpacking entry (`a, b: split(x, 2)`) binds, one per name."""
    names = len(entry.targets)
    if not isinstance(value, Group):
        raise GradcliError(
            f"graph entry '{entry.name}' names {names} results, but its expression gives one "
            "tensor (split, unstack and moments give several)",
            entry.pos,
        )
    if len(value.ids) != names:
        raise GradcliError(
            f"{value.op}(...) gives {len(value.ids)} tensor{'s' * (len(value.ids) != 1)}, but "
            f"'{entry.name}' names {names}",
            entry.pos,
        )
    return value.ids


def _rebuilder(spec: Spec, wrt: list[str], mode: str):
    """Problem.rebuild for a spec: the same spec with some inputs set to other values."""

    def rebuild(values: dict[str, np.ndarray]) -> Problem:
        inputs = dict(spec.inputs)
        for name, value in values.items():
            inputs[name] = replace(inputs[name], value=np.asarray(value, inputs[name].dtype))
        return build_problem(replace(spec, inputs=inputs), wrt=wrt, unconnected=mode)

    return rebuild


def source_of(spec: Spec) -> Source:
    """What analyses quote from a spec: its lines, names' positions, functions, grad_ys."""
    positions = {name: inp.pos for name, inp in spec.inputs.items()}
    positions.update((entry.name, entry.pos) for entry in spec.entries)
    positions.update(target for entry in spec.entries for target in entry.targets)
    seeds = {name: pos for name, (_, pos) in spec.grad_ys.items()}
    return Source(spec.file, spec.lines, positions, spec.functions, seeds)


def _resolve(graph: Graph, names: list[tuple[str, Pos | None]], what: str) -> list[int]:
    out = []
    for name, pos in names:
        if name not in graph.names:
            hint = did_you_mean(name, graph.names)
            raise GradcliError(
                f"{what} names '{name}', which is not an input or graph entry{hint}", pos
            )
        out.append(graph.names[name])
    return out


def _seed(graph: Graph, spec: Spec, output: int) -> np.ndarray | None:
    node = graph[output]
    if node.name not in spec.grad_ys:
        return None
    value, pos = spec.grad_ys[node.name]
    try:
        fits = np.broadcast_shapes(value.shape, node.shape) == node.shape
    except ValueError:
        fits = False
    if not fits:
        raise GradcliError(
            f"grad_ys for '{node.name}' has shape {value.shape}, which does not "
            f"broadcast to the output's shape {node.shape}",
            pos,
        )
    return value.astype(node.dtype) if is_float(node.dtype) else value

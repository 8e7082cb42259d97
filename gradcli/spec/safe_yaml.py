"""YAML text to PyYAML's position-carrying nodes, composed iteratively with bounded nesting.

PyYAML's own composers recurse once per nesting level: the pure-Python one raises
RecursionError and the C one overflows the C stack (a crash) on `[[[[...` a hundred
thousand deep, and libyaml's scanner slows down quadratically with flow nesting. This
composer reads the parser's events lazily and stops at the nesting limit, so a hostile
file costs at most (limit x length) work. Only the safe loaders are used: tags are left
on the nodes for spec.py to refuse, nothing is constructed here.
"""

from __future__ import annotations

from gradcli.runtime import limits
from gradcli.runtime.errors import GradcliError, LimitError, Pos
from gradcli.spec.literal_count import values_past

BIG_DATA = (
    "give big data in a .npy or .npz file, as {file: x.npy} (specs/README.md, inputs from files)"
)
COUNT_AHEAD = True  # count a long flow list's values ahead (literal_count.py): tests compare

_LEAF_CLASS = None


def _leaf_class(yaml):
    """A one-line plain scalar inside a list: a ScalarNode with four slots and no marks.

    A literal tensor holds millions of these; PyYAML's own node with its two Mark objects
    takes ~600 bytes each, this ~150. start_mark and end_mark are the leaf itself (it has
    the line and column a Mark has)."""
    global _LEAF_CLASS
    if _LEAF_CLASS is None:

        class Leaf(yaml.nodes.ScalarNode):
            __slots__ = ("column", "line", "tag", "value")
            style = None
            start_mark = property(lambda self: self)
            end_mark = property(lambda self: self)

            def __init__(self, tag, value, line, column):
                self.tag, self.value, self.line, self.column = tag, value, line, column

        _LEAF_CLASS = Leaf
    return _LEAF_CLASS


def _too_many(file: str, mark, limit: int) -> LimitError:
    return LimitError(
        f"this list holds more than {limit:,} elements, over the limit of {limit:,} "
        f"{limits.advice('max_elements')}; {BIG_DATA}",
        _pos(file, mark),
    )


def _counted_past(text: str, event, depth: int) -> bool:
    """Whether the flow list `event` starts holds more values than the limit, counted
    ahead (cheaply: only a text long enough to hold that many is read)."""
    start = event.start_mark.index
    limit = limits.current.max_elements
    if not COUNT_AHEAD or len(text) - start <= 2 * limit or text[start : start + 1] != "[":
        return False
    return values_past(text, start, limit, depth)


def _pos(file: str, mark) -> Pos | None:
    return Pos(file, mark.line + 1, mark.column + 1) if mark is not None else None


def compose(text: str, file: str):
    """The root node of a one-document YAML text, or None when the text holds no document."""
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        return _compose(loader, file, yaml, text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        if "nesting depth" in problem and mark is not None:
            _nesting_limit(text[: mark.index], file, yaml)
        raise GradcliError(f"invalid YAML: {problem}", _pos(file, mark)) from None
    except yaml.YAMLError as exc:
        first = (str(exc).splitlines() or ["invalid YAML"])[0]
        raise GradcliError(f"invalid YAML: {first}", Pos(file, 1, 1)) from None
    finally:
        loader.dispose()


PROBE_EVENTS = 100_000  # parser events literal_over_limit reads before it gives up


def literal_over_limit(text: str, file: str) -> LimitError | None:
    """The limit's error for a literal in `text` (the start of a spec too long to read
    whole) that is a flow list holding more values than the limit allows, counted ahead,
    among what the parser's first PROBE_EVENTS events reach; None otherwise (the caller's
    error stands)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    ev = yaml.events
    depth = 0
    literal_depth = -1  # as in _compose: the outermost list's depth, while one is read
    try:
        for _ in range(PROBE_EVENTS):
            event = loader.get_event()
            kind = type(event)
            if kind is ev.SequenceStartEvent or kind is ev.MappingStartEvent:
                if depth >= limits.current.max_depth:
                    return None
                if literal_depth < 0 and kind is ev.SequenceStartEvent:
                    if event.flow_style and _counted_past(
                        text, event, limits.current.max_depth - depth
                    ):
                        return _too_many(file, event.start_mark, limits.current.max_elements)
                    literal_depth = depth
                depth += 1
            elif kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
                depth -= 1
                if depth == literal_depth:
                    literal_depth = -1
            elif kind is ev.StreamEndEvent:
                return None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def _nesting_limit(prefix: str, file: str, yaml) -> None:
    """Raise gradcli's own nesting-limit error where libyaml refused deeper nesting.

    libyaml (PyYAML >= 6.0.4) scans ahead and stops at its own depth limit before the
    composer sees the level where gradcli's limit fires; the text up to libyaml's mark,
    read by the pure-Python parser, reaches that level (a bounded prefix, read lazily).
    """
    loader = yaml.SafeLoader(prefix)
    try:
        _compose(loader, file, yaml, prefix)
    except yaml.YAMLError:
        pass  # the prefix ends mid-document: only gradcli's own limit matters here
    finally:
        loader.dispose()


def _compose(loader, file: str, yaml, text: str):
    """The document's root node, events read one at a time (one loop: the reading hot path).

    A literal that starts as a flow list in a text long enough to hold more values than
    the limit allows is counted ahead first (literal_count.py), so that the limit fires
    at once rather than after limit + 1 values have been composed."""
    ev = yaml.events
    nodes = yaml.nodes
    loader.get_event()  # StreamStartEvent
    if loader.check_event(ev.StreamEndEvent):
        return None
    loader.get_event()  # DocumentStartEvent
    max_depth = limits.current.max_depth
    max_elements = limits.current.max_elements
    anchors: dict[str, object] = {}
    stack: list[list] = []  # [collection node, pending mapping key or None]
    resolve = loader.resolve
    # the resolver's answer without its call for a plain scalar no implicit resolver
    # claims by its first character (an expression such as `sin(x)`): str, when the
    # loader has no wildcard or path resolvers (as PyYAML's safe loaders)
    first_chars = loader.yaml_implicit_resolvers
    plain_str = None not in first_chars and not loader.yaml_path_resolvers
    default_tag = loader.DEFAULT_SCALAR_TAG
    Leaf = _leaf_class(yaml)
    # the outermost list being composed (a literal tensor): its depth in the stack, its
    # start and how many values it holds so far, counted as they are read
    literal_depth = -1
    literal_mark = None
    literal_count = 0
    while True:
        event = loader.get_event()
        kind = type(event)
        if kind is ev.ScalarEvent:
            tag = event.tag
            if tag is None or tag == "!":
                value = event.value
                if plain_str and (not event.implicit[0] or value[:1] not in first_chars):
                    tag = default_tag  # what resolve() returns for it
                else:
                    tag = resolve(nodes.ScalarNode, value, event.implicit)
            start = event.start_mark
            if literal_depth >= 0:
                literal_count += 1
                if literal_count > max_elements:
                    raise _too_many(file, literal_mark, max_elements)
                if (
                    event.style is None
                    and event.anchor is None
                    and start.line == event.end_mark.line
                ):
                    node = Leaf(tag, event.value, start.line, start.column)
                else:
                    node = nodes.ScalarNode(
                        tag, event.value, start, event.end_mark, style=event.style
                    )
            else:
                node = nodes.ScalarNode(tag, event.value, start, event.end_mark, style=event.style)
        elif kind is ev.SequenceStartEvent or kind is ev.MappingStartEvent:
            if len(stack) >= max_depth:
                raise LimitError(
                    f"the YAML is nested more than {max_depth} levels deep "
                    f"{limits.advice('max_depth')}",
                    _pos(file, event.start_mark),
                )
            cls = nodes.SequenceNode if kind is ev.SequenceStartEvent else nodes.MappingNode
            tag = event.tag
            if tag is None or tag == "!":
                tag = resolve(cls, None, event.implicit)
            node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            if literal_depth < 0 and kind is ev.SequenceStartEvent:
                literal_depth, literal_mark, literal_count = len(stack), event.start_mark, 0
                if event.flow_style and _counted_past(text, event, max_depth - len(stack)):
                    raise _too_many(file, literal_mark, max_elements)
            stack.append([node, None])
            continue
        elif kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
            node = stack.pop()[0]
            node.end_mark = event.end_mark
            if len(stack) == literal_depth:
                literal_depth = -1
        elif kind is ev.AliasEvent:
            node = anchors.get(event.anchor)
            if node is None:
                raise GradcliError(
                    f"undefined YAML alias '*{event.anchor}'", _pos(file, event.start_mark)
                )
            if literal_depth >= 0:
                literal_count += 1
        else:  # pragma: no cover - the parser emits nothing else inside a document
            raise GradcliError(f"invalid YAML: unexpected {kind.__name__}", Pos(file, 1, 1))
        if kind is ev.ScalarEvent and event.anchor is not None:
            anchors[event.anchor] = node
        if not stack:
            root = node
            break
        top = stack[-1]
        parent = top[0]
        if type(parent) is nodes.SequenceNode:
            parent.value.append(node)
        elif top[1] is None:
            top[1] = node
        else:
            parent.value.append((top[1], node))
            top[1] = None
    loader.get_event()  # DocumentEndEvent
    if not loader.check_event(ev.StreamEndEvent):
        extra = loader.peek_event()
        raise GradcliError(
            "the file holds more than one YAML document (a second '---'); a spec is one document",
            _pos(file, extra.start_mark),
        )
    return root

"""Values that left the framework (`.item()`, `.numpy()`, `.tolist()`), kept so that a
tensor later built from that very Python object (`torch.tensor([a, b])`, `tf.constant`) is
a data-flow edge back to where the value left: an identity match, never a guess."""

from __future__ import annotations

MAX_EXITS = 10_000  # Python values kept (the oldest go first)
MAX_SCAN = 256  # items of a list looked at


class ExitedValues:
    """id(Python value) -> (the value, held so its id stays its own; the EXIT op index)."""

    def __init__(self):
        self.kept: dict[int, tuple] = {}

    def keep(self, out, index) -> None:
        """Remember a value (and a list's items) that the EXIT operation `index` made (a
        tuple of them: made from several)."""
        for value in [out, *(out[:MAX_SCAN] if isinstance(out, list) else ())]:
            if len(self.kept) >= MAX_EXITS:
                self.kept.pop(next(iter(self.kept)))
            self.kept[id(value)] = (value, index)

    def found_in(self, data, depth: int = 3) -> tuple:
        """The EXIT operations whose very values `data` holds (nested lists, bounded)."""
        found = []
        stack = [(data, depth)]
        while stack:
            obj, left = stack.pop()
            entry = self.kept.get(id(obj))
            if entry is not None and entry[0] is obj and not isinstance(obj, (bool, int)):
                index = entry[1]  # one EXIT op, or several (a NumPy result of many)
                found.extend(index if isinstance(index, tuple) else (index,))
            elif left and isinstance(obj, (list, tuple)):
                stack.extend((item, left - 1) for item in obj[:MAX_SCAN])
        return tuple(dict.fromkeys(found))

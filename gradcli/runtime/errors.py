"""Errors gradcli reports to its users, each tied to a spec position when there is one."""

from __future__ import annotations

from typing import NamedTuple

MAX_MESSAGE = 2000  # characters of an error line: a message quoting a huge input stays readable


class Pos(NamedTuple):
    """A position in a spec file or expression: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class GradcliError(Exception):
    """A problem with the user's input: reported as one line, exit status 2."""

    def __init__(self, message: str, pos: Pos | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos else self.message


class LimitError(GradcliError):
    """A resource limit (elements, nodes, nesting) would be exceeded."""


def did_you_mean(name: str, candidates) -> str:
    """A ' (did you mean 'x'?)' suffix when a close candidate exists, else ''."""
    import difflib

    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""

"""gradcli's exit statuses, defined once for every command and the error handling."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The documented exit statuses (`gradcli --help`, README)."""

    OK = 0
    FINDING = 1  # a None or zero gradient for explain, a gradient check disagrees
    BAD_INPUT = 2  # bad input or usage
    INTERNAL = 70  # an internal error: a bug in gradcli
    INTERRUPTED = 130  # Ctrl-C

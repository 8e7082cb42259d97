"""Files a command writes besides its output (explain --html FILE): refused before the
work starts when they cannot be written, written whole at the end."""

from __future__ import annotations

import os

from gradcli.runtime.errors import GradcliError


def check_writable(path: str, flag: str) -> None:
    """Exit 2 with one line when path cannot be written (checked before any work)."""
    if not path:
        raise GradcliError(f"{flag} needs a file name")
    if os.path.isdir(path):
        raise GradcliError(f"cannot write {path}: it is a directory")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise GradcliError(f"cannot write {path}: no such directory {folder}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise GradcliError(f"cannot write {path}: permission denied")
    if not os.path.exists(path) and not os.access(folder, os.W_OK):
        raise GradcliError(f"cannot write {path}: permission denied in {folder}")


def prepare_html(path: str | None, *inputs: str | None) -> None:
    """explain --html FILE: Graphviz's dot is on PATH and FILE can be written (and is not
    one of the command's own input files), or exit 2."""
    if path is None:
        return
    from gradcli.views.svg import find_dot

    check_writable(path, "--html")
    not_an_input(path, "--html", *inputs)
    find_dot()


def not_an_input(path: str | None, flag: str, *inputs: str | None) -> None:
    """Exit 2 with one line when the file a command would write is one of its inputs."""
    for given in inputs:
        both = path and given and given != "-" and os.path.exists(given) and os.path.exists(path)
        if both and os.path.samefile(given, path):
            raise GradcliError(f"{flag} {path} would overwrite the input {given}")


def write_text(path: str, text: str) -> None:
    """Write text to a file, or exit 2 with one line saying why it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise GradcliError(f"cannot write {path}: {exc.strerror or exc}") from None

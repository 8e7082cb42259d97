"""What every command shares: reading SPEC or -e, applying --at/--wrt, choosing a format."""

from __future__ import annotations

import sys

from gradcli.cli.output import read_failed, stdin_binary
from gradcli.cli.tfcode_commands import is_tf_code
from gradcli.runtime.errors import GradcliError
from gradcli.spec.assembly import (
    Problem,
    build_problem,
    clip,
    override_inputs,
    parse_value,
    spec_from_expression,
)


def parse_at(pairs) -> dict:
    """--at NAME=VALUE options as {name: array}; @FILE or @FILE:KEY reads a .npy/.npz."""
    values = {}
    for pair in pairs or ():
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise GradcliError(
                f"--at {clip(pair)}: expected NAME=VALUE, e.g. --at x=2 or --at 'w=[1, 2]'"
            )
        if name in values:
            raise GradcliError(f"--at {name} is given twice")
        if text.lstrip().startswith(FILE_PREFIX):
            values[name] = _from_file(name, text.strip()[len(FILE_PREFIX) :])
        else:
            values[name] = parse_value(text, f"--at {name}")
    return values


FILE_PREFIX = "@"  # --at w=@w.npy, --at w=@ckpt.npz:dense/kernel


def _from_file(name: str, reference: str):
    """--at NAME=@FILE[:KEY]: the array in a .npy file or an .npz archive's member."""
    from gradcli.spec import array_files

    if not reference:
        raise GradcliError(f"--at {name}=@: give a file, @w.npy or @ckpt.npz:KEY")
    path, key = array_files.split_reference(reference)
    try:
        return array_files.load(path, key, path)
    except GradcliError as exc:
        raise type(exc)(f"--at {name}: {exc.message}") from None


def parse_names(options) -> list[str] | None:
    """--wrt x,y (repeatable) as a list of names, or None when not given."""
    if not options:
        return None
    names = [n.strip() for opt in options for n in opt.split(",")]
    names = [n for n in names if n]
    if not names:
        raise GradcliError("--wrt needs at least one name")
    return list(dict.fromkeys(names))  # results are keyed by name: x,x,y is x,y


MAX_SPEC_BYTES = 64 * 2**20  # a spec is text a person or a generator writes; /dev/zero is not


def _read_bounded(stream, label: str) -> bytes:
    try:
        data = stream.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise read_failed(label, exc) from None
    if len(data) > MAX_SPEC_BYTES:
        _literal_over_limit(data[:MAX_SPEC_BYTES], label)
        raise GradcliError(
            f"{label} is larger than {MAX_SPEC_BYTES // 2**20} MB; give big tensors as "
            "zeros/ones/random inputs or with --at"
        )
    return data


def read_spec_bytes(path: str) -> tuple[bytes, str]:
    """The raw bytes of SPEC ('-' for stdin) and the label errors use for it."""
    if path == "-":
        return _read_bounded(stdin_binary(), "<stdin>"), "<stdin>"
    try:
        with open(path, "rb") as fh:
            return _read_bounded(fh, path), path
    except IsADirectoryError:
        raise GradcliError(f"cannot read {path}: it is a directory") from None
    except OSError as exc:
        raise GradcliError(f"cannot read {path}: {exc.strerror or exc}") from None


def _literal_over_limit(start: bytes, label: str) -> None:
    """Raise the literal limit's error (with its position) when the start of a spec too
    long to read holds a flow list over --max-elements: the more telling of the two."""
    from gradcli.spec.document import decode
    from gradcli.spec.safe_yaml import literal_over_limit

    for cut in range(4):  # the cut may split a character (of up to four bytes)
        try:
            text = decode(start[: len(start) - cut], label)
            break
        except GradcliError:
            continue
    else:
        return
    error = literal_over_limit(text, label)
    if error is not None:
        raise error


def load_problem(spec_path, expr, at, wrt, unconnected) -> Problem:
    """The problem a command was asked about: SPEC or -e, with --at, --wrt, --unconnected."""
    from gradcli.runtime.gcpause import paused
    from gradcli.spec.reader import load_spec

    if spec_path and expr:
        raise GradcliError("give either a SPEC file or -e EXPRESSION, not both")
    if not spec_path and expr is None:
        raise GradcliError("no spec: give a SPEC file ('-' for stdin) or -e EXPRESSION")
    if is_tf_code(spec_path, None):
        raise GradcliError(
            f"{spec_path} ends in .py: it is read as TensorFlow code without --lang spec"
        )
    values = parse_at(at)
    with paused(lasting=True):
        if expr is not None:
            spec = spec_from_expression(expr, values)
        else:
            data, label = read_spec_bytes(spec_path)
            spec = override_inputs(load_spec(data, label), values)
        return build_problem(spec, wrt=parse_names(wrt), unconnected=unconnected)


def choose_format(fmt: str | None) -> str:
    """The requested format, or table on a terminal and plain otherwise."""
    if fmt:
        return fmt
    return "table" if sys.stdout.isatty() else "plain"

"""Python source to an `ast` tree: decoding and syntax errors as positioned gradcli errors."""

from __future__ import annotations

import ast

from gradcli.runtime.errors import GradcliError, Pos


def parse(data: bytes, file: str) -> tuple[ast.Module, list[str]]:
    """The module's tree and its lines; nothing is compiled to bytecode or run."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradcliError(f"{file} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        tree = ast.parse(text, filename=file)
    except SyntaxError as exc:
        pos = Pos(file, exc.lineno or 1, exc.offset or 1)
        raise GradcliError(f"Python syntax error: {exc.msg}", pos) from None
    except (ValueError, MemoryError) as exc:  # NUL bytes; absurd nesting
        raise GradcliError(f"{file}: cannot parse as Python ({exc})") from None
    except RecursionError:
        raise GradcliError(f"{file}: the code is nested too deeply to read") from None
    return tree, text.splitlines()

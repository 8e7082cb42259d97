"""What real PyTorch does with one thread script of tests/data/torch_threads: the manifest's
`pytorch` block (each name's .grad after the script ran or raised, the error it raised, the
warnings it emitted, extra checks), printed as JSON. Run without gradcli:

    /work/venv/bin/python tools/torch_thread_facts.py FILE.py NAME... [--check EXPR ...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import traceback
import warnings
from pathlib import Path


def classify(value) -> str:
    """`None`, `zeros`, `nan`, `inf` or `value` for a gradient (or the tensor a name gives)."""
    import torch

    if value is None:
        return "None"
    if not isinstance(value, torch.Tensor):
        return "value"
    t = value.detach().double()
    if torch.isnan(t).any():
        return "nan"
    if torch.isinf(t).any():
        return "inf"
    return "zeros" if bool((t == 0).all()) else "value"


def run(path: Path, names: list[str], checks: list[str]) -> dict:
    """Execute the script as `python FILE` would and read the facts afterwards."""
    import torch

    namespace = {"__name__": "__main__", "__file__": str(path)}
    raised = None
    here = str(path.resolve())
    os.chdir(path.parent)
    sys.argv = [str(path)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(sys.stderr):  # the script's prints stay off the JSON
                exec(compile(path.read_bytes(), here, "exec"), namespace)
        except Exception as exc:  # the thread's own error is one of the facts
            frames = traceback.extract_tb(exc.__traceback__)
            lines = [f.lineno for f in frames if f.filename == here]
            raised = {
                "type": type(exc).__name__,
                "message": str(exc).splitlines()[0] if str(exc) else "",
                "line": lines[-1] if lines else None,
                "top_line": lines[0] if lines else None,
            }
    torch.set_grad_enabled(True)
    grads = {}
    for name in names:
        try:
            # `net.0.weight` as gradcli names it is `net[0].weight` in Python
            obj = eval(re.sub(r"\.(\d+)(?=\.|$|\[)", r"[\1]", name), namespace)
        except Exception as exc:
            grads[name] = f"error: {exc}"
            continue
        if ".grad" in name:
            grads[name] = classify(obj)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                grads[name] = classify(obj.grad)
    facts = {"grads": grads, "raises": raised}
    if checks:
        facts["checks"] = {c: eval(c, namespace) for c in checks}
    seen = [
        {"message": str(w.message).splitlines()[0][:160], "line": w.lineno}
        for w in caught
        if w.filename == here
    ]
    if seen:
        facts["warnings"] = seen
    return facts


def main() -> None:
    """Print the facts of one script."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--check", action="append", default=[])
    args = parser.parse_args()
    print(json.dumps(run(args.file, args.names, args.check), indent=1, default=str))


if __name__ == "__main__":
    main()

"""How long the cross-check takes, and which method it ends up using, on growing graphs.

    python benchmarks/check_budget.py [--quick]

Each case runs `gradcli check --format json` (and `gradcli eval` with `--check auto` and
`--check off`) in its own process and prints the wall-clock seconds, the method and the
fallback reason. The point: SymPy is used while the expression is small, finite
differences beyond, and no case takes much longer than the evaluation itself plus the
SymPy time budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time


def chain(n: int) -> str:
    lines = ["inputs:", "  x0: 0.5", "graph:"]
    lines += [f"  x{i}: sin(x{i - 1}) * 0.5 + 0.25" for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


def reuse(n: int) -> str:
    """x_i = x_{i-1} * x_{i-1}: a tree of 2**n nodes once flattened."""
    lines = ["inputs:", "  x0: 0.5", "graph:"]
    lines += [f"  x{i}: x{i - 1} * x{i - 1} * 0.5 + 0.25" for i in range(1, n + 1)]
    return "\n".join(lines) + "\n"


def nested_sines(n: int) -> str:
    lines = ["inputs:", "  x: 0.3", "graph:", "  y0: sin(x)"]
    lines += [f"  y{i}: sin(y{i - 1} * x + {i})" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def gradcli() -> list[str]:
    script = os.path.join(os.path.dirname(sys.executable), "gradcli")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "gradcli"]


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True)
    return time.perf_counter() - start, proc.stdout


def main() -> None:
    quick = "--quick" in sys.argv
    cases = [
        ("chain 30", chain(30)),
        ("chain 100", chain(100)),
        ("chain 1,000", chain(1000)),
        ("nested sines 60", nested_sines(60)),
        ("reuse 40", reuse(40)),
    ]
    if not quick:
        cases.append(("chain 100,000", chain(100_000)))
    print(f"{'case':<18} {'check s':>8} {'eval s':>8} {'eval off s':>10}  method (reason)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in cases:
            path = os.path.join(tmp, "spec.yaml")
            with open(path, "w") as fh:
                fh.write(text)
            check_s, out = timed([*gradcli(), "check", path, "--format", "json"])
            doc = json.loads(out)
            eval_s, _ = timed([*gradcli(), "eval", path, "--format", "plain"])
            off_s, _ = timed([*gradcli(), "eval", path, "--format", "plain", "--check", "off"])
            how = doc["method"] + (f" ({doc['reason']})" if doc["reason"] else "")
            print(f"{name:<18} {check_s:8.2f} {eval_s:8.2f} {off_s:10.2f}  {how}")


if __name__ == "__main__":
    main()

"""The fast paths import nothing heavy: sympy and the check modules stay out of
`gradcli --help` and `gradcli eval --check off` (the startup target of benchmarks/run.py),
and explain's NaN/Inf analysis out of an eval whose values are all finite."""

import subprocess
import sys

from helpers import spec

SCRIPT = (
    "import sys\n"
    "from gradcli.cli.main import cli\n"
    "cli.main(sys.argv[1:], prog_name='gradcli', standalone_mode=False)\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'sympy' "
    "or m.startswith('gradcli.check') or m in ('gradcli.views.check_report', 'rich.table', "
    "'gradcli.explain.nonfinite'))\n"
    "print('HEAVY', heavy, file=sys.stderr)\n"
)


def loaded(*args):
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120
    )
    line = [x for x in out.stderr.splitlines() if x.startswith("HEAVY")]
    assert line, out.stderr
    return line[0]


def test_eval_check_off_json_imports_no_sympy_and_no_check():
    assert loaded("eval", spec("quadratic.yaml"), "--check", "off", "--format", "json") == (
        "HEAVY []"
    )


def test_help_imports_no_sympy():
    assert loaded("--help") == "HEAVY []"


def test_help_imports_no_numpy():
    # the group imports every command module to list it: they must stay light at import
    script = (
        "import sys\n"
        "from gradcli.cli.main import cli\n"
        "cli.main(['--help'], prog_name='gradcli', standalone_mode=False)\n"
        "print('NUMPY', 'numpy' in sys.modules, file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert "NUMPY False" in out.stderr, out.stderr


def test_eval_of_a_non_finite_value_imports_the_analysis(tmp_path):
    path = tmp_path / "log.yaml"
    path.write_text("inputs:\n  x: [0.0, 1.0]\ngraph:\n  y: sum(log(x))\n")
    line = loaded("eval", str(path), "--check", "off", "--format", "json")
    assert line == "HEAVY ['gradcli.explain.nonfinite']"

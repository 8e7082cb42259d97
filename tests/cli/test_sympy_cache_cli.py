"""The cache of SymPy's derivatives through the command line, in fresh processes (the SymPy
worker is a real subprocess there): a miss, then a hit that never imports SymPy; damaged
entries ignored and rewritten; an unwritable directory; --no-cache; closed streams."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers import spec

from gradcli.check.cache import ENTRY_PREFIX, HINT_PREFIX, decode, encode

SCRIPT = (
    "import sys\n"
    "from gradcli.cli.main import cli\n"
    "code = cli.main(sys.argv[1:], prog_name='gradcli', standalone_mode=False)\n"
    "from gradcli.check import session\n"
    "outcome = session.LAST.outcome if session.LAST is not None else None\n"
    "print('OUTCOME', outcome, 'sympy' in sys.modules, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(cache_dir, *args, script=True):
    """(exit status, stdout, stderr lines without OUTCOME, outcome, SymPy imported)."""
    env = {**os.environ, "GRADCLI_CACHE_DIR": str(cache_dir)}
    cmd = [sys.executable, "-c", SCRIPT, *args] if script else [sys.executable, "-m", "gradcli"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    lines = out.stderr.splitlines()
    found = [x.split() for x in lines if x.startswith("OUTCOME")]
    rest = [x for x in lines if not x.startswith("OUTCOME")]
    outcome, imported = (found[0][1], found[0][2] == "True") if found else (None, None)
    return out.returncode, out.stdout, rest, outcome, imported


def entries(cache_dir) -> list[str]:
    return sorted(n for n in os.listdir(cache_dir) if n.startswith(ENTRY_PREFIX))


def test_a_spec_seen_before_is_checked_without_importing_sympy(tmp_path):
    args = ("eval", spec("quadratic.yaml"), "--format", "json")
    code, first, err, outcome, _ = run(tmp_path, *args)
    assert (code, err, outcome) == (0, [], "miss")
    assert len(entries(tmp_path)) == 1
    assert any(n.startswith(HINT_PREFIX) for n in os.listdir(tmp_path))
    code, second, err, outcome, imported = run(tmp_path, *args)
    assert (code, err, outcome, imported) == (0, [], "hit", False)
    assert second == first
    doc = json.loads(second)
    assert doc["check"]["method"] == "sympy" and doc["check"]["ok"]
    # another point: the same structure and translation, so the same entry
    code, third, err, outcome, imported = run(tmp_path, *args, "--at", "x=5")
    assert (code, outcome, imported) == (0, "hit", False)
    assert json.loads(third)["gradients"]["x"]["value"] == 13.0


def test_a_kink_on_the_other_side_is_another_variant(tmp_path):
    args = ("eval", "-e", "relu(x) * x", "--format", "json")
    assert run(tmp_path, *args, "--at", "x=2")[3] == "miss"
    assert run(tmp_path, *args, "--at", "x=3")[3] == "hit"
    code, out, _, outcome, _ = run(tmp_path, *args, "--at", "x=-2")
    assert (code, outcome) == (0, "miss")  # relu is the constant 0 there: another derivative
    assert json.loads(out)["check"]["ok"]
    assert run(tmp_path, *args, "--at", "x=-1")[3] == "hit"
    assert run(tmp_path, *args, "--at", "x=1")[3] == "hit"  # both variants kept
    (name,) = entries(tmp_path)
    key = name[len(ENTRY_PREFIX) : -len(".txt")]
    assert len(decode((tmp_path / name).read_text(), key)) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"\x00garbage" * 50,
        lambda data: data[: len(data) // 2],
        lambda data: data.replace(b"= 2 * a3 + 3", b"= __import__('os')"),
        lambda data: data.replace(b"= 2 * a3 + 3", b"= 2 * a3 + 4"),  # checksum mismatch
    ],
)
def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path, damage):
    args = ("eval", spec("quadratic.yaml"), "--format", "json")
    code, clean, _, _, _ = run(tmp_path, *args)
    (name,) = entries(tmp_path)
    path = tmp_path / name
    good = path.read_bytes()
    path.write_bytes(damage(good))
    code, out, err, outcome, _ = run(tmp_path, *args)
    assert (code, err, outcome) == (0, [], "miss")
    assert out == clean
    assert path.read_bytes() == good  # rewritten
    assert run(tmp_path, *args)[3] == "hit"


@pytest.mark.parametrize(
    "expr",
    ["__import__('os').system('false')", "a9", "2 * b3", "exp(a3).real", "open('x')", "2 * a3"],
)
def test_a_well_formed_entry_with_a_bad_expression_is_ignored(tmp_path, expr):
    # a valid checksum and key, but an expression that is not a derivative gradcli wrote
    args = ("eval", spec("quadratic.yaml"), "--format", "json")
    _, clean, _, _, _ = run(tmp_path, *args)
    (name,) = entries(tmp_path)
    key = name[len(ENTRY_PREFIX) : -len(".txt")]
    (variant,) = decode((tmp_path / name).read_text(), key)
    variant.exprs = [expr]
    if expr == "2 * a3":  # readable, but the spec has one target of one element
        variant.targets = [(0, 2)]
        variant.exprs = [expr, expr]
    (tmp_path / name).write_text(encode(key, [variant]))
    code, out, err, outcome, _ = run(tmp_path, *args)
    assert (code, err, outcome, out) == (0, [], "miss", clean)
    assert run(tmp_path, *args)[3] == "hit"


def test_a_foreign_entry_is_ignored(tmp_path):
    a = ("eval", "-e", "x * x", "--at", "x=2", "--format", "json")
    b = ("eval", "-e", "sin(x)", "--at", "x=2", "--format", "json")
    run(tmp_path, *a)
    (entry_a,) = entries(tmp_path)
    run(tmp_path, *b)
    (entry_b,) = [n for n in entries(tmp_path) if n != entry_a]
    (tmp_path / entry_b).write_bytes((tmp_path / entry_a).read_bytes())  # x*x's under sin's key
    code, out, _, outcome, _ = run(tmp_path, *b)
    assert (code, outcome) == (0, "miss")
    assert json.loads(out)["check"]["ok"]


def test_an_unwritable_cache_directory_disables_caching_quietly(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    args = ("eval", spec("quadratic.yaml"), "--format", "json")
    code, out, err, outcome, _ = run(blocker / "cache", *args)
    assert (code, err, outcome) == (0, [], "miss")
    assert json.loads(out)["check"]["ok"]
    if hasattr(os, "geteuid") and os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        try:
            code, out2, err, outcome, _ = run(locked, *args)
            assert (code, err, outcome, out2) == (0, [], "miss", out)
            assert os.listdir(locked) == []
        finally:
            locked.chmod(0o700)


def test_no_cache_neither_reads_nor_writes(tmp_path):
    args = ("eval", spec("two_inputs.yaml"), "--format", "json")
    code, out, err, outcome, _ = run(tmp_path, *args, "--no-cache")
    assert (code, err, outcome) == (0, [], "uncached")
    assert os.listdir(tmp_path) == []
    run(tmp_path, *args)
    code, again, _, outcome, _ = run(tmp_path, *args, "--no-cache")
    assert (outcome, again) == ("uncached", out)
    code, _, _, outcome, _ = run(tmp_path, "check", spec("two_inputs.yaml"), "--no-cache")
    assert (code, outcome) == (0, "uncached")


def test_check_uses_the_cache_too(tmp_path):
    args = ("check", spec("tutorial_z.yaml"), "--format", "json")
    code, first, _, outcome, _ = run(tmp_path, *args)
    assert (code, outcome) == (0, "miss")
    code, second, _, outcome, imported = run(tmp_path, *args)
    assert (code, outcome, imported, second) == (0, "hit", False, first)


def test_closed_standard_streams_do_not_reach_the_worker(tmp_path):
    # stdin and stderr closed: the worker has its own pipes, and writes nowhere else
    cmd = [sys.executable, "-m", "gradcli", "eval", spec("quadratic.yaml"), "--format", "json"]
    env = {**os.environ, "GRADCLI_CACHE_DIR": str(tmp_path)}
    for _ in range(2):  # a miss, then a hit
        out = subprocess.run(
            ["bash", "-c", 'exec "$@" 0<&- 2>&-', "bash", *cmd],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert out.returncode == 0
        assert json.loads(out.stdout)["check"]["method"] == "sympy"
    assert len(entries(tmp_path)) == 1


def test_a_worker_out_of_time_falls_back_as_before(tmp_path):
    env_args = ("--sympy-timeout", "0.0001", "eval", "-e", "exp(sin(x)) * x", "--at", "x=0.5")
    code, out, err, outcome, _ = run(tmp_path, *env_args, "--format", "json")
    assert (code, err, outcome) == (0, [], "miss")
    check = json.loads(out)["check"]
    assert check["method"] == "fd" and check["fallback"]
    assert check["reason"] == "SymPy did not finish within 0.0001 s (GRADCLI_SYMPY_TIMEOUT)"
    assert entries(tmp_path) == []


@pytest.mark.parametrize("check", ["auto", "off"])
def test_a_spec_read_through_a_pipe_keeps_its_bytes_for_the_reader(tmp_path, check):
    # `gradcli eval <(cat spec.yaml)`: the cache's hint must not read the pipe first
    with open(spec("quadratic.yaml"), "rb") as f:
        text = f.read()
    r, w = os.pipe()
    try:
        os.write(w, text)
        os.close(w)
        w = -1
        env = {**os.environ, "GRADCLI_CACHE_DIR": str(tmp_path)}
        out = subprocess.run(
            [sys.executable, "-m", "gradcli", "eval", f"/dev/fd/{r}", "--check", check],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            pass_fds=(r,),
        )
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
    assert (out.returncode, out.stderr) == (0, "")
    assert "x" in out.stdout


def test_the_hint_of_a_fifo_is_none_and_does_not_block(tmp_path):
    from gradcli.check.session import _hint

    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    assert _hint(str(fifo), None) is None  # opening it would wait for a writer
    assert _hint(str(tmp_path / "missing.yaml"), None) is None
    assert _hint("bad\0path", None) is None

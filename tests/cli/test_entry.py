"""The console script's early SymPy worker (cli/entry.py): its reading of argv agrees with
click's wherever it starts a worker, knows every option of eval and check, and starts
nothing for what it does not recognise; check/session adopts the worker only for the
arguments it was started for."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest
from helpers import spec
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli.check import session
from gradcli.check.cache import ENTRY_PREFIX, Cache
from gradcli.cli import entry
from gradcli.cli.main import cli

COMMANDS = ("eval", "check")


def _options(command: click.Command) -> tuple[set[str], set[str]]:
    """(options taking a value, flags) of one click command, --help included."""
    values, flags = set(), set()
    for param in command.params:
        if isinstance(param, click.Option):
            names = {*param.opts, *param.secondary_opts}
            (flags if param.is_flag or param.count else values).update(names)
    flags.update(cli.context_settings["help_option_names"])
    return values, flags


def test_the_table_knows_every_option_of_eval_and_check():
    values, flags = set(), set()
    for name in COMMANDS:
        v, f = _options(cli.commands[name])
        values |= v
        flags |= f
    assert values == entry.VALUE_OPTIONS
    assert flags == entry.FLAGS
    assert entry.NO_WORKER.issubset(values | flags)
    for name, option in entry.METHOD_OPTION.items():
        assert option in _options(cli.commands[name])[0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["eval", "s.yaml"], ("s.yaml", None, True)),
        (["eval", "s.yaml", "--format", "json", "--at", "x=-1"], ("s.yaml", None, True)),
        (["eval", "--check=sympy", "s.yaml"], ("s.yaml", None, True)),
        (["eval", "-", "--no-cache"], ("-", None, False)),
        (["eval", "-e", "-x * x", "--at", "x=2"], (None, "-x * x", True)),
        (["eval", "--expr=sin(x)"], (None, "sin(x)", True)),
        (["eval", "s.yaml", "--save", "out.npz"], ("s.yaml", None, True)),
        (["check", "s.yaml", "--rtol", "1e-6"], ("s.yaml", None, True)),
        (["check", "s.yaml", "--method", "sympy"], ("s.yaml", None, True)),
        # the check runs no SymPy worker
        (["eval", "s.yaml", "--check", "off"], None),
        (["eval", "s.yaml", "--check=fd"], None),
        (["check", "s.yaml", "--method", "fd"], None),
        (["eval", "s.yaml", "--symbolic"], None),
        (["eval", "s.yaml", "--points", "p.csv"], None),
        (["eval", "model.py"], None),
        (["eval", "s.yaml", "--lang", "spec"], None),
        (["eval", "s.yaml", "--help"], None),
        (["graph", "s.yaml"], None),
        ([], None),
        # not recognised: click decides, nothing starts early
        (["--max-nodes", "10", "eval", "s.yaml"], None),
        (["eval", "s.yaml", "--"], None),
        (["eval", "-ex*x"], None),
        (["eval", "s.yaml", "--frobnicate"], None),
        (["eval", "s.yaml", "--at"], None),
        (["eval", "a.yaml", "b.yaml"], None),
        (["eval", "s.yaml", "--no-cache=yes"], None),
    ],
)
def test_the_reading_of_argv(args, expected):
    assert entry.sympy_spec(args) == expected


TOKENS = st.sampled_from(
    [
        *sorted(entry.VALUE_OPTIONS | entry.FLAGS),
        "--check=off",
        "--check=auto",
        "--expr=x*x",
        "-",
        "--",
        "s.yaml",
        "t.yaml",
        "m.py",
        "x*x",
        "x=-1",
        "auto",
        "sympy",
        "off",
        "fd",
        "json",
        "-1",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(COMMANDS), st.lists(TOKENS, max_size=7))
def test_where_it_starts_a_worker_click_reads_the_same_arguments(name, tokens):
    guess = entry.sympy_spec([name, *tokens])
    if guess is None:
        return
    command = cli.commands[name]
    try:
        ctx = command.make_context(name, list(tokens), resilient_parsing=False)
    except click.ClickException:
        return  # click refuses the line: the worker is stopped unused (test below)
    params = ctx.params
    assert (params["spec"], params["expr"], not params["no_cache"]) == guess
    method = params["check" if name == "eval" else "method"]
    assert method in entry.SYMPY_METHODS
    assert not params["symbolic"] and params["lang"] is None
    assert params.get("points") is None


def _fresh_command(tmp_path, monkeypatch):
    """As in a command's process: an empty cache, SymPy not imported (else no worker)."""
    monkeypatch.setenv("GRADCLI_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(sys.modules, "sympy", raising=False)


def test_session_adopts_the_worker_started_for_the_same_arguments(tmp_path, monkeypatch):
    _fresh_command(tmp_path, monkeypatch)
    path = spec("quadratic.yaml")
    session.start_ahead(path, None, True)
    ahead = session._AHEAD[1]
    begun = session.begin(path, None, use_cache=True)
    try:
        assert begun.worker is ahead
        assert session._AHEAD is None
    finally:
        begun.close()


def test_a_worker_started_for_other_arguments_is_stopped(tmp_path, monkeypatch):
    _fresh_command(tmp_path, monkeypatch)
    path = spec("quadratic.yaml")
    session.start_ahead(path, None, True)
    ahead = session._AHEAD[1].proc
    begun = session.begin(path, None, use_cache=False)
    try:
        assert ahead.poll() is not None  # stopped and reaped
        assert begun.worker is not None and begun.worker.proc is not ahead
    finally:
        begun.close()
    session.start_ahead(path, None, True)
    unused = session._AHEAD[1].proc
    session.drop_ahead()
    assert unused.poll() is not None and session._AHEAD is None


def test_a_spec_seen_before_starts_no_worker_ahead(tmp_path, monkeypatch):
    _fresh_command(tmp_path, monkeypatch)
    path = spec("quadratic.yaml")
    hint = session._hint(path, None)
    Cache(str(tmp_path)).hint(hint)
    session.start_ahead(path, None, True)
    assert session._AHEAD is None


def _run_entry(tmp_path, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRADCLI_CACHE_DIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_the_console_script_checks_with_the_worker_it_started(tmp_path):
    out = _run_entry(tmp_path, "eval", spec("quadratic.yaml"), "--format", "json")
    assert (out.returncode, out.stderr) == (0, "")
    doc = json.loads(out.stdout)
    assert doc["check"]["method"] == "sympy" and doc["check"]["ok"]
    assert any(n.startswith(ENTRY_PREFIX) for n in os.listdir(tmp_path))


def test_the_console_script_reports_bad_input_with_a_worker_started(tmp_path):
    out = _run_entry(tmp_path, "eval", str(tmp_path / "missing.yaml"))
    assert out.returncode == 2
    assert out.stderr.startswith("gradcli: error: ") and out.stderr.count("\n") == 1


def test_check_off_through_the_console_script_imports_no_check(tmp_path):
    script = (
        "import sys\n"
        "from gradcli.cli import entry\n"
        "sys.argv = ['gradcli', *sys.argv[1:]]\n"
        "try:\n"
        "    entry.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('CHECK', sorted(m for m in sys.modules if m.startswith('gradcli.check')), "
        "file=sys.stderr)\n"
    )
    args = ["eval", spec("quadratic.yaml"), "--check", "off", "--format", "json"]
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    assert "CHECK []" in out.stderr, out.stderr

"""The cache of SymPy's derivatives, piece by piece: the text form of lambdify's code and
its evaluation without SymPy (program.py), the entry format and what reading refuses
(cache.py), the translation's fingerprint (tracer.py), and the worker started ahead
(worker.py). The check's results with and without the cache: test_cache_equivalence.py;
through the command line: tests/cli/test_sympy_cache_cli.py."""

from __future__ import annotations

import inspect
import os
import time

import numpy as np
import pytest
import sympy as sp

from gradcli import api
from gradcli.check import cache as cache_mod
from gradcli.check import program
from gradcli.check.cache import Cache, Variant, decode, directory, encode
from gradcli.check.conventions import forward_values
from gradcli.check.run import run_check
from gradcli.check.session import Session
from gradcli.check.tracer import fingerprint
from gradcli.check.worker import Worker
from gradcli.runtime import budget

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
EXPRESSIONS = [
    2 * X + 3,
    sp.exp(-X * X) * sp.sin(Y) / (1 + Y**2),
    X ** sp.Rational(1, 3) + X**-1 + sp.sqrt(X) * sp.pi,
    sp.Piecewise((X, X > 0), (0, True)),
    sp.Max(X, Y, 1) + sp.Min(X, 2),
    sp.erf(X) + sp.erfc(Y) + sp.atan2(X, Y),
    sp.tanh(X) ** 2 - sp.log(1 + Y) * sp.E + sp.Float(0.1, 17) * X,
    sp.Heaviside(X) * sp.Abs(Y) * sp.sign(X),
    sp.Integer(0),
    -X,
]


def lambdified(exprs, symbols):
    fn = sp.lambdify(symbols, exprs, modules="numpy", dummify=True, cse=False)
    return fn, inspect.getsource(fn)


def test_program_reproduces_lambdify_bit_for_bit():
    fn, source = lambdified(EXPRESSIONS, [X, Y])
    texts = program.from_lambdified(fn, source)
    assert texts[0] == "2 * a0 + 3"
    trees = [program.parse(t, 2) for t in texts]
    rng = np.random.default_rng(0)
    points = [(0.5, -2.0), (0.0, -0.0), (3.0, 1e-300), (-1.5, 2.5)]
    points += [tuple(rng.uniform(-3, 3, 2)) for _ in range(20)]
    for point in points:
        with np.errstate(all="ignore"):
            want = np.array([program.real(v) for v in fn(*map(np.float64, point))])
        got = program.values(trees, list(point))
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), (point, got, want)


def test_program_refuses_what_lambdify_binds_elsewhere():
    # polygamma's lambdify binding is SymPy's own evaluation: not reproducible without SymPy
    fn, source = lambdified([sp.polygamma(1, X), sp.besselj(0, X)], [X])
    with pytest.raises(program.Refused):
        program.from_lambdified(fn, source)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "a2",  # an argument beyond the count
        "a01",
        "b0",
        "exp(a0).real",
        "exp(a0, 1, 2)",
        "select([a0], [a1], default=nan, other=1)",
        "maximum(a0, a1)",  # only passed to reduce
        "reduce(exp, [a0])",
        "a0[0]",
        "a0 @ a1",
        "a0 < a1",
        "'text'",
        "open(a0)",
        "(" * 300 + "a0" + ")" * 300,  # deeper than the parser's bound
        "1e400",
    ],
)
def test_parse_refuses_anything_else(text):
    with pytest.raises(program.Refused):
        program.parse(text, 2)


def test_evaluation_is_iterative_on_long_chains():
    text = " + ".join(["a0 * 2"] * 20_000)
    tree = program.parse(text, 1)
    assert program.values([tree], [1.5])[0] == 60_000.0


# --- the entry format ---------------------------------------------------------------------
KEY = "ab" * 32
FP = "cd" * 32


def entry(**kw) -> Variant:
    args = {"fingerprint": FP, "nargs": 4, "targets": [(0, 2)], "exprs": ["2 * a3", "a3 - 1"]}
    return Variant(**{**args, **kw})


def test_entry_round_trip():
    text = encode(KEY, [entry(), entry(fingerprint="ef" * 32)])
    variants = decode(text, KEY)
    assert [v.fingerprint for v in variants] == [FP, "ef" * 32]
    assert variants[0].targets == [(0, 2)] and variants[0].exprs == ["2 * a3", "a3 - 1"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: t.replace("2 * a3", "3 * a3"),  # the checksum no longer matches
        lambda t: t[: len(t) // 2],  # truncated
        lambda t: t.replace(KEY, "00" * 32),  # another key: a foreign entry
        lambda t: t.replace("cache 1", "cache 2"),
        lambda t: "",
        lambda t: "\x00" * 100,
    ],
)
def test_damaged_entries_are_refused(damage):
    with pytest.raises((ValueError, IndexError)):
        decode(damage(encode(KEY, [entry()])), KEY)


def test_a_checksummed_entry_with_a_malformed_line_is_refused():
    import hashlib

    body = f"{cache_mod.HEADER}\nkey {KEY}\nvariant {FP}\nargs x\nend\n"
    text = body + f"sha256 {hashlib.sha256(body.encode()).hexdigest()}\n"
    with pytest.raises(ValueError):
        decode(text, KEY)


def test_cache_reads_back_what_it_wrote_and_ignores_bad_files(tmp_path):
    c = Cache(str(tmp_path / "c"))
    assert c.read(KEY) == []  # missing
    assert c.write(KEY, [entry()])
    assert oct(os.stat(tmp_path / "c").st_mode & 0o777) == "0o700"
    assert [v.fingerprint for v in c.read(KEY)] == [FP]
    path = c.entry_path(KEY)
    with open(path, "ab") as f:
        f.write(b"more\n")  # appended to: the checksum line is no longer last
    assert c.read(KEY) == []
    os.unlink(path)
    os.symlink(str(tmp_path / "elsewhere"), path)
    (tmp_path / "elsewhere").write_text(encode(KEY, [entry()]))
    assert c.read(KEY) == []  # a symbolic link is not followed
    os.unlink(path)
    (tmp_path / "c" / os.path.basename(path)).write_bytes(b"x" * (cache_mod.MAX_ENTRY_BYTES + 1))
    assert c.read(KEY) == []  # oversized
    assert not [n for n in os.listdir(tmp_path / "c") if n.startswith(".tmp-")]


def test_unwritable_or_impossible_directories_disable_caching_quietly(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    c = Cache(str(blocker / "cache"))  # its parent is a file: cannot be created, even by root
    assert not c.write(KEY, [entry()])
    c.hint("00" * 32)
    assert c.read(KEY) == [] and not c.hinted("00" * 32)


def test_eviction_keeps_the_most_recently_used(tmp_path):
    c = Cache(str(tmp_path))
    keys = [f"{k:064x}" for k in range(6)]
    for k, key in enumerate(keys):
        assert c.write(key, [entry()])
        os.utime(c.entry_path(key), (1000 + k, 1000 + k))
    os.utime(c.entry_path(keys[0]), (5000, 5000))  # a hit touches its entry
    c.evict(max_files=3)
    left = sorted(n for n in os.listdir(tmp_path) if n.startswith("sympy-"))
    assert left == sorted(os.path.basename(c.entry_path(k)) for k in (keys[0], keys[4], keys[5]))
    size = os.path.getsize(c.entry_path(keys[0]))
    c.evict(max_bytes=size)
    assert len(os.listdir(tmp_path)) == 1


def test_the_directory_follows_the_environment(tmp_path):
    assert directory({"GRADCLI_CACHE_DIR": "/x/y", "XDG_CACHE_HOME": "/z"}) == "/x/y"
    assert directory({"XDG_CACHE_HOME": "/z"}) == os.path.join("/z", "gradcli")
    home = os.path.join(os.path.expanduser("~"), ".cache", "gradcli")
    assert directory({"XDG_CACHE_HOME": "relative"}) == home  # XDG requires absolute paths
    assert directory({}) == home


# --- the fingerprint ---------------------------------------------------------------------
def problem_at(expr, **at):
    ev = api.grad(expr, {k: np.asarray(v, float) for k, v in at.items()})
    problem = ev.problem.scratch()
    return problem, forward_values(problem.graph, problem.outputs)


def test_fingerprint_ignores_smooth_values_and_sees_kinks():
    a = fingerprint(*problem_at("sin(x) * y + exp(x)", x=[0.5, 2.0], y=1.5))[0]
    b = fingerprint(*problem_at("sin(x) * y + exp(x)", x=[-3.0, 7.0], y=-2.0))[0]
    assert a == b
    c = fingerprint(*problem_at("relu(x) * y", x=[0.5, 2.0], y=1.5))[0]
    d = fingerprint(*problem_at("relu(x) * y", x=[1.5, 3.0], y=-1.0))[0]
    e = fingerprint(*problem_at("relu(x) * y", x=[-0.5, 2.0], y=1.5))[0]
    assert c == d != e
    f = fingerprint(*problem_at("stop_gradient(x) * x", x=2.0))[0]
    g = fingerprint(*problem_at("stop_gradient(x) * x", x=3.0))[0]
    assert f != g  # a frozen node is a constant at its value


def test_fingerprint_refuses_custom_functions():
    spec = (
        "inputs: {x: [1.0, -2.0]}\n"
        "functions:\n"
        "  twice:\n"
        "    params: [v]\n"
        "    body: v * 2\n"
        "    grad: [dy * 2]\n"
        "graph:\n"
        "  y: sum(twice(x))\n"
    )
    problem = api.grad(spec, {}, spec=True).problem.scratch()
    assert fingerprint(problem, forward_values(problem.graph, problem.outputs)) is None


# --- a check through a session ------------------------------------------------------------
def test_a_session_misses_then_hits_with_the_same_report(tmp_path):
    c = Cache(str(tmp_path))
    ev = api.grad("sum(tanh(w) * exp(-w * w))", {"w": np.array([0.3, -1.2, 2.0])})
    first = Session(c, None, "11" * 32)
    a = run_check(ev, "auto", session=first)
    assert first.outcome == "miss" and a.method == "sympy"
    assert c.hinted("11" * 32)
    second = Session(c, None, None)
    b = run_check(ev, "auto", session=second)
    assert second.outcome == "hit"
    assert np.array_equal(a.inputs["w"].reference, b.inputs["w"].reference)
    nocache = Session(None, None, None)
    run_check(ev, "auto", session=nocache)
    assert nocache.outcome == "uncached"


# --- the worker ---------------------------------------------------------------------------
def test_worker_runs_a_job_and_stops(tmp_path):
    w = Worker.start()
    assert w is not None
    ev = api.grad("x * x + 3 * x", {"x": np.float64(2.0)})
    session = Session(Cache(str(tmp_path)), w, None)
    report = run_check(ev, "sympy", session=session)
    assert report.method == "sympy" and report.inputs["x"].verdict == "agree"
    assert session.outcome == "miss"
    assert w.proc is None  # used and reaped
    assert len(list(tmp_path.glob("sympy-*"))) == 1  # the worker's program was stored


def test_worker_failures_read_as_the_forked_worker_s(tmp_path):
    import worker_jobs

    cases = [
        (worker_jobs.die, budget.WorkerFailed, "crash"),
        (worker_jobs.recurse, budget.WorkerFailed, "recursion"),
        (worker_jobs.fail, budget.WorkerFailed, "error"),
        (worker_jobs.sleep, budget.BudgetExceeded, None),
    ]
    for job, exc, kind in cases:
        w = Worker.start()
        started = time.monotonic()
        with pytest.raises(exc) as info:
            w.run((job, 0.5, None), 0.5)
        if kind is not None:
            assert info.value.kind == kind
        assert time.monotonic() - started < 30
        assert w.proc is None


def test_an_unused_worker_is_stopped():
    w = Worker.start()
    proc = w.proc
    w.close()
    assert proc.poll() is not None
    w.close()  # twice is fine


def test_the_worker_collects_garbage_again_after_importing_sympy():
    import worker_jobs

    w = Worker.start()
    assert w.run((worker_jobs.collector_state, 30.0, None), 30.0) == {
        "collecting": True,
        "sympy": True,
    }


def test_the_prewarm_is_skipped_only_when_the_job_is_already_there():
    from gradcli.check.worker import _job_waiting

    r, w = os.pipe()
    try:
        assert not _job_waiting(r)
        os.write(w, b"job")
        assert _job_waiting(r)
    finally:
        os.close(r)
        os.close(w)

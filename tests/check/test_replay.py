"""The SymPy worker's replay of a recorded translation (replay.py) gives the very texts the
full job gives, over every spec and the TensorFlow reference spread, without numpy."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from check_cases import EVALUATIONS

from gradcli import api
from gradcli.check import program, replay, tracer
from gradcli.check.conventions import forward_values, tree_size
from gradcli.check.program import CONSTANTS, FUNCTIONS
from gradcli.check.run import _sympy_work
from gradcli.runtime import limits

NAMES = [*FUNCTIONS, *CONSTANTS]


def _payload(ev):
    """(problem, values, the replay's payload), the payload None when the check would not
    use SymPy (too big) or the translation is not packed."""
    problem = ev.problem.scratch()
    values = forward_values(problem.graph, problem.outputs)
    if tree_size(problem.graph, problem.outputs) > limits.current.sympy_max_nodes:
        return problem, values, None
    traced = tracer.trace(problem, values)
    if traced is None:
        return problem, values, None
    return problem, values, replay.job(traced, problem, values, NAMES)


def _full_texts(problem, values):
    """The texts the full job (sympy_translation and lambdify's printer) writes, or the
    exception it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _sympy_work(
                problem,
                values,
                want_values=True,
                want_formulas=False,
                custom_ids=[],
                deadline=None,
                want_program=True,
            )
    except Exception as exc:
        return type(exc).__name__
    made = out.get("program")
    return None if made is None else made


def _replayed_texts(payload):
    try:
        nargs, texts, imports = replay.derivatives(payload)
        return nargs, program.checked_texts(texts, imports, nargs)
    except program.Refused:
        return None
    except Exception as exc:
        return type(exc).__name__


@pytest.mark.parametrize("name", list(EVALUATIONS))
def test_a_replay_prints_what_the_full_job_prints(name):
    ev = EVALUATIONS[name]()
    problem, values, payload = _payload(ev)
    if payload is None:
        return  # not recorded or not packed: the full job runs (test_cache_equivalence)
    pickle.loads(pickle.dumps(payload))  # plain data: it goes down the worker's pipe
    # every packed translation of the spread replays (measured: 240 of 240)
    assert _replayed_texts(payload) == _full_texts(problem, values)


def test_most_translations_are_packed():
    packed = sum(_payload(make())[2] is not None for make in EVALUATIONS.values())
    # measured: 240 of 275 (not: too big for SymPy, gamma's Function subclasses,
    # untraceable translations)
    assert packed >= 0.85 * len(EVALUATIONS)


def test_a_refused_replay_runs_the_full_job():
    ev = api.grad("sum(sin(x) * exp(x))", {"x": np.array([0.5, -1.0])})
    _, _, payload = _payload(ev)

    def full(deadline):
        return "the full job's result"

    kind, out = replay.answer(payload, full)
    assert kind == replay.REPLAYED and out[0] == 5  # nan, inf, -inf, then x[0], x[1]
    unknown = {**payload, "names": []}  # sin and exp are then names program.py lacks
    assert replay.answer(unknown, full) == (replay.FULL, "the full job's result")
    # the whole job's pickle, as the command's process sends it to the worker
    assert replay.answer(unknown, pickle.dumps(_Full())) == (replay.FULL, "pickled job")


class _Full:
    def __call__(self, deadline):
        return "pickled job"


def test_a_subclass_of_function_is_not_packed():
    # lgamma's translation defines SymPy Function subclasses: the full job translates it
    ev = api.grad("sum(lgamma(x))", {"x": np.array([0.5, 3.0])})
    problem, values, payload = _payload(ev)
    assert tracer.trace(problem, values) is not None and payload is None


def test_the_worker_side_imports_no_numpy(tmp_path):
    ev = EVALUATIONS["quadratic.yaml"]()
    problem, values, payload = _payload(ev)
    path = tmp_path / "payload.pickle"
    path.write_bytes(pickle.dumps(payload))
    script = (
        "import json, pickle, sys\n"
        "from gradcli.check import replay, worker\n"
        f"payload = pickle.loads(open({str(path)!r}, 'rb').read())\n"
        "nargs, texts, imports = replay.derivatives(payload)\n"
        "print(json.dumps(['numpy' in sys.modules, nargs, texts, imports]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    numpy_loaded, nargs, texts, imports = json.loads(out.stdout)
    assert numpy_loaded is False
    checked = program.checked_texts(texts, imports, nargs)
    assert (nargs, checked) == tuple(_full_texts(problem, values))

"""Cross-check gradients against SymPy's derivative or central finite differences.

The references differentiate the forward graph, never gradcli's gradient graph, so they
are independent of autodiff (see reference.py for the conventions they share with it).

Choosing the method (`auto`): SymPy for float64 specs whose expression is small enough
(limits.sympy_max_nodes, estimated from the graph before anything is built), finite
differences in float64 otherwise and for float32 specs. SymPy runs in a worker process
with a wall-clock budget (limits.sympy_timeout); when it runs out, hits the recursion
limit or fails, the check falls back to finite differences and says why.

This is the only module that imports sympy, and only when a check needs SymPy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

from gradcli.check import finite_differences as finite
from gradcli.check.compare import CustomCheck, InputCheck, compare, compare_custom, tolerances
from gradcli.check.conventions import CustomGradient, forward_values, needed, tree_size
from gradcli.core.evaluation import Evaluation
from gradcli.core.graph import CUSTOM_OP, is_float
from gradcli.runtime import budget, gcpause, limits

METHODS = ("auto", "sympy", "fd")
RECURSION_LIMIT = 10_000  # in the worker: deep expressions; a C stack overflow only kills it


@dataclass
class CheckReport:
    """The outcome of one check: per input, per custom call, and the formulas asked for."""

    requested: str | None  # auto, sympy, fd; None when only formulas were asked for
    method: str | None  # the method that gave the reference values
    reason: str | None  # why that method: a SymPy fallback, or a float32 spec
    fallback: bool
    inputs: dict[str, InputCheck]
    customs: list[CustomCheck] = field(default_factory=list)
    formulas: list[dict] | None = None
    formula_note: str | None = None
    evaluations: int = 0  # forward evaluations finite differences made
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.inputs.values()) and all(c.ok for c in self.customs)

    @property
    def max_abs_error(self) -> float:
        return max((c.max_abs_error for c in self.inputs.values()), default=0.0)

    @property
    def max_rel_error(self) -> float:
        return max((c.max_rel_error for c in self.inputs.values()), default=0.0)


def run_check(
    ev: Evaluation,
    method: str | None = "auto",
    *,
    symbolic: bool = False,
    customs: bool = False,
    rtol: float | None = None,
    atol: float | None = None,
    fd_elements: int | None = None,
    session=None,
) -> CheckReport:
    """Check ev's gradients (method None: formulas only); customs=True also checks every
    custom gradient against the derivative of its function's body; finite differences
    perturb at most fd_elements elements (default limits.fd_max_elements). A session
    (session.begin) brings the cache and a worker started ahead."""
    started = time.monotonic()
    problem = ev.problem.scratch()  # custom gradients' references are built on a copy
    graph = problem.graph
    outputs = [o for o in problem.outputs if is_float(graph[o].dtype)]
    # the forward values at the point: the evaluation's own when it kept them
    values = ev.values if ev.values is not None else forward_values(graph, problem.outputs)
    checks = _input_checks(ev, rtol, atol)
    order = needed(graph, outputs)
    custom_ids = [i for i in order if graph[i].op == CUSTOM_OP and graph[i].diff] if customs else []
    report = CheckReport(method, None, None, False, {c.name: c for c in checks.values()})

    nonlinear = _nonlinear_custom(graph, order, values) if method is not None else None
    want_sympy = method in ("auto", "sympy") and nonlinear is None
    if method == "auto" and any(graph[i].dtype == "float32" for i in order):
        want_sympy = False
        report.reason = "a float32 spec: finite differences in float64"
    sym, failure = None, None
    if want_sympy or symbolic:
        sym, failure = _try_sympy(
            problem, values, want_sympy, symbolic, custom_ids, outputs, session
        )
    if symbolic:
        report.formulas = None if sym is None else sym["formulas"]
        report.formula_note = failure
    if nonlinear is not None:
        report.method, report.reason = None, nonlinear
        for c in checks.values():
            c.note = f"not checked: {nonlinear}"
    elif method is not None:
        if want_sympy and sym is not None:
            report.method = "sympy"
            _sympy_compare(checks, sym["gradients"])
        else:
            report.method = "fd"
            report.fallback = want_sympy
            report.reason = failure if want_sympy else report.reason
            report.evaluations = _fd_compare(problem, values, checks, fd_elements)
    if method is not None:
        _conventions(problem, values, checks, ev.conventions)
    if method is not None and custom_ids:
        report.customs = _custom_checks(problem, values, custom_ids, sym, report.method, rtol, atol)
    report.seconds = time.monotonic() - started
    return report


def _nonlinear_custom(graph, order, values) -> str | None:
    """Why neither reference can check these gradients: a custom gradient on the way is not
    linear in its upstream gradient dy (as one clipping dy), or None."""
    for i in order:
        node = graph[i]
        if node.op != CUSTOM_OP or not node.diff:
            continue
        if CustomGradient(graph, node, values).nonlinear(graph):
            name = node.attrs.get("function", "custom")
            return (
                f"the custom gradient of {name} is not linear in its upstream gradient dy (it "
                "transforms dy, as clipping does), so no derivative can stand in for it"
            )
    return None


def _input_checks(ev: Evaluation, rtol, atol) -> dict[int, InputCheck]:
    """One check per target, with the default tolerances of the least precise float dtype
    the outputs are computed in (a float64 input through a float32 op: float32's)."""
    graph = ev.problem.graph
    order = needed(graph, ev.problem.outputs)
    low = "float32" if any(graph[i].dtype == "float32" for i in order) else None
    out = {}
    for t in ev.problem.wrt:
        node = graph[t]
        r, a = tolerances(low if low and is_float(node.dtype) else node.dtype, rtol, atol)
        check = InputCheck(node.name, node.shape, node.dtype, None, r, a, ev.gradients[node.name])
        if not is_float(node.dtype):
            check.note = f"{node.dtype} tensors have no gradient"
        out[t] = check
    return out


def _try_sympy(problem, values, want_values, want_formulas, custom_ids, outputs, session=None):
    """(the SymPy worker's result, None) or (None, why SymPy could not be used).

    With a session (the command line's), the gradients' derivatives come from the cache
    when it has them for this structure and translation (no SymPy at all), else from
    SymPy in the session's worker, and are then stored.
    """
    lim = limits.current
    size = tree_size(problem.graph, outputs)
    if size > lim.sympy_max_nodes:
        return None, (
            f"the expression is too big for SymPy: about {_count(size)} nodes, over the limit "
            f"of {lim.sympy_max_nodes:,} (GRADCLI_SYMPY_MAX_NODES)"
        )
    look, traced = None, None
    cacheable = session is not None and want_values and not want_formulas and not custom_ids
    if cacheable:
        from gradcli.check import cached, tracer

        traced = tracer.trace(problem, values)
        if session.cache is not None:
            look = cached.lookup(session.cache, problem, values, traced)
            if look is not None and look.gradients is not None:
                session.outcome = "hit"
                return {"gradients": look.gradients, "customs": {}, "formulas": None}, None
    if session is not None:
        session.outcome = "uncached" if look is None else "miss"
    work = partial(
        _sympy_work,
        problem,
        values,
        want_values=want_values,
        want_formulas=want_formulas,
        custom_ids=custom_ids if want_values else [],
        want_program=look is not None,
    )
    try:
        result = _run_sympy(work, problem, session if cacheable else None, traced, values)
    except budget.BudgetExceeded:
        return None, _out_of_time()
    except budget.WorkerFailed as exc:
        return None, _failure(exc)
    if look is not None:
        cached.store(session.cache, look, result, session.hint)
    return result, None


def _run_sympy(work, problem, session, traced=None, values=None):
    """work() in the session's worker when there is one and the job can go there, else in a
    worker forked from this process after importing SymPy here. With a recorded
    translation (traced), the worker replays it instead (replay.py: no numpy to import),
    and runs work() only if the replay refuses."""
    from gradcli.check import replay

    lim = limits.current
    payload = None
    if traced is not None:
        from gradcli.check.program import CONSTANTS, FUNCTIONS

        payload = replay.job(traced, problem, values, [*FUNCTIONS, *CONSTANTS])
    worker = session.take_worker() if session is not None else None
    if worker is not None:
        job, pickled = _job(work, problem)
        if job is not None:
            if payload is not None:
                job = partial(replay.answer, payload, pickled)
            result = worker.run((job, lim.sympy_timeout, lim), lim.sympy_timeout)
            return _answered(result, work, problem, traced, values, session) if payload else result
        worker.close()
    with gcpause.paused(lasting=True):  # SymPy's import: see worker._import_sympy
        import sympy  # noqa: F401  (here, so that forked workers share the imported module)

    def forked(job):
        deadline = time.monotonic() + lim.sympy_timeout
        job = partial(job, deadline=deadline)
        return budget.run(job, lim.sympy_timeout, recursion_limit=RECURSION_LIMIT)

    if payload is None:
        return forked(work)
    result = forked(partial(replay.answer, payload, work))
    return _answered(result, work, problem, traced, values, session)


def _answered(result, work, problem, traced, values, session):
    """The result of replay.answer as the full job's: the replayed derivatives checked and
    evaluated here (as a cache entry is), the full job in a forked worker if they fail.
    The session's `replayed` says whether the replay gave the result."""
    from gradcli.check import cached, program, replay
    from gradcli.check.cache import Variant

    kind, out = result
    if kind == replay.FULL:
        return out
    nargs, printed, imports = out
    targets = cached.float_targets(problem)
    try:
        texts = program.checked_texts(printed, imports, nargs)
    except Exception:  # program.Refused, or a text Python does not parse
        texts = None
    if texts is not None:
        args = list(traced.ctx.bindings(values).values())
        variant = Variant("", nargs, targets, texts)
        gradients = cached.evaluate(variant, problem.graph, targets, args)
        if gradients is not None:
            if session is not None:
                session.replayed = True
            out = {"gradients": gradients, "customs": {}, "formulas": None}
            return {**out, "program": (nargs, texts)}
    return _run_sympy(work, problem, None)


def _job(work, problem) -> tuple[partial | None, bytes | None]:
    """The work with only what the worker needs of the problem, and its pickle; (None, None)
    if it cannot be sent (a graph holding functions: custom gradients)."""
    import pickle
    from dataclasses import replace

    from gradcli.core.problem import Source

    light = replace(problem, spec=None, rebuild=None, source=Source(problem.source.file))
    job = partial(work.func, light, *work.args[1:], **work.keywords)
    try:
        return job, pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None, None


def _out_of_time() -> str:
    timeout = limits.current.sympy_timeout
    return f"SymPy did not finish within {timeout:g} s (GRADCLI_SYMPY_TIMEOUT)"


def _failure(exc: budget.WorkerFailed) -> str:
    if exc.kind == "recursion":
        return "SymPy exceeded Python's recursion limit (the expression is too deep)"
    if exc.kind == "crash":
        return "the SymPy worker process died (the expression is too deep)"
    if "OutOfTime" not in str(exc):
        return f"SymPy failed ({exc})"
    return _out_of_time()


def _count(size: float) -> str:
    return f"{size:,.0f}" if size < 1e15 else f"{size:.1e}"


def _sympy_work(
    problem, values, *, want_values, want_formulas, custom_ids, deadline, want_program=False
) -> dict:
    """Everything SymPy computes for one check (runs in the worker process); with
    want_program, also the gradients' derivatives as text for the cache."""
    import sympy

    from gradcli.check import sympy_translation as symbolic

    ctx = symbolic.Context(sympy, problem.graph, deadline)
    exprs, natural = symbolic.translate_problem(ctx, problem, values)
    out: dict = {"gradients": {}, "customs": {}, "formulas": None}
    if want_values:
        grads = symbolic.gradients(ctx, problem, exprs, natural)
        flat = [e for arr in grads.values() for e in arr.reshape(-1)]
        bindings = ctx.bindings(values)
        code: list | None = [] if want_program else None
        numbers = ctx.numbers(flat, bindings, code)
        start = 0
        for t, arr in grads.items():
            out["gradients"][t] = numbers[start : start + arr.size].reshape(arr.shape)
            start += arr.size
        if want_program:
            out["program"] = _program(code, numbers, list(bindings.values()))
    if custom_ids:
        out["customs"] = symbolic.custom_jacobians(ctx, values, custom_ids)
    if want_formulas:
        out["formulas"] = symbolic.formulas(ctx, problem, exprs, natural)
    return out


def _program(code: list, numbers, args: list) -> tuple[int, list[str]] | None:
    """(argument count, the derivatives as gradcli expressions), when their evaluation
    without SymPy gives lambdify's numbers bit for bit; None otherwise."""
    import inspect

    import numpy as np

    from gradcli.check import program

    if not code:
        return (len(args), []) if len(numbers) == 0 else None
    if isinstance(code[0], list):  # printed and evaluated by program.py already
        return len(args), code[0]
    try:
        texts = program.from_lambdified(code[0], inspect.getsource(code[0]))
        again = program.values([program.parse(t, len(args)) for t in texts], args)
    except Exception:  # program.Refused, or code this module does not read
        return None
    same = np.array_equal(again.view(np.uint64), np.asarray(numbers, np.float64).view(np.uint64))
    return (len(args), texts) if same else None


def _sympy_compare(checks: dict[int, InputCheck], gradients: dict) -> None:
    for t, check in checks.items():
        if t in gradients:
            check.method = "sympy"
            compare(check, gradients[t])


def _fd_compare(problem, values, checks: dict[int, InputCheck], cap=None) -> int:
    """Compare with finite differences; returns the number of forward evaluations."""
    floats = {t: c for t, c in checks.items() if is_float(c.dtype)}
    if not floats:
        return 0
    autodiff = {t: c.autodiff for t, c in floats.items()}
    tol = {t: (c.rtol, c.atol) for t, c in floats.items()}
    try:
        fd = finite.gradients(problem, values, autodiff, tol, cap)
    except finite.Unavailable as exc:
        for c in floats.values():
            c.note = f"not checked: {exc}"
        return 0
    for t, c in floats.items():
        rec = fd[t]
        c.method = "fd"
        c.directional = rec["directional"]
        compare(c, rec["estimate"], rec["error"], rec["mask"])
        size = int(rec["mask"].size)
        if c.checked < size:
            if rec["out_of_time"]:
                why = (
                    f"finite differences ran out of time ({limits.current.fd_timeout:g} s, "
                    "GRADCLI_FD_TIMEOUT)"
                )
            elif cap is not None:
                why = f"eval's sample of {cap} (gradcli check: up to GRADCLI_FD_MAX_ELEMENTS)"
            else:
                why = f"a sample within GRADCLI_FD_MAX_ELEMENTS={limits.current.fd_max_elements}"
            extra = f"{c.checked} of {size} elements checked: {why}"
            c.note = extra if c.note is None else f"{c.note}; {extra}"
    return fd["evaluations"]


def _conventions(problem, values, checks: dict[int, InputCheck], sites: dict) -> None:
    """An agreeing gradient with elements at a convention gets the verdict `convention`, and
    one-sided differences at its own elements there (the references take TensorFlow's side
    of a kink, so their agreement there says nothing about a derivative)."""
    from gradcli.check.one_sided import differences
    from gradcli.core.convention_sites import count

    for t, c in checks.items():
        found = sites.get(c.name)
        if not found or c.verdict != "agree":
            continue
        c.verdict = "convention"
        c.conventions = count(found)
        c.one_sided = differences(problem, values, t, found)


def _custom_checks(problem, values, ids, sym, method, rtol, atol) -> list[CustomCheck]:
    graph = problem.graph
    out = []
    for i in ids:
        node = graph[i]
        name = node.attrs.get("function", "custom")
        functions = problem.source.functions
        params = functions[name].params if name in functions else []
        too_big = _too_big_to_check(graph, node)
        if too_big:
            at = str(node.pos) if node.pos else None
            message = f"{name}'s gradient was not checked: {too_big}"
            skipped = CustomCheck(name, at, ", ".join(params), 0, 0, None, message)
            skipped.checked = False
            out.append(skipped)
            continue
        columns = {j: list(range(graph[node.inputs[j]].size)) for j in node.diff}
        if method == "sympy":
            given, true = sym["customs"][i]["given"], sym["customs"][i]["true"]
            errors = {}
        else:
            cap = limits.current.fd_max_elements
            for j in node.diff:  # a sample of the parameter's elements when it is big
                columns[j] = finite.choose_elements(None, len(columns[j]), cap)
            given = CustomGradient(graph, node, values).jacobians(graph)
            given = {j: None if g is None else g[:, columns[j]] for j, g in given.items()}
            fd = finite.body_jacobians(problem, values, i, columns)
            true = {j: jac for j, (jac, _) in fd.items()}
            errors = {j: err for j, (_, err) in fd.items()}
        for j in node.diff:
            param = graph[node.inputs[j]]
            r, a = tolerances(param.dtype, rtol, atol)
            label = params[j] if j < len(params) else f"argument {j + 1}"
            shapes = (node.shape, param.shape)
            at = str(node.pos) if node.pos else None
            several = len(params) > 1
            check = compare_custom(
                name,
                at,
                label,
                several,
                shapes,
                given[j],
                true[j],
                errors.get(j),
                r,
                a,
                columns=columns[j],
            )
            out.append(check)
    return out


def _too_big_to_check(graph, node) -> str | None:
    """Why a custom call's Jacobians are too big to compare, or None."""
    if node.size > finite.MAX_CUSTOM_OUTPUT:
        return f"its output has {node.size:,} elements, over {finite.MAX_CUSTOM_OUTPUT:,}"
    return None

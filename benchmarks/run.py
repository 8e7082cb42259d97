"""gradcli's benchmark suite: every workload against a floor measured in the same run.

    python benchmarks/run.py [--quick] [--json FILE] [--only NAME,...]

Each measurement runs in its own process (benchmarks/workload.py, or the gradcli command
itself for wall-clock figures), repeated; figures are medians with the min-max range, and
every figure is also a ratio to its floor. Timed single-threaded (OPENBLAS_NUM_THREADS=1
and friends) for reproducible figures; the BLAS-bound workloads are also timed with the
default thread count. torch, jax and tensorflow are measured when importable, else skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import measured  # noqa: E402

import specs  # noqa: E402

SINGLE = {k: "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
FRAMEWORKS = ("torch", "jax", "tensorflow")


class Suite:
    def __init__(self, quick: bool, workdir: str, clock: str = "wall"):
        self.quick = quick
        self.clock = clock
        self.dir = workdir
        self.procs = 1 if quick else 3  # processes per measurement
        self.reps = 2 if quick else 3  # timed repetitions inside each process
        self.records: list[dict] = []
        self.gradcli = self._gradcli_command()

    # --- running -----------------------------------------------------------------------------
    def _gradcli_command(self) -> list[str]:
        script = os.path.join(os.path.dirname(sys.executable), "gradcli")
        return [script] if os.path.exists(script) else [sys.executable, "-m", "gradcli"]

    def env(self, threads: str) -> dict:
        env = dict(os.environ)
        for k in SINGLE:
            env.pop(k, None)
        if threads == "1":
            env.update(SINGLE)
        env["GRADCLI_BENCH_CLOCK"] = self.clock
        return env

    def workload(self, kind: str, threads: str = "1", procs: int | None = None, **args) -> dict:
        """Run workload.py KIND in fresh processes; merge their repetitions."""
        merged: dict = {}
        for _ in range(procs or self.procs):
            out = subprocess.run(
                [sys.executable, os.path.join(HERE, "workload.py"), kind, json.dumps(args)],
                env=self.env(threads),
                capture_output=True,
                text=True,
                timeout=900,
            )
            if out.returncode != 0:
                raise RuntimeError(f"{kind} failed:\n{out.stderr[-2000:]}")
            result = json.loads(out.stdout)
            for key, value in result.items():
                if isinstance(value, list):
                    merged.setdefault(key, []).extend(value)
                elif isinstance(value, (int, float)):
                    merged.setdefault(key, []).append(value)
        return merged

    def wall(
        self,
        argv: list[str],
        runs: int,
        threads: str = "1",
        ok=(0,),
        timeout: float = 900,
        extra_env: dict | None = None,
    ) -> list[float]:
        """Wall-clock seconds of whole-process runs of argv (CPU seconds with --clock cpu,
        the children it waited for included: the SymPy worker)."""
        times = []
        env = {**self.env(threads), **(extra_env or {})}
        for _ in range(runs):
            t = time.perf_counter()
            before = _children_cpu()
            out = subprocess.run(argv, env=env, capture_output=True, timeout=timeout)
            if self.clock == "cpu":
                times.append(_children_cpu() - before)
            else:
                times.append(time.perf_counter() - t)
            if out.returncode not in ok:
                raise RuntimeError(f"{' '.join(argv)} exited {out.returncode}: {out.stderr[-500:]}")
        return times

    def process(self, argv: list[str], stdout_path: str) -> tuple[float, float]:
        """(seconds, peak RSS in MiB) of one whole-process run of argv, stdout to a file
        (through measured.py: the driver's own peak never leaks into the child's)."""
        with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err:
            code, wall, cpu, rss = measured.run(argv, self.env("1"), out, err)
            if code != 0:
                err.seek(0)
                raise RuntimeError(f"{' '.join(argv)} exited {code}: {err.read()[-500:]}")
        return (cpu if self.clock == "cpu" else wall), rss

    # --- reporting ---------------------------------------------------------------------------
    def record(self, workload, impl, times, floor=None, target=None, unit="s", note="", **extra):
        med = statistics.median(times)
        rec = {
            "workload": workload,
            "impl": impl,
            "median": med,
            "min": min(times),
            "max": max(times),
            "runs": len(times),
            "unit": unit,
        }
        if floor is not None:
            rec["floor"] = floor
            rec["ratio"] = med / floor if floor else None
        if target is not None:
            rec["target"] = target
            rec["met"] = rec.get("ratio") is not None and rec["ratio"] <= target
        if note:
            rec["note"] = note
        rec.update(extra)
        self.records.append(rec)
        self.show(rec)
        return rec

    def skip(self, workload, impl, why):
        rec = {"workload": workload, "impl": impl, "skipped": why}
        self.records.append(rec)
        self.show(rec)

    def show(self, rec):
        name = f"{rec['workload']:<34} {rec['impl']:<26}"
        if "skipped" in rec:
            print(f"{name} skipped: {rec['skipped']}", flush=True)
            return
        scale, unit = (1e3, "ms") if rec["unit"] == "s" else (1.0, rec["unit"])
        text = (
            f"{name} {rec['median'] * scale:10.2f} {unit} "
            f"[{rec['min'] * scale:.2f}-{rec['max'] * scale:.2f}]"
        )
        if "ratio" in rec and rec["ratio"] is not None:
            text += f"  {rec['ratio']:6.2f}x floor"
        if "target" in rec:
            text += f" (target <= {rec['target']}x: {'met' if rec['met'] else 'MISSED'})"
        if rec.get("note"):
            text += f"  {rec['note']}"
        print(text, flush=True)

    # --- workloads -----------------------------------------------------------------------------
    def write(self, name: str, text: str) -> str:
        path = os.path.join(self.dir, name)
        with open(path, "w") as fh:
            fh.write(text)
        return path

    def startup(self):
        runs = 3 if self.quick else 10
        example = os.path.join(HERE, "..", "specs", "quadratic.yaml")
        cmd = [*self.gradcli, "eval", example, "--format", "json"]
        help_text = subprocess.run(
            [*self.gradcli, "eval", "--help"], capture_output=True, text=True
        ).stdout
        if "--check" in help_text:
            cmd += ["--check", "off"]
        floor_cmd = [sys.executable, "-c", "import numpy, click, yaml, rich.console"]
        click_cmd = [sys.executable, "-c", "import click"]
        # interleave so drifting machine load hits both alike
        floor, ev, click_t, helps = [], [], [], []
        for _ in range(runs):
            floor += self.wall(floor_cmd, 1)
            ev += self.wall(cmd, 1)
            click_t += self.wall(click_cmd, 1)
            helps += self.wall([*self.gradcli, "--help"], 1)
        f = statistics.median(floor)
        self.record("startup", "import floor", floor)
        self.record("startup", "gradcli eval (small spec)", ev, floor=f, target=1.3)
        c = statistics.median(click_t)
        self.record("startup", "import click floor", click_t)
        # the target is 1.3x click's import plus 30 ms: expressed as a ratio to that sum
        self.record(
            "startup",
            "gradcli --help",
            helps,
            floor=1.3 * c + 0.030,
            target=1.0,
            note="floor here = 1.3 x import click + 30 ms",
        )
        self.crosscheck(example)
        for argv, what in ((cmd, "eval"), ([*self.gradcli, "--help"], "--help")):
            trace = subprocess.run(
                [sys.executable, "-X", "importtime", "-m", "gradcli", *argv[len(self.gradcli) :]],
                capture_output=True,
                text=True,
                env=self.env("1"),
            ).stderr
            heavy = [
                m
                for m in ("sympy", "scipy", "pandas", "matplotlib")
                if f" {m}\n" in trace or f" {m}." in trace
            ]
            rec = {"workload": "startup", "impl": f"heavy imports ({what})", "imports": heavy}
            self.records.append(rec)
            print(
                f"{'startup':<34} {'heavy imports (' + what + ')':<26} "
                f"{', '.join(heavy) or 'none (sympy not imported)'}",
                flush=True,
            )

    def crosscheck(self, example: str):
        """Default eval (its SymPy check) of the small spec: seen before (a warm cache), at
        first sight (an empty cache per run: the SymPy worker imports SymPy meanwhile),
        and with --no-cache, against `--check off` timed in the same run."""
        runs = 3 if self.quick else 10
        cmd = [*self.gradcli, "eval", example, "--format", "json"]
        help_text = subprocess.run(
            [*self.gradcli, "eval", "--help"], capture_output=True, text=True
        ).stdout
        if "--no-cache" not in help_text:
            self.skip("crosscheck", "eval default check", "this gradcli has no cache")
            return
        warm_dir = os.path.join(self.dir, "warm-cache")
        warm = {"GRADCLI_CACHE_DIR": warm_dir}
        self.wall(cmd, 1, extra_env=warm)  # fills the warm cache
        off, seen, first, nocache = [], [], [], []
        for k in range(runs):  # interleaved, so drifting machine load hits all alike
            off += self.wall([*cmd, "--check", "off"], 1)
            seen += self.wall(cmd, 1, extra_env=warm)
            cold = {"GRADCLI_CACHE_DIR": os.path.join(self.dir, f"cold-cache-{k}")}
            first += self.wall(cmd, 1, extra_env=cold)
            nocache += self.wall([*cmd, "--no-cache"], 1, extra_env=warm)
        f = statistics.median(off)
        self.record("crosscheck", "eval --check off", off)
        self.record("crosscheck", "eval, spec seen before", seen, floor=f, target=1.3)
        self.record("crosscheck", "eval, first sight", first, floor=f, target=2.5)
        self.record("crosscheck", "eval --no-cache", nocache, floor=f)

    def chain(self):
        n = 10_000 if self.quick else 100_000
        path = self.write("chain.yaml", specs.chain_spec(n))
        tape = self.workload("chain-tape", n=n, reps=self.reps)
        floor = statistics.median(tape["times"])
        w = f"chain {n:,} nodes (fwd+grad)"
        self.record(
            w, "pure-Python tape (floor)", tape["times"], note=f"{floor / n * 1e6:.2f} us/op"
        )
        eng = self.workload("engine", path=path, reps=self.reps)
        med = statistics.median(eng["times"])
        self.record(
            w,
            "gradcli engine",
            eng["times"],
            floor=floor,
            target=3.0,
            note=f"{med / n * 1e6:.2f} us/op",
        )
        self.record(f"chain {n:,} nodes", "gradcli parse spec", eng["parse"])
        self.record(f"chain {n:,} nodes", "gradcli build graph", eng["build"])
        self.chain_stages(n, path)
        # end to end, whole processes interleaved: gradcli eval against PyYAML's C loader
        # reading the same file plus the pure-Python tape (time and peak RSS of each)
        floor_cmd = [sys.executable, os.path.join(HERE, "workload.py"), "chain-floor",
                     json.dumps({"path": path})]  # fmt: skip
        cmd = [*self.gradcli, "eval", path, *self.no_check(), "--format", "json"]
        floors, ours = [], []
        for _ in range(self.procs):
            floors.append(self.process(floor_cmd, os.devnull))
            ours.append(self.process(cmd, os.devnull))
        ends = [t for t, _ in ours]
        e2e = f"chain {n:,} nodes end to end"
        self.record(e2e, "C YAML load + tape (floor)", [t for t, _ in floors])
        self.record(e2e, "gradcli eval --check off", ends,
                    floor=statistics.median(t for t, _ in floors), target=5.0)  # fmt: skip
        self.record(e2e + " peak RSS", "C YAML load + tape (floor)", [r for _, r in floors],
                    unit="MiB")  # fmt: skip
        rss_floor = statistics.median(r for _, r in floors)
        self.record(e2e + " peak RSS", "gradcli eval --check off", [r for _, r in ours],
                    floor=rss_floor, target=3.0, unit="MiB")  # fmt: skip
        self.frameworks(w, "chain", floor, n=n, reps=1)
        self.explain_check("chain", path, ends)

    def shapes(self):
        """Expression shapes people write (specs.SHAPES), each end to end against its floor:
        PyYAML's C loader on the same file plus a pure-Python tape of the same arithmetic
        (floors.shape_records), whole processes interleaved (time and peak RSS)."""
        for shape in specs.SHAPES:
            terms = shape == "sum of terms"
            n = (2_000 if terms else 10_000) if self.quick else (20_000 if terms else 100_000)
            path = self.write("shape.yaml", specs.shape_spec(shape, n))
            floor_cmd = [sys.executable, os.path.join(HERE, "workload.py"), "shape-floor",
                         json.dumps({"path": path, "shape": shape})]  # fmt: skip
            cmd = [*self.gradcli, "eval", path, *self.no_check(), "--format", "json"]
            floors, ours = [], []
            for _ in range(self.procs):
                floors.append(self.process(floor_cmd, os.devnull))
                ours.append(self.process(cmd, os.devnull))
            w = f"shape {shape}, {n:,} {'terms' if terms else 'entries'} end to end"
            self.record(w, "C YAML load + tape (floor)", [t for t, _ in floors])
            self.record(w, "gradcli eval --check off", [t for t, _ in ours],
                        floor=statistics.median(t for t, _ in floors), target=3.0)  # fmt: skip
            self.record(w + " peak RSS", "C YAML load + tape (floor)", [r for _, r in floors],
                        unit="MiB")  # fmt: skip
            self.record(w + " peak RSS", "gradcli eval --check off", [r for _, r in ours],
                        floor=statistics.median(r for _, r in floors), unit="MiB")  # fmt: skip

    def chain_stages(self, n: int, path: str):
        """Each stage of the chain against its own floor, in one process (floors.py)."""
        st = self.workload("chain-stages", path=path, reps=self.reps)
        med = {k: statistics.median(v) for k, v in st.items() if isinstance(v, list)}
        parse = [r - y for r, y in zip(st["read"], st["yaml"])]
        rows = (
            ("YAML", "PyYAML C loader", "yaml_floor", "gradcli compose", st["yaml"]),
            ("parse", "ast.parse", "parse_floor", "gradcli read - compose", parse),
            ("lower", "Python AST to records", "lower_floor", "gradcli build (emit, infer)",
             st["lower"]),
            ("gradient", "tape records", "grad_floor", "gradcli gradients()", st["grad"]),
            ("execute", "pure-Python tape", "run_floor", "gradcli run", st["run"]),
        )  # fmt: skip
        for stage, floor_name, key, ours_name, ours in rows:
            w = f"chain {n:,} stage: {stage}"
            self.record(w, f"{floor_name} (floor)", st[key])
            self.record(w, ours_name, ours, floor=med[key])

    def hessian(self):
        """The Hessian of a 1,024-parameter MLP loss against its gradient: in process (build
        and evaluate each time) and as whole `gradcli hessian` / `gradcli eval` processes."""
        sizes, batch = specs.HESSIAN_SIZES, specs.HESSIAN_BATCH
        path = self.write("mlp_hessian.yaml", specs.mlp_spec("float64", batch, sizes))
        w = f"hessian mlp {'-'.join(map(str, sizes))} b{batch} (1,024 params)"
        res = self.workload("hessian-engine", path=path, reps=self.reps * 3)
        g = statistics.median(res["gradient"])
        self.record(w, "gradient, build + evaluate (floor)", res["gradient"])
        self.record(w, "hessian, build + evaluate", res["hessian"], floor=g, target=30.0)
        runs = 2 if self.quick else 5
        ev, hs = [], []
        for _ in range(runs):  # interleaved
            ev += self.wall([*self.gradcli, "eval", path, *self.no_check(), "--format", "json"], 1)
            hs += self.wall([*self.gradcli, "hessian", path, "--format", "json"], 1)
        self.record(w + ", whole process", "gradcli eval (floor)", ev)
        self.record(w + ", whole process", "gradcli hessian", hs, floor=statistics.median(ev))

    def mlp(self):
        batch, sizes = (
            (64, (784, 256, 256, 10)) if self.quick else (specs.MLP_BATCH, specs.MLP_SIZES)
        )
        for dtype in ("float64", "float32"):
            path = self.write(f"mlp_{dtype}.yaml", specs.mlp_spec(dtype, batch, sizes))
            for threads in ("1", "default"):
                w = f"mlp {'-'.join(map(str, sizes))} b{batch} {dtype} t={threads}"
                base = self.workload(
                    "mlp-numpy",
                    threads,
                    dtype=dtype,
                    reps=self.reps,
                    batch=batch,
                    sizes=list(sizes),
                )
                floor = statistics.median(base["times"])
                ffloor = statistics.median(base["forward"])
                self.record(
                    w,
                    "numpy backprop (floor)",
                    base["times"],
                    note=f"grad/fwd {floor / ffloor:.2f}",
                )
                eng = self.workload("engine", threads, path=path, reps=self.reps, forward=True)
                med, fwd = statistics.median(eng["times"]), statistics.median(eng["forward"])
                self.record(
                    w,
                    "gradcli engine",
                    eng["times"],
                    floor=floor,
                    target=1.15,
                    note=f"grad/fwd {med / fwd:.2f} (target <= 3.0)",
                )
                self.frameworks(
                    w,
                    "mlp",
                    floor,
                    threads=threads,
                    dtype=dtype,
                    reps=self.reps,
                    batch=batch,
                    sizes=list(sizes),
                )
                if dtype == "float64" and threads == "1":
                    ends = self.wall(
                        [*self.gradcli, "eval", path, *self.no_check(), "--format", "json"],
                        self.procs,
                    )
                    self.explain_check("mlp", path, ends)

    def elementwise(self):
        n = 1_000_000 if self.quick else 10_000_000
        path = self.write("elementwise.yaml", specs.elementwise_spec(n))
        w = f"elementwise {n:,} (fwd+grad)"
        base = self.workload("elementwise-numpy", n=n, reps=self.reps)
        floor = statistics.median(base["times"])
        rss = statistics.median(base["peak_rss_mib"])
        self.record(w, "numpy reused buffers (floor)", base["times"])
        self.record(
            w + " peak RSS", "numpy reused buffers (floor)", base["peak_rss_mib"], unit="MiB"
        )
        eng = self.workload("engine", path=path, reps=self.reps)
        self.record(w, "gradcli engine", eng["times"], floor=floor, target=1.15)
        self.record(
            w + " peak RSS",
            "gradcli engine",
            eng["peak_rss_mib"],
            floor=rss,
            target=1.15,
            unit="MiB",
        )
        self.frameworks(w, "elementwise", floor, n=n, reps=self.reps)

    def contractions(self):
        """einsum and gather (forward and gradient) against NumPy doing the same by hand."""
        sizes = {
            "einsum": {"batch": 16, "n": 64} if self.quick else {"batch": 32, "n": 128},
            "gather": {"vocab": 10_000, "dim": 64, "lookups": 5_000 if self.quick else 50_000},
        }
        for kind, size in sizes.items():
            label = ", ".join(f"{k} {v:,}" for k, v in size.items())
            w = f"{kind} ({label}) fwd+grad"
            path = self.write(f"{kind}.yaml", specs.contraction_spec(kind, size))
            base = self.workload("contraction-numpy", op=kind, size=size, reps=self.reps)
            floor = statistics.median(base["times"])
            self.record(w, "numpy by hand (floor)", base["times"])
            eng = self.workload("engine", path=path, reps=self.reps)
            self.record(w, "gradcli engine", eng["times"], floor=floor, target=1.5)

    def output(self):
        """The elementwise loss end to end, results written out: `eval --format json` against a
        NumPy script writing the same document with json.dumps of lists, `eval --save`
        against the script with np.savez; whole processes, time and peak RSS."""
        n = 1_000_000 if self.quick else 10_000_000
        path = self.write("output.yaml", specs.elementwise_spec(n))
        out = os.path.join(self.dir, "output.out")
        npz = os.path.join(self.dir, "output.npz")
        script = os.path.join(HERE, "workload.py")
        cases = {
            "json": (
                [
                    sys.executable,
                    script,
                    "output-numpy",
                    json.dumps({"n": n, "path": out, "kind": "json"}),
                ],
                [*self.gradcli, "eval", path, *self.no_check(), "--format", "json"],
            ),
            "save": (
                [
                    sys.executable,
                    script,
                    "output-numpy",
                    json.dumps({"n": n, "path": npz, "kind": "npz"}),
                ],
                [*self.gradcli, "eval", path, *self.no_check(), "--format", "json", "--save", npz],
            ),
        }
        for kind, (floor_cmd, cmd) in cases.items():
            # --save takes under a second: more runs for a figure that sys time moves a lot
            runs = 2 if self.quick else (3 if kind == "json" else 7)
            help_text = subprocess.run(
                [*self.gradcli, "eval", "--help"], capture_output=True, text=True
            ).stdout
            if kind == "save" and "--save" not in help_text:
                self.skip(f"output {n:,} --save", "gradcli eval --save", "no --save")
                continue
            floor, ours = [], []
            for _ in range(runs):  # interleaved, so drifting load hits both alike
                floor.append(self.process(floor_cmd, os.devnull if kind == "save" else out))
                ours.append(self.process(cmd, out))
            w = f"output {n:,}, {'--format json' if kind == 'json' else '--save'}"
            what = "json.dumps of lists" if kind == "json" else "np.savez"
            f_time = statistics.median(t for t, _ in floor)
            f_rss = statistics.median(r for _, r in floor)
            self.record(w, f"numpy + {what} (floor)", [t for t, _ in floor])
            self.record(w, "gradcli eval", [t for t, _ in ours], floor=f_time, target=1.3)
            self.record(
                w + " peak RSS", f"numpy + {what} (floor)", [r for _, r in floor], unit="MiB"
            )
            self.record(
                w + " peak RSS",
                "gradcli eval",
                [r for _, r in ours],
                floor=f_rss,
                target=1.5 if kind == "json" else None,
                unit="MiB",
            )

    def points(self):
        n = 10_000 if self.quick else 1_000_000
        spec_path = self.write("points.yaml", specs.points_spec())
        data = os.path.join(self.dir, "points.jsonl")
        specs.points_file(data, n)
        base = self.workload("points-numpy", n=n, reps=self.reps)
        floor = statistics.median(base["times"])
        w = f"points {n:,} x 20-node spec"
        self.record(w, "numpy vectorised (floor)", base["times"])
        io = self.workload("points-numpy-io", path=data, reps=1)
        io_floor = statistics.median(io["times"])
        self.record(w, "numpy + JSON I/O (floor 2)", io["times"], floor=floor)
        help_text = subprocess.run(
            [*self.gradcli, "eval", "--help"], capture_output=True, text=True
        ).stdout
        if "--points" not in help_text:
            self.skip(w, "gradcli eval --points", "this gradcli has no --points")
            return
        t = self.wall([*self.gradcli, "eval", spec_path, "--points", data], self.procs)
        self.record(
            w,
            "gradcli eval --points",
            t,
            floor=floor,
            target=10.0,
            note="whole process: reading, evaluating and writing JSON lines",
        )
        self.record(
            w,
            "gradcli eval --points vs floor 2",
            t,
            floor=io_floor,
            note="ratio to the NumPy floor that also reads and writes JSON lines",
        )

    def tfcode(self):
        """The TensorFlow reader's cost: eval of a ~200-line training step (FILE.py) against
        eval of the spec that computes the same gradient (the floor, measured here)."""
        code = self.write("train_step.py", specs.tf_train_step())
        spec = self.write("train_step.yaml", specs.tf_equivalent_spec())
        w = f"tfcode train step {'-'.join(map(str, specs.TF_SIZES))} b{specs.TF_BATCH}"
        runs = 3 if self.quick else 10
        floor, code_t = [], []
        for _ in range(runs):  # interleaved, so drifting machine load hits both alike
            floor += self.wall([*self.gradcli, "eval", spec, *self.no_check(), "--format",
                                "json"], 1)  # fmt: skip
            code_t += self.wall([*self.gradcli, "eval", code, *self.no_check(), "--format",
                                 "json"], 1)  # fmt: skip
        f = statistics.median(floor)
        self.record(w, "gradcli eval spec (floor)", floor)
        lines = specs.tf_train_step().count("\n")
        self.record(w, f"gradcli eval FILE.py ({lines} lines)", code_t, floor=f)
        inner = self.workload("spec-read", path=spec, reps=self.reps)
        f = statistics.median(inner["times"])
        self.record(w, "read+evaluate spec, in process (floor)", inner["times"])
        parse = self.workload("tfcode-read", path=code, reps=self.reps)
        self.record(w, "read+evaluate FILE.py, in process", parse["times"], floor=f)

    def keras(self):
        """Issue 18's goal: reading and explaining a ~300-line Keras script (subclassed model,
        custom layers, a tf.function train step) takes under a second beyond evaluating the
        same gradient graphs (the floor, measured here in the same processes)."""
        script = os.path.join(HERE, "keras_script.py")
        with open(script) as fh:
            lines = fh.read().count("\n")
        w = f"Keras script ({lines} lines), explain"
        out = self.workload("keras-explain", path=script, reps=self.reps)
        floor = statistics.median(out["floor"])
        self.record(w, f"evaluate its {out['calls'][0]} calls' graphs (floor)", out["floor"])
        beyond = [t - f for t, f in zip(out["times"], out["floor"])]
        self.record(w, "read + explain, in process", out["times"], floor=floor)
        self.record(w, "read + explain beyond the floor", beyond,
                    note="goal: under 1 s")  # fmt: skip
        runs = 3 if self.quick else 10
        argv = [*self.gradcli, "explain", script, "--format", "json"]
        self.record(w, "gradcli explain FILE.py (whole process)", self.wall(argv, runs, ok=(0, 1)))

    def runmode(self):
        """Issues 28 and 29: `explain --run` on PyTorch and TensorFlow scripts."""
        self.runmode_torch()
        self.runmode_tf()

    def runmode_tf(self):
        """Issue 29's cost: `explain --run --calls all` on the Keras script and on one epoch
        of a small CNN's fit, against `python script.py` running the whole script too (the
        same steps), whole processes; TensorFlow's import (in both) is measured alone and
        each time is also given beyond it."""
        try:
            import tensorflow  # noqa: F401
        except ImportError:
            self.skip("run mode (TensorFlow)", "explain --run", "tensorflow is not installed")
            return
        runs = 1 if self.quick else 5  # quick: CI's smoke run
        env = {**self.env("1"), "TF_CPP_MIN_LOG_LEVEL": "3"}
        imports = [_peak([sys.executable, "-c", "import tensorflow"], env)[0] for _ in range(runs)]
        self.record("run mode (TensorFlow)", "import tensorflow (excluded)", imports)
        cost = statistics.median(imports)
        for script, what in ((os.path.join(HERE, "keras_script.py"), "Keras script"),
                             (os.path.join(HERE, "tf_scripts", "cnn_fit.py"),
                              "small CNN fit (4 steps of 32)")):  # fmt: skip
            w = f"run mode: {what}"
            plain = [_peak([sys.executable, script], env)[0] for _ in range(runs)]
            self.record(w, "python script.py (floor)", plain)
            argv = [*self.gradcli, "explain", "--run", script, "--calls", "all", "--format", "json"]
            got = [_peak(argv, env, ok=(0, 1))[0] for _ in range(runs)]
            self.record(w, "gradcli explain --run", got, floor=statistics.median(plain))
            beyond = [t - cost for t in plain]
            self.record(w, "python beyond the import (floor)", beyond)
            self.record(w, "gradcli beyond the import", [t - cost for t in got],
                        floor=statistics.median(beyond),
                        note="target: <= 2x plus gradcli's start-up")  # fmt: skip

    def runmode_torch(self):
        """Issue 28's cost: `explain --run` on a training step against `python script.py`
        running the same step, whole processes (both import torch: the import is in both)."""
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skip("run mode", "explain --run", "torch is not installed")
            return
        runs = 1 if self.quick else 5  # quick: CI's smoke run
        for name, what in (("cnn_step.py", "small CNN step (batch 32)"),
                           ("transformer_step.py", "transformer encoder block step"),
                           ("rnn_step.py", "GRU unrolled 100 steps (op-heavy)")):  # fmt: skip
            script = os.path.join(HERE, "torch_scripts", name)
            w = f"run mode: {what}"
            plain = [_peak([sys.executable, script], self.env("1")) for _ in range(runs)]
            floor = statistics.median(r[0] for r in plain)
            self.record(w, "python script.py (floor)", [r[0] for r in plain])
            argv = [*self.gradcli, "explain", "--run", script, "--format", "json"]
            runs_g = [_peak(argv, self.env("1"), ok=(0, 1)) for _ in range(runs)]
            self.record(w, "gradcli explain --run", [r[0] for r in runs_g], floor=floor,
                        note="target: <= 2x plus gradcli's start-up")  # fmt: skip
            self.record(w, "python peak RSS", [r[1] / 2**20 for r in plain], unit="MiB")
            self.record(w, "gradcli peak RSS", [r[1] / 2**20 for r in runs_g], unit="MiB",
                        floor=statistics.median(r[1] for r in plain) / 2**20)  # fmt: skip

    def refusal(self):
        """An over-limit literal list: gradcli's refusal against PyYAML's C loader reading it."""
        n, limit = (400_000, 100_000) if self.quick else (4_000_000, 1_000_000)
        path = self.write("literal.yaml", "inputs:\n  x: [" + "1.5, " * (n - 1) + "1.5]\n"
                          "graph:\n  f: sum(x)\n")  # fmt: skip
        w = f"refuse a {n:,}-value literal, limit {limit:,}"
        loader = "import sys, yaml; yaml.load(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)"
        runs = [_peak([sys.executable, "-c", loader, path], self.env("1"))
                for _ in range(self.procs)]  # fmt: skip
        floor_t = statistics.median(r[0] for r in runs)
        floor_m = statistics.median(r[1] for r in runs)
        self.record(w, "PyYAML CSafeLoader (floor)", [r[0] for r in runs])
        self.record(w, "PyYAML peak RSS", [r[1] / 2**20 for r in runs], unit="MiB")
        argv = [*self.gradcli, "--max-elements", str(limit), "eval", path]
        runs = [_peak(argv, self.env("1"), ok=(2,)) for _ in range(self.procs)]
        self.record(w, "gradcli refuses", [r[0] for r in runs], floor=floor_t,
                    note="exit 2 at the list, its values counted ahead")  # fmt: skip
        self.record(w, "gradcli peak RSS", [r[1] / 2**20 for r in runs], unit="MiB",
                    floor=floor_m / 2**20)  # fmt: skip

    def literal(self):
        """Literals past the element limit in files of every length (issue 30): 4, 30 and
        100 million values ("1," each: 8 to 200 MB), refused at the default limit
        (10,000,000: 4 M is under it, so it runs at --max-elements 1,000,000 there) and at
        --max-elements 1,000,000; time and peak RSS of whole processes, against gradcli
        refusing a 3-value literal (the floor: start-up and the command line)."""
        sizes = (400_000, 3_000_000, 10_000_000) if self.quick else (
            4_000_000, 30_000_000, 100_000_000)  # fmt: skip
        small = self.write("literal-small.yaml", "inputs:\n  x: [1, 1, 1]\ngraph:\n  f: sum(x)\n")
        floor_argv = [*self.gradcli, "--max-elements", "2", "eval", small]
        floor = [_peak(floor_argv, self.env("1"), ok=(2,)) for _ in range(self.procs)]
        w = "refuse a literal past the limit"
        self.record(w, "3 values (floor)", [r[0] for r in floor])
        self.record(w + " peak RSS", "3 values (floor)", [r[1] / 2**20 for r in floor],
                    unit="MiB")  # fmt: skip
        f_time = statistics.median(r[0] for r in floor)
        f_rss = statistics.median(r[1] for r in floor) / 2**20
        for n in sizes:
            path = os.path.join(self.dir, "literal.yaml")
            with open(path, "w") as fh:
                fh.write("inputs:\n  x: [" + "1," * (n - 1) + "1]\ngraph:\n  f: sum(x)\n")
            size = os.path.getsize(path) / 2**20
            for limit in (None, 1_000_000 if not self.quick else 100_000):
                if limit is None and n <= 10_000_000:
                    continue  # under the default limit
                flags = [] if limit is None else ["--max-elements", str(limit)]
                argv = [*self.gradcli, *flags, "eval", path]
                runs = [_peak(argv, self.env("1"), ok=(2,)) for _ in range(self.procs)]
                label = f"{n / 1e6:g} M values ({size:.0f} MB), limit {limit or 10_000_000:,}"
                self.record(w, label, [r[0] for r in runs], floor=f_time)
                self.record(w + " peak RSS", label, [r[1] / 2**20 for r in runs], unit="MiB",
                            floor=f_rss)  # fmt: skip
            os.remove(path)

    def signals(self):
        """Issue 30: no process outlives gradcli. A signal at a moment of `gradcli eval`'s
        SymPy check (its worker importing SymPy, working on its job; GRADCLI_DEBUG_PROCESSES
        tells when): seconds from the signal to gradcli's exit and to the worker's end
        (polled in /proc, ~0.5 ms apart); SIGKILL is gradcli's death (PR_SET_PDEATHSIG)."""
        if not sys.platform.startswith("linux"):
            self.skip("signals", "gradcli eval", "reads /proc")
            return
        e = "x"
        for k in range(40):  # SymPy works on this for tens of seconds
            e = (f"sin({e} * y + {k % 3 + 1}) * exp(x / (1 + {e} * {e}))" if k % 8 == 0
                 else f"sin({e} * y + 0.{k})")  # fmt: skip
        spec = self.write("signals.yaml", f"inputs:\n  x: 0.3\n  y: 0.7\ngraph:\n  f: {e}\n")
        runs = 3 if self.quick else 10
        sympy_env = {"GRADCLI_SYMPY_MAX_NODES": "1000000", "GRADCLI_SYMPY_TIMEOUT": "600"}
        for moment in ("importing", "working"):
            for name in ("SIGTERM", "SIGKILL"):
                exits, gone = [], []
                for k in range(runs):
                    log = os.path.join(self.dir, f"signals-{moment}-{name}-{k}.log")
                    env = {**self.env("1"), "GRADCLI_DEBUG_PROCESSES": log, **sympy_env}
                    argv = [*self.gradcli, "eval", spec, "--no-cache"]
                    signum = getattr(signal, name)
                    to_exit, to_gone = _signal_latency(argv, env, log, moment, signum)
                    exits.append(to_exit)
                    gone.append(to_gone)
                w = f"signals: {name} while the worker is {moment}"
                self.record(w, "signal to gradcli's exit", exits)
                self.record(w, "signal to the worker's end", gone,
                            note="promise: 100 ms")  # fmt: skip

    def tensordot(self):
        a, b, axes = specs.TENSORDOT_A, specs.TENSORDOT_B, specs.TENSORDOT_AXES
        if self.quick:
            a, b = (32, 64, 48), (48, 40, 32)
        path = self.write("tensordot.yaml", specs.tensordot_spec(a, b, axes))
        w = f"tensordot {'x'.join(map(str, a))} . {'x'.join(map(str, b))}"
        base = self.workload(
            "tensordot-numpy", reps=self.reps, a_shape=list(a), b_shape=list(b), axes=axes
        )
        ffloor, floor = statistics.median(base["forward"]), statistics.median(base["times"])
        self.record(w + " fwd", "np.tensordot (floor)", base["forward"])
        warm = self.workload("tensordot-engine", path=path, reps=self.reps)
        self.record(w + " fwd", "gradcli forward", warm["times"], floor=ffloor, target=1.5)
        eng = self.workload("engine", path=path, reps=self.reps, forward=True)
        self.record(
            w + " fwd",
            "gradcli engine, fresh problem",
            eng["forward"],
            floor=ffloor,
            note="a new problem per repetition: its first-touch page faults included",
        )
        self.record(w + " fwd+grad", "numpy by hand (floor)", base["times"])
        self.record(w + " fwd+grad", "gradcli engine", eng["times"], floor=floor, target=1.5)

    def conv(self):
        """conv2d SAME, forward and forward+gradient, against np.einsum over the windows."""
        x, k = specs.CONV_X, specs.CONV_K
        if self.quick:
            x, k = (4, 16, 16, 32), (3, 3, 32, 32)
        path = self.write("conv.yaml", specs.conv_spec(x, k))
        w = f"conv2d {'x'.join(map(str, x))} by {'x'.join(map(str, k))} SAME"
        base = self.workload("conv-numpy", reps=self.reps, x_shape=list(x), k_shape=list(k))
        ffloor, floor = statistics.median(base["forward"]), statistics.median(base["times"])
        self.record(w + " fwd", "np.einsum (floor)", base["forward"])
        warm = self.workload("tensordot-engine", path=path, reps=self.reps)
        self.record(w + " fwd", "gradcli forward", warm["times"], floor=ffloor, target=3.0)
        self.record(w + " fwd+grad", "np.einsum by hand (floor)", base["times"])
        eng = self.workload("engine", path=path, reps=self.reps)
        self.record(w + " fwd+grad", "gradcli engine", eng["times"], floor=floor, target=3.0)

    def explain_check(self, name, path, eval_times):
        ev = statistics.median(eval_times)
        commands = self.commands()
        if "explain" in commands:
            t = self.wall(
                [*self.gradcli, "explain", path, "--format", "json"], self.procs, ok=(0, 1)
            )
            self.record(
                f"{name} explain",
                "gradcli explain",
                t,
                floor=ev,
                target=3.0,
                note="floor here = gradcli eval of the same spec",
            )
        else:
            self.skip(f"{name} explain", "gradcli explain", "no explain command")
        if "check" not in commands:
            self.skip(f"{name} check", "gradcli check", "no check command")
            return
        method = "fd" if name == "mlp" else "auto"
        limit = 60 if self.quick else 300
        try:
            t = self.wall(
                [*self.gradcli, "check", path, "--method", method], 1, ok=(0, 1), timeout=limit
            )
        except subprocess.TimeoutExpired:
            self.skip(f"{name} check --method {method}", "gradcli check", f"over {limit} s")
            return
        except RuntimeError as exc:
            self.skip(f"{name} check --method {method}", "gradcli check", str(exc)[:200])
            return
        self.record(
            f"{name} check --method {method}",
            "gradcli check",
            t,
            floor=ev,
            note="floor here = gradcli eval of the same spec; cost documented",
        )

    def no_check(self) -> list[str]:
        """`--check off` when this gradcli's eval cross-checks by default (timed without it)."""
        if not hasattr(self, "_no_check"):
            text = subprocess.run(
                [*self.gradcli, "eval", "--help"], capture_output=True, text=True
            ).stdout
            self._no_check = ["--check", "off"] if "--check" in text else []
        return self._no_check

    def commands(self) -> set[str]:
        """The command names `gradcli --help` lists."""
        text = subprocess.run([*self.gradcli, "--help"], capture_output=True, text=True).stdout
        section = text.partition("Commands:")[2]
        return {line.split()[0] for line in section.splitlines() if line.strip()}

    def frameworks(self, workload, kind, floor, threads="1", **args):
        for fw in FRAMEWORKS:
            name = f"{fw}-{kind}"
            from workload import KINDS

            if name not in KINDS:
                continue
            if importlib.util.find_spec(fw) is None:
                self.skip(workload, fw, "not installed")
                continue
            try:
                res = self.workload(name, threads, procs=1, **args)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                self.skip(workload, fw, f"failed: {str(exc).splitlines()[0]}")
                continue
            self.record(workload, fw, res["times"], floor=floor)


def _peak(argv: list[str], env: dict, ok=(0,)) -> tuple[float, int]:
    """(wall seconds, peak resident bytes) of one process (measured.py)."""
    with tempfile.TemporaryFile() as err:
        code, seconds, _, rss = measured.run(argv, env, subprocess.DEVNULL, err)
        if code not in ok:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv[:4])} exited {code}: {err.read()[-500:]!r}")
    return seconds, int(rss * 2**20)


def _signal_latency(argv, env, log, moment, signum) -> tuple[float, float]:
    """(seconds from signum to argv's exit, to its worker's end), sent at `moment`."""

    def events() -> list[str]:
        try:
            with open(log) as fh:
                return fh.read().splitlines()
        except FileNotFoundError:
            return []

    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
        except OSError:
            return False

    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 300
    while not any(e.endswith(" " + moment) for e in events()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"no '{moment}' in {events()}")
        time.sleep(0.001)
    pids = [int(e.split()[1]) for e in events() if e.startswith("started ")]
    sent = time.perf_counter()
    proc.send_signal(signum)
    exited = gone = None
    while exited is None or gone is None:
        now = time.perf_counter()
        if exited is None and proc.poll() is not None:
            exited = now - sent
        if gone is None and not any(running(p) for p in pids):
            gone = now - sent
        if now - sent > 60:
            raise RuntimeError("a process outlived the signal by a minute")
        time.sleep(0.0005)
    return exited, gone


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def machine() -> dict:
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
    if shutil.which("lscpu"):
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core"):
                info[key.strip()] = value.strip()
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:
        pass
    info["load average"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return info


def compile_bytecode() -> None:
    """Write gradcli's and the floors' .pyc files first, as `pip install` does for a package.

    Under PYTHONDONTWRITEBYTECODE (or in a fresh clone) every gradcli process would otherwise
    compile its modules from source, some 25-60 ms that no installed user pays, while the
    floors' numpy comes compiled.
    """
    import compileall

    spec = importlib.util.find_spec("gradcli")
    dirs = [HERE, *(spec.submodule_search_locations or [] if spec else [])]
    for d in dirs:
        compileall.compile_dir(d, quiet=2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one process each")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall-clock time (default), or process CPU time on a machine shared with other "
        "work (meaningless for the default-threads runs, which add up every thread)",
    )
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help="comma-separated: startup,chain,shapes,hessian,mlp,elementwise,contractions,"
        "tensordot,conv,points,output,tfcode,keras,runmode,refusal,literal,signals",
    )
    args = parser.parse_args(argv)
    names = [
        "startup", "chain", "shapes", "hessian", "mlp", "elementwise", "contractions",
        "tensordot", "conv", "points", "output", "tfcode", "keras", "runmode", "refusal", "literal",
        "signals",
    ]  # fmt: skip
    if args.only:
        names = [n for n in args.only.split(",") if n in names]
    compile_bytecode()
    info = machine()
    info["clock"] = args.clock
    print("machine: " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gradcli-bench-") as tmp:
        suite = Suite(args.quick, tmp, args.clock)
        for name in names:
            getattr(suite, name)()
    total = time.perf_counter() - start
    print(f"total {total:.1f} s", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"machine": info, "quick": args.quick, "seconds": total, "records": suite.records},
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

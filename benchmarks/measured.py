"""One whole process's time and peak RSS, measured from a small launcher.

Linux records a process's peak RSS (`ru_maxrss`) across exec: a child that
subprocess starts with vfork (or posix_spawn) inherits, at its exec, the peak of the
benchmark driver whose memory it briefly shared. After a workload that made the driver
large (a 10^7-element spec, say), every later child read the driver's peak (both sides
of the output rows showed 385.66 MiB in one suite run). Run as a script, this module is
a fresh small interpreter that forks (a real fork of itself) and execs the command, so
the command starts from the launcher's few MiB; it times the child alone and reports its
`wait4` figures on the descriptor it is given.

    python measured.py FD ARGV...   ->  "status wall_s user_s sys_s maxrss_kib" on FD
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)


def run(argv: list[str], env: dict, stdout, stderr) -> tuple[int, float, float, float]:
    """(exit status, wall seconds, CPU seconds, peak RSS in MiB) of argv run on its own."""
    read_end, write_end = os.pipe()
    try:
        launcher = subprocess.Popen(
            [sys.executable, "-I", "-S", HERE, str(write_end), *argv],
            env=env,
            stdout=stdout,
            stderr=stderr,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        write_end = -1
        with os.fdopen(read_end, "r") as report:
            read_end = -1
            line = report.read()
        launcher.wait()
    finally:
        for fd in (read_end, write_end):
            if fd >= 0:
                os.close(fd)
    if launcher.returncode != 0 or not line:
        raise RuntimeError(f"the launcher failed for {' '.join(argv[:4])}")
    status, wall, user, system, maxrss = line.split()
    return int(status), float(wall), float(user) + float(system), int(maxrss) / 1024.0


def _launch(fd: int, argv: list[str]) -> None:
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    with os.fdopen(fd, "w") as out:
        out.write(f"{code} {wall} {usage.ru_utime} {usage.ru_stime} {usage.ru_maxrss}\n")


if __name__ == "__main__":
    _launch(int(sys.argv[1]), sys.argv[2:])

"""Workers die with their run (issue 30, item 4).

A run of the local backend killed by any signal, SIGKILL included, leaves no worker
process behind, even one in the middle of a long task: the issue found two workers of a
SIGKILLed ``measy-experiment`` still computing 13 minutes later (parent 1). Each case
starts a real run, waits until its workers are busy with a task, kills the run and reads
the process table.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process table in /proc"
)


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"  # a zombie has ended


def _workers(parent: int) -> list[int]:
    """The ``allockit.runner.worker`` children of ``parent``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat(int(name))
        if fields is None or int(fields[1]) != parent:
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except OSError:
            continue
        if b"allockit.runner.worker" in cmdline:
            found.append(int(name))
    return found


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy_workers(run: subprocess.Popen, count: int, timeout: float = 120.0) -> list[int]:
    """Wait until ``count`` workers of ``run`` have each computed for a while (mid-task)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert run.poll() is None, run.communicate()[1][-2000:]
        pids = _workers(run.pid)
        if len(pids) == count and all(_cpu_seconds(p) > 1.0 for p in pids):
            return pids
        time.sleep(0.2)
    raise AssertionError(f"no {count} busy workers within {timeout} s")


def _gone(pids: list[int], timeout: float = 15.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = [p for p in pids if _alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


def _kill_and_check(run: subprocess.Popen, pids: list[int], how: signal.Signals) -> None:
    try:
        run.send_signal(how)
        run.wait(timeout=60)
        left = _gone(pids)
    finally:
        for pid in pids:  # never leave them running, whatever the test found
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if run.poll() is None:
            run.kill()
        run.communicate()
    assert not left, f"workers {left} outlived the run killed by {how.name}"


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_killed_experiment_leaves_no_worker(tmp_path, how):
    # the case: measy-experiment with a store, two local workers, long tasks
    run = subprocess.Popen(
        [sys.executable, "-m", "allockit.cli", "measy-experiment", "fig6", "--jobs", "200000",
         "--loads", "0.5,0.6", "--workers", "2", "--store", str(tmp_path / "s.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _kill_and_check(run, _busy_workers(run, 2), how)


SPIN = textwrap.dedent(
    """
    import sys
    from allockit.runner import Task, run_sweep
    grid = [Task(kind="spin", instance_id=str(k), instance={}, method="-",
                 params={"iterations": 10**12}) for k in range(2)]
    run_sweep(grid, sys.argv[1], backend="local", workers=2)
    """
)


def test_a_killed_script_leaves_no_worker_even_in_pure_python_loops(tmp_path):
    # a library user's script: the workers spin in Python, SIGKILL on the script
    run = subprocess.Popen(
        [sys.executable, "-c", SPIN, str(tmp_path / "s.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _kill_and_check(run, _busy_workers(run, 2), signal.SIGKILL)


def test_the_watchdog_alone_ends_an_orphaned_worker(tmp_path):
    # without the parent-death signal (other systems), the watchdog thread does it
    script = textwrap.dedent(
        """
        import os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c",
            "import os, time\\n"
            "from allockit.runner import worker\\n"
            "worker._parent_death_signal = lambda: False\\n"
            "worker.die_with_parent()\\n"
            "print(os.getpid(), flush=True)\\n"
            "time.sleep(120)\\n"], stdout=subprocess.PIPE, text=True)
        print(child.stdout.readline().strip(), flush=True)
        time.sleep(120)
        """
    )
    run = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        child = int(run.stdout.readline())
        assert _alive(child)
        run.kill()
        run.wait()
        left = _gone([child], timeout=10)
    finally:
        run.stdout.close()
    if left:
        os.kill(child, signal.SIGKILL)
    assert not left

"""Worker process of the local backend: reads pickled tasks on stdin, writes rows.

Started as ``python -m allockit.runner.worker`` so that nothing of the user's main script is
re-imported (unlike multiprocessing's spawn). Output the task prints on stdout goes to
stderr; the protocol uses a private copy of the original stdout.

A worker dies with the process that started it, however that one ends (SIGKILL
included), even in the middle of a long task: on Linux the kernel sends it SIGKILL when
its parent dies (``prctl(PR_SET_PDEATHSIG)``), and everywhere a watchdog thread ends it
once its parent is gone (its parent process id changes).
"""

import os
import pickle
import signal
import sys
import threading
import time

#: Environment variable holding the process id of the worker's parent.
PARENT_ENV = "ALLOCKIT_PARENT_PID"
#: Seconds between two looks of the watchdog at the parent.
WATCH_SECONDS = 0.5


def _parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        return libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError, TypeError):
        return False


def _parent_gone(parent: int) -> bool:
    return os.getppid() != parent


def _watch(parent: int) -> None:
    while True:
        if _parent_gone(parent):
            os._exit(1)
        time.sleep(WATCH_SECONDS)


def die_with_parent(parent: int | None = None) -> None:
    """End this process when ``parent`` ends: parent-death signal and watchdog thread.

    Parameters
    ----------
    parent : int, optional
        The parent's process id (default: ``$ALLOCKIT_PARENT_PID``, else the current
        parent). If it is already gone, this process exits at once.
    """
    if parent is None:
        text = os.environ.get(PARENT_ENV, "")
        parent = int(text) if text.isdigit() else os.getppid()
    _parent_death_signal()
    if _parent_gone(parent):  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="allockit-watchdog", daemon=True).start()


def main() -> None:
    """Serve tasks until stdin closes."""
    die_with_parent()
    from allockit.tasks import execute_task

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed by a task or a solver goes to stderr
    sys.stdout = sys.stderr
    source = sys.stdin.buffer
    while True:
        try:
            task = pickle.load(source)
        except EOFError:
            return
        pickle.dump(execute_task(task), channel)
        channel.flush()


if __name__ == "__main__":
    main()

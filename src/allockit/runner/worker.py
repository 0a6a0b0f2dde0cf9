"""Worker process of the local backend: reads pickled tasks on stdin, writes rows.

Started as ``python -m allockit.runner.worker`` so that nothing of the user's main script is
re-imported (unlike multiprocessing's spawn). Output the task prints on stdout goes to
stderr; the protocol uses a private copy of the original stdout.
"""

import os
import pickle
import signal
import sys


def main() -> None:
    """Serve tasks until stdin closes."""
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

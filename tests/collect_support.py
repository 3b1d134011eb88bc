"""Waiting for the results of running jobs in tests, failing (rather than hanging) when they do
not come: the next results of an ``execute_and_collect`` iterator, a file a job writes."""
from __future__ import annotations

import contextlib
import threading
import time


def take(iterator, n: int, timeout: float = 300) -> list:
    """The next ``n`` results of ``iterator``."""
    got: list = []

    def pull():
        with contextlib.suppress(Exception):
            while len(got) < n:
                got.append(next(iterator))

    puller = threading.Thread(target=pull, daemon=True)
    puller.start()
    puller.join(timeout)
    assert len(got) == n, f"only {got} of {n} results came within {timeout} s"
    return got


def wait_for_path(path, timeout: float = 300) -> None:
    """Until ``path`` (a pathlib.Path) exists."""
    deadline = time.time() + timeout
    while not path.exists():
        assert time.time() < deadline, f"{path} did not appear within {timeout} s"
        time.sleep(0.2)

"""A failure injected once into a job's function, for the tests of replayed micro-batches: Spark's
Python workers are separate processes, so a file says whether one already failed."""
from __future__ import annotations


def fail_first_time(counter: str, what: object) -> None:
    """Raises a ValueError naming ``what`` the first time any process calls it with the file ``counter``
    (made empty or missing); later calls return."""
    with open(counter, "a+") as f:
        f.seek(0)
        if not f.read():
            f.write("x")
            raise ValueError(f"injected failure on {what}")
